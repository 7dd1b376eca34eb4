"""Binary operators, with sizes checked before anything large is built."""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict

from ..model import Hole
from .limits import ITEMS_PER_STEP, MAX_INT_BITS
from .state import _EvaluatorState
from .values import _NUMBER_TYPES, _budget, _Refusal, _type_name


class _Operators(_EvaluatorState):
    """Binary operator handlers (a mixin of ModuleEvaluator)."""

    def _eval_bin_op(self, node: ast.BinOp) -> Any:
        return self._binary(node.op, self._eval(node.left), self._eval(node.right))

    def _binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        cls = op.__class__
        if left.__class__ is Hole or right.__class__ is Hole:
            if cls is ast.Add:
                return self._template_concat([left, right])
            raise self._refuse_hole(left if left.__class__ is Hole else right)
        handler = _BINARY.get(cls)
        if handler is None:
            raise _Refusal(f"unsupported operator {cls.__name__}")
        return handler(self, left, right)

    def _add(self, left, right):
        lt, rt = left.__class__, right.__class__
        if lt is Hole or rt is Hole:
            return self._template_concat([left, right])
        if lt is str and rt is str:
            self._check_text(len(left) + len(right))
            return left + right
        if (lt is list and rt is list) or (lt is tuple and rt is tuple):
            self._check_items(len(left) + len(right))
            self._tick((len(left) + len(right)) // ITEMS_PER_STEP)
            table = self._items_table(left, len(left)) + self._items_table(right, len(right))
            return self._remember(left + right, table)
        return self._arithmetic(left, right, "+", lambda a, b: a + b)

    def _arithmetic(self, left, right, symbol, operation):
        if left.__class__ in _NUMBER_TYPES and right.__class__ in _NUMBER_TYPES:
            return self._check_int(operation(left, right))
        raise TypeError(
            f"unsupported operand type(s) for {symbol}: '{_type_name(left)}' and '{_type_name(right)}'"
        )

    def _sub(self, left, right):
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            return left - right
        return self._arithmetic(left, right, "-", lambda a, b: a - b)

    def _mult(self, left, right):
        if left.__class__ in (int, bool) and right.__class__ in (str, list, tuple):
            left, right = right, left
        if left.__class__ in (str, list, tuple) and right.__class__ in (int, bool):
            count = max(int(right), 0)
            if left.__class__ is str:
                self._check_text(len(left) * count)
                return left * count
            self._check_items(len(left) * count)
            self._tick(len(left) * count // ITEMS_PER_STEP)
            return self._remember(left * count, self._items_table(left, len(left)) * count)
        if left.__class__ is int and right.__class__ is int:
            if left.bit_length() + right.bit_length() > MAX_INT_BITS + 1:
                raise _budget()
        return self._arithmetic(left, right, "*", lambda a, b: a * b)

    def _true_div(self, left, right):
        return self._arithmetic(left, right, "/", lambda a, b: a / b)

    def _floor_div(self, left, right):
        return self._arithmetic(left, right, "//", lambda a, b: a // b)

    def _mod(self, left, right):
        if left.__class__ is str:
            return self._percent_format(left, right)
        return self._arithmetic(left, right, "%", lambda a, b: a % b)

    def _pow(self, left, right):
        if left.__class__ in (int, bool) and right.__class__ in (int, bool) and right > 0:
            if max(int(left).bit_length(), 1) * right > MAX_INT_BITS:
                raise _budget()
        return self._arithmetic(left, right, "**", lambda a, b: a**b)

    def _bit_or(self, left, right):
        if left.__class__ is dict and right.__class__ is dict:
            result = dict(left)
            table = dict(self._table_of(left) or {})
            self._merge(result, table, right, None)
            return self._remember(result, table)
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            self._check_items(len(left) + len(right))
            return left | right
        return self._integer_op(left, right, "|", lambda a, b: a | b)

    def _bit_and(self, left, right):
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            return left & right
        return self._integer_op(left, right, "&", lambda a, b: a & b)

    def _bit_xor(self, left, right):
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            return left ^ right
        return self._integer_op(left, right, "^", lambda a, b: a ^ b)

    def _left_shift(self, left, right):
        if left.__class__ in (int, bool) and right.__class__ in (int, bool) and right > 0:
            if int(left).bit_length() + right > MAX_INT_BITS:
                raise _budget()
        return self._integer_op(left, right, "<<", lambda a, b: a << b)

    def _right_shift(self, left, right):
        return self._integer_op(left, right, ">>", lambda a, b: a >> b)

    def _integer_op(self, left, right, symbol, operation):
        if left.__class__ in (int, bool) and right.__class__ in (int, bool):
            return self._check_int(operation(left, right))
        raise TypeError(
            f"unsupported operand type(s) for {symbol}: '{_type_name(left)}' and '{_type_name(right)}'"
        )


_BINARY: Dict[type, Callable] = {
    ast.Add: _Operators._add,
    ast.Sub: _Operators._sub,
    ast.Mult: _Operators._mult,
    ast.Div: _Operators._true_div,
    ast.FloorDiv: _Operators._floor_div,
    ast.Mod: _Operators._mod,
    ast.Pow: _Operators._pow,
    ast.BitOr: _Operators._bit_or,
    ast.BitAnd: _Operators._bit_and,
    ast.BitXor: _Operators._bit_xor,
    ast.LShift: _Operators._left_shift,
    ast.RShift: _Operators._right_shift,
}

