"""The checks a provider constraint row names (``Constraint.check``): small generic predicates over
one schema node (``NODE_CHECKS``: each takes ``(node, constraint)`` and yields ``(path, text[,
deferred])``) or one registration (``TOOL_CHECKS``)."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterator, Tuple

from hermes_lint.model.schema_walk import SubSchema, is_json, json_equal, json_text, lacks_type, parameter_label
from hermes_lint.rules.provider_table import OPENAI_ROOT_REJECTED

# --------------------------------------------------------------------------- node checks
# Each takes (node, constraint) and yields (path, text[, deferred]).


def _label(node: SubSchema) -> str:
    return f"`{node.name}`"


def _is_object(node: SubSchema) -> bool:
    types = node.types()
    return (types is not None and "object" in types) or isinstance(node.schema.get("properties"), dict)


def _check_keyword(node, constraint):
    for keyword in node.schema:
        if keyword in constraint.arg:
            yield node.path + (keyword,), f"keyword `{keyword}` in {_label(node)}"


def _check_root_keyword(node, constraint):
    if node.via == "parameters":
        yield from _check_keyword(node, constraint)


def _check_strict_keyword(node, constraint):
    # At the root, allOf/not are what HRM601 reports for every OpenAI request: one fact, one finding.
    for path, text in _check_keyword(node, constraint):
        yield path, text, node.via == "parameters" and path[-1] in OPENAI_ROOT_REJECTED


def _check_outside_keys(node, constraint):
    for keyword in node.schema:
        if keyword not in constraint.arg:
            yield node.path + (keyword,), f"keyword `{keyword}` in {_label(node)}"


def _check_object_flag(node, constraint):
    keyword, wanted, missing_is_violation = constraint.arg
    if not _is_object(node):
        return
    if keyword not in node.schema:
        if missing_is_violation:
            yield node.path, f"object {_label(node)} has no `{keyword}: {json_text(wanted)}`"
    elif is_json(node.schema[keyword]) and not json_equal(node.schema[keyword], wanted):
        yield node.path + (keyword,), f"object {_label(node)} sets `{keyword}` to {json_text(node.schema[keyword])}"


def _check_all_required(node, constraint):
    properties = node.schema.get("properties")
    required = node.schema.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list) or not is_json(required):
        return  # an entry not known statically may name any property
    for name in properties:
        if name not in required:
            path = node.path + ("properties", name)
            yield path, f"property `{parameter_label(path)}` is not in `required`"


def _check_string_format(node, constraint):
    value, types = node.schema.get("format"), node.types()
    if isinstance(value, str) and types and "string" in types and value not in constraint.arg:
        yield node.path + ("format",), f"string format {json_text(value)} of {_label(node)}"


def _check_type_list(node, constraint):
    if isinstance(node.schema.get("type"), list):
        yield node.path + ("type",), f"type list {json_text(node.schema['type'])} of {_label(node)}"


def _check_enum_values(node, constraint):
    enum = node.schema.get("enum")
    if not isinstance(enum, list) or not is_json(enum) or all(isinstance(value, str) for value in enum):
        return
    stringified = node.schema.get("type") in ("integer", "number", "boolean")
    if stringified == (constraint.arg == "stringified"):
        yield node.path + ("enum",), f"non-string enum values {json_text(enum)} of {_label(node)}"


def _check_missing_type(node, constraint):
    if node.via not in constraint.arg or any(k in node.schema for k in ("type", "$ref", "anyOf")):
        return
    yield node.path, f"{_label(node)} has no `type`", node.is_property and lacks_type(node)


def _check_type_beside(node, constraint):
    if constraint.arg in node.schema and "type" in node.schema:
        yield node.path + ("type",), f"{_label(node)} has `type` beside `{constraint.arg}`"


def _check_min_items(node, constraint):
    value = node.schema.get("minItems")
    if isinstance(value, int) and not isinstance(value, bool) and value > constraint.arg:
        yield node.path + ("minItems",), f"`minItems` {value} of {_label(node)}"


def _check_enum_complex(node, constraint):
    enum = node.schema.get("enum")
    if isinstance(enum, list) and any(isinstance(value, (dict, list, tuple)) for value in enum):
        yield node.path + ("enum",), f"enum of {_label(node)} holds objects or arrays"


_DEF_REF = re.compile(r"^#/(\$defs|definitions)/([^/]+)$")


def _check_ref(node, constraint):
    ref = node.schema.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith("#"):
            yield node.path + ("$ref",), f"external `$ref` {json_text(ref)} in {_label(node)}"
        elif ref == "#" or _recursive(node, ref):
            yield node.path + ("$ref",), f"recursive `$ref` {json_text(ref)} in {_label(node)}"
    for index, branch in enumerate(node.schema.get("allOf") or ()):
        if isinstance(branch, dict) and "$ref" in branch:
            yield node.path + ("allOf", index, "$ref"), f"`$ref` inside `allOf` of {_label(node)}"


def _recursive(node: SubSchema, ref: str) -> bool:
    """Does ``ref`` lead (through local definitions) back to a definition it starts from?"""
    root = node
    while root.parent is not None:
        root = root.parent
    target = _DEF_REF.match(ref)
    if target is None:
        return False
    seen = set()
    pending = [target.groups()]
    while pending:
        keyword, name = pending.pop()
        if (keyword, name) in seen:
            return True  # a cycle through definitions
        seen.add((keyword, name))
        definitions = root.schema.get(keyword)
        definition = definitions.get(name) if isinstance(definitions, dict) else None
        pending.extend(_refs_in(definition))
    return False


def _refs_in(value: Any) -> Iterator[Tuple[str, str]]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            match = _DEF_REF.match(ref) if isinstance(ref, str) else None
            if match:
                yield match.group(1), match.group(2)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _check_root_type(node, constraint):
    if node.via == "parameters" and node.schema.get("type") != "object":
        yield node.path + ("type",), '`parameters` is not "type": "object"'


def _check_free_object(node, constraint):
    # The root is HRM304's; a typed map (`additionalProperties` holding a schema) states its values.
    types = node.types()
    if node.via == "parameters" or not types or "object" not in types:
        return
    if "properties" in node.schema or isinstance(node.schema.get("additionalProperties"), dict):
        return
    yield node.path + ("type",), f"object {_label(node)} has no `properties` (a free-form object)"


NODE_CHECKS: Dict[str, Callable] = {
    "keyword": _check_keyword,
    "root_keyword": _check_root_keyword,
    "strict_keyword": _check_strict_keyword,
    "outside_keys": _check_outside_keys,
    "object_flag": _check_object_flag,
    "all_required": _check_all_required,
    "string_format": _check_string_format,
    "type_list": _check_type_list,
    "enum_values": _check_enum_values,
    "missing_type": _check_missing_type,
    "type_beside": _check_type_beside,
    "min_items": _check_min_items,
    "enum_complex": _check_enum_complex,
    "ref": _check_ref,
    "root_type": _check_root_type,
    "free_object": _check_free_object,
}


# --------------------------------------------------------------------------- tool checks


def _check_name_pattern(registration, constraint):
    name = registration.name
    if isinstance(name, str) and not re.fullmatch(constraint.arg, name):
        yield None, f"tool name {name!r} does not match ^{constraint.arg}$"


def _check_name_start(registration, constraint):
    name = registration.name
    # A name HRM308 rejects is HRM308's to report, whatever its first character.
    if isinstance(name, str) and re.fullmatch(constraint.arg, name) and not (name[0].isalpha() or name[0] == "_"):
        yield None, f"tool name {name!r} starts with {name[0]!r}, not a letter or an underscore"


TOOL_CHECKS: Dict[str, Callable] = {"name_pattern": _check_name_pattern, "name_start": _check_name_start}
