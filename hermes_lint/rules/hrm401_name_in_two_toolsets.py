from __future__ import annotations

from typing import Dict, Iterator, List

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import Registered, is_mcp, registered
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid


class NameInTwoToolsets(Rule):
    """A tool name can belong to one toolset only.

    ``ToolRegistry.register`` rejects a name already registered by another toolset (it logs an
    error and keeps the first), so the second tool silently never exists — which one wins depends
    on the order modules are discovered in (sorted file names). Both registrations are
    reported, each naming the other, so that an editor showing either file sees the clash.

    Plugins register into the same registry after the built-in tools are discovered, so a
    plugin's tool and a ``tools/`` tool, or the tools of two plugins of one repository, clash the
    same way: the later one (the plugin's; of two plugins, the one loaded second) is rejected.

    Not reported: two ``mcp-`` toolsets (an MCP server refresh re-registers its tools), a later
    registration passing ``override=True`` (or an ``override=`` that cannot be evaluated): the
    operator's ``allow_tool_override`` decides, and registrations whose name or toolset is not a
    constant (HRM003).
    """

    code = "HRM401"
    summary = "the same tool name registered in two different toolsets"
    scope = "project"

    valid = [
        Valid(
            """
            from tools.registry import registry
            registry.register(name="web_search", toolset="web", schema={}, handler=lambda a, **k: "", check_fn=lambda: True)
            """,
            files={
                "tools/browser_tool.py": """
                    from tools.registry import registry
                    registry.register(name="browser_navigate", toolset="browser", schema={}, handler=lambda a, **k: "", check_fn=lambda: True)
                    """
            },
        ),
        # MCP refreshes, and a deliberate override the operator's policy decides on
        """
        from tools.registry import registry
        registry.register(name="fetch", toolset="mcp-github", schema={}, handler=lambda a, **k: "")
        registry.register(name="fetch", toolset="mcp-gitlab", schema={}, handler=lambda a, **k: "")
        registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
        registry.register(name="read_file", toolset="sandbox", schema={}, handler=lambda a, **k: "", override=True)
        """,
        Valid(
            """
            from tools.registry import registry
            registry.register(name="web_search", toolset="web", schema={}, handler=lambda a, **k: "")
            """,
            files={
                "plugins/finder/__init__.py": """
                    def register(ctx):
                        ctx.register_tool(name="find", toolset="finder", schema={}, handler=lambda a, **k: "")
                    """,
                "plugins/seeker/__init__.py": """
                    def register(ctx):
                        ctx.register_tool(name="seek", toolset="seeker", schema={}, handler=lambda a, **k: "")
                    """,
            },
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            registry.register(
                name="search",
                toolset="web",
                schema={},
                handler=lambda a, **k: "",
            )
            """,
            files={
                "tools/browser_tool.py": """
                    from tools.registry import registry
                    registry.register(name="search", toolset="browser", schema={}, handler=lambda a, **k: "")
                    """
            },
            line=3,
            col=10,
            also=(("tools/browser_tool.py", 2, 24),),
            message="tool `search` is also registered in toolset 'browser' at tools/browser_tool.py:2: "
            "the registry rejects this registration",
            fix=(('    name="search",\n', '    name="web_search",\n'),),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="search", toolset="web", schema={}, handler=lambda a, **k: "")
            registry.register(name="search", toolset="mcp-web", schema={}, handler=lambda a, **k: "")
            """,
            line=3,
            col=24,
            also=((2, 24),),
            message="tool `search` is also registered in toolset 'web' at tools/example_tool.py:2: "
            "the registry rejects this registration",
        ),
        # a plugin's tool against a tools/ module's, and two plugins of one repository
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="search", toolset="web", schema={}, handler=lambda a, **k: "")
            """,
            files={
                "plugins/finder/__init__.py": """
                    def register(ctx):
                        ctx.register_tool(name="search", toolset="finder", schema={}, handler=lambda a, **k: "")
                        ctx.register_tool(name="lookup", toolset="finder", schema={}, handler=lambda a, **k: "")
                    """,
                "plugins/seeker/__init__.py": """
                    def register(ctx):
                        ctx.register_tool(name="lookup", toolset="seeker", schema={}, handler=lambda a, **k: "")
                    """,
            },
            line=2,
            col=24,
            also=(("plugins/finder/__init__.py", 2, 28), ("plugins/finder/__init__.py", 3, 28), ("plugins/seeker/__init__.py", 2, 28)),
            message="tool `search` is also registered in toolset 'finder' at plugins/finder/__init__.py:2: "
            "the registry rejects that registration",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        seen: Dict[str, List[Registered]] = {}
        for entry in registered(ctx):
            earlier = seen.setdefault(entry.name, [])
            toolset = entry.toolset
            override = entry.registration.value("override", False)
            if isinstance(toolset, str) and override is False:
                for first in earlier:
                    if first.toolset != toolset and not (is_mcp(first.toolset) and is_mcp(toolset)):
                        yield Finding(
                            entry.location,
                            f"tool `{entry.name}` is also registered in toolset '{first.toolset}' at "
                            f"{first.place()}: the registry rejects this registration",
                            entry.module.path,
                        )
                        # The earlier one too, so that an editor showing its file sees the clash.
                        yield Finding(
                            first.location,
                            f"tool `{entry.name}` is also registered in toolset '{toolset}' at "
                            f"{entry.place()}: the registry rejects that registration",
                            first.module.path,
                        )
                        break
            if isinstance(toolset, str):
                earlier.append(entry)
