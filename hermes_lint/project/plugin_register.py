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
``Unfollowed``, reported as "cannot verify" (HRM003), never dropped.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from hermes_lint.project.plugins import SOURCE_ROOTS, PluginSpec, module_file

PLUGIN_METHOD = "register_tool"
HOOK = "register"
MAX_FUNCTIONS = 64  # functions followed per plugin
MAX_DEPTH = 8  # calls deep from register, and re-exports followed per name

# Calls that take the context without registering anything with it.
_INERT_CALLEES = frozenset({
    "getattr", "hasattr", "isinstance", "issubclass", "print", "repr", "str", "type", "id", "callable",
    "setattr", "vars", "dir", "bool", "len", "format", "super",
})
_INERT_RECEIVERS = frozenset({"logger", "logging", "log", "LOGGER", "_logger", "_log", "warnings"})

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


@dataclass(frozen=True)
class RegisterFunction:
    """A function that receives the plugin context (``receives="ctx"``) or the context's
    ``register_tool`` (``"register_tool"``) in ``parameter`` when the loader calls ``register``."""

    plugin: str
    path: str  # the module's file, relative to the project root
    function: str  # qualified name in that module: "register", "Plugin.register", "_add_tools"
    parameter: str
    receives: str
    line: int  # of its ``def``


@dataclass(frozen=True)
class Unfollowed:
    """Where the context (or its ``register_tool``) goes somewhere that cannot be read."""

    plugin: str
    path: str
    line: int
    col: int
    reason: str


@dataclass(frozen=True)
class FollowedPlugin:
    spec: PluginSpec
    functions: Tuple[RegisterFunction, ...]
    unfollowed: Tuple[Unfollowed, ...]
    # Why the loader would call no ``register(ctx)`` (None: it calls ``functions[0]``, or no
    # module was found, which ``spec.register_module`` says).
    problem: Optional[str] = None
    read: Tuple[str, ...] = ()  # every module file read to follow ``register``


@dataclass
class _Module:
    path: str
    tree: ast.Module
    name: str  # dotted import name ("" for a directory plugin's own __init__.py at the root)
    is_package: bool


@dataclass
class _Target:
    kind: str  # "function", "class", "instance", "module", "unknown"
    module: Optional[_Module] = None
    qualname: str = ""
    node: Optional[ast.AST] = None
    reason: str = ""


def dotted_name(path: str) -> str:
    """``src/pkg/mod.py`` -> ``pkg.mod``; ``pkg/__init__.py`` -> ``pkg``; ``__init__.py`` -> ``""``."""
    stem = path[:-3] if path.endswith(".py") else path
    parts = stem.split("/")
    if len(parts) > 1 and parts[0] in SOURCE_ROOTS and parts[0]:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class _Follower:
    def __init__(self, root: Path, spec: PluginSpec, project):
        self.root = root
        self.spec = spec
        self.project = project
        self.functions: List[RegisterFunction] = []
        self.unfollowed: List[Unfollowed] = []
        self.modules: Dict[str, Optional[_Module]] = {}

    # --- modules and names -----------------------------------------------------------------

    def module(self, path: Optional[str]) -> Optional[_Module]:
        if path is None:
            return None
        if path not in self.modules:
            parsed = self.project.parsed(path)
            self.modules[path] = None if parsed is None else _Module(
                path, parsed[2], dotted_name(path), path.endswith("__init__.py")
            )
        return self.modules[path]

    def absolute(self, module: _Module, origin: Optional[str], level: int) -> Optional[str]:
        if level == 0:
            return origin
        package = module.name.split(".") if module.name else []
        if not module.is_package:
            package = package[:-1]
        if level - 1 > len(package):
            return None
        base = package[: len(package) - (level - 1)]
        return ".".join(base + ([origin] if origin else []))

    def module_path(self, dotted: Optional[str]) -> Optional[str]:
        if dotted is None:
            return None
        if dotted == "" and self.spec.register_module == "__init__.py":
            return "__init__.py"
        return module_file(self.root, dotted)

    def resolve(self, module: _Module, name: str, depth: int = 0) -> _Target:
        """What the top-level name ``name`` of ``module`` is bound to (its last binding)."""
        if depth > MAX_DEPTH:
            return _Target("unknown", reason=f"`{name}` is re-exported too many times to follow")
        binding: Optional[ast.stmt] = None
        stars: List[ast.ImportFrom] = []
        for stmt in module.tree.body:
            if _binds(stmt, name):
                binding = stmt
            elif isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                stars.append(stmt)
        if binding is None:
            for star in reversed(stars):
                found = self.module(self.module_path(self.absolute(module, star.module, star.level)))
                if found is not None:
                    target = self.resolve(found, name, depth + 1)
                    if target.kind != "unknown":
                        return target
            return _Target("unknown", reason=f"{module.path} binds no `{name}`")
        if isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _Target("function", module, name, binding)
        if isinstance(binding, ast.ClassDef):
            return _Target("class", module, name, binding)
        if isinstance(binding, ast.ImportFrom):
            return self.imported(module, binding, name, depth)
        if isinstance(binding, ast.Import):
            alias = next(a for a in binding.names if (a.asname or a.name.split(".")[0]) == name)
            dotted = alias.name if alias.asname else alias.name.split(".")[0]
            found = self.module(self.module_path(dotted))
            if found is None:
                return _Target("unknown", reason=f"`{dotted}` is not a module of the project")
            return _Target("module", found)
        value = binding.value if isinstance(binding, (ast.Assign, ast.AnnAssign)) else None
        if value is not None:
            return self.expression(module, value, depth + 1)
        return _Target("unknown", reason=f"`{name}` in {module.path} is not a function the loader can be shown to call")

    def imported(self, module: _Module, binding: ast.ImportFrom, name: str, depth: int) -> _Target:
        """What ``name``, bound by ``from ... import`` in ``module`` (at its top or in a
        function), is."""
        alias = next(a for a in binding.names if (a.asname or a.name) == name)
        origin = self.absolute(module, binding.module, binding.level)
        if origin is None:
            return _Target("unknown", reason=f"`{name}` is imported from outside the package")
        submodule = self.module(self.module_path(f"{origin}.{alias.name}" if origin else alias.name))
        if submodule is not None:
            return _Target("module", submodule)
        source = self.module(self.module_path(origin))
        if source is None:
            return _Target("unknown", reason=f"`{name}` comes from `{origin}`, which is not a module of the project")
        return self.resolve(source, alias.name, depth + 1)

    def expression(self, module: _Module, node: ast.expr, depth: int) -> _Target:
        if isinstance(node, ast.Name):
            return self.resolve(module, node.id, depth)
        if isinstance(node, ast.Attribute):
            owner = self.expression(module, node.value, depth)
            return self.member(owner, node.attr, depth)
        if isinstance(node, ast.Call):
            made = self.expression(module, node.func, depth)
            if made.kind == "class":
                return _Target("instance", made.module, made.qualname, made.node)
        return _Target("unknown", reason=f"`{ast.unparse(node)}` is computed at run time")

    def member(self, owner: _Target, attr: str, depth: int) -> _Target:
        if owner.kind == "module" and owner.module is not None:
            return self.resolve(owner.module, attr, depth + 1)
        if owner.kind in ("class", "instance") and isinstance(owner.node, ast.ClassDef):
            for stmt in owner.node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                    return _Target("method-of-" + owner.kind, owner.module, f"{owner.qualname}.{attr}", stmt)
            return _Target("unknown", reason=f"class `{owner.qualname}` defines no method `{attr}` (a base class may)")
        if owner.kind == "unknown":
            return owner
        return _Target("unknown", reason=f"`{attr}` of a {owner.kind} is not followed")

    # --- the loader --------------------------------------------------------------------------

    def follow(self) -> FollowedPlugin:
        followed = self._follow()
        read = tuple(sorted(path for path, module in self.modules.items() if module is not None))
        return FollowedPlugin(followed.spec, followed.functions, followed.unfollowed, followed.problem, read)

    def _follow(self) -> FollowedPlugin:
        spec = self.spec
        module = self.module(spec.register_module)
        if module is None:
            return FollowedPlugin(spec, (), ())
        loaded = _Target("module", module)
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

    def function(self, module: _Module, qualname: str, node: FunctionNode, parameter: str, receives: str, depth: int) -> None:
        key = (module.path, qualname, parameter, receives)
        if any((f.path, f.function, f.parameter, f.receives) == key for f in self.functions):
            return
        if len(self.functions) >= MAX_FUNCTIONS or depth > MAX_DEPTH:
            self.unfollowed.append(Unfollowed(self.spec.name, module.path, node.lineno, node.col_offset + 1,
                                              f"`{qualname}` is more calls deep than hermes-lint follows"))
            return
        self.functions.append(RegisterFunction(self.spec.name, module.path, qualname, parameter, receives, node.lineno))
        contexts = {parameter} if receives == "ctx" else set()
        callables = {parameter} if receives == "register_tool" else set(register_tool_aliases(node, contexts))
        owner = qualname.rsplit(".", 1)[0] if "." in qualname else None
        # `from .tools import register_tools` inside the function binds a name there
        local_imports = {
            (a.asname or a.name): stmt for stmt in ast.walk(node) if isinstance(stmt, ast.ImportFrom)
            for a in stmt.names if a.name != "*"
        }
        for stored in ast.walk(node):
            # ``self.ctx = ctx``: registrations made later through the attribute are not followed
            if (isinstance(stored, ast.Assign) and _what_is_passed(stored.value, contexts, callables) is not None
                    and not all(isinstance(t, ast.Name) for t in stored.targets) and _mentions_register_tool(module)):
                self.unfollowed.append(Unfollowed(
                    self.spec.name, module.path, stored.lineno, stored.col_offset + 1,
                    f"the plugin context is stored in `{ast.unparse(stored.targets[0])}`, which is not followed",
                ))
        for call in ast.walk(node):
            if not isinstance(call, ast.Call) or is_register_call(call, contexts, callables):
                continue
            passed = [(i, None, a) for i, a in enumerate(call.args)] + [(None, k.arg, k.value) for k in call.keywords]
            for position, keyword, argument in passed:
                what = _what_is_passed(argument, contexts, callables)
                if what is None:
                    continue
                self.passed(module, owner, call, position, keyword, what, depth, local_imports)

    def passed(self, module: _Module, owner: Optional[str], call: ast.Call, position: Optional[int],
               keyword: Optional[str], what: str, depth: int, local_imports: Dict[str, ast.ImportFrom]) -> None:
        func = call.func
        if isinstance(func, ast.Name) and func.id in _INERT_CALLEES and func.id not in local_imports:
            return  # builtins never register a tool
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and what == "ctx":
            if func.value.id in _INERT_RECEIVERS:
                return
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in local_imports:
            base = self.imported(module, local_imports[root.id], root.id, depth)
            target = base if root is func else self._members(base, func, depth)
        else:
            target = self.callee(module, owner, func, depth)
        if target.kind == "class" and isinstance(target.node, ast.ClassDef):
            # a constructor: the context goes to its __init__ (after self)
            target = self.member(_Target("instance", target.module, target.qualname, target.node), "__init__", depth)
        text = ast.unparse(func)
        if target.kind not in ("function", "method-of-class", "method-of-instance") or target.module is None:
            if target.kind == "unknown" and target.reason.startswith("`self`"):
                return
            self.unfollowed.append(Unfollowed(
                self.spec.name, module.path, call.lineno, call.col_offset + 1,
                f"the plugin context{'' if what == 'ctx' else chr(39) + 's register_tool'} is passed to `{text}`, "
                f"which cannot be followed ({target.reason or 'not a function of the project'})",
            ))
            return
        node = target.node
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        positional = [a.arg for a in node.args.posonlyargs + node.args.args]
        bound = 1 if target.kind == "method-of-instance" and not _is_static(node) else 0
        bound = 1 if target.kind == "method-of-class" and _is_classmethod(node) else bound
        if keyword is not None:
            names = positional + [a.arg for a in node.args.kwonlyargs]
            parameter = keyword if keyword in names else None
        else:
            assert position is not None
            index = position + bound
            parameter = positional[index] if index < len(positional) and not any(
                isinstance(a, ast.Starred) for a in call.args[:position]) else None
        if parameter is None:
            self.unfollowed.append(Unfollowed(self.spec.name, module.path, call.lineno, call.col_offset + 1,
                                              f"`{text}` takes the plugin context in no parameter hermes-lint can name"))
            return
        self.function(target.module, target.qualname, node, parameter, what, depth + 1)

    def _members(self, base: _Target, func: ast.expr, depth: int) -> _Target:
        """``base`` (what the root name of ``func`` is) followed through ``func``'s attributes."""
        chain = []
        while isinstance(func, ast.Attribute):
            chain.append(func.attr)
            func = func.value
        for attr in reversed(chain):
            base = self.member(base, attr, depth)
        return base

    def callee(self, module: _Module, owner: Optional[str], func: ast.expr, depth: int) -> _Target:
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls") and owner is not None):
            cls = self.resolve(module, owner.split(".")[0])
            if cls.kind == "class":
                return self.member(_Target("instance", cls.module, cls.qualname, cls.node), func.attr, depth)
            return _Target("unknown", reason="`self` of a nested class")
        if isinstance(func, ast.Name):
            return self.resolve(module, func.id, depth)
        return self.expression(module, func, depth)


def _mentions_register_tool(module: _Module) -> bool:
    """``register_tool`` appears in the module (an attribute or a string): a context it stores
    may register tools later; one that never names it only keeps the context."""
    return any(
        (isinstance(n, ast.Attribute) and n.attr == PLUGIN_METHOD) or (isinstance(n, ast.Constant) and n.value == PLUGIN_METHOD)
        for n in ast.walk(module.tree)
    )


def _binds(stmt: ast.stmt, name: str) -> bool:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name == name
    if isinstance(stmt, ast.ImportFrom):
        return any((a.asname or a.name) == name for a in stmt.names if a.name != "*")
    if isinstance(stmt, ast.Import):
        return any((a.asname or a.name.split(".")[0]) == name for a in stmt.names)
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == name and stmt.value is not None
    return False


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


def register_tool_aliases(function: FunctionNode, contexts) -> List[str]:
    """Names assigned ``ctx.register_tool`` (or a ``getattr`` of it) in ``function``."""
    found = []
    for node in ast.walk(function):
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
    none of whose files names ``register_tool`` registers no tool: it is not parsed."""
    several = spec.entry_point is None and spec.directory != "."
    if several and spec.register_module is not None and not _package_mentions_register_tool(root, spec):
        return FollowedPlugin(spec, (), ())
    return _Follower(root, spec, project).follow()


MAX_SCANNED_FILES = 2_000


def _package_mentions_register_tool(root: Path, spec: PluginSpec) -> bool:
    """Whether a ``.py`` file of the plugin's directory (its register module's, when that is
    elsewhere) contains the word: a cheap byte search, bounded."""
    import os

    directory = root / spec.directory
    if spec.register_module is not None and not (root / spec.register_module).is_relative_to(directory):
        directory = (root / spec.register_module).parent
    scanned = 0
    for base, subdirectories, files in os.walk(directory):
        subdirectories[:] = [d for d in subdirectories if not d.startswith(".") and d not in ("node_modules", "__pycache__")]
        for name in files:
            if not name.endswith(".py"):
                continue
            scanned += 1
            if scanned > MAX_SCANNED_FILES:
                return True  # too many to tell: follow register
            try:
                with open(os.path.join(base, name), "rb") as handle:
                    if PLUGIN_METHOD.encode() in handle.read(4_000_000):
                        return True
            except OSError:
                return True  # unreadable: followed, and reported as such
    return False
