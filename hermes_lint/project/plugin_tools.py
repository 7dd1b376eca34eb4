"""The ``ctx.register_tool(...)`` calls of one module's register functions, read statically.

Which functions of a module receive a plugin context (or its ``register_tool``) is
``registration_sites``' answer (``plugin_register`` follows ``register`` from the loader); a
module's own top-level ``register(ctx)`` is always one, so a plugin module checked on its own
(an editor buffer, a rule's example) is read the same way. Plugins often register from a loop
over a literal table::

    _TOOLS = (("meet_join", JOIN_SCHEMA, handle_join), ("meet_leave", LEAVE_SCHEMA, handle_leave))

    def register(ctx):
        for name, schema, handler in _TOOLS:
            ctx.register_tool(name=name, toolset="meet", schema=schema, handler=handler)

Such loops are unrolled statically: one register call per row, with the loop variables
replaced by the row's own expressions (so a tool's name is located at its string in the
table); the rows of ``TABLE.items()`` and of a table the evaluator computes (a comprehension, a
constant of another module) are unrolled too. A local assigned once in the function and never
changed in place (``schema = {...}``) is replaced by its expression. A value computed at run time
that decides neither what the tool is nor its schema's structure (a handler, a check, a
description naming a setting) is an unknown part of that one registration. A call whose name,
toolset or schema structure still depends on such a value is not read: it is kept, with why, as
an unread register call, reported as "cannot verify" (HRM003), so rules that need every
registration stay silent.
"""

from __future__ import annotations

import ast
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from hermes_lint.project.plugin_arguments import call_site_bindings
from hermes_lint.project.plugin_names import context_names
from hermes_lint.project.plugin_rows import (
    LOCAL_IMPORT,
    LOCAL_VALUE,
    as_keywords,
    bind_row,
    literal_node,
    mutated_names,
    own_keywords,
    row_node,
    substitute,
    substitute_expr,
)
from hermes_lint.project.remote_sites import SITE_ATTRIBUTE
from hermes_lint.model.schema_walk import is_structural_path
from hermes_lint.model.semantic import NESTED

PLUGIN_METHOD = "register_tool"
PLUGIN_HOOK = "register"
MAX_UNROLLED = 1_000  # register calls produced from one module's loops
# ``plugin_register`` (what it needs here is how ``register_tool`` is called) is imported once a
# module has a function that receives a plugin context: every module is asked, and a tool
# module has none, so the checks of a tools/ tree do not load plugin following.
FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
# (qualified name of a function of the module, its parameter holding the context, "ctx" or
# "register_tool", the plugin's name, its call sites or None): ``registration_sites.RegisterFunction``
# without its path.
Entry = Tuple[str, str, str, Optional[str], Optional[Tuple[Tuple[int, int], ...]]]


class PluginCalls(NamedTuple):
    """``read``: one keyword-only call per registration (loops unrolled), with the plugin that
    makes it; ``unread``: the register_tool calls whose arguments cannot be read statically,
    with why."""

    read: Tuple[Tuple[ast.Call, Optional[str]], ...]
    unread: Tuple[Tuple[ast.Call, str], ...]


NO_CALLS = PluginCalls((), ())


def own_hook(tree: ast.Module, plugin: Optional[str]) -> Tuple[Entry, ...]:
    """The module's own top-level ``register(ctx)``: the shape of the hook the loader calls."""
    hook = _function(tree, PLUGIN_HOOK)
    positional = (hook.args.posonlyargs + hook.args.args) if hook is not None else []
    return ((PLUGIN_HOOK, positional[0].arg, "ctx", plugin, None),) if positional else ()


def _function(tree: ast.Module, qualname: str) -> Optional[FunctionNode]:
    body: Sequence[ast.stmt] = tree.body
    found: Optional[ast.AST] = None
    for part in qualname.split("."):
        found = next((s for s in reversed(body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and s.name == part), None)
        if found is None:
            return None
        body = found.body
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def plugin_calls(tree: ast.Module, index, entries: Tuple[Entry, ...] = (), evaluator=None) -> PluginCalls:
    """The plugin register calls of a module (computed once per ``ModuleIndex``) in the
    functions ``entries`` name and in its own ``register``."""
    if index.plugin_calls is None:
        index.plugin_calls = _plugin_calls(tree, index, entries, evaluator)
    return index.plugin_calls


def _plugin_calls(tree: ast.Module, index, entries: Tuple[Entry, ...], evaluator) -> PluginCalls:
    plugin = entries[0][3] if entries else None
    read: List[Tuple[ast.Call, Optional[str]]] = []
    unread: List[Tuple[ast.Call, str]] = []
    done = set()
    for qualname, parameter, receives, name, call_sites in entries + own_hook(tree, plugin):
        function = _function(tree, qualname)
        if function is None or (qualname, parameter, receives) in done:
            continue
        done.add((qualname, parameter, receives))
        from hermes_lint.project.plugin_register import is_register_call, register_tool_aliases

        nodes = list(ast.walk(function))  # walked once: every question below is about its nodes
        contexts = context_names(function, parameter) if receives == "ctx" else set()
        callables = {parameter} if receives == "register_tool" else set(register_tool_aliases(function, contexts, nodes))
        every = [n for n in nodes if isinstance(n, ast.Call) and is_register_call(n, contexts, callables)]
        if not every:
            continue
        # once per call site when the callers hand it readable arguments (``plugin_arguments``);
        # a call is read when every reading read it
        unread_ids: Dict[int, str] = {}
        for line, arguments, site in call_site_bindings(tree, function, parameter, call_sites, _importer(evaluator, function)):
            # a reader of its own: what one reading read, refused and why is that reading's
            reader = _Reader(function, contexts, callables, index, evaluator, site)
            reader.statements(function.body, arguments)
            handled = {id(call) for call in reader.handled} - {id(call) for call in reader.rejected}
            read.extend((call, name) for call in reader.read)
            where = "" if line is None else f"where `{function.name}` is called at {line}, "
            for call in every:
                if id(call) not in handled:
                    unread_ids.setdefault(id(call), where + reader.reasons.get(id(call), _NOT_READ))
        unread.extend((call, unread_ids[id(call)]) for call in every if id(call) in unread_ids)
    return PluginCalls(tuple(read), tuple(unread))


def _importer(evaluator, function: FunctionNode):
    """What ``plugin_arguments`` binds a parameter to for a name of another module: an import
    of it, given a name of its own (``LOCAL_IMPORT``); None without an evaluator that can."""
    if evaluator is None or not hasattr(evaluator, "add_import"):
        return None

    def imported(module: str, name: str) -> ast.expr:
        origin = f"{module}.{name}"
        own = f"{LOCAL_IMPORT}{origin}"
        evaluator.add_import(own, origin, function)
        return ast.Name(id=own, ctx=ast.Load())
    return imported


_NOT_READ = "it is not a statement hermes-lint reads (inside a `while` loop, a nested function or an expression)"


def has_plugin_calls(tree: ast.Module, entries: Tuple[Entry, ...]) -> bool:
    """Whether a function ``entries`` names (or the module's own ``register``) calls register_tool."""
    for qualname, parameter, receives, _, _ in entries + own_hook(tree, None):
        function = _function(tree, qualname)
        if function is None:
            continue
        from hermes_lint.project.plugin_register import is_register_call, register_tool_aliases

        nodes = list(ast.walk(function))
        contexts = context_names(function, parameter) if receives == "ctx" else set()
        callables = {parameter} if receives == "register_tool" else set(register_tool_aliases(function, contexts, nodes))
        if any(isinstance(n, ast.Call) and is_register_call(n, contexts, callables) for n in nodes):
            return True
    return False


class _Reader:
    def __init__(self, function: FunctionNode, contexts, callables, index, evaluator=None, site=None):
        from hermes_lint.project.plugin_register import is_register_call

        self.site = site  # the call site in another module this reading is for (``remote_sites``)
        self.is_register_call = is_register_call
        nodes = list(ast.walk(function))  # walked once for the questions below
        self.contexts = set(contexts)
        self.callables = set(callables)
        self.function = function
        self.index = index
        self.evaluator = evaluator
        self.local = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        stores: Dict[str, int] = {}
        for n in nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        self.local |= set(stores)
        # Locals assigned once and never changed in place: ``schema = {...}`` is that dict.
        self.constant_locals = {name for name, count in stores.items() if count == 1} - mutated_names(
            nodes, lambda call: is_register_call(call, self.contexts, self.callables)
        )
        self.read: List[ast.Call] = []
        self.handled: List[ast.Call] = []  # calls read at least once
        self.rejected: List[ast.Call] = []  # calls some pass could not read (or past the cap)
        self.reasons: Dict[int, str] = {}  # id(call) -> why it was not read

    def statements(self, body: Sequence[ast.stmt], bindings: Dict[str, ast.expr]) -> None:
        bindings = dict(bindings)
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom) and self.evaluator is not None and hasattr(self.evaluator, "add_import"):
                # `from .schemas import SCHEMA` in the function: SCHEMA is that import
                module = "." * stmt.level + (stmt.module or "")
                for alias in stmt.names:
                    if alias.name == "*":
                        continue
                    origin = f"{module}.{alias.name}" if stmt.module else f"{module}{alias.name}"
                    own = f"{LOCAL_IMPORT}{origin}"
                    self.evaluator.add_import(own, origin, stmt)
                    bindings[alias.asname or alias.name] = ast.Name(id=own, ctx=ast.Load())
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and self._is_register(stmt.value):
                self._emit(stmt.value, bindings)
            elif (isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None
                  and len(targets := (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])) == 1
                  and isinstance(targets[0], ast.Name) and targets[0].id in self.constant_locals):
                bindings[targets[0].id] = substitute_expr(stmt.value, bindings)
            elif isinstance(stmt, ast.For):
                # a table assigned in the function (`tools = {...}`) is that table
                rows = self._rows(substitute_expr(stmt.iter, bindings))
                if rows is None and stmt in self.function.body:
                    rows = self._rows_in_body(stmt)
                bound = [bind_row(stmt.target, row) for row in rows or ()]
                read = [b for b in bound if b is not None]
                if rows is None or len(read) != len(bound):
                    # every row or none: a half-read table would hide its other tools
                    self._unread(stmt, f"the loop over `{ast.unparse(stmt.iter)}` cannot be unrolled statically")
                    continue
                if not read:  # a loop over an empty table: its registrations never run
                    self.handled.extend(n for n in ast.walk(stmt) if isinstance(n, ast.Call) and self._is_register(n))
                for row_bindings in read:
                    self.statements(stmt.body, {**bindings, **row_bindings})
            elif isinstance(stmt, ast.If) and stmt in self.function.body and (raises := self._guard(stmt, bindings)) is not None:
                if raises:  # nothing after it runs
                    rest = self.function.body[self.function.body.index(stmt):]
                    self.handled.extend(n for s in rest for n in ast.walk(s) if isinstance(n, ast.Call) and self._is_register(n))
                    return
            elif isinstance(stmt, (ast.If, ast.With, ast.Try)) or stmt.__class__.__name__ == "TryStar":
                for field in ("body", "orelse", "finalbody"):
                    self.statements(getattr(stmt, field, ()), bindings)
                for handler in getattr(stmt, "handlers", ()):
                    self.statements(handler.body, bindings)

    def _guard(self, stmt: ast.If, bindings: Dict[str, ast.expr]) -> Optional[bool]:
        """Whether ``if test: ... raise`` (a guard that registers nothing and ends in a raise)
        raises, when the evaluator can tell from the bindings of this reading; else None."""
        if (not stmt.body or not isinstance(stmt.body[-1], ast.Raise) or stmt.orelse
                or any(self._is_register(n) for s in stmt.body for n in ast.walk(s))
                or self.evaluator is None or not hasattr(self.evaluator, "own_function")):
            return None
        try:
            test = self.evaluator.evaluate(substitute_expr(stmt.test, bindings))
        except Exception:  # noqa: BLE001 - the evaluator refuses by returning Unresolved; be safe
            return None
        return test if isinstance(test, bool) else None

    def _unread(self, stmt: ast.stmt, reason: str) -> None:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and self._is_register(node):
                self.reasons.setdefault(id(node), reason)

    def _is_register(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and self.is_register_call(node, self.contexts, self.callables)

    def _emit(self, call: ast.Call, bindings: Dict[str, ast.expr]) -> None:
        if len(self.read) >= MAX_UNROLLED:
            self.rejected.append(call)
            self.reasons.setdefault(id(call), f"more than {MAX_UNROLLED} registrations are unrolled from one module")
            return
        # Its own keywords: the ones below replaced are never the module's, whose tree the
        # check of the module takes over (``ProjectModules.parsed_again``).
        synthesized = own_keywords(as_keywords(substitute(call, bindings)))
        if self.evaluator is not None and hasattr(self.evaluator, "own_function"):
            for keyword in synthesized.keywords:
                if keyword.arg in _FUNCTIONS and isinstance(keyword.value, ast.Name) and keyword.value.id.startswith(LOCAL_IMPORT):
                    keyword.value = self._nested_function(keyword.value)
        if self.evaluator is not None and hasattr(self.evaluator, "add_unknown"):
            for keyword in synthesized.keywords:
                if keyword.arg == "schema":
                    keyword.value = self._unknown_parts(keyword.value, ())
        # What the tool is (name, toolset, schema) must be known; a handler, check or flag
        # computed at run time is only unknown itself (``LOCAL_VALUE``), the rest is still read.
        core = list(synthesized.args) + [kw.value for kw in synthesized.keywords if kw.arg in _CORE or kw.arg is None]
        computed = sorted({
            n.id for argument in core for n in ast.walk(argument) if isinstance(n, ast.Name) and n.id in self.local
        })
        if not computed and self.evaluator is not None and hasattr(self.evaluator, "add_unknown"):
            for keyword in synthesized.keywords:
                names = sorted({n.id for n in ast.walk(keyword.value) if isinstance(n, ast.Name) and n.id in self.local})
                if keyword.arg in _CORE or not names:
                    continue
                own = f"{LOCAL_VALUE}{keyword.arg}"
                listed = ", ".join(f"`{name}`" for name in names)
                self.evaluator.add_unknown(own, f"{listed} {'is' if len(names) == 1 else 'are'} computed inside "
                                                f"`{self.function.name}` at run time")
                keyword.value = ast.copy_location(ast.Name(id=own, ctx=ast.Load()), keyword.value)
        elif not computed:
            computed = sorted({
                n.id for kw in synthesized.keywords for n in ast.walk(kw.value) if isinstance(n, ast.Name) and n.id in self.local
            })
        if computed:
            self.rejected.append(call)
            shown = ", ".join(f"`{name}`" for name in computed)
            self.reasons.setdefault(
                id(call), f"{shown} {'is' if len(computed) == 1 else 'are'} computed inside `{self.function.name}` at run time"
            )
            return  # depends on a value computed inside register(): not read
        if self.site is not None:
            setattr(synthesized, SITE_ATTRIBUTE, self.site)
        self.read.append(synthesized)
        if call not in self.handled:
            self.handled.append(call)

    def _nested_function(self, node: ast.Name) -> ast.expr:
        """An imported name that is a nested def of this module once evaluated (a wrapper a
        decorator of this module returned for the function imported): named where it is
        defined; else ``node`` itself."""
        try:
            value = self.evaluator.evaluate(node, objects=True)
            function = self.evaluator.own_function(value)
        except Exception:  # noqa: BLE001 - the evaluator refuses by returning Unresolved; be safe
            return node
        if function is None or NESTED not in function:
            return node
        return row_node(value, node, self.evaluator)

    def _unknown_parts(self, node: ast.expr, path: Tuple[Union[str, int], ...]) -> ast.expr:
        """A schema display with each value computed at run time (``f"... {cfg.limit}"``) under
        its ``description`` or ``parameters`` that is not the schema's structure
        (``is_structural_path``) given a name of its own the evaluator refuses: that part is
        unknown (a hole), the rest is read. Any other computed value (the schema's name, its
        structure, a computed key, a ``**`` of a computed mapping, a key of another shape such as
        an OpenAI envelope's ``function``) is left as it is, so the registration stays unread."""
        if not isinstance(node, ast.Dict):
            return node
        values = []
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                values.append(value)
                continue
            where = path + (key.value,)
            if isinstance(value, ast.Dict):
                values.append(self._unknown_parts(value, where))
                continue
            names = sorted({n.id for n in ast.walk(value) if isinstance(n, ast.Name) and n.id in self.local})
            if not names or where[0] not in _SCHEMA_PARTS or is_structural_path(where):
                values.append(value)
                continue
            own = f"{LOCAL_VALUE}schema {'.'.join(map(str, where))}"
            listed = ", ".join(f"`{name}`" for name in names)
            self.evaluator.add_unknown(own, f"{listed} {'is' if len(names) == 1 else 'are'} computed inside "
                                            f"`{self.function.name}` at run time")
            values.append(ast.copy_location(ast.Name(id=own, ctx=ast.Load()), value))
        return ast.copy_location(ast.Dict(keys=list(node.keys), values=values), node)

    def _rows(self, node: ast.expr) -> Optional[List[ast.expr]]:
        """The elements of a literal table: a tuple/list display, a module constant bound once to
        one, the ``.items()`` of a dict display; else of a value the evaluator computes."""
        items = False
        original = node
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "items"
                and not node.args and not node.keywords):
            items, node = True, node.func.value
        receiver = node
        if isinstance(node, ast.Name) and node.id not in self.local:
            values = self.index.assigned.get(node.id)
            if (values and len(values) == 1 and node.id not in self.index.functions and node.id not in self.index.imports
                    and self._assigned_once(node.id)):
                node = values[0]
        if items and isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
            return [ast.copy_location(ast.Tuple(elts=[k, v], ctx=ast.Load()), v)
                    for k, v in zip(node.keys, node.values) if k is not None]
        if not items and isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return list(node.elts)
        return self._evaluated_rows(receiver if items else original, items, original)

    def _rows_in_body(self, loop: ast.For) -> Optional[List[ast.expr]]:
        """Rows of a table the function builds in its locals before the loop (``handlers =
        build(); handlers.pop("_x")``), evaluated by running its statements up to the loop (its
        register calls left out) with its parameters unknown; None when any part is unknown."""
        if self.evaluator is None or not hasattr(self.evaluator, "evaluate_in_body"):
            return None
        iterable, items = loop.iter, False
        if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "items"
                and not iterable.args and not iterable.keywords):
            iterable, items = iterable.func.value, True
        skip = [s for s in self.function.body if isinstance(s, ast.Expr) and self._is_register(s.value)]
        try:
            value = self.evaluator.evaluate_in_body(self.function, loop, iterable, skip)
        except Exception:  # noqa: BLE001 - the evaluator refuses by returning Unresolved; be safe
            return None
        if isinstance(value, dict):
            value = list(value.items()) if items else list(value)
        elif items or not isinstance(value, (list, tuple)):
            return None
        return [row_node(item, loop.iter, self.evaluator) for item in value]

    def _assigned_once(self, name: str) -> bool:
        """Whether module name ``name`` is its assigned value (no statement changes it after)."""
        return self.evaluator is None or not hasattr(self.evaluator, "is_constant") or self.evaluator.is_constant(name)

    def _evaluated_rows(self, node: ast.expr, items: bool = False, at: Optional[ast.expr] = None) -> Optional[List[ast.expr]]:
        """Rows of a table the evaluator computes (a comprehension, a constant of another module;
        with ``items``, the ``.items()`` of the dict ``node`` computes), as literal nodes located
        at the loop's iterable (``at``); None when any part is unknown."""
        at = node if at is None else at
        if self.evaluator is None or any(isinstance(n, ast.Name) and n.id in self.local for n in ast.walk(node)):
            return None
        rows_of_objects = hasattr(self.evaluator, "add_value")
        try:
            value = self.evaluator.evaluate(node, objects=True) if rows_of_objects else self.evaluator.evaluate(node)
        except Exception:  # noqa: BLE001 - the evaluator refuses by returning Unresolved; be safe
            return None
        # where a part that is no literal (a handler) is found again: ``TABLE[i][j]``, ``TABLE[key]``
        if isinstance(value, dict):
            value = list(value.items()) if items else list(value)
        elif items:
            return None
        if not isinstance(value, (list, tuple)):
            return None
        if rows_of_objects:
            return [row_node(item, at, self.evaluator) for item in value]
        rows = [literal_node(item, at) for item in value]
        return None if any(row is None for row in rows) else rows  # type: ignore[return-value]


_CORE = frozenset({"name", "toolset", "schema"})
_FUNCTIONS = frozenset({"handler", "check_fn"})
# The keys of a Hermes tool schema under which a value computed at run time can be an unknown
# part (not its "name"; nor anything of another shape, such as an OpenAI envelope's "function").
_SCHEMA_PARTS = frozenset({"description", "parameters"})
