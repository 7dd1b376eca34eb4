from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import keyword_value_location, registered
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import PLUGIN, PluginRule, manifest


class OverrideReplacesNothing(PluginRule, Rule):
    """A plugin passes ``override=True`` for a tool name that collides with nothing.

    ``override=True`` says "replace the existing tool of this name". Hermes treats it as a request
    for privilege whatever the name: ``PluginContext.register_tool`` first asks whether the operator
    set ``plugins.entries.<plugin>.allow_tool_override: true`` and, when not, raises
    ``PluginToolOverrideError``, so ``register(ctx)`` fails there, Hermes logs "Failed to load
    plugin", and none of the plugin's tools, not only this one, exist. On a name that no built-in
    and no other tool of the project has, the flag buys nothing and costs the whole plugin: remove it.

    The built-in names are those HRM810 uses (the installed Hermes, else hermes-lint's catalogue,
    named in the message). Not reported when the name is registered anywhere else in the project,
    when ``override=`` is not a literal, or in a Hermes tree (a project with its own ``tools/``),
    whose bundled plugins Hermes trusts to override.
    """

    code = "HRM811"
    summary = "override=True on a tool name that collides with nothing"
    example_path = "__init__.py"

    valid = [
        Valid(
            PLUGIN.format(name="browser_navigate", toolset="cdp", extra=", override=True"),
            files={"plugin.yaml": manifest("browser_navigate")},
        ),
        Valid(PLUGIN.format(name="echo", toolset="echo", extra=", override=False"), files={"plugin.yaml": manifest("echo")}),
    ]
    invalid = [
        Invalid(
            PLUGIN.format(name="echo", toolset="echo", extra=", override=True"),
            files={"plugin.yaml": manifest("echo")},
            path="__init__.py",
            line=2,
            col=99,
            message="override=True on `echo`, which no built-in tool of hermes-agent 0.19.0 (catalogue shipped with "
            "hermes-lint) nor any other tool of this project has: unless the operator allows this plugin's overrides, "
            "register_tool raises PluginToolOverrideError and the whole plugin fails to load",
            fix=((", override=True", ""),),
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        entries = registered(ctx)
        overriding = [
            entry for entry in entries if entry.registration.plugin and entry.registration.value("override", False) is True
        ]
        if not overriding or any(not entry.registration.plugin for entry in entries):
            return  # a Hermes tree: its bundled plugins may override (Hermes trusts them)
        from hermes_lint.extract.builtin_tools import builtin_tools  # past the plugins-only test

        known = builtin_tools()
        for entry in overriding:
            others = [other for other in entries if other.name == entry.name and other is not entry]
            if entry.name in known.tools or others:
                continue
            yield Finding(
                keyword_value_location(entry.registration, "override"),
                f"override=True on `{entry.name}`, which no built-in tool of {known.source} nor any other tool of "
                "this project has: unless the operator allows this plugin's overrides, register_tool raises "
                "PluginToolOverrideError and the whole plugin fails to load",
                entry.module.path,
            )
