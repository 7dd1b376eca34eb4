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


SCHEMA_PATH = None  # set on first use: hermes_lint/data/manifest.schema.json


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


Validator = "Callable[[object], _Failure | None]"

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
    def __init__(self, root: dict) -> None:
        self.root = root
        self.refs: dict[str, list] = {}

    def compile(self, schema: object) -> Callable[[object], _Failure | None]:
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
        checks = [self._keyword(key, schema[key], schema)
                  for key in schema if key not in _ANNOTATIONS]
        checks = [check for check in checks if check is not None]
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

    def _keyword(self, key: str, arg, schema: dict):
        method = getattr(self, "_k_" + key.lstrip("$"))
        return method(arg, schema)

    def _k_type(self, arg, schema):
        names = [arg] if isinstance(arg, str) else list(arg)
        for name in names:
            _TYPES[name]  # noqa: B018 - an unknown type name is a KeyError at compile time
        expected = " or ".join(names)
        # Exact Python types that pass; a float with an integral value is also a JSON integer.
        exact = frozenset(kind for kind, name in _TYPE_NAMES.items()
                          if name in names or (name == "integer" and "number" in names))
        integral_float = "integer" in names and float not in exact

        def check(value):
            kind = type(value)
            if kind in exact or (integral_float and kind is float and value.is_integer()):
                return None
            return _Failure(lambda: f"{_short(value)} is not of type {expected}")

        if not integral_float:
            check.exact_types = exact  # lets a parent test the type inline (see _k_properties)
        return check

    def _k_const(self, arg, schema):
        if type(arg) is str:  # the common case, without the general JSON comparison
            return lambda value: None if type(value) is str and value == arg else _Failure(lambda:
                f"{_short(value)} is not {arg!r}")
        return lambda value: None if _same_json(value, arg) else _Failure(lambda:
            f"{_short(value)} is not {arg!r}")

    def _k_enum(self, arg, schema):
        return lambda value: None if any(_same_json(value, option) for option in arg) else _Failure(lambda:
            f"{_short(value)} is not one of {arg!r}")

    def _k_pattern(self, arg, schema):
        import re

        search = re.compile(arg).search
        # A regular expression says little to a reader: the schema's description says more.
        meaning = f" ({schema['description']})" if "description" in schema else ""
        return lambda value: None if type(value) is not str or search(value) else _Failure(lambda:
            f"{_short(value)} does not match {arg!r}{meaning}")

    def _k_minLength(self, arg, schema):
        return lambda value: None if type(value) is not str or len(value) >= arg else _Failure(lambda:
            f"{_short(value)} is shorter than {arg}")

    def _k_maxLength(self, arg, schema):
        return lambda value: None if type(value) is not str or len(value) <= arg else _Failure(lambda:
            f"{_short(value)} is longer than {arg}")

    def _k_minimum(self, arg, schema):
        return lambda value: None if not _TYPES["number"](value) or value >= arg else _Failure(lambda:
            f"{_short(value)} is less than {arg}")

    def _k_maximum(self, arg, schema):
        return lambda value: None if not _TYPES["number"](value) or value <= arg else _Failure(lambda:
            f"{_short(value)} is greater than {arg}")

    def _k_exclusiveMinimum(self, arg, schema):
        return lambda value: None if not _TYPES["number"](value) or value > arg else _Failure(lambda:
            f"{_short(value)} is not greater than {arg}")

    def _k_minItems(self, arg, schema):
        return lambda value: None if type(value) is not list or len(value) >= arg else _Failure(lambda:
            f"has fewer than {arg} items")

    def _k_maxItems(self, arg, schema):
        return lambda value: None if type(value) is not list or len(value) <= arg else _Failure(lambda:
            f"has more than {arg} items")

    def _k_uniqueItems(self, arg, schema):
        if not arg:
            return None

        def check(value):
            if type(value) is list:
                for i, item in enumerate(value):
                    if any(_same_json(item, other) for other in value[:i]):
                        return _Failure(lambda: f"has the item {_short(item)} twice")
            return None

        return check

    def _k_items(self, arg, schema):
        item = self.compile(arg)

        def check(value):
            if type(value) is list:
                for index, element in enumerate(value):
                    failure = item(element)
                    if failure is not None:
                        return failure.at(index)
            return None

        return check

    def _k_properties(self, arg, schema):
        compiled = [(name, self.compile(sub)) for name, sub in arg.items()]
        compiled = [(name, sub) for name, sub in compiled if sub is not _always_valid]
        if not compiled:
            return None
        # A property whose schema is only a type is tested inline: most manifest fields are.
        plain = [(name, getattr(sub, "exact_types", None), sub) for name, sub in compiled]

        def check(value):
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

    def _k_additionalProperties(self, arg, schema):
        known = frozenset(schema.get("properties", ()))
        if arg is False:
            def forbid(value):
                if type(value) is dict and not known.issuperset(value):
                    extra = [key for key in value if key not in known]
                    return _Failure(lambda: f"has the unknown key {extra[0]!r}")
                return None

            return forbid
        sub = self.compile(arg)

        def check(value):
            if type(value) is dict:
                for key, item in value.items():
                    if key not in known:
                        failure = sub(item)
                        if failure is not None:
                            return failure.at(key)
            return None

        return check

    def _k_required(self, arg, schema):
        names = frozenset(arg)

        def check(value):
            if type(value) is dict and not names.issubset(value):
                missing = [name for name in arg if name not in value]
                return _Failure(lambda: f"{missing[0]!r} is missing")
            return None

        return check

    def _k_propertyNames(self, arg, schema):
        sub = self.compile(arg)

        def check(value):
            if type(value) is dict:
                for key in value:
                    failure = sub(key)
                    if failure is not None:
                        return _Failure(lambda: f"has the key {key!r}, which {failure.message}")
            return None

        return check

    def _k_oneOf(self, arg, schema):
        alternatives = [self.compile(sub) for sub in arg]
        discriminator = _discriminator(arg)
        if discriminator is not None:
            return self._tagged_union(discriminator, alternatives)

        def check(value):
            failures = [alternative(value) for alternative in alternatives]
            passed = failures.count(None)
            if passed == 1:
                return None
            if passed > 1:
                return _Failure(lambda: "matches more than one of the allowed forms")
            # The form it got furthest into is the one it most likely means.
            deepest = max(failures, key=lambda failure: len(failure.path))
            if deepest.path:
                return deepest
            return _Failure(lambda: f"{_short(value)} matches none of the allowed forms")

        return check

    @staticmethod
    def _tagged_union(discriminator, alternatives):
        """oneOf whose alternatives each require one property to be a different constant: only
        the alternative a value names can match, so only that one is tried."""
        key, options = discriminator
        by_tag = dict(zip(options, alternatives))

        def check(value):
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

    def _k_anyOf(self, arg, schema):
        alternatives = [self.compile(sub) for sub in arg]

        def check(value):
            if any(alternative(value) is None for alternative in alternatives):
                return None
            return _Failure(lambda: f"{_short(value)} matches none of the allowed forms")

        return check

    def _k_ref(self, arg, schema):
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
        return lambda value: cell[0](value)  # a recursive reference, compiled by now when called


def _always_valid(value: object) -> None:
    return None


_MISSING = object()


def _discriminator(alternatives: list) -> tuple[str, list] | None:
    """``(key, values)`` when every alternative requires one shared property to be a distinct
    string ``const``, and fixes its type to object."""
    if not all(isinstance(sub, dict) for sub in alternatives):
        return None
    shared = None
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


def compile_schema(schema: dict) -> Callable[[object], str | None]:
    """A validator for ``schema``: None for a valid value, else one problem as text."""
    validate = _Compiler(schema).compile(schema)

    def problem(value: object) -> str | None:
        failure = validate(value)
        return None if failure is None else failure.render()

    return problem


_manifest_validator = None


def manifest_problem(data: object) -> str | None:
    """The first way ``data`` breaks the shipped manifest schema, or None."""
    global _manifest_validator, SCHEMA_PATH
    if _manifest_validator is None:
        SCHEMA_PATH = _schema_path()
        with open(SCHEMA_PATH, "rb") as handle:
            _manifest_validator = compile_schema(json.loads(handle.read()))
    return _manifest_validator(data)
