from __future__ import annotations

import re
from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import argument_location

NAME_PATTERN = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_ALLOWED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


class InvalidToolName(Rule):
    """A tool name must match ``^[a-zA-Z0-9_-]{1,64}$``.

    That is the function-name rule of the OpenAI and Anthropic APIs (and what Gemini and most
    OpenAI-compatible servers accept): a request carrying one tool with a space, a dot, a
    slash, a non-ASCII letter or more than 64 characters in its name is rejected as a whole, so
    every tool of the session fails, not just this one.

    Only the registered name is checked (the runtime sends it, whatever ``schema["name"]``
    says: HRM303). Not reported: a name that is not known statically (HRM003).
    """

    code = "HRM308"
    summary = "tool name not ^[a-zA-Z0-9_-]{1,64}$ (provider function-name rule)"
    sources = (
        "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
        "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use",
    )

    valid = [
        # names from constants and f-strings
        """
        from tools.registry import registry

        PREFIX = "browser"
        SCHEMA = {"description": "Go back.", "parameters": {"type": "object", "properties": {}}}
        registry.register(name=f"{PREFIX}_back", toolset="browser", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        registry.register(name="x-search-2", toolset="web", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merged schema and a helper; a name not known statically is HRM003's
        """
        import os
        from tools.registry import registry

        _BASE = {"parameters": {"type": "object", "properties": {}}}

        def _build_schema(description):
            return {**_BASE, "description": description}

        registry.register(name="mcp_" + "linear", toolset="mcp-linear", schema=_build_schema("Linear."),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        registry.register(name=os.environ["TOOL_NAME"], toolset="dyn", schema=_build_schema("Dyn."),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # exactly 64 characters: the longest name providers accept
        """
        from tools.registry import registry

        SCHEMA = {"description": "Summarize.", "parameters": {"type": "object", "properties": {}}}
        registry.register(name="summarize_the_current_conversation_and_store_it_in_memory_for_l8",
                          toolset="memory", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        # 65 characters: one more than providers accept
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Summarize.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="summarize_the_current_conversation_and_store_it_in_memory_for_l8r",
                              toolset="memory", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=24,
            message="tool name 'summarize_the_current_conversation_and_store_it_in_memory_for_l8r' "
            "is 65 characters long: providers require ^[a-zA-Z0-9_-]{1,64}$",
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Search the web.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="web search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=24,
            message="tool name 'web search' contains ' ': providers require ^[a-zA-Z0-9_-]{1,64}$",
            fix=(('name="web search"', 'name="web_search"'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Read.", "parameters": {"type": "object", "properties": {}}}
            registry.register("files.read", "file", SCHEMA, lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=19,
            message="tool name 'files.read' contains '.': providers require ^[a-zA-Z0-9_-]{1,64}$",
        ),
        Invalid(
            """
            from tools.registry import registry

            NAME = "summarize_" + "the_current_conversation_and_store_the_summary_in_long_term_memory"
            SCHEMA = {"description": "Summarize.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name=NAME, toolset="memory", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=5,
            col=24,
            message="tool name 'summarize_the_current_conversation_and_store_the_summary_in_long_term_memory' "
            "is 76 characters long: providers require ^[a-zA-Z0-9_-]{1,64}$",
        ),
        # a plugin registering from a table: reported at the row's name
        Invalid(
            """
            _SCHEMA = {"description": "Control playback.", "parameters": {"type": "object", "properties": {}}}
            _TOOLS = (
                ("player_play", _SCHEMA, "▶"),
                ("player pause", _SCHEMA, "⏸"),
            )

            def register(ctx):
                for name, schema, emoji in _TOOLS:
                    ctx.register_tool(name=name, toolset="player", schema=schema, emoji=emoji,
                                      handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=6,
            message="tool name 'player pause' contains ' ': providers require ^[a-zA-Z0-9_-]{1,64}$",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            name = registration.name
            if not isinstance(name, str) or NAME_PATTERN.fullmatch(name):
                continue
            where = argument_location(ctx, registration, "name") or registration.location
            yield Finding(where, f"tool name {name!r} {_why(name)}: providers require ^[a-zA-Z0-9_-]{{1,64}}$")


def _why(name: str) -> str:
    if not name:
        return "is empty"
    bad = sorted({ch for ch in name if ch not in _ALLOWED}, key=name.index)
    if bad:
        return "contains " + ", ".join(repr(ch) for ch in bad[:5])
    return f"is {len(name)} characters long"
