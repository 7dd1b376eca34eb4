from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import registered
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid


class NameTwiceInToolset(Rule):
    """A tool name registered twice in the same toolset.

    The registry accepts the second registration of a name in the same toolset and silently
    replaces the first: whichever module is discovered last wins, and the other handler and
    schema are dead code. Usually a copy-pasted registration whose ``name=`` was not changed.
    Both registrations are reported, each naming the other (path, then line order decides which
    replaces which), so that an editor showing either file sees the clash.

    Not reported: registrations whose name or toolset is not a constant (HRM003); the same name
    in different toolsets is HRM401's.
    """

    code = "HRM402"
    summary = "the same tool name registered twice in one toolset"
    scope = "project"

    valid = [
        """
        from tools.registry import registry
        registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
        registry.register(name="write_file", toolset="file", schema={}, handler=lambda a, **k: "")
        """,
        Valid(
            """
            import os
            from tools.registry import registry
            registry.register(name=os.environ.get("NAME", "read_file"), toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            files={
                "tools/file_tool.py": """
                    from tools.registry import registry
                    registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
                    """
            },
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            line=3,
            col=24,
            also=((2, 24),),
            message="tool `read_file` is registered again in toolset 'file' (first at "
            "tools/example_tool.py:2): this registration silently replaces it",
            fix=(('"")\nregistry.register(name="read_file"', '"")\nregistry.register(name="write_file"'),),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="patch", toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            files={
                "tools/a_tool.py": """
                    from tools.registry import registry
                    registry.register(name="patch", toolset="file", schema={}, handler=lambda a, **k: "")
                    """
            },
            line=2,
            col=24,
            also=(("tools/a_tool.py", 2, 24),),
            message="tool `patch` is registered again in toolset 'file' (first at tools/a_tool.py:2): "
            "this registration silently replaces it",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        first = {}
        for entry in registered(ctx):
            if not isinstance(entry.toolset, str):
                continue
            key = (entry.name, entry.toolset)
            if key not in first:
                first[key] = entry
                continue
            yield Finding(
                entry.location,
                f"tool `{entry.name}` is registered again in toolset '{entry.toolset}' (first at "
                f"{first[key].place()}): this registration silently replaces it",
                entry.module.path,
            )
            # The first one too, so that an editor showing only its file sees the clash.
            yield Finding(
                first[key].location,
                f"tool `{entry.name}` is registered again in toolset '{entry.toolset}' at "
                f"{entry.place()}, which silently replaces this registration",
                first[key].module.path,
            )
