from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import MANIFEST, REGISTER, PluginRule


class UnreadablePluginYaml(PluginRule, Rule):
    """A plugin's ``plugin.yaml`` cannot be read or parsed, so nothing in it can be verified.

    Hermes reads a directory plugin's ``plugin.yaml`` with ``yaml.safe_load`` as UTF-8
    (``hermes_cli/plugins.py``, ``_parse_manifest``); when that raises it logs "Failed to parse"
    and returns no manifest, and the plugin is not loaded at all. (A pip-installed plugin's
    ``plugin.yaml`` is not read by the 0.19.0 loader, which builds its manifest from the entry
    point, but the plugin catalogue and ``hermes plugins`` commands read it.)

    Reported here: invalid YAML or several documents (at the parser's position), bad UTF-8 (at the
    first bad byte), and what hermes-lint refuses to read: a file over 256 KiB, a FIFO or device,
    a link that leads outside the project, a document that expands through its aliases to more than
    100,000 values or holds an alias inside itself. The other plugin.yaml rules (HRM804–HRM809)
    stay silent on such a file.
    """

    code = "HRM803"
    summary = "plugin.yaml cannot be read or parsed: cannot verify it"

    valid = [Valid(MANIFEST, files={"__init__.py": REGISTER})]
    invalid = [
        Invalid(
            """
            name: echo
            version: 1.0.0
            description: Echo text back.
            provides_tools: [echo
            """,
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=5,
            col=1,
            fix=(("[echo", "[echo]"),),
        ),
        Invalid(
            """
            name: echo
            tools: &t [echo, *t]
            """,
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=1,
            col=1,
            message="plugin.yaml holds an alias that contains itself: Hermes's loader would build a recursive value: "
            "nothing in it can be verified",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        views = plugin_views(ctx)
        if not views:
            return
        from hermes_lint.project.plugin_yaml import ManifestReadError

        for view in views:
            error = view.manifest
            if isinstance(error, ManifestReadError):
                consequence = (
                    'Hermes logs "Failed to parse" and does not load the plugin; nothing in it can be verified'
                    if error.message.startswith("is not valid")
                    else "nothing in it can be verified"
                )
                yield Finding(error.location, f"plugin.yaml {error.message}: {consequence}", error.path)
