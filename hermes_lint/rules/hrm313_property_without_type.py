from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import SubSchema, lacks_type, locate, schema_nodes


def _hint(node: SubSchema) -> str:
    schema = node.schema
    if "properties" in schema:
        return ' (it has `properties`: "type": "object"?)'
    if "items" in schema or "prefixItems" in schema:
        return ' (it has `items`: "type": "array"?)'
    return ""


class PropertyWithoutType(Rule):
    """Every parameter needs a ``type`` (or an ``enum``, ``const``, ``anyOf``/``oneOf``/``allOf``
    or ``$ref`` that fixes one).

    An untyped parameter accepts anything, so the model guesses: a number arrives as a string,
    a list as a comma-separated string, and the handler's ``int(args["limit"])`` fails at run
    time. Some providers refuse it outright (Moonshot/Kimi: "type is not defined", HRM605).

    Reported at the parameter's key, at any depth. Not reported: a ``type`` that is present but
    invalid (``"str"``, ``"any"``: HRM302's); properties of a composition branch or of an object
    that composes others (a sibling branch may give the type); array items and ``anyOf``
    branches (not parameters); schemas not known statically.
    """

    code = "HRM313"
    summary = "a property with no type (and no enum, const or anyOf that fixes one)"

    valid = [
        # type from enum / const / anyOf / $ref, from a shared constant, from a helper
        """
        from tools.registry import registry

        _PATH = {"type": "string", "description": "Path."}

        def _choice(values, description):
            return {"enum": values, "description": description}

        SCHEMA = {
            "description": "Copy a file.",
            "parameters": {
                "type": "object",
                "$defs": {"mode": {"type": "string"}},
                "properties": {
                    "source": _PATH,
                    "target": {**_PATH, "description": "Where to."},
                    "overwrite": _choice([True, False], "Replace an existing file."),
                    "kind": {"const": "copy", "description": "Always copy."},
                    "mode": {"$ref": "#/$defs/mode", "description": "How."},
                    "when": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "When."},
                },
            },
        }
        registry.register(name="copy", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # an invalid type is HRM302's; a property of an allOf branch may be typed by a sibling
        """
        from tools.registry import registry

        SCHEMA = {
            "description": "Tag a file.",
            "parameters": {
                "type": "object",
                "properties": {"tag": {"type": "str", "description": "Tag."}},
                "allOf": [
                    {"properties": {"path": {"description": "File."}}},
                    {"properties": {"path": {"type": "string"}}},
                ],
            },
        }
        registry.register(name="tag", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Search the web.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "Terms."},
                        "limit": {"description": "Maximum number of results."},
                    },
                },
            }
            registry.register(name="search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            col=13,
            message="parameter `limit` has no `type`",
            fix=(('"limit": {"description"', '"limit": {"type": "integer", "description"'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _build_schema(filter_schema):
                return {
                    "description": "List tasks.",
                    "parameters": {
                        "type": "object",
                        "properties": {"filter": filter_schema},
                    },
                }

            _FILTER = {
                "description": "Filters.",
                "properties": {"done": {"type": "boolean", "description": "Done ones."}},
            }
            registry.register(name="tasks", toolset="todo", schema=_build_schema(_FILTER),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            message='parameter `filter` has no `type` (it has `properties`: "type": "object"?)',
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for node in schema_nodes(ctx, registration):
                if lacks_type(node):
                    yield Finding(
                        locate(registration, node.path, ctx), f"parameter `{node.name}` has no `type`{_hint(node)}"
                    )
