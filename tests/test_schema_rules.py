"""What the schema rules' examples cannot express: the meta-validation fast path and cache,
the shared walk over a schema's subschemas, JSON value semantics and finding locations."""

from __future__ import annotations

import copy
import json
import random

import pytest

from hermes_lint.model import metaschema
from hermes_lint.model import Keyword, Location, Registration, Unresolved
from hermes_lint.model.schema_walk import (
    NotJson,
    display_path,
    json_equal,
    json_type_matches,
    json_value,
    locate,
    parameter_label,
    subschemas,
)

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City.", "minLength": 1},
        "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
        "days": {"type": ["integer", "null"], "minimum": 1, "maximum": 7},
        "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "uniqueItems": True},
        "filter": {
            "type": "object",
            "properties": {"mode": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
            "required": ["mode"],
            "additionalProperties": False,
        },
    },
    "required": ["city"],
    "$defs": {"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}},
}


def _jsonschema_valid(schema) -> bool:
    return metaschema._meta_validator().is_valid(schema)


# --- meta-validation -----------------------------------------------------------------------


def test_valid_schema_takes_the_fast_path_without_jsonschema():
    metaschema.clear_cache()
    assert metaschema.problems(WEATHER) == ()
    assert metaschema.cache_info().misses == 0  # jsonschema was never asked


def test_invalid_schema_is_explained_once_and_cached_by_canonical_json():
    metaschema.clear_cache()
    bad = {"type": "object", "properties": {"city": {"type": "str", "description": "City."}}}
    first = metaschema.problems(bad)
    assert [p.path for p in first] == [("properties", "city", "type")]
    assert "'str' is not valid under any of the given schemas" in first[0].message
    # The same schema with its keys in another order: the same canonical JSON, one cache entry.
    reordered = {"properties": {"city": {"description": "City.", "type": "str"}}, "type": "object"}
    assert metaschema.problems(reordered) == first
    info = metaschema.cache_info()
    assert (info.misses, info.hits) == (1, 1)


def test_cache_key_distinguishes_json_values():
    metaschema.clear_cache()
    # 1, 1.0 and True are different JSON texts, so different cache entries.
    for value in (1, 1.0, True, 1):
        metaschema.problems({"type": "object", "properties": {}, "required": True, "default": value})
    info = metaschema.cache_info()
    assert (info.currsize, info.hits) == (3, 1)


def test_meta_validator_is_built_once():
    assert metaschema._meta_validator() is metaschema._meta_validator()


def test_unknown_values_are_not_judged():
    schema = {"type": "object", "properties": {"a": {"type": Unresolved("imported")}}}
    assert metaschema.problems(schema) is None
    assert metaschema.problems({"type": "object", "enum": {1, 2}}) is None


def test_tuples_are_json_arrays():
    assert metaschema.problems({"type": "object", "properties": {"a": {"enum": ("x", "y")}}}) == ()


def test_every_error_path_is_reported_once():
    bad = {
        "type": "object",
        "properties": {
            "a": {"type": "number", "minimum": "3"},
            "b": {"type": ["string", "nul"]},
            "c": "string",
        },
    }
    found = metaschema.problems(bad)
    assert [p.path for p in found] == [
        ("properties", "a", "minimum"),
        ("properties", "b", "type", 1),
        ("properties", "c"),
    ]


def test_regex_only_python_rejects_is_not_an_error():
    assert metaschema.problems({"type": "string", "pattern": "^\\p{L}+$"}) == ()
    assert metaschema.problems({"type": "string", "pattern": "(?<year>\\d{4})"}) == ()
    (problem,) = metaschema.problems({"type": "string", "pattern": "[a-z"})
    assert problem.path == ("pattern",) and "unterminated character set" in problem.message


def test_pinned_draft_rejects_older_draft_forms():
    assert metaschema.problems({"type": "array", "items": [{"type": "string"}]})
    assert metaschema.problems({"type": "integer", "exclusiveMinimum": True})
    # $schema does not change the draft.
    assert metaschema.problems({"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer", "exclusiveMinimum": True})


def test_metaschema_keyword_list_matches_jsonschema():
    import jsonschema_specifications

    keywords = set()
    for uri in jsonschema_specifications.REGISTRY:
        if "/draft/2020-12/" in uri:
            keywords |= set(jsonschema_specifications.REGISTRY.contents(uri).get("properties", {}))
    assert keywords == set(metaschema.METASCHEMA_KEYWORDS)


_MUTATIONS = [
    ("type", "str"), ("type", ["string", "string"]), ("type", []), ("type", 3), ("type", ["array", "nul"]),
    ("required", True), ("required", ["a", "a"]), ("required", [1]), ("required", "a"), ("required", []),
    ("minimum", "3"), ("minimum", True), ("minimum", 2.5), ("maxLength", -1), ("maxLength", 1.0),
    ("maxLength", 1.5), ("maxLength", True), ("multipleOf", 0), ("multipleOf", 0.5),
    ("enum", "abc"), ("enum", []), ("enum", [1, 1]), ("items", [{"type": "string"}]), ("items", True),
    ("items", "string"), ("prefixItems", []), ("prefixItems", [True]), ("anyOf", []), ("anyOf", [1]),
    ("anyOf", [{"type": "string"}]), ("properties", []), ("properties", {"x": 1}), ("properties", {"x": True}),
    ("additionalProperties", 0), ("additionalProperties", False), ("pattern", "[a-z"), ("pattern", 5),
    ("patternProperties", {"[": {}}), ("patternProperties", {"^x": {"type": "str"}}),
    ("description", None), ("description", ""), ("title", 1), ("deprecated", "yes"), ("examples", 1),
    ("$ref", 1), ("$ref", "#/$defs/x"), ("$id", "http://x/y#frag"), ("$id", "http://x/y"),
    ("$anchor", "1bad"), ("$anchor", "good"), ("$defs", {"a": "b"}), ("dependentRequired", {"a": ["b", "b"]}),
    ("dependentRequired", {"a": ["b"]}), ("dependencies", {"a": ["b"]}), ("dependencies", {"a": 1}),
    ("$vocabulary", {"x": 1}), ("format", 1), ("format", "date"), ("const", {"any": "thing"}),
    ("uniqueItems", 1), ("minContains", 0), ("x-custom", {"type": 5}), ("default", object),
    ("if", 1), ("not", {"type": "nope"}), ("contentSchema", {"type": "string"}), ("$dynamicRef", "#meta"),
]


def _subschemas(schema):
    out = [schema]
    for value in schema.values():
        if isinstance(value, dict):
            if all(isinstance(v, dict) for v in value.values()):
                for v in value.values():
                    out.extend(_subschemas(v))
            out.extend(_subschemas(value))
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, dict):
                    out.extend(_subschemas(v))
    return out


def test_fast_path_never_accepts_what_jsonschema_rejects():
    """The fast path may only say "valid" when jsonschema agrees (differential check)."""
    rng = random.Random(302)
    checked = 0
    for attempt in range(300):
        schema = copy.deepcopy(WEATHER)
        for _ in range(rng.randint(1, 3)):
            target = rng.choice(_subschemas(schema))
            keyword, value = rng.choice(_MUTATIONS)
            if keyword == "default":
                continue
            target[keyword] = copy.deepcopy(value)
        if metaschema.looks_valid(schema):
            assert _jsonschema_valid(schema), json.dumps(schema)
            checked += 1
        elif attempt % 10 == 0:
            # when the fast path declines, problems() still agrees with jsonschema
            assert (metaschema.problems(schema) == ()) == _jsonschema_valid(schema)
    assert checked > 20  # the fast path really is taken for valid mutations


# --- the walk ------------------------------------------------------------------------------


def test_subschemas_visits_every_subschema_with_its_path():
    paths = [node.path for node in subschemas(WEATHER)]
    assert paths[0] == ("parameters",)
    assert ("parameters", "properties", "tags", "items") in paths
    assert ("parameters", "properties", "filter", "properties", "mode", "anyOf", 1) in paths
    assert ("parameters", "$defs", "point", "prefixItems", 0) in paths
    properties = [node.name for node in subschemas(WEATHER) if node.is_property]
    assert properties == ["city", "units", "days", "tags", "filter", "filter.mode"]


def test_subschemas_skips_unknown_values_and_survives_cycles():
    cyclic = {"type": "object", "properties": {"a": Unresolved("imported"), "b": {"type": "string"}}}
    cyclic["properties"]["self"] = cyclic
    names = [node.name for node in subschemas(cyclic)]
    assert names == ["parameters", "b"]


def test_shared_constant_is_walked_at_each_place():
    shared = {"type": "string"}
    nodes = [n.name for n in subschemas({"type": "object", "properties": {"a": shared, "b": shared}})]
    assert nodes == ["parameters", "a", "b"]


def test_types_accepts_only_valid_type_names():
    (node,) = [n for n in subschemas({"type": "object", "properties": {"a": {"type": "str"}}}) if n.is_property]
    assert node.types() is None
    (node,) = [n for n in subschemas({"type": "object", "properties": {"a": {"type": ["array", "null"]}}}) if n.is_property]
    assert node.types() == ("array", "null")


def test_labels_and_paths():
    assert parameter_label(("parameters", "properties", "rows", "items", "properties", "name")) == "rows[].name"
    assert parameter_label(("parameters", "properties", "x", "anyOf", 1)) == "x.anyOf[1]"
    assert display_path(("parameters", "properties", "a b", "type")) == 'parameters.properties["a b"].type'


# --- JSON values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, type_name, expected",
    [
        (1, "number", True), (1.0, "integer", True), (1.5, "integer", False), (True, "integer", False),
        (True, "boolean", True), (0, "boolean", False), (None, "null", True), (None, "string", False),
        (("a",), "array", True), ({}, "object", True), ("1", "integer", False),
    ],
)
def test_json_type_matches(value, type_name, expected):
    assert json_type_matches(value, type_name) is expected


def test_json_equal_follows_json_not_python():
    assert not json_equal(True, 1)
    assert json_equal(1, 1.0)
    assert json_equal(("a", 1), ["a", 1])
    assert not json_equal("1", 1)


def test_json_value_refuses_what_is_not_json():
    with pytest.raises(NotJson):
        json_value({"a": Unresolved("x")})
    with pytest.raises(NotJson):
        json_value({1: "a"})
    assert json_value({"a": ("b",)}) == {"a": ["b"]}


# --- locations -----------------------------------------------------------------------------


def _registration(locations, schema_keyword=True):
    keywords = (Keyword("schema", Location(5, 5), Location(5, 12)),) if schema_keyword else ()
    return Registration(
        location=Location(4, 1),
        end_line=9,
        name="t",
        toolset="s",
        schema={},
        handler=None,
        check_fn=None,
        keywords=keywords,
        schema_locations=tuple(locations.items()),
    )


def test_locate_prefers_the_key_then_ancestors_then_the_schema_argument_then_the_call():
    registration = _registration(
        {("parameters",): Location(2, 5), ("parameters", "properties", "a"): Location(3, 9)}
    )
    assert locate(registration, ("parameters", "properties", "a", "type")) == Location(3, 9)
    assert locate(registration, ("parameters", "required", 0)) == Location(2, 5)
    assert locate(registration, ("description",)) == Location(5, 12)
    assert locate(_registration({}, schema_keyword=False), ("name",)) == Location(4, 1)
