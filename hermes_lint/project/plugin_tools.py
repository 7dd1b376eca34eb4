"""Tools that plugins register: ``ctx.register_tool(...)`` inside a plugin's ``register(ctx)``.

A Hermes plugin is a package ``plugins/<name>/__init__.py`` (or ``plugins/<category>/<name>/``)
whose module-level ``register(ctx)`` the plugin loader calls; ``ctx.register_tool(name=...,
toolset=..., schema=..., handler=..., ...)`` puts a tool into the same registry as
``tools/*.py``. Plugins often register from a loop over a literal table::

    _TOOLS = (("meet_join", JOIN_SCHEMA, handle_join), ("meet_leave", LEAVE_SCHEMA, handle_leave))

    def register(ctx):
        for name, schema, handler in _TOOLS:
            ctx.register_tool(name=name, toolset="meet", schema=schema, handler=handler)

Such loops are unrolled statically: one register call per row, with the loop variables
replaced by the row's own expressions (so a tool's name is located at its string in the
table). A call whose arguments still depend on a name local to ``register`` (a loop over
something that is not a literal table, a variable computed there) is not read: it is kept as
an unread register call, so rules that need every registration stay silent.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

# PluginContext.register_tool's parameters, in order (Hermes's plugin API).
PLUGIN_PARAMETERS = (
    "name",
    "toolset",
    "schema",
    "handler",
    "check_fn",
    "requires_env",
    "is_async",
    "description",
    "emoji",
    "override",
)
PLUGIN_METHOD = "register_tool"
PLUGIN_HOOK = "register"
MAX_UNROLLED = 1_000  # register calls produced from one module's loops


class PluginCalls(NamedTuple):
    """``read``: one keyword-only call per registration (loops unrolled); ``unread``: the
    register_tool calls whose arguments cannot be read statically."""

    read: Tuple[ast.Call, ...]
    unread: Tuple[ast.Call, ...]


NO_CALLS = PluginCalls((), ())


def plugin_paths(root: Path, plugin_dirs: Sequence[str]) -> List[Path]:
    """``<dir>/<name>/__init__.py`` and ``<dir>/<category>/<name>/__init__.py`` under each plugin
    directory whose text names ``register_tool``, sorted."""
    found: List[Path] = []
    for directory in plugin_dirs:
        for child in _directories(root / directory):
            found.append(child / "__init__.py")
            found.extend(grandchild / "__init__.py" for grandchild in _directories(child))
    return sorted(path for path in found if path.is_file() and _mentions_register_tool(path))


def _directories(directory: Path) -> List[Path]:
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return []
    return [child for child in children if not child.name.startswith((".", "_")) and child.is_dir()]


def _mentions_register_tool(path: Path) -> bool:
    try:
        return PLUGIN_METHOD.encode() in path.read_bytes()
    except OSError:
        return True  # unreadable: checked, and reported as such (HRM001)


def plugin_calls(tree: ast.Module, index) -> PluginCalls:
    """The plugin register calls of a module (computed once per ``ModuleIndex``)."""
    if index.plugin_calls is None:
        index.plugin_calls = _plugin_calls(tree, index)
    return index.plugin_calls


def _plugin_calls(tree: ast.Module, index) -> PluginCalls:
    hook = next(
        (s for s in reversed(tree.body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == PLUGIN_HOOK),
        None,
    )
    positional = (hook.args.posonlyargs + hook.args.args) if hook is not None else []
    if hook is None or not positional:
        return NO_CALLS
    receiver = positional[0].arg
    every = [
        node
        for node in ast.walk(hook)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == PLUGIN_METHOD
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == receiver
    ]
    if not every:
        return NO_CALLS
    reader = _Reader(hook, receiver, index)
    reader.statements(hook.body, {})
    done = {id(call) for call in reader.handled} - {id(call) for call in reader.rejected}
    unread = tuple(call for call in every if id(call) not in done)
    return PluginCalls(tuple(reader.read), unread)


class _Reader:
    def __init__(self, hook: Union[ast.FunctionDef, ast.AsyncFunctionDef], receiver: str, index):
        self.receiver = receiver
        self.index = index
        self.local = {a.arg for a in ast.walk(hook.args) if isinstance(a, ast.arg)}
        self.local |= {n.id for n in ast.walk(hook) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.read: List[ast.Call] = []
        self.handled: List[ast.Call] = []  # calls read at least once
        self.rejected: List[ast.Call] = []  # calls some pass could not read (or past the cap)

    def statements(self, body: Sequence[ast.stmt], bindings: Dict[str, ast.expr]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and self._is_register(stmt.value):
                self._emit(stmt.value, bindings)
            elif isinstance(stmt, ast.For):
                rows = self._rows(stmt.iter)
                bound = [_bind(stmt.target, row) for row in rows or ()]
                read = [b for b in bound if b is not None]
                if rows is None or len(read) != len(bound):
                    continue  # every row or none: a half-read table would hide its other tools
                for row_bindings in read:
                    self.statements(stmt.body, {**bindings, **row_bindings})
            elif isinstance(stmt, (ast.If, ast.With, ast.Try)) or stmt.__class__.__name__ == "TryStar":
                for field in ("body", "orelse", "finalbody"):
                    self.statements(getattr(stmt, field, ()), bindings)
                for handler in getattr(stmt, "handlers", ()):
                    self.statements(handler.body, bindings)

    def _is_register(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == PLUGIN_METHOD
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == self.receiver
        )

    def _emit(self, call: ast.Call, bindings: Dict[str, ast.expr]) -> None:
        if len(self.read) >= MAX_UNROLLED:
            self.rejected.append(call)
            return
        synthesized = _substitute(call, bindings)
        arguments = list(synthesized.args) + [kw.value for kw in synthesized.keywords]
        for argument in arguments:
            if any(isinstance(n, ast.Name) and n.id in self.local for n in ast.walk(argument)):
                self.rejected.append(call)
                return  # depends on a value computed inside register(): not read
        self.read.append(_as_keywords(synthesized))
        if call not in self.handled:
            self.handled.append(call)

    def _rows(self, node: ast.expr) -> Optional[List[ast.expr]]:
        """The elements of a literal table: a tuple/list display, or a module constant bound once to one."""
        if isinstance(node, ast.Name) and node.id not in self.local:
            values = self.index.assigned.get(node.id)
            if not values or len(values) != 1 or node.id in self.index.functions or node.id in self.index.imports:
                return None
            node = values[0]
        if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return list(node.elts)
        return None


def _bind(target: ast.expr, row: ast.expr) -> Optional[Dict[str, ast.expr]]:
    if isinstance(target, ast.Name):
        return {target.id: row}
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(row, (ast.Tuple, ast.List)):
        if len(target.elts) != len(row.elts) or any(isinstance(e, ast.Starred) for e in row.elts):
            return None
        bound: Dict[str, ast.expr] = {}
        for part, value in zip(target.elts, row.elts):
            inner = _bind(part, value)
            if inner is None:
                return None
            bound.update(inner)
        return bound
    return None


class _Substitute(ast.NodeTransformer):
    def __init__(self, bindings: Dict[str, ast.expr]):
        self.bindings = bindings

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.bindings:
            return self.bindings[node.id]  # the row's own node: located in the table
        return node


def _substitute(call: ast.Call, bindings: Dict[str, ast.expr]) -> ast.Call:
    if not bindings:
        return call
    return _Substitute(bindings).visit(copy.deepcopy(call))


def _as_keywords(call: ast.Call) -> ast.Call:
    """Positional arguments as the keywords of ``register_tool``'s parameters they fill."""
    if not call.args or any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(PLUGIN_PARAMETERS):
        return call
    keywords = []
    for name, value in zip(PLUGIN_PARAMETERS, call.args):
        keyword = ast.keyword(arg=name, value=value)
        ast.copy_location(keyword, value)
        keywords.append(keyword)
    result = ast.Call(func=call.func, args=[], keywords=keywords + list(call.keywords))
    return ast.copy_location(result, call)
