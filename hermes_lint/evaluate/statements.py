"""Statements of module-function bodies, and the rule that only values built here may change."""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Sequence

from ..model import Hole
from .state import _EvaluatorState
from .syntax import _STATEMENT_WORDS
from .values import (
    _BREAK,
    _CONTINUE,
    _PLAIN_CONTAINERS,
    _SCALAR_TYPES,
    _AsyncFunctionRef,
    _FunctionRef,
    _Instance,
    _Refusal,
    _Returned,
    _type_name,
)


class _Statements(_EvaluatorState):
    """Statement handlers (a mixin of ModuleEvaluator)."""

    def _execute(self, statements: List[ast.stmt]) -> Any:
        for position, stmt in enumerate(statements):
            self._tick()
            handler = _STATEMENTS.get(stmt.__class__)
            if handler is None:
                what = _STATEMENT_WORDS.get(stmt.__class__, stmt.__class__.__name__)
                raise _Refusal(f"unsupported statement: {what}", stmt)
            try:
                if stmt.__class__ is ast.If:  # may need the statements after it (see _split)
                    outcome = self._exec_if(stmt, statements[position + 1:])
                else:
                    outcome = handler(self, stmt)
            except Exception as error:
                raise self._as_refusal(error, stmt) from None
            if outcome is not None:
                return outcome
        return None

    def _exec_expr(self, stmt: ast.Expr) -> None:
        if stmt.value.__class__ is ast.Constant:  # docstrings and `...` do nothing
            return
        if self._is_logging_call(stmt.value):
            return  # changes no value, and logging reports its own errors rather than raising
        if stmt.value.__class__ is ast.Call and self._dropped_change(stmt):
            return  # a change of shared module state nothing here reads (``function_values``)
        self._eval(stmt.value)

    def _exec_pass(self, stmt) -> None:
        return None

    def _exec_break(self, stmt):
        return _BREAK

    def _exec_continue(self, stmt):
        return _CONTINUE

    def _exec_return(self, stmt: ast.Return) -> _Returned:
        return _Returned(None if stmt.value is None else self._value(stmt.value))

    def _exec_assign(self, stmt: ast.Assign) -> None:
        if stmt.targets[0].__class__ is ast.Subscript and self._dropped_change(stmt):
            return  # a change of shared module state nothing here reads (``function_values``)
        value = self._assigned_value(stmt.value)
        for target in stmt.targets:
            self._store(target, value, stmt.value)

    def _exec_ann_assign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self._store(stmt.target, self._assigned_value(stmt.value), stmt.value)

    def _exec_aug_assign(self, stmt: ast.AugAssign) -> None:
        target = stmt.target
        if target.__class__ is ast.Name:
            current = self._lookup(target.id, target)
            result = self._in_place(stmt.op, current, self._eval(stmt.value), stmt.value)
            frame = self._frame
            assert frame is not None  # statements run only inside a call of a module function
            frame.values[target.id] = result
        elif target.__class__ is ast.Subscript and target.slice.__class__ is not ast.Slice:
            container = self._eval(target.value)
            key = self._value(target.slice)
            result = self._in_place(stmt.op, container[key], self._eval(stmt.value), stmt.value)
            self._set_item(container, key, result, target.slice, stmt.value)
        else:
            raise _Refusal(f"augmented assignment to {target.__class__.__name__.lower()}", target)

    def _in_place(self, op, current, operand, operand_node) -> Any:
        """``x += y`` changes a list/dict/set in place (aliases see it); else it rebinds."""
        cls = current.__class__
        if cls is list and op.__class__ is ast.Add:
            self._list_extend(current, operand, operand_node)
            return current
        if cls is dict and op.__class__ is ast.BitOr:
            self._ensure_mutable(current)
            self._merge(current, self._dict_table(current), operand, operand_node)
            return current
        if cls is set and op.__class__ in (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor):
            self._ensure_mutable(current)
            result = self._binary(op, current, operand)
            current.clear()
            current.update(result)
            return current
        return self._binary(op, current, operand)

    def _exec_if(self, stmt: ast.If, rest: Sequence[ast.stmt] = ()) -> Any:
        test = self._eval(stmt.test)
        if test.__class__ is Hole:  # decided by the environment at load: both ways, as a template
            return self._split(test, stmt, rest)
        return self._execute(stmt.body if self._truth(test) else stmt.orelse)

    def _exec_for(self, stmt: ast.For) -> Any:
        iterable = self._iterable(self._eval(stmt.iter), stmt.iter)
        for item in iterable:
            self._tick()
            self._store(stmt.target, item, None)
            outcome = self._execute(stmt.body)
            if outcome is _BREAK:
                return None
            if outcome is _CONTINUE:
                continue
            if outcome is not None:
                return outcome
        return self._execute(stmt.orelse)

    def _exec_try(self, stmt: ast.Try) -> Any:
        """``try``: known only when its body certainly raises nothing.

        The evaluator computes supported operations exactly, so a body it evaluates to the end
        raises nothing in Python either: then ``else`` and ``finally`` run, and the handlers never
        do. A body it cannot evaluate (an I/O call, a raise) may or may not reach a handler, so the
        statement is refused with the body's own reason (never a guess at which handler runs).
        """
        outcome = self._execute(stmt.body)
        if outcome.__class__ is _Returned and outcome.value.__class__ is Hole:
            # computed at load from the environment, where it may raise: the handler is the fallback
            outcome = _Returned(self._template_try(outcome.value, stmt))
        if outcome is None:
            outcome = self._execute(stmt.orelse)
        final = self._execute(stmt.finalbody)
        return final if final is not None else outcome

    def _exec_assert(self, stmt: ast.Assert) -> None:
        if not self._truth(self._eval(stmt.test)):
            raise _Refusal("assertion fails", stmt)

    def _store(self, target: ast.AST, value: Any, value_node) -> None:
        if target.__class__ is ast.Name:
            frame = self._frame
            assert frame is not None  # statements run only inside a call of a module function
            frame.values[target.id] = value
        elif target.__class__ is ast.Subscript:
            self._store_subscript(target, value, value_node)
        elif target.__class__ is ast.Tuple or target.__class__ is ast.List:
            frame = self._frame
            assert frame is not None
            self._assign_target(target, value, frame.values)
        elif target.__class__ is ast.Attribute:
            self._set_function_attribute(target, value)
        else:
            raise _Refusal(f"assignment to {target.__class__.__name__.lower()}", target)

    def _store_subscript(self, target: ast.Subscript, value: Any, value_node) -> None:
        if self._frame is None or self._frame.opaque:
            raise _Refusal("item assignment outside a function", target)
        if target.slice.__class__ is ast.Slice:
            raise _Refusal("slice assignment", target)
        container = self._eval(target.value)
        key = self._value(target.slice)
        self._set_item(container, key, value, target.slice, value_node)

    def _set_item(self, container, key, value, key_node, value_node) -> None:
        self._ensure_mutable(container)
        if container.__class__ is dict:
            if key.__class__ is not str:
                self._charge_deep(key)
            container[key] = value
            self._dict_table(container)[key] = key_node
            self._check_items(len(container))
        elif container.__class__ is list:
            container[key] = value
            table = self._list_table(container)
            table[key] = value_node
        else:
            raise _Refusal(f"item assignment on a {_type_name(container)}")

    def _ensure_mutable(self, obj: Any) -> None:
        """Only values this evaluation built may change: never a module constant's (Python would
        change the constant itself), never a default value (shared by every call)."""
        owner = self._shared_ids().get(id(obj))
        if owner is not None:
            raise _Refusal(f"mutates the value of {owner}")

    def _shared_ids(self) -> Dict[int, str]:
        with_functions = self._function_constants.get(self._partial_mode, {})
        version = (self._partial_mode, len(self._constants), len(self._defaults), len(self._bound_values), len(with_functions))
        cached_version, shared = self._shared
        if cached_version == version:
            return shared
        shared = {}
        sources = [(f"module constant {name}", entry[1]) for name, entry in self._constants.items() if entry[0]]
        sources += [(f"module constant {name}", entry[1]) for name, entry in with_functions.items() if entry[0]]
        sources += [(f"a default value of {key[0].name}", entry[1]) for key, entry in self._defaults.items() if entry[0]]
        sources += [("a row of a table", value) for value in self._bound_values.values()]
        for owner, value in sources:
            stack = [value]
            while stack:
                obj = stack.pop()
                cls = obj.__class__
                if cls in _SCALAR_TYPES or id(obj) in shared:
                    continue
                if cls is dict:
                    shared[id(obj)] = owner
                    stack.extend(obj.values())
                elif cls in _PLAIN_CONTAINERS:
                    shared[id(obj)] = owner
                    stack.extend(obj)
                elif cls is _Instance:  # what its attributes hold is shared with it
                    stack.extend(obj.attrs.values())
                elif cls is _FunctionRef and obj.attrs:  # its attributes are shared with it
                    shared[id(obj)] = owner
                    stack.extend(obj.attrs.values())
                    if obj.closure is not None:
                        frame = obj.closure
                        while frame is not None:
                            stack.extend(frame.values.values())
                            frame = frame.parent
                        stack.extend((obj.defaults or {}).values())
                elif (cls is _FunctionRef or cls is _AsyncFunctionRef) and obj.closure is not None:
                    # what a closure sees (and its defaults) is shared by every call of it
                    shared[id(obj)] = owner
                    frame = obj.closure
                    while frame is not None:
                        stack.extend(frame.values.values())
                        frame = frame.parent
                    stack.extend((getattr(obj, "defaults", None) or {}).values())
        self._shared = (version, shared)
        return shared

    def _list_extend(self, target: list, iterable: Any, node) -> None:
        self._ensure_mutable(target)
        items = self._materialize(iterable, node)
        self._check_items(len(target) + len(items))
        table = self._list_table(target)
        target.extend(items)
        table.extend(self._items_table(iterable, len(items)))


_STATEMENTS: Dict[type, Callable] = {
    ast.Expr: _Statements._exec_expr,
    ast.Pass: _Statements._exec_pass,
    ast.Break: _Statements._exec_break,
    ast.Continue: _Statements._exec_continue,
    ast.Return: _Statements._exec_return,
    ast.Assign: _Statements._exec_assign,
    ast.AnnAssign: _Statements._exec_ann_assign,
    ast.AugAssign: _Statements._exec_aug_assign,
    ast.If: _Statements._exec_if,
    ast.For: _Statements._exec_for,
    ast.Assert: _Statements._exec_assert,
    ast.FunctionDef: lambda self, stmt: self._exec_def(stmt),
    ast.AsyncFunctionDef: lambda self, stmt: self._exec_def(stmt),
    ast.Try: _Statements._exec_try,
    ast.Import: lambda self, stmt: self._exec_import(stmt),
    ast.ImportFrom: lambda self, stmt: self._exec_import(stmt),
}

