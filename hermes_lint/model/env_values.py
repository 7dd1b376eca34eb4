"""The abstract values of the environment interpreter: markers for what is known of a value
(truthy, falsy, a set variable, an error result, unknown), their truthiness, and joins."""

from __future__ import annotations

import ast
from typing import Any, Iterable, Optional


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
