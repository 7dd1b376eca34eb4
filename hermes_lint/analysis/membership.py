"""Membership in a set of strings the evaluator knows, for dispatches over a set::

    valid = {"list", "poll", "log"}
    if action == "list":
        return ...
    elif action in valid - {"list"}:
        if action == "poll":
            return ...
        elif action == "log":
            return ...
    else:
        return tool_error(...)

Past ``action in valid - {"list"}``, ``action`` is "poll" or "log", so the inner chain returns
for every value it can have. The container is a set, frozenset, tuple or list of strings: a
literal, a module constant (the evaluator's value, set differences and unions included) or a
local bound once to such an expression.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, FrozenSet, Optional, Set, Tuple

from hermes_lint.model import Unresolved

if TYPE_CHECKING:
    from hermes_lint.analysis.functions import FunctionFacts, ModuleFunctions

_MAX_DEPTH = 8


def confined_to(test: ast.AST, analyzer: "ModuleFunctions", fn: "FunctionFacts") -> Optional[Tuple[str, FrozenSet[str]]]:
    """``(name, values)`` when ``test`` being true proves local ``name`` is one of ``values``:
    ``name in S``, ``name == "v"``."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return test.left.id, frozenset({right.value})
    if isinstance(op, ast.In):
        values = known_strings(right, analyzer, fn, 0)
        if values is not None:
            return test.left.id, values
    return None


def tested_values(test: ast.AST, name: str) -> Optional[Set[str]]:
    """The constants ``test`` compares local ``name`` with: ``name == "a"``, ``name in ("a", "b")``
    and ``or`` of them; None for any other test."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        parts = [tested_values(value, name) for value in test.values]
        if any(part is None for part in parts):
            return None
        return {value for part in parts if part is not None for value in part}
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq):
        for subject, other in ((left, right), (right, left)):
            if isinstance(subject, ast.Name) and subject.id == name and isinstance(other, ast.Constant) \
                    and isinstance(other.value, str):
                return {other.value}
        return None
    if isinstance(op, ast.In) and isinstance(left, ast.Name) and left.id == name \
            and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        values = {e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        return values if len(values) == len(right.elts) else None
    return None


def known_strings(node: ast.AST, analyzer: "ModuleFunctions", fn: "FunctionFacts", depth: int) -> Optional[FrozenSet[str]]:
    """The strings of a container of strings ``node`` certainly holds, or None."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.BitOr, ast.BitAnd)):
        left = known_strings(node.left, analyzer, fn, depth + 1)
        right = known_strings(node.right, analyzer, fn, depth + 1)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Sub):
            return left - right
        return left | right if isinstance(node.op, ast.BitOr) else left & right
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 \
            and not node.keywords and node.func.id in ("set", "frozenset", "tuple", "list") \
            and analyzer.is_builtin(node.func, fn, frozenset({node.func.id})):
        return known_strings(node.args[0], analyzer, fn, depth + 1)
    if isinstance(node, ast.Name) and fn.is_local(node.id):
        values = fn.bindings.get(node.id)
        if node.id in fn.params or not values or len(values) != 1:
            return None
        return known_strings(values[0], analyzer, fn, depth + 1)
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        found = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return frozenset(found) if len(found) == len(node.elts) else None
    value = analyzer.ctx.evaluator.evaluate(node)
    if isinstance(value, Unresolved) or not isinstance(value, (set, frozenset, tuple, list)):
        return None
    if not all(isinstance(v, str) for v in value):
        return None
    return frozenset(value)
