from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import MANIFEST, REGISTER, PluginRule

TWO_TOOLS = REGISTER + '''
    ctx.register_tool(name="echo_loud", toolset="echo", schema=SCHEMA, handler=echo, check_fn=lambda: True)
'''


THIRD_AND_FOURTH = '''
    ctx.register_tool(name="echo_quiet", toolset="echo", schema=SCHEMA, handler=echo, check_fn=lambda: True)
    ctx.register_tool(name="echo_twice", toolset="echo", schema=SCHEMA, handler=echo, check_fn=lambda: True)
'''
NO_PROVIDES = MANIFEST.split("provides_tools:")[0]
SHOWN = 3  # names shown when plugin.yaml has no provides_tools


class RegisteredToolNotDeclared(PluginRule, Rule):
    """The plugin registers a tool that ``plugin.yaml``'s ``provides_tools`` does not list.

    Hermes knows a plugin's tools before loading it only from ``provides_tools``: the
    ``hermes plugins`` commands use it to find the plugin's toolset and to list its tools, and the
    plugin catalogue's admission check fails when the registrations and the declaration differ
    ("declared tools — matches registrations"). Reported at the registration's name, so the fix is
    one line away: add the name to ``provides_tools``.

    A ``plugin.yaml`` with no ``provides_tools`` at all is one omission, however many tools the
    plugin registers: it is reported once, at the start of ``plugin.yaml`` (the file that lacks
    the key, where the fix goes), with the number of tools and the first names. The count says
    "at least" when some of the plugin's registrations could not be read.

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
        # no provides_tools at all: one finding for the plugin, where the key is missing
        Invalid(
            TWO_TOOLS + THIRD_AND_FOURTH,
            files={"plugin.yaml": NO_PROVIDES},
            path="plugin.yaml",
            line=1,
            col=1,
            message="plugin.yaml has no provides_tools, but register(ctx) registers 4 tools "
            "(`echo`, `echo_loud`, `echo_quiet` and 1 more): list them in provides_tools",
        ),
        Invalid(
            REGISTER,
            files={"plugin.yaml": NO_PROVIDES},
            path="plugin.yaml",
            line=1,
            col=1,
            message="plugin.yaml has no provides_tools, but register(ctx) registers 1 tool (`echo`): "
            "list it in provides_tools",
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
            if "provides_tools" not in data:
                yield from _undeclared(view, document)
                continue
            listed = {name for name in declared if isinstance(name, str)}
            reported = set()
            for entry in view.registered:
                if entry.name in listed or entry.name in reported:
                    continue
                reported.add(entry.name)
                message = f"tool `{entry.name}` is registered, but plugin.yaml's provides_tools does not list it"
                yield Finding(entry.location, message, entry.module.path)


def _undeclared(view, document) -> Iterator[Finding]:
    """One finding for a plugin.yaml without provides_tools, when the plugin registers tools."""
    names = list(dict.fromkeys(view.names))
    if not names:
        return
    shown = ", ".join(f"`{name}`" for name in names[:SHOWN])
    if len(names) > SHOWN:
        shown += f" and {len(names) - SHOWN} more"
    elif len(names) > 1:
        first, _, last = shown.rpartition(", ")
        shown = f"{first} and {last}"
    count = f"{'' if view.complete else 'at least '}{len(names)} tool{'s' if len(names) != 1 else ''}"
    them = "them" if len(names) != 1 else "it"
    yield Finding(
        document.location(),
        f"plugin.yaml has no provides_tools, but register(ctx) registers {count} ({shown}): list {them} in provides_tools",
        document.path,
    )
