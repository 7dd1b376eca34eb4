"""The values the evaluator handles, and its internal markers (refusals, refs, frames)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, AbstractSet, Any, Dict, Iterable, List, Optional, Tuple, Type

from .limits import BUDGET_EXCEEDED

if TYPE_CHECKING:  # pragma: no cover
    from _collections_abc import dict_items, dict_keys, dict_values

    from ..model import Location
    from .state import _EvaluatorState
    from .syntax import FunctionNode

_NONE_TYPE = type(None)

_SCALAR_TYPES = (str, int, float, bool, _NONE_TYPE)

_NUMBER_TYPES = (int, float, bool)

_PLAIN_CONTAINERS = (list, tuple, dict, set, frozenset)

# Errors the analysed code itself would raise (missing key, bad types...): the value is then "this
# raises", which is unresolved. RecursionError is deliberately absent (see _run).
_PYTHON_ERRORS = (TypeError, ValueError, LookupError, ArithmeticError, RuntimeError)

_VIEW_TYPES: Tuple[Type[dict_keys[Any, Any]], Type[dict_values[Any, Any]], Type[dict_items[Any, Any]]] = (
    type({}.keys()), type({}.values()), type({}.items())
)

# Lazy iterables the supported builtins return; they only ever walk plain values.
_ITERATOR_TYPES = tuple(
    {
        type(zip()),
        type(enumerate(())),
        type(iter([])),
        type(iter(())),
        type(iter("")),
        type(iter(range(0))),
        type(reversed([])),
        type(reversed(())),
        type(reversed(range(0))),
        type(reversed({})),
        type(reversed({}.values())),
        type(reversed({}.items())),
        type(iter({})),
        type(iter({}.values())),
        type(iter({}.items())),
        type(iter(set())),
    }
)

_ITERABLE_TYPES = (list, tuple, str, dict, range, set, frozenset) + _VIEW_TYPES + _ITERATOR_TYPES


class _Refusal(Exception):
    """Evaluation cannot go on; becomes an ``Unresolved`` at the public boundary."""

    def __init__(self, reason: str, node: Optional[ast.AST] = None, raises: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.node = node
        # The analysed code certainly raises here (not merely "unknown"): never a hole, since
        # Python would not build the value around it at all.
        self.raises = raises
        self.function: Optional[str] = None  # innermost module function it happened in
        self.location: Optional[Location] = None  # where the cause is, when it is not at ``node`` (a hole's origin)


class _FunctionRef:
    """A ``def`` used as a value (callable; never a result).

    ``owner`` is the evaluator of the module that defines it when that is another module of the
    project (a function imported from it); None for this module's own module-level functions.
    A ``def`` run inside a function body (a nested function) has ``closure``, the frame of the
    call that ran it (names it does not bind are looked up there, as Python does), its
    ``defaults`` (computed when the def ran) and always its ``owner``.
    """

    __slots__ = ("name", "node", "owner", "closure", "defaults", "attrs", "undecorated")

    def __init__(self, name: str, node: FunctionNode, owner: Optional[_EvaluatorState] = None,
                 closure: Optional[_Frame] = None, defaults: Optional[Dict[Any, Any]] = None):
        self.name = name
        self.node = node
        self.owner = owner
        self.closure = closure
        self.defaults = defaults  # (node's default slot) -> value, for a nested function
        # the attributes set on a function value a def run by the evaluator made (its
        # ``__dict__``, ``function_values``); None for one whose attributes are not known
        self.attrs: Optional[Dict[str, Any]] = {} if closure is not None else None
        # why a decorated module function's decorators could not be applied: the value is then
        # unknown (only its name still says which def it is, for a handler); None otherwise
        self.undecorated: Optional[str] = None


class _ClassRef:
    """A module-level class of the project used as a callee (see ``classes``); ``owner`` as for
    ``_FunctionRef``."""

    __slots__ = ("name", "node", "owner")

    def __init__(self, name: str, node: ast.ClassDef, owner: Optional[_EvaluatorState] = None):
        self.name = name
        self.node = node
        self.owner = owner


class _Instance:
    """An object of a simple class of the project (``classes``): its attributes, in the order
    they were set. Only its attributes can be read (and a NamedTuple's items): comparing,
    hashing or printing one would run methods the evaluator does not model, so it is refused."""

    __slots__ = ("class_name", "attrs", "is_tuple")

    def __init__(self, class_name: str, attrs: Dict[str, Any], is_tuple: bool):
        self.class_name = class_name
        self.attrs = attrs
        self.is_tuple = is_tuple  # a NamedTuple: also a tuple of its fields

    def _refuse(self, *_: Any) -> bool:
        raise _Refusal(f"comparison of a {self.class_name} object")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse

    def __hash__(self) -> int:
        raise _Refusal(f"hash of a {self.class_name} object")

    def __bool__(self) -> bool:
        return bool(self.attrs) if self.is_tuple else True


class _AsyncFunctionRef:
    """An ``async def`` used as a value where functions may be parts of a value
    (``evaluate(objects=True)``: a table naming its handlers); never called. ``owner`` and
    ``closure`` as for ``_FunctionRef``."""

    __slots__ = ("name", "node", "owner", "closure")

    def __init__(self, name: str, node: FunctionNode, owner: Optional[_EvaluatorState] = None,
                 closure: Optional[_Frame] = None):
        self.name = name
        self.node = node
        self.owner = owner
        self.closure = closure


class _BuiltinRef:
    """A supported builtin used as a value (callable; never a result)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class _Frame:
    """Local names of a function call or a comprehension.

    ``opaque`` frames stand for a function whose locals are unknown: an expression inside a
    handler body may use module constants but not the handler's own variables.
    """

    __slots__ = ("owner", "local_names", "values", "parent", "opaque")

    def __init__(
        self,
        owner: Optional[str],
        local_names: AbstractSet[str],
        values: Dict[str, Any],
        parent: Optional[_Frame] = None,
        opaque: bool = False,
    ):
        self.owner = owner
        self.local_names = local_names
        self.values = values
        self.parent = parent
        self.opaque = opaque


class _Returned:
    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


_BREAK = object()


_CONTINUE = object()


class _Arguments:
    """Evaluated call arguments, with the nodes they came from (for locations)."""

    __slots__ = ("positional", "positional_nodes", "keywords", "keyword_nodes")

    def __init__(
        self,
        positional: List[Any],
        positional_nodes: List[Optional[ast.AST]],
        keywords: Dict[str, Any],
        keyword_nodes: Dict[str, Optional[ast.AST]],
    ):
        self.positional = positional
        self.positional_nodes = positional_nodes
        self.keywords = keywords
        self.keyword_nodes = keyword_nodes


def _is_immutable(value: Any) -> bool:
    if value.__class__ in _SCALAR_TYPES:
        return True
    if value.__class__ in (tuple, frozenset):
        return all(_is_immutable(item) for item in value)
    return False


def _type_name(value: Any) -> str:
    if isinstance(value, _FunctionRef):
        return f"function {value.name}"
    if value.__class__ is _AsyncFunctionRef:
        return f"async function {value.name}"
    if value.__class__ is _ClassRef:
        return f"class {value.name}"
    if value.__class__ is _Instance:
        return f"{value.class_name} object"
    if isinstance(value, _BuiltinRef):
        return f"builtin {value.name}"
    return type(value).__name__


def _budget(node: Optional[ast.AST] = None) -> _Refusal:
    return _Refusal(BUDGET_EXCEEDED, node)


def _raises(error: BaseException) -> str:
    text = str(error)
    if len(text) > 120:
        text = text[:117] + "..."
    return f"evaluation raises {type(error).__name__}: {text}" if text else f"evaluation raises {type(error).__name__}"


def _positional(arguments: _Arguments, minimum: int, maximum: int, what: str, keywords: Tuple[str, ...] = ()) -> list:
    """The positional arguments of a call taking ``minimum``..``maximum`` of them."""
    for key in arguments.keywords:
        if key not in keywords:
            raise _Refusal(f"unsupported keyword argument {key}= for {what}")
    count = len(arguments.positional)
    if not minimum <= count <= maximum:
        raise TypeError(f"{what}() takes {minimum}..{maximum} arguments ({count} given)")
    return arguments.positional


def _scalar_arguments(values: Iterable[Any], what: str) -> None:
    for value in values:
        if value.__class__ not in _SCALAR_TYPES and not (
            value.__class__ is tuple and all(v.__class__ is str for v in value)
        ):
            raise TypeError(f"{what}: unexpected argument of type {_type_name(value)}")

