"""The project's own registry contract, read statically from its registry module.

A tool module calls ``registry.register(...)`` on the object it imports as ``registry``
(``from tools.registry import registry``). Forks change that module: another keyword, another
default for ``is_async``, a dispatch that awaits whatever a handler returns. HRM004 and HRM105
judge a call against the ``register`` the project really has, read from the registry module's
syntax tree (never imported). Where no registry module is found among the project's files, or
its ``register`` cannot be read (``*args``, no such method), the built-in contract — the
reference runtime's ``ToolRegistry.register`` — stands in.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from hermes_lint.model.callables import REGISTER_PARAMETERS, REQUIRED_PARAMETERS

# The built-in contract's parameters: the reference runtime's ``ToolRegistry.register``.
BUILTIN_PARAMETERS, BUILTIN_REQUIRED = REGISTER_PARAMETERS, REQUIRED_PARAMETERS

# Calls by which a registry decides for itself whether a handler is a coroutine.
_COROUTINE_TESTS = frozenset({"isawaitable", "iscoroutine", "iscoroutinefunction", "isfuture"})
_NO_DEFAULT = object()


@dataclass(frozen=True)
class RegistryContract:
    """What a ``register(...)`` call may pass, and how the registry treats coroutines.

    ``source``/``sha256``: the registry module read (None: the built-in contract).
    ``positional``: the parameters positional arguments fill, in order; ``parameters`` every
    keyword it accepts; ``any_keyword``: it takes ``**kwargs`` (no keyword is unknown).
    ``is_async_default``: the default of ``is_async`` (None: no such parameter, or a default
    that is not a constant). ``runs_coroutines``: why the registry runs a coroutine whatever
    ``is_async`` says (it tests handlers or results itself, or forces the flag), else None.
    """

    source: Optional[str]
    sha256: Optional[str]
    positional: Tuple[str, ...]
    parameters: Tuple[str, ...]
    required: Tuple[str, ...]
    any_keyword: bool = False
    is_async_default: Optional[bool] = False
    runs_coroutines: Optional[str] = None
    fallback_reason: Optional[str] = None  # why the built-in contract is used
    method: str = "register"  # "register_tool" for a plugin's ``ctx.register_tool``
    # The files whose appearance or change would change this contract, with their sha256 (""
    # when absent): ``evaluate.project.ProjectModules.lookup_files``. A contract that fell back
    # to the built-in one because ``tools/registry.py`` is missing or broken depends on it too.
    decided_by: Tuple[Tuple[str, str], ...] = ()

    def describe(self) -> str:
        if self.method == "register_tool":
            runs = f"; {self.runs_coroutines}" if self.runs_coroutines else ""
            return f"plugin API ctx.register_tool({', '.join(self.parameters)}){runs}"
        if self.source is None:
            return f"built-in contract ({self.fallback_reason or 'no registry module found'})"
        parts = [f"register({', '.join(self.parameters)}{', **kwargs' if self.any_keyword else ''})"]
        parts.append(f"is_async defaults to {self.is_async_default}" if self.is_async_default is not None
                     else "is_async default unknown")
        if self.runs_coroutines:
            parts.append(self.runs_coroutines)
        return f"{self.source}: " + "; ".join(parts)


def builtin_contract(reason: Optional[str] = None) -> RegistryContract:
    return RegistryContract(None, None, BUILTIN_PARAMETERS, BUILTIN_PARAMETERS, BUILTIN_REQUIRED,
                            fallback_reason=reason)


BUILTIN = builtin_contract()

# (registry path, sha256) -> contract: one reading per registry module and process.
_READ: Dict[Tuple[str, str], RegistryContract] = {}


def contract_for(imports: Dict[str, str], module: str, is_package: bool, project: Any) -> RegistryContract:
    """The contract of the ``registry`` a tool module imports (``imports``: its local name ->
    "module.attr"), read through ``project`` (``evaluate.project.ProjectModules``)."""
    from hermes_lint.evaluate.project import absolute_module

    origin = imports.get("registry")
    if origin is None or project is None:
        return builtin_contract("the module imports no `registry`" if origin is None else "no project files")
    owner, _, attr = origin.rpartition(".")
    absolute = absolute_module(owner, module, is_package) if owner else None
    if absolute is None:
        return builtin_contract(f"`{origin}` is not a module of the project")
    decided_by = tuple(sorted(project.lookup_files(absolute).items()))
    path = project.path_of(absolute)
    if path is None:
        contract = builtin_contract(f"`{origin}` is not a module of the project")
    elif (parsed := project.parsed(path)) is None:
        contract = builtin_contract(f"{path} cannot be read")
    else:
        relative, sha256, tree, _ = parsed
        key = (relative, sha256)
        if key not in _READ:
            _READ[key] = read_contract(tree, attr, relative, sha256)
        contract = _READ[key]
    return replace(contract, decided_by=decided_by)


def plugin_contract(module_contract: RegistryContract, tools_dir: str, project: Any) -> RegistryContract:
    """The contract of a plugin module's ``ctx.register_tool(...)``: Hermes's plugin API for the
    keywords; how coroutines are run from the registry it forwards to (the project's
    ``<tools_dir>/registry.py``), unless the module imports a registry of its own."""
    from hermes_lint.project.registration_sites import PLUGIN_PARAMETERS

    registry = module_contract
    if registry.source is None:
        package = tools_dir.strip("/").replace("/", ".")
        registry = contract_for({"registry": f"{package}.registry.registry"}, "", False, project)
    return RegistryContract(
        source=registry.source,
        sha256=registry.sha256,
        positional=PLUGIN_PARAMETERS,
        parameters=PLUGIN_PARAMETERS,
        required=BUILTIN_REQUIRED,
        is_async_default=False,
        runs_coroutines=registry.runs_coroutines,
        fallback_reason=registry.fallback_reason,
        method="register_tool",
        decided_by=tuple(sorted(set(module_contract.decided_by + registry.decided_by))),
    )


def read_contract(tree: ast.Module, attr: str, path: str, sha256: str) -> RegistryContract:
    """The contract of the object ``attr`` that the module ``tree`` defines."""
    cls = _registry_class(tree, attr)
    if cls is None:
        return builtin_contract(f"{path} defines no class of `{attr}` with a `register` method")
    methods = {
        stmt.name: stmt for stmt in cls.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    register = methods["register"]
    args = register.args
    if args.vararg is not None:
        return builtin_contract(f"`register` in {path} takes *args")
    positional = [a.arg for a in args.posonlyargs + args.args]
    if positional and not _is_static(register):
        positional = positional[1:]  # self
    defaults = [_NO_DEFAULT] * (len(positional) - len(args.defaults)) + list(args.defaults)
    defaults = defaults[-len(positional):] if positional else []
    keyword_only = [a.arg for a in args.kwonlyargs]
    required = [name for name, default in zip(positional, defaults) if default is _NO_DEFAULT]
    required += [a.arg for a, default in zip(args.kwonlyargs, args.kw_defaults) if default is None]
    default_of = dict(zip(positional, defaults))
    default_of.update(zip(keyword_only, args.kw_defaults))
    is_async_default: Optional[bool] = None
    node = default_of.get("is_async")
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        is_async_default = node.value
    return RegistryContract(
        source=path,
        sha256=sha256,
        positional=tuple(positional),
        parameters=tuple(positional + keyword_only),
        required=tuple(required),
        any_keyword=args.kwarg is not None,
        is_async_default=is_async_default,
        runs_coroutines=_runs_coroutines(methods),
    )


def _registry_class(tree: ast.Module, attr: str) -> Optional[ast.ClassDef]:
    classes = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, ast.ClassDef) and _has_register(stmt)}
    for stmt in tree.body:  # registry = ToolRegistry()
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id in classes
        ):
            return classes[stmt.value.func.id]
    return next(iter(classes.values())) if len(classes) == 1 else None


def _has_register(cls: ast.ClassDef) -> bool:
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "register" for s in cls.body)


def _is_static(function: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)


def _runs_coroutines(methods: Mapping[str, ast.AST]) -> Optional[str]:
    """Why ``register``/``dispatch`` (and the methods they call on ``self``) run a coroutine
    whatever the caller passed as ``is_async``, or None."""
    register = methods["register"]
    for node in ast.walk(register):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id == "is_async" for t in targets
        ):
            return f"`register` sets `is_async` itself (line {node.lineno})"
        if isinstance(node, ast.keyword) and node.arg == "is_async":
            if isinstance(node.value, ast.Constant) and node.value.value is True:
                return f"`register` forces `is_async=True` (line {node.value.lineno})"
    for name in ("register", "dispatch"):
        method = methods.get(name)
        if method is None:
            continue
        for function in [method] + _called_methods(method, methods):
            test = _coroutine_test(function)
            if test is not None:
                return f"`{name}` tests handlers itself with `{test[0]}` (line {test[1]})"
        if name == "dispatch" and isinstance(method, ast.AsyncFunctionDef):
            if any(isinstance(node, ast.Await) for node in ast.walk(method)):
                return f"`dispatch` is `async def` and awaits handlers (line {method.lineno})"
    return None


def _called_methods(method: ast.AST, methods: Mapping[str, ast.AST]) -> list:
    found = []
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
            and node.func.attr in methods
            and methods[node.func.attr] is not method
        ):
            found.append(methods[node.func.attr])
    return found


def _coroutine_call(node: ast.AST) -> Optional[str]:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name in _COROUTINE_TESTS:
        return ast.unparse(func)
    return None


def _coroutine_test(function: ast.AST) -> Optional[Tuple[str, int]]:
    for node in ast.walk(function):
        found = _coroutine_call(node)
        if found and isinstance(node, ast.Call):  # only a call is one
            return found, node.lineno
    return None


def module_contract(
    tree: ast.Module, index: Any, path: str, config: Any, project: Any, entries: Tuple = ()
) -> RegistryContract:
    """The contract the register calls of the module at ``path`` are judged by (``entries``: its
    plugin register functions, ``plugin_tools.Entry``)."""
    from hermes_lint.model.parsing import module_name
    from hermes_lint.project.plugin_tools import has_plugin_calls

    contract = contract_for(index.imports, module_name(path), path.endswith("__init__.py"), project)
    if has_plugin_calls(tree, entries):
        contract = plugin_contract(contract, config.tools_dir, project)
    return contract


def contracts_in_use(sources: Any, config: Any) -> Dict[str, int]:
    """``{contract description: number of modules}`` over a project's tool and plugin modules
    (``engine.ProjectSources``): what ``check --debug`` reports."""
    from hermes_lint.model.context import ModuleIndex
    from hermes_lint.discovery import tree_registers_tools
    from hermes_lint.evaluate.project import project_modules
    from hermes_lint.model.parsing import parse_module
    from hermes_lint.project.plugin_tools import has_plugin_calls
    from hermes_lint.project.registration_sites import entries_of, sites_for_config

    project = project_modules(config.project_root, config.src) if config.project_root else None
    sites = sites_for_config(config, project)
    used: Dict[str, int] = {}
    for source in sources.tool_files:
        if source.data is None:
            continue
        parsed = parse_module(source.path, source.data)
        if parsed.tree is None:
            continue
        index = ModuleIndex(parsed.tree)
        entries = entries_of(sites, source.path)
        if not tree_registers_tools(parsed.tree) and not has_plugin_calls(parsed.tree, entries):
            continue
        described = module_contract(parsed.tree, index, source.path, config, project, entries).describe()
        used[described] = used.get(described, 0) + 1
    return used
