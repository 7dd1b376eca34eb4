"""From a plugin to the functions that receive its context: ``register`` followed as the loader calls it.

The loader gets ``register`` with ``getattr(loaded, "register", None)`` and calls it with one
argument, the plugin context (``plugins.PluginSpec``, and ``docs/plugins.md`` for what
``loaded`` is). Read from the syntax trees (never imported), ``register`` is followed through
re-exports (``from .hermes import register``, ``register = _register``, ``from .x import *``),
a class or an instance named by ``module:object``, and then, inside it, into the functions of
the project that receive the context (``_register.register_plugin(ctx)``, ``self._add(ctx)``)
or its ``register_tool`` (``_add_tools(ctx.register_tool)``, an alias ``rt = getattr(ctx,
"register_tool", None)`` passed on). Each function reached is a ``RegisterFunction``: its
``ctx.register_tool(...)`` calls are read by ``plugin_tools``. What cannot be followed is an
``Unfollowed``, reported as "cannot verify" (HRM003), never dropped; what cannot register a
tool is silent: a context kept in an attribute that only other context methods use
(``stored_context``), a class chosen by a condition (``(A if x else B)(ctx)``, both followed)
whose ``__init__`` (or its bases') only keeps it. Names are resolved by ``plugin_names``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple, Union

from hermes_lint.project.followed_plugins import FollowedPlugin, RegisterFunction, Unfollowed
from hermes_lint.project.plugin_arguments import remote_site
from hermes_lint.project.plugin_names import (
    MAX_DEPTH, ModuleSyntax, ProjectNames, Target, context_names, partial_context_names,
)
from hermes_lint.project.plugins import PluginSpec
from hermes_lint.project.stored_context import first_escape

PLUGIN_METHOD = "register_tool"
HOOK = "register"
MAX_FUNCTIONS = 128  # functions followed per plugin (a module each, in the largest published plugins: 53)

# Calls that take the context without registering anything with it.
_INERT_CALLEES = frozenset({
    "getattr", "hasattr", "isinstance", "issubclass", "print", "repr", "str", "type", "id", "callable",
    "setattr", "vars", "dir", "bool", "len", "format", "super",
})
_INERT_RECEIVERS = frozenset({"logger", "logging", "log", "LOGGER", "_logger", "_log", "warnings"})

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


class _Follower(ProjectNames):
    def __init__(self, root: Path, spec: PluginSpec, project):
        super().__init__(root, spec, project)
        self.functions: List[RegisterFunction] = []
        self.unfollowed: List[Unfollowed] = []
        self._naming: Optional[Tuple[str, ...]] = None
        self.visits: set = set()
        self.call_sites: Dict[Tuple[str, str, str, str], List[Optional[Tuple[int, int]]]] = {}

    # --- the loader --------------------------------------------------------------------------

    def follow(self) -> FollowedPlugin:
        followed = self._follow()
        read = tuple(sorted(path for path, module in self.modules.items() if module is not None))
        functions = []
        for function in followed.functions:
            sites = self.call_sites.get((function.path, function.function, function.parameter, function.receives))
            if sites and all(site is not None for site in sites):
                function = replace(function, call_sites=tuple(sorted(set(sites))))  # type: ignore[arg-type]
            functions.append(function)
        return FollowedPlugin(followed.spec, tuple(functions), followed.unfollowed, followed.problem, read)

    def _follow(self) -> FollowedPlugin:
        spec = self.spec
        module = self.module(spec.register_module)
        if module is None:
            return FollowedPlugin(spec, (), ())
        loaded = Target("module", module)
        entry = spec.entry_point
        if entry is not None and entry.attribute:
            for part in entry.attribute.split("."):
                loaded = self.member(loaded, part, 0)
        problem = None
        if loaded.kind in ("function", "method-of-class", "method-of-instance"):
            # ep.load() gave a function: the loader looks for `register` on it, and a function
            # has no such attribute. Its body is still read, as the author's register.
            problem = (
                f"`{entry.value if entry else ''}` names a function: the loader calls "
                f"`getattr(<that function>, \"register\", None)`, finds nothing and registers no tool"
            )
            hook = loaded
            index = 1 if loaded.kind == "method-of-instance" and not _is_static(loaded.node) else 0
        else:
            hook = self.member(loaded, HOOK, 0)
            index = 0
            if hook.kind == "method-of-instance":
                index = 0 if _is_static(hook.node) else 1
            elif hook.kind == "method-of-class":
                index = 1 if _is_classmethod(hook.node) else 0
        if hook.kind not in ("function", "method-of-class", "method-of-instance") or hook.module is None:
            where = module.path if entry is None or not entry.attribute else f"`{entry.value}`"
            problem = problem or f"no `register` function found in {where}: {hook.reason}"
            return FollowedPlugin(spec, (), (), problem)
        node = hook.node
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        positional = node.args.posonlyargs + node.args.args
        if len(positional) <= index:
            problem = problem or f"`{hook.qualname}` in {hook.module.path} takes no argument for the plugin context"
            return FollowedPlugin(spec, (), (), problem)
        self.function(hook.module, hook.qualname, node, positional[index].arg, "ctx", 0)
        return FollowedPlugin(spec, tuple(self.functions), tuple(self.unfollowed), problem)

    # --- inside a function ---------------------------------------------------------------------

    def function(self, module: ModuleSyntax, qualname: str, node: FunctionNode, parameter: str, receives: str, depth: int,
                 proxy: Optional[Tuple[str, str]] = None, callees: Tuple["_Callee", ...] = (),
                 carried: Optional[int] = None, caller: Optional[Tuple[ModuleSyntax, ast.AST]] = None) -> None:
        """Follow ``node``, which receives the context (or its register_tool) in ``parameter``
        (at ``carried`` in it when that is its ``*args``); ``callees``: its parameters bound to
        the functions its caller hands it; ``caller``: the call that hands it the context."""
        key = (module.path, qualname, parameter, receives)
        visit = key + (carried, tuple((c.parameter, c.module.path, ast.unparse(c.value)) for c in callees))
        if visit in self.visits:
            return
        known = any((f.path, f.function, f.parameter, f.receives) == key for f in self.functions)
        if (not known and len(self.functions) >= MAX_FUNCTIONS) or len(self.visits) >= 4 * MAX_FUNCTIONS or depth > MAX_DEPTH:
            # said at the call that hands the context on: that module is checked, the callee's
            # module (not followed) may never be
            where, at = caller if caller is not None else (module, node)
            callee = f"the plugin context is passed to `{ast.unparse(at.func)}`, which" if isinstance(at, ast.Call) else f"`{qualname}`"
            if depth > MAX_DEPTH:
                self.report(where, at, f"{callee} is more calls deep than hermes-lint follows ({MAX_DEPTH})")
            else:
                self.report(where, at, f"{callee} is past the {MAX_FUNCTIONS} functions hermes-lint follows in one plugin")
            return
        self.visits.add(visit)
        if not known:
            self.functions.append(RegisterFunction(self.spec.name, module.path, qualname, parameter, receives, node.lineno))
        nodes = list(ast.walk(node))  # walked once: every question below is about its nodes
        contexts = context_names(node, parameter) if receives == "ctx" and carried is None else set()
        callables = {parameter} if receives == "register_tool" else set(register_tool_aliases(node, contexts, nodes))
        scope = _Scope(
            module, qualname.rsplit(".", 1)[0] if "." in qualname else None, depth,
            # `from .tools import register_tools` inside the function binds a name there
            {(a.asname or a.name): stmt for stmt in nodes if isinstance(stmt, ast.ImportFrom)
             for a in stmt.names if a.name != "*"},
            {c.parameter: c for c in callees},
            _literal_loops(nodes),
            {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)},
            qualname,
        )
        for stored in nodes:
            # ``self.ctx = ctx``: registrations made later through the attribute are not followed
            if (isinstance(stored, ast.Assign) and _what_is_passed(stored.value, contexts, callables) is not None
                    and not all(isinstance(t, ast.Name) for t in stored.targets)):
                reason = self.stored(module, stored, proxy)
                if reason is not None:
                    self.report(module, stored, reason)
        # ``ctx = Proxy(ctx)``: the proxy is the context from here on
        rebinding = {
            id(s.value) for s in nodes if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call)
            and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and s.targets[0].id in contexts
        }
        partial = partial_context_names(node, contexts, nodes) if contexts else set()
        for call in nodes:
            if not isinstance(call, ast.Call) or is_register_call(call, contexts, callables):
                continue
            if is_register_call(call, partial, ()):
                self.report(module, call, f"`{call.func.value.id}` is the plugin context on some paths only")  # type: ignore[attr-defined]
                continue
            passed = [(i, None, a) for i, a in enumerate(call.args)] + [(None, k.arg, k.value) for k in call.keywords]
            for position, keyword, argument in passed:
                what = _what_is_passed(argument, contexts, callables)
                if (what is None and carried is not None and isinstance(argument, ast.Starred) and position is not None
                        and isinstance(argument.value, ast.Name) and argument.value.id == parameter
                        and not any(isinstance(a, ast.Starred) for a in call.args[:position])):
                    what, position = receives, position + carried  # `fn(*args)`: the context is args[carried]
                if what is None:
                    continue
                self.passed(scope, call, position, keyword, what, id(call) in rebinding)

    def report(self, module: ModuleSyntax, node: ast.AST, reason: str) -> None:
        found = Unfollowed(self.spec.name, module.path, node.lineno, node.col_offset + 1, reason)  # type: ignore[attr-defined]
        if found not in self.unfollowed:
            self.unfollowed.append(found)

    def passed(self, scope: "_Scope", call: ast.Call, position: Optional[int], keyword: Optional[str], what: str,
               replaces_context: bool = False, func: Optional[ast.expr] = None) -> None:
        module, depth = scope.module, scope.depth
        func = call.func if func is None else func
        if isinstance(func, ast.IfExp):  # `(A if managed else B)(ctx)`: either may be called
            for branch in (func.body, func.orelse):
                self.passed(scope, call, position, keyword, what, replaces_context, branch)
            return
        target: Optional[Target]
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in scope.loops:  # `for part in (a, b): part.register(ctx)`
            for element in scope.loops[root.id]:
                self.passed(scope, call, position, keyword, what, replaces_context, _replace_root(func, element))
            return
        if isinstance(func, ast.Name) and func.id in scope.callees:  # a function its caller handed it
            bound_callee = scope.callees[func.id]
            target = self.callee(bound_callee.module, bound_callee.owner, bound_callee.value, depth)
            text = ast.unparse(bound_callee.value)
        elif isinstance(func, ast.Name) and func.id in scope.parameters:
            target, text = Target("unknown", reason=f"a parameter of `{scope.function}` whose argument is not a "
                                                    "function of the project named where it is called"), func.id
        else:
            target, text = self.called(scope, func), ast.unparse(func)
        if target is None:
            return  # a builtin or a logger: it registers no tool
        proxy = None
        if target.kind == "class" and isinstance(target.node, ast.ClassDef):
            # a constructor: the context goes to its __init__ (after self)
            if replaces_context and target.module is not None:
                proxy = (target.module.path, target.node.name)
            target = self.member(Target("instance", target.module, target.qualname, target.node), "__init__", depth)
            if target.kind == "absent":
                return  # object's __init__: the context goes nowhere
        if target.kind not in ("function", "method-of-class", "method-of-instance") or target.module is None:
            if target.kind == "unknown" and target.reason.startswith("`self`"):
                return
            self.report(module, call, (
                f"the plugin context{'' if what == 'ctx' else chr(39) + 's register_tool'} is passed to `{text}`, "
                f"which cannot be followed ({target.reason or 'not a function of the project'})"
            ))
            return
        node = target.node
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        positional = [a.arg for a in node.args.posonlyargs + node.args.args]
        bound = 1 if target.kind == "method-of-instance" and not _is_static(node) else 0
        bound = 1 if target.kind == "method-of-class" and _is_classmethod(node) else bound
        carried = None
        if keyword is not None:
            names = positional + [a.arg for a in node.args.kwonlyargs]
            parameter = keyword if keyword in names else None
        else:
            assert position is not None
            index = position + bound
            starred = any(isinstance(a, ast.Starred) for a in call.args[:min(position, len(call.args))])
            parameter = positional[index] if index < len(positional) and not starred else None
            if parameter is None and not starred and node.args.vararg is not None and index >= len(positional):
                parameter, carried = node.args.vararg.arg, index - len(positional)  # `def _safe(label, fn, *args)`
        if parameter is None:
            self.report(module, call, f"`{text}` takes the plugin context in no parameter hermes-lint can name")
            return
        by_name = target.kind == "function" and func is call.func and carried is None
        site: Optional[tuple] = None
        if by_name and target.module.path == module.path:
            site = (call.lineno, call.col_offset)
        elif by_name and module.name:  # a helper of another module: its names, as that module's
            site = remote_site(module, call, positional)
        self.call_sites.setdefault((target.module.path, target.qualname, parameter, what), []).append(site)
        self.function(target.module, target.qualname, node, parameter, what, depth + 1, proxy,
                      _handed_functions(scope, call, node, positional, bound), carried, (module, call))

    def called(self, scope: "_Scope", func: ast.expr) -> Optional[Target]:
        """What ``func`` (called with the context) is; None for a call that registers nothing."""
        module, depth = scope.module, scope.depth
        if isinstance(func, ast.Name) and func.id in _INERT_CALLEES and func.id not in scope.local_imports:
            return None  # builtins never register a tool
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in _INERT_RECEIVERS:
            return None
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in scope.local_imports:
            base = self.imported(module, scope.local_imports[root.id], root.id, depth)
            return base if root is func else self._members(base, func, depth)
        return self.callee(module, scope.owner, func, depth)

    def stored(self, module: ModuleSyntax, stored: ast.Assign, proxy: Optional[Tuple[str, str]]) -> Optional[str]:
        """Why a context stored by ``stored`` may register a tool that is not read; None when no
        use of where it is kept can (``stored_context``)."""
        target = next(t for t in stored.targets if not isinstance(t, ast.Name))
        where = ast.unparse(target)
        if not isinstance(target, ast.Attribute):
            if not _mentions_register_tool(module):
                return None
            return f"the plugin context is stored in `{where}`, which is not followed"
        trees = [(m.path, m.tree) for m in (self.module(p) for p in self.naming_register_tool()) if m is not None]
        escape = first_escape(trees, target.attr, proxy)
        if escape is None:
            return None
        return f"the plugin context is stored in `{where}`, which is not followed ({escape})"

    def naming_register_tool(self) -> Tuple[str, ...]:
        if self._naming is None:
            self._naming = files_naming_register_tool(self.root, self.spec)
        return self._naming

    def _members(self, base: Target, func: ast.expr, depth: int) -> Target:
        """``base`` (what the root name of ``func`` is) followed through ``func``'s attributes."""
        chain = []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        for attr in reversed(chain):
            base = self.member(base, attr, depth)
        return base

    def callee(self, module: ModuleSyntax, owner: Optional[str], func: ast.expr, depth: int) -> Target:
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls") and owner is not None):
            cls = self.resolve(module, owner.split(".")[0])
            if cls.kind == "class":
                return self.member(Target("instance", cls.module, cls.qualname, cls.node), func.attr, depth)
            return Target("unknown", reason="`self` of a nested class")
        if isinstance(func, ast.Name):
            return self.resolve(module, func.id, depth)
        return self.expression(module, func, depth)


@dataclass(frozen=True)
class _Callee:
    """A function handed to a parameter of the function followed (``_try(ctx, "tools", _add)``)."""

    parameter: str
    module: ModuleSyntax
    owner: Optional[str]  # the class of the calling method, for ``self.x``
    value: ast.expr  # as the caller wrote it


@dataclass(frozen=True)
class _Scope:
    """What a call inside the function followed is resolved against."""

    module: ModuleSyntax
    owner: Optional[str]
    depth: int
    local_imports: Dict[str, ast.ImportFrom]
    callees: Dict[str, _Callee]
    loops: Dict[str, List[ast.expr]]  # `for part in (berths, cranes):` -> part is each of them
    parameters: Set[str]
    function: str


def _replace_root(func: ast.expr, root: ast.expr) -> ast.expr:
    """``func`` (``part.register``) with its root name replaced by ``root``, located at ``root``."""
    if isinstance(func, ast.Attribute):
        return ast.copy_location(ast.Attribute(value=_replace_root(func.value, root), attr=func.attr, ctx=ast.Load()), root)
    return root


def _literal_loops(nodes: List[ast.AST]) -> Dict[str, List[ast.expr]]:
    """Loop variables bound nowhere else that run over a display of names (``(a, b.c)``), in a
    function of these nodes (``ast.walk``'s)."""
    stores: Dict[str, int] = {}
    for name in nodes:
        if isinstance(name, ast.Name) and not isinstance(name.ctx, ast.Load):
            stores[name.id] = stores.get(name.id, 0) + 1
    return {
        loop.target.id: list(loop.iter.elts) for loop in nodes
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and stores.get(loop.target.id) == 1
        and isinstance(loop.iter, (ast.Tuple, ast.List))
        and all(isinstance(e, (ast.Name, ast.Attribute)) for e in loop.iter.elts)
    }


def _handed_functions(scope: _Scope, call: ast.Call, node: FunctionNode, positional: List[str], bound: int) -> Tuple[_Callee, ...]:
    """The parameters of ``node`` that its body calls, bound to the names or attributes ``call``
    passes them (a parameter the caller was itself handed stays bound to what it was handed)."""
    called = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    handed: List[_Callee] = []
    arguments = [(positional[i + bound], a) for i, a in enumerate(call.args)
                 if i + bound < len(positional) and not any(isinstance(b, ast.Starred) for b in call.args[:i + 1])]
    arguments += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
    for parameter, value in arguments:
        if parameter not in called:
            continue
        if isinstance(value, ast.Name) and value.id in scope.callees:
            forwarded = scope.callees[value.id]
            handed.append(_Callee(parameter, forwarded.module, forwarded.owner, forwarded.value))
        elif isinstance(value, (ast.Name, ast.Attribute)):
            handed.append(_Callee(parameter, scope.module, scope.owner, value))
    return tuple(handed)


def _mentions_register_tool(module: ModuleSyntax) -> bool:
    """``register_tool`` appears in the module (an attribute or a string): a context it stores
    may register tools later; one that never names it only keeps the context."""
    return any(
        (isinstance(n, ast.Attribute) and n.attr == PLUGIN_METHOD) or (isinstance(n, ast.Constant) and n.value == PLUGIN_METHOD)
        for n in ast.walk(module.tree)
    )


def _decorated(node: Optional[ast.AST], name: str) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(d, ast.Name) and d.id == name for d in node.decorator_list
    )


def _is_static(node: Optional[ast.AST]) -> bool:
    return _decorated(node, "staticmethod")


def _is_classmethod(node: Optional[ast.AST]) -> bool:
    return _decorated(node, "classmethod")


def is_alias_of_register_tool(value: ast.expr, contexts) -> bool:
    """``ctx.register_tool``, ``getattr(ctx, "register_tool")``, ``getattr(ctx, "register_tool", None)``."""
    if isinstance(value, ast.Attribute):
        return value.attr == PLUGIN_METHOD and isinstance(value.value, ast.Name) and value.value.id in contexts
    return (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr"
        and 2 <= len(value.args) <= 3 and isinstance(value.args[0], ast.Name) and value.args[0].id in contexts
        and isinstance(value.args[1], ast.Constant) and value.args[1].value == PLUGIN_METHOD
    )


def register_tool_aliases(function: FunctionNode, contexts, nodes: Optional[List[ast.AST]] = None) -> List[str]:
    """Names assigned ``ctx.register_tool`` (or a ``getattr`` of it) in ``function`` (``nodes``:
    its ``ast.walk``, when the caller has it)."""
    found = []
    for node in ast.walk(function) if nodes is None else nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if is_alias_of_register_tool(node.value, contexts):
                found.append(node.targets[0].id)
        elif isinstance(node, ast.NamedExpr) and is_alias_of_register_tool(node.value, contexts):
            found.append(node.target.id)
    return found


def is_register_call(call: ast.Call, contexts, callables) -> bool:
    """``ctx.register_tool(...)`` or ``alias(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr == PLUGIN_METHOD and isinstance(func.value, ast.Name) and func.value.id in contexts
    return isinstance(func, ast.Name) and func.id in callables


def _what_is_passed(argument: ast.expr, contexts, callables) -> Optional[str]:
    if isinstance(argument, ast.Name) and argument.id in contexts:
        return "ctx"
    if isinstance(argument, ast.Name) and argument.id in callables:
        return "register_tool"
    if is_alias_of_register_tool(argument, contexts):
        return "register_tool"
    return None


def follow_plugin(root: Path, spec: PluginSpec, project) -> FollowedPlugin:
    """``spec``'s register functions, read through ``project`` (``evaluate.project.ProjectModules``).
    One of several directory plugins (a Hermes tree's bundled plugins, ``~/.hermes/plugins``)
    none of whose files names ``register_tool`` registers no tool: it is not parsed, and that is
    what it is said to be (not that its ``register`` registers nothing: it may have none)."""
    several = spec.entry_point is None and spec.directory != "."
    if several and spec.register_module is not None and not _package_mentions_register_tool(root, spec):
        return FollowedPlugin(spec, (), (), "none of its files names `register_tool`")
    return _Follower(root, spec, project).follow()


MAX_SCANNED_FILES = 2_000


def _package_mentions_register_tool(root: Path, spec: PluginSpec) -> bool:
    return bool(files_naming_register_tool(root, spec, first_only=True))


def files_naming_register_tool(root: Path, spec: PluginSpec, first_only: bool = False) -> Tuple[str, ...]:
    """The ``.py`` files of the plugin's directory (its register module's, when that is
    elsewhere) that contain the word, relative to ``root``: a cheap byte search of at most
    ``MAX_SCANNED_FILES`` files (the one past the bound, or an unreadable one, counts as naming it)."""
    import os

    directory = root / spec.directory
    if spec.register_module is not None and not (root / spec.register_module).is_relative_to(directory):
        directory = (root / spec.register_module).parent
    found: List[str] = []
    scanned = 0
    for base, subdirectories, files in os.walk(directory):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".") and d not in ("node_modules", "__pycache__"))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            scanned += 1
            path = os.path.join(base, name)
            try:
                with open(path, "rb") as handle:
                    naming = scanned > MAX_SCANNED_FILES or PLUGIN_METHOD.encode() in handle.read(4_000_000)
            except OSError:
                naming = True  # unreadable: followed, and reported as such
            if naming:
                found.append(Path(os.path.relpath(path, root)).as_posix())
                if first_only or scanned > MAX_SCANNED_FILES:
                    return tuple(found)
    return tuple(found)
