from __future__ import annotations

from hermes_lint.rules.providers import ProviderModuleRule, rule_doc, rule_sources
from hermes_lint.rules.base import Invalid, Valid

MOONSHOT = {"providers": ["moonshot"]}


class MoonshotSchema(ProviderModuleRule):
    __doc__ = rule_doc(
        """Moonshot / Kimi (`providers = ["moonshot"]`): the API validates tool parameters as
        "moonshot flavored json schema" and rejects the whole request (HTTP 400, "tools.function.
        parameters is not a valid moonshot flavored json schema") when a property, array item or
        ``anyOf`` branch has no ``type``, or when a node carries ``type`` beside ``anyOf`` (the
        type belongs on the branches).

        Through Hermes the request does not fail: for a Kimi model its chat-completions transport
        repairs the schema first (``agent/moonshot_schema.py``) — it guesses a missing type from
        ``enum``/``items``/``properties``, else "string", and deletes the parent's ``type`` — so
        the model is SILENTLY given a schema the author did not write (an untyped "any value"
        parameter becomes a string). Direct Moonshot clients get the 400.

        Not repeated: an untyped named property while HRM313 (on by default) is selected —
        HRM313 reports it; HRM605 still reports what HRM313 accepts (an ``enum`` without
        ``type``, untyped array items and ``anyOf`` branches). Not reported: nodes holding a
        ``$ref`` (typed by the definition) or an ``anyOf`` (typed by its branches).
        """,
        "HRM605",
    )

    code = "HRM605"
    summary = "Moonshot/Kimi: a property without type; a parent type beside anyOf"
    sources = rule_sources("HRM605")

    valid = [
        # typed everywhere; anyOf with typed branches and no parent type; a $ref
        Valid(
            """
            from tools.registry import registry

            _NULLABLE_INT = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
            SCHEMA = {
                "description": "Tail a log.",
                "parameters": {
                    "type": "object",
                    "$defs": {"level": {"type": "string", "enum": ["info", "error"]}},
                    "properties": {
                        "lines": {**_NULLABLE_INT, "description": "How many."},
                        "level": {"$ref": "#/$defs/level", "description": "Minimum level."},
                        "files": {"type": "array", "items": {"type": "string"}, "description": "Logs."},
                    },
                    "required": [],
                },
            }
            registry.register(name="tail", toolset="terminal", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=MOONSHOT,
        ),
        # an untyped property is HRM313's while HRM313 is selected
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Store a value.",
                "parameters": {"type": "object", "properties": {"value": {"description": "Anything."}}},
            }
            registry.register(name="store", toolset="memory", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"providers": ["moonshot"], "select": ["HRM605", "HRM313"]},
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Set a reminder.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "unit": {"enum": ["minutes", "hours"], "description": "Unit."},
                        "when": {"type": "string", "anyOf": [{"format": "date-time"}, {"format": "time"}],
                                 "description": "When."},
                    },
                },
            }
            registry.register(name="remind", toolset="todo", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=13,
            message="`unit` has no `type` (moonshot: rejected by the Moonshot API; "
            "Hermes's Kimi adapter silently rewrites it)",
            also=((9, 22), (9, 50), (9, 75)),
            options=MOONSHOT,
            fix=(('"unit": {"enum"', '"unit": {"type": "string", "enum"'), ('"type": "string", "anyOf": [{"format": "date-time"}, {"format": "time"}]', '"anyOf": [{"type": "string", "format": "date-time"}, {"type": "string", "format": "time"}]')),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _list_of(item, description):
                return {"type": "array", "items": item, "description": description}

            SCHEMA = {
                "description": "Tag files.",
                "parameters": {
                    "type": "object",
                    "properties": {"tags": _list_of({"description": "A tag."}, "Tags.")},
                },
            }
            registry.register(name="tag", toolset="file", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=30,
            message="`tags[]` has no `type` (moonshot: rejected by the Moonshot API; "
            "Hermes's Kimi adapter silently rewrites it)",
            options=MOONSHOT,
        ),
    ]
