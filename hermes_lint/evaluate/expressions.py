"""Expressions: literals, names, subscripts, comparisons, comprehensions, iteration."""

from __future__ import annotations

import ast
from typing import Any, Dict, Iterator, List, Set, Tuple, Union, cast

from ..model import Hole
from .limits import ITEMS_PER_STEP, MAX_ITEMS
from .state import _EvaluatorState
from .syntax import _target_names
from .values import (
    _ITERABLE_TYPES,
    _NUMBER_TYPES,
    _VIEW_TYPES,
    _budget,
    _Frame,
    _Instance,
    _Refusal,
    _type_name,
)


class _Expressions(_EvaluatorState):
    """Expression handlers (a mixin of ModuleEvaluator)."""

    def _eval_constant(self, node: ast.Constant) -> Any:
        return node.value

    def _eval_name(self, node: ast.Name) -> Any:
        return self._lookup(node.id, node)

    def _eval_dict(self, node: ast.Dict) -> dict:
        result: dict = {}
        table: dict = {}
        for key_node, value_node in zip(node.keys, node.values):
            if key_node is None:  # {**other}
                self._merge(result, table, self._eval(value_node), value_node)
                continue
            key = key_node.value if key_node.__class__ is ast.Constant else self._eval(key_node)
            value = value_node.value if value_node.__class__ is ast.Constant else self._partial(value_node)
            if key.__class__ is not str:
                self._charge_deep(key)
            result[key] = value
            table[key] = key_node
        self._check_items(len(result))
        return self._remember(result, table)

    def _merge(self, result: dict, table: dict, mapping: Any, node) -> None:
        """``result.update(mapping)``, keys keeping the locations ``mapping`` had."""
        if mapping.__class__ is not dict:
            raise _Refusal(f"** unpacking of a {_type_name(mapping)}", node)
        self._tick(len(mapping) // ITEMS_PER_STEP)
        result.update(mapping)
        source = self._table_of(mapping)
        for key in mapping:
            where = source.get(key) if source is not None else None
            if where is None:
                table.pop(key, None)
            else:
                table[key] = where
        self._check_items(len(result))

    def _sequence(self, elts: List[ast.expr], ordered: bool = True) -> Tuple[list, list]:
        items: list = []
        table: list = []
        for element in elts:
            if element.__class__ is ast.Constant:
                items.append(element.value)
                table.append(element)
            elif element.__class__ is ast.Starred:
                source = self._eval(element.value)
                values = self._materialize(source, element.value, ordered)
                items.extend(values)
                table.extend(self._items_table(source, len(values)))
            else:
                items.append(self._partial(element))
                table.append(element)
        self._check_items(len(items))
        return items, table

    def _eval_list(self, node: ast.List) -> list:
        items, table = self._sequence(node.elts)
        return self._remember(items, table)

    def _eval_tuple(self, node: ast.Tuple) -> tuple:
        items, table = self._sequence(node.elts)
        return self._remember(tuple(items), table)

    def _eval_set(self, node: ast.Set) -> set:
        items, _ = self._sequence(node.elts, ordered=False)
        self._charge_deep(items)
        return set(items)

    def _eval_unary(self, node: ast.UnaryOp) -> Any:
        operand = self._eval(node.operand)
        op = node.op.__class__
        if op is ast.Not:
            if operand.__class__ is Hole and operand.template is not None:
                return Hole(operand.reason, operand.location, {"not": operand.template})
            return not self._truth(operand)
        if operand.__class__ not in _NUMBER_TYPES:
            raise TypeError(f"bad operand type for unary operator: '{_type_name(operand)}'")
        if op is ast.USub:
            return -operand
        if op is ast.UAdd:
            return +operand
        return ~cast(Any, operand)  # a float raises TypeError here, as in Python (a refusal)

    def _eval_bool_op(self, node: ast.BoolOp) -> Any:
        is_and = node.op.__class__ is ast.And
        value = None
        for position, operand in enumerate(node.values):
            value = self._eval(operand)
            if value.__class__ is Hole:  # `os.getenv("X") or "default"`: the runtime decides
                rest = [self._eval(later) for later in node.values[position + 1:]]
                return self._template_bool_op(is_and, [value] + rest)
            if self._truth(value) != is_and:
                return value
        return value

    def _eval_if_exp(self, node: ast.IfExp) -> Any:
        return self._eval(node.body if self._truth(self._eval(node.test)) else node.orelse)

    def _eval_compare(self, node: ast.Compare) -> Union[bool, Hole]:
        left = self._eval(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self._eval(right_node)
            outcome = self._compare(op, left, right)
            if outcome.__class__ is Hole:
                if len(node.ops) == 1:
                    return outcome
                raise self._refuse_hole(outcome)
            if not outcome:
                return False
            left = right
        return True

    def _compare(self, op: ast.cmpop, left: Any, right: Any) -> Union[bool, Hole]:
        if left.__class__ is Hole or right.__class__ is Hole:
            return self._template_compare(op, left, right)
        cls = op.__class__
        if cls is ast.Is or cls is ast.IsNot:
            # identity of strings and numbers is an interpreter detail: only None/True/False
            if not (left is None or right is None or left.__class__ is bool or right.__class__ is bool):
                raise _Refusal("identity comparison (is) of values other than None/True/False")
            return (left is right) == (cls is ast.Is)
        if cls is ast.In or cls is ast.NotIn:
            if not isinstance(right, (str, list, tuple, range, dict, set, frozenset) + _VIEW_TYPES):
                raise _Refusal(f"membership test in a {_type_name(right)}")
            self._charge_deep(left, right)
            return (left in right) == (cls is ast.In)
        self._charge_deep(left, right)
        if cls is ast.Eq:
            return left == right
        if cls is ast.NotEq:
            return left != right
        if cls is ast.Lt:
            return left < right
        if cls is ast.LtE:
            return left <= right
        if cls is ast.Gt:
            return left > right
        return left >= right

    def _truth(self, value: Any) -> bool:
        if value.__class__ is Hole:
            raise self._refuse_hole(value)
        # Every value here is a builtin type (or one of the refs, which have no __len__ and so are
        # true like Python's functions): bool() runs no analysed code.
        return bool(value)

    def _eval_subscript(self, node: ast.Subscript) -> Any:
        container = self._eval(node.value)
        index_node = node.slice
        if index_node.__class__ is ast.Slice:
            return self._slice(container, self._slice_of(index_node))
        index = self._value(index_node)
        cls = container.__class__
        if cls is dict:
            if index.__class__ is not str:
                self._charge_deep(index)
            return container[index]
        if cls in (list, tuple, str, range):
            return container[index]
        if cls is _Instance and container.is_tuple and index.__class__ in (int, bool):  # a NamedTuple's item
            return tuple(container.attrs.values())[index]
        raise _Refusal(f"subscript of a {_type_name(container)}")

    def _slice_of(self, node: ast.Slice) -> slice:
        parts = []
        for part in (node.lower, node.upper, node.step):
            value = None if part is None else self._value(part)
            if value is not None and value.__class__ not in (int, bool):
                raise TypeError("slice indices must be integers or None")
            parts.append(value)
        return slice(*parts)

    def _slice(self, container: Any, part: slice) -> Any:
        cls = container.__class__
        if cls not in (list, tuple, str, range):
            raise _Refusal(f"slice of a {_type_name(container)}")
        result = container[part]
        table = self._table_of(container)
        if table is not None:
            self._remember(result, table[part])
        return result

    def _eval_list_comp(self, node: Union[ast.ListComp, ast.GeneratorExp]) -> list:
        items: list = []
        table: list = []
        # `[t for t in TOOLS if ...]`: each item is the source item itself, keep its location
        passthrough = (
            len(node.generators) == 1
            and node.elt.__class__ is ast.Name
            and node.generators[0].target.__class__ is ast.Name
            and node.generators[0].target.id == node.elt.id
        )

        def emit(source_location):
            items.append(self._value(node.elt))
            table.append(source_location if passthrough and source_location is not None else node.elt)
            self._check_items(len(items))

        self._comprehension(node, emit, ordered=True)
        return self._remember(items, table)

    def _eval_generator(self, node: ast.GeneratorExp) -> Iterator:
        # Evaluated eagerly (nothing here has side effects); a one-shot iterator like Python's.
        return iter(self._eval_list_comp(node))

    def _eval_set_comp(self, node: ast.SetComp) -> set:
        items: set = set()

        def emit(_):
            element = self._value(node.elt)
            if element.__class__ is not str:
                self._charge_deep(element)
            items.add(element)
            self._check_items(len(items))

        self._comprehension(node, emit, ordered=False)
        return items

    def _eval_dict_comp(self, node: ast.DictComp) -> dict:
        result: dict = {}
        table: dict = {}

        def emit(_):
            key = self._value(node.key)
            value = self._value(node.value)
            if key.__class__ is not str:
                self._charge_deep(key)
            result[key] = value
            table[key] = node.key
            self._check_items(len(result))

        self._comprehension(node, emit, ordered=True)
        return self._remember(result, table)

    def _comprehension(self, node, emit, ordered: bool) -> None:
        generators = node.generators
        names: Set[str] = set()
        for generator in generators:
            if generator.is_async:
                raise _Refusal("unsupported expression: async comprehension", node)
            _target_names(generator.target, names)
        first = self._eval(generators[0].iter)  # the first iterable runs in the enclosing scope
        saved = self._frame
        frame = self._frame = _Frame(saved.owner if saved else None, names, {}, saved)
        try:
            self._comprehension_level(generators, 0, first, emit, ordered, frame.values)
        finally:
            self._frame = saved

    def _comprehension_level(self, generators, level, iterable, emit, ordered, values: Dict[str, Any]) -> None:
        """One ``for`` of a comprehension; ``values``: the comprehension's own variables."""
        generator = generators[level]
        last = level == len(generators) - 1
        for item, location in self._items_with_locations(iterable, generator.iter, ordered):
            self._tick()
            self._assign_target(generator.target, item, values)
            if all(self._truth(self._eval(condition)) for condition in generator.ifs):
                if last:
                    emit(location)
                else:
                    inner = generators[level + 1]
                    self._comprehension_level(generators, level + 1, self._eval(inner.iter), emit, ordered, values)

    def _items_with_locations(self, iterable, node, ordered) -> Iterator[Tuple[Any, Any]]:
        source = self._iterable(iterable, node, ordered)
        table = self._table_of(iterable) if iterable.__class__ in (list, tuple) else None
        if table is None:
            for item in source:
                yield item, None
        else:
            for position, item in enumerate(source):
                yield item, (table[position] if position < len(table) else None)

    def _iterable(self, value: Any, node, ordered: bool = True) -> Any:
        if not isinstance(value, _ITERABLE_TYPES):
            if value.__class__ is _Instance and value.is_tuple:  # a NamedTuple: its fields in order
                return tuple(value.attrs.values())
            raise _Refusal(f"iteration over a {_type_name(value)}", node)
        if ordered and value.__class__ in (set, frozenset):
            self._require_stable_order(value, node)
        return value

    def _materialize(self, value: Any, node, ordered: bool = True) -> list:
        source = self._iterable(value, node, ordered)
        if hasattr(source, "__len__"):
            self._check_items(len(source))
            self._tick(len(source) // ITEMS_PER_STEP)
            return list(source)
        items = []
        for item in source:  # lazy iterators: bounded by MAX_ITEMS as they are drained
            items.append(item)
            if len(items) > MAX_ITEMS:
                raise _budget(node)
        self._tick(len(items) // ITEMS_PER_STEP)
        return items

    def _assign_target(self, target: ast.AST, value: Any, scope: dict) -> None:
        """Bind a loop/comprehension target: a name or (nested) tuples of names."""
        if target.__class__ is ast.Name:
            scope[target.id] = value
        elif target.__class__ is ast.Tuple or target.__class__ is ast.List:
            if any(e.__class__ is ast.Starred for e in target.elts):
                raise _Refusal("starred assignment target", target)
            items = self._materialize(value, target)
            if len(items) != len(target.elts):
                raise ValueError(f"expected {len(target.elts)} values to unpack, got {len(items)}")
            for element, item in zip(target.elts, items):
                self._assign_target(element, item, scope)
        else:
            raise _Refusal(f"assignment to {target.__class__.__name__.lower()}", target)

