from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.model import Location, Unresolved
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid


class UnanalysableRegistration(Rule):
    """A registration (or ``toolsets.py``) that cannot be read statically.

    When a tool's name or toolset is computed at run time, or the call spreads ``**kwargs``,
    hermes-lint cannot know which tool it is: duplicate-name and toolset checks cannot include
    it, and the manifest has to import that module instead of freezing it. The same honesty
    applies to a plugin's ``ctx.register_tool(...)`` that cannot be read (a loop over values
    known only at run time), or a plugin context handed to code outside the project, and to a
    ``TOOLSETS`` that is not a literal: the toolset rules (HRM403–HRM406) then stay silent
    instead of guessing. (A schema built at run time is HRM301's.)
    """

    code = "HRM003"
    summary = "registration that cannot be analysed statically"
    scope = "project"

    valid = [
        """
        from tools.registry import registry
        NAME = "weather"
        registry.register(name=NAME, toolset="web" + "", schema={}, handler=lambda a, **k: "")
        """,
        # code under `if __name__ == "__main__":` never runs on import: the demo block of upstream's
        # toolsets.py and a tool module's self-test change nothing
        Valid(
            """
            import json
            from tools.registry import registry
            NAME = "web_search"
            registry.register(name=NAME, toolset="web", schema={}, handler=lambda a, **k: json.dumps({}))

            if __name__ == "__main__":
                NAME = "web_search_debug"
                print(registry.dispatch(NAME, {}))
            """,
            files={
                "toolsets.py": '''
                    TOOLSETS = {"web": {"description": "d", "tools": ["web_search"], "includes": []}}


                    def create_custom_toolset(name, description, tools=None, includes=None):
                        TOOLSETS[name] = {"description": description, "tools": tools or [], "includes": includes or []}


                    if __name__ == "__main__":
                        create_custom_toolset(name="demo", description="demo", tools=["web_search"])
                        TOOLSETS = {}
                    '''
            },
        ),
    ]
    invalid = [
        Invalid(
            """
            import os
            from tools.registry import registry
            registry.register(name=os.environ["TOOL"], toolset="s", schema={}, handler=lambda a, **k: "")
            """,
            line=3,
            col=24,
            message="tool name cannot be determined statically (environment read); the manifest "
            "will import this module",
            fix=(('name=os.environ["TOOL"]', 'name="weather"'),),
        ),
        Invalid(
            """
            from tools.registry import registry
            OPTIONS = dict(name="t", toolset="s", schema={}, handler=lambda a, **k: "")
            registry.register(**OPTIONS)
            """,
            line=3,
            col=1,
            message="register() arguments are spread with */** and cannot be read statically; "
            "the manifest will import this module",
        ),
        # a plugin's register_tool call in a loop over values known only at run time
        Invalid(
            """
            def register(ctx):
                for spec in load_specs():
                    ctx.register_tool(name=spec, toolset="t", schema={}, handler=lambda a, **k: "")
            """,
            line=3,
            col=9,
            message="cannot verify: this register_tool call cannot be read (the loop over `load_specs()` cannot "
            "be unrolled statically): its tool is not checked",
        ),
        Invalid(
            """
            from tools.registry import registry
            """,
            files={"toolsets.py": "TOOLSETS = load_toolsets()\n"},
            path="toolsets.py",
            line=1,
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        for module, registration in ctx.registrations():
            if registration.has_star_args:
                yield Finding(
                    registration.location,
                    "register() arguments are spread with */** and cannot be read statically; "
                    "the manifest will import this module",
                    module.path,
                )
                continue
            for what, value, keyword in (
                ("tool name", registration.name, "name"),
                ("toolset", registration.toolset, "toolset"),
            ):
                if isinstance(value, Unresolved) and (given := registration.keyword(keyword)) is not None:
                    where = given.value_location
                    yield Finding(
                        where,
                        f"{what} cannot be determined statically ({value.reason}); the manifest "
                        "will import this module",
                        module.path,
                    )
        for module in ctx.modules:
            for location, reason in module.unread_plugin_calls:
                yield Finding(location, f"cannot verify: {reason}", module.path)
        toolsets = ctx.toolsets
        if toolsets is not None and toolsets.problem is not None:
            where = toolsets.problem.location or Location(1, 1)
            yield Finding(
                where,
                f"toolsets cannot be read statically ({toolsets.problem.reason}); toolset checks "
                "HRM403-HRM406 are skipped",
                toolsets.path,
            )
