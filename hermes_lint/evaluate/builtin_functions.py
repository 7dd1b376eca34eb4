"""The pure builtins the evaluator supports (dict, list, sorted, len, zip, range...)."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, Callable, Dict

from .limits import MAX_ITEMS
from .values import (
    _NONE_TYPE,
    _NUMBER_TYPES,
    _VIEW_TYPES,
    _Arguments,
    _positional,
    _Refusal,
    _type_name,
)

if TYPE_CHECKING:  # pragma: no cover
    from .evaluator import ModuleEvaluator


def _builtin_dict(self: ModuleEvaluator, arguments: _Arguments, node) -> dict:
    values = _positional(arguments, 0, 1, "dict", keywords=tuple(arguments.keywords))
    result: dict = {}
    table: dict = {}
    if values:
        source = values[0]
        if source.__class__ is dict:
            self._merge(result, table, source, node)
        else:
            for pair in self._materialize(source, node):
                items = self._materialize(pair, node)
                if len(items) != 2:
                    raise ValueError(f"dictionary update sequence element has length {len(items)}; 2 is required")
                if items[0].__class__ is not str:
                    self._charge_deep(items[0])
                result[items[0]] = items[1]
                table.pop(items[0], None)
            self._check_items(len(result))
    for key, value in arguments.keywords.items():
        result[key] = value
        table[key] = arguments.keyword_nodes.get(key)
    return self._remember(result, {k: v for k, v in table.items() if v is not None})


def _builtin_list(self: ModuleEvaluator, arguments: _Arguments, node) -> list:
    values = _positional(arguments, 0, 1, "list")
    if not values:
        return []
    items = self._materialize(values[0], node)
    return self._remember(items, self._items_table(values[0], len(items)))


def _builtin_tuple(self: ModuleEvaluator, arguments: _Arguments, node) -> tuple:
    values = _positional(arguments, 0, 1, "tuple")
    if not values:
        return ()
    items = self._materialize(values[0], node)
    return self._remember(tuple(items), self._items_table(values[0], len(items)))


def _builtin_set(kind: type) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 0, 1, kind.__name__)
        if not values:
            return kind()
        items = self._materialize(values[0], node, ordered=False)
        self._charge_deep(items)
        return kind(items)

    return call


def _builtin_sorted(self: ModuleEvaluator, arguments: _Arguments, node) -> list:
    (iterable,) = _positional(arguments, 1, 1, "sorted", keywords=("reverse",))
    reverse = self._truth(arguments.keywords.get("reverse", False))
    items = self._materialize(iterable, node, ordered=False)
    self._charge_deep(items)
    self._charge_deep(items)  # about two comparisons per item
    table = self._items_table(iterable, len(items))
    order = sorted(range(len(items)), key=items.__getitem__, reverse=reverse)
    return self._remember([items[i] for i in order], [table[i] for i in order])


def _builtin_len(self: ModuleEvaluator, arguments: _Arguments, node) -> int:
    (value,) = _positional(arguments, 1, 1, "len")
    if not isinstance(value, (str, list, tuple, dict, set, frozenset, range) + _VIEW_TYPES):
        raise TypeError(f"object of type '{_type_name(value)}' has no len()")
    return len(value)


def _builtin_str(self: ModuleEvaluator, arguments: _Arguments, node) -> str:
    values = _positional(arguments, 0, 1, "str")
    return self._text(values[0], "s") if values else ""


def _builtin_number(kind: type) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 0, 2 if kind is int else 1, kind.__name__, keywords=("base",) if kind is int else ())
        values = list(values) + ([arguments.keywords["base"]] if "base" in arguments.keywords else [])
        for value in values:
            if value.__class__ not in (str, int, float, bool):
                raise TypeError(f"{kind.__name__}() argument must be a string or a number, not '{_type_name(value)}'")
        return self._check_int(kind(*values))

    return call


def _builtin_bool(self: ModuleEvaluator, arguments: _Arguments, node) -> bool:
    values = _positional(arguments, 0, 1, "bool")
    return self._truth(values[0]) if values else False


def _builtin_extreme(pick: Callable) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
        name = pick.__name__
        values = _positional(arguments, 1, MAX_ITEMS, name, keywords=("default",))
        items = self._materialize(values[0], node, ordered=False) if len(values) == 1 else list(values)
        self._charge_deep(items)
        if not items and "default" in arguments.keywords:
            return arguments.keywords["default"]
        return pick(items)

    return call


def _builtin_sum(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "sum", keywords=("start",))
    start = values[1] if len(values) > 1 else arguments.keywords.get("start", 0)
    items = self._materialize(values[0], node, ordered=False)
    if not all(v.__class__ in _NUMBER_TYPES for v in items) or start.__class__ not in _NUMBER_TYPES:
        raise _Refusal("sum() of values other than numbers")
    return self._check_int(sum(items, start))


def _builtin_any_all(pick: Callable) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> bool:
        (iterable,) = _positional(arguments, 1, 1, pick.__name__)
        return pick(self._truth(v) for v in self._materialize(iterable, node, ordered=False))

    return call


def _builtin_enumerate(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "enumerate", keywords=("start",))
    start = values[1] if len(values) > 1 else arguments.keywords.get("start", 0)
    if start.__class__ not in (int, bool):
        raise TypeError("enumerate() start must be an integer")
    return enumerate(self._iterable(values[0], node), start)


def _builtin_zip(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 0, 64, "zip", keywords=("strict",))
    strict = self._truth(arguments.keywords.get("strict", False))
    return zip(*(self._iterable(v, node) for v in values), strict=strict)


def _builtin_range(self: ModuleEvaluator, arguments: _Arguments, node) -> range:
    values = _positional(arguments, 1, 3, "range")
    if any(v.__class__ not in (int, bool) for v in values):
        raise TypeError("range() arguments must be integers")
    result = range(*values)
    self._check_items(len(result))
    return result


def _builtin_reversed(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    (value,) = _positional(arguments, 1, 1, "reversed")
    if value.__class__ not in (list, tuple, str, range, dict) and not isinstance(value, _VIEW_TYPES):
        raise TypeError(f"'{_type_name(value)}' object is not reversible")
    return reversed(value)


def _builtin_abs(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    (value,) = _positional(arguments, 1, 1, "abs")
    if value.__class__ not in _NUMBER_TYPES:
        raise TypeError(f"bad operand type for abs(): '{_type_name(value)}'")
    return abs(value)


def _builtin_round(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "round", keywords=("ndigits",))
    if "ndigits" in arguments.keywords:
        values = list(values) + [arguments.keywords["ndigits"]]
    if values[0].__class__ not in _NUMBER_TYPES or any(v.__class__ not in (int, bool, _NONE_TYPE) for v in values[1:]):
        raise TypeError("round() needs a number (and an integer number of digits)")
    return round(*values)


_BUILTINS: Dict[str, Callable] = {
    "dict": _builtin_dict,
    "list": _builtin_list,
    "tuple": _builtin_tuple,
    "set": _builtin_set(set),
    "frozenset": _builtin_set(frozenset),
    "sorted": _builtin_sorted,
    "len": _builtin_len,
    "str": _builtin_str,
    "int": _builtin_number(int),
    "float": _builtin_number(float),
    "bool": _builtin_bool,
    "min": _builtin_extreme(min),
    "max": _builtin_extreme(max),
    "sum": _builtin_sum,
    "any": _builtin_any_all(any),
    "all": _builtin_any_all(all),
    "enumerate": _builtin_enumerate,
    "zip": _builtin_zip,
    "range": _builtin_range,
    "reversed": _builtin_reversed,
    "abs": _builtin_abs,
    "round": _builtin_round,
}

_PYTHON_BUILTIN_NAMES = frozenset(dir(builtins))

