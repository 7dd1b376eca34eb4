from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import is_mcp, listed_tools, readable_toolsets, registered
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.project.toolset_resolution import unreachable_reason

TOOLSETS = '''
_HERMES_CORE_TOOLS = ["read_file"]
TOOLSETS = {
    "file": {"description": "Files", "tools": ["write_file"], "includes": []},
}
'''


# Hermes's own resolution: `get_toolset` adds the tools registered under a defined toolset.
MERGING_TOOLSETS = TOOLSETS + '''
def get_toolset(name):
    from tools.registry import registry
    toolset = TOOLSETS.get(name)
    if toolset:
        merged = set(toolset["tools"]) | set(registry.get_tool_names_for_toolset(name))
        return {**toolset, "tools": sorted(merged)}
    return None
'''


class RegisteredToolNotListed(Rule):
    """A registered tool that no agent can be offered, by the runtime's own resolution.

    Agents are given tools through toolsets: a tool is offered when a toolset (or
    ``_HERMES_CORE_TOOLS``) lists it, or when the project's ``toolsets.py`` adds registered tools
    to their toolset at run time — Hermes's ``get_toolset`` merges every tool registered under a
    defined toolset into it (``registry.get_tool_names_for_toolset``), and offers a toolset only
    the registry knows under its own name (``registry.get_registered_toolset_names``). Which of
    these the runtime does is read from ``toolsets.py`` itself. A tool offered by none of them is
    registered, costs its import, and never reaches a model — typically step 2 of "adding a
    tool" (add the name to ``toolsets.py``) was forgotten. Reported at the name; the message
    says why the tool is unreachable.

    Not reported: a tool whose toolset ``toolsets.py`` does not define (HRM406 says so), names
    that are not constants (HRM003), tools of ``mcp-`` toolsets (MCP toolsets are filled at run
    time), and anything when ``toolsets.py`` is absent or cannot be read statically (HRM003).
    """

    code = "HRM404"
    summary = "a registered tool that no agent can be offered (no toolset lists it or merges it)"
    scope = "project"
    fix_applicability = "safe"
    fix_title = "list the tool in the toolset its `toolset=` names, when toolsets.py has that toolset"

    valid = [
        # toolsets.py has no toolset "web": HRM406's finding (which toolset it belongs to is the
        # user's choice, so neither rule offers a fix)
        Valid(
            """
            from tools.registry import registry
            registry.register(name="fetch_page", toolset="web", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
        ),
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
        # no list names `patch`, but the runtime merges it into the toolset it is registered under
        Valid(
            """
            from tools.registry import registry
            registry.register(name="patch", toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": MERGING_TOOLSETS},
        ),
        # an undefined toolset is HRM406's to report
        Valid(
            """
            from tools.registry import registry
            registry.register(name="patch", toolset="files", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
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
            files={"toolsets.py": TOOLSETS.replace("},\n}", '},\n    "mcpish": {"tools": [], "includes": []},\n}')},
            line=3,
            autofixed="""
            from tools.registry import registry
            registry.register(name="write_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="fetch", toolset="mcpish", schema={}, handler=lambda a, **k: "")
            """,
            autofixed_files={"toolsets.py": TOOLSETS.replace("},\n}", '},\n    "mcpish": {"tools": ["fetch"], "includes": []},\n}')},
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
            message="tool `patch` is registered, but no toolset in toolsets.py lists it, and toolsets.py does "
            "not add registered tools to their toolset 'file': no agent is offered it",
            fix=(('"tools": ["write_file"]', '"tools": ["write_file", "patch"]'),),
            autofixed="""
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(
                name="patch",
                toolset="file",
                schema={},
                handler=lambda a, **k: "",
            )
            """,
            autofixed_files={"toolsets.py": TOOLSETS.replace('["write_file"]', '["write_file", "patch"]')},
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register("search_files", "file", {}, lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
            line=2,
            col=1,
            autofixed="""
            from tools.registry import registry
            registry.register("search_files", "file", {}, lambda a, **k: "")
            """,
            autofixed_files={"toolsets.py": TOOLSETS.replace('["write_file"]', '["write_file", "search_files"]')},
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """The ``new-tool`` edit of toolsets.py (``toolsets_edit.add_tool``), for a call whose
        name and toolset are string literals and a toolset that toolsets.py has."""
        import libcst as cst

        from hermes_lint.edit.fix.edits import edit_between
        from hermes_lint.edit.fix.source import call_keyword
        from hermes_lint.edit.literals import string_value
        from hermes_lint.edit.toolsets_edit import ToolsetsEditError, add_tool

        path = diagnostic.path
        # Reported at the call (a positional name) or at the name's value inside it.
        call = source.node_at(path, diagnostic.line, diagnostic.col, cst.Call)
        if call is None:
            inner = source.nodes_at(path, diagnostic.line, diagnostic.col, cst.BaseExpression)
            call = source.ancestor(path, inner[-1], cst.Call) if inner else None
        if call is None:
            return None
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]

        def literal(keyword: str, position: int):
            arg = call_keyword(call, keyword)
            value = arg.value if arg is not None else positional[position] if len(positional) > position else None
            return string_value(value) if value is not None else None

        name, toolset = literal("name", 0), literal("toolset", 1)
        toolsets_path = source.config.toolsets_file
        toolsets_text = source.text(toolsets_path)
        if name is None or toolset is None or toolsets_text is None:
            return None
        try:
            edited = add_tool(toolsets_text.encode("utf-8"), name, toolset, create_toolset=False)
        except ToolsetsEditError:
            return None
        edit = edit_between(toolsets_path, toolsets_text, edited.source.decode("utf-8"))
        return [edit] if edit is not None else None

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        toolsets = readable_toolsets(ctx)
        if toolsets is None:
            return
        listed = {entry.name for entry in listed_tools(toolsets)}
        for entry in registered(ctx):
            toolset = entry.toolset
            if not isinstance(toolset, str) or is_mcp(toolset) or toolsets.toolset(toolset) is None:
                continue  # an unknown toolset (HRM003) or one toolsets.py does not define (HRM406)
            why = unreachable_reason(entry.name, toolset, toolsets, listed)
            if why is not None:
                yield Finding(
                    entry.location,
                    f"tool `{entry.name}` is registered, but {why}: no agent is offered it",
                    entry.module.path,
                )
