from __future__ import annotations

import math
from typing import Any, Iterator, List, Optional, Tuple

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import JsonPath, SubSchema, json_text, locate, schema_nodes

# (lower, upper, what a default's size is measured in, the size of a default value)
_SIZE_PAIRS = (
    ("minLength", "maxLength", str, "characters"),
    ("minItems", "maxItems", (list, tuple), "items"),
    ("minProperties", "maxProperties", dict, "properties"),
)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _bound(schema, keywords) -> List[Tuple[str, float, bool]]:
    return [(k, schema[k], k.startswith("exclusive")) for k in keywords if _number(schema.get(k))]


def _numeric_range(node: SubSchema) -> Iterator[Tuple[JsonPath, str]]:
    lows = _bound(node.schema, ("minimum", "exclusiveMinimum"))
    highs = _bound(node.schema, ("maximum", "exclusiveMaximum"))
    if not lows or not highs:
        return
    low = max(lows, key=lambda b: (b[1], b[2]))  # the tightest: highest, exclusive on a tie
    high = min(highs, key=lambda b: (b[1], not b[2]))
    if low[1] > high[1] or (low[1] == high[1] and (low[2] or high[2])):
        relation = "greater than" if low[1] > high[1] else "equal to"
        yield node.path + (low[0],), (
            f"`{low[0]}` {json_text(low[1])} of `{node.name}` is {relation} its `{high[0]}` "
            f"{json_text(high[1])}: no value can satisfy both"
        )


def _size_ranges(node: SubSchema) -> Iterator[Tuple[JsonPath, str]]:
    for low, high, _, _ in _SIZE_PAIRS + (("minContains", "maxContains", None, None),):
        lo, hi = node.schema.get(low), node.schema.get(high)
        if isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool) and not isinstance(hi, bool):
            if lo > hi:
                yield node.path + (low,), (
                    f"`{low}` {lo} of `{node.name}` is greater than its `{high}` {hi}: no value can satisfy both"
                )


def _default_outside(node: SubSchema) -> Optional[str]:
    schema, name = node.schema, node.name
    if "default" not in schema:
        return None
    default = schema["default"]
    if _number(default):
        for keyword, outside, side in (
            ("minimum", lambda bound: default < bound, "below"),
            ("exclusiveMinimum", lambda bound: default <= bound, "below"),
            ("maximum", lambda bound: default > bound, "above"),
            ("exclusiveMaximum", lambda bound: default >= bound, "above"),
        ):
            bound = schema.get(keyword)
            if _number(bound) and outside(bound):
                return f"default {json_text(default)} of `{name}` is {side} its `{keyword}` {json_text(bound)}"
        return None
    for low, high, kind, unit in _SIZE_PAIRS:
        if not isinstance(default, kind):
            continue
        size = len(default)
        lo, hi = schema.get(low), schema.get(high)
        if isinstance(lo, int) and not isinstance(lo, bool) and size < lo:
            return f"default {json_text(default)} of `{name}` has {size} {unit}, fewer than its `{low}` {lo}"
        if isinstance(hi, int) and not isinstance(hi, bool) and size > hi:
            return f"default {json_text(default)} of `{name}` has {size} {unit}, more than its `{high}` {hi}"
    return None


class ContradictoryBounds(Rule):
    """Bounds must leave room for a value, and a ``default`` must lie within them.

    ``"minimum": 10, "maximum": 5`` (or ``minLength`` > ``maxLength``, ``minItems`` >
    ``maxItems``, ``minProperties`` > ``maxProperties``, an exclusive bound equal to the other)
    admits no value at all: strict providers and validating handlers reject every call, the
    others let the model pick something the author said is impossible. A ``default`` outside
    the bounds tells the model that leaving the argument out means a value the schema forbids —
    usually one of the two was edited without the other.

    Reported at the lower bound's key (for a default, at ``default``). Not reported: bounds or
    defaults that are not numbers (HRM302 for invalid values, HRM307 for a default of the wrong
    type); a string default's length is counted in characters as JSON Schema does; values not
    known statically.
    """

    code = "HRM312"
    summary = "contradictory bounds (minimum > maximum, minLength > maxLength, minItems > maxItems), or a default outside them"

    valid = [
        # bounds from constants, equal inclusive bounds, defaults inside them
        """
        from tools.registry import registry

        MAX_RESULTS = 50
        SCHEMA = {
            "description": "Search.",
            "parameters": {
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": 10,
                              "description": "Max hits."},
                    "page": {"type": "integer", "minimum": 1, "maximum": 1, "description": "Only one page."},
                    "lang": {"type": "string", "minLength": 2, "maxLength": 2, "default": "en", "description": "ISO code."},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3, "default": [],
                             "description": "Tags."},
                },
            },
        }
        registry.register(name="search", toolset="web", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper building bounds from its arguments; a non-number default is HRM307's
        """
        from tools.registry import registry

        def _int(low, high, description):
            return {"type": "integer", "minimum": low, "maximum": high, "description": description}

        SCHEMA = {
            "description": "Wait.",
            "parameters": {
                "type": "object",
                "properties": {
                    "seconds": _int(0, 600, "How long."),
                    "tries": {**_int(1, 5, "Attempts."), "default": "3"},
                },
            },
        }
        registry.register(name="wait", toolset="s", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # defaults exactly at inclusive bounds, and just inside exclusive ones
        """
        from tools.registry import registry

        SCHEMA = {
            "name": "dial", "description": "Set a dial.",
            "parameters": {
                "type": "object",
                "properties": {
                    "low": {"type": "number", "minimum": 1, "maximum": 9, "default": 1, "description": "At min."},
                    "high": {"type": "number", "minimum": 1, "maximum": 9, "default": 9, "description": "At max."},
                    "open": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "default": 0.5,
                             "description": "Inside."},
                },
            },
        }
        registry.register(name="dial", toolset="dials", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # an exclusive lower bound below an inclusive one equal to the maximum leaves that one value
        """
        from tools.registry import registry

        SCHEMA = {
            "name": "level", "description": "Set the level.",
            "parameters": {
                "type": "object",
                "properties": {
                    "level": {"type": "integer", "minimum": 5, "exclusiveMinimum": 4, "maximum": 5,
                              "description": "Only 5."},
                    "hits": {"type": "array", "contains": {"type": "integer"}, "minContains": 2, "maxContains": 2,
                             "description": "Exactly two numbers."},
                },
            },
        }
        registry.register(name="level", toolset="dials", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        # a default on an exclusive bound, or one step past an inclusive one
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "dial", "description": "Set a dial.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "below": {"type": "number", "minimum": 1, "default": 0.5, "description": "Under."},
                        "above": {"type": "number", "maximum": 9, "default": 9.5, "description": "Over."},
                        "at_low": {"type": "number", "exclusiveMinimum": 0, "default": 0, "description": "On."},
                        "at_high": {"type": "number", "exclusiveMaximum": 1, "default": 1, "description": "On."},
                    },
                },
            }
            registry.register(name="dial", toolset="dials", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=55,
            message="default 0.5 of `below` is below its `minimum` 1",
            also=((9, 55), (10, 65), (11, 66)),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Read part of a file.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "limit": {"type": "integer", "minimum": 500, "maximum": 100, "description": "Lines."},
                        "offset": {"type": "integer", "minimum": 1, "default": 0, "description": "First line."},
                    },
                },
            }
            registry.register(name="read_part", toolset="file", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=42,
            message="`minimum` 500 of `limit` is greater than its `maximum` 100: no value can satisfy both",
            also=((9, 57),),
            fix=(('"minimum": 500, "maximum": 100', '"minimum": 1, "maximum": 500'), ('"minimum": 1, "default": 0', '"minimum": 1, "default": 1')),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _text(low, high):
                return {"type": "string", "minLength": low, "maxLength": high, "description": "Code."}

            SCHEMA = {
                "description": "Verify.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "code": _text(6, 4),
                        "pin": {**_text(4, 8), "default": "12"},
                        "ratio": {"type": "number", "exclusiveMinimum": 1, "maximum": 1, "description": "Ratio."},
                    },
                },
            }
            registry.register(name="verify", toolset="auth", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            message="`minLength` 6 of `code` is greater than its `maxLength` 4: no value can satisfy both",
            also=((12, 1), (13, 1)),
        ),
        # two lower bounds equal: the exclusive one decides, and it excludes the maximum
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "level", "description": "Set the level.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "level": {"type": "integer", "minimum": 5, "exclusiveMinimum": 5, "maximum": 5,
                                  "description": "Nothing fits."},
                        "hits": {"type": "array", "contains": {"type": "integer"}, "minContains": 3, "maxContains": 2,
                                 "description": "At least three, at most two."},
                    },
                },
            }
            registry.register(name="level", toolset="dials", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=56,
            message="`exclusiveMinimum` 5 of `level` is equal to its `maximum` 5: no value can satisfy both",
            also=((10, 72),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for node in schema_nodes(ctx, registration):
                for path, message in list(_numeric_range(node)) + list(_size_ranges(node)):
                    yield Finding(locate(registration, path, ctx), message)
                outside = _default_outside(node)
                if outside is not None:
                    yield Finding(locate(registration, node.path + ("default",), ctx), outside)
