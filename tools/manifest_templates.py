"""The runtime's one language for what it evaluates without importing a tool module: small JSON
expressions, filling a schema leaf that depends on the environment (a template hole,
``tools.manifest_holes``) or stating a ``check_fn`` (a check of kind ``template``).

A start from a manifest whose tools have checks compiles this module and nothing else of the
language's: the holes are ``tools.manifest_holes``.

A template is one of (``T`` another template)::

    {"const": v}                       v
    {"env": "NAME"}                    os.environ.get(NAME)   (None when unset)
    {"concat": [T, ...]}               "".join(parts)         (each part must be a str)
    {"format": T, "spec": S, "conversion": ""|"s"|"r"|"a"}
                                       what the f-string field {T!conversion:S} gives
    {"call": "int"|"float"|"str"|"bool", "args": [T, ...]}
    {"if": T, "then": T, "else": T}    Python truthiness of the "if" value
    {"is_none": T}  {"eq": [T, T]}  {"not": T}
    {"or": [T, ...]}  {"and": [T, ...]}  Python's short-circuit, returning an operand
    {"try": T, "except": [NAME, ...], "fallback": T}
                                       NAME: built-in exception classes
    {"method": "strip"|"lstrip"|"rstrip"|"lower"|"upper", "of": T}
                                       the str method, without arguments (T must give a str)
    {"in": T, "values": [v, ...]}      T's value in frozenset(values)
    {"isinstance": T, "type": "str"|"bool"|"int"|"float"}

and the queries of the machine a check makes, each exact and without side effects::

    {"which": T}                       shutil.which(value)
    {"find_spec": "pkg"}               importlib.util.find_spec("pkg"), a top-level name
    {"platform": null}                 sys.platform
    {"path_exists": T, "expanduser": b}
                                       pathlib.Path(value)[.expanduser()].exists()

A ``check_fn`` is recorded as ``{"kind": "template", "template": T}`` whenever these can state
every path of it (the simple forms ``os.getenv("X")``, ``"X" in os.environ`` and ``find_spec("pkg")
is not None`` too: ``{"env": "X"}``, ``{"not": {"is_none": ...}}``): the check is ``bool`` of its
value.

An exception escaping a template (``int("abc")`` without a ``try``) is ``TemplateFailed``: the
module's own code raises there too, so the loader imports it instead. Whether a template is well
formed is ``tools.manifest_template_checks.check_template``, which validation runs before
anything is registered; a manifest exactly as generated is, and a start does not compile it.
Evaluation itself never probes more than a top-level name (``find_spec`` of ``"a.b"`` would
import ``a``): a template that asks is ``TemplateFailed``, whatever the file says.
"""

from __future__ import annotations

import builtins
import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["TemplateFailed", "evaluate"]

_CALLS = {"int": int, "float": float, "str": str, "bool": bool}
_CONVERSIONS = {"": None, "s": str, "r": repr, "a": ascii}
_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper"})
_TYPES = {"str": str, "bool": bool, "int": int, "float": float}
class TemplateFailed(Exception):
    """An exception escaped a template (its text says which)."""


def _exception_class(name: object) -> type[BaseException] | None:
    found = getattr(builtins, name, None) if isinstance(name, str) else None
    if isinstance(found, type) and issubclass(found, BaseException):
        return found
    return None


def evaluate(template: dict[str, Any]) -> object:
    """The template's value (it must have passed ``check_template``); ``TemplateFailed`` when
    an exception escapes it."""
    try:
        return _value(template)
    except TemplateFailed:
        raise
    except Exception as exc:
        raise TemplateFailed(f"{type(exc).__name__}: {exc}") from None


def _value(t: dict[str, Any]) -> object:
    if "const" in t:
        return t["const"]
    if "env" in t:
        return os.environ.get(t["env"])
    if "concat" in t:
        parts = [_value(part) for part in t["concat"]]
        texts: list[str] = []
        for part in parts:
            if not isinstance(part, str):
                raise TypeError(f"can only concatenate str (not \"{type(part).__name__}\") to str")
            texts.append(part)
        return "".join(texts)
    if "format" in t:
        value = _value(t["format"])
        convert = _CONVERSIONS[t.get("conversion", "")]
        if convert is not None:
            value = convert(value)
        return format(value, t.get("spec", ""))
    if "call" in t:
        return _CALLS[t["call"]](*[_value(arg) for arg in t["args"]])
    if "if" in t:
        return _value(t["then"]) if _value(t["if"]) else _value(t["else"])
    if "is_none" in t:
        return _value(t["is_none"]) is None
    if "eq" in t:
        left, right = t["eq"]
        return _value(left) == _value(right)
    if "not" in t:
        return not _value(t["not"])
    if "or" in t:
        result = None
        for operand in t["or"]:
            result = _value(operand)
            if result:
                return result
        return result
    if "and" in t:
        result = None
        for operand in t["and"]:
            result = _value(operand)
            if not result:
                return result
        return result
    if "method" in t:
        text = _value(t["of"])
        if t["method"] not in _METHODS:  # only a forged file names another
            raise ValueError(f"{t['method']!r} is not a str method the runtime knows")
        if not isinstance(text, str):
            raise AttributeError(f"'{type(text).__name__}' object has no attribute '{t['method']}'")
        return getattr(text, t["method"])()
    if "in" in t:
        return _value(t["in"]) in frozenset(t["values"])
    if "isinstance" in t:
        return isinstance(_value(t["isinstance"]), _TYPES[t["type"]])
    if "which" in t:
        import shutil

        command: Any = _value(t["which"])  # not a str: which raises, as the check does
        return shutil.which(command)
    if "find_spec" in t:
        import importlib.util

        name = t["find_spec"]
        if not (isinstance(name, str) and name.isidentifier()):
            raise ValueError(f"find_spec of {name!r}, not a top-level module name")
        return importlib.util.find_spec(name)
    if "platform" in t:
        import sys

        return sys.platform
    if "path_exists" in t:
        from pathlib import Path

        where: Any = _value(t["path_exists"])  # not a path: Path raises, as the check does
        path = Path(where)
        return (path.expanduser() if t["expanduser"] else path).exists()
    # check_template made sure that every name is a built-in exception class.
    caught = tuple(
        found for name in t["except"] if (found := _exception_class(name)) is not None
    )
    try:
        return _value(t["try"])
    except caught:
        return _value(t["fallback"])
