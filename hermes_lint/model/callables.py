"""The syntax behind a ``handler=``/``check_fn=`` argument: which function or lambda it runs.

``CallableRef`` (in the facts) says what kind of thing an argument is; module rules that follow
the code itself need the node. Only definitions that certainly are what runs count: a function
defined once, unconditionally, at the module's top level, and not rebound by anything else.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional, Union

from hermes_lint.model.context import ModuleContext
from hermes_lint.model.extract import REGISTER_PARAMETERS

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def register_argument(call: ast.Call, name: str) -> Optional[ast.expr]:
    """The node passed for parameter ``name`` of ``registry.register``, by keyword or position."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    position = REGISTER_PARAMETERS.index(name)
    if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


def plain_functions(ctx: ModuleContext) -> Dict[str, FunctionNode]:
    """Module functions whose name is bound exactly once, by a top-level ``def``."""
    if "plain_functions" in ctx.memo:
        return ctx.memo["plain_functions"]
    defs: Dict[str, list] = {}
    for stmt in ctx.tree.body:
        for node in _module_level_statements(stmt):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defs.setdefault(node.name, []).append(node)
    top = {id(stmt) for stmt in ctx.tree.body}
    found = {
        name: nodes[0]
        for name, nodes in defs.items()
        if len(nodes) == 1
        and id(nodes[0]) in top
        and not isinstance(nodes[0], ast.ClassDef)
        and name not in ctx.index.assigned
        and name not in ctx.index.imports
        and not _rebound(ctx, name)
    }
    ctx.memo["plain_functions"] = found
    return found


def _module_level_statements(stmt: ast.stmt):
    """``stmt`` and the statements nested in its if/try/with/for blocks (not in defs/classes)."""
    yield stmt
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    for child in ast.iter_child_nodes(stmt):
        if isinstance(child, ast.stmt):
            yield from _module_level_statements(child)
        elif isinstance(child, ast.excepthandler):
            for inner in child.body:
                yield from _module_level_statements(inner)


def _rebound(ctx: ModuleContext, name: str) -> bool:
    """A ``global name`` in some function may rebind it at run time."""
    key = "global_names"
    if key not in ctx.memo and "global" not in ctx.text:
        ctx.memo[key] = set()  # a `global` statement spells its keyword out, in ASCII
    if key not in ctx.memo:
        ctx.memo[key] = {
            n for node in ctx.index.nodes() if isinstance(node, ast.Global) for n in node.names
        }
    return name in ctx.memo[key]


def callable_node(ctx: ModuleContext, node: Optional[ast.expr]) -> Optional[Union[FunctionNode, ast.Lambda]]:
    """The plain module function or lambda that ``node`` certainly denotes, else None."""
    functions = plain_functions(ctx)
    seen = set()
    while isinstance(node, ast.Name) and node.id not in seen:
        seen.add(node.id)
        if node.id in functions:
            return functions[node.id]
        values = ctx.index.assigned.get(node.id)
        if not values or len(values) != 1 or node.id in ctx.index.imports or _rebound(ctx, node.id):
            return None
        node = values[0]  # `check = _check_impl` or `check = lambda: ...`
    return node if isinstance(node, ast.Lambda) else None
