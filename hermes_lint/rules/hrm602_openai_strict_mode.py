from __future__ import annotations

from hermes_lint.rules.providers import ProviderModuleRule, rule_doc, rule_sources
from hermes_lint.rules.base import Invalid, Valid

STRICT = {"providers": ["openai-strict"]}


class OpenAIStrictMode(ProviderModuleRule):
    __doc__ = rule_doc(
        """OpenAI strict mode (`providers = ["openai-strict"]`: tools sent with ``"strict": true``,
        or Structured Outputs): the schema must sit in the documented subset, or the request is
        rejected with HTTP 400 before the model runs.

        Strict mode wants every object closed (``"additionalProperties": false``) and every
        property listed in ``required``; an optional argument is written as a required one
        whose type admits null (``"type": ["string", "null"]``), and the handler treats null as
        "not given". Composition other than ``anyOf`` (``allOf``, ``not``, ``if``/``then``/
        ``else``, ``dependent*``), ``default`` and string formats outside the supported list
        are refused. A combinator at the root is refused without strict mode too: HRM601
        reports it (``allOf``/``not`` there are not repeated here while HRM601 is selected).

        Reported at the offending key (for a missing ``additionalProperties``, at the object).
        Not reported: schemas not known statically; the non-strict rows (HRM601, implied by this
        target). Nesting depth and size limits are not checked (the copies of OpenAI's page
        disagree on them).
        """,
        "HRM602",
    )

    code = "HRM602"
    summary = "OpenAI strict mode: additionalProperties not false, a property not required, unsupported keyword"
    sources = rule_sources("HRM602")

    valid = [
        # closed objects, every property required, optional ones nullable; built by a helper
        Valid(
            """
            from tools.registry import registry

            def _closed(properties):
                return {"type": "object", "properties": properties,
                        "required": list(properties), "additionalProperties": False}

            WHEN = {"type": ["string", "null"], "format": "date-time", "description": "When, or null for now."}
            SCHEMA = {
                "description": "Schedule a reminder.",
                "parameters": _closed({
                    "text": {"type": "string", "description": "What to remind."},
                    "when": WHEN,
                    "repeat": {
                        "anyOf": [_closed({"every": {"type": "integer", "minimum": 1, "description": "Days."}}),
                                  {"type": "null"}],
                        "description": "Repetition, or null.",
                    },
                }),
            }
            registry.register(name="remind", toolset="todo", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=STRICT,
        ),
        # the same loose schema is fine without strict mode
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Get the weather.",
                "parameters": {
                    "type": "object",
                    "properties": {"units": {"type": "string", "default": "metric", "description": "Units."}},
                },
            }
            registry.register(name="weather", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"providers": ["openai"]},
        ),
        # allOf at the root is HRM601's finding while HRM601 is selected (one fact, one finding)
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Save a bookmark.",
                "parameters": {
                    "type": "object",
                    "properties": {"url": {"type": "string", "description": "Link."}},
                    "required": ["url"],
                    "additionalProperties": False,
                    "allOf": [{"required": ["url"]}],
                },
            }
            registry.register(name="bookmark", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"providers": ["openai-strict"], "select": ["HRM601", "HRM602"]},
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Get the weather.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "description": "City."},
                        "units": {"type": "string", "description": "Units."},
                    },
                    "required": ["city"],
                },
            }
            registry.register(name="weather", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=5,
            col=5,
            message="object `parameters` has no `additionalProperties: false` (openai-strict: rejected by the API)",
            also=((9, 13),),
            options=STRICT,
            fix=(('"required": ["city"],', '"required": ["city", "units"],\n        "additionalProperties": False,'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            _BASE = {"type": "object", "additionalProperties": False}

            def _build_schema(link_format):
                return {
                    "description": "Save a bookmark.",
                    "parameters": {
                        **_BASE,
                        "properties": {"url": {"type": "string", "format": link_format, "description": "Link."}},
                        "required": ["url"],
                        "allOf": [{"required": ["url"]}],
                    },
                }

            registry.register(name="bookmark", toolset="web", schema=_build_schema("uri"),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=10,
            col=54,
            message='string format "uri" of `url` (openai-strict: rejected by the API)',
            also=((12, 13),),
            options=STRICT,
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "List files.",
                "parameters": {
                    "type": "object",
                    "properties": {"all": {"type": "boolean", "default": False, "description": "Hidden too."}},
                    "required": ["all"],
                    "additionalProperties": False,
                },
            }
            registry.register(name="ls", toolset="file", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=7,
            col=51,
            message="keyword `default` in `all` (openai-strict: rejected by the API)",
            options=STRICT,
        ),
    ]
