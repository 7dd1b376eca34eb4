from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.model.schema_walk import locate, schema_nodes


class DescriptionTooLong(Rule):
    """A tool or parameter description must stay within the configured length
    (``max-description-length``, default 1,024 characters).

    Every description is sent with every request that offers the tool: a long one costs tokens
    on each turn and crowds out the conversation, and the model reads long descriptions less
    reliably than short ones. Some clients truncate; OpenAI's and Gemini's function
    descriptions are meant as short summaries. Long usage notes belong in a skill or in the
    tool's result.

    Checked: ``register(description=...)``, ``schema["description"]`` and the description of
    every parameter, item and branch at any depth, counted in characters. Reported at the
    ``description`` key. Not reported: descriptions not known statically.
    """

    code = "HRM315"
    summary = "description longer than the configured limit (default 1,024 characters)"

    valid = [
        # descriptions built from constants and f-strings, within the limit
        """
        from tools.registry import registry

        UNITS = ["metric", "imperial"]
        SCHEMA = {
            "description": "Current weather for a place. " * 10,
            "parameters": {
                "type": "object",
                "properties": {"units": {"type": "string", "enum": UNITS, "description": f"One of {UNITS}."}},
            },
        }
        registry.register(name="weather", toolset="web", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a raised limit
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Run a shell command. " * 60, "parameters": {"type": "object", "properties": {}}}
            registry.register(name="terminal", toolset="terminal", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"max-description-length": 2000},
        ),
        # exactly at the limit, in each of the three places (30 characters each)
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Thirty characters, no more....", "parameters": {"type": "object",
                      "properties": {"q": {"type": "string", "description": "Exactly thirty characters long"}}}}
            registry.register(name="note", toolset="memory", schema=SCHEMA,
                              description="A description of thirty chars.",
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"max-description-length": 30},
        ),
    ]
    invalid = [
        # one character over the limit, in each of the three places (31 characters each)
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Thirty-one characters, no more.", "parameters": {"type": "object",
                      "properties": {"q": {"type": "string", "description": "Exactly thirty-one chars long.."}}}}
            registry.register(name="note", toolset="memory", schema=SCHEMA,
                              description="A description of 31 characters.",
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=3,
            col=11,
            message="description of tool `note` is 31 characters long; the limit is 30 (max-description-length)",
            also=((4, 50), (6, 31)),
            options={"max-description-length": 30},
        ),
        Invalid(
            """
            from tools.registry import registry

            USAGE = "Run a shell command. Prefer absolute paths and non-interactive flags. " * 16
            SCHEMA = {"description": USAGE, "parameters": {"type": "object", "properties": {}}}
            registry.register(name="terminal", toolset="terminal", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=11,
            message="description of tool `terminal` is 1,120 characters long; the limit is 1,024 "
            "(max-description-length)",
            fix=(('" * 16', '" * 2'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _param(description):
                return {"type": "string", "description": description}

            SCHEMA = {"description": "Save a note.", "parameters": {"type": "object", "properties": {
                "title": _param("The note's title, shown in lists."),
            }}}
            registry.register(name="note", toolset="memory", schema=SCHEMA,
                              description="Save a note to long-term memory for later sessions.",
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            message="description of parameter `title` is 33 characters long; the limit is 30 (max-description-length)",
            also=((10, 1),),
            options={"max-description-length": 30},
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        limit = ctx.config.max_description_length
        for registration in ctx.facts.registrations:
            tool = f"tool `{registration.name}`" if isinstance(registration.name, str) else "the tool"
            given = registration.value("description")
            keyword = registration.keyword("description")
            if isinstance(given, str) and len(given) > limit and keyword is not None:
                yield Finding(keyword.value_location, _message(tool, given, limit))
            schema = registration.schema
            if isinstance(schema, dict) and isinstance(schema.get("description"), str):
                if len(schema["description"]) > limit:
                    yield Finding(locate(registration, ("description",), ctx), _message(tool, schema["description"], limit))
            for node in schema_nodes(ctx, registration):
                text = node.schema.get("description")
                if isinstance(text, str) and len(text) > limit:
                    what = "`parameters`" if node.via == "parameters" else f"parameter `{node.name}`"
                    yield Finding(locate(registration, node.path + ("description",), ctx), _message(what, text, limit))


def _message(what: str, text: str, limit: int) -> str:
    return f"description of {what} is {len(text):,} characters long; the limit is {limit:,} (max-description-length)"
