"""Module-level values built by a sequence of statements, applied in order.

Tables are often written as a literal and then completed by the statements after it::

    TOOL_SCHEMAS = [{"name": "a", ...}]
    TOOL_SCHEMAS += [{"name": "b", ...}]
    TOOL_SCHEMAS.extend(MORE_SCHEMAS)
    HANDLERS = {"a": ...}
    HANDLERS.update(OTHER_HANDLERS)
    del HANDLERS["debug"]

Each such statement is a *step*: directly in the module body (never under ``if``/``try``/``for``
or in a class body), applied to the module name itself: ``X op= value``, ``X.method(...)`` with
a method that changes its object (``append``, ``extend``, ``insert``, ``update``, ``pop``,
``remove``, ``setdefault``, ...), ``X[key] = value`` and ``del X[key]``. The name's value is the
one import leaves behind: its assigned value with every step applied in source order, each step
evaluated at its own place in the module. That is exact only when nothing else can change the
object, so a name is built this way only when

- it is assigned once, directly in the module body, to a value that expression creates (a
  literal, a comprehension, ``dict(...)``...: not another name's object, which the steps would
  change too), by an assignment that binds no other name (``X = Y = []``);
- every other binding and every change of it is a step after that assignment.

Anything else that changes it (a step inside a branch or a function run at import, a change of a
part of it such as ``X["k"].append(v)``, a change through an alias or a loop variable) keeps the
name unknown, never its first value (``module_index``). A module statement that reads the name
before its last step is refused rather than given a half-built value.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Optional, Tuple

from .state import _EvaluatorState
from .syntax import MUTATING_METHODS, Positioned, _end, _start
from .values import _Refusal



def step_change(stmt: Any) -> Optional[Tuple[str, Positioned]]:
    """``(name, node)`` when module-body statement ``stmt`` is a step of module name ``name``;
    ``node`` is where the binding index records the change (the statement, or the method call)."""
    cls = stmt.__class__
    if cls is ast.Expr:
        call = stmt.value
        if call.__class__ is ast.Call and call.func.__class__ is ast.Attribute:
            receiver = call.func.value
            if receiver.__class__ is ast.Name and call.func.attr in MUTATING_METHODS:
                return receiver.id, call
        return None
    if cls is ast.AugAssign:
        return (stmt.target.id, stmt) if stmt.target.__class__ is ast.Name else None
    if cls is ast.Assign or cls is ast.Delete:
        targets = stmt.targets
        if len(targets) != 1:
            return None
        target = targets[0]
        if (
            target.__class__ is ast.Subscript
            and target.value.__class__ is ast.Name
            and target.slice.__class__ is not ast.Slice
        ):
            return target.value.id, stmt
    return None


def step_candidates(body: List[ast.stmt]) -> Dict[str, List[Tuple[ast.stmt, Positioned]]]:
    """The statements of a module body shaped like steps, by the name they change."""
    candidates: Dict[str, List[Tuple[ast.stmt, Positioned]]] = {}
    for stmt in body:
        found = step_change(stmt)
        if found is not None:
            candidates.setdefault(found[0], []).append((stmt, found[1]))
    return candidates


def building_steps(
    candidates: Dict[str, List[Tuple[ast.stmt, Positioned]]],
    bindings: Dict[str, List[Any]],
    mutations: Dict[str, List[Positioned]],
    is_fresh: Callable[[ast.expr, dict], bool],
) -> Dict[str, Tuple[ast.stmt, ...]]:
    """The names the module builds by steps (see the module docstring), with their steps, from
    the binding index's ``bindings`` and ``mutations``."""
    steps: Dict[str, Tuple[ast.stmt, ...]] = {}
    for name, found in candidates.items():
        named = bindings.get(name, ())
        first = named[0] if named else None
        if (
            first is None
            or first.kind not in ("assign", "annassign")
            or first.value is None
            or not first.top_level
            or first.aliases not in ((), (name,))
            or not is_fresh(first.value, {})
        ):
            continue
        statements = {id(stmt) for stmt, _ in found}
        changes = {id(node) for _, node in found}
        if (
            all(b.kind == "augassign" and id(b.node) in statements for b in named[1:])
            and all(id(node) in changes for node in mutations.get(name, ()))
            and all(_start(stmt) > _end(first.node) for stmt, _ in found)
        ):
            steps[name] = tuple(stmt for stmt, _ in found)
    return steps


class _BuiltValues(_EvaluatorState):
    """Values of module names built by steps (a mixin of ModuleEvaluator)."""

    def _apply_step(self, value: Any, step: Any) -> Any:
        """``value`` once ``step`` (see ``step_change``) has run on it."""
        cls = step.__class__
        if cls is ast.AugAssign:
            return self._in_place(step.op, value, self._eval(step.value), step.value)
        if cls is ast.Expr:
            call = step.value
            arguments = self._arguments(call)
            self._refuse_hole_arguments(arguments, call)
            self._call_method(value, call.func.attr, arguments, call)
            return value
        target = step.targets[0]
        key = self._value(target.slice)
        if cls is ast.Assign:
            self._set_item(value, key, self._partial(step.value), target.slice, step.value)
            return value
        self._delete_item(value, key)
        return value

    def _delete_item(self, container: Any, key: Any) -> None:
        self._ensure_mutable(container)
        if container.__class__ is dict:
            if key.__class__ is not str:
                self._charge_deep(key)
            del container[key]
            table = self._table_of(container)
            if table is not None:
                table.pop(key, None)
        elif container.__class__ is list:
            del container[key]
            del self._list_table(container)[key]
        else:
            raise _Refusal(f"item deletion on a {container.__class__.__name__}")
