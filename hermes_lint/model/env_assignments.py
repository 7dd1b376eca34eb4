"""The environment variables a project sets itself: ``os.environ["X"] = ...``,
``os.environ.setdefault("X", ...)``/``update(...)``, ``os.putenv``, and the keys of an ``env=``
mapping given to a process it starts (``env={**os.environ, "X": value}``, or a copy of
``os.environ`` with ``env["X"] = value``).

Such a variable is a marker one part of the project hands another (a session id a lead process
gives its workers), not configuration a user sets: listing it in ``requires_env`` would make
Hermes's setup ask users for it. Searched: the module and the project modules it imports (read
from their files, never imported), so a finding goes stale when one of them changes.
"""

from __future__ import annotations

import ast
import sys
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Set

from hermes_lint.model.context import ModuleContext
from hermes_lint.model.env_spellings import EnvSpellings
from hermes_lint.model import Unresolved

_SETTERS = frozenset({"setdefault", "update", "__setitem__"})


def variables_set_by_project(ctx: ModuleContext) -> FrozenSet[str]:
    """Names of the variables this module, or a project module it imports, assigns."""
    found = set(_assigned_in(ctx.tree, ctx.index.imports, ctx.evaluator.evaluate))
    modules = set()
    for target in ctx.index.imports.values():
        if target.split(".")[0] in sys.stdlib_module_names:
            continue
        modules.add(target)  # ``import tools.team``
        module, _, _ = target.rpartition(".")
        if module and module.strip("."):
            modules.add(module)  # ``from tools.team import TEAM_ID_ENV``
    for module in sorted(modules):
        other = ctx.evaluator.project_module(module)
        if other is not None:
            tree, imports, evaluate = other
            found.update(_assigned_in(tree, imports, evaluate))
    return frozenset(found)


def _assigned_in(tree: ast.Module, imports: Dict[str, str], evaluate: Callable[[ast.expr], Any]) -> Set[str]:
    spellings = EnvSpellings(imports)
    keys: List[ast.expr] = []
    names: List[str] = []
    copies = _environment_copies(tree, spellings)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            if spellings.is_environ(node.value) or (isinstance(node.value, ast.Name) and node.value.id in copies):
                keys.append(node.slice)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _SETTERS and (
                spellings.is_environ(func.value) or (isinstance(func.value, ast.Name) and func.value.id in copies)
            ):
                keys.extend(_mapping_keys(node))
            elif isinstance(func, ast.Attribute) and func.attr == "putenv" and node.args:
                if isinstance(func.value, ast.Name) and func.value.id in spellings.os_names:
                    keys.append(node.args[0])
            for keyword in node.keywords:
                if keyword.arg == "env" and isinstance(keyword.value, ast.Dict):
                    keys.extend(k for k in keyword.value.keys if k is not None)
            if isinstance(func, ast.Name) and func.id == "dict" and any(spellings.is_environ(a) for a in node.args):
                names.extend(k.arg for k in node.keywords if k.arg)
        elif isinstance(node, ast.Dict) and any(
            k is None and spellings.is_environ(v) for k, v in zip(node.keys, node.values)
        ):
            keys.extend(k for k in node.keys if k is not None)
    for key in keys:
        value = evaluate(key)
        if isinstance(value, str) and not isinstance(value, Unresolved):
            names.append(value)
    return set(names)


def _mapping_keys(call: ast.Call) -> Iterable[ast.expr]:
    """The keys ``setdefault``/``update``/``__setitem__`` set."""
    if call.func.attr != "update":  # type: ignore[attr-defined]
        return call.args[:1]
    found: List[ast.expr] = [ast.Constant(k.arg) for k in call.keywords if k.arg]
    for argument in call.args[:1]:
        if isinstance(argument, ast.Dict):
            found.extend(k for k in argument.keys if k is not None)
    return found


def _environment_copies(tree: ast.Module, spellings: EnvSpellings) -> FrozenSet[str]:
    """Names bound to a copy of the environment (``os.environ.copy()``, ``dict(os.environ)``,
    ``{**os.environ, ...}``): the keys written into them are variables of a child process."""
    found = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        is_copy = (
            isinstance(value, ast.Call)
            and (
                (isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and spellings.is_environ(value.func.value))
                or (isinstance(value.func, ast.Name) and value.func.id == "dict" and any(spellings.is_environ(a) for a in value.args))
            )
        ) or (
            isinstance(value, ast.Dict)
            and any(k is None and spellings.is_environ(v) for k, v in zip(value.keys, value.values))
        )
        if is_copy:
            found.add(node.targets[0].id)
    return frozenset(found)
