from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import MANIFEST, REGISTER, PluginRule

TWO_TOOLS = REGISTER + '''
    ctx.register_tool(name="echo_loud", toolset="echo", schema=SCHEMA, handler=echo, check_fn=lambda: True)
'''


class RegisteredToolNotDeclared(PluginRule, Rule):
    """The plugin registers a tool that ``plugin.yaml``'s ``provides_tools`` does not list.

    Hermes knows a plugin's tools before loading it only from ``provides_tools``: the
    ``hermes plugins`` commands use it to find the plugin's toolset and to list its tools, and the
    plugin catalogue's admission check fails when the registrations and the declaration differ
    ("declared tools — matches registrations"). Reported at the registration's name, so the fix is
    one line away: add the name to ``provides_tools``.

    Only for plugins that have a readable ``plugin.yaml`` holding a mapping (HRM803/HRM804 report the
    others) whose ``provides_tools`` is a list or absent.
    """

    code = "HRM809"
    summary = "a registered tool is missing from provides_tools"
    example_path = "__init__.py"

    valid = [Valid(REGISTER, files={"plugin.yaml": MANIFEST})]
    invalid = [
        Invalid(
            TWO_TOOLS,
            files={"plugin.yaml": MANIFEST},
            path="__init__.py",
            line=11,
            col=28,
            message="tool `echo_loud` is registered, but plugin.yaml's provides_tools does not list it",
            fix=(("provides_tools:\n  - echo", "provides_tools:\n  - echo\n  - echo_loud"),),
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        for view in plugin_views(ctx):
            document = view.document
            data = document.data if document is not None else None
            if document is None or not isinstance(data, dict):
                continue
            declared = data.get("provides_tools")
            if declared is None:
                declared = []
            elif not isinstance(declared, list):
                continue  # HRM804
            listed = {name for name in declared if isinstance(name, str)}
            reported = set()
            for entry in view.registered:
                if entry.name in listed or entry.name in reported:
                    continue
                reported.add(entry.name)
                where = "has no provides_tools" if "provides_tools" not in data else "'s provides_tools does not list it"
                message = (
                    f"tool `{entry.name}` is registered, but plugin.yaml {where}"
                    if where.startswith("has")
                    else f"tool `{entry.name}` is registered, but plugin.yaml{where}"
                )
                yield Finding(entry.location, message, entry.module.path)
