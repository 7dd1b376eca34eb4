"""What a name of a plugin's modules is bound to, read from the syntax trees (never imported):
a function, a class, an instance of one, a module of the project, or unknown (with why).

``plugin_register`` asks it while following ``register``: the loader's ``getattr(loaded,
"register")`` on the module an entry point names, re-exports (``from .hermes import register``,
``register = _register``, ``from .x import *``), attributes of modules and classes (their bases
followed in order), function-local imports.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple, Union

from hermes_lint.model.scopes import bindings, parameter_names
from hermes_lint.project.plugins import SOURCE_ROOTS, PluginSpec, module_file

MAX_DEPTH = 8  # calls deep from register, and re-exports followed per name


@dataclass
class ModuleSyntax:
    path: str
    tree: ast.Module
    name: str  # dotted import name ("" for a directory plugin's own __init__.py at the root)
    is_package: bool
    _top: Optional[Tuple[Dict[str, ast.stmt], List[ast.ImportFrom]]] = field(default=None, compare=False, repr=False)

    def top_level(self) -> Tuple[Dict[str, ast.stmt], List[ast.ImportFrom]]:
        """Each name the module's top-level statements bind -> the last statement binding it,
        and its ``from ... import *`` statements in order: read once, for every name asked."""
        if self._top is None:
            last: Dict[str, ast.stmt] = {}
            stars: List[ast.ImportFrom] = []
            for stmt in self.tree.body:
                for name in _bound_names(stmt):
                    last[name] = stmt
                if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                    stars.append(stmt)
            self._top = (last, stars)
        return self._top


@dataclass
class Target:
    kind: str  # "function", "class", "instance", "module", "method-of-class", "method-of-instance", "absent", "unknown"
    module: Optional[ModuleSyntax] = None
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


class ProjectNames:
    """Name resolution over the project's modules, each parsed once (``project``:
    ``evaluate.project.ProjectModules``)."""

    def __init__(self, root: Path, spec: PluginSpec, project):
        self.root = root
        self.spec = spec
        self.project = project
        self.modules: Dict[str, Optional[ModuleSyntax]] = {}

    # --- modules and names -----------------------------------------------------------------

    def module(self, path: Optional[str]) -> Optional[ModuleSyntax]:
        if path is None:
            return None
        if path not in self.modules:
            parsed = self.project.parsed(path)
            self.modules[path] = None if parsed is None else ModuleSyntax(
                path, parsed[2], dotted_name(path), path.endswith("__init__.py")
            )
        return self.modules[path]

    def absolute(self, module: ModuleSyntax, origin: Optional[str], level: int) -> Optional[str]:
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

    def resolve(self, module: ModuleSyntax, name: str, depth: int = 0) -> Target:
        """What the top-level name ``name`` of ``module`` is bound to (its last binding)."""
        if depth > MAX_DEPTH:
            return Target("unknown", reason=f"`{name}` is re-exported too many times to follow")
        bound, stars = module.top_level()
        binding = bound.get(name)
        if binding is None:
            for star in reversed(stars):
                found = self.module(self.module_path(self.absolute(module, star.module, star.level)))
                if found is not None:
                    target = self.resolve(found, name, depth + 1)
                    if target.kind != "unknown":
                        return target
            return Target("unknown", reason=f"{module.path} binds no `{name}`")
        if isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return Target("function", module, name, binding)
        if isinstance(binding, ast.ClassDef):
            return Target("class", module, name, binding)
        if isinstance(binding, ast.ImportFrom):
            return self.imported(module, binding, name, depth)
        if isinstance(binding, ast.Import):
            alias = next(a for a in binding.names if (a.asname or a.name.split(".")[0]) == name)
            dotted = alias.name if alias.asname else alias.name.split(".")[0]
            found = self.module(self.module_path(dotted))
            if found is None:
                return Target("unknown", reason=f"`{dotted}` is not a module of the project")
            return Target("module", found)
        value = binding.value if isinstance(binding, (ast.Assign, ast.AnnAssign)) else None
        if value is not None:
            return self.expression(module, value, depth + 1)
        return Target("unknown", reason=f"`{name}` in {module.path} is not a function the loader can be shown to call")

    def imported(self, module: ModuleSyntax, binding: ast.ImportFrom, name: str, depth: int) -> Target:
        """What ``name``, bound by ``from ... import`` in ``module`` (at its top or in a
        function), is."""
        alias = next(a for a in binding.names if (a.asname or a.name) == name)
        origin = self.absolute(module, binding.module, binding.level)
        if origin is None:
            return Target("unknown", reason=f"`{name}` is imported from outside the package")
        submodule = self.module(self.module_path(f"{origin}.{alias.name}" if origin else alias.name))
        if submodule is not None:
            return Target("module", submodule)
        source = self.module(self.module_path(origin))
        if source is None:
            return Target("unknown", reason=f"`{name}` comes from `{origin}`, which is not a module of the project")
        return self.resolve(source, alias.name, depth + 1)

    def expression(self, module: ModuleSyntax, node: ast.expr, depth: int) -> Target:
        if isinstance(node, ast.Name):
            return self.resolve(module, node.id, depth)
        if isinstance(node, ast.Attribute):
            owner = self.expression(module, node.value, depth)
            return self.member(owner, node.attr, depth)
        if isinstance(node, ast.Call):
            made = self.expression(module, node.func, depth)
            if made.kind == "class":
                return Target("instance", made.module, made.qualname, made.node)
        return Target("unknown", reason=f"`{ast.unparse(node)}` is computed at run time")

    def member(self, owner: Target, attr: str, depth: int) -> Target:
        if owner.kind == "module" and owner.module is not None:
            return self.resolve(owner.module, attr, depth + 1)
        if owner.kind in ("class", "instance") and isinstance(owner.node, ast.ClassDef):
            return self.method(owner, owner, attr, depth)
        if owner.kind == "unknown":
            return owner
        return Target("unknown", reason=f"`{attr}` of a {owner.kind} is not followed")

    def method(self, owner: Target, cls: Target, attr: str, depth: int) -> Target:
        """``attr`` of ``owner`` (a class or an instance) defined in ``cls`` or its bases, in
        order; ``"absent"`` when no class of the chain defines it and all are of the project."""
        assert isinstance(cls.node, ast.ClassDef) and cls.module is not None
        for stmt in cls.node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                return Target("method-of-" + owner.kind, cls.module, f"{cls.qualname}.{attr}", stmt)
        for base in cls.node.bases:
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            found = self.expression(cls.module, base, depth + 1) if depth <= MAX_DEPTH else Target("unknown")
            if found.kind != "class":
                return Target("unknown", reason=f"class `{cls.qualname}` defines no method `{attr}` (its base "
                                                 f"`{ast.unparse(base)}` may)")
            inherited = self.method(owner, found, attr, depth + 1)
            if inherited.kind != "absent":
                return inherited
        return Target("absent", reason=f"class `{owner.qualname}` defines no method `{attr}`")


def _bound_names(stmt: ast.stmt) -> List[str]:
    """The names a top-level statement binds, as ``resolve`` follows them."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, ast.ImportFrom):
        return [a.asname or a.name for a in stmt.names if a.name != "*"]
    if isinstance(stmt, ast.Import):
        return [a.asname or a.name.split(".")[0] for a in stmt.names]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return [stmt.target.id]
    return []


def context_names(function: Union[ast.FunctionDef, ast.AsyncFunctionDef], parameter: str) -> Set[str]:
    """``parameter`` and the local names of ``function`` that are only ever bound to it
    (``host = ctx``, also through another such name): each is the plugin context where it is
    used. A name bound to anything else too, or a parameter, is not: what it holds at a call is
    not known."""
    local = bindings(function)
    others = parameter_names(function) - {parameter}
    names = {parameter}
    grew = True
    while grew:
        grew = False
        for name, values in local.items():
            if (name not in names and name not in others and values
                    and all(isinstance(v, ast.Name) and v.id in names for v in values)):
                names.add(name)
                grew = True
    return names


def partial_context_names(function: ast.AST, names: Set[str], nodes: Optional[List[ast.AST]] = None) -> Set[str]:
    """Local names of ``function`` bound to the plugin context (``names``, its
    ``context_names``) somewhere and to something else elsewhere: a ``register_tool`` call on one
    cannot be read. ``nodes``: its ``ast.walk``, when the caller has it."""
    return {
        target.id
        for node in (ast.walk(function) if nodes is None else nodes) if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Name) and node.value.id in names
        for target in node.targets if isinstance(target, ast.Name) and target.id not in names
    }
