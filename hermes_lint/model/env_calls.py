"""The environment interpreter's calls of module functions, remembered across the runs of one
module (``EnvAnalysis``): a handler is run once with nothing unset and once per variable it
reads, and the helpers it calls mostly read none of them.

A call's result depends on the function, its depth, its arguments' abstract values and on the
unset variable only if the call reads it: an entry made with ``e`` unset serves a run with ``u``
unset when ``u == e`` or when the call read neither. A replay gives what the call would do
again: its result (or its certain raise), its steps towards ``MAX_STEPS`` and the variables it
read, in order; if the steps would cross the budget, the reads made before that point and the
give-up. Arguments that are not plain values (``_freeze``) are never remembered.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Hashable, List, NamedTuple, Optional, Tuple

from hermes_lint.model import Location


class CallEntry(NamedTuple):
    unset: Optional[str]
    read: FrozenSet[str]
    # Each variable the call read first, where, and after how many of its own steps.
    reads: Tuple[Tuple[str, Location, int], ...]
    steps: int
    raises: bool
    value: Any

    def serves(self, unset: Optional[str]) -> bool:
        return unset == self.unset or (unset not in self.read and self.unset not in self.read)


class CallMemo:
    """Remembered calls: key (``key``) -> the entries made under different unset variables."""

    def __init__(self) -> None:
        self._entries: Dict[Hashable, List[CallEntry]] = {}

    def find(self, key: Hashable, unset: Optional[str]) -> Optional[CallEntry]:
        for entry in self._entries.get(key, ()):
            if entry.serves(unset):
                return entry
        return None

    def add(self, key: Hashable, entry: CallEntry) -> None:
        self._entries.setdefault(key, []).append(entry)


def call_key(fn: Any, args: List[Any], kwargs: Dict[str, Any], depth: int) -> Optional[Hashable]:
    """The memo key of a call, or None when an argument is not a plain value."""
    try:
        return (id(fn), depth, tuple(_freeze(a) for a in args), tuple(sorted((k, _freeze(v)) for k, v in kwargs.items())))
    except _Unfrozen:
        return None


class _Unfrozen(Exception):
    pass


def _freeze(value: Any) -> Hashable:
    """``value`` with its type at every level (``1``, ``True`` and ``1.0`` are equal, not alike);
    the interpreter's markers by identity."""
    kind = type(value)
    if kind in (str, int, float, bool, type(None)):
        return (kind, value)
    if kind is tuple or kind is list:
        return (kind, tuple(_freeze(item) for item in value))
    if kind is dict:
        return (kind, tuple((_freeze(k), _freeze(v)) for k, v in value.items()))
    if kind.__name__ == "_Marker":
        return (kind, id(value))
    raise _Unfrozen()
