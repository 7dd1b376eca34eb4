from __future__ import annotations

from typing import Any, Iterator, List, Optional

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import SubSchema, is_json, json_equal, json_text, locate, schema_nodes


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"  # 1 and 1.5 are one kind: JSON has one number type
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def enum_problem(node: SubSchema) -> Optional[str]:
    enum = node.schema.get("enum")
    if not isinstance(enum, (list, tuple)) or not is_json(enum):
        return None  # not an array (HRM302) or not known statically
    if not enum:
        return f"enum of `{node.name}` is empty: no value can ever be valid"
    seen: List[Any] = []
    for value in enum:
        if any(json_equal(value, earlier) for earlier in seen):
            return f"enum of `{node.name}` lists {json_text(value)} twice"
        seen.append(value)
    # null beside one other kind is the usual nullable enum (["a", "b", null]), not a mix-up.
    kinds = sorted({_kind(value) for value in enum if value is not None})
    if len(kinds) > 1:
        return f"enum of `{node.name}` mixes {' and '.join(kinds)} values {json_text(enum)}"
    return None


class MalformedEnum(Rule):
    """An ``enum`` must list at least one value, each once, all of one JSON type.

    An empty enum accepts nothing: every call fails validation, or — where the provider does
    not validate — the model invents a value. A duplicate is a copy-paste slip that often hides
    a missing value. Mixed types (``[1, "1"]``, ``["yes", true]``) mean the handler gets
    either and usually compares against one; Gemini and strict modes want one type per enum.

    JSON's rules: ``1`` and ``1.0`` are the same value (a duplicate), ``true`` is not ``1``,
    integers and decimals are one kind (number). Not reported: ``null`` beside values of one
    other type (a nullable enum); an ``enum`` that is not an array (HRM302); values not known
    statically.
    """

    code = "HRM311"
    summary = "malformed enum: empty, duplicate values, mixed types"

    valid = [
        # from constants and comprehensions; a nullable enum; numbers of both kinds
        """
        from tools.registry import registry

        UNITS = ["metric", "imperial"]
        LEVELS = [level.upper() for level in ("debug", "info")]
        SCHEMA = {
            "description": "Configure.",
            "parameters": {
                "type": "object",
                "properties": {
                    "units": {"type": "string", "enum": UNITS, "description": "Units."},
                    "level": {"type": "string", "enum": LEVELS, "description": "Level."},
                    "sort": {"type": ["string", "null"], "enum": ["asc", "desc", None], "description": "Order."},
                    "scale": {"type": "number", "enum": [0.5, 1, 2], "description": "Zoom."},
                },
            },
        }
        registry.register(name="configure", toolset="settings", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # an enum built by a helper from its argument
        """
        from tools.registry import registry

        def _choice(values):
            return {"type": "string", "enum": list(values), "description": "One of them."}

        SCHEMA = {"description": "Pick.", "parameters": {"type": "object", "properties": {"x": _choice(("a", "b"))}}}
        registry.register(name="pick", toolset="s", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Set the level.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "level": {"type": "string", "enum": ["debug", "info", "debug"], "description": "Level."},
                    },
                },
            }
            registry.register(name="level", toolset="settings", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=41,
            message='enum of `level` lists "debug" twice',
            fix=(('["debug", "info", "debug"]', '["debug", "info", "warning"]'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            MODES = []

            def _build_schema(modes):
                return {
                    "description": "Run.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "mode": {"enum": modes, "description": "Mode."},
                            "retries": {"enum": [0, 1, "2"], "description": "Retries."},
                        },
                    },
                }

            registry.register(name="run", toolset="s", schema=_build_schema(MODES),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=11,
            col=26,
            message="enum of `mode` is empty: no value can ever be valid",
            also=((12, 29),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for node in schema_nodes(ctx, registration):
                message = enum_problem(node)
                if message is not None:
                    yield Finding(locate(registration, node.path + ("enum",), ctx), message)
