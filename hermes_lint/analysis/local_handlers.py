"""A handler defined inside the function that registers it (HRM105).

Plugins often define their handlers as closures of ``register(ctx)`` or of a factory it calls::

    def register(ctx):
        client = make_client()

        async def handle_recall(args, **kw):
            return json.dumps(await client.recall(args["query"]))

        ctx.register_tool(name="recall", toolset="memory", schema=SCHEMA, handler=handle_recall)

Such a handler is a value computed at run time for the rest of the analysis (its body reads the
closure), but what kind of function it is is written in the source: ``handle_recall`` names the
one ``async def`` of that scope. ``LocalHandlers.of(ctx).definition(call)`` is that def, found by
Python's own scoping (the innermost enclosing function that binds the name decides), and only
when that scope binds the name exactly once, by an undecorated ``def``: anything else (a
parameter, an assignment, two defs, ``nonlocal``) is unknown.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple, Union

from hermes_lint.model.scopes import FUNCTION_NODES, SCOPE_NODES, scope_binding

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
_Key = Tuple[int, int, Optional[int], Optional[int]]


def _key(node: ast.AST) -> _Key:
    return (
        getattr(node, "lineno", 0),
        getattr(node, "col_offset", 0),
        getattr(node, "end_lineno", None),
        getattr(node, "end_col_offset", None),
    )


class LocalHandlers:
    """Per-module: the function-local names at each position, and the defs they name."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._names: Optional[Dict[_Key, Tuple[str, Tuple[ast.AST, ...]]]] = None
        self._bindings: Dict[Tuple[int, str], Tuple[bool, Optional[FunctionNode]]] = {}

    @classmethod
    def of(cls, ctx) -> "LocalHandlers":
        return ctx.semantic.analysis(cls, ctx)

    def definition(self, call: ast.Call) -> Optional[FunctionNode]:
        """The nested def the ``handler=`` of this (synthesized) register call names, if certain."""
        keyword = next((k for k in call.keywords if k.arg == "handler"), None)
        if keyword is None or not isinstance(keyword.value, ast.Name):
            return None
        found = self._local_names().get(_key(keyword.value))
        if found is None:
            return None
        name, scopes = found
        for scope in reversed(scopes):
            if not isinstance(scope, FUNCTION_NODES):
                return None  # a class body or a lambda between: not followed
            cached = (id(scope), name)
            if cached not in self._bindings:
                self._bindings[cached] = scope_binding(scope, name)
            bound, definition = self._bindings[cached]
            if bound:
                return definition
        return None  # bound at module level: a module function, read by the usual analysis

    def _local_names(self) -> Dict[_Key, Tuple[str, Tuple[ast.AST, ...]]]:
        """Every name loaded inside a function, by position, with its enclosing scopes (outermost
        first): one walk of the module, made only when a handler is a function-local value."""
        if self._names is None:
            names: Dict[_Key, Tuple[str, Tuple[ast.AST, ...]]] = {}
            todo: List[Tuple[ast.AST, Tuple[ast.AST, ...]]] = [(self.ctx.tree, ())]
            while todo:
                node, scopes = todo.pop()
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.Name) and scopes and isinstance(child.ctx, ast.Load):
                        names[_key(child)] = (child.id, scopes)
                    todo.append((child, scopes + (child,) if isinstance(child, SCOPE_NODES) else scopes))
            self._names = names
        return self._names
