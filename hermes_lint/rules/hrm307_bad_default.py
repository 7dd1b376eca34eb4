from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import is_json, json_equal, json_text, json_type_matches, locate, schema_nodes


class BadDefault(Rule):
    """A ``default`` must be one of its ``enum`` values and of its declared ``type``.

    The model reads ``default`` as "what happens if I leave this out": a default outside the
    enum or of the wrong type (``"5"`` for an integer, ``null`` for a string, ``0`` for a
    boolean) describes a value the handler will never accept, or hides that the handler's real
    default differs. JSON's rules apply: an integer is a valid ``number``, ``1.0`` is an
    ``integer``, ``true`` is neither; a type list (``["string", "null"]``) accepts any of its
    types.

    Not reported: an empty ``enum`` (HRM311); a type the schema misspells (HRM302); a ``type``
    that only a sibling ``anyOf``/``oneOf``/``$ref`` fixes; values not known statically.
    """

    code = "HRM307"
    summary = "default outside its enum, or of the wrong type"

    valid = [
        # enum from a constant, default from a constant; int default for a number
        """
        from tools.registry import registry

        UNITS = ["metric", "imperial"]
        DEFAULT_UNITS = UNITS[0]
        SCHEMA = {
            "name": "weather", "description": "Weather.",
            "parameters": {
                "type": "object",
                "properties": {
                    "units": {"type": "string", "enum": UNITS, "default": DEFAULT_UNITS, "description": "Units."},
                    "threshold": {"type": "number", "default": 3, "description": "Alert threshold."},
                    "limit": {"type": ["integer", "null"], "default": None, "description": "Max."},
                },
            },
        }
        registry.register(name="weather", toolset="weather", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merge of a shared base dict that carries the default
        """
        from tools.registry import registry

        _FLAG = {"type": "boolean", "default": False}
        SCHEMA = {
            "name": "ls", "description": "List files.",
            "parameters": {
                "type": "object",
                "properties": {"all": {**_FLAG, "description": "Include hidden files."}},
            },
        }
        registry.register(name="ls", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper; a default whose type comes from anyOf branches
        """
        from tools.registry import registry

        def _build_schema(name, choices):
            return {
                "name": name, "description": "Pick.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "choice": {"type": "string", "enum": choices, "default": choices[-1], "description": "C."},
                        "when": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "description": "W."},
                    },
                },
            }

        registry.register(name="pick", toolset="s", schema=_build_schema("pick", ["a", "b"]),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "weather",
                "description": "Get the weather.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "units": {
                            "type": "string",
                            "enum": ["metric", "imperial"],
                            "default": "kelvin",
                            "description": "Units.",
                        },
                    },
                },
            }
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=12,
            col=17,
            message='default "kelvin" of `units` is not one of its enum values ["metric", "imperial"]',
            fix=(('"default": "kelvin"', '"default": "metric"'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _build_schema(name):
                return {
                    "name": name,
                    "description": "Search.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "limit": {"type": "integer", "default": "10", "description": "Max hits."},
                            "exact": {"type": "boolean", "default": 0, "description": "Exact match."},
                        },
                    },
                }

            registry.register(name="search", toolset="web", schema=_build_schema("search"),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=10,
            col=46,
            message='default "10" of `limit` is not of type integer',
            also=((11, 46),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for node in schema_nodes(ctx, registration):
                if "default" not in node.schema:
                    continue
                default = node.schema["default"]
                if not is_json(default):
                    continue
                where = locate(registration, node.path + ("default",), ctx)
                enum = node.schema.get("enum")
                if isinstance(enum, list) and enum and is_json(enum):
                    if not any(json_equal(default, value) for value in enum):
                        yield Finding(
                            where,
                            f"default {json_text(default)} of `{node.name}` is not one of its enum values {json_text(enum)}",
                        )
                        continue  # one finding per default
                types = node.types()
                if types and not any(json_type_matches(default, t) for t in types):
                    yield Finding(
                        where, f"default {json_text(default)} of `{node.name}` is not of type {' or '.join(types)}"
                    )
