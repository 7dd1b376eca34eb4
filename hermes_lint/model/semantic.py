"""The semantic model of one module: the answers every analysis asks of a module's names and code.

Built once per module with its syntax tree (``extract.module_context.build_module_context``) and held by
``ModuleContext.semantic``. It holds the module's evaluator (``evaluator``: the values of names,
partial, read across project modules — which keeps its own finer, flow-sensitive index of which
binding is live at a line). Extraction, the handler analysis (``analysis/``), the environment
interpreter (``env_interpreter``) and the ``check_fn`` form recogniser (``check_forms``) ask it
the same questions, so they cannot disagree about the answers:

- **bindings**: what the module binds at its top level (``index``), and which names are local to
  a function (``local_names``: its parameters and what its own scope binds);
- **which function runs**: ``functions`` — a module function that certainly is what a call of
  its name runs: defined once, by a top-level ``def``, and bound by nothing else (no assignment,
  import, class or ``global`` statement anywhere may rebind it); ``callable_node`` follows a
  name bound once to such a function or a lambda;
- **what a name denotes**: ``is_builtin`` (a builtin the module does not shadow),
  ``import_target`` (``json.dumps`` for ``dumps`` or ``json.dumps`` through the module's imports,
  when the name is bound by that import only);
- **exception coverage**: ``handler_catches`` (whether an ``except`` clause may catch an
  exception of a given builtin class);
- **how deep calls are followed**: ``CALL_DEPTH``, the one limit of every analysis that follows
  a call into another module function (the evaluator, which computes values such as schemas
  built by nested helpers, has its own bound with its other limits in ``evaluate/limits.py``).

The analyses built on the model (the environment access index, the environment interpreter,
the handler analyzer) are made once per module on first use and kept here by their class
(``analysis``), not under string keys.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Type, TypeVar, Union, cast

from hermes_lint.model import Registration
from hermes_lint.model.context import ModuleIndex, child_statements
from hermes_lint.model.scopes import bindings, parameter_names, scope_binding

_Analysis = TypeVar("_Analysis")
FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
CallableNode = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]

TRY_NODES = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)

# How many calls deep any analysis follows a call into another module function (returns, raises,
# ``args`` reads, event loops, environment tests, check forms): the one limit they share.
CALL_DEPTH = 4

# What separates the names of a nested function's qualified name (Python's ``__qualname__``).
NESTED = ".<locals>."

_BUILTIN_NAMES = frozenset(dir(builtins))
_BUILTIN_EXCEPTIONS = {
    name: value for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
}


class SemanticModel:
    """One module's bindings, functions, imports and exception coverage; see the module docstring."""

    def __init__(self, tree: ast.Module, text: str, index: ModuleIndex, evaluator: Any):
        self.tree = tree
        self.text = text
        self.index = index
        self.evaluator = evaluator  # hermes_lint.evaluate.ModuleEvaluator: the values of names
        self._functions: Optional[Dict[str, FunctionNode]] = None
        self._global_names: Optional[FrozenSet[str]] = None
        self._local_names: Dict[int, Tuple[ast.AST, FrozenSet[str]]] = {}
        self._bindings: Dict[int, Tuple[ast.AST, Dict[str, Optional[List[ast.expr]]]]] = {}
        self._analyses: Dict[type, Any] = {}  # analysis class -> its one instance (``analysis``)
        # Each registration with the ``register(...)`` call it was read from, set by extraction.
        self.registration_calls: List[Tuple[Registration, ast.Call]] = []

    def analysis(self, kind: Type[_Analysis], ctx: Any) -> _Analysis:
        """The module's one ``kind`` analysis (``EnvAnalysis``, ``HandlerAnalyzer``...), made
        from the module's context on first use."""
        found = self._analyses.get(kind)
        if found is None:
            found = self._analyses[kind] = kind(ctx)  # type: ignore[call-arg]  # each takes the context
        return cast(_Analysis, found)

    def release(self) -> None:
        """Drop the analyses: they point back at the module's context, a reference cycle that
        would keep the whole syntax tree alive until the cyclic GC finds it."""
        self._analyses.clear()
        self._local_names.clear()
        self._bindings.clear()

    # --- bindings ------------------------------------------------------------------------------

    @property
    def global_names(self) -> FrozenSet[str]:
        """Names some function declares ``global``: it may rebind them at run time."""
        if self._global_names is None:
            if "global" not in self.text:  # a `global` statement spells its keyword out, in ASCII
                self._global_names = frozenset()
            else:
                self._global_names = frozenset(
                    name
                    for stmt in self.index.statements_spelling(("global",))
                    for node in self.index.walk(stmt)
                    if isinstance(node, ast.Global)
                    for name in node.names
                )
        return self._global_names

    def local_names(self, fn: CallableNode) -> FrozenSet[str]:
        """The names local to the function or lambda ``fn``: its parameters and every name its
        own scope binds (nested functions, lambdas, classes and comprehensions are scopes of
        their own). Computed once per function."""
        entry = self._local_names.get(id(fn))
        if entry is None or entry[0] is not fn:
            # The entry keeps ``fn`` alive, so its id cannot be reused by another node.
            entry = self._local_names[id(fn)] = (fn, frozenset(parameter_names(fn) | set(self.bindings(fn))))
        return entry[1]

    def bindings(self, fn: ast.AST, binding_pairs: Optional[List[Tuple[ast.AST, ast.AST]]] = None,
                 comprehensions: Sequence[ast.comprehension] = ()) -> Dict[str, Optional[List[ast.expr]]]:
        """``scopes.bindings(fn, ...)``, computed once per function whichever analysis asks first
        (the handler analyses pass the walk they have); callers must not modify it."""
        entry = self._bindings.get(id(fn))
        if entry is None or entry[0] is not fn:
            # The entry keeps ``fn`` alive, so its id cannot be reused by another node.
            entry = self._bindings[id(fn)] = (fn, bindings(fn, binding_pairs, comprehensions))
        return entry[1]

    # --- which function runs -------------------------------------------------------------------

    @property
    def functions(self) -> Dict[str, FunctionNode]:
        """Module functions that certainly are what a call of their name runs (module docstring)."""
        if self._functions is None:
            definitions: Dict[str, List[ast.stmt]] = {}
            for stmt in self.tree.body:
                for node in _module_level_statements(stmt):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        definitions.setdefault(node.name, []).append(node)
            top = {id(stmt) for stmt in self.tree.body}
            index = self.index
            self._functions = {
                name: nodes[0]
                for name, nodes in definitions.items()
                if len(nodes) == 1
                and id(nodes[0]) in top
                and isinstance(nodes[0], (ast.FunctionDef, ast.AsyncFunctionDef))
                and name not in index.assigned
                and name not in index.imports
                and name not in self.global_names
            }
        return self._functions

    def callable_node(self, node: Optional[ast.AST]) -> Optional[CallableNode]:
        """The module function (``functions``) or lambda that ``node`` certainly denotes, following
        names bound once (``check = _check_impl``, ``check = lambda: ...``); else None."""
        functions = self.functions
        seen: Set[str] = set()
        while isinstance(node, ast.Name) and node.id not in seen:
            seen.add(node.id)
            if node.id in functions:
                return functions[node.id]
            values = self.index.assigned.get(node.id)
            if not values or len(values) != 1 or not self._bound_only_by_assignment(node.id):
                return None
            node = values[0]
        return node if isinstance(node, ast.Lambda) else None

    def _bound_only_by_assignment(self, name: str) -> bool:
        index = self.index
        return not (
            name in index.imports or name in index.functions or name in index.classes or name in self.global_names
        )

    def nested_function(self, qualname: str) -> Optional[Tuple[FunctionNode, FrozenSet[str]]]:
        """The def a qualified name (``make.<locals>.handle``, as the evaluator names a nested
        function it computed) certainly denotes, with the names its enclosing functions bind
        (their locals, not the module's names, for the code inside): each part the only binding
        of its name in the scope around it, by an undecorated ``def``; else None."""
        outer, *inner = qualname.split(NESTED)
        function = self.functions.get(outer)
        if function is None or not inner:
            return None
        enclosing: Set[str] = set()
        for name in inner:
            if function.decorator_list:
                return None
            enclosing |= self.local_names(function)
            bound, definition = scope_binding(function, name, self.returns_decorated)
            if definition is None:
                return None
            function = definition
        return function, frozenset(enclosing)

    def returns_decorated(self, decorator: ast.expr) -> bool:
        """``functools.wraps(...)`` (or ``wraps(...)`` imported from functools): it returns the
        function it decorates."""
        if not isinstance(decorator, ast.Call):
            return False
        func = decorator.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return func.attr == "wraps" and self.index.imports.get(func.value.id) == "functools"
        return isinstance(func, ast.Name) and self.index.imports.get(func.id) == "functools.wraps"

    # --- what a name denotes -------------------------------------------------------------------

    def is_builtin(self, name: str) -> bool:
        """``name`` is a builtin the module does not bind (a function may still bind it locally:
        callers that look inside a function also ask ``local_names``)."""
        return name in _BUILTIN_NAMES and not self.index.is_bound(name)

    def binds_only_by_import(self, name: Optional[str]) -> bool:
        """``name`` is bound by an import and by nothing else (so ``os`` really is ``os``)."""
        index = self.index
        return (
            name is not None
            and name in index.imports
            and not index.has_star_import
            and name not in index.assigned
            and name not in index.functions
            and name not in index.classes
        )

    def import_target(self, node: ast.AST) -> Optional[str]:
        """What ``node`` names through the module's imports — ``json.dumps`` for ``dumps`` after
        ``from json import dumps``, or for ``json.dumps`` after ``import json`` — else None.
        Attribute chains are followed (``importlib.util.find_spec``)."""
        attributes: List[str] = []
        while isinstance(node, ast.Attribute):
            attributes.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        target = self.index.imports.get(node.id)
        if target is None:
            return None
        return ".".join([target, *reversed(attributes)])

    def is_registry_helper(self, node: ast.AST, helper: str) -> bool:
        """``node`` is the registry's ``tool_error``/``tool_result`` helper: a name imported from
        a module named ``registry`` (``from tools.registry import tool_error``)."""
        if not isinstance(node, ast.Name):
            return False
        module, _, attribute = self.index.imports.get(node.id, "").rpartition(".")
        return attribute == helper and module.rstrip(".").split(".")[-1] == "registry"

    # --- exception coverage --------------------------------------------------------------------

    @staticmethod
    def handler_catches(handler: ast.ExceptHandler, raised: Optional[str]) -> bool:
        """Whether ``handler`` may catch an exception of the class named ``raised`` (None: any
        class). A bare ``except``, ``Exception``/``BaseException``, an expression that is not a
        plain name, or a class of this or another module (it may be a base) may catch it."""
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for caught_node in types:
            if not isinstance(caught_node, ast.Name) or caught_node.id in ("Exception", "BaseException"):
                return True
            if raised is None or raised == caught_node.id:
                return True
            caught, thrown = _BUILTIN_EXCEPTIONS.get(caught_node.id), _BUILTIN_EXCEPTIONS.get(raised)
            if caught is None or thrown is None or issubclass(thrown, caught):
                return True
        return False


def _module_level_statements(stmt: ast.stmt) -> List[ast.stmt]:
    """``stmt`` and the statements nested in its compound statements (if/try/with/for/match), not
    in defs or classes."""
    found: List[ast.stmt] = []
    todo = [stmt]
    while todo:
        current = todo.pop()
        found.append(current)
        if not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(child_statements(current))
    return found
