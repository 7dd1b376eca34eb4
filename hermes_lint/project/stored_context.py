"""Where a plugin context kept in an attribute (``self.ctx = ctx``) can go: whether it can reach
``register_tool`` with a tool hermes-lint does not read.

A context stored in an attribute is not followed further, so a tool registered through it
later (``self.ctx.register_tool(...)`` in another method) would be unchecked: that is reported
as "cannot verify". Most stored contexts only serve other context methods
(``self.ctx.inject_message(...)``, ``getattr(self.ctx, "manifest", None)``); those are silent.
Every use of the attribute in the modules that name ``register_tool`` is looked at (a module
that never names it cannot call it); the stored context reaches ``register_tool`` when one
use calls it, or hands the context on (an argument, an alias, a return value) where it is not
followed. One use is not a registration of its own: a proxy class that keeps the context and
whose own ``register_tool`` forwards its arguments unchanged
(``def register_tool(self, name, *args, **kwargs): return self._ctx.register_tool(name, *args,
**kwargs)``), when the proxy replaces the context in the function that builds it (``ctx =
Proxy(ctx)``): every call the proxy forwards is a ``ctx.register_tool(...)`` already read.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, Optional, Tuple

PLUGIN_METHOD = "register_tool"



def first_escape(trees: Iterable[Tuple[str, ast.Module]], attribute: str,
                 proxy: Optional[Tuple[str, str]]) -> Optional[str]:
    """Where (``"path:line"``, and how) a context stored in ``.attribute`` can reach
    ``register_tool`` with a tool not already read, in the modules ``trees`` (path, tree); None
    when no use can. ``proxy``: the class the context was stored in when its instance replaces
    the context, as (path, class name): its forwarding ``register_tool`` is then no escape."""
    for path, tree in trees:
        parents = _parents(tree)
        forwarding = proxy[1] if proxy is not None and proxy[0] == path else None
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == attribute and isinstance(node.ctx, ast.Load):
                how = _escape(node, parents, forwarding)
                if how is not None:
                    return f"{how} at {path}:{node.lineno}"
    return None


def _escape(use: ast.Attribute, parents: Dict[int, ast.AST], proxy: Optional[str]) -> Optional[str]:
    parent = parents.get(id(use))
    shown = ast.unparse(use)
    if isinstance(parent, ast.Attribute):  # `.ctx.inject_message(...)`, `.ctx.manifest`
        if parent.attr != PLUGIN_METHOD:
            return None if not (parent.attr.startswith("__") and parent.attr.endswith("__")) else f"`{shown}.{parent.attr}` is used"
        call = parents.get(id(parent))
        if isinstance(call, ast.Call) and call.func is parent and _forwards(call, parents, proxy):
            return None
        return f"`{shown}.register_tool` is called"
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is use and _is_getattr(parent):
        name = parent.args[1] if len(parent.args) > 1 else None
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return None if name.value != PLUGIN_METHOD else f"`{ast.unparse(parent)}` is called"
        if _in_getattr_of_a_class_defining_register_tool(parent, parents):
            return None  # `__getattr__` is never asked for a method the class defines
        return f"`{ast.unparse(parent)}` takes an attribute computed at run time"
    if _only_tested(use, parents):
        return None
    if isinstance(parent, ast.Call):
        return f"`{shown}` is passed to `{ast.unparse(parent.func)}`"
    return f"`{shown}` is used where hermes-lint does not follow it"


def _only_tested(node: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    """``node``'s value is only tested (``if self.ctx:``, ``self.ctx is None``), never kept."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Compare) or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
        return True
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node:
        return True
    return isinstance(parent, ast.BoolOp) and _only_tested(parent, parents)  # `a or b` is a or b


def _is_getattr(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id in ("getattr", "hasattr") and 2 <= len(call.args) <= 3


def _enclosing(node: ast.AST, parents: Dict[int, ast.AST], kinds) -> Optional[ast.AST]:
    current = parents.get(id(node))
    while current is not None and not isinstance(current, kinds):
        current = parents.get(id(current))
    return current


def _method(node: ast.AST, parents: Dict[int, ast.AST]) -> Tuple[Optional[ast.FunctionDef], Optional[ast.ClassDef]]:
    function = _enclosing(node, parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    owner = parents.get(id(function)) if function is not None else None
    if isinstance(function, ast.FunctionDef) and isinstance(owner, ast.ClassDef):
        return function, owner
    return None, None


def _defines(cls: ast.ClassDef, name: str) -> bool:
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in cls.body)


def _in_getattr_of_a_class_defining_register_tool(node: ast.AST, parents: Dict[int, ast.AST]) -> bool:
    method, cls = _method(node, parents)
    return method is not None and cls is not None and method.name == "__getattr__" and _defines(cls, PLUGIN_METHOD)


def _forwards(call: ast.Call, parents: Dict[int, ast.AST], proxy: Optional[str]) -> bool:
    """``call`` is the proxy class's ``register_tool`` passing its own parameters on unchanged."""
    method, cls = _method(call, parents)
    if method is None or cls is None or cls.name != proxy or method.name != PLUGIN_METHOD:
        return False
    arguments = method.args
    named = {a.arg for a in arguments.posonlyargs + arguments.args[1:] + arguments.kwonlyargs}
    rebound = {n.id for n in ast.walk(method) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    if named & rebound:
        return False
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            if not (isinstance(argument.value, ast.Name) and arguments.vararg is not None
                    and argument.value.id == arguments.vararg.arg):
                return False
        elif not (isinstance(argument, ast.Name) and argument.id in named):
            return False
    for keyword in call.keywords:
        if keyword.arg is None:
            if not (isinstance(keyword.value, ast.Name) and arguments.kwarg is not None and keyword.value.id == arguments.kwarg.arg):
                return False
        elif not (isinstance(keyword.value, ast.Name) and keyword.value.id in named):
            return False
    return True


def _parents(tree: ast.Module) -> Dict[int, ast.AST]:
    parents: Dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents
