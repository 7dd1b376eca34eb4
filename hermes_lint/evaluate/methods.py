"""Methods of plain values the evaluator supports (str, dict, list, tuple, set)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict

from .builtin_functions import _builtin_dict
from .values import _Arguments, _positional, _scalar_arguments, _type_name

if TYPE_CHECKING:  # pragma: no cover
    from .evaluator import ModuleEvaluator


def _str_join(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> str:
    (iterable,) = _positional(arguments, 1, 1, "str.join")
    items = self._materialize(iterable, node)
    if any(item.__class__ is not str for item in items):
        return receiver.join(items)  # raises the TypeError Python would
    self._check_text(sum(map(len, items)) + len(receiver) * max(len(items) - 1, 0))
    return receiver.join(items)


def _str_format_method(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> str:
    return self._str_format(receiver, arguments)


def _str_replace(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> str:
    values = _positional(arguments, 2, 3, "str.replace")
    _scalar_arguments(values, "str.replace")
    old, new = values[0], values[1]
    if old.__class__ is str and new.__class__ is str:
        occurrences = receiver.count(old) if old else len(receiver) + 1
        if len(values) == 3 and values[2].__class__ is int and values[2] >= 0:
            occurrences = min(occurrences, values[2])
        self._check_text(len(receiver) + occurrences * (len(new) - len(old)))
    return receiver.replace(*values)


def _str_plain_method(name: str) -> Callable:
    method = getattr(str, name)
    keywords = ("sep", "maxsplit") if name in ("split", "rsplit") else ()

    def call(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 0, 3, f"str.{name}", keywords)
        _scalar_arguments(list(values) + list(arguments.keywords.values()), f"str.{name}")
        result = method(receiver, *values, **arguments.keywords)
        if result.__class__ is str:
            self._check_text(len(result))
        elif result.__class__ is list:
            self._check_items(len(result))
        return result

    return call


def _dict_get(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "dict.get")
    if values[0].__class__ is not str:
        self._charge_deep(values[0])
    return receiver.get(*values)


def _dict_view(name: str) -> Callable:
    def call(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
        _positional(arguments, 0, 0, f"dict.{name}")
        return getattr(receiver, name)()

    return call


def _any_copy(self: ModuleEvaluator, receiver: Any, arguments: _Arguments, node) -> Any:
    _positional(arguments, 0, 0, f"{_type_name(receiver)}.copy")
    return self._copy(receiver, deep=False)


def _dict_update(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> None:
    values = _positional(arguments, 0, 1, "dict.update", keywords=tuple(arguments.keywords))
    self._ensure_mutable(receiver)
    table = self._dict_table(receiver)
    if values:
        source = values[0]
        if source.__class__ is not dict:
            source = _builtin_dict(self, _Arguments([source], [None], {}, {}), node)
        self._merge(receiver, table, source, node)
    for key, value in arguments.keywords.items():
        receiver[key] = value
        table[key] = arguments.keyword_nodes.get(key)
    self._check_items(len(receiver))
    return None


def _dict_setdefault(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "dict.setdefault")
    key = values[0]
    if key.__class__ is not str:
        self._charge_deep(key)
    if key in receiver:
        return receiver[key]
    self._ensure_mutable(receiver)
    receiver[key] = values[1] if len(values) > 1 else None
    self._dict_table(receiver)[key] = arguments.positional_nodes[0]
    self._check_items(len(receiver))
    return receiver[key]


def _dict_pop(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "dict.pop")
    self._ensure_mutable(receiver)
    result = receiver.pop(*values)
    table = self._table_of(receiver)
    if table is not None:
        table.pop(values[0], None)
    return result


def _list_append(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    (value,) = _positional(arguments, 1, 1, "list.append")
    self._ensure_mutable(receiver)
    self._check_items(len(receiver) + 1)
    table = self._list_table(receiver)
    receiver.append(value)
    table.append(arguments.positional_nodes[0])


def _list_extend_method(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    (iterable,) = _positional(arguments, 1, 1, "list.extend")
    self._list_extend(receiver, iterable, node)


def _list_insert(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    position, value = _positional(arguments, 2, 2, "list.insert")
    if position.__class__ not in (int, bool):
        raise TypeError("list.insert: index must be an integer")
    self._ensure_mutable(receiver)
    self._check_items(len(receiver) + 1)
    table = self._list_table(receiver)
    receiver.insert(position, value)
    table.insert(position, arguments.positional_nodes[1])


def _list_pop(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 0, 1, "list.pop")
    self._ensure_mutable(receiver)
    position = values[0] if values else -1
    table = self._list_table(receiver)
    result = receiver.pop(position)
    table.pop(position)
    return result


def _list_remove(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    (value,) = _positional(arguments, 1, 1, "list.remove")
    self._ensure_mutable(receiver)
    self._charge_deep(receiver, value)
    position = receiver.index(value)
    del receiver[position]
    del self._list_table(receiver)[position]


def _sequence_search(name: str) -> Callable:
    def call(self: ModuleEvaluator, receiver: Any, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 1, 3 if name == "index" else 1, f"{_type_name(receiver)}.{name}")
        self._charge_deep(receiver, values[0])
        return getattr(receiver, name)(*values)

    return call


_STR_METHODS: Dict[str, Callable] = {
    "join": _str_join,
    "format": _str_format_method,
    "replace": _str_replace,
}
for _name in (
    "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit", "startswith", "endswith",
    "title", "capitalize", "count", "find",
):
    _STR_METHODS[_name] = _str_plain_method(_name)

_METHODS: Dict[type, Dict[str, Callable]] = {
    str: _STR_METHODS,
    dict: {
        "get": _dict_get,
        "keys": _dict_view("keys"),
        "values": _dict_view("values"),
        "items": _dict_view("items"),
        "copy": _any_copy,
        "update": _dict_update,
        "setdefault": _dict_setdefault,
        "pop": _dict_pop,
    },
    list: {
        "copy": _any_copy,
        "index": _sequence_search("index"),
        "count": _sequence_search("count"),
        "append": _list_append,
        "extend": _list_extend_method,
        "insert": _list_insert,
        "pop": _list_pop,
        "remove": _list_remove,
    },
    tuple: {"index": _sequence_search("index"), "count": _sequence_search("count")},
    set: {"copy": _any_copy},
}

