"""The manifest's JSON Schema, applied by the runtime with the standard library only.

The format has one definition: ``hermes_lint/data/manifest.schema.json``, which the generator's
tests validate with ``jsonschema`` and which this module interprets for the loader. Only the
keywords that schema uses are understood (``KEYWORDS``); a schema using another one is an error
when it is compiled, so the two can never silently disagree. The schema is compiled once into
closures that return None for a valid value, or a ``_Failure`` that collects its JSON path on
the way out, so a valid manifest costs no path bookkeeping.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    # A decoded JSON value: a schema's keyword argument, or a value being validated. Any, since
    # the checks test exact types with ``type(v) is T``, which mypy narrows only on a name, not
    # through a stored type or ``_TYPES``.
    JSON = Any
    JSONObject = dict[str, Any]
    # None for a valid value, else where and why it fails.
    Validator = Callable[[JSON], "_Failure | None"]

__all__ = ["KEYWORDS", "SCHEMA_PATH", "compile_schema", "manifest_problem"]

# Annotations, ignored when validating.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "$defs"})
KEYWORDS = frozenset({
    "type", "const", "enum", "pattern", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "minItems", "maxItems", "uniqueItems", "items", "properties",
    "additionalProperties", "required", "propertyNames", "oneOf", "anyOf", "$ref",
}) | _ANNOTATIONS


def _schema_path() -> str:
    from hermes_lint import discovery

    return os.path.join(os.path.dirname(discovery.__file__), "data", "manifest.schema.json")


SCHEMA_PATH: str | None = None  # set on first use: hermes_lint/data/manifest.schema.json


class _Failure:
    """Where and why a value fails. The message is made only when asked for: a ``oneOf`` tries
    forms that fail as a matter of course, and formatting each of those would cost more than
    the validation itself."""

    __slots__ = ("path", "_message")

    def __init__(self, message: Callable[[], str]) -> None:
        self.path: list[object] = []  # innermost key first
        self._message = message

    @property
    def message(self) -> str:
        return self._message()

    def at(self, key: object) -> _Failure:
        self.path.append(key)
        return self

    def render(self) -> str:
        where = "".join(
            f"[{key!r}]" if i or not isinstance(key, str) else key
            for i, key in enumerate(reversed(self.path))
        )
        return f"{where}: {self.message}" if where else self.message


_TYPES = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    # JSON numbers; Python's bool is an int but never a JSON number.
    "integer": lambda v: type(v) is int or (type(v) is float and v.is_integer()),
    "number": lambda v: type(v) in (int, float),
}
_TYPE_NAMES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
               int: "integer", float: "number"}


def _kind(value: object) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _same_json(a: object, b: object) -> bool:
    """JSON equality: 1 == 1.0, but True != 1."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    return a == b and (type(a) in (int, float)) == (type(b) in (int, float))


class _Compiler:
    def __init__(self, root: JSONObject) -> None:
        self.root = root
        # Per local $ref: its validator, None while it is being compiled.
        self.refs: dict[str, list[Validator | None]] = {}

    def compile(self, schema: JSON) -> Validator:
        if schema is True or schema == {}:
            return _always_valid
        if schema is False:
            return lambda value: _Failure(lambda: "is not allowed here")
        if not isinstance(schema, dict):
            raise ValueError(f"not a schema: {schema!r}")
        unknown = set(schema) - KEYWORDS
        if unknown:
            raise ValueError(f"JSON Schema keyword {sorted(unknown)[0]!r} is not understood by "
                             "tools.manifest_schema")
        keyword_checks = [self._keyword(key, schema[key], schema)
                          for key in schema if key not in _ANNOTATIONS]
        checks = [check for check in keyword_checks if check is not None]
        if not checks:
            return _always_valid
        if len(checks) == 1:
            return checks[0]
        if len(checks) == 2:
            first, second = checks
            return lambda value: first(value) or second(value)
        if len(checks) == 3:
            first, second, third = checks
            return lambda value: first(value) or second(value) or third(value)

        def validate(value: object) -> _Failure | None:
            for check in checks:
                failure = check(value)
                if failure is not None:
                    return failure
            return None

        return validate

    def _keyword(self, key: str, arg: JSON, schema: JSONObject) -> Validator | None:
        method: Callable[[JSON, JSONObject], Validator | None] = getattr(
            self, "_k_" + key.lstrip("$"))
        return method(arg, schema)

    def _k_type(self, arg: JSON, schema: JSONObject) -> Validator | None:
        names = [arg] if isinstance(arg, str) else list(arg)
        for name in names:
            _TYPES[name]  # noqa: B018 - an unknown type name is a KeyError at compile time
        expected = " or ".join(names)
        # Exact Python types that pass; a float with an integral value is also a JSON integer.
        exact = frozenset(kind for kind, name in _TYPE_NAMES.items()
                          if name in names or (name == "integer" and "number" in names))
        integral_float = "integer" in names and float not in exact

        def check(value: JSON) -> _Failure | None:
            kind = type(value)
            if kind in exact or (integral_float and kind is float and value.is_integer()):
                return None
            return _Failure(lambda: f"{_short(value)} is not of type {expected}")

        if not integral_float:
            # Lets a parent test the type inline (see _k_properties). A function attribute,
            # which mypy does not model on a def.
            check.exact_types = exact  # type: ignore[attr-defined]
        return check

    def _k_const(self, arg: JSON, schema: JSONObject) -> Validator | None:
        if type(arg) is str:  # the common case, without the general JSON comparison
            return lambda value: None if type(value) is str and value == arg else _Failure(lambda:
                f"{_short(value)} is not {arg!r}")
        return lambda value: None if _same_json(value, arg) else _Failure(lambda:
            f"{_short(value)} is not {arg!r}")

    def _k_enum(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if any(_same_json(value, option) for option in arg) else _Failure(lambda:
            f"{_short(value)} is not one of {arg!r}")

    def _k_pattern(self, arg: JSON, schema: JSONObject) -> Validator | None:
        import re

        search = re.compile(arg).search
        # A regular expression says little to a reader: the schema's description says more.
        meaning = f" ({schema['description']})" if "description" in schema else ""
        return lambda value: None if type(value) is not str or search(value) else _Failure(lambda:
            f"{_short(value)} does not match {arg!r}{meaning}")

    def _k_minLength(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if type(value) is not str or len(value) >= arg else _Failure(lambda:
            f"{_short(value)} is shorter than {arg}")

    def _k_maxLength(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if type(value) is not str or len(value) <= arg else _Failure(lambda:
            f"{_short(value)} is longer than {arg}")

    def _k_minimum(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if not _TYPES["number"](value) or value >= arg else _Failure(lambda:
            f"{_short(value)} is less than {arg}")

    def _k_maximum(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if not _TYPES["number"](value) or value <= arg else _Failure(lambda:
            f"{_short(value)} is greater than {arg}")

    def _k_exclusiveMinimum(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if not _TYPES["number"](value) or value > arg else _Failure(lambda:
            f"{_short(value)} is not greater than {arg}")

    def _k_minItems(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if type(value) is not list or len(value) >= arg else _Failure(lambda:
            f"has fewer than {arg} items")

    def _k_maxItems(self, arg: JSON, schema: JSONObject) -> Validator | None:
        return lambda value: None if type(value) is not list or len(value) <= arg else _Failure(lambda:
            f"has more than {arg} items")

    def _k_uniqueItems(self, arg: JSON, schema: JSONObject) -> Validator | None:
        if not arg:
            return None

        def check(value: JSON) -> _Failure | None:
            if type(value) is list:
                for i, item in enumerate(value):
                    if any(_same_json(item, other) for other in value[:i]):
                        return _Failure(lambda: f"has the item {_short(item)} twice")
            return None

        return check

    def _k_items(self, arg: JSON, schema: JSONObject) -> Validator | None:
        item = self.compile(arg)

        def check(value: JSON) -> _Failure | None:
            if type(value) is list:
                for index, element in enumerate(value):
                    failure = item(element)
                    if failure is not None:
                        return failure.at(index)
            return None

        return check

    def _k_properties(self, arg: JSON, schema: JSONObject) -> Validator | None:
        every = [(name, self.compile(sub)) for name, sub in arg.items()]
        compiled = [(name, sub) for name, sub in every if sub is not _always_valid]
        if not compiled:
            return None
        # A property whose schema is only a type is tested inline: most manifest fields are.
        plain = [(name, getattr(sub, "exact_types", None), sub) for name, sub in compiled]

        def check(value: JSON) -> _Failure | None:
            if type(value) is dict:
                for name, exact, sub in plain:
                    if name in value:
                        item = value[name]
                        if exact is not None and type(item) in exact:
                            continue
                        failure = sub(item)
                        if failure is not None:
                            return failure.at(name)
            return None

        return check

    def _k_additionalProperties(self, arg: JSON, schema: JSONObject) -> Validator | None:
        known = frozenset(schema.get("properties", ()))
        if arg is False:
            def forbid(value: JSON) -> _Failure | None:
                if type(value) is dict and not known.issuperset(value):
                    extra = [key for key in value if key not in known]
                    return _Failure(lambda: f"has the unknown key {extra[0]!r}")
                return None

            return forbid
        sub = self.compile(arg)

        def check(value: JSON) -> _Failure | None:
            if type(value) is dict:
                for key, item in value.items():
                    if key not in known:
                        failure = sub(item)
                        if failure is not None:
                            return failure.at(key)
            return None

        return check

    def _k_required(self, arg: JSON, schema: JSONObject) -> Validator | None:
        names = frozenset(arg)

        def check(value: JSON) -> _Failure | None:
            if type(value) is dict and not names.issubset(value):
                missing = [name for name in arg if name not in value]
                return _Failure(lambda: f"{missing[0]!r} is missing")
            return None

        return check

    def _k_propertyNames(self, arg: JSON, schema: JSONObject) -> Validator | None:
        sub = self.compile(arg)

        def check(value: JSON) -> _Failure | None:
            if type(value) is dict:
                for key in value:
                    failure = sub(key)
                    if failure is not None:
                        return _Failure(lambda: f"has the key {key!r}, which {failure.message}")
            return None

        return check

    def _k_oneOf(self, arg: JSON, schema: JSONObject) -> Validator | None:
        alternatives = [self.compile(sub) for sub in arg]
        discriminator = _discriminator(arg)
        if discriminator is not None:
            return self._tagged_union(discriminator, alternatives)

        def check(value: JSON) -> _Failure | None:
            failures = [alternative(value) for alternative in alternatives]
            passed = failures.count(None)
            if passed == 1:
                return None
            if passed > 1:
                return _Failure(lambda: "matches more than one of the allowed forms")
            # The form it got furthest into is the one it most likely means (all failed).
            deepest = max((f for f in failures if f is not None),
                          key=lambda failure: len(failure.path))
            if deepest.path:
                return deepest
            return _Failure(lambda: f"{_short(value)} matches none of the allowed forms")

        return check

    @staticmethod
    def _tagged_union(discriminator: tuple[str, list[str]],
                      alternatives: list[Validator]) -> Validator:
        """oneOf whose alternatives each require one property to be a different constant: only
        the alternative a value names can match, so only that one is tried."""
        key, options = discriminator
        by_tag = dict(zip(options, alternatives))

        def check(value: JSON) -> _Failure | None:
            if type(value) is not dict:
                return _Failure(lambda: f"{_short(value)} is not of type object")
            tag = value.get(key, _MISSING)
            alternative = by_tag.get(tag) if type(tag) is str else None
            if alternative is None:
                if tag is _MISSING:
                    return _Failure(lambda: f"{key!r} is missing")
                return _Failure(lambda: f"has an unknown {key} {_short(tag)}")
            return alternative(value)

        return check

    def _k_anyOf(self, arg: JSON, schema: JSONObject) -> Validator | None:
        alternatives = [self.compile(sub) for sub in arg]

        def check(value: JSON) -> _Failure | None:
            if any(alternative(value) is None for alternative in alternatives):
                return None
            return _Failure(lambda: f"{_short(value)} matches none of the allowed forms")

        return check

    def _k_ref(self, arg: JSON, schema: JSONObject) -> Validator | None:
        if not arg.startswith("#/"):
            raise ValueError(f"only local $ref is understood, not {arg!r}")
        cell = self.refs.get(arg)
        if cell is None:
            cell = self.refs[arg] = [None]
            target = self.root
            for part in arg[2:].split("/"):
                target = target[part]
            cell[0] = self.compile(target)
            return cell[0]
        if cell[0] is not None:
            return cell[0]
        # A recursive reference: compiled by the time a value is validated, which mypy cannot
        # see through the cell.
        return lambda value: cell[0](value)  # type: ignore[misc]


def _always_valid(value: object) -> None:
    return None


_MISSING = object()


def _discriminator(alternatives: list[JSON]) -> tuple[str, list[str]] | None:
    """``(key, values)`` when every alternative requires one shared property to be a distinct
    string ``const``, and fixes its type to object."""
    if not all(isinstance(sub, dict) for sub in alternatives):
        return None
    shared: set[str] | None = None
    for sub in alternatives:
        pinned = {name for name, prop in sub.get("properties", {}).items()
                  if isinstance(prop, dict) and "const" in prop and name in sub.get("required", ())}
        shared = pinned if shared is None else shared & pinned
    if not shared or not all(sub.get("type") == "object" for sub in alternatives):
        return None
    key = sorted(shared)[0]
    values = [sub["properties"][key]["const"] for sub in alternatives]
    if not all(isinstance(v, str) for v in values) or len(set(values)) != len(values):
        return None
    return key, values


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{_kind(value)} {text[:50]}..."


def compile_schema(schema: JSONObject) -> Callable[[object], str | None]:
    """A validator for ``schema``: None for a valid value, else one problem as text."""
    validate = _Compiler(schema).compile(schema)

    def problem(value: object) -> str | None:
        failure = validate(value)
        return None if failure is None else failure.render()

    return problem


_manifest_validator: Callable[[object], str | None] | None = None


def manifest_problem(data: object) -> str | None:
    """The first way ``data`` breaks the shipped manifest schema, or None."""
    global _manifest_validator, SCHEMA_PATH
    if _manifest_validator is None:
        SCHEMA_PATH = _schema_path()
        with open(SCHEMA_PATH, "rb") as handle:
            _manifest_validator = compile_schema(json.loads(handle.read()))
    return _manifest_validator(data)
