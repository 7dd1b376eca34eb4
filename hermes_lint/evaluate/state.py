"""What every part of ``ModuleEvaluator`` shares: its state, and the methods the parts call on
each other.

``ModuleEvaluator`` is assembled from one mixin per concern, and each mixin reads the state
and calls the methods of the others through ``self``. Each mixin subclasses ``_EvaluatorState``
so that a type checker knows those members and their types. At run time the class adds
nothing: ``ModuleEvaluator.__init__`` sets the attributes, the mixins implement the methods,
and the declarations below exist for the type checker only. They are abstract there, so a
method declared here that no part implements makes every ``ModuleEvaluator(...)`` a type error.
Other evaluators (of imported modules, owners of imported functions) are typed
``_EvaluatorState`` too: what one evaluator uses of another is declared here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Dict, List, Optional, Sequence, Set, Tuple, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    import weakref
    from abc import abstractmethod

    from ..model import Hole, Location
    from .evaluator import ModuleEvaluator
    from .module_index import _Binding, _BindingIndex
    from .project import ParsedProjectModule, ProjectModules
    from .syntax import FunctionNode, Positioned, _FunctionInfo
    from .values import _Arguments, _ClassRef, _Frame, _FunctionRef, _Instance, _Refusal

_T = TypeVar("_T")

# (True, value) or (False, the _Refusal to raise): a cached module constant or default value.
CachedValue = Tuple[bool, Any]


class _EvaluatorState:
    """The attributes ``ModuleEvaluator.__init__`` sets, and the cross-mixin methods."""

    # --- the module and where it sits in the project
    _tree: ast.Module
    _lines: Optional[List[str]]
    _module: str
    _is_package: bool
    _project: Optional[ProjectModules]
    _chain: Tuple[str, ...]
    _located: bool
    _foreign: Dict[str, Optional[ModuleEvaluator]]  # dotted name -> its evaluator (None: not a project file)
    _read_modules: Dict[str, str]
    _inspected_modules: Dict[str, str]
    _source: Tuple[str, str]
    _parent: Optional[weakref.ReferenceType[ModuleEvaluator]]

    # --- bounds
    _step_budget: int
    _total_budget: int

    # --- what the module binds, and the caches of values computed from it
    _index: Optional[_BindingIndex]
    _kinds: Dict[str, tuple]
    _partial_mode: bool
    _caches: Dict[bool, Tuple[Dict[str, CachedValue], Dict[tuple, CachedValue]]]
    _constants: Dict[str, CachedValue]
    _defaults: Dict[tuple, CachedValue]
    _in_progress: Set[str]
    _bound_values: Dict[str, Any]
    _classes: Dict[ast.AST, Any]
    _infos: Dict[ast.AST, _FunctionInfo]
    _meta: Dict[int, tuple]
    _plain_checked: Dict[int, Tuple[Any, Optional[Hole]]]
    _functions_allowed: bool
    _function_constants: Dict[bool, Dict[str, CachedValue]]
    _unknown_locals: bool
    _effects_kept: bool
    _shared: Tuple[Any, Dict[int, str]]
    _encoded_lines: Dict[int, bytes]
    _nested: Dict[ast.AST, Tuple[List[ast.stmt], List[Tuple[int, int]]]]

    # --- the evaluation in progress
    _frame: Optional[_Frame]
    _now: Optional[Tuple[int, int]]
    _steps: int
    _total: int
    _depth: int

    if TYPE_CHECKING:  # pragma: no cover
        # evaluator
        @abstractmethod
        def _eval(self, node: ast.AST) -> Any: ...
        @abstractmethod
        def _value(self, node: ast.AST) -> Any: ...
        @abstractmethod
        def _lookup(self, name: str, node: Optional[ast.AST]) -> Any: ...
        @abstractmethod
        def _is_local(self, name: str) -> bool: ...
        @abstractmethod
        def _classify(self, name: str) -> tuple: ...
        @abstractmethod
        def _global(self, name: str, node: Optional[ast.AST]) -> Any: ...
        @abstractmethod
        def _check_time(self, name: str, binding: _Binding, node: Optional[ast.AST], used: str = "used") -> None: ...
        @abstractmethod
        def _compute_cached(
            self, key: Any, expression: ast.expr, at: Positioned, steps: Tuple[ast.stmt, ...] = (),
            compute: Optional[Callable[[], Any]] = None,
        ) -> CachedValue: ...
        @abstractmethod
        def _function_info(self, fdef: FunctionNode) -> _FunctionInfo: ...
        @abstractmethod
        def _set_mode(self, partial: bool) -> bool: ...
        @abstractmethod
        def _evaluator_of(self, absolute: str, parsed: ParsedProjectModule) -> ModuleEvaluator: ...

        # primitives
        @abstractmethod
        def _template_primitive(self, reached: str, arguments: Any, node: ast.AST) -> Hole: ...
        @abstractmethod
        def _template_method(self, receiver: Hole, name: str, arguments: Any, node: ast.AST) -> Hole: ...
        @abstractmethod
        def _only_imported(self, name: str) -> bool: ...
        @abstractmethod
        def _imported_root(self, node: ast.AST) -> Optional[str]: ...
        @abstractmethod
        def _local_import(self, name: str) -> Optional[str]: ...
        @abstractmethod
        def _exec_import(self, stmt: ast.stmt) -> None: ...
        @abstractmethod
        def _get_index(self) -> Any: ...
        @abstractmethod
        def _isinstance(self, arguments: Any, node: ast.AST) -> Any: ...
        @abstractmethod
        def _template_isinstance(self, arguments: Any, node: ast.AST) -> Optional[Hole]: ...
        @abstractmethod
        def _template_membership(self, hole: Hole, container: Any, negated: bool) -> Optional[Hole]: ...
        @abstractmethod
        def _path_exists(self, node: ast.Call, func: ast.Attribute) -> Optional[Hole]: ...

        # locations
        @abstractmethod
        def _location(self, node: Any) -> Optional[Location]: ...
        @abstractmethod
        def _remember(self, obj: _T, table: Any) -> _T: ...
        @abstractmethod
        def _table_of(self, obj: Any) -> Any: ...
        @abstractmethod
        def _placed(self, entry: Any) -> Optional[Location]: ...
        @abstractmethod
        def _adopt_locations(self, value: Any, foreign: _EvaluatorState) -> Any: ...
        @abstractmethod
        def _list_table(self, obj: list) -> list: ...
        @abstractmethod
        def _dict_table(self, obj: dict) -> dict: ...
        @abstractmethod
        def _items_table(self, obj: Any, length: int) -> list: ...

        # bounds
        @abstractmethod
        def _tick(self, steps: int = 1) -> None: ...
        @abstractmethod
        def _check_items(self, count: int) -> None: ...
        @abstractmethod
        def _check_text(self, length: int) -> None: ...
        @abstractmethod
        def _check_int(self, value: _T) -> _T: ...
        @abstractmethod
        def _charge_deep(self, *values: Any) -> None: ...
        @abstractmethod
        def _text_bound(self, value: Any) -> int: ...
        @abstractmethod
        def _require_stable_order(self, values: Any, node: Optional[ast.AST] = None) -> None: ...

        # holes
        @abstractmethod
        def _partial(self, node: ast.AST) -> Any: ...
        @abstractmethod
        def _refuse_hole(self, hole: Hole, node: Optional[ast.AST] = None) -> _Refusal: ...
        @abstractmethod
        def _refuse_hole_arguments(self, arguments: _Arguments, node: Optional[ast.AST]) -> None: ...
        @abstractmethod
        def _as_refusal(self, error: Exception, node: ast.AST) -> Exception: ...
        @abstractmethod
        def _environment_read(self, reached: str, arguments: _Arguments, node: ast.AST) -> Hole: ...
        @abstractmethod
        def _template_call(self, name: str, arguments: _Arguments, node: ast.AST) -> Hole: ...
        @abstractmethod
        def _template_format(self, hole: Hole, conversion: int, spec: Any, node: ast.AST) -> Hole: ...
        @abstractmethod
        def _template_concat(self, parts: list) -> Hole: ...
        @abstractmethod
        def _template_bool_op(self, is_and: bool, values: list) -> Hole: ...

        # branches
        @abstractmethod
        def _template_compare(self, op: ast.cmpop, left: Any, right: Any) -> Hole: ...
        @abstractmethod
        def _split(self, condition: Hole, stmt: ast.If, rest: Sequence[ast.stmt]) -> Any: ...
        @abstractmethod
        def _template_try(self, value: Hole, stmt: ast.Try) -> Hole: ...
        @abstractmethod
        def _is_logging_call(self, node: ast.AST) -> bool: ...

        # imports
        @abstractmethod
        def _imported(self, name: str, origin: str, node: Optional[ast.AST], refusal: str) -> Any: ...
        @abstractmethod
        def _imported_attribute(self, dotted: str, node: Optional[ast.AST], refusal: str) -> Any: ...
        @abstractmethod
        def _foreign_module(self, module: str, node: Optional[ast.AST], record: bool = True) -> Any: ...
        @abstractmethod
        def _call_foreign(
            self, owner: _EvaluatorState, ref: _FunctionRef, arguments: _Arguments, node: Optional[ast.AST]
        ) -> Any: ...
        @abstractmethod
        def _working_in(self, foreign: _EvaluatorState, node: Optional[ast.AST]) -> ContextManager[None]: ...

        # expressions
        @abstractmethod
        def _truth(self, value: Any) -> bool: ...
        @abstractmethod
        def _merge(self, result: dict, table: dict, mapping: Any, node: Optional[ast.AST]) -> None: ...
        @abstractmethod
        def _iterable(self, value: Any, node: Optional[ast.AST], ordered: bool = True) -> Any: ...
        @abstractmethod
        def _materialize(self, value: Any, node: Optional[ast.AST], ordered: bool = True) -> list: ...
        @abstractmethod
        def _assign_target(self, target: ast.AST, value: Any, scope: Dict[str, Any]) -> None: ...

        # operators
        @abstractmethod
        def _binary(self, op: ast.operator, left: Any, right: Any) -> Any: ...

        # calls
        @abstractmethod
        def _call_function(self, ref: _FunctionRef, arguments: _Arguments, node: Optional[ast.AST]) -> Any: ...
        @abstractmethod
        def _bind_parameters(self, fdef: FunctionNode, arguments: _Arguments, computed: Optional[dict] = None) -> dict: ...
        @abstractmethod
        def _default(self, fdef: Any, slot: Any, expression: ast.expr) -> Any: ...

        # classes
        @abstractmethod
        def _construct(self, ref: _ClassRef, arguments: _Arguments, node: Optional[ast.AST]) -> _Instance: ...
        @abstractmethod
        def _instance_attribute(self, instance: _Instance, attr: str, node: Optional[ast.AST]) -> Any: ...

        @abstractmethod
        def _arguments(self, node: ast.Call) -> _Arguments: ...
        @abstractmethod
        def _call_method(self, receiver: Any, name: str, arguments: _Arguments, node: Optional[ast.AST]) -> Any: ...

        @abstractmethod
        def _copy(self, value: Any, deep: bool) -> Any: ...

        # statements
        @abstractmethod
        def _execute(self, statements: List[ast.stmt]) -> Any: ...
        @abstractmethod
        def _in_place(self, op: ast.operator, current: Any, operand: Any, operand_node: Optional[ast.AST]) -> Any: ...
        @abstractmethod
        def _set_item(self, container: Any, key: Any, value: Any, key_node: Any, value_node: Any) -> None: ...
        @abstractmethod
        def _ensure_mutable(self, obj: Any) -> None: ...

        # function bodies as scopes
        @abstractmethod
        def _exec_def(self, stmt: FunctionNode) -> None: ...

        # function values
        @abstractmethod
        def _module_function(self, name: str, fdef: FunctionNode) -> _FunctionRef: ...
        @abstractmethod
        def _apply_decorator(self, decorator: Any, function: Any, node: ast.AST) -> Any: ...
        @abstractmethod
        def _wraps(self, arguments: _Arguments, node: Any) -> Any: ...
        @abstractmethod
        def _function_attribute(self, function: _FunctionRef, attr: str, node: Any, default: Any = None,
                                has_default: bool = False) -> Any: ...
        @abstractmethod
        def _builtin_getattr(self, arguments: _Arguments, node: Any) -> Any: ...
        @abstractmethod
        def _set_function_attribute(self, target: ast.Attribute, value: Any) -> None: ...
        @abstractmethod
        def _shared_state(self) -> Tuple[Dict[str, Tuple[str, Any]], frozenset]: ...
        @abstractmethod
        def _shared_reason(self, name: str) -> Optional[str]: ...
        @abstractmethod
        def _dropped_change(self, stmt: ast.stmt) -> bool: ...
        @abstractmethod
        def _assigned_value(self, expression: ast.expr) -> Any: ...
        @abstractmethod
        def _hole_of(self, refusal: _Refusal, node: ast.AST) -> Hole: ...
        @abstractmethod
        def _run(self, compute: Any, node: Any, now: Any, frame: Any, partial: bool = False,
                 whole_hole: bool = False, objects: bool = False) -> Any: ...
        @abstractmethod
        def _ensure_plain(self, value: Any, objects: bool = False) -> Optional[Hole]: ...

        # built values
        @abstractmethod
        def _apply_step(self, value: Any, step: Any) -> Any: ...

        # text
        @abstractmethod
        def _percent_format(self, template: str, values: Any) -> str: ...
