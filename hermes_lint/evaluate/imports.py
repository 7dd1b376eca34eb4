"""Imported names whose module is a file of the project: evaluated from that file's syntax tree.

See ``project`` for how files are found. The imported module gets its own evaluator (created
once per importing module, bounded by ``MAX_IMPORT_DEPTH`` and refusing import cycles) that
runs with the importer's call depth and step budget; what it refuses is refused here with the
module named, at the place of the importing module that used the name. The key/item locations of values computed there are
adopted by the importer as locations in that file (``Location.path``).
"""

from __future__ import annotations

import ast
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Tuple

from ..model import Location
from .project import MAX_IMPORT_DEPTH, ProjectModules, absolute_module
from .state import _EvaluatorState
from .values import _Arguments, _AsyncFunctionRef, _ClassRef, _FunctionRef, _Refusal

if TYPE_CHECKING:  # pragma: no cover
    from .evaluator import ModuleEvaluator
    from .syntax import FunctionNode


class _Imports(_EvaluatorState):
    """Cross-module evaluation (a mixin of ModuleEvaluator)."""

    def read_modules(self, inspected: bool = False) -> Dict[str, str]:
        """``{relative path: sha256}`` of every project file a value was read from, transitively;
        with ``inspected``, also the files only looked into (``function_definition``)."""
        found = dict(self._read_modules)
        if inspected:
            found.update(self._inspected_modules)
        for foreign in self._foreign.values():
            if foreign is not None:
                found.update(foreign.read_modules(inspected))
        return found

    def add_import(self, name: str, origin: str, statement: ast.stmt) -> None:
        """Evaluate ``name`` (one no code of the module binds) as an import of ``origin``
        ("module.attr" as written, relative or not): a name that a function imports locally
        (``from .schemas import SCHEMA`` inside ``register``), given a name of its own."""
        from .module_index import _Binding

        self._kinds[name] = ("import", _Binding("import", statement, origin=origin))

    def add_unknown(self, name: str, reason: str) -> None:
        """Refuse ``name`` (one no code of the module binds) with ``reason``: a value a plugin
        function computes at run time, given a name of its own where a registration uses it."""
        self._kinds[name] = ("refused", reason, None)

    def add_value(self, name: str, value: Any) -> None:
        """Evaluate ``name`` (one no code of the module binds) as ``value``, a value this
        evaluator computed: a row of a table a plugin loops over, given a name of its own where
        a registration uses it. Each read of a dict or list gets a copy (with the locations of
        its keys), so that code changing it changes neither the value nor the next read."""
        self._kinds[name] = ("value", value)
        self._bound_values[name] = value

    def holds_function(self, name: str) -> bool:
        """Whether ``name``, given a value by ``add_value``, holds a function (of any module of
        the project, a closure included)."""
        return self._bound_values.get(name).__class__ in (_FunctionRef, _AsyncFunctionRef)

    def function_definition(self, name: str) -> Optional[Tuple[FunctionNode, Dict[str, str], ModuleEvaluator]]:
        """``(def node, imports of its module, evaluator of its module)`` when module-level
        ``name`` is a function of this module, or one imported from another project module,
        following re-exports (``from .scope import get_secret`` in a package's ``__init__``) no
        further than imports are followed (``MAX_IMPORT_DEPTH``, never through a cycle); else
        None. The modules looked into are reported by ``read_modules(inspected=True)``."""
        kind = self._classify(name)
        if kind[0] == "function":
            return kind[1].node, self._get_index().imports_by_name(), self  # type: ignore[return-value]
        if kind[0] != "import":
            return None
        module, _, attr = kind[1].origin.rpartition(".")
        foreign = self._readable_module(module, record=False) if module else None
        return foreign.function_definition(attr) if foreign is not None else None

    def may_define_function(self, name: str) -> bool:
        """False when ``function_definition(name)`` is certainly None and would look at no
        file (``import os``: no module to look into; no project): a question that would follow
        only such a function is not asked. A module the project may hold says True, since
        asking records the files that decide it (``read_modules(inspected=True)``)."""
        kind = self._classify(name)
        if kind[0] == "function":
            return True
        if kind[0] != "import":
            return False
        module = kind[1].origin.rpartition(".")[0]
        if not module or self._project is None:
            return False
        return absolute_module(module, self._module, self._is_package) is not None

    def _readable_module(self, module: str, record: bool = True) -> Optional[ModuleEvaluator]:
        """The evaluator of project module ``module``, or None when it cannot be read."""
        try:
            return self._foreign_module(module, None, record=record)
        except _Refusal:
            return None

    def project_module(self, module: str) -> Optional[Tuple[ast.Module, Dict[str, str], Any]]:
        """``(syntax tree, imports, evaluate)`` of project module ``module`` (dotted, relative to
        this one when it starts with "."), whose findings then depend on its file; else None.
        ``evaluate`` gives the value of an expression of that tree."""
        foreign = self._readable_module(module)
        if foreign is None:
            return None
        return foreign._tree, foreign._get_index().imports_by_name(), foreign.evaluate

    def call_site_arguments(self, module: str, line: int, col: int, names: Tuple[str, ...]
                            ) -> Optional[Tuple[Location, Dict[str, Tuple[Location, Any]]]]:
        """(the location of a call at ``line``/``col`` (0-based bytes) of project module
        ``module``, the keyword arguments of the decorators of its module-level functions
        ``names``, each located with its value: a keyword two decorators give is left out); None
        when the module cannot be read. The module counts as read (``read_modules``)."""
        foreign = self._readable_module(module)
        if foreign is None:
            return None
        path = foreign._source[0]

        def located(node: ast.expr) -> Location:
            return Location(node.lineno, foreign._char_column(node.lineno, node.col_offset), path)

        arguments: Dict[str, Tuple[Location, Any]] = {}
        twice = set()
        for stmt in foreign._tree.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or stmt.name not in names:
                continue
            for decorator in stmt.decorator_list:
                for keyword in decorator.keywords if isinstance(decorator, ast.Call) else ():
                    if keyword.arg is None:
                        continue
                    if keyword.arg in arguments:
                        twice.add(keyword.arg)
                    arguments[keyword.arg] = (located(keyword.value), foreign.evaluate(keyword.value))
        for name in twice:
            del arguments[name]
        return Location(line, foreign._char_column(line, col), path), arguments

    def _imported(self, name: str, origin: str, node, refusal: str) -> Any:
        """The value of an imported ``name`` (``origin`` = "module.attr"), or ``refusal``."""
        module, _, attr = origin.rpartition(".")
        if origin.startswith(".") and "." not in origin.lstrip("."):  # `from . import NAME`: the package's NAME
            attr = origin.lstrip(".")
            module = origin[: len(origin) - len(attr)]
        foreign = self._foreign_module(module, node) if module else None
        if foreign is None:
            raise _Refusal(refusal, node)
        return self._adopt_locations(foreign._export(attr, self, node), foreign)

    def _imported_attribute(self, dotted: str, node, refusal: str) -> Any:
        """``pkg.mod.NAME`` after ``import pkg.mod``: NAME of the project module ``pkg.mod``."""
        module, _, attr = dotted.rpartition(".")
        foreign = self._foreign_module(module, node) if module and "." not in attr else None
        if foreign is None:
            raise _Refusal(refusal, node)
        return self._adopt_locations(foreign._export(attr, self, node), foreign)

    def _foreign_module(self, module: str, node, record: bool = True) -> Optional[ModuleEvaluator]:
        """The evaluator of project module ``module``; ``record``: a value is read from it (else
        it is only looked into), which ``read_modules`` reports."""
        if self._project is None:
            return None
        absolute = absolute_module(module, self._module, self._is_package)
        if absolute is None:
            return None
        foreign = self._foreign.get(absolute)
        if foreign is None and absolute in self._chain and absolute != self._module:
            return self._importer_after_import(absolute, node)
        if foreign is None and absolute not in self._foreign:
            foreign = self._foreign[absolute] = self._new_foreign(self._project, absolute, node)
            if foreign is None:
                # No module of the project, or one that cannot be parsed: what is found here
                # changes when such a file appears or is mended (``read_modules(inspected=True)``).
                self._inspected_modules.update(self._project.lookup_files(absolute))
        if foreign is not None:
            relative, sha256 = foreign._source
            (self._read_modules if record else self._inspected_modules)[relative] = sha256
        return foreign

    def _importer_after_import(self, absolute: str, node) -> ModuleEvaluator:
        """The evaluator of ``absolute``, one that (transitively) imports this module, when it
        reads this module's values after its own import (in a function body that runs later:
        ``_now`` is None) and imports none of the modules in between at module level: Python
        has then imported both, and the values there are those it has once imported. Any other
        way back to a module in the chain is an import cycle."""
        path = []
        importer: Optional[ModuleEvaluator] = self  # type: ignore[assignment]
        while importer is not None and importer._module != absolute:
            path.append(importer._module)
            importer = importer._parent() if importer._parent is not None else None
        if importer is None or importer._now is not None or _imports_any(importer, path):
            raise _Refusal(f"import cycle through module {absolute}", node)
        return importer

    def _new_foreign(self, project: ProjectModules, absolute: str, node) -> Optional[ModuleEvaluator]:
        if absolute in self._chain:
            raise _Refusal(f"import cycle through module {absolute}", node)
        foreign = None
        path = project.path_of(absolute)
        if path is not None and len(self._chain) > MAX_IMPORT_DEPTH:
            raise _Refusal(f"module {absolute} is more than {MAX_IMPORT_DEPTH} imports away", node)
        parsed = project.parsed(path) if path is not None else None
        if parsed is not None:
            foreign = self._evaluator_of(absolute, parsed)
        return foreign

    def _export(self, attr: str, importer: _EvaluatorState, node) -> Any:
        """Module-level ``attr`` of this module, as ``importer`` sees it once this module is imported."""
        with importer._working_in(self, node):
            kind = self._classify(attr)
            if kind[0] == "function":
                return self._module_function(attr, kind[1].node)
            if kind[0] == "class":
                return _ClassRef(attr, kind[1].node, self)
            if kind[0] == "undefined":
                raise _Refusal(f"{attr} is not defined at module level")
            shared = self._shared_reason(attr)
            if shared is not None:  # what other modules' imports put in it (``function_values``)
                raise _Refusal(shared)
            return self._global(attr, None)

    def _call_foreign(self, owner: _EvaluatorState, ref: _FunctionRef, arguments: _Arguments, node) -> Any:
        """Call a function of another project module (``owner``) with this evaluator's depth and budget."""
        with self._working_in(owner, node):
            return self._adopt_locations(owner._call_function(ref, arguments, None), owner)

    @contextmanager
    def _working_in(self, foreign: _EvaluatorState, node) -> Iterator[None]:
        """Evaluate in ``foreign`` (after its import, in this evaluator's mode, at its call
        depth, charging its steps here); its refusals become this module's, at ``node``."""
        saved = (foreign._frame, foreign._now, foreign._steps, foreign._depth, foreign._functions_allowed,
                 foreign._unknown_locals, foreign._effects_kept)
        foreign._frame, foreign._now, foreign._steps, foreign._depth = None, None, 0, self._depth
        foreign._functions_allowed, foreign._unknown_locals = self._functions_allowed, False
        foreign._effects_kept = self._effects_kept
        former_mode = foreign._set_mode(self._partial_mode)
        try:
            yield
        except _Refusal as refusal:
            raise self._refusal_from(foreign, refusal, node) from None
        finally:
            self._steps += foreign._steps
            foreign._total += foreign._steps
            (foreign._frame, foreign._now, foreign._steps, foreign._depth, foreign._functions_allowed,
             foreign._unknown_locals, foreign._effects_kept) = saved
            foreign._set_mode(former_mode)

    def _refusal_from(self, foreign: _EvaluatorState, refusal: _Refusal, node: Optional[ast.AST]) -> _Refusal:
        reason = refusal.reason
        if refusal.function is not None:
            reason = f"{reason} (in {refusal.function})"
        if f"(in module {foreign._module})" not in reason:
            reason = f"{reason} (in module {foreign._module})"
        return _Refusal(reason, node, raises=refusal.raises)


def _imports_any(evaluator: _EvaluatorState, modules: list) -> bool:
    """Whether ``evaluator``'s module imports one of ``modules`` (or a module inside one) at
    module level."""
    for bindings in evaluator._get_index().bindings.values():
        for binding in bindings:
            if binding.kind != "import":
                continue
            names = [a.name for a in binding.node.names] if binding.node.__class__ is ast.Import else [binding.origin]
            for name in names:
                absolute = absolute_module(name, evaluator._module, evaluator._is_package) or name
                if any(absolute == module or absolute.startswith(module + ".") for module in modules):
                    return True
    return False
