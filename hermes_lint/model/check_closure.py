"""Whether a ``check_fn`` is *closed*: everything it calls is visible in its module or belongs to
the standard library, so a variable it never reads is certainly not tested by it.

A check that calls a helper of another module may test variables this module never names, so
"listed in requires_env but never checked" can only be said of a closed check.
"""

from __future__ import annotations

import ast
import sys
from typing import FrozenSet, List, Optional, Set, Tuple

from hermes_lint.model.context import ModuleContext
from hermes_lint.model.semantic import CALL_DEPTH, CallableNode


class CheckClosure:
    """The closure test over one module's functions."""

    def __init__(self, ctx: ModuleContext):
        self.ctx = ctx

    def is_closed(self, fn: CallableNode) -> bool:
        """True when everything ``fn`` calls is visible here or in the standard library.

        A check that calls a helper of another module may test variables this module never
        names, so "never checked" can only be said of a closed check.
        """
        if self.ctx.index.has_star_import:
            return False
        semantic = self.ctx.semantic
        functions = semantic.functions
        todo: List[Tuple[CallableNode, int]] = [(fn, 0)]
        seen = {id(fn)}
        while todo:
            node, depth = todo.pop()
            local = semantic.local_names(node) | self._nested_bindings(node)
            for call in (n for n in self.ctx.index.walk(node) if isinstance(n, ast.Call)):
                func = call.func
                while isinstance(func, ast.Attribute):
                    func = func.value
                if not isinstance(func, ast.Name):
                    continue  # a method of a computed value
                name = func.id
                if name in local and call.func is not func:
                    continue  # a method of a local value
                if name in local:
                    return False  # calls something it was given or computed
                if name in functions and call.func is func:
                    if depth >= CALL_DEPTH:
                        return False
                    if id(functions[name]) not in seen:
                        seen.add(id(functions[name]))
                        todo.append((functions[name], depth + 1))
                    continue
                if name in self.ctx.index.imports:
                    if not self._is_stdlib(name) or _reads_any_variable(semantic.import_target(call.func)):
                        return False
                    continue
                if semantic.is_builtin(name):
                    continue
                if call.func is not func and self._stdlib_object(name):
                    continue  # logger.debug(...), _DEFAULTS.get(...)
                return False
        return True

    def _nested_bindings(self, fn: CallableNode) -> FrozenSet[str]:
        """The names bound in the scopes nested in ``fn`` (comprehension targets, the parameters
        and bindings of inner functions and lambdas). ``check_is_closed`` walks into those scopes,
        so a name called there may be one of them: something given or computed, never the
        module function of that name."""
        semantic = self.ctx.semantic
        names: Set[str] = set()
        for child in self.ctx.index.walk(fn):
            if child is fn:
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                names |= semantic.local_names(child)
            elif isinstance(child, ast.comprehension):
                names.update(n.id for n in ast.walk(child.target) if isinstance(n, ast.Name))
        return frozenset(names)

    def _is_stdlib(self, name: str) -> bool:
        target = self.ctx.index.imports.get(name)
        if target is None or target.startswith("."):
            return False
        return target.split(".")[0] in sys.stdlib_module_names

    def _stdlib_object(self, name: str, depth: int = 0) -> bool:
        """A module-level name bound once to a literal or to what a standard-library call returns."""
        values = self.ctx.index.assigned.get(name)
        if not values or len(values) != 1:
            return False
        return self._built_from_stdlib(values[0], depth)

    def _built_from_stdlib(self, value: ast.AST, depth: int) -> bool:
        """A literal, or what standard-library calls, attributes and operators make of literals
        (``Path.home() / ".jira" / "credentials.json"``, ``os.path.join(BASE, "key")`` with
        ``BASE`` such a name too): an object whose methods cannot read a variable this module
        does not name."""
        if depth > 8:
            return False
        if isinstance(value, (ast.Constant, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.JoinedStr)):
            return True
        if isinstance(value, ast.BinOp):
            return self._built_from_stdlib(value.left, depth + 1) and self._built_from_stdlib(value.right, depth + 1)
        if isinstance(value, ast.Call):
            func = value.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if isinstance(func, ast.Call):  # Path.home().joinpath(...)
                if not self._built_from_stdlib(func, depth + 1):
                    return False
            elif not (isinstance(func, ast.Name) and self._is_stdlib(func.id)):
                return False
            if _reads_any_variable(self.ctx.semantic.import_target(value.func)):
                return False
            arguments = list(value.args) + [k.value for k in value.keywords]
            return all(self._built_from_stdlib(a, depth + 1) for a in arguments)
        if isinstance(value, ast.Name):
            if self._is_stdlib(value.id):
                return True
            return value.id in self.ctx.index.assigned and self._stdlib_object(value.id, depth + 1)
        return False


# Standard-library callees that may read any variable: a child process sees the whole
# environment, and ``expandvars`` reads the variables its text names.
_READS_ANY_VARIABLE = ("subprocess.", "os.system", "os.popen", "os.exec", "os.spawn", "os.path.expandvars")


def _reads_any_variable(target: Optional[str]) -> bool:
    return target is not None and target.startswith(_READS_ANY_VARIABLE)

    # --- handler -----------------------------------------------------------------------
