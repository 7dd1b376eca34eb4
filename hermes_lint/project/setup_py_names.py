"""What the names of a ``setup.py`` are, read from its syntax tree (never run): which name is
setuptools' ``setup``, what each module-level name is bound to, and which names the module
changes in place after binding them. ``entry_point_reader`` reads ``setup(entry_points=...)``
through them."""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Tuple

_SETUP_MODULES = ("setuptools", "distutils.core")


def setup_functions(tree: ast.Module) -> Callable[[ast.expr], bool]:
    """Whether a called expression is setuptools' (or distutils') ``setup``: a name a
    ``from setuptools import setup`` (``as``, ``*``) binds, or ``setup`` of a name an ``import
    setuptools`` / ``import distutils.core`` binds. Another object's ``setup()`` declares nothing."""
    functions, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level:
            for alias in node.names:
                if node.module in _SETUP_MODULES and alias.name in ("setup", "*"):
                    functions.add(alias.asname or "setup")
                elif f"{node.module}.{alias.name}" in _SETUP_MODULES:  # from distutils import core
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in _SETUP_MODULES:
                    modules.add(alias.asname or alias.name)

    def is_setup(func: ast.expr) -> bool:
        if isinstance(func, ast.Name):
            return func.id in functions
        return isinstance(func, ast.Attribute) and func.attr == "setup" and ast.unparse(func.value) in modules

    return is_setup


Binding = Tuple[int, Optional[ast.expr], str]  # line, the literal bound (None: not one), how


def module_bindings(tree: ast.Module) -> Dict[str, List[Binding]]:
    """Every binding of a name at module level, in source order: an assignment (annotated or
    not) of the module's body binds its value; one inside an ``if``/``try``/loop/``with`` block
    binds conditionally, an import, ``def``, ``class``, loop or ``with`` target binds no literal."""
    bindings: Dict[str, List[Binding]] = {}

    def bind(target: ast.expr, line: int, value: Optional[ast.expr], how: str) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):  # not `EPS` of `EPS[g] = ...`
                literal = value if isinstance(target, ast.Name) else None
                bindings.setdefault(node.id, []).append((line, literal, how if literal is None else ""))

    def visit(body: List[ast.stmt], top: bool) -> None:
        for stmt in body:
            value = stmt.value if top and isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    bind(target, stmt.lineno, value, "conditionally" if not top else "by unpacking")
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                bind(stmt.target, stmt.lineno, value, "conditionally" if not top else "by unpacking")
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    if alias.name != "*":
                        name = alias.asname or alias.name.split(".")[0]
                        bindings.setdefault(name, []).append((stmt.lineno, None, "by an import"))
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bindings.setdefault(stmt.name, []).append((stmt.lineno, None, "by a definition"))
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                bind(stmt.target, stmt.lineno, None, "by a loop")
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        bind(item.optional_vars, stmt.lineno, None, "by a `with`")
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(inner, False)
            for handler in getattr(stmt, "handlers", []):
                visit(handler.body, False)
            for case in getattr(stmt, "cases", []):
                visit(case.body, False)

    visit(tree.body, True)
    return bindings


_READING_METHODS = frozenset({"get", "copy", "keys", "values", "items", "count", "index"})


def changed_names(tree: ast.Module) -> Dict[str, int]:
    """Names the module changes in place after binding them, with the first line doing it: an
    item stored or deleted (``EPS[group] = ...``), an augmented assignment, ``del``, an attribute
    stored, or a method called on it or on an item of it (``EPS.update(...)``,
    ``EPS[group].append(...)``) other than one that only reads."""
    changed: Dict[str, int] = {}

    def base(node: ast.expr) -> Optional[str]:
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    for node in ast.walk(tree):
        target: Optional[ast.expr] = None
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node
        elif isinstance(node, ast.AugAssign):
            target = node.target
        elif isinstance(node, ast.Delete):
            for deleted in node.targets:
                if isinstance(deleted, ast.Name):
                    changed.setdefault(deleted.id, node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called_on = node.func.value
            if node.func.attr not in _READING_METHODS or not isinstance(called_on, ast.Name):
                target = called_on
        name = base(target) if target is not None else None
        if name is not None and (name not in changed or node.lineno < changed[name]):  # type: ignore[attr-defined]
            changed[name] = node.lineno  # type: ignore[attr-defined]
    return changed
