"""The ``os.environ["X"]`` reads a handler makes unguarded: each raises ``KeyError`` when ``X`` is
unset, so the handler needs ``X``; so does a call of an environment reader that raises on every
path when ``X`` is unset (``env_readers``)."""

from __future__ import annotations

import ast
from typing import Dict, List, Tuple

from hermes_lint.model.context import ModuleContext, child_nodes
from hermes_lint.model.semantic import CALL_DEPTH, TRY_NODES, CallableNode, SemanticModel
from hermes_lint.model.env_access import EnvAccessIndex
from hermes_lint.model.env_spellings import EnvAccess
from hermes_lint.model import EnvRead


def handler_required_reads(
    ctx: ModuleContext, env: EnvAccessIndex, fn: CallableNode
) -> List[Tuple[EnvRead, EnvAccess]]:
    """``os.environ[...]`` reads the handler ``fn`` (or what it calls) makes unguarded, and calls
    of an environment reader that raises on every path when its variable is unset; each with
    its access.

    Guarded means inside a ``try`` that catches ``KeyError`` (handlers commonly wrap their
    work in ``except Exception`` and return an error), or reached only through calls made
    inside one; and a variable also tested some optional way anywhere on the handler's path
    (``os.getenv("X")``, ``"X" in os.environ``) counts as handled.
    """
    if not env.may_access or not any(read.required for read in ctx.facts.env_reads):
        # Only a named ``os.environ[...]`` read (an EnvRead with ``required``) can be found
        # below: no node but that subscript itself starts where its read is located.
        return []
    functions = ctx.semantic.functions
    reached: Dict[int, Tuple[CallableNode, bool]] = {id(fn): (fn, False)}
    todo: List[Tuple[CallableNode, bool, int]] = [(fn, False, 0)]
    while todo:
        node, guarded, depth = todo.pop()
        if depth >= CALL_DEPTH:
            continue
        for call, call_guarded in _walk_guarded(node, guarded):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                continue
            target = functions.get(call.func.id)
            if target is None:
                continue
            before = reached.get(id(target))
            if before is None or (before[1] and not call_guarded):
                reached[id(target)] = (target, call_guarded)
                todo.append((target, call_guarded, depth + 1))
    optional = set()
    found: List[Tuple[EnvRead, EnvAccess]] = []
    for function, guarded in reached.values():
        for child, child_guarded in _walk_guarded(function, guarded):
            access = env.access(child)
            read = env.read_of(access) if access is not None else None
            if access is None or read is None:
                continue
            if access.kind != "subscript":
                optional.add(read.name)
            elif not child_guarded:
                found.append((read, access))
    return sorted((pair for pair in found if pair[0].name not in optional), key=lambda pair: pair[0].location)


def _walk_guarded(node: ast.AST, guarded: bool) -> List[Tuple[ast.AST, bool]]:
    """Every node under ``node`` (depth-first, parents first, children in field order; the
    leaves ``child_nodes`` leaves out, contexts and operators, are not visited) with whether a
    ``try`` that catches ``KeyError`` encloses it.

    Iterative: the recursive generator this replaces paid one generator frame per level for
    every node it yielded (a third of HRM203's time on ordinary tool files).
    """
    found: List[Tuple[ast.AST, bool]] = []
    append = found.append
    stack = [(node, guarded)]
    pop, push = stack.pop, stack.append
    while stack:
        current, is_guarded = pop()
        append((current, is_guarded))
        if isinstance(current, TRY_NODES):
            inner = is_guarded or any(SemanticModel.handler_catches(h, "KeyError") for h in current.handlers)
            # Pushed in reverse so that they come off the stack in source order.
            for part in reversed(current.handlers + current.orelse + current.finalbody):
                push((part, is_guarded))
            for stmt in reversed(current.body):
                push((stmt, inner))
            continue
        for child in reversed(child_nodes(current)):
            push((child, is_guarded))
    return found
