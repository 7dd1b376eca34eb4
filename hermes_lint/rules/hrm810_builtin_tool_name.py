from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import registered
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import PLUGIN, PluginRule, manifest


class BuiltinToolName(PluginRule, Rule):
    """A plugin registers a tool under the name of one of Hermes's built-in tools.

    Hermes's registry (``tools/registry.py``, ``register``) keeps the first tool of a name. The
    built-in tools are registered before any plugin loads, so a plugin's ``web_search`` in another
    toolset is rejected: the registry logs "Tool registration REJECTED ... would shadow existing
    tool" and the plugin's tool never exists. In the built-in's own toolset it silently replaces the
    built-in instead. Replacing a built-in on purpose takes ``override=True``, and even then Hermes
    allows it only when the operator sets ``plugins.entries.<plugin>.allow_tool_override: true``
    (``PluginContext.register_tool`` raises ``PluginToolOverrideError`` otherwise); such a
    registration is not reported here.

    The built-in names are those of the Hermes installed beside hermes-lint (its ``tools/*.py``,
    read, never imported), else those of the hermes-agent release hermes-lint's catalogue was made
    from; the message names which. The installed Hermes is the ``hermes-agent`` an installer
    recorded: a ``*.dist-info`` with its ``RECORD`` on the path, as pip and uv write for an
    install and for an editable install (PEP 660, read from the source directory it names). A
    legacy editable install (``setup.py develop``, an ``.egg-link``) writes no ``RECORD`` and is
    not taken for one: the catalogue answers. A hermes-agent source tree that is the working
    directory (first on ``sys.path`` under ``python -m``) is the project being checked, never the
    installation. A project with its own ``tools/`` (a Hermes tree) is judged by HRM401 against
    its own tools instead.
    """

    code = "HRM810"
    summary = "a plugin tool takes the name of a Hermes built-in tool"
    example_path = "__init__.py"

    valid = [
        Valid(PLUGIN.format(name="echo", toolset="echo", extra=""), files={"plugin.yaml": manifest("echo")}),
        Valid(
            PLUGIN.format(name="web_search", toolset="my-search", extra=", override=True"),
            files={"plugin.yaml": manifest("web_search")},
        ),
    ]
    invalid = [
        Invalid(
            PLUGIN.format(name="web_search", toolset="my-search", extra=""),
            files={"plugin.yaml": manifest("web_search")},
            path="__init__.py",
            line=2,
            col=28,
            message="tool `web_search` is a built-in tool of hermes-agent 0.19.0 (catalogue shipped with hermes-lint), "
            "in toolset 'web': the registry rejects this registration (\"Tool registration REJECTED\") unless it passes "
            "override=True and the operator allows this plugin's overrides",
            fix=(('name="web_search"', 'name="my_web_search"'), ("  - web_search", "  - my_web_search")),
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        entries = registered(ctx)
        plugin_entries = [entry for entry in entries if entry.registration.plugin]
        if not plugin_entries or len(plugin_entries) != len(entries):
            return  # no plugin tools, or a Hermes tree: HRM401 judges against its own tools
        from hermes_lint.extract.builtin_tools import builtin_tools  # past the plugins-only test

        known = builtin_tools()
        for entry in plugin_entries:
            toolset = known.tools.get(entry.name)
            if toolset is None or entry.registration.value("override", False) is not False:
                continue
            if entry.toolset == toolset:
                consequence = "this registration silently replaces the built-in"
                where = f"in the same toolset '{toolset}'"
            else:
                consequence = (
                    "the registry rejects this registration (\"Tool registration REJECTED\") unless it passes "
                    "override=True and the operator allows this plugin's overrides"
                )
                where = f"in toolset '{toolset}'"
            yield Finding(
                entry.location,
                f"tool `{entry.name}` is a built-in tool of {known.source}, {where}: {consequence}",
                entry.module.path,
            )
