from __future__ import annotations

from typing import Iterator

from hermes_lint.context import ProjectContext
from hermes_lint.project_index import is_mcp, listed_tools, readable_toolsets, registered
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid

TOOLSETS = '''
_HERMES_CORE_TOOLS = ["read_file"]
TOOLSETS = {
    "file": {"description": "Files", "tools": ["write_file"], "includes": []},
}
'''


class RegisteredToolNotListed(Rule):
    """A registered tool that no toolset in ``toolsets.py`` lists.

    Agents are given tools through toolsets: a tool that no toolset (nor ``_HERMES_CORE_TOOLS``)
    lists is registered, costs its import, and is never offered to any model — typically step 2
    of "adding a tool" (add the name to ``toolsets.py``) was forgotten. Reported at the name.

    Not reported: names that are not constants (HRM003), tools of ``mcp-`` toolsets (MCP toolsets
    are filled at run time), and anything when ``toolsets.py`` is absent or cannot be read
    statically (HRM003).
    """

    code = "HRM404"
    summary = "a registered tool that no toolset lists"
    scope = "project"

    valid = [
        Valid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="write_file", toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
        ),
        # no toolsets.py, or one that cannot be read statically: nothing to compare with
        """
        from tools.registry import registry
        registry.register(name="patch", toolset="file", schema={}, handler=lambda a, **k: "")
        """,
        Valid(
            """
            from tools.registry import registry
            registry.register(name="patch", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="fetch", toolset="mcp-github", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": "TOOLSETS = load_toolsets()\n"},
        ),
        # an MCP toolset's tool: listed at run time, when the server is connected
        Valid(
            """
            from tools.registry import registry
            registry.register(name="write_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="fetch", toolset="mcp-github", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
        ),
    ]
    invalid = [
        # `mcp-` is the MCP prefix; a toolset that only starts with "mcp" is an ordinary one
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="write_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="fetch", toolset="mcpish", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
            line=3,
            message="tool `fetch` is registered but no toolset in toolsets.py lists it: no agent is offered it",
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(
                name="patch",
                toolset="file",
                schema={},
                handler=lambda a, **k: "",
            )
            """,
            files={"toolsets.py": TOOLSETS},
            line=4,
            col=10,
            message="tool `patch` is registered but no toolset in toolsets.py lists it: no agent is offered it",
            fix=(('"tools": ["write_file"]', '"tools": ["write_file", "patch"]'),),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register("search_files", "file", {}, lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
            line=2,
            col=1,
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        toolsets = readable_toolsets(ctx)
        if toolsets is None:
            return
        listed = {entry.name for entry in listed_tools(toolsets)}
        for entry in registered(ctx):
            if entry.name in listed or is_mcp(entry.toolset):
                continue
            yield Finding(
                entry.location,
                f"tool `{entry.name}` is registered but no toolset in toolsets.py lists it: no agent is offered it",
                entry.module.path,
            )
