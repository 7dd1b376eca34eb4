"""Calls: module functions (parameters bound, bodies run), supported builtins and methods, imports refused."""

from __future__ import annotations

import ast
from typing import Any, Optional

from ..model import Hole
from .holes import first_hole_argument
from .builtin_functions import _BUILTINS, _PYTHON_BUILTIN_NAMES
from .limits import ITEMS_PER_STEP, MAX_CALL_DEPTH
from .methods import _METHODS
from .module_index import _is_environment
from .primitives import PRIMITIVES as _PRIMITIVES
from .project import absolute_module
from .state import _EvaluatorState
from .syntax import FunctionNode, _dotted, _path_from_root, _root_name
from .values import (
    _SCALAR_TYPES,
    _Arguments,
    _BuiltinRef,
    _ClassRef,
    _Frame,
    _FunctionRef,
    _Instance,
    _is_immutable,
    _positional,
    _Refusal,
    _Returned,
    _type_name,
)


class _Calls(_EvaluatorState):
    """Call handling (a mixin of ModuleEvaluator)."""

    def _eval_call(self, node: ast.Call) -> Any:
        func = node.func
        if func.__class__ is ast.Attribute:
            return self._call_attribute(node, func)
        if func.__class__ is ast.Name:
            reached = self._imported_root(func)
            if reached is not None and _is_environment(reached):  # from os import getenv
                return self._environment_read(reached, self._arguments(node), node)
            if reached in _PRIMITIVES:  # from shutil import which
                return self._template_primitive(reached, self._arguments(node), node)
            if reached == "functools.wraps":  # from functools import wraps
                return self._wraps(self._arguments(node), node)
            if func.id == "getattr" and not self._is_local("getattr") and self._classify("getattr")[0] == "undefined":
                return self._builtin_getattr(self._arguments(node), node)
            if func.id == "isinstance" and not self._is_local("isinstance") and self._classify("isinstance")[0] == "undefined":
                return self._isinstance(self._arguments(node), node)
            callee = self._callee_by_name(func)
        else:
            callee = self._eval(func)
        arguments = self._arguments(node)
        if isinstance(callee, _FunctionRef):
            return self._call_function(callee, arguments, node)
        if callee.__class__ is _ClassRef:
            return self._construct(callee, arguments, node)
        if isinstance(callee, _BuiltinRef):
            if first_hole_argument(arguments) is not None:
                return self._template_call(callee.name, arguments, node)
            return _BUILTINS[callee.name](self, arguments, node)
        if callee.__class__ is Hole:
            raise self._refuse_hole(callee, node)
        raise _Refusal(f"call of a {_type_name(callee)}", node)

    def _callee_by_name(self, func: ast.Name) -> Any:
        name = func.id
        if self._is_local(name):
            return self._lookup(name, func)
        kind = self._classify(name)
        tag = kind[0]
        if tag == "import":
            if _is_environment(kind[1].origin):
                raise _Refusal("environment read", func)
            return self._imported(name, kind[1].origin, func, f"call to imported function {name}")
        if tag == "class":
            self._check_time(name, kind[1], func, used="called")
            return _ClassRef(name, kind[1].node)
        if tag == "async function":
            raise _Refusal(f"call to async function {name}", func)
        if tag == "undefined":
            if name in _PYTHON_BUILTIN_NAMES:
                raise _Refusal(f"call to builtin {name}", func)
            raise _Refusal(f"call to undefined function {name}", func)
        if tag == "function":
            self._check_time(name, kind[1], func, used="called")
        return self._global(name, func)

    def _imported_root(self, node: ast.AST) -> Optional[str]:
        """What an expression rooted at an imported name reaches: ``os.environ`` for
        ``os.environ.get`` after ``import os``; None when the root is not an import."""
        root = _root_name(node)
        if root is None:
            return None
        if self._is_local(root):
            origin = self._local_import(root)
            return None if origin is None else origin + _path_from_root(node)
        kind = self._classify(root)
        if kind[0] != "import" or not self._only_imported(root):
            return None
        return kind[1].origin + _path_from_root(node)

    def _only_imported(self, name: str) -> bool:
        """Whether every module-level binding of ``name`` is an import: what an environment
        read or a machine query is recognised by must not be rebound (``os = object()``)."""
        index = self._get_index()
        if name in index.global_declarations or index.dynamic is not None or index.star_imports:
            return False
        return all(binding.kind == "import" for binding in index.bindings.get(name, ()))

    def _names_an_imported_value(self, receiver: ast.expr) -> bool:
        """Whether ``receiver`` (of ``receiver.method()``) reaches a value of a project module
        through an import (``TOOLS`` after ``from .tables import TOOLS``, ``tables.TOOLS`` after
        ``from . import tables``), not a module: the method is the value's."""
        if self._project is None or _dotted(receiver) is None:
            return False
        reached = self._imported_root(receiver)
        if reached is None:
            return False
        owner = absolute_module(reached.rpartition(".")[0], self._module, self._is_package)
        if not owner or self._project.path_of(owner) is None:
            return False
        imported = absolute_module(reached, self._module, self._is_package)
        return imported is None or self._project.path_of(imported) is None

    def _call_attribute(self, node: ast.Call, func: ast.Attribute) -> Any:
        # A method of a call's result (``os.getenv("X", "").strip()``) is the result's method.
        reached = None if _has_call(func.value) else self._imported_root(func)
        if reached is not None and not self._names_an_imported_value(func.value):
            if reached in ("copy.copy", "copy.deepcopy"):
                return self._copy_call(reached, self._arguments(node), node)
            if reached == "functools.wraps":
                return self._wraps(self._arguments(node), node)
            if _is_environment(reached) or _is_environment(reached.rpartition(".")[0]):
                return self._environment_read(reached, self._arguments(node), node)
            if reached in _PRIMITIVES:
                return self._template_primitive(reached, self._arguments(node), node)
            written = _dotted(func)
            if written is None:
                raise _Refusal(f"call on a value of another module ({_root_name(func)})", node)
            callee = self._imported_attribute(reached, func, f"call to imported function {written}")
            if callee.__class__ is _ClassRef:
                return self._construct(callee, self._arguments(node), node)
            if not isinstance(callee, _FunctionRef):
                raise _Refusal(f"call of a {_type_name(callee)}", node)
            return self._call_function(callee, self._arguments(node), node)
        exists = self._path_exists(node, func)
        if exists is not None:
            return exists
        receiver = self._eval(func.value)
        if receiver.__class__ is Hole:
            return self._template_method(receiver, func.attr, self._arguments(node), node)
        arguments = self._arguments(node)
        self._refuse_hole_arguments(arguments, node)
        return self._call_method(receiver, func.attr, arguments, node)

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        reached = self._imported_root(node)
        if reached is not None:
            if _is_environment(reached):
                raise _Refusal("environment read", node)
            if reached == "sys.platform":
                return Hole("sys.platform", self._location(node), {"platform": None})
            written = _dotted(node)
            if written is None:
                raise _Refusal(f"attribute of a value of another module ({_root_name(node)})", node)
            value = self._imported_attribute(reached, node, f"attribute of another module: {written}")
            root = written.partition(".")[0]
            mutation = None if self._is_local(root) else self._get_index().mutation_of(root)
            if mutation is not None and not _is_immutable(value):  # changed here after import
                raise _Refusal(mutation[0], mutation[1])
            return value
        value = self._eval(node.value)
        if value.__class__ is _Instance:
            return self._instance_attribute(value, node.attr, node)
        if value.__class__ is _FunctionRef:
            return self._function_attribute(value, node.attr, node)
        if value.__class__ is Hole:  # unknown for the hole's own reason
            raise self._refuse_hole(value, node)
        raise _Refusal(f"attribute {node.attr} of a {_type_name(value)}", node)

    def _arguments(self, node: ast.Call) -> _Arguments:
        positional: list = []
        positional_nodes: list = []
        for argument in node.args:
            if argument.__class__ is ast.Starred:
                source = self._eval(argument.value)
                values = self._materialize(source, argument.value)
                positional.extend(values)
                positional_nodes.extend(self._items_table(source, len(values)))
            else:
                positional.append(self._partial(argument))
                positional_nodes.append(argument)
        keywords: dict = {}
        keyword_nodes: dict = {}
        for keyword in node.keywords:
            if keyword.arg is None:  # f(**mapping)
                mapping = self._eval(keyword.value)
                if mapping.__class__ is not dict or not all(k.__class__ is str for k in mapping):
                    raise _Refusal(f"** unpacking of a {_type_name(mapping)} in a call", keyword.value)
                table = self._table_of(mapping) or {}
                for key, value in mapping.items():
                    if key in keywords:
                        raise TypeError(f"got multiple values for keyword argument '{key}'")
                    keywords[key] = value
                    keyword_nodes[key] = table.get(key)
            else:
                if keyword.arg in keywords:
                    raise TypeError(f"got multiple values for keyword argument '{keyword.arg}'")
                keywords[keyword.arg] = self._partial(keyword.value)
                keyword_nodes[keyword.arg] = keyword
        return _Arguments(positional, positional_nodes, keywords, keyword_nodes)

    def _call_function(self, ref: _FunctionRef, arguments: _Arguments, node) -> Any:
        owner = ref.owner
        if owner is not None and owner is not self:
            return self._call_foreign(owner, ref, arguments, node)
        fdef = ref.node
        name = ref.name
        if ref.undecorated is not None:  # the decorators' result is unknown
            raise _Refusal(f"call to decorated function {name}", node)
        info = self._function_info(fdef)
        if info.problem is not None:
            what, where = info.problem
            raise _Refusal(f"{name} contains {what}", where)
        if self._depth >= MAX_CALL_DEPTH:
            raise _Refusal(f"call depth limit ({MAX_CALL_DEPTH}) exceeded calling {name}", node)
        values = self._bind_parameters(fdef, arguments, ref.defaults)
        saved = self._frame
        self._frame = _Frame(name, info.local_names, values, ref.closure)
        self._depth += 1
        try:
            outcome = self._execute(fdef.body)
        except _Refusal as refusal:
            if refusal.function is None:
                refusal.function = name
            raise
        finally:
            self._frame = saved
            self._depth -= 1
        return outcome.value if outcome.__class__ is _Returned else None

    def _bind_parameters(self, fdef: FunctionNode, arguments: _Arguments, computed: Optional[dict] = None) -> dict:
        """The frame values of a call; a nested function's defaults are ``computed`` when its
        def ran (a module function's are computed once, in module scope: ``_default``)."""
        spec = fdef.args
        name = fdef.name
        positional_params = spec.posonlyargs + spec.args
        values: dict = {}
        given = arguments.positional
        for param, value in zip(positional_params, given):
            values[param.arg] = value
        extra = given[len(positional_params):]
        if spec.vararg is not None:
            values[spec.vararg.arg] = self._remember(tuple(extra), arguments.positional_nodes[len(positional_params):])
        elif extra:
            raise TypeError(f"{name}() takes {len(positional_params)} positional arguments but {len(given)} were given")
        by_keyword = {p.arg for p in spec.args} | {p.arg for p in spec.kwonlyargs}
        extra_keywords: dict = {}
        extra_table: dict = {}
        for key, value in arguments.keywords.items():
            if key in by_keyword:
                if key in values:
                    raise TypeError(f"{name}() got multiple values for argument '{key}'")
                values[key] = value
            elif spec.kwarg is not None:
                extra_keywords[key] = value
                if arguments.keyword_nodes.get(key) is not None:
                    extra_table[key] = arguments.keyword_nodes[key]
            else:
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        first_default = len(positional_params) - len(spec.defaults)
        for position, param in enumerate(positional_params):
            if param.arg not in values:
                if position < first_default:
                    raise TypeError(f"{name}() missing required argument: '{param.arg}'")
                values[param.arg] = (computed[position] if computed is not None
                                     else self._default(fdef, position, spec.defaults[position - first_default]))
        for position, param in enumerate(spec.kwonlyargs):
            if param.arg not in values:
                default = spec.kw_defaults[position]
                if default is None:
                    raise TypeError(f"{name}() missing required keyword-only argument: '{param.arg}'")
                values[param.arg] = (computed[("kw", position)] if computed is not None
                                     else self._default(fdef, ("kw", position), default))
        if spec.kwarg is not None:
            values[spec.kwarg.arg] = self._remember(extra_keywords, extra_table)
        return values

    def _default(self, fdef, slot, expression) -> Any:
        """Default values are computed once, when the def runs, and shared by every call."""
        key = (fdef, slot)
        cached = self._defaults.get(key)
        if cached is None:
            cached = self._defaults[key] = self._compute_cached(f"default of {fdef.name}", expression, fdef)
        if cached[0]:
            return cached[1]
        refusal = _Refusal(cached[1].reason, cached[1].node, raises=cached[1].raises)
        refusal.location = cached[1].location
        raise refusal

    def _call_method(self, receiver: Any, name: str, arguments: _Arguments, node) -> Any:
        methods = _METHODS.get(receiver.__class__)
        method = methods.get(name) if methods is not None else None
        if method is None:
            if receiver.__class__ in _SCALAR_TYPES + (list, tuple, dict, set, frozenset) and not hasattr(
                receiver.__class__, name
            ):
                raise _Refusal(
                    f"evaluation raises AttributeError: '{_type_name(receiver)}' object has no attribute '{name}'",
                    node,
                    raises=True,
                )
            raise _Refusal(f"unsupported method {_type_name(receiver)}.{name}", node)
        return method(self, receiver, arguments, node)

    def _copy_call(self, which: str, arguments: _Arguments, node) -> Any:
        (value,) = _positional(arguments, 1, 1, which)
        return self._copy(value, deep=which == "copy.deepcopy")

    def _copy(self, value: Any, deep: bool) -> Any:
        cls = value.__class__
        if cls in _SCALAR_TYPES or cls is frozenset:
            return value
        if cls is dict:
            self._tick(len(value) // ITEMS_PER_STEP)
            result = {k: (self._copy(v, True) if deep else v) for k, v in value.items()}
            return self._remember(result, dict(self._table_of(value) or {}))
        if cls is list or cls is tuple:
            self._tick(len(value) // ITEMS_PER_STEP)
            items = [self._copy(v, True) for v in value] if deep else list(value)
            table = self._items_table(value, len(value))
            return self._remember(items if cls is list else tuple(items), table)
        if cls is set:
            return set(value)
        raise _Refusal(f"copy of a {_type_name(value)}")


def _has_call(node: ast.AST) -> bool:
    """Whether a call or subscript is on the way from ``node`` to its root name."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.__class__ is not ast.Name
