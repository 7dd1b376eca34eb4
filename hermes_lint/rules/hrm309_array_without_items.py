from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import SubSchema, locate, schema_nodes

_ITEMS = ("items", "prefixItems")


class ArrayWithoutItems(Rule):
    """A property of ``"type": "array"`` (or a type list with ``"array"``) must say what its
    items are, with ``items`` (or ``prefixItems``), at any depth.

    OpenAI rejects the whole request ("array schema missing items"), Gemini's function
    declarations require ``items`` too, and elsewhere the model has to guess what to put in the
    list — usually strings, whatever the handler expects.

    Not reported: the root of ``parameters`` (HRM304); an array whose items come from a
    ``$ref``, from an ``allOf``/``anyOf``/``oneOf`` branch, or — for such a branch — from the
    ``items`` of the schema that holds it; a misspelt type (HRM302).
    """

    code = "HRM309"
    summary = "array without items"

    valid = [
        # items from a constant
        """
        from tools.registry import registry

        STRING_LIST = {"type": "array", "items": {"type": "string"}}
        SCHEMA = {
            "name": "tag", "description": "Tag a file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "tags": {**STRING_LIST, "description": "Tags."},
                    "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "description": "x, y."},
                    "maybe": {"type": ["array", "null"], "items": {"type": "integer"}, "description": "Ids."},
                },
            },
        }
        registry.register(name="tag", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper; items given beside an anyOf; a $ref
        """
        from tools.registry import registry

        def _build_schema(item_type):
            return {
                "name": "batch", "description": "Batch.",
                "parameters": {
                    "type": "object",
                    "$defs": {"ids": {"type": "array", "items": {"type": "integer"}}},
                    "properties": {
                        "values": {"type": "array", "items": {"type": item_type}, "description": "Values."},
                        "either": {"anyOf": [{"type": "array"}, {"type": "null"}], "items": {"type": "string"},
                                   "description": "Either."},
                        "ids": {"type": "array", "$ref": "#/$defs/ids", "description": "Ids."},
                    },
                },
            }

        registry.register(name="batch", toolset="s", schema=_build_schema("string"),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        # the description is unknown (it names the home directory), the array's structure is not
        Invalid(
            """
            from pathlib import Path
            from tools.registry import registry

            SCHEMA = {
                "name": "attach",
                "description": f"Attach files from {Path.home()}.",
                "parameters": {"type": "object", "properties": {
                    "files": {"type": "array", "description": "Files."},
                }},
            }
            registry.register(name="attach", toolset="a", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            message="array `files` has no `items`",
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "tag",
                "description": "Tag a file.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "tags": {"type": "array", "description": "Tags to add."},
                    },
                },
            }
            registry.register(name="tag", toolset="file", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            col=22,
            message="array `tags` has no `items`",
            fix=(('"tags": {"type": "array", "description"', '"tags": {"type": "array", "items": {"type": "string"}, "description"'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            _ROW = {"type": ["array", "null"], "description": "Cells."}

            def _build_schema(row):
                return {
                    "name": "table",
                    "description": "Write a table.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "rows": {"type": "array", "items": row, "description": "Rows."},
                        },
                    },
                }

            registry.register(name="table", toolset="file", schema=_build_schema(_ROW),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=3,
            message="array `rows[]` has no `items`",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for node in schema_nodes(ctx, registration):
                types = node.types()
                if node.via == "parameters" or not types or "array" not in types:
                    continue
                if not _items_declared(node):
                    yield Finding(locate(registration, node.path + ("type",), ctx), f"array `{node.name}` has no `items`")


def _items_declared(node: SubSchema) -> bool:
    schema = node.schema
    if any(key in schema for key in _ITEMS + ("$ref", "$dynamicRef")):
        return True
    for keyword in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(keyword)
        for branch in branches if isinstance(branches, list) else ():
            if isinstance(branch, dict) and any(key in branch for key in _ITEMS + ("$ref",)):
                return True
    parent = node.parent
    if node.via in ("allOf", "anyOf", "oneOf") and parent is not None:
        return any(key in parent.schema for key in _ITEMS)
    return False
