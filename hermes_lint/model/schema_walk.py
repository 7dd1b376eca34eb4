"""Walking a tool schema's ``parameters``: every subschema at any depth, with its JSON path.

The schema rules (HRM302–HRM309, HRM311–HRM315) and the provider rules all ask the same
question — "for every parameter, nested object property, array item and anyOf/oneOf branch..."
— so the walk is written once here. Paths are JSON paths from the tool schema's root, the same
keys as ``Registration.schema_locations``: ``("parameters", "properties", "city", "type")``;
list positions are ints (``("parameters", "properties", "x", "anyOf", 1)``).

The evaluator returns whole values or ``Unresolved``; an ``Unresolved`` (or anything that is not
JSON-like) met below the root is treated as unknown: the walk does not descend into it and
``json_value`` refuses it, so rules stay silent about what they cannot see.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator, List, Mapping, Optional, Tuple

from hermes_lint.model import Location, Registration, Unresolved, holes_in

JsonPath = Tuple[Any, ...]

# Where JSON Schema (Draft 2020-12, plus the legacy ``definitions``) keeps
# subschemas: one schema, a name -> schema map, or a list of schemas.
SINGLE_SCHEMA_KEYWORDS = (
    "items",
    "additionalProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)
SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_LIST_KEYWORDS = ("prefixItems", "allOf", "anyOf", "oneOf")

JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")


class SubSchema:
    """One subschema (always a dict; boolean schemas have nothing to check) and where it sits.

    ``via`` is the keyword holding it ("parameters" for the root, "properties", "items",
    "anyOf", ...); ``parent`` is the subschema whose keyword holds it. (A plain slotted class:
    thousands are made per run and a frozen dataclass costs several times more to build.)
    """

    __slots__ = ("path", "schema", "via", "parent")

    def __init__(self, path: JsonPath, schema: Mapping[str, Any], via: str, parent: Optional["SubSchema"] = None):
        self.path = path
        self.schema = schema
        self.via = via
        self.parent = parent

    def __repr__(self) -> str:
        return f"SubSchema({display_path(self.path)})"

    @property
    def is_property(self) -> bool:
        """A named parameter (a ``properties`` entry), at any depth."""
        return self.via == "properties"

    @property
    def name(self) -> str:
        """How messages name it: ``city``, ``filter.mode``, ``rows[].name``, ``x.anyOf[1]``."""
        return parameter_label(self.path)

    def types(self) -> Optional[Tuple[str, ...]]:
        """The declared ``type`` as a tuple of valid JSON type names; None when absent or invalid.

        An invalid type (``"str"``, ``"any"``, a non-string) is HRM302's to report; rules that
        reason about types treat it as unknown.
        """
        declared = self.schema.get("type")
        names = [declared] if isinstance(declared, str) else declared
        if not isinstance(names, (list, tuple)) or not names:
            return None
        if not all(isinstance(n, str) and n in JSON_TYPES for n in names):
            return None
        return tuple(names)


# Keywords that give a property its type (or hand the question to another schema).
_TYPED_BY = ("type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "$dynamicRef")
_COMPOSITION = ("anyOf", "oneOf", "allOf", "$ref", "$dynamicRef")


def lacks_type(node: SubSchema) -> bool:
    """A named property whose type nothing fixes (HRM313 reports it; HRM605 defers to HRM313)."""
    if not node.is_property or any(keyword in node.schema for keyword in _TYPED_BY):
        return False
    owner = node.parent
    # A property of a composition branch, or of an object that composes others, may get its
    # type from a sibling branch ({"allOf": [{"properties": {"x": {...}}}, ...]}).
    if owner is None or owner.via in ("anyOf", "oneOf", "allOf"):
        return False
    return not any(keyword in owner.schema for keyword in _COMPOSITION)


# Keywords whose value is the schema's structure: a hole there (or in a subschema they hold)
# leaves the parameter set, their types or what is required unknown.
_STRUCTURE_KEYWORDS = frozenset(SINGLE_SCHEMA_KEYWORDS + SCHEMA_MAP_KEYWORDS + SCHEMA_LIST_KEYWORDS + ("type", "required"))


def is_structural_path(path: JsonPath) -> bool:
    """Whether a hole at ``path`` (from the tool schema's root) hides the schema's structure.

    Structure: the schema itself, ``parameters``, a whole subschema (a ``properties`` entry, an
    ``anyOf`` branch, ``items``), a map or list of subschemas, and the value of ``type`` or
    ``required`` (or any item of them). Not structure: descriptions, titles, defaults, examples,
    ``enum`` values, bounds and formats; rules that read those stay silent on a hole there, and
    the other rules still run.
    """
    if len(path) < 2:
        return len(path) == 0 or path[0] == "parameters"
    if path[0] != "parameters":
        return False  # the tool's name or description
    at = 1  # path[at] is a keyword of a subschema
    while at < len(path):
        keyword = path[at]
        if keyword in SCHEMA_MAP_KEYWORDS or keyword in SCHEMA_LIST_KEYWORDS:
            if at + 2 >= len(path):
                return True  # the map or list itself, or one whole subschema in it
            at += 2
        elif keyword in SINGLE_SCHEMA_KEYWORDS:
            if at + 1 >= len(path):
                return True
            at += 2 if path[at + 1].__class__ is int else 1  # legacy tuple `items: [...]`
            if at >= len(path):
                return True
        else:
            return keyword in ("type", "required")
    return True


def structural_hole(schema: Any) -> Optional[Tuple[JsonPath, Unresolved]]:
    """The first hole that hides the structure of a partially known tool schema, or None."""
    for path, hole in holes_in(schema):
        if is_structural_path(path):
            return path, hole
    return None


def parameters_of(schema: Any) -> Optional[Mapping[str, Any]]:
    """The ``parameters`` dict of a resolved tool schema, or None (absent, unknown, not a dict)."""
    if isinstance(schema, dict):
        parameters = schema.get("parameters")
        if isinstance(parameters, dict):
            return parameters
    return None


def subschemas(parameters: Mapping[str, Any], base: JsonPath = ("parameters",)) -> Iterator[SubSchema]:
    """Every dict subschema of ``parameters`` (itself first), depth first in source order."""
    stack: List[SubSchema] = [SubSchema(base, parameters, "parameters")]
    while stack:
        node = stack.pop()
        yield node
        children: List[SubSchema] = []
        path = node.path
        for keyword, value in node.schema.items():
            kind = _KIND.get(keyword)
            if kind is None:
                continue
            if kind == "one" and not isinstance(value, (list, tuple)):
                if isinstance(value, dict) and not _is_ancestor(value, node):
                    children.append(SubSchema(path + (keyword,), value, keyword, node))
            elif kind == "map":
                if isinstance(value, dict):
                    for name, child in value.items():
                        if isinstance(child, dict) and not _is_ancestor(child, node):
                            children.append(SubSchema(path + (keyword, name), child, keyword, node))
            elif isinstance(value, (list, tuple)) and (kind == "list" or keyword == "items"):
                # a schema list, or the legacy tuple form of items (invalid in 2020-12: HRM302)
                for index, child in enumerate(value):
                    if isinstance(child, dict) and not _is_ancestor(child, node):
                        children.append(SubSchema(path + (keyword, index), child, keyword, node))
        stack.extend(reversed(children))


_KIND = {
    **{keyword: "one" for keyword in SINGLE_SCHEMA_KEYWORDS},
    **{keyword: "map" for keyword in SCHEMA_MAP_KEYWORDS},
    **{keyword: "list" for keyword in SCHEMA_LIST_KEYWORDS},
}


def _is_ancestor(value: Any, node: Optional[SubSchema]) -> bool:
    # A constant shared by two properties is walked at both places; only a cycle is cut.
    while node is not None:
        if node.schema is value:
            return True
        node = node.parent
    return False


def schema_nodes(ctx: Any, registration: Registration) -> Tuple[SubSchema, ...]:
    """``subschemas`` of a registration's parameters, computed once per module run."""
    found = ctx.subschemas_by_registration.get(id(registration))
    if found is None:
        parameters = parameters_of(registration.schema)
        found = ctx.subschemas_by_registration[id(registration)] = (
            tuple(subschemas(parameters)) if parameters is not None else ()
        )
    return found


# --- JSON values ---------------------------------------------------------------------------


class NotJson(Exception):
    """The value holds something that is not JSON data (an ``Unresolved``, a set, an object)."""


def json_value(value: Any) -> Any:
    """``value`` as plain JSON data (tuples become lists), or ``NotJson`` when it cannot be.

    The runtime sends schemas through ``json.dumps``, so a tuple is an array there too.
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [json_value(item) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise NotJson("a non-string key")
        return {key: json_value(item) for key, item in value.items()}
    if isinstance(value, Unresolved):
        raise NotJson(value.reason)
    raise NotJson(type(value).__name__)


def is_json(value: Any) -> bool:
    try:
        json_value(value)
    except (NotJson, RecursionError):
        return False
    return True


def json_type_matches(value: Any, type_name: str) -> bool:
    """JSON Schema's type test: bool is not a number, 1.0 is an integer, a tuple is an array."""
    if type_name == "null":
        return value is None
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if type_name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "array":
        return isinstance(value, (list, tuple))
    if type_name == "object":
        return isinstance(value, dict)
    return False


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, ``1`` is ``1.0``, tuples equal lists."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def json_text(value: Any) -> str:
    """A short JSON rendering for messages (``"metric"``, ``null``, ``true``)."""
    try:
        text = json.dumps(json_value(value), ensure_ascii=False)
    except (NotJson, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --- naming and locating -------------------------------------------------------------------

_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


def display_path(path: JsonPath) -> str:
    """``parameters.properties.city.type``; ``anyOf[1]``; odd keys quoted: ``properties["a b"]``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_KEY.match(part):
            text += f".{part}" if text else part
        else:
            text += f'["{part}"]'
    return text


def parameter_label(path: JsonPath) -> str:
    """A parameter's name as users think of it: ``filter.mode``, ``rows[].name``, ``x.anyOf[1]``."""
    parts = path[1:] if path[:1] == ("parameters",) else path
    text = ""
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == "properties" and i + 1 < len(parts):
            text += ("." if text else "") + str(parts[i + 1])
            i += 2
            continue
        if part == "items" and (i + 1 == len(parts) or not isinstance(parts[i + 1], int)):
            text += "[]"
        elif isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
        i += 1
    return text or "parameters"


def argument_location(ctx: Any, registration: Registration, name: str) -> Optional[Location]:
    """Where the value of register()'s ``name`` argument is written (keyword or positional)."""
    keyword = registration.keyword(name)
    if keyword is not None:
        return keyword.value_location
    from hermes_lint.model.callables import REGISTER_PARAMETERS

    position = REGISTER_PARAMETERS.index(name)
    if ctx is not None and position < registration.positional_args:
        for candidate, call in ctx.registration_calls():
            if candidate is registration and position < len(call.args):
                return ctx.loc(call.args[position])
    return None


def locate(registration: Registration, path: JsonPath, ctx: Any = None) -> Location:
    """Source location of the schema key at ``path``: the key itself, else its nearest located
    ancestor, else the ``schema=`` argument's value, else the register call."""
    found = registration.schema_location(path)
    if found is None:
        found = argument_location(ctx, registration, "schema")
        return found or registration.location
    located = getattr(ctx, "located_keys", None)
    if located is not None and isinstance(registration.name, str):
        located.append((found, registration.name))
    return found


def overrides_may_change(registration: Registration, key: str) -> bool:
    """Whether ``dynamic_schema_overrides=`` may replace the schema's top-level ``key`` at run time."""
    return registration.overrides_may_change(key) or registration.positional_args > 10

