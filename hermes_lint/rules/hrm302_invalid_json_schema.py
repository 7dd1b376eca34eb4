from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.model.metaschema import DRAFT, SchemaProblem, problems
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import JSON_TYPES, SCHEMA_MAP_KEYWORDS, display_path, locate, parameters_of

# Python spellings people write for JSON Schema types.
_TYPE_SPELLINGS = {
    "str": "string", "int": "integer", "float": "number", "bool": "boolean", "dict": "object",
    "list": "array", "none": "null", "None": "null", "text": "string", "double": "number",
    "long": "integer", "map": "object", "tuple": "array", "Integer": "integer", "String": "string",
}


class InvalidJsonSchema(Rule):
    """A tool's ``parameters`` must be a valid JSON Schema (meta-validated against Draft 2020-12).

    Providers reject a request whose tool schema is invalid — every tool in it, not only the
    broken one — or silently misread it. Each problem is reported once per JSON path, at the
    source line of the offending key, with jsonschema's best-matching explanation: a misspelt
    type (``"str"``, ``"any"``), ``"required": true`` inside a property, the Draft-7 tuple form
    ``"items": [...]`` (2020-12 uses ``prefixItems``), a non-numeric bound, a regex that does not
    compile.

    The draft is pinned (see ``hermes_lint/model/metaschema.py``): a schema's own ``$schema`` does not
    change it. Not reported here: the root ``type`` and ``properties`` of ``parameters``
    (HRM304 says what they must be), schemas that are not fully known (HRM301), and regex syntax
    that only Python rejects (``\\p{L}`` is valid ECMA-262).
    """

    code = "HRM302"
    summary = "parameters is not a valid JSON Schema (Draft 2020-12)"
    sources = ("https://json-schema.org/draft/2020-12/schema",)

    valid = [
        # constants, enums, nested objects and arrays, a pattern
        """
        from tools.registry import registry

        MODES = ["fast", "thorough"]
        SCHEMA = {
            "name": "search",
            "description": "Search files.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Text.", "minLength": 1},
                    "mode": {"type": "string", "enum": MODES, "default": "fast", "description": "Mode."},
                    "globs": {"type": "array", "items": {"type": "string", "pattern": "^[^/].*$"}, "description": "Globs."},
                    "limit": {"type": ["integer", "null"], "minimum": 1, "description": "Max hits."},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        }
        registry.register(name="search", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merge of a shared base dict
        """
        from tools.registry import registry

        _PATH = {"type": "string", "description": "File path."}
        SCHEMA = {
            "name": "stat",
            "description": "Stat a file.",
            "parameters": {"type": "object", "properties": {"path": {**_PATH, "minLength": 1}}},
        }
        registry.register(name="stat", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper of the module; ECMA-only regex syntax is not an error
        """
        from tools.registry import registry

        def _build_schema(name, pattern):
            return {
                "name": name,
                "description": "Look up a word.",
                "parameters": {
                    "type": "object",
                    "properties": {"word": {"type": "string", "pattern": pattern, "description": "Word."}},
                },
            }

        registry.register(name="define", toolset="words", schema=_build_schema("define", "^\\\\p{L}+$"),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # the root shape is HRM304's, not this rule's
        """
        from tools.registry import registry
        SCHEMA = {"name": "t", "description": "T.", "parameters": {"type": "objet", "properties": []}}
        registry.register(name="t", toolset="s", schema=SCHEMA, handler=lambda a, **k: "", check_fn=lambda: True)
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
                        "city": {"type": "str", "description": "City name."},
                    },
                },
            }
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            col=22,
            message="invalid JSON Schema (Draft 2020-12) at `parameters.properties.city.type`: "
            "'str' is not valid under any of the given schemas (did you mean \"string\"?)",
            fix=(('"type": "str"', '"type": "string"'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "weather",
                "description": "Get the weather.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "description": "City.", "required": True},
                        "days": {
                            "type": "integer",
                            "description": "Days.",
                            "maximum": "7",
                        },
                    },
                },
            }
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            col=64,
            message="invalid JSON Schema (Draft 2020-12) at `parameters.properties.city.required`: "
            "True is not of type 'array'",
            also=((13, 17),),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _build_schema(pattern):
                return {
                    "name": "grep",
                    "description": "Search.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "pairs": {"type": "array", "items": [{"type": "string"}], "description": "P."},
                            "word": {"type": "string", "pattern": pattern, "description": "W."},
                        },
                    },
                }

            registry.register(name="grep", toolset="file", schema=_build_schema("[a-z"),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=10,
            col=44,
            message="invalid JSON Schema (Draft 2020-12) at `parameters.properties.pairs.items`: "
            "[{'type': 'string'}] is not of type 'object', 'boolean'",
            also=((11, 44),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            parameters = parameters_of(registration.schema)
            if parameters is None:
                continue  # no dict parameters: HRM301 or HRM304
            for problem in problems(parameters) or ():  # None: not fully known, stay silent
                if problem.path[:1] == ("type",) or problem.path == ("properties",):
                    continue  # the root shape is HRM304's
                path = ("parameters",) + problem.path
                yield Finding(
                    locate(registration, path, ctx),
                    f"invalid JSON Schema ({DRAFT}) at `{display_path(path)}`: {problem.message}{_hint(problem)}",
                )


def _hint(problem: SchemaProblem) -> str:
    path, value = problem.path, problem.keyword_value
    at_type = path[-1:] == ("type",) or (path[-2:-1] == ("type",) and isinstance(path[-1], int))
    type_index = len(path) - 1 if path[-1:] == ("type",) else len(path) - 2
    if not at_type or (type_index > 0 and path[type_index - 1] in SCHEMA_MAP_KEYWORDS):
        return ""  # a property *named* "type", not the keyword
    if isinstance(value, str) and value in _TYPE_SPELLINGS:
        return f' (did you mean "{_TYPE_SPELLINGS[value]}"?)'
    if isinstance(value, str):
        return f" (JSON Schema types: {', '.join(JSON_TYPES)})"
    return ""
