from __future__ import annotations

from hermes_lint.rules.providers import ProviderProjectRule, rule_doc, rule_sources
from hermes_lint.rules.base import Invalid, Valid

ANTHROPIC = {"providers": ["anthropic"]}
STRICT = {"providers": ["anthropic-strict"]}


def _strict_tools(count: int) -> str:
    lines = [
        "from tools.registry import registry",
        'SCHEMA = {"description": "Do one thing.", "parameters": {"type": "object", "properties": {}}}',
    ]
    lines += [
        f'registry.register(name="step_{i}", toolset="pipeline", schema=SCHEMA, '
        'handler=lambda args, **kw: "", check_fn=lambda: True)'
        for i in range(count)
    ]
    return "\n".join(lines) + "\n"


class AnthropicTools(ProviderProjectRule):
    __doc__ = rule_doc(
        """Anthropic (`providers = ["anthropic"]`) and its strict tool use
        (`"anthropic-strict"`: tools sent with ``"strict": true``, which implies the former).

        The Messages API rejects the whole request (HTTP 400) for a tool whose ``input_schema``
        has ``oneOf``/``allOf``/``anyOf`` at the top level (nested ones are fine), whose root is
        not ``"type": "object"``, or whose name breaks ``^[a-zA-Z0-9_-]{1,64}$``. Strict tool use
        compiles every strict schema of the request into one grammar and refuses what it cannot
        compile: numerical and string-length constraints, array constraints beyond ``minItems``
        0 or 1, ``additionalProperties`` other than false, recursive or external ``$ref``, objects
        in an ``enum``, string formats outside its list — and, per request, more than 20 strict
        tools, 24 optional parameters or 16 parameters typed by ``anyOf`` or a type list in all.

        The per-request budgets are summed over each resolved toolset of ``toolsets.py`` (or each
        ``toolset=`` when there is none) and reported at the toolset; optional parameters count
        at any depth. Not repeated: the name (HRM308) and the root type (HRM304) while those
        rules are selected. Not checked: a missing ``additionalProperties`` (the SDKs add it; the
        page does not say the API refuses its absence) and the undocumented internal grammar
        size limit ("Schema is too complex for compilation").
        """,
        "HRM603",
    )

    code = "HRM603"
    summary = "Anthropic (and its strict mode budgets: tools, optional and union parameters)"
    sources = rule_sources("HRM603")

    valid = [
        # anyOf below the root is fine; names from an f-string
        Valid(
            """
            from tools.registry import registry

            KIND = "page"
            SCHEMA = {
                "description": "Fetch a page.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "url": {"type": "string", "description": "Address."},
                        "timeout": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "Seconds."},
                    },
                    "required": ["url"],
                },
            }
            registry.register(name=f"fetch_{KIND}", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=ANTHROPIC,
        ),
        # strict: minItems 1, a local non-recursive $ref, a supported format, closed objects
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Book a meeting.",
                "parameters": {
                    "type": "object",
                    "$defs": {"person": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}},
                                         "required": ["email"], "additionalProperties": False}},
                    "properties": {
                        "attendees": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/person"},
                                      "description": "Who."},
                        "day": {"type": "string", "format": "date", "description": "When."},
                        "kind": {"type": "string", "enum": ["call", "visit"], "description": "How."},
                    },
                    "required": ["attendees", "day", "kind"],
                    "additionalProperties": False,
                },
            }
            registry.register(name="book", toolset="calendar", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=STRICT,
        ),
        # 20 strict tools fit in one request
        Valid(_strict_tools(20), options=STRICT),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Find a user by id or by email.",
                "parameters": {
                    "type": "object",
                    "anyOf": [{"required": ["id"]}, {"required": ["email"]}],
                    "properties": {"id": {"type": "string"}, "email": {"type": "string"}},
                },
            }
            registry.register(name="find_user", toolset="crm", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=7,
            col=9,
            message="keyword `anyOf` in `parameters` (anthropic: rejected by the API)",
            options=ANTHROPIC,
            fix=(('"anyOf": [{"required": ["id"]}, {"required": ["email"]}],\n        ', ''),),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Search.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "maxLength": 200, "description": "Terms."},
                        "limit": {"type": "integer", "minimum": 1, "description": "Max hits."},
                        "sites": {"type": "array", "minItems": 2, "items": {"type": "string"}, "description": "Sites."},
                    },
                    "required": ["query"],
                },
            }
            registry.register(name="search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=41,
            message="keyword `maxLength` in `query` (anthropic-strict: rejected by the API)",
            also=((9, 42), (10, 40)),
            options=STRICT,
        ),
        Invalid(
            """
            from tools.registry import registry

            _TEXT = {"type": "string", "description": "A field."}
            SCHEMA = {
                "description": "Create a contact.",
                "parameters": {
                    "type": "object",
                    "properties": {f"field_{i}": _TEXT for i in range(25)},
                    "required": [],
                },
            }
            registry.register(name="contact", toolset="crm", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=12,
            col=1,
            message="toolset `crm` has 25 optional parameters across its 1 tools; the limit is 24 per request "
            "(anthropic-strict: rejected by the API)",
            options=STRICT,
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Store a tree of notes.",
                "parameters": {
                    "type": "object",
                    "$defs": {"note": {"type": "object", "properties": {
                        "text": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/note"}},
                    }}},
                    "properties": {"root": {"$ref": "#/$defs/note", "description": "The tree."}},
                },
            }
            registry.register(name="notes", toolset="memory", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=11,
            col=33,
            message='recursive `$ref` "#/$defs/note" in `root` (anthropic-strict: rejected by the API)',
            also=((9, 53),),
            options={"providers": ["anthropic-strict"], "select": ["HRM603"]},
        ),
        Invalid(
            _strict_tools(21),
            line=3,
            col=1,
            message="toolset `pipeline` sends 21 tools in one request; the limit is 20 (anthropic-strict: rejected by the API)",
            options=STRICT,
        ),
    ]
