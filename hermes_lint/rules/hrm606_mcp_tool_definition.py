from __future__ import annotations

from hermes_lint.rules.providers import ProviderModuleRule, rule_doc, rule_sources
from hermes_lint.rules.base import Invalid, Valid

MCP = {"providers": ["mcp"]}


class MCPToolDefinition(ProviderModuleRule):
    __doc__ = rule_doc(
        """MCP (`providers = ["mcp"]`, for tools also served over the Model Context Protocol,
        spec 2025-11-25): a tool name SHOULD be 1–128 characters of ``A-Z a-z 0-9 _ - .``, and
        ``inputSchema`` MUST be a JSON Schema object of ``"type": "object"``.

        The name rule is a SHOULD: the protocol does not refuse it, but clients do (a client
        that forwards MCP tools to a model API applies that API's stricter pattern and fails
        the session). A root that is not an object breaks every conforming client.

        Both facts are stricter in rules that are on by default — any name outside the MCP
        pattern also breaks HRM308's ``^[a-zA-Z0-9_-]{1,64}$``, and HRM304 reports a root that
        is not an object — so HRM606 speaks only while those rules are not selected for the
        file (a project that turns HRM308 off because its tools are MCP-only keeps the MCP
        check). A dotted name such as ``admin.tools.list`` is fine for MCP.
        """,
        "HRM606",
    )

    code = "HRM606"
    summary = "MCP: name outside [A-Za-z0-9_.-]{1,128}, inputSchema root not an object"
    sources = rule_sources("HRM606")

    valid = [
        # dots are allowed by MCP (HRM308 is not selected here)
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "List admin tools.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="admin.tools.list", toolset="mcp-admin", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=MCP,
        ),
        # HRM308 reports this name: HRM606 does not repeat it
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Search.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="web search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"providers": ["mcp"], "select": ["HRM606", "HRM308"]},
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Search.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="web search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=24,
            message="tool name 'web search' does not match ^[A-Za-z0-9_.-]{1,128}$ "
            "(mcp: a SHOULD of the spec: clients may refuse it)",
            options=MCP,
            fix=(('name="web search"', 'name="web_search"'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Echo a value.", "parameters": {"anyOf": [{"type": "string"}, {"type": "object"}]}}
            registry.register(name="echo", toolset="debug", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=3,
            col=43,
            message='`parameters` is not "type": "object" (mcp: breaks a MUST of the spec: conforming clients refuse it)',
            options=MCP,
        ),
    ]
