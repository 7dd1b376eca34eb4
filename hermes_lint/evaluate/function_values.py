"""Function values: decorators, ``functools.wraps``, attributes set on functions, and module
names that function bodies change.

- *Decorators.* The value of a decorated function is what its decorators return, applied
  bottom-up where the ``def`` runs (a module function's once, in module scope at its ``def``,
  cached like a constant). ``functools.wraps(f)`` returns a decorator that gives the wrapper
  ``f``'s attributes (``__dict__``) and ``__wrapped__``; another decorator must be a function the
  evaluator can call. When a module function's decorators cannot be applied, its value is
  unknown: it still names its ``def`` (for a handler), but calling it, or reading an attribute of
  it, is refused with the reason.
- *Attributes.* A function made by a ``def`` the evaluator ran has the attributes set on it since
  (``wrapper.meta = {...}``); ``getattr(f, "meta"[, default])`` and ``f.meta`` read them. A
  module function has none unless its module sets one on it (``f.x = ...``, ``setattr``), in
  which case its attributes are unknown. Dunder attributes are not modelled (refused).
- *Changed by a function.* Values are those a module has once imported: a function that only
  runs later changes nothing (``module_index``). But a function of the module may run at another
  module's import (a decorator factory that records each name it is given, ``NAMES.add(name)``).
  A module name that its module only ever changes in function bodies, by statements that change
  it in place (``NAMES.add(x)``, ``TABLE[k] = v``), and never reads otherwise, is *write-only*:
  no code of its module can see what it holds. Such a change run by the evaluator is dropped
  when it cannot fail (``set.add`` of a hashable value, ``list.append``, ``dict[k] = v``...), and
  reading the name from another module (which could see what other modules' imports put in it)
  is refused, naming the function: so no value the evaluator computes depends on it, whichever
  is asked for first. A call that stands for running the function (``call_after_import``: a
  check the runtime computes from a template instead) keeps its effects: there the change is
  refused. Decided from the syntax alone (``shared_names``). A name its module also
  reads keeps the import-time value, and a change of it by evaluated code is refused.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, Optional, Tuple

from .state import _EvaluatorState
from .syntax import MUTATING_METHODS, FunctionNode, _analyse_function
from .values import (
    _SCALAR_TYPES,
    _Arguments,
    _BuiltinRef,
    _FunctionRef,
    _positional,
    _Refusal,
    _type_name,
)

# (function that changes the name, the node that changes it)
SharedNames = Dict[str, Tuple[str, Any]]


class _Wraps:
    """The decorator ``functools.wraps(wrapped)`` returns."""

    __slots__ = ("wrapped",)

    def __init__(self, wrapped: Any):
        self.wrapped = wrapped


class _FunctionValues(_EvaluatorState):
    """Decorators, function attributes and shared module state (a mixin of ModuleEvaluator)."""

    # --- decorators ------------------------------------------------------------------------

    def _module_function(self, name: str, fdef: FunctionNode) -> _FunctionRef:
        """The value of this module's function ``name`` once its ``def`` has run."""
        if not fdef.decorator_list:
            return _FunctionRef(name, fdef, self)  # its attributes: ``_attributes_of``
        key = f"decorated function {name}"
        cached = self._constants.get(key)
        if cached is None:
            def apply() -> Any:
                value = _FunctionRef(name, fdef, self)
                value.attrs = None if name in self._shared_state()[1] else {}
                for decorator in reversed(fdef.decorator_list):
                    value = self._apply_decorator(self._eval(decorator), value, decorator)
                return value
            cached = self._constants[key] = self._compute_cached(key, fdef.decorator_list[0], fdef, compute=apply)
        if cached[0]:
            return cached[1]
        ref = _FunctionRef(name, fdef, self)
        ref.undecorated = cached[1].reason
        return ref

    def _apply_decorator(self, decorator: Any, function: Any, node: ast.AST) -> Any:
        if decorator.__class__ is _Wraps:
            if function.__class__ is not _FunctionRef or function.attrs is None:
                raise _Refusal(f"functools.wraps applied to a {_type_name(function)}", node)
            wrapped = decorator.wrapped
            attrs = _attributes_of(wrapped) if wrapped.__class__ is _FunctionRef and wrapped.undecorated is None else None
            if attrs is None:
                function.attrs = None  # it takes the attributes of a function whose attributes are unknown
            else:
                function.attrs.update(attrs)
                function.attrs["__wrapped__"] = wrapped
            return function
        if isinstance(decorator, _FunctionRef):
            return self._call_function(decorator, _Arguments([function], [None], {}, {}), node)
        raise _Refusal(f"decorator of a {_type_name(decorator)}", node)

    def _wraps(self, arguments: _Arguments, node) -> _Wraps:
        (wrapped,) = _positional(arguments, 1, 1, "functools.wraps")
        return _Wraps(wrapped)

    # --- attributes --------------------------------------------------------------------------

    def _function_attribute(self, function: _FunctionRef, attr: str, node, default: Any = None, has_default: bool = False) -> Any:
        if function.undecorated is not None:
            raise _Refusal(f"{function.name} is decorated, and its decorators cannot be evaluated: {function.undecorated}", node)
        if attr.startswith("__") and attr.endswith("__") and attr != "__wrapped__":
            raise _Refusal(f"attribute {attr} of function {function.name}", node)
        attrs = _attributes_of(function)
        if attrs is None:
            raise _Refusal(f"the attributes of function {function.name} (its module sets some)", node)
        if attr in attrs:
            return attrs[attr]
        if has_default:
            return default
        raise _Refusal(f"evaluation raises AttributeError: function {function.name} has no attribute '{attr}'", node, raises=True)

    def _builtin_getattr(self, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 2, 3, "getattr")
        target, attr = values[0], values[1]
        if target.__class__ is not _FunctionRef or attr.__class__ is not str:
            raise _Refusal("call to builtin getattr", node)
        return self._function_attribute(target, attr, node, values[2] if len(values) == 3 else None, len(values) == 3)

    def _set_function_attribute(self, target: ast.Attribute, value: Any) -> None:
        function = self._eval(target.value)
        if function.__class__ is not _FunctionRef or function.attrs is None:
            raise _Refusal("assignment to attribute", target)
        if target.attr.startswith("__") and target.attr.endswith("__"):
            raise _Refusal(f"assignment to attribute {target.attr} of function {function.name}", target)
        self._ensure_mutable(function)
        function.attrs[target.attr] = value

    # --- write-only module names ------------------------------------------------------------

    def _shared_state(self) -> Tuple[SharedNames, frozenset]:
        cached = self.__dict__.get("_shared_names")
        if cached is None:
            cached = self.__dict__["_shared_names"] = shared_names(self._tree)
        return cached

    def _shared_reason(self, name: str) -> Optional[str]:
        """Why another module cannot read this module's write-only name ``name``; None when it
        is not one."""
        lines = self._lines
        if lines is not None and not any(name + "." in line or name + "[" in line for line in lines):
            return None  # never changed in place: no need to read the module's functions
        found = self._shared_state()[0].get(name)
        if found is None or self._classify(name)[0] not in ("constant", "mutated", "built"):
            return None
        owner, node = found
        of = f" of module {self._module}" if self._module else ""
        return (f"{name}{of} is changed in place by function {owner} (line {node.lineno}), "
                "maybe at another module's import: what it holds depends on the code that ran before")

    def _dropped_change(self, stmt: Any) -> bool:
        """Whether ``stmt`` changes a write-only module name in a way that cannot fail (then the
        change is dropped, after its arguments are evaluated); one that may fail is refused."""
        target: Any
        if stmt.__class__ is ast.Expr:
            call = stmt.value
            if not (call.__class__ is ast.Call and call.func.__class__ is ast.Attribute
                    and call.func.value.__class__ is ast.Name):
                return False
            name, method, target = call.func.value.id, call.func.attr, None
        elif stmt.__class__ is ast.Assign and len(stmt.targets) == 1 and stmt.targets[0].__class__ is ast.Subscript:
            target = stmt.targets[0]
            if target.value.__class__ is not ast.Name:
                return False
            name, method, call = target.value.id, "__setitem__", None
        else:
            return False
        reason = None if self._is_local(name) else self._shared_reason(name)
        if reason is None:
            return False
        if self._effects_kept:  # a template of the call would not make the change
            raise _Refusal(f"changes {name} (line {stmt.lineno}), an effect a value cannot stand for", stmt)
        kind = _container_kind(self, name)
        if call is not None:
            arguments = self._arguments(call)
            safe = _SAFE_CHANGES.get((kind, method))
            if safe is None or not safe(arguments):
                raise _Refusal(f"{reason}; this change of it may fail", stmt)
        else:
            key = self._value(target.slice)
            self._value(stmt.value)
            if kind != "dict" or not _hashable(key):
                raise _Refusal(f"{reason}; this change of it may fail", stmt)
        return True


def _attributes_of(function: _FunctionRef) -> Optional[Dict[str, Any]]:
    """The attributes of ``function``: those set on it since its ``def`` ran; for a module
    function no decoration set any on, none, unless its module sets one (then unknown)."""
    if function.attrs is not None:
        return function.attrs
    owner = function.owner
    if function.closure is None and owner is not None and function.name not in owner._shared_state()[1]:
        return {}
    return None


def _hashable(value: Any) -> bool:
    cls = value.__class__
    if cls in _SCALAR_TYPES or cls is _FunctionRef or cls is _BuiltinRef:
        return True
    if cls is tuple or cls is frozenset:
        return all(_hashable(item) for item in value)
    return False


def _no_keywords(arguments: _Arguments) -> bool:
    return not arguments.keywords


_ITERABLE_VALUES = (list, tuple, set, frozenset, str)

_SAFE_CHANGES: Dict[Tuple[Optional[str], str], Any] = {
    ("set", "add"): lambda a: _no_keywords(a) and len(a.positional) == 1 and _hashable(a.positional[0]),
    ("set", "discard"): lambda a: _no_keywords(a) and len(a.positional) == 1 and _hashable(a.positional[0]),
    ("set", "update"): lambda a: _no_keywords(a) and all(
        v.__class__ in _ITERABLE_VALUES and all(_hashable(i) for i in v) for v in a.positional),
    ("set", "clear"): lambda a: _no_keywords(a) and not a.positional,
    ("list", "append"): lambda a: _no_keywords(a) and len(a.positional) == 1,
    ("list", "extend"): lambda a: _no_keywords(a) and len(a.positional) == 1 and a.positional[0].__class__ in _ITERABLE_VALUES,
    ("list", "clear"): lambda a: _no_keywords(a) and not a.positional,
    ("dict", "update"): lambda a: all(k.__class__ is str for k in a.keywords) and (
        not a.positional or (len(a.positional) == 1 and a.positional[0].__class__ is dict)),
    ("dict", "setdefault"): lambda a: _no_keywords(a) and 1 <= len(a.positional) <= 2 and _hashable(a.positional[0]),
    ("dict", "clear"): lambda a: _no_keywords(a) and not a.positional,
}

_CONSTRUCTORS = {"set": "set", "list": "list", "dict": "dict"}


def _container_kind(evaluator: _EvaluatorState, name: str) -> Optional[str]:
    """"set", "list" or "dict" when the module binds ``name`` once to a new container of that
    type (a display, a comprehension, ``set()``...): the type it keeps, whatever is put in it."""
    kind = evaluator._classify(name)
    binding = kind[1] if len(kind) > 1 else None
    value = getattr(binding, "value", None)
    if value is None or kind[0] not in ("constant", "mutated", "built"):
        return None
    cls = value.__class__
    if cls is ast.Set or cls is ast.SetComp:
        return "set"
    if cls is ast.List or cls is ast.ListComp:
        return "list"
    if cls is ast.Dict or cls is ast.DictComp:
        return "dict"
    if (cls is ast.Call and value.func.__class__ is ast.Name and value.func.id in _CONSTRUCTORS
            and evaluator._classify(value.func.id)[0] in ("builtin", "undefined")):
        return _CONSTRUCTORS[value.func.id]
    return None


def shared_names(tree: ast.Module) -> Tuple[SharedNames, frozenset]:
    """(the write-only names of the module, each with the first function that changes it and
    where; the names an attribute is set on anywhere in the module, or every name when it calls
    ``setattr``), from the syntax alone."""
    changed: SharedNames = {}
    read = set()
    attributed = set()
    calls_setattr = False

    def visit(function: Optional[FunctionNode], body: list, shadowed: frozenset) -> None:
        nonlocal calls_setattr
        stack = list(body)
        while stack:
            node = stack.pop()
            cls = node.__class__
            if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
                stack.extend(node.decorator_list)
                stack.extend(node.args.defaults)
                stack.extend(d for d in node.args.kw_defaults if d is not None)
                visit(node, node.body, shadowed | _analyse_function(node).local_names)
                continue
            if function is not None:
                change = _in_place_change(node)
                if change is not None and change[0] not in shadowed:
                    changed.setdefault(change[0], (function.name, node))
                    stack.extend(change[1])
                    continue
            if cls is ast.Name:
                if node.ctx.__class__ is ast.Load and node.id not in shadowed:
                    read.add(node.id)
                    calls_setattr = calls_setattr or node.id == "setattr"
                continue
            if cls is ast.Attribute and node.ctx.__class__ is not ast.Load and node.value.__class__ is ast.Name:
                attributed.add(node.value.id)
            stack.extend(ast.iter_child_nodes(node))

    visit(None, tree.body, frozenset())
    write_only = {name: found for name, found in changed.items() if name not in read}
    return write_only, frozenset(attributed) if not calls_setattr else _EVERY_NAME


def _in_place_change(node: Any) -> Optional[Tuple[str, list]]:
    """(name, the expressions it evaluates) for a statement ``NAME.method(...)`` (a method that
    changes its receiver) or ``NAME[key] = value``."""
    cls = node.__class__
    if cls is ast.Expr:
        call = node.value
        if (call.__class__ is ast.Call and call.func.__class__ is ast.Attribute and call.func.value.__class__ is ast.Name
                and call.func.attr in MUTATING_METHODS):
            return call.func.value.id, list(call.args) + [k.value for k in call.keywords]
    elif cls is ast.Assign and len(node.targets) == 1:
        target = node.targets[0]
        if target.__class__ is ast.Subscript and target.value.__class__ is ast.Name:
            return target.value.id, [target.slice, node.value]
    return None


class _EveryName(frozenset):
    def __contains__(self, item: object) -> bool:
        return True


_EVERY_NAME = _EveryName()
