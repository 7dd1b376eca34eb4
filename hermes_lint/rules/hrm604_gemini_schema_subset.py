from __future__ import annotations

from hermes_lint.rules.providers import ProviderModuleRule, rule_doc, rule_sources
from hermes_lint.rules.base import Invalid, Valid

GEMINI = {"providers": ["gemini"]}


class GeminiSchemaSubset(ProviderModuleRule):
    __doc__ = rule_doc(
        """Gemini (`providers = ["gemini"]`): a function declaration's ``parameters`` is Gemini's
        ``Schema`` — a subset of OpenAPI 3.0, not JSON Schema — and Hermes sends it through its
        own adapter (``agent/gemini_schema.py``), so two different things happen to what falls
        outside the subset:

        - SILENTLY CHANGED: the adapter keeps an allow-list of keys and drops every other one
          (``additionalProperties``, ``$ref``/``$defs``, ``const``, ``oneOf``, ``allOf``, ``not``,
          ``exclusiveMinimum``, ``multipleOf``, ``uniqueItems``, ``$schema``...) together with
          everything under it, and stringifies the ``enum`` of an integer/number/boolean. The
          request succeeds, but the model no longer sees the constraint, so arguments the
          schema forbids reach the handler.
        - REJECTED: what the adapter passes through unchanged and the API refuses (HTTP 400,
          the whole request): a list of types (Gemini has one ``type`` plus ``nullable``), other
          non-string enum values, a string ``format`` other than ``enum``/``date-time``, a tool
          name that does not start with a letter or ``_``.

        Only keys the adapter actually visits are reported (it recurses into ``properties``,
        ``items`` and ``anyOf``): a key inside a dropped ``$defs`` is gone with it and is not
        reported again. Not repeated: names that HRM308 rejects. Not reported: ``required``
        names without a property (the adapter filters them; HRM305) and arrays without
        ``items`` (it adds ``{}``; HRM309). Left out as unverified: an object with empty
        ``properties`` — several projects quote the error "properties: should be non-empty for
        OBJECT type", yet Hermes's adapter itself sends ``{"type": "object", "properties": {}}``
        for a tool without parameters, so whether today's API refuses it is not settled.
        """,
        "HRM604",
    )

    code = "HRM604"
    summary = "Gemini: a field the API rejects or Hermes's Gemini sanitizer silently drops"
    sources = rule_sources("HRM604")

    valid = [
        # the subset Gemini keeps: enum strings, nullable, anyOf, bounds, date-time, helpers
        Valid(
            """
            from tools.registry import registry

            def _text(description, **extra):
                return {"type": "string", "description": description, **extra}

            SCHEMA = {
                "description": "Add a calendar event.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "title": _text("Title.", maxLength=120),
                        "start": _text("Start.", format="date-time"),
                        "kind": _text("Kind.", enum=["call", "visit"]),
                        "room": {"type": "string", "nullable": True, "description": "Room, if any."},
                        "guests": {"type": "array", "minItems": 1, "items": _text("E-mail."), "description": "Who."},
                        "reminder": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "boolean"}],
                                     "description": "Minutes before, or false."},
                    },
                    "required": ["title", "start"],
                },
            }
            registry.register(name="_add_event", toolset="calendar", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=GEMINI,
        ),
        # the same JSON Schema idioms are fine when Gemini is not a target
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Set a flag.",
                "parameters": {
                    "type": "object",
                    "properties": {"on": {"type": ["boolean", "null"], "description": "Flag."}},
                    "additionalProperties": False,
                },
            }
            registry.register(name="flag", toolset="settings", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"providers": ["openai"]},
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Set the log level.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "level": {"type": "string", "const": "debug", "description": "Level."},
                    },
                    "additionalProperties": False,
                    "$defs": {"unused": {"additionalProperties": False}},
                },
            }
            registry.register(name="log_level", toolset="settings", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=41,
            message="keyword `const` in `level` (gemini: silently dropped by Hermes's Gemini adapter)",
            also=((10, 9), (11, 9)),
            options=GEMINI,
            fix=(('"const": "debug"', '"enum": ["debug"]'), ('"additionalProperties": False,\n        "$defs": {"unused": {"additionalProperties": False}},\n', '')),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Resize an image.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "width": {"type": ["integer", "null"], "description": "Pixels."},
                        "quality": {"type": "integer", "enum": [50, 75, 100], "description": "JPEG quality."},
                        "source": {"type": "string", "format": "uri", "description": "Image address."},
                    },
                },
            }
            registry.register(name="resize", toolset="media", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=23,
            message='type list ["integer", "null"] of `width` (gemini: rejected by the API)',
            also=((9, 44), (10, 42)),
            options=GEMINI,
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Render a model.", "parameters": {"type": "object", "properties": {
                "options": {"type": "object", "properties": {}, "description": "Nothing yet."},
                "quality": {"type": "string", "format": "enum", "enum": ["draft", "final"], "description": "Q."},
            }}}
            registry.register(name="3d_render", toolset="media", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=7,
            col=24,
            message="tool name '3d_render' starts with '3', not a letter or an underscore (gemini: rejected by the API)",
            options=GEMINI,
        ),
    ]
