"""Budget and size checks: every evaluation stays bounded in time and memory."""

from __future__ import annotations

import ast
from typing import Any, Optional

from ..model import Hole
from .limits import (
    _TRANSIENT_TEXT_CAP,
    ITEMS_PER_STEP,
    MAX_INT_BITS,
    MAX_ITEMS,
    MAX_RESULT_CHARS,
    MAX_RESULT_ITEMS,
    MAX_STR_CHARS,
)
from .state import _EvaluatorState
from .values import (
    _AsyncFunctionRef,
    _NUMBER_TYPES,
    _PLAIN_CONTAINERS,
    _SCALAR_TYPES,
    _budget,
    _FunctionRef,
    _Instance,
    _Refusal,
    _type_name,
)


# What a value may hold besides plain data when its caller asks for objects.
_OBJECTS = (_FunctionRef, _AsyncFunctionRef, _Instance)


class _Bounds(_EvaluatorState):
    """Step budget, size caps and result checks (a mixin of ModuleEvaluator)."""

    def _tick(self, steps: int = 1) -> None:
        self._steps += steps
        if self._steps > self._step_budget:
            raise _budget()

    def _check_items(self, count: int) -> None:
        if count > MAX_ITEMS:
            raise _budget()

    def _check_text(self, length: int) -> None:
        if length > MAX_STR_CHARS:
            raise _budget()

    def _check_int(self, value: Any) -> Any:
        if value.__class__ is int and value.bit_length() > MAX_INT_BITS:
            raise _budget()
        return value

    def _charge_deep(self, *values: Any) -> None:
        """Pay for C code that walks container contents (==, in, sorting, hashing tuples)."""
        visited = 0
        limit = (self._step_budget - self._steps + 1) * ITEMS_PER_STEP
        stack = [v for v in values if v.__class__ not in _SCALAR_TYPES]
        while stack:
            obj = stack.pop()
            cls = obj.__class__
            if cls is dict:
                visited += len(obj)
                stack.extend(v for v in obj.values() if v.__class__ not in _SCALAR_TYPES)
            elif cls in _PLAIN_CONTAINERS:
                visited += len(obj)
                stack.extend(v for v in obj if v.__class__ not in _SCALAR_TYPES)
            else:
                visited += 1
            if visited > limit:
                raise _budget()
        self._tick(visited // ITEMS_PER_STEP)

    def _text_bound(self, value: Any) -> int:
        """An upper bound of len(repr(value)), refusing values whose text is not reproducible."""
        total = visited = 0
        limit = (self._step_budget - self._steps + 1) * ITEMS_PER_STEP
        stack = [value]
        while stack:
            obj = stack.pop()
            cls = obj.__class__
            visited += 1
            if cls is str:
                total += 10 * len(obj) + 2  # repr escapes a character to at most \U0010ffff
            elif cls is int:
                total += obj.bit_length() // 3 + 2
            elif cls in _SCALAR_TYPES:
                total += 32
            elif cls is dict:
                total += 2 + 4 * len(obj)
                stack.extend(obj.keys())
                stack.extend(obj.values())
            elif cls in _PLAIN_CONTAINERS:
                if cls in (set, frozenset):
                    self._require_stable_order(obj)
                total += 12 + 2 * len(obj)
                stack.extend(obj)
            else:
                raise _Refusal(f"text of a {_type_name(obj)}")
            if total > _TRANSIENT_TEXT_CAP or visited > limit:
                raise _budget()
        self._tick(visited // ITEMS_PER_STEP)
        return total

    def _require_stable_order(self, values: Any, node: Optional[ast.AST] = None) -> None:
        """Sets of numbers iterate in the same order in every run; sets of strings do not."""
        if len(values) > 1 and not all(v.__class__ in _NUMBER_TYPES for v in values):
            raise _Refusal("iteration order of a set of strings varies between runs", node)

    def _ensure_plain(self, value: Any, objects: bool = False) -> Optional[Hole]:
        """Results are plain data of bounded size, even counted through shared references;
        with ``objects``, functions and objects may be among them (never looked into).

        Returns the first hole inside ``value`` (None when it has none)."""
        cls = value.__class__
        if cls in _SCALAR_TYPES:
            if cls is str and len(value) > MAX_STR_CHARS:
                raise _budget()
            return None
        if cls is Hole:
            return value
        checked = self._plain_checked.get(id(value))
        if checked is not None and checked[0] is value and not objects:
            return checked[1]
        first_hole = None
        with_functions = False
        items = chars = 0
        stack = [value]
        while stack:
            obj = stack.pop()
            cls = obj.__class__
            if cls is str:
                chars += len(obj)
            elif cls in _SCALAR_TYPES:
                pass
            elif cls is dict:
                items += len(obj)
                stack.extend(obj.keys())
                stack.extend(obj.values())
            elif cls in _PLAIN_CONTAINERS:
                items += len(obj)
                stack.extend(obj)
            elif cls is Hole:
                if first_hole is None:
                    first_hole = obj
            elif objects and obj.__class__ in _OBJECTS:
                pass
            elif isinstance(obj, (_FunctionRef, _AsyncFunctionRef)):
                if not self._functions_allowed:
                    raise _Refusal(f"function {obj.name} used as a value")
                with_functions = True
            else:
                raise _Refusal(f"{_type_name(obj)} is not a plain value")
            if items > MAX_RESULT_ITEMS or chars > MAX_RESULT_CHARS:
                raise _budget()
        if not objects and not with_functions:  # a value with functions is plain only where they are allowed
            self._plain_checked[id(value)] = (value, first_hole)
        return first_hole

