"""What Hermes's plugin loader ends up calling, read statically (HRM801, HRM802).

The loader (``hermes_cli/plugins.py``, ``_load_plugin``) imports the plugin, an entry point with
``ep.load()`` (the module left of ``:``, then the dotted attribute right of it, if any) or a
directory plugin's ``__init__.py``, then takes ``getattr(loaded, "register", None)`` and calls it
with one argument, the plugin context. So ``name = "pkg.mod:register"`` loads the *function*
``register``, and the loader then looks for a ``register`` attribute on that function.

``loaded_target`` answers with a ``Target``: what is wrong (``problem``, a sentence ending where
the rule adds what Hermes does), or the ``register`` definition the loader calls and how.
Nothing is imported; what cannot be read (an imported name, a class with bases, an instance) is
``unknown``, and the rules stay silent on it.
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

from hermes_lint.project.entry_point_reader import built_distribution
from hermes_lint.regular_files import read_regular_file

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
MAX_HOPS = 5  # re-exports followed (`from .hermes import register`)


@dataclass(frozen=True)
class Target:
    problem: Optional[str] = None  # why the loader finds nothing to call
    # The register function the loader calls, its module's path, and whether it is a class's
    # plain method taken from the class (called with the context as ``self``).
    function: Optional[FunctionNode] = None
    path: Optional[str] = None
    unbound_method: bool = False
    unknown: bool = False


UNKNOWN = Target(unknown=True)


def _parse(root: Path, relative: str) -> Optional[ast.Module]:
    try:
        return ast.parse(read_regular_file(root / relative), relative)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # an unreadable module is HRM001's


def _bindings(tree: ast.Module) -> Tuple[Dict[str, ast.AST], bool]:
    """Top-level name -> its last binding statement; and whether anything makes every name
    possible (a star import, a module ``__getattr__``)."""
    bound: Dict[str, ast.AST] = {}
    open_ended = False
    for statement in _top_level(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[statement.name] = statement
            open_ended |= statement.name == "__getattr__"
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name == "*":
                    open_ended = True
                else:
                    bound[alias.asname or alias.name.split(".")[0]] = statement
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        bound[node.id] = statement
        else:
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    bound[node.id] = statement
    return bound, open_ended


def _top_level(body: Any):
    """Statements of a module body, looking into top-level if/try/with blocks."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.Try, ast.With)) or statement.__class__.__name__ == "TryStar":
            for field in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(statement, field, ()))
            for handler in getattr(statement, "handlers", ()):
                yield from _top_level(handler.body)


def _relative_module(root: Path, path: str, statement: ast.ImportFrom, name: str) -> Optional[Tuple[str, str]]:
    """The file (relative to root) a ``from .x import name`` in ``path`` reads ``name`` from;
    None when it is not a module of the project, or when ``name`` may be a submodule."""
    if statement.level == 0:
        return None
    package = Path(path).parent
    for _ in range(statement.level - 1):
        package = package.parent
    if statement.module is None:  # `from . import name`: a submodule, or a name of the package
        if (root / package / f"{name}.py").exists() or (root / package / name).is_dir():
            return None
        candidates = [package / "__init__.py"]
    else:
        base = package.joinpath(*statement.module.split("."))
        candidates = [base.with_suffix(".py"), base / "__init__.py"]
    for candidate in candidates:
        if (root / candidate).is_file():
            return candidate.as_posix(), name
    return None


def _function(root: Path, path: str, name: str, hops: int = 0) -> Tuple[Optional[ast.AST], Optional[str], bool]:
    """(the statement binding ``name`` in ``path``, the path it is in, open-ended?) after
    following relative re-exports."""
    tree = _parse(root, path)
    if tree is None:
        return None, None, True
    bound, open_ended = _bindings(tree)
    statement = bound.get(name)
    if isinstance(statement, ast.ImportFrom) and hops < MAX_HOPS:
        alias = next((a for a in statement.names if (a.asname or a.name) == name), None)
        found = _relative_module(root, path, statement, alias.name) if alias is not None else None
        if found is not None:
            return _function(root, found[0], found[1], hops + 1)
        return statement, path, True
    return statement, path, open_ended


def loaded_target(root: Path, spec: Any) -> Target:
    """What the loader calls for ``spec`` (a ``project.plugins.PluginSpec``)."""
    entry = spec.entry_point
    if spec.register_module is None:
        if entry is None:
            return UNKNOWN
        module = entry.module
        top = module.split(".")[0]
        if top in getattr(sys, "stdlib_module_names", ()):
            return Target(problem=f"names `{module}`, a module of Python's standard library, not of this package")
        if _somewhere_in(root, top):
            return UNKNOWN  # a source mapping the layouts do not cover (hatch `packages`, package-dir)
        return Target(problem=f"names module `{module}`, which is not in this project")
    if entry is None and built_distribution(root):
        return UNKNOWN  # an unpacked wheel: Hermes loads it through its entry point, not as a directory
    attribute = entry.attribute if entry is not None else None
    path = spec.register_module
    if attribute is None:
        statement, where, open_ended = _function(root, path, "register")
        if statement is None:
            return UNKNOWN if open_ended else Target(problem=f"module `{_dotted(spec, path)}` defines no `register`")
        return _callable(statement, where, False)
    first, _, rest = attribute.partition(".")
    statement, where, open_ended = _function(root, path, first)
    if statement is None:
        return UNKNOWN if open_ended else Target(problem=f"module `{entry.module}` has no attribute `{first}`")
    if rest:
        return UNKNOWN
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return Target(problem=f"loads the function `{first}` itself, on which the loader then looks up `register`")
    if isinstance(statement, ast.ClassDef):
        if statement.bases or statement.keywords:
            return UNKNOWN
        method = next(
            (s for s in statement.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "register"),
            None,
        )
        if method is None:
            assigned = any(
                isinstance(s, (ast.Assign, ast.AnnAssign))
                and any(isinstance(n, ast.Name) and n.id == "register" for n in ast.walk(s))
                for s in statement.body
            )
            return UNKNOWN if assigned else Target(problem=f"loads class `{first}`, which has no `register`")
        decorators = {d.id for d in method.decorator_list if isinstance(d, ast.Name)}
        if decorators - {"staticmethod", "classmethod"}:
            return UNKNOWN
        return Target(function=method, path=where, unbound_method=not decorators)
    return UNKNOWN


_UNSEARCHED = frozenset({"node_modules", "site-packages", "build", "dist", "__pycache__"})
MAX_SEARCH_DEPTH = 4
MAX_SEARCHED_ENTRIES = 20_000


def _somewhere_in(root: Path, top: str) -> bool:
    """Whether a package directory or module named ``top`` exists under ``root`` (at most
    ``MAX_SEARCH_DEPTH`` levels down, outside hidden directories, virtual environments and build
    output); True, too, when the search is cut short: the module may be there."""
    pending = [(root, 0)]
    seen = 0
    while pending:
        directory, depth = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        seen += len(entries)
        if seen > MAX_SEARCHED_ENTRIES:
            return True
        for entry in entries:
            if entry.name in (top, f"{top}.py") and (entry.name.endswith(".py") or entry.is_dir(follow_symlinks=False)):
                return True
            if (
                depth + 1 < MAX_SEARCH_DEPTH
                and entry.is_dir(follow_symlinks=False)
                and not entry.name.startswith(".")
                and entry.name not in _UNSEARCHED
                and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))
            ):
                pending.append((Path(entry.path), depth + 1))
    return False


def _callable(statement: ast.AST, where: Optional[str], unbound: bool) -> Target:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and not statement.decorator_list:
        return Target(function=statement, path=where, unbound_method=unbound)
    return UNKNOWN


def _dotted(spec: Any, path: str) -> str:
    if spec.entry_point is not None:
        return spec.entry_point.module
    return path


def call_problem(target: Target) -> Optional[str]:
    """Why ``register(ctx)``, as the loader calls it, does not run the function's body: the
    sentence's subject is the call."""
    function = target.function
    if function is None:
        return None
    arguments = function.args
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    if target.unbound_method:
        # Class.register(ctx): the context becomes `self`; one more argument is missing.
        required = len(positional) - len(arguments.defaults)
        if required >= 2:
            return f"passes the context as `{positional[0]}`, and `{positional[1]}` is missing (TypeError)"
        return None
    required = len(positional) - len(arguments.defaults)
    if not positional and arguments.vararg is None:
        return "gives one argument to a function that takes none (TypeError)"
    if required > 1:
        return f"leaves `{positional[1]}` without a value (TypeError)"
    missing_keyword = [a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is None]
    if missing_keyword:
        return f"leaves the keyword-only `{missing_keyword[0]}` without a value (TypeError)"
    if isinstance(function, ast.AsyncFunctionDef):
        return "only creates a coroutine, which Hermes never awaits: its body never runs"
    return None
