"""Whether the end of a block is certainly reached, and whether a block certainly leaves.

``completes`` answers False when in doubt (a call that may never return, ``while True``): a
function that certainly falls off its end returns None, and saying so must never be a guess.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Dict, FrozenSet, Optional, Sequence

from hermes_lint.analysis.membership import confined_to, tested_values
from hermes_lint.analysis.raises import TRY_NODES
from hermes_lint.model.scopes import SCOPE_NODES, scope_walk

if TYPE_CHECKING:
    from hermes_lint.analysis.functions import FunctionFacts, ModuleFunctions

# Method names of calls that may never return (sys.exit, pytest.fail, self.abort...).
_NO_RETURN_METHODS = re.compile(r"^(_?exit|abort|fail|skip|die|throw|raise\w*|_?fail\w*|_?abort\w*)$")
Known = Dict[str, FrozenSet[str]]  # local name -> the values it can have
_RETURNING_BUILTINS = frozenset({"print", "setattr", "delattr", "isinstance", "len", "sorted", "open"})


def exits(stmts: Sequence[ast.stmt]) -> bool:
    """The block certainly does not run past its end (return, raise, break, continue)."""
    for stmt in stmts:
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, ast.If) and stmt.orelse and exits(stmt.body) and exits(stmt.orelse):
            return True
    return False


def completes(
    stmts: Sequence[ast.stmt], analyzer: "ModuleFunctions", fn: "FunctionFacts", known: Optional[Known] = None
) -> bool:
    """True only when the end of ``stmts`` is certainly reachable (when unsure: False).
    ``known``: the values tests passed on the way confine locals to (``membership``)."""
    return all(_stmt_completes(s, analyzer, fn, known) for s in stmts)


def _stmt_completes(stmt: ast.stmt, analyzer: "ModuleFunctions", fn: "FunctionFacts", known: Optional[Known] = None) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return False
    if isinstance(stmt, ast.Expr):
        awaited = isinstance(stmt.value, ast.Await)
        value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
        return not isinstance(value, ast.Call) or _call_returns(value, analyzer, fn, awaited)
    if isinstance(stmt, ast.Assert):
        return not (isinstance(stmt.test, ast.Constant) and not stmt.test.value)
    if isinstance(stmt, ast.If):
        test = _constant_truth(stmt.test)
        if test is True:
            return completes(stmt.body, analyzer, fn, known)
        if test is False:
            return completes(stmt.orelse, analyzer, fn, known)
        if known and _chain_covers(stmt, known):
            return False  # an if/elif that leaves for every value the local can have here
        confined = confined_to(stmt.test, analyzer, fn)
        inner = {**(known or {}), confined[0]: confined[1]} if confined is not None else known
        return completes(stmt.body, analyzer, fn, inner) or completes(stmt.orelse, analyzer, fn, known)
    if isinstance(stmt, (ast.While, ast.For, ast.AsyncFor)):
        if _has_break(stmt.body):
            return True
        if isinstance(stmt, ast.While) and _constant_truth(stmt.test) is True:
            return False
        # A loop whose body can leave the function (a retry loop returning on its last attempt)
        # may never end normally; only a loop that cannot leave certainly gets past its end.
        leaves = any(isinstance(n, (ast.Return, ast.Raise)) for s in stmt.body for n, _ in scope_walk(s))
        leaves = leaves or any(isinstance(s, (ast.Return, ast.Raise)) for s in stmt.body)
        return not leaves and completes(stmt.orelse, analyzer, fn)
    if isinstance(stmt, TRY_NODES):
        if stmt.finalbody and not completes(stmt.finalbody, analyzer, fn):
            return False
        if completes(stmt.body, analyzer, fn) and completes(stmt.orelse, analyzer, fn):
            return True
        may_raise = any(isinstance(n, (ast.Call, ast.Subscript, ast.Attribute, ast.Raise, ast.Await, ast.BinOp))
                        for s in stmt.body for n in ast.walk(s))
        return may_raise and any(completes(h.body, analyzer, fn) for h in stmt.handlers)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return completes(stmt.body, analyzer, fn, known)
    if isinstance(stmt, ast.Match):
        irrefutable = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
                          for c in stmt.cases)
        return not irrefutable or any(completes(c.body, analyzer, fn) for c in stmt.cases)
    return True  # assignments, imports, defs, pass, ...


def _call_returns(call: ast.Call, analyzer: "ModuleFunctions", fn: "FunctionFacts", awaited: bool = False) -> bool:
    """True when the call certainly returns (a call that may never return makes the rest unsure)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and analyzer.imports.get(func.value.id) in ("sys", "os"):
            return func.attr not in ("exit", "_exit", "abort", "execv", "execvp", "execl")
        return not _NO_RETURN_METHODS.match(func.attr)
    if isinstance(func, ast.Name):
        if analyzer.is_builtin(func, fn, _RETURNING_BUILTINS):
            return True
        callee = analyzer.is_module_call(call, fn)
        if callee is not None:
            facts = analyzer.followable(callee)
            if facts is None:
                return False
            if facts.is_generator or (facts.is_async and not awaited):
                return True  # the call only creates the generator / coroutine
            # It returns if it has a return statement or can fall off its end.
            return bool(facts.returns) or facts.falls_off_line is not None
    return False


def _chain_covers(stmt: ast.If, known: Known) -> bool:
    """The if/elif chain ``stmt`` tests one local of ``known`` against constants, and the
    branches that certainly leave cover every value that local can have."""
    for name, values in known.items():
        covered: set = set()
        link: Optional[ast.If] = stmt
        while link is not None:
            tested = tested_values(link.test, name)
            if tested is None:
                break
            if exits(link.body):
                covered |= tested
            orelse = link.orelse
            link = orelse[0] if len(orelse) == 1 and isinstance(orelse[0], ast.If) else None
        if values <= covered:
            return True
    return False


def _constant_truth(node: ast.AST) -> Optional[bool]:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    return None


def _has_break(stmts: Sequence[ast.stmt]) -> bool:
    """A ``break`` of this loop (not of a nested one)."""
    todo = list(stmts)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.Break):
            return True
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(stmt.orelse)
            continue
        if isinstance(stmt, SCOPE_NODES):
            continue
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                todo.append(child)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                todo.extend(child.body)
    return False
