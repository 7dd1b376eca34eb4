"""ModuleEvaluator: the public entry points, module names and scopes, and the node dispatch."""

from __future__ import annotations

import ast
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from ..model import Hole, HoleUsed, Unresolved
from .bounds import _Bounds
from .built_values import _BuiltValues
from .builtin_functions import _BUILTINS, _PYTHON_BUILTIN_NAMES
from .calls import _Calls
from .classes import _Classes
from .expressions import _Expressions
from .function_values import _FunctionValues
from .holes import _Branches, _Holes
from .imports import _Imports
from .local_scopes import _LocalScopes
from .limits import BUDGET_EXCEEDED, TOTAL_BUDGET_FACTOR
from .locations import _Locations
from .module_index import _BINDING_WORDS, _Binding, _BindingIndex, _is_environment
from .operators import _Operators
from .primitives import _Primitives
from .statements import _Statements
from .syntax import (
    _EXPRESSION_WORDS,
    FunctionNode,
    Positioned,
    _analyse_function,
    _end,
    _FunctionInfo,
    _start,
)
from .text import _Text
from .values import (
    _AsyncFunctionRef,
    _ITERATOR_TYPES,
    _SCALAR_TYPES,
    _budget,
    _BuiltinRef,
    _is_immutable,
    _Refusal,
)

if TYPE_CHECKING:  # pragma: no cover
    from .project import ParsedProjectModule, ProjectModules


class ModuleEvaluator(_Locations, _Bounds, _Holes, _Branches, _Primitives, _Imports, _Expressions, _Operators, _Calls, _Statements, _LocalScopes, _BuiltValues, _Classes, _Text, _FunctionValues):
    """Evaluates expressions of one module, statically. See the module docstring.

    ``evaluate(node)`` and ``constant(name)`` return a plain value or an ``Unresolved`` (with the
    location of the cause); ``locations_of(value)`` maps JSON paths of a value this evaluator
    produced to the source location of each dict key / list item. Not thread-safe.
    """

    def __init__(
        self,
        tree: ast.Module,
        source_lines: Optional[List[str]] = None,
        *,
        step_budget: int = 20_000,
        total_step_budget: Optional[int] = None,
        module: str = "",
        is_package: bool = False,
        project: Optional[ProjectModules] = None,
        chain: Tuple[str, ...] = (),
        located: bool = True,
    ):
        """``module`` (its dotted name) and ``project`` (a ``project.ProjectModules``) let
        names imported from the project's own modules be evaluated; without them every import
        is unknown. ``located=False`` for modules evaluated on behalf of another file: their
        values carry no source locations."""
        self._tree = tree
        self._lines = source_lines
        self._module = module
        self._is_package = is_package
        self._project = project
        self._chain = chain or ((module,) if module else ())
        self._located = located
        self._foreign = {}  # dotted name -> evaluator of that project module, or None
        self._read_modules = {}  # relative path -> sha256 of each module read
        self._inspected_modules = {}  # ... of each module only looked into
        self._source = ("", "")  # (relative path, sha256) of a foreign module
        # The evaluator that imports this one, held weakly: it holds this one in ``_foreign``,
        # and a reference back would make a cycle that keeps both, with the checked module's
        # syntax tree, alive until the cyclic collector finds them (this one is reached only
        # through it, so it is alive whenever this one is used).
        self._parent: Optional[weakref.ReferenceType[ModuleEvaluator]] = None
        self._step_budget = step_budget
        self._total_budget = step_budget * TOTAL_BUDGET_FACTOR if total_step_budget is None else total_step_budget
        self._index = None
        self._kinds = {}  # name -> classification (see _classify)
        # Partial evaluation (holes allowed) and strict evaluation give different values for
        # the same constant (`not [f()]`): each mode has its own caches.
        self._partial_mode = False
        self._caches = {False: ({}, {}), True: ({}, {})}
        self._constants = self._caches[False][0]  # name -> (True, value) | (False, _Refusal)
        self._defaults = self._caches[False][1]  # (function node, slot) -> same
        self._in_progress = set()
        self._bound_values = {}  # name -> value given by add_value
        self._classes = {}  # class node -> what calling it does (see classes)
        self._infos = {}
        self._meta = {}  # id(container) -> (container, key/item locations)
        self._plain_checked = {}
        self._functions_allowed = False  # ``evaluate(objects=True)``: async functions may be parts of the value too
        self._unknown_locals = False  # ``evaluate_in_body``: a local may be bound to a hole
        self._effects_kept = False  # ``call_after_import``: the call stands for running it, effects included
        self._function_constants: Dict[bool, Dict[str, Any]] = {}  # the constants evaluated so, per mode
        self._shared = (None, {})
        self._encoded_lines = {}
        self._nested = {}  # statement -> its nested statements, sorted
        # state of the evaluation in progress
        self._frame = None
        self._now = None  # module "time" of execution; None = after import
        self._steps = 0
        self._total = 0
        self._depth = 0

    def _evaluator_of(self, absolute: str, parsed: ParsedProjectModule) -> ModuleEvaluator:
        """An evaluator of project module ``absolute`` for the names this module imports from it
        (see ``imports``): its values carry no locations, its import chain is one longer."""
        relative, sha256, tree, lines = parsed
        foreign = self.__class__(
            tree,
            lines,
            step_budget=self._step_budget,
            module=absolute,
            is_package=relative.endswith("__init__.py"),
            project=self._project,
            chain=self._chain + (absolute,),
            located=False,
        )
        foreign._source = (relative, sha256)
        foreign._parent = weakref.ref(self)
        return foreign

    def evaluate(self, node: ast.expr, *, partial: bool = False, objects: bool = False) -> Any:
        """The value of ``node`` (an expression of this module), or an ``Unresolved``.

        With ``partial``, a value whose parts are unknown comes back with ``Hole``s in those
        parts (see ``holes``); without, any hole makes the whole value ``Unresolved``. With
        ``objects``, the value may also hold functions and objects (the rows of a table, for
        ``add_value``): only ``own_function`` and evaluating them again can tell what they are.
        """
        if node.__class__ is ast.Constant and node.value.__class__ in _SCALAR_TYPES:
            return node.value
        now, frame = self._context_of(node)
        # with ``objects``, a module's async functions are values too (rows naming handlers)
        former, self._functions_allowed = self._functions_allowed, objects
        try:
            return self._run(lambda: self._eval(node), node, now, frame, partial, objects=objects)
        finally:
            self._functions_allowed = former

    def call_after_import(self, function: ast.expr) -> Any:
        """The value ``function()`` returns once the module is imported (``function`` an
        expression of this module naming a callable), partially: a value the environment decides
        is a ``Hole``, with a template when the runtime can compute it; else an ``Unresolved``."""
        call = ast.Call(func=function, args=[], keywords=[])
        ast.copy_location(call, function)
        former, self._effects_kept = self._effects_kept, True
        try:
            return self._run(lambda: self._eval(call), call, None, None, True, whole_hole=True)
        finally:
            self._effects_kept = former

    def constant(self, name: str, *, partial: bool = False) -> Any:
        """The value of module constant ``name`` (as it is once the module is imported)."""
        return self._run(lambda: self._global(name, None), self._definition_of(name), None, None, partial)

    def _definition_of(self, name: str) -> Optional[ast.AST]:
        """Where ``name`` gets its value (to locate refusals that have no better place)."""
        kind = self._classify(name)
        if len(kind) < 2 or not isinstance(kind[1], _Binding):
            return None
        binding = kind[1]
        return binding.value if binding.value is not None else binding.node

    def is_constant(self, name: str) -> bool:
        """True when module name ``name`` is bound once, by an assignment, and nothing changes
        its value after (not even steps that build it: ``built_values``)."""
        return self._classify(name)[0] == "constant"

    def is_bound(self, name: str) -> bool:
        """True when anything at module level binds ``name`` (assignment, def, import...)."""
        return name in self._get_index().bindings

    def _set_mode(self, partial: bool) -> bool:
        """Evaluate with holes (``partial``) or strictly from now on; returns the former mode."""
        former = self._partial_mode
        self._partial_mode = partial
        self._constants, self._defaults = self._caches[partial]
        return former

    def _run(self, compute: Callable[[], Any], node, now, frame, partial: bool = False,
             whole_hole: bool = False, objects: bool = False) -> Any:
        saved = (self._frame, self._now, self._steps, self._depth)
        self._frame, self._now, self._steps, self._depth = frame, now, 0, 0
        former_mode = self._set_mode(partial)
        try:
            if self._total > self._total_budget:
                raise _budget()
            value = compute()
            hole = self._ensure_plain(value, objects)
            if hole is None:
                return value
            if value.__class__ is Hole:  # wholly unknown: a plain Unresolved says so
                return value if whole_hole else Unresolved(hole.reason, hole.location)
            return value if partial else Unresolved(hole.reason, hole.location)
        except _Refusal as refusal:
            return self._unresolved(refusal, node)
        except HoleUsed as error:
            return Unresolved(error.hole.reason, error.hole.location)
        except RecursionError:  # a pathologically nested expression: refuse, never crash
            return Unresolved("expression nested too deeply", self._location(node))
        except MemoryError:
            return Unresolved(BUDGET_EXCEEDED, self._location(node))
        finally:
            self._total += self._steps
            self._frame, self._now, self._steps, self._depth = saved
            self._set_mode(former_mode)

    def _unresolved(self, refusal: _Refusal, node) -> Unresolved:
        reason = refusal.reason
        if refusal.function is not None:
            reason = f"{reason} (in {refusal.function})"
        if refusal.location is not None:
            return Unresolved(reason, refusal.location)
        where = refusal.node if refusal.node is not None else node
        return Unresolved(reason, self._location(where))

    def _get_index(self) -> _BindingIndex:
        if self._index is None:
            self._index = _BindingIndex(self._tree, self._lines)
        return self._index

    def _classify(self, name: str) -> tuple:
        kind = self._kinds.get(name)
        if kind is None:
            kind = self._kinds[name] = self._classify_uncached(name)
        return kind

    def _classify_uncached(self, name: str) -> tuple:
        """("constant"|"function"|"async function"|"class"|"import", binding), ("built", binding,
        steps), ("mutated", binding, reason, node), ("refused", reason, node), ("builtin",) or
        ("undefined",)."""
        index = self._get_index()
        bindings = index.bindings.get(name)
        if not bindings:
            if name in _BUILTINS:
                return ("builtin",)
            if name in index.global_declarations:
                owner, node = index.global_declarations[name]
                return ("refused", f"{name} is only assigned inside function {owner} (global)", node)
            if index.star_imports:
                return ("refused", f"{name} may come from a star import", index.star_imports[0])
            if name.startswith("__") and name.endswith("__"):
                return ("refused", f"module attribute {name}", None)
            return ("undefined",)
        for binding in bindings:  # whatever else happens to the name, an import cannot be evaluated
            if binding.kind == "import":
                return ("import", binding)
        if name in index.global_declarations:
            owner, node = index.global_declarations[name]
            return ("refused", f"{name} is declared global in function {owner} (line {node.lineno})", node)
        if index.dynamic is not None:
            what, call = index.dynamic
            return ("refused", f"module names are changed dynamically ({what} at line {call.lineno})", call)
        first = bindings[0]
        steps = index.steps_of(name) if len(bindings) > 1 or name in index.mutations else ()
        if len(bindings) > 1 and not steps:
            second = bindings[1]
            verb = "deleted" if second.kind == "del" else "reassigned"
            return ("refused", f"{name} is {verb} at line {second.node.lineno}", second.node)
        for star in index.star_imports:
            if _start(star) > _start(first.node):
                return ("refused", f"{name} may be rebound by a star import at line {star.lineno}", star)
        kind = first.kind
        line = first.node.lineno
        if kind in ("def", "async def", "class"):
            if not first.top_level:
                return ("refused", f"{name} is defined conditionally at line {line}", first.node)
            return ("function" if kind == "def" else "async function" if kind == "async def" else "class", first)
        if kind in ("assign", "annassign") and first.value is not None:
            if not first.top_level:
                return ("refused", f"{name} is assigned conditionally at line {line}", first.node)
            mutation = index.mutation_of(name)
            if mutation is not None and steps:  # changed by more than its steps
                return ("refused", mutation[0], mutation[1])
            if mutation is not None:  # unless its value turns out to be immutable
                return ("mutated", first, mutation[0], mutation[1])
            if steps:
                return ("built", first, steps)
            return ("constant", first)
        words = _BINDING_WORDS.get(kind, kind)
        return ("refused", f"{name} is bound by {words} at line {line}", first.node)

    def _check_time(self, name: str, binding: _Binding, node, used: str = "used") -> None:
        """A module-level statement can only use names bound by the statements before it."""
        if self._now is not None and _end(binding.node) > self._now:
            raise _Refusal(f"{name} is {used} before it is assigned (line {binding.node.lineno})", node)

    def _global(self, name: str, node) -> Any:
        """The value of a module-level name at the current point of the module."""
        kind = self._classify(name)
        tag = kind[0]
        if tag == "constant":
            self._check_time(name, kind[1], node)
            return self._constant_value(name, kind[1], node)
        if tag == "built":
            self._check_time(name, kind[1], node)
            self._check_steps_done(name, kind[2], node)
            return self._constant_value(name, kind[1], node, kind[2])
        if tag == "mutated":  # nothing can change a str, a number or a tuple of them
            self._check_time(name, kind[1], node)
            value = self._constant_value(name, kind[1], node)
            if _is_immutable(value):
                return value
            raise _Refusal(kind[2], kind[3])
        if tag == "function":
            self._check_time(name, kind[1], node)
            return self._module_function(name, kind[1].node)
        if tag == "builtin":
            return _BuiltinRef(name)
        if tag == "value":  # each read a copy, as a literal row would be: a helper may change it
            value = kind[1]
            return self._copy(value, deep=True) if value.__class__ is dict or value.__class__ is list else value
        if tag == "refused":
            raise _Refusal(kind[1], kind[2] if kind[2] is not None else node)
        if tag == "import":
            origin = kind[1].origin
            where = node if node is not None else kind[1].node
            if _is_environment(origin):
                raise _Refusal("environment read", where)
            detail = "" if origin == name else f" ({origin})"
            value = self._imported(name, origin, where, f"imported name {name}{detail}")
            mutation = self._get_index().mutation_of(name)
            if mutation is not None and not _is_immutable(value):
                raise _Refusal(mutation[0], mutation[1])
            return value
        if tag == "undefined":
            if name in _PYTHON_BUILTIN_NAMES:
                raise _Refusal(f"builtin {name} is not supported", node)
            raise _Refusal(f"undefined name {name}", node)
        if tag == "async function" and self._functions_allowed:
            self._check_time(name, kind[1], node)
            return _AsyncFunctionRef(name, kind[1].node)
        raise _Refusal(f"{tag} {name} used as a value", node)

    def _check_steps_done(self, name: str, steps: Tuple[ast.stmt, ...], node) -> None:
        """A module-level statement reads a built name only once every step has run."""
        if self._now is not None and _end(steps[-1]) > self._now:
            pending = next(step for step in steps if _end(step) > self._now)
            raise _Refusal(f"{name} is used before it is changed at line {pending.lineno}", node)

    def _constant_value(self, name: str, binding: _Binding, node, steps: Tuple[ast.stmt, ...] = ()) -> Any:
        # what a constant is depends on whether functions may be parts of it
        constants = self._function_constants.setdefault(self._partial_mode, {}) if self._functions_allowed else self._constants
        cached = constants.get(name)
        if cached is None:
            assert binding.value is not None  # a constant is bound by an assignment (see _classify)
            cached = constants[name] = self._compute_cached(name, binding.value, binding.node, steps)
        if cached[0]:
            return cached[1]
        raise _copy_of(cached[1])

    def _compute_cached(self, key: Any, expression: ast.expr, at: Positioned,
                        steps: Tuple[ast.stmt, ...] = (), compute: Optional[Callable[[], Any]] = None) -> Tuple[bool, Any]:
        """Evaluate a module-level expression once, in module scope at its own point of the
        module, with a fresh budget (so the cached result never depends on who asked first);
        then each of ``steps`` (the statements that build a module name, ``built_values``) at its
        own place, under the same budget."""
        if key in self._in_progress:
            return (False, _Refusal(f"{key} refers to itself", expression))
        saved = (self._frame, self._now, self._steps, self._depth)
        self._frame, self._now, self._steps, self._depth = None, _start(at), 0, 0
        # a cached value is the same whoever asks: never with a run's unknown locals
        unknown_locals, self._unknown_locals = self._unknown_locals, False
        self._in_progress.add(key)
        node: Any = expression
        try:
            if self._total > self._total_budget:
                raise _budget(expression)
            value = self._eval(expression) if compute is None else compute()
            for step in steps:
                node = step
                self._now = _start(step)
                self._tick()
                try:
                    value = self._apply_step(value, step)
                except Exception as error:
                    raise self._as_refusal(error, step) from None
            if isinstance(value, _ITERATOR_TYPES):
                raise _Refusal(f"{key} holds an iterator (its value depends on when it is read)", expression)
            return (True, value)
        except _Refusal as refusal:
            if refusal.node is None:
                refusal.node = node
            # Kept in the cache: without its traceback, whose frames hold this evaluator (a
            # cycle that would keep the module's syntax tree alive until the cyclic GC ran).
            refusal.__traceback__ = refusal.__context__ = None
            return (False, refusal)
        finally:
            self._in_progress.discard(key)
            self._unknown_locals = unknown_locals
            self._total += self._steps
            self._frame, self._now, self._depth = saved[0], saved[1], saved[3]
            self._steps = saved[2] + 1

    def _lookup(self, name: str, node) -> Any:
        frame = self._frame
        while frame is not None:
            if name in frame.local_names:
                if frame.opaque:
                    raise _Refusal(f"local variable {name} of {frame.owner}", node)
                try:
                    return frame.values[name]
                except KeyError:
                    raise _Refusal(f"local variable {name} is used before it is assigned", node) from None
            frame = frame.parent
        return self._global(name, node)

    def _is_local(self, name: str) -> bool:
        frame = self._frame
        while frame is not None:
            if name in frame.local_names:
                return True
            frame = frame.parent
        return False

    def _function_info(self, fdef: FunctionNode) -> _FunctionInfo:
        info = self._infos.get(fdef)
        if info is None:
            info = self._infos[fdef] = _analyse_function(fdef)
        return info

    def _eval(self, node: ast.AST) -> Any:
        self._steps += 1
        if self._steps > self._step_budget:
            raise _budget(node)
        handler = _EXPRESSIONS.get(node.__class__)
        if handler is None:
            what = _EXPRESSION_WORDS.get(node.__class__, node.__class__.__name__)
            raise _Refusal(f"unsupported expression: {what}", node)
        try:
            return handler(self, node)
        except Exception as error:
            raise self._as_refusal(error, node) from None

    def _value(self, node: ast.AST) -> Any:
        """``_eval`` with the fast path for literals (the bulk of a schema; they cost no step)."""
        if node.__class__ is ast.Constant:
            return node.value
        return self._eval(node)


_EXPRESSIONS: Dict[type, Callable] = {
    ast.Constant: ModuleEvaluator._eval_constant,
    ast.Name: ModuleEvaluator._eval_name,
    ast.Dict: ModuleEvaluator._eval_dict,
    ast.List: ModuleEvaluator._eval_list,
    ast.Tuple: ModuleEvaluator._eval_tuple,
    ast.Set: ModuleEvaluator._eval_set,
    ast.JoinedStr: ModuleEvaluator._eval_joined_str,
    ast.FormattedValue: ModuleEvaluator._eval_formatted_value,
    ast.UnaryOp: ModuleEvaluator._eval_unary,
    ast.BoolOp: ModuleEvaluator._eval_bool_op,
    ast.BinOp: ModuleEvaluator._eval_bin_op,
    ast.Compare: ModuleEvaluator._eval_compare,
    ast.IfExp: ModuleEvaluator._eval_if_exp,
    ast.Subscript: ModuleEvaluator._eval_subscript,
    ast.Attribute: ModuleEvaluator._eval_attribute,
    ast.Call: ModuleEvaluator._eval_call,
    ast.ListComp: ModuleEvaluator._eval_list_comp,
    ast.SetComp: ModuleEvaluator._eval_set_comp,
    ast.DictComp: ModuleEvaluator._eval_dict_comp,
    ast.GeneratorExp: ModuleEvaluator._eval_generator,
}


def _copy_of(refusal: _Refusal) -> _Refusal:
    """A fresh refusal saying what a cached one says (a cached one must not be mutated)."""
    copy = _Refusal(refusal.reason, refusal.node, raises=refusal.raises)
    copy.function = refusal.function
    copy.location = refusal.location
    return copy
