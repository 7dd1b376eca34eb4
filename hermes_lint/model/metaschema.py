"""HRM302's meta-validation: is a tool's ``parameters`` a valid JSON Schema?

Pinned to **Draft 2020-12**, whatever a schema's own ``$schema`` says: it is the draft the
providers and MCP read tool schemas as (Anthropic's ``input_schema``, MCP's ``inputSchema``;
OpenAI's subset is 2020-12-compatible), so e.g. the Draft-4 ``"exclusiveMinimum": true`` or the
Draft-7 tuple form ``"items": [...]`` are errors here (2020-12 has ``prefixItems``).

Cost: jsonschema's 2020-12 meta-validation costs milliseconds per schema — more than
parsing the file — and building the meta-validator once hardly helps (the ``$dynamicRef``
resolution dominates). So jsonschema only *explains* failures:

1. ``looks_valid`` — a hand-written structural check of the 2020-12 meta-schema for the keywords
   tool schemas use. It is conservative: it says True only when jsonschema would accept the
   schema (a test checks that against jsonschema on many mutated schemas), and False for
   anything it does not fully know (``$id``, ``$dynamicRef``, a bad value...).
2. Otherwise ``_explain`` runs jsonschema's prebuilt meta-validator (module-level, lazy: the
   ``jsonschema`` import itself is deferred until a schema needs it) and keeps ``best_match``
   per error path; results are cached by the schema's canonical JSON
   (``json.dumps(sort_keys=True)``), so a schema shared by many tools is validated once.

Formats: the meta-schema marks ``pattern``/``patternProperties`` keys as ``format: regex``. We
check them with Python's ``re`` — the same everywhere, whatever optional jsonschema extras are
installed — but ECMA-262 syntax Python lacks (``\\p{L}``, ``(?<name>...)``) is not an error.
Other formats (``uri`` of ``$schema``...) are not asserted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Optional, Tuple

from hermes_lint.model.schema_walk import JSON_TYPES, NotJson, json_value

DRAFT = "Draft 2020-12"


@dataclass(frozen=True)
class SchemaProblem:
    """One meta-validation failure: the JSON path inside the validated schema and why."""

    path: Tuple[Any, ...]
    message: str
    keyword_value: Any = None  # the offending value, for hints (e.g. a misspelt type)


def problems(schema: Any) -> Optional[Tuple[SchemaProblem, ...]]:
    """``()`` when ``schema`` is a valid Draft 2020-12 schema, its problems otherwise; None when
    it is not JSON data (holds an ``Unresolved``, a set...) and so cannot be judged."""
    too_deep = _too_deep(schema)
    if too_deep is not None:
        return (too_deep,)
    try:
        if looks_valid(schema):  # on the evaluator's value as is: no copy on the common path
            return ()
        text = json.dumps(json_value(schema), sort_keys=True, allow_nan=True)
    except (NotJson, RecursionError, ValueError, TypeError):
        return None
    try:
        return _explain(text)
    except RecursionError:  # not expected below MAX_NESTING; never a crash
        return (SchemaProblem((), f"too deeply nested to validate (more than {MAX_NESTING} levels)"),)


# jsonschema's meta-validation recurses a few Python frames per level of JSON nesting: past
# ~190 levels it raises RecursionError, and earlier in a worker process or under flake8, whose
# stacks are already deeper, so that `check -j 2` and `-j 1` would disagree. Deeper than this, a
# schema is reported, never handed to jsonschema: the same answer everywhere. (Providers accept
# far less: OpenAI's strict mode allows 10 levels of objects.)
MAX_NESTING = 100


def _too_deep(schema: Any) -> Optional[SchemaProblem]:
    """A problem (at the schema's root: the path to the place would be as long as the nesting)
    when a dict or list is nested more than ``MAX_NESTING`` levels deep (the schema itself is
    level 1), or None. Iterative: no recursion limit to reach."""
    stack = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        values: Iterable[Any]
        if isinstance(value, dict):
            values = value.values()
        elif isinstance(value, (list, tuple)):
            values = value
        else:
            continue
        if depth > MAX_NESTING:
            return SchemaProblem((), f"nested more than {MAX_NESTING} levels deep: too deep to validate")
        stack.extend((item, depth + 1) for item in values)
    return None


# --- the fast path ---------------------------------------------------------------------------

# Every keyword the 2020-12 meta-schema defines (a test compares this with jsonschema's copy).
# Any other key is an unknown keyword, which the meta-schema accepts with any value.
METASCHEMA_KEYWORDS = frozenset(
    {
        "$anchor", "$comment", "$defs", "$dynamicAnchor", "$dynamicRef", "$id", "$recursiveAnchor",
        "$recursiveRef", "$ref", "$schema", "$vocabulary", "additionalProperties", "allOf", "anyOf",
        "const", "contains", "contentEncoding", "contentMediaType", "contentSchema", "default",
        "definitions", "dependencies", "dependentRequired", "dependentSchemas", "deprecated",
        "description", "else", "enum", "examples", "exclusiveMaximum", "exclusiveMinimum", "format",
        "if", "items", "maxContains", "maxItems", "maxLength", "maxProperties", "maximum",
        "minContains", "minItems", "minLength", "minProperties", "minimum", "multipleOf", "not",
        "oneOf", "pattern", "patternProperties", "prefixItems", "properties", "propertyNames",
        "readOnly", "required", "then", "title", "type", "unevaluatedItems",
        "unevaluatedProperties", "uniqueItems", "writeOnly",
    }
)
_SCHEMA = frozenset(
    {"items", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else",
     "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)
_SCHEMA_MAP = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_STRING = frozenset(
    {"$ref", "$schema", "$comment", "title", "description", "format", "contentEncoding", "contentMediaType"}
)
_NUMBER = frozenset({"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"})
_COUNT = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties"}
)
_BOOLEAN = frozenset({"uniqueItems", "deprecated", "readOnly", "writeOnly"})
_ANY = frozenset({"const", "default"})
_ARRAY = frozenset({"enum", "examples"})
_MAX_DEPTH = 64
_ARRAYS = (list, tuple)


def looks_valid(schema: Any, depth: int = 0) -> bool:
    """True only if ``schema`` certainly passes 2020-12 meta-validation (tuples count as
    arrays, as ``json.dumps`` makes them; anything not JSON-like makes it say False)."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return False
    for keyword, value in schema.items():
        if keyword not in METASCHEMA_KEYWORDS or keyword in _ANY:
            continue
        if keyword in _SCHEMA:
            ok = looks_valid(value, depth + 1)
        elif keyword in _SCHEMA_MAP:
            ok = isinstance(value, dict) and all(looks_valid(v, depth + 1) for v in value.values())
        elif keyword in _SCHEMA_LIST:
            ok = isinstance(value, _ARRAYS) and bool(value) and all(looks_valid(v, depth + 1) for v in value)
        elif keyword in _STRING:
            ok = isinstance(value, str)
        elif keyword in _NUMBER:
            ok = _is_number(value)
        elif keyword in _COUNT:
            ok = _is_integer(value) and value >= 0
        elif keyword in _BOOLEAN:
            ok = isinstance(value, bool)
        elif keyword in _ARRAY:
            ok = isinstance(value, _ARRAYS)
        elif keyword == "type":
            ok = value in JSON_TYPES if isinstance(value, str) else _is_type_list(value)
        elif keyword == "required":
            ok = _is_string_set(value)
        elif keyword == "dependentRequired":
            ok = isinstance(value, dict) and all(_is_string_set(v) for v in value.values())
        elif keyword == "multipleOf":
            ok = _is_number(value) and value > 0
        elif keyword == "pattern":
            ok = isinstance(value, str) and regex_problem(value) is None
        elif keyword == "patternProperties":
            ok = isinstance(value, dict) and all(
                regex_problem(k) is None and looks_valid(v, depth + 1) for k, v in value.items()
            )
        else:  # $id, $anchor, $dynamicRef, $vocabulary, dependencies...: let jsonschema decide
            ok = False
        if not ok:
            return False
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    return _is_number(value) and (isinstance(value, int) or value.is_integer())


def _is_string_set(value: Any) -> bool:
    return isinstance(value, _ARRAYS) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)


def _is_type_list(value: Any) -> bool:
    return (
        isinstance(value, _ARRAYS)
        and bool(value)
        and all(isinstance(v, str) and v in JSON_TYPES for v in value)
        and len(set(value)) == len(value)
    )


# Python's re rejects some valid ECMA-262 syntax; those rejections are not reported.
_PYTHON_ONLY_REGEX_ERRORS = ("bad escape", "unknown extension", "bad character in group name", "missing group name")


def regex_problem(pattern: str) -> Optional[str]:
    """Why ``pattern`` is not a regular expression, or None (also when only Python objects)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        message = str(exc)
        if message.startswith(_PYTHON_ONLY_REGEX_ERRORS):
            return None
        return message
    except (RecursionError, OverflowError, ValueError):
        return None
    return None


# --- the slow path: jsonschema explains ------------------------------------------------------


@lru_cache(maxsize=None)
def _meta_validator() -> Any:
    """The Draft 2020-12 meta-validator, built once per process."""
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(formats=())

    @checker.checks("regex", raises=ValueError)
    def _regex(value: Any) -> bool:
        if isinstance(value, str):
            problem = regex_problem(value)
            if problem is not None:
                raise ValueError(problem)
        return True

    return Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=checker)


@lru_cache(maxsize=4096)
def _explain(canonical: str) -> Tuple[SchemaProblem, ...]:
    """The problems of the schema whose canonical JSON is ``canonical``, one per error path."""
    from jsonschema.exceptions import best_match

    schema = json.loads(canonical)
    groups: dict = {}
    for error in _meta_validator().iter_errors(schema):
        groups.setdefault(tuple(error.absolute_path), []).append(error)
    found = []
    for path in sorted(groups, key=lambda p: [str(part) for part in p]):
        best = best_match(groups[path])
        message = best.message
        if best.validator == "format" and best.cause is not None:
            message += f" ({best.cause})"
        found.append(SchemaProblem(tuple(best.absolute_path), message, best.instance))
    return tuple(found)


def cache_info() -> Any:
    """Hits and misses of the explanation cache (for tests and benchmarks)."""
    return _explain.cache_info()


def clear_cache() -> None:
    _explain.cache_clear()
