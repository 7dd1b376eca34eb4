"""What the tests a path has passed prove, so that paths that cannot run are dropped.

``err = _guard(); if err: return err`` returns no None; past ``if x is None: return
tool_error(...)`` x is not None; ``_finish("b", f"failed: {e}")`` cannot take the ``None if
error is None else ...`` branch. Only ever removes paths (silence).
"""

from __future__ import annotations

import ast
from typing import FrozenSet, Iterator, Optional, Sequence, Tuple

from hermes_lint.analysis.functions import FunctionFacts
from hermes_lint.analysis.reachability import exits
from hermes_lint.model.scopes import FUNCTION_NODES, ancestors

NOT_NONE = ("truthy", "not None")
FALSY = ("falsy", "None")


def says(test: ast.AST, name: str, outcome: bool) -> Optional[str]:
    """What ``test`` evaluating to ``outcome`` proves about ``name`` (in NOT_NONE or FALSY), or None."""
    if isinstance(test, ast.Name):
        return None if test.id != name else "truthy" if outcome else "falsy"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return says(test.operand, name, not outcome)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, op = test.left, test.comparators[0], test.ops[0]
        if isinstance(left, ast.Constant):
            left, right = right, left  # ``None is x``
        if not (isinstance(left, ast.Name) and left.id == name
                and isinstance(right, ast.Constant) and right.value is None):
            return None
        if isinstance(op, (ast.Is, ast.Eq)):
            return "None" if outcome else "not None"
        if isinstance(op, (ast.IsNot, ast.NotEq)):
            return "not None" if outcome else "None"
        return None
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        # isinstance(x, str) / bool(x) / len(x) / callable(x) true: x is not None
        first = test.args[0] if test.args else None
        if (outcome and test.func.id in ("isinstance", "bool", "len", "callable")
                and isinstance(first, ast.Name) and first.id == name):
            return "not None"
        return None
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) == outcome:
        # ``a and b`` true: both are true; ``a or b`` false: both are false.
        return next((s for s in (says(v, name, outcome) for v in test.values) if s), None)
    return None


def _block_conditions(
    block: Sequence[ast.stmt], index: int
) -> Iterator[Tuple[ast.expr, bool, Sequence[ast.stmt]]]:
    """(test, outcome, since) known when ``block[index]`` runs (``index == len(block)``: its end):
    guards before it that leave otherwise (``if x is None: return ...``, elif chains), asserts.
    ``since``: the statements run after the test (a rebinding there undoes what it proved)."""
    for i, stmt in enumerate(block[:index]):
        since = block[i + 1: index + 1]
        if isinstance(stmt, ast.Assert):
            yield stmt.test, True, since
        elif isinstance(stmt, ast.If):
            if stmt.orelse and exits(stmt.orelse):
                yield stmt.test, True, since
            link = stmt
            while exits(link.body):
                yield link.test, False, since
                if len(link.orelse) != 1 or not isinstance(link.orelse[0], ast.If):
                    break
                link = link.orelse[0]


def _conditions(node: ast.AST, fn: FunctionFacts) -> Iterator[Tuple[ast.expr, bool, Sequence[ast.stmt]]]:
    """(test, outcome, since) known whenever ``node`` (in ``fn``'s own scope) runs."""
    child = node
    for parent in ancestors(node, fn.parents):
        if isinstance(parent, ast.IfExp) and child is not parent.test:
            yield parent.test, child is parent.body, ()
        elif isinstance(parent, (ast.stmt, ast.ExceptHandler, ast.match_case)):
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(parent, field_name, None)
                if not isinstance(block, list):
                    continue
                index = next((i for i, s in enumerate(block) if s is child), None)
                if index is None:
                    continue
                if isinstance(parent, ast.If):
                    yield parent.test, field_name == "body", block[: index + 1]
                yield from _block_conditions(block, index)
                break
        child = parent


def _rebinds(name: str, stmts: Sequence[ast.stmt]) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        for stmt in stmts for n in ast.walk(stmt)
    )


def narrowed_not_none(node: ast.AST, name: str, fn: FunctionFacts) -> bool:
    """Local ``name`` is certainly not None where ``node`` runs: a test on it has been passed."""
    return any(
        says(test, name, outcome) in NOT_NONE and not _rebinds(name, since)
        for test, outcome, since in _conditions(node, fn)
    )


def ruled_out(node: ast.AST, fn: FunctionFacts, bound: FrozenSet[str]) -> bool:
    """``node`` runs only when a ``bound`` parameter (passed a truthy value, never rebound) is falsy."""
    return any(says(test, p, outcome) in FALSY for test, outcome, _ in _conditions(node, fn) for p in bound)


def end_ruled_out(facts: FunctionFacts, bound: FrozenSet[str]) -> bool:
    """Falling off the end of ``facts`` needs a ``bound`` parameter falsy (``if error: return ...``)."""
    if not bound or not isinstance(facts.node, FUNCTION_NODES):
        return False
    body = facts.node.body
    return any(says(t, p, outcome) in FALSY for t, outcome, _ in _block_conditions(body, len(body)) for p in bound)


def truthy_arguments(call: ast.AST, facts: FunctionFacts) -> FrozenSet[str]:
    """Parameters of ``facts`` that ``call`` passes a certainly truthy value and that it never rebinds."""
    if not isinstance(call, ast.Call) or not isinstance(facts.node, FUNCTION_NODES):
        return frozenset()
    params = facts.node.args
    positional = [a.arg for a in params.posonlyargs + params.args]
    names = set()
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) or index >= len(positional):
            break
        if _certainly_truthy(arg):
            names.add(positional[index])
    by_keyword = set(positional[len(params.posonlyargs):]) | {a.arg for a in params.kwonlyargs}
    names.update(kw.arg for kw in call.keywords if kw.arg in by_keyword and _certainly_truthy(kw.value))
    return frozenset(n for n in names if n not in facts.bindings)


def _certainly_truthy(expr: ast.AST) -> bool:
    """A non-empty literal: ``"x"``, ``1``, ``f"failed: {e}"``, ``[a]``, ``{"k": v}``."""
    if isinstance(expr, ast.Constant):
        return bool(expr.value)
    if isinstance(expr, ast.JoinedStr):
        return any(isinstance(v, ast.Constant) and v.value for v in expr.values)
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return any(not isinstance(e, ast.Starred) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(k is not None for k in expr.keys)
    return False
