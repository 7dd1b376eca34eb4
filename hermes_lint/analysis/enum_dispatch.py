"""Which values of a schema ``enum`` a handler's ``if``/``elif`` dispatch returns for.

A handler that dispatches on ``action`` over every value its schema's ``enum`` allows cannot fall
off its end for an argument the schema accepts::

    action = args.get("action")
    if action == "list":
        return ...
    elif action in ("add", "update"):
        return ...

``dispatch_coverage`` finds that shape at the top level of a function body and says which
property it reads and which values lead to a branch that certainly returns or raises.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional, Set, Tuple, Union

from hermes_lint.analysis.argument_reads import constant_read
from hermes_lint.analysis.functions import FunctionFacts
from hermes_lint.analysis.reachability import exits


def dispatch_coverage(fn: FunctionFacts) -> Optional[Tuple[str, Set[str]]]:
    """``(property, covered values)`` of the function's dispatch on one argument, or None."""
    node = fn.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.args.args:
        return None
    args = (node.args.posonlyargs + node.args.args)[0].arg
    variables = _argument_variables(node, args)
    found: Optional[str] = None
    covered: Set[str] = set()
    for stmt in node.body:
        branch: Optional[ast.stmt] = stmt
        while isinstance(branch, ast.If):
            tested = _tested_values(branch.test, args, variables)
            if tested is None:
                break
            key, values = tested
            if found is not None and key != found:
                return None  # dispatching on two arguments: not this shape
            found = key
            if exits(branch.body):
                covered |= values
            branch = branch.orelse[0] if len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If) else None
    return (found, covered) if found is not None else None


def _argument_variables(node: Union[ast.FunctionDef, ast.AsyncFunctionDef], args: str) -> Dict[str, str]:
    """Locals assigned exactly once, at the top level, from ``args.get("k")`` or ``args["k"]``."""
    assigned: Dict[str, list] = {}
    for child in ast.walk(node):
        if isinstance(child, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            for target in targets:
                for bound in ast.walk(target):
                    if isinstance(bound, ast.Name):
                        assigned.setdefault(bound.id, []).append(child)
        elif isinstance(child, (ast.For, ast.With, ast.comprehension)):
            for bound in ast.walk(getattr(child, "target", child)):
                if isinstance(bound, ast.Name):
                    assigned.setdefault(bound.id, []).append(None)
    variables: Dict[str, str] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            key = _read_key(stmt.value, args)
            if key is not None and len(assigned.get(name, ())) == 1:
                variables[name] = key
    return variables


def _read_key(node: ast.AST, args: str) -> Optional[str]:
    """``args.get("k")``, ``args.get("k", default)`` or ``args["k"]`` -> "k"."""
    read = constant_read(node)
    return read[1] if read is not None and read[0] == args else None


def _tested_values(test: ast.AST, args: str, variables: Dict[str, str]) -> Optional[Tuple[str, Set[str]]]:
    """``x == "a"``, ``"a" == x``, ``x in ("a", "b")``, and ``or`` of them, on one argument."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        parts = [_tested_values(value, args, variables) for value in test.values]
        tested = [part for part in parts if part is not None]
        if len(tested) != len(parts) or len({part[0] for part in tested}) != 1:
            return None
        return tested[0][0], {value for part in tested for value in part[1]}
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq):
        for subject, other in ((left, right), (right, left)):
            key = _subject_key(subject, args, variables)
            if key is not None and isinstance(other, ast.Constant) and isinstance(other.value, str):
                return key, {other.value}
        return None
    if isinstance(op, ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        key = _subject_key(left, args, variables)
        values = [
            element.value
            for element in right.elts
            if isinstance(element, ast.Constant) and isinstance(element.value, str)
        ]
        if key is not None and len(values) == len(right.elts):
            return key, set(values)
    return None


def _subject_key(node: ast.AST, args: str, variables: Dict[str, str]) -> Optional[str]:
    if isinstance(node, ast.Name):
        return variables.get(node.id)
    return _read_key(node, args)
