"""Objects of the project's own simple classes: NamedTuple, ``@dataclass``, attribute holders.

Plugins describe their tools as objects (``ToolSpec("name", "description", params)``) and loop
over a table of them. Calling a module-level class of the project builds an ``_Instance`` when
what the call does is certain from the class's text alone:

- a ``typing.NamedTuple`` subclass, or a ``@dataclass`` (``dataclasses.dataclass``, with or
  without options, ``init`` not false) without base classes: the generated ``__init__`` binds
  the annotated fields in order, defaults and ``field(default=..., default_factory=...,
  kw_only=...)`` included (``ClassVar`` annotations are not fields);
- a plain class without base classes or decorators whose ``__init__`` only stores its
  parameters (or constants) as attributes of ``self``.

Refused, with the reason: base classes, metaclasses, other decorators, ``__post_init__``,
``__new__``, ``__getattr__``/``__setattr__``/..., a class body with other statements, defaults
that use names of the class body, ``InitVar``/``KW_ONLY``. An instance only gives its attributes
(and a NamedTuple its items); anything else (comparison, hashing, text, methods) is refused.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Tuple, Union

from .state import _EvaluatorState
from .values import _Arguments, _BuiltinRef, _ClassRef, _FunctionRef, _Instance, _Refusal

_DATACLASS = "dataclasses.dataclass"
_FIELD = "dataclasses.field"
_NAMED_TUPLE = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
# Methods that change what constructing or reading an attribute does.
_SPECIAL_METHODS = frozenset({
    "__new__", "__post_init__", "__getattr__", "__getattribute__", "__setattr__", "__delattr__",
    "__bool__", "__len__", "__init_subclass__", "__set_name__", "__class_getitem__", "__iter__",
    "__getitem__",
})
_DATACLASS_OPTIONS = frozenset({"init", "repr", "eq", "order", "unsafe_hash", "frozen", "match_args", "kw_only",
                                "slots", "weakref_slot"})
_FIELD_OPTIONS = frozenset({"default", "default_factory", "kw_only", "init", "repr", "compare", "hash", "metadata"})


class _Field:
    __slots__ = ("name", "default", "factory", "kw_only")

    def __init__(self, name: str, default: Optional[ast.expr], factory: Optional[ast.expr], kw_only: bool):
        self.name = name
        self.default = default  # the default's expression, or None
        self.factory = factory  # default_factory's expression, or None
        self.kw_only = kw_only


class _ClassSpec:
    """What calling a class does: ``fields`` (generated ``__init__``) or ``init`` and ``stores``
    (an ``__init__`` that stores its parameters: (attribute, parameter name or constant node))."""

    __slots__ = ("name", "is_tuple", "fields", "init", "stores")

    def __init__(self, name: str, is_tuple: bool, fields: List[_Field],
                 init: Optional[ast.FunctionDef] = None, stores: Tuple[Tuple[str, Any], ...] = ()):
        self.name = name
        self.is_tuple = is_tuple
        self.fields = fields
        self.init = init
        self.stores = stores


class _Classes(_EvaluatorState):
    """Objects of simple project classes (a mixin of ModuleEvaluator)."""

    def _construct(self, ref: _ClassRef, arguments: _Arguments, node) -> _Instance:
        owner = ref.owner
        if owner is not None and owner is not self:
            with self._working_in(owner, node):
                return self._adopt_locations(owner._construct(ref, arguments, None), owner)
        spec = self._class_spec(ref.node)
        if spec.__class__ is str:
            raise _Refusal(str(spec), node)
        assert isinstance(spec, _ClassSpec)
        self._tick()
        if spec.init is not None:
            nodes: List[Optional[ast.AST]] = [None]
            values = self._bind_parameters(spec.init, _Arguments(
                [None] + arguments.positional, nodes + arguments.positional_nodes,
                arguments.keywords, arguments.keyword_nodes,
            ))
            attrs = {attr: values[source] if source.__class__ is str else source.value for attr, source in spec.stores}
        else:
            attrs = self._bind_fields(spec, ref.node, arguments)
        return _Instance(spec.name, attrs, spec.is_tuple)

    def _bind_fields(self, spec: _ClassSpec, cdef: ast.ClassDef, arguments: _Arguments) -> Dict[str, Any]:
        """The generated ``__init__``: positional arguments fill the fields that are not
        keyword-only, in order; keywords by name; the rest their defaults."""
        name = spec.name
        positional = [f for f in spec.fields if not f.kw_only]
        given = arguments.positional
        if len(given) > len(positional):
            raise TypeError(f"{name}() takes {len(positional)} positional arguments but {len(given)} were given")
        values: Dict[str, Any] = {f.name: value for f, value in zip(positional, given)}
        known = {f.name for f in spec.fields}
        for key, value in arguments.keywords.items():
            if key not in known:
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
            if key in values:
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            values[key] = value
        defaults = {f.name: self._default(cdef, f.name, f.default) for f in spec.fields if f.default is not None}
        if not spec.is_tuple:  # dataclasses refuse a mutable default when the class is created
            for field_name, default in defaults.items():
                if default.__class__ in (list, dict, set) or default.__class__ is _Instance:
                    raise _Refusal(f"class {name} cannot be created: field {field_name} has a mutable default "
                                   f"(ValueError)", raises=True)
        attrs: Dict[str, Any] = {}
        for field in spec.fields:  # in field order, as the generated __init__ sets them
            if field.name in values:
                attrs[field.name] = values[field.name]
            elif field.name in defaults:
                attrs[field.name] = defaults[field.name]
            elif field.factory is not None:
                attrs[field.name] = self._make_default(field.factory)
            else:
                raise TypeError(f"{name}() missing required argument: '{field.name}'")
        return attrs

    def _make_default(self, factory: ast.expr) -> Any:
        """``default_factory()``: a builtin (``list``) or a module function, called anew."""
        saved, self._frame = self._frame, None  # named where the class is: in module scope
        try:
            maker = self._eval(factory)
        finally:
            self._frame = saved
        empty = _Arguments([], [], {}, {})
        if maker.__class__ is _BuiltinRef:
            from .builtin_functions import _BUILTINS

            return _BUILTINS[maker.name](self, empty, factory)
        if isinstance(maker, _FunctionRef):
            return self._call_function(maker, empty, factory)
        raise _Refusal("default_factory is not a builtin or a module function", factory)

    def _instance_attribute(self, instance: _Instance, attr: str, node) -> Any:
        try:
            return instance.attrs[attr]
        except KeyError:
            raise _Refusal(f"attribute {attr} of a {instance.class_name} object", node) from None

    # --- what a class is --------------------------------------------------------------------

    def _class_spec(self, cdef: ast.ClassDef) -> Union[str, _ClassSpec]:
        """What calling ``cdef`` does, or why that is not certain (computed once per class)."""
        cached = self._classes.get(cdef)
        if cached is None:
            saved, self._frame = self._frame, None  # its decorators and bases name module things
            try:
                cached = self._classes[cdef] = self._analyse_class(cdef)
            finally:
                self._frame = saved
        return cached

    def _analyse_class(self, cdef: ast.ClassDef) -> Union[str, _ClassSpec]:
        name = cdef.name
        if cdef.keywords:
            return f"class {name} has a metaclass or class keywords"
        bases = [b for b in cdef.bases if not (b.__class__ is ast.Name and b.id == "object"
                                                and self._classify("object")[0] == "undefined")]
        is_tuple = len(bases) == 1 and self._imported_root(bases[0]) in _NAMED_TUPLE
        if bases and not is_tuple:
            return f"class {name} has a base class"
        options: Optional[Dict[str, Any]] = None
        if cdef.decorator_list:
            options = self._dataclass_options(cdef)
            if options is None or is_tuple:
                return f"class {name} is decorated"
        body_names: Dict[str, Any] = {}
        annotated: List[ast.AnnAssign] = []
        init: Optional[ast.FunctionDef] = None
        stmt: Any  # see ``syntax``
        for stmt in cdef.body:
            cls = stmt.__class__
            if cls is ast.Expr and stmt.value.__class__ is ast.Constant or cls is ast.Pass:
                continue
            if cls is ast.AnnAssign and stmt.target.__class__ is ast.Name:
                annotated.append(stmt)
            elif cls in (ast.FunctionDef, ast.AsyncFunctionDef):
                method = stmt.name
                if method in _SPECIAL_METHODS or (method == "__init__" and (is_tuple or options is not None)):
                    return f"class {name} defines {method}"
                if method == "__init__":
                    init = stmt
                body_names[method] = stmt
            elif cls is ast.Assign and all(t.__class__ is ast.Name for t in stmt.targets):
                body_names.update((t.id, stmt) for t in stmt.targets)
            else:
                return f"class {name} has a statement other than fields, methods and class attributes (line {stmt.lineno})"
        if is_tuple or options is not None:
            return self._field_spec(name, is_tuple, annotated, body_names, options or {})
        return self._plain_spec(name, init, annotated, body_names)

    def _dataclass_options(self, cdef: ast.ClassDef) -> Optional[Dict[str, Any]]:
        """The options of the class's one decorator when it is ``dataclass``, else None."""
        if len(cdef.decorator_list) != 1:
            return None
        decorator: Any = cdef.decorator_list[0]
        call: Any = decorator if decorator.__class__ is ast.Call else None
        target = call.func if call is not None else decorator
        if self._imported_root(target) != _DATACLASS or (call is not None and call.args):
            return None
        options: Dict[str, Any] = {}
        for keyword in call.keywords if call is not None else ():
            if keyword.arg not in _DATACLASS_OPTIONS or keyword.value.__class__ is not ast.Constant:
                return None
            options[keyword.arg] = keyword.value.value
        return None if options.get("init", True) is not True else options

    def _field_spec(self, name: str, is_tuple: bool, annotated: List[ast.AnnAssign], body_names: Dict[str, Any],
                    options: Dict[str, Any]) -> Union[str, _ClassSpec]:
        fields: List[_Field] = []
        class_names = set(body_names) | _targets(annotated)
        stmt: Any
        for stmt in annotated:
            field_name = stmt.target.id
            annotation = ast.unparse(stmt.annotation)
            if "ClassVar" in annotation and not is_tuple:
                continue  # a class attribute, not a field
            if "InitVar" in annotation or "KW_ONLY" in annotation or "ClassVar" in annotation:
                return f"class {name} has a field annotated {annotation}"
            if field_name in body_names or (is_tuple and field_name.startswith("_")):
                return f"class {name} binds {field_name} twice"
            default: Any = stmt.value
            factory: Any = None
            kw_only = bool(options.get("kw_only", False))
            if default is not None and default.__class__ is ast.Call and self._imported_root(default.func) == _FIELD:
                given: Dict[Any, Any] = {k.arg: k.value for k in default.keywords}
                if default.args or None in given or not set(given) <= _FIELD_OPTIONS or "default" in given and "default_factory" in given:
                    return f"class {name}: field {field_name} is not a plain field()"
                if any(given[k].__class__ is not ast.Constant for k in ("init", "kw_only") if k in given):
                    return f"class {name}: field {field_name} is not a plain field()"
                if "init" in given and given["init"].value is not True:
                    return f"class {name}: field {field_name} is not set by __init__"
                if "kw_only" in given:
                    kw_only = bool(given["kw_only"].value)
                default, factory = given.get("default"), given.get("default_factory")
            for expression in (default, factory):
                if expression is not None and _uses(expression, class_names):
                    return f"class {name}: the default of {field_name} uses a name of the class body"
            fields.append(_Field(field_name, default, factory, kw_only))
        seen_default = False
        for field in fields:
            if field.kw_only:
                continue
            if field.default is None and field.factory is None and seen_default:
                return f"class {name}: field {field.name} without a default follows one with a default (TypeError)"
            seen_default = seen_default or field.default is not None or field.factory is not None
        return _ClassSpec(name, is_tuple, fields)

    def _plain_spec(self, name: str, init: Optional[ast.FunctionDef], annotated: List[ast.AnnAssign],
                    body_names: Dict[str, Any]) -> Union[str, _ClassSpec]:
        if init is None:
            return f"class {name} has no __init__"
        arguments = init.args
        parameters = arguments.posonlyargs + arguments.args
        if init.decorator_list or not parameters or arguments.vararg or arguments.kwarg:
            return f"class {name}: __init__ does more than store its parameters"
        own = parameters[0].arg
        names = {p.arg for p in parameters[1:] + arguments.kwonlyargs}
        class_names = set(body_names) | _targets(annotated)
        if any(_uses(d, class_names) for d in arguments.defaults + [d for d in arguments.kw_defaults if d is not None]):
            return f"class {name}: a default of __init__ uses a name of the class body"
        stores: List[Tuple[str, Any]] = []
        stmt: Any
        target: Any
        for stmt in init.body:
            if stmt.__class__ is ast.Expr and stmt.value.__class__ is ast.Constant:
                continue
            target = stmt.targets[0] if stmt.__class__ is ast.Assign and len(stmt.targets) == 1 else None
            value = stmt.value if target is not None else None
            if (
                target is None
                or target.__class__ is not ast.Attribute
                or target.value.__class__ is not ast.Name
                or target.value.id != own
                or not (value.__class__ is ast.Constant or value.__class__ is ast.Name and value.id in names)
            ):
                return f"class {name}: __init__ does more than store its parameters (line {stmt.lineno})"
            if target.attr in class_names:
                return f"class {name}: attribute {target.attr} is also bound in the class body"
            stores.append((target.attr, value.id if value.__class__ is ast.Name else value))
        return _ClassSpec(name, False, [], init, tuple(stores))


def _targets(annotated: List[Any]) -> set:
    return {stmt.target.id for stmt in annotated}


def _uses(expression: ast.expr, names: set) -> bool:
    return any(n.__class__ is ast.Name and n.id in names for n in ast.walk(expression))
