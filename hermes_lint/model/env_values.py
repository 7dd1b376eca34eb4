"""The abstract values of the environment interpreter: markers for what is known of a value
(truthy, falsy, a set variable, an error result, unknown), their truthiness, and joins; and
``EnvReader``, what an environment reader returns when its variable is unset."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Dict, Iterable, NamedTuple, Optional, Tuple


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return self.name


UNKNOWN = _Marker("UNKNOWN")
TRUTHY = _Marker("TRUTHY")
FALSY = _Marker("FALSY")
SET = _Marker("SET")  # a set variable: a non-empty string of unknown content
ERROR = _Marker("ERROR")  # an error result: tool_error(...), json.dumps({"error": ...})

_CONCRETE = (str, int, float, bool, type(None), tuple, list, dict)


def truth(value: Any) -> Optional[bool]:
    """True/False when the truthiness of ``value`` is certain, else None."""
    if value is SET or value is TRUTHY or value is ERROR:
        return True
    if value is FALSY:
        return False
    if isinstance(value, _CONCRETE):
        return bool(value)
    return None


def concrete(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return all(concrete(v) for v in value)
    if isinstance(value, dict):
        return all(concrete(k) and concrete(v) for k, v in value.items())
    return isinstance(value, _CONCRETE)


def join(values: Iterable[Any]) -> Any:
    values = list(values)
    if all(concrete(v) for v in values) and all(v == values[0] for v in values):
        return values[0]
    if values and all(v is ERROR for v in values):
        return ERROR
    truths = {truth(v) for v in values}
    if truths == {True}:
        return TRUTHY
    if truths == {False}:
        return FALSY
    return UNKNOWN


COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b if b is None or a is None else a == b,
    ast.IsNot: lambda a, b: a is not b if b is None or a is None else a != b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


# --- what an environment reader gives when its variable is unset -------------------------

RAISES = _Marker("RAISES")  # ``os.environ[name]``: KeyError
_UNSET_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title"})


class Param(NamedTuple):
    """What the caller passes for this parameter of the reader (or its constant default)."""

    name: str


class Method(NamedTuple):
    """``inner.strip()`` (a ``str`` method without arguments) of what ``inner`` gives."""

    inner: Any
    method: str


class Either(NamedTuple):
    """``a or b``: the first truthy operand, else the last."""

    operands: Tuple[Any, ...]


@dataclass(frozen=True)
class EnvReader:
    """An environment reader (``get_secret("TOKEN")``): a function whose every value-returning
    path reads the variable its first argument names, or gives a default. ``paths`` says, path
    by path, what it returns when that variable is unset: a constant (``None``, ``""``,
    ``"http://localhost"``), a ``Param``, ``RAISES``, ``UNKNOWN``, or a ``Method``/``Either``
    of those."""

    parameters: Tuple[str, ...]  # after the first: the positional ones, then keyword-only
    positional: int  # how many of ``parameters`` a call may give by position
    defaults: Tuple[Tuple[str, Any], ...]  # the parameters' constant defaults
    paths: Tuple[Any, ...]

    @property
    def required(self) -> bool:
        """Every path raises when the variable is unset (``os.environ[name]`` on each)."""
        return all(path is RAISES for path in self.paths)

    def argument_nodes(self, call: ast.Call) -> Optional[Dict[str, ast.expr]]:
        """The expressions ``call`` passes for the parameters after the first, by name; None
        when it passes something that cannot be matched (``*args``, an unknown keyword)."""
        given: Dict[str, ast.expr] = {}
        for position, node in enumerate(call.args[1:]):
            if isinstance(node, ast.Starred) or position >= self.positional:
                return None
            given[self.parameters[position]] = node
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg not in self.parameters:
                return None
            given[keyword.arg] = keyword.value
        return given

    def unset_value(self, arguments: Dict[str, Any]) -> Any:
        """What the call returns with the variable unset, given the values of the ``arguments``
        it passes. Paths that raise are left out of the join: a path that raises fails, so a
        value that is falsy on every other path stays falsy (what "required" asks), and a mix of
        raising and returning paths is never taken for "always raises"."""
        values = [self._resolve(path, arguments) for path in self.paths if path is not RAISES]
        return join(values) if values else UNKNOWN

    def _resolve(self, path: Any, arguments: Dict[str, Any]) -> Any:
        if isinstance(path, Param):
            if path.name in arguments:
                return arguments[path.name]
            return dict(self.defaults).get(path.name, UNKNOWN)
        if isinstance(path, Method):
            inner = self._resolve(path.inner, arguments)
            return getattr(inner, path.method)() if isinstance(inner, str) else UNKNOWN
        if isinstance(path, Either):
            value: Any = None
            for operand in path.operands:
                value = self._resolve(operand, arguments)
                decided = truth(value)
                if decided is None:
                    return UNKNOWN
                if decided:
                    return value
            return value
        return path  # a constant, or UNKNOWN


def unset_method(name: str) -> bool:
    """Whether ``EnvReader`` paths model the ``str`` method ``name`` (one without arguments)."""
    return name in _UNSET_METHODS
