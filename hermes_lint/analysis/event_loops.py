"""Calls that start an event loop, in a handler and the module functions it calls (HRM106).

Each function's calls are looked at in the one walk that builds its ``FunctionFacts``; a module
whose text never mentions an event loop is not looked at all.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, List, Optional, Set, Tuple

from hermes_lint.model.scopes import ancestors
from hermes_lint.model.semantic import CALL_DEPTH

if TYPE_CHECKING:
    from hermes_lint.analysis.functions import FunctionFacts, ModuleFunctions
    from hermes_lint.analysis.handlers import PrimaryFunction

_STARTERS = ("asyncio.run", "asyncio.new_event_loop", "asyncio.Runner")


def mentions_event_loops(text: str) -> bool:
    return any(word in text for word in ("asyncio", "run_until_complete", "run_forever"))


def event_loop_call(call: ast.Call, analyzer: "ModuleFunctions", fn: "FunctionFacts") -> Optional[str]:
    """How a message shows ``call`` (``asyncio.run(...)``) when it starts an event loop, else None."""
    func = call.func
    starts = isinstance(func, ast.Attribute) and func.attr in ("run_until_complete", "run_forever")
    if not starts and not any(analyzer.is_import(func, fn, target) for target in _STARTERS):
        return None
    if _where_no_loop_runs(call, analyzer, fn):
        return None
    return f"{ast.unparse(func)}(...)"


def _where_no_loop_runs(call: ast.Call, analyzer: "ModuleFunctions", fn: "FunctionFacts") -> bool:
    """``call`` is in the ``except RuntimeError:`` block of a ``try`` that does nothing but probe
    ``asyncio.get_running_loop()``: that block runs only when this thread has no running loop,
    where starting one is what the registry does itself for an ``is_async=True`` handler."""
    child: ast.AST = call
    for parent in ancestors(call, fn.parents):
        if isinstance(parent, ast.ExceptHandler) and child in parent.body:
            statement = fn.parents.get(id(parent))
            if (
                isinstance(statement, ast.Try)
                and parent.type is not None
                and analyzer.is_builtin(parent.type, fn, ("RuntimeError",))
                and _probes_running_loop(statement.body, analyzer, fn)
            ):
                return True
        child = parent
    return False


def _probes_running_loop(body: List[ast.stmt], analyzer: "ModuleFunctions", fn: "FunctionFacts") -> bool:
    """``body`` is one statement, ``asyncio.get_running_loop()`` or ``name = asyncio.get_running_loop()``:
    nothing else in the ``try`` can raise the ``RuntimeError`` its handler catches."""
    if len(body) != 1:
        return False
    statement = body[0]
    if isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets):
        value: Optional[ast.expr] = statement.value
    elif isinstance(statement, ast.Expr):
        value = statement.value
    else:
        return False
    return (
        isinstance(value, ast.Call)
        and not value.args
        and not value.keywords
        and analyzer.is_import(value.func, fn, "asyncio.get_running_loop")
    )


def handler_event_loop_calls(
    analyzer: "ModuleFunctions", primary: List["PrimaryFunction"], entry: "FunctionFacts"
) -> List[Tuple[ast.Call, str, str]]:
    """Event-loop calls in the handler and the module functions it calls, with who makes them."""
    found: List[Tuple[ast.Call, str, str]] = []
    if not analyzer.mentions_event_loops:
        return found
    seen: Set[str] = set()
    todo: List[Tuple["FunctionFacts", str, int]] = [(p.facts, p.who, 0) for p in primary]
    if entry.name == "" and all(p.facts is not entry for p in primary):
        todo.append((entry, "handler lambda", 0))
    while todo:
        facts, who, depth = todo.pop(0)
        if facts.name in seen and facts.name:
            continue
        seen.add(facts.name)
        for call, text in facts.event_loop_calls:
            found.append((call, text, who))
        if depth < CALL_DEPTH:
            for name in facts.called_functions:
                callee = analyzer.followable(name)
                if callee is not None and name not in seen:
                    todo.append((callee, f"`{name}`, called by {primary[0].who},", depth + 1))
    return found
