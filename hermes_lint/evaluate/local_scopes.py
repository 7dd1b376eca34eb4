"""Function bodies as scopes: nested functions, and values at a point of a function's body.

A ``def`` (or ``async def``) that a function body runs binds a function value, as in Python: its
node, the frame of the call that ran it as its closure (names it does not bind itself are looked
up there when it is called, so it sees the values they have then) and its defaults, computed when
the def runs. Such a value can be returned, stored in a table and called later; where
``evaluate(objects=True)`` gives rows that name functions, ``own_function`` says which def of
the module a value is, by its qualified name (``make.<locals>.handle``, Python's
``__qualname__``).

``evaluate_in_body`` gives the value of an expression of a module function at one of its
statements, run from the function's start with its parameters unknown: what a plugin's
``register(ctx)`` loops over after building a table in its locals. Parameters and values the body
cannot compute are holes, so that a part nobody reads (a value stored under a key that is popped
before the loop) does not make the rest unknown; a hole that reaches the result makes it
unknown. A local is bound to a hole only when the code that computes it can have reached no value
the evaluation holds that could change (a container, a closure): else its effects are unknown too
and the statement is refused.
"""

from __future__ import annotations

import ast
import bisect
from typing import Any, Collection, Dict, List, Optional, Tuple, Union

from ..model import Hole, Unresolved
from .limits import BUDGET_EXCEEDED
from .state import _EvaluatorState
from ..model.context import child_statements
from .syntax import FunctionNode, _end, _start
from .values import _SCALAR_TYPES, _AsyncFunctionRef, _BuiltinRef, _Frame, _FunctionRef, _Instance, _Refusal

_QUALIFIER = ".<locals>."


class _LocalScopes(_EvaluatorState):
    """Nested functions and function-body evaluation (a mixin of ModuleEvaluator)."""

    def own_function(self, value: Any) -> Optional[str]:
        """The qualified name of this module's function ``value`` is (a value that
        ``evaluate(..., objects=True)`` gave): its module-level name, or for a nested function
        ``outer.<locals>.inner``; None for anything else (another module's function...)."""
        cls = value.__class__
        if cls is not _FunctionRef and cls is not _AsyncFunctionRef:
            return None
        if value.closure is not None:
            if value.owner is not self:
                return None
            names = [value.name]
            frame: Optional[_Frame] = value.closure
            while frame is not None:
                if frame.owner is None or frame.opaque:
                    return None
                names.append(frame.owner)
                frame = frame.parent
            outer = self._classify(names[-1])
            if outer[0] not in ("function", "async function"):
                return None
            return _QUALIFIER.join(reversed(names))
        if cls is _FunctionRef and value.owner is not None and value.owner is not self:
            return None
        kind = self._classify(value.name)
        kinds = ("async function",) if cls is _AsyncFunctionRef else ("function", "async function")
        return value.name if kind[0] in kinds and kind[1].node is value.node else None

    def _context_of(self, node: ast.expr) -> Tuple[Optional[Tuple[int, int]], Optional[_Frame]]:
        """When ``node`` runs: at its place in the module, or (inside a function body) after
        import, with the function's own variables unknown."""
        if not hasattr(node, "lineno"):
            return None, None
        position = _start(node)
        parent: Union[ast.Module, ast.stmt] = self._tree
        frame = None
        deferred = False
        while True:
            statements, starts = self._statements_of(parent)
            at = bisect.bisect_right(starts, position) - 1
            if at < 0 or _end(statements[at]) < position:
                break
            stmt = statements[at]
            if stmt.__class__ is ast.FunctionDef or stmt.__class__ is ast.AsyncFunctionDef:
                if position < _start(stmt.body[0]):
                    break  # decorators and defaults run when the def does
                deferred = True
                frame = _Frame(stmt.name, self._function_info(stmt).local_names, {}, frame, opaque=True)
            parent = stmt
        return (None if deferred else position), frame

    def _statements_of(self, parent: Union[ast.Module, ast.stmt]) -> Tuple[List[ast.stmt], List[Tuple[int, int]]]:
        """The statements directly nested in ``parent``, in source order, with their starts."""
        cached = self._nested.get(parent)
        if cached is None:
            if parent.__class__ in (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                statements = list(parent.body)
            else:
                statements = sorted(child_statements(parent), key=_start)
            cached = self._nested[parent] = (statements, [_start(s) for s in statements])
        return cached

    def _exec_def(self, stmt: FunctionNode) -> None:
        """A nested ``def``/``async def`` binds a function whose closure is this call's frame
        (its defaults computed now, as Python does), then its decorators applied bottom-up
        (``function_values``); a decorated ``async def`` is not followed."""
        if stmt.decorator_list and stmt.__class__ is ast.AsyncFunctionDef:
            raise _Refusal(f"decorated nested function {stmt.name}", stmt.decorator_list[0])
        decorators = [self._value(decorator) for decorator in stmt.decorator_list]  # evaluated before the def
        frame = self._frame
        assert frame is not None  # statements run only inside a call of a module function
        spec = stmt.args
        defaults: Dict[Any, Any] = {}
        first = len(spec.posonlyargs) + len(spec.args) - len(spec.defaults)
        for position, default in enumerate(spec.defaults):
            defaults[first + position] = self._value(default)
        for position, keyword_default in enumerate(spec.kw_defaults):
            if keyword_default is not None:
                defaults[("kw", position)] = self._value(keyword_default)
        if stmt.__class__ is ast.AsyncFunctionDef:
            frame.values[stmt.name] = _AsyncFunctionRef(stmt.name, stmt, self, frame)
        else:
            value: Any = _FunctionRef(stmt.name, stmt, self, frame, defaults)
            for decorator, node in reversed(list(zip(decorators, stmt.decorator_list))):
                value = self._apply_decorator(decorator, value, node)
            frame.values[stmt.name] = value

    def evaluate_in_body(self, function: FunctionNode, before: ast.stmt, node: ast.expr,
                         skip: Collection[ast.stmt] = ()) -> Any:
        """The value of ``node`` (an expression of module function ``function``) where
        statement ``before`` of its body starts, running the statements before it (but those in
        ``skip``) with the parameters unknown; functions may be parts of it (as with
        ``evaluate(objects=True)``). Any unknown part makes it an ``Unresolved``."""
        def compute() -> Any:
            info = self._function_info(function)
            if info.problem is not None:
                what, where = info.problem
                raise _Refusal(f"{function.name} contains {what}", where)
            spec = function.args
            parameters = spec.posonlyargs + spec.args + spec.kwonlyargs + [a for a in (spec.vararg, spec.kwarg) if a]
            values = {p.arg: Hole(f"parameter {p.arg} of {function.name}", self._location(p)) for p in parameters}
            self._frame = _Frame(function.name, info.local_names, values)
            for stmt in function.body:
                if stmt is before:
                    break
                if stmt not in skip and self._execute([stmt]) is not None:
                    raise _Refusal(f"{function.name} returns before line {before.lineno}", stmt)
            else:
                raise _Refusal("statement not in the function body", before)
            return self._eval(node)

        former, self._functions_allowed, self._unknown_locals = self._functions_allowed, True, True
        try:
            value = self._run(compute, node, None, None, True, objects=True)
        finally:
            self._functions_allowed, self._unknown_locals = former, False
        if value.__class__ is Unresolved:
            return value
        hole = _first_hole(value)
        return value if hole is None else Unresolved(hole.reason, hole.location)

    def _assigned_value(self, expression: ast.expr) -> Any:
        """The value an assignment binds: with unknown locals allowed (``evaluate_in_body``), a
        hole where it cannot be computed and nothing it reaches could have been changed."""
        if not self._unknown_locals:
            return self._value(expression)
        try:
            return self._value(expression)
        except _Refusal as refusal:
            if refusal.reason == BUDGET_EXCEEDED or refusal.raises or not self._reaches_nothing_mutable(expression):
                raise
            return self._hole_of(refusal, expression)

    def _reaches_nothing_mutable(self, expression: ast.expr) -> bool:
        """Whether every name ``expression`` reads is a local holding an unchangeable value, or
        a module-level function, class, import or builtin (a module constant may be changed)."""
        for child in ast.walk(expression):
            if child.__class__ is not ast.Name:
                continue
            name = child.id
            if self._is_local(name):
                try:
                    value = self._lookup(name, child)
                except _Refusal:
                    return False
                if not _unchangeable(value):
                    return False
            elif self._classify(name)[0] not in ("function", "async function", "class", "import", "builtin"):
                return False
        return True


def _first_hole(value: Any) -> Optional[Hole]:
    """The first hole in ``value``, looking into containers and objects' attributes (not into
    what a function's closure holds: only calling it would read that)."""
    stack = [value]
    while stack:
        obj = stack.pop()
        cls = obj.__class__
        if cls is Hole:
            return obj
        if cls is dict:
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif cls in (list, tuple, set, frozenset):
            stack.extend(obj)
        elif cls is _Instance:
            stack.extend(obj.attrs.values())
    return None


def _unchangeable(value: Any) -> bool:
    cls = value.__class__
    if cls in _SCALAR_TYPES or cls is Hole or cls is _BuiltinRef:
        return True
    if cls is _FunctionRef:
        return value.closure is None
    return cls is tuple and all(_unchangeable(item) for item in value)
