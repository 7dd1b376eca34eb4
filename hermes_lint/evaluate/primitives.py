"""Templates of what a ``check_fn`` asks of the machine it runs on, and of text methods on an
environment value: the runtime evaluates them exactly, without importing the tool's module.

- ``shutil.which(x)`` → ``{"which": T}`` (the runtime calls ``shutil.which`` itself);
- ``importlib.util.find_spec("pkg")`` → ``{"find_spec": "pkg"}``, a constant top-level name
  only: ``find_spec("a.b")`` imports ``a``, and a manifest must never make the runtime import;
- ``sys.platform`` → ``{"platform": null}``;
- ``Path(x).exists()``, ``Path(x).expanduser().exists()`` (``pathlib.Path``) →
  ``{"path_exists": T, "expanduser": bool}``;
- ``v.strip()``, ``v.lower()`` (and ``lstrip``/``rstrip``/``upper``) without arguments on a
  templated value → ``{"method": NAME, "of": T}``; ``isinstance(v, str|bool|int|float)`` →
  ``{"isinstance": T, "type": NAME}``; ``v in <constant set>`` → ``{"in": T, "values": [...]}``.

Anything else keeps the refusal: the runtime then imports the module and runs the real check.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional

from ..model import Hole
from .state import _EvaluatorState
from .syntax import _root_name
from .values import _SCALAR_TYPES, _Arguments, _BuiltinRef, _FunctionRef, _Refusal

# Calls whose result the runtime computes itself, by what the call's name reaches.
PRIMITIVES = frozenset({"shutil.which", "importlib.util.find_spec"})
_TEXT_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper"})
_TYPE_OBJECTS = {"str": str, "bool": bool, "int": int, "float": float}
_TYPES = frozenset(_TYPE_OBJECTS)
_TOP_LEVEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# Modules a function may import locally (``import importlib.util`` inside the check): the
# standard library's, whose functions the runtime computes or the evaluator reads as such.
LOCAL_IMPORTS = frozenset({"importlib", "importlib.util", "shutil", "sys", "os", "os.path", "pathlib"})


class LocalImport:
    """A local name bound by an import statement inside a function: what it reaches."""

    __slots__ = ("origin",)

    def __init__(self, origin: str):
        self.origin = origin


class _Primitives(_EvaluatorState):
    """Templates of machine queries and text methods (a mixin of ModuleEvaluator)."""

    def _template_primitive(self, reached: str, arguments: _Arguments, node: ast.AST) -> Hole:
        if arguments.keywords or len(arguments.positional) != 1:
            raise _Refusal(f"call of {reached} with other arguments than one", node)
        argument = arguments.positional[0]
        if reached == "importlib.util.find_spec":
            if argument.__class__ is not str or not _TOP_LEVEL_NAME.match(argument):
                raise _Refusal("find_spec of a name that is not a constant top-level module", node)
            return Hole(f"whether package {argument} is installed", self._location(node), {"find_spec": argument})
        template = _template_of(argument)
        if template is None:
            raise _Refusal("shutil.which of a value the runtime cannot compute", node)
        return Hole("a program on PATH", self._location(node), {"which": template})

    def _template_method(self, receiver: Hole, name: str, arguments: _Arguments, node: ast.AST) -> Hole:
        if receiver.template is None or name not in _TEXT_METHODS or arguments.positional or arguments.keywords:
            raise self._refuse_hole(receiver, node)
        return Hole(receiver.reason, receiver.location, {"method": name, "of": receiver.template})

    def _template_isinstance(self, arguments: _Arguments, node: ast.AST) -> Optional[Hole]:
        """``isinstance(hole, T)`` for a builtin scalar type T, else None."""
        if arguments.keywords or len(arguments.positional) != 2:
            return None
        value, kind = arguments.positional
        if value.__class__ is not Hole or value.template is None:
            return None
        if kind.__class__ is not _BuiltinRef or kind.name not in _TYPES:
            return None
        return Hole(value.reason, value.location, {"isinstance": value.template, "type": kind.name})

    def _isinstance(self, arguments: _Arguments, node: ast.AST) -> Any:
        """``isinstance(v, T)`` for a builtin scalar type T: a template on a templated hole, the
        answer on a known value; anything else is refused."""
        instance = self._template_isinstance(arguments, node)
        if instance is not None:
            return instance
        if arguments.keywords or len(arguments.positional) != 2:
            raise _Refusal("call to builtin isinstance", node)
        value, kind = arguments.positional
        if kind.__class__ is not _BuiltinRef or kind.name not in _TYPES or value.__class__ not in _SCALAR_TYPES:
            raise _Refusal("call to builtin isinstance", node)
        return isinstance(value, _TYPE_OBJECTS[kind.name])

    def _template_membership(self, hole: Hole, container: Any, negated: bool) -> Optional[Hole]:
        """``hole in {constants}`` (a set, frozenset, tuple or list of scalars), else None."""
        if hole.template is None or container.__class__ not in (set, frozenset, tuple, list):
            return None
        values = list(container)
        if not all(value.__class__ in _SCALAR_TYPES for value in values):
            return None
        if container.__class__ in (set, frozenset):
            values.sort(key=lambda value: (type(value).__name__, repr(value)))
        template: Any = {"in": hole.template, "values": values}
        return Hole(hole.reason, hole.location, {"not": template} if negated else template)

    def _path_exists(self, node: ast.Call, func: ast.Attribute) -> Optional[Hole]:
        """``Path(x).exists()`` or ``Path(x).expanduser().exists()`` with ``pathlib.Path``."""
        if func.attr != "exists" or node.args or node.keywords:
            return None
        inner = func.value
        expanduser = False
        if (inner.__class__ is ast.Call and inner.func.__class__ is ast.Attribute
                and inner.func.attr == "expanduser" and not inner.args and not inner.keywords):
            expanduser = True
            inner = inner.func.value
        if inner.__class__ is not ast.Call or len(inner.args) != 1 or inner.keywords:
            return None
        if self._imported_name(inner.func) != "pathlib.Path":
            return None
        argument = self._partial(inner.args[0])
        template = _template_of(argument)
        if template is None:
            raise _Refusal("Path(...) of a value the runtime cannot compute", node)
        return Hole("whether a file exists", self._location(node),
                    {"path_exists": template, "expanduser": expanduser})

    def _imported_name(self, node: ast.expr) -> Optional[str]:
        """What ``node`` (a name or dotted attribute rooted at an import) reaches, else None."""
        root = _root_name(node)
        if root is None:
            return None
        if self._is_local(root):
            origin = self._local_import(root)
            if origin is None:
                return None
        else:
            kind = self._classify(root)
            if kind[0] != "import" or not self._only_imported(root):
                return None
            origin = kind[1].origin
        path = []
        while isinstance(node, ast.Attribute):
            path.append(node.attr)
            node = node.value
        return ".".join([origin, *reversed(path)])

    def _local_import(self, name: str) -> Optional[str]:
        """What local ``name`` reaches when an import statement of the function bound it."""
        frame = self._frame
        while frame is not None:
            if name in frame.local_names:
                value = frame.values.get(name)
                return value.origin if value.__class__ is LocalImport else None
            frame = frame.parent
        return None

    def _exec_import(self, stmt: ast.stmt) -> None:
        """``import importlib.util`` (or ``from shutil import which``) inside a function, of the
        standard-library modules in ``LOCAL_IMPORTS``: binds the local name to what it reaches."""
        frame = self._frame
        if frame is None or frame.opaque:
            raise _Refusal("unsupported statement: import", stmt)
        bound = {}
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name not in LOCAL_IMPORTS:
                    raise _Refusal("unsupported statement: import", stmt)
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[alias.name.partition(".")[0]] = alias.name.partition(".")[0]
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module in LOCAL_IMPORTS:
            for alias in stmt.names:
                if alias.name == "*":
                    raise _Refusal("unsupported statement: import", stmt)
                bound[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
            # A function of a project module the evaluator reads (``from pkg.mod import f``):
            # what the module-level import of it would give.
            for alias in stmt.names:
                if alias.name == "*":
                    raise _Refusal("unsupported statement: import", stmt)
                value = self._imported(alias.name, f"{stmt.module}.{alias.name}", stmt,
                                       "unsupported statement: import")
                if value.__class__ is not _FunctionRef:
                    raise _Refusal("unsupported statement: import", stmt)
                frame.values[alias.asname or alias.name] = value
            return None
        elif isinstance(stmt, ast.ImportFrom) and stmt.level > 0:
            # ``from . import schemas`` / ``from .schemas import SCHEMA`` in a function of a
            # package module: what the same import at module level gives
            package = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                if alias.name == "*":
                    raise _Refusal("unsupported statement: import", stmt)
                origin = f"{package}.{alias.name}" if stmt.module else f"{package}{alias.name}"
                if self._foreign_module(origin, stmt, record=False) is not None:
                    bound[alias.asname or alias.name] = origin  # a module: its attributes are read
                else:
                    frame.values[alias.asname or alias.name] = self._imported(
                        alias.name, origin, stmt, "unsupported statement: import")
        else:
            raise _Refusal("unsupported statement: import", stmt)
        for name, origin in bound.items():
            frame.values[name] = LocalImport(origin)


def _template_of(value: Any) -> Any:
    if value.__class__ is Hole:
        return value.template
    if value.__class__ in _SCALAR_TYPES:
        return {"const": value}
    return None
