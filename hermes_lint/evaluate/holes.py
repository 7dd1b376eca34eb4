"""Partial values: an unknown part becomes a ``Hole`` inside an otherwise known value.

Where Python builds a container or a text from parts (a dict value, a list item, a call argument,
an f-string's replacement field), a part the evaluator cannot compute becomes a ``Hole`` that
records why and where, instead of making the whole value unknown. Any other use of a hole (an
operator, a comparison, a condition, a builtin or a method) cannot be computed either: it is
refused with the hole's own reason, and the refusal may in turn become a hole one level up.

Some holes carry a *template*: the declarative recipe that the runtime evaluates at load time,
without importing the module, to get the value the import would have computed. Templates exist
for environment reads with defaults (``os.getenv``, ``os.environ.get``), ``int``/``float``/
``str``/``bool`` of them, ``or``, ``+`` of texts and f-string formatting; anything else loses the
template and the runtime imports the module instead (see ``hermes_lint.manifest_templates``).
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Sequence

from ..model import Hole, HoleUsed
from .limits import BUDGET_EXCEEDED
from .primitives import LocalImport
from .state import _EvaluatorState
from .syntax import _root_name
from .values import _PYTHON_ERRORS, _SCALAR_TYPES, _Arguments, _BuiltinRef, _FunctionRef, _Refusal, _Returned, _raises

# Calls that read one environment variable: NAME, or NAME and a default.
_ENVIRONMENT_GETTERS = frozenset({"os.getenv", "os.environ.get"})

# Builtins whose result on a templated hole is itself a template.
_TEMPLATE_BUILTINS = frozenset({"int", "float", "str", "bool"})


class _Holes(_EvaluatorState):
    """Partial evaluation (a mixin of ModuleEvaluator)."""

    def _partial(self, node: ast.AST) -> Any:
        """The value of ``node``, or a hole where it cannot be computed."""
        if node.__class__ is ast.Constant:
            return node.value
        if not self._partial_mode:
            return self._eval(node)
        try:
            return self._eval(node)
        except _Refusal as refusal:
            if refusal.reason == BUDGET_EXCEEDED or refusal.raises:
                raise  # the budget bounds the whole evaluation; a certain raise is no value at all
            return self._hole_of(refusal, node)

    def _hole_of(self, refusal: _Refusal, node: ast.AST) -> Hole:
        reason = refusal.reason
        if refusal.function is not None:
            reason = f"{reason} (in {refusal.function})"
        if not self._located and "(in module " not in reason:  # a module read for another file
            reason = f"{reason} (in module {self._module})"
        location = refusal.location if refusal.location is not None else self._location(
            refusal.node if refusal.node is not None else node
        )
        return Hole(reason, location)

    def _refuse_hole(self, hole: Hole, node: Optional[ast.AST] = None) -> _Refusal:
        """The refusal for using ``hole`` where only a known value will do."""
        refusal = _Refusal(hole.reason, node)
        refusal.location = hole.location
        return refusal

    def _refuse_hole_arguments(self, arguments: _Arguments, node) -> None:
        hole = first_hole_argument(arguments)
        if hole is not None:
            raise self._refuse_hole(hole, node)

    def _as_refusal(self, error: Exception, node: ast.AST) -> Exception:
        """What ``error``, raised while evaluating ``node``, is raised as: a refusal located at
        ``node`` when it has no place yet; a used hole refused there; a Python error (certainly
        raised by the code) a refusal that says so; a recursion error, or anything else, as it is."""
        if isinstance(error, _Refusal):
            if error.node is None:
                error.node = node
            return error
        if isinstance(error, RecursionError):
            return error
        if isinstance(error, HoleUsed):
            return self._refuse_hole(error.hole, node)
        if isinstance(error, _PYTHON_ERRORS):
            return _Refusal(_raises(error), node, raises=True)
        return error

    # --- templates ------------------------------------------------------------------------

    def _environment_read(self, reached: str, arguments: _Arguments, node) -> Hole:
        """``os.getenv(NAME[, DEFAULT])`` at import time: a hole the runtime can fill."""
        if reached not in _ENVIRONMENT_GETTERS or arguments.keywords or not 1 <= len(arguments.positional) <= 2:
            raise _Refusal("environment read", node)
        name = arguments.positional[0]
        if name.__class__ is not str:
            raise _Refusal("environment read", node)
        read = {"env": name}
        template: Any = read
        if len(arguments.positional) == 2:
            default = _template_of(arguments.positional[1])
            if default is None:
                raise _Refusal(f"environment variable {name} (default not known)", node)
            template = {"if": {"is_none": read}, "then": default, "else": read}
        return Hole(f"environment variable {name}", self._location(node), template)

    def _template_call(self, name: str, arguments: _Arguments, node) -> Hole:
        """``int(hole)`` and the like: a template when the argument has one."""
        if name == "isinstance":
            instance = self._template_isinstance(arguments, node)
            if instance is not None:
                return instance
        if name not in _TEMPLATE_BUILTINS or arguments.keywords or len(arguments.positional) != 1:
            self._refuse_hole_arguments(arguments, node)
        hole = arguments.positional[0]
        if hole.template is None:
            raise self._refuse_hole(hole, node)
        return Hole(hole.reason, hole.location, {"call": name, "args": [hole.template]})

    def _template_format(self, hole: Hole, conversion: int, spec: Any, node) -> Hole:
        if hole.template is None or spec.__class__ is not str:
            raise self._refuse_hole(hole, node)
        template = {"format": hole.template, "spec": spec, "conversion": "" if conversion == -1 else chr(conversion)}
        return Hole(hole.reason, hole.location, template)

    def _template_concat(self, parts: list) -> Hole:
        """Text made of known pieces and holes (an f-string, ``+``)."""
        first = next(part for part in parts if part.__class__ is Hole)
        templates = []
        for part in parts:
            template = _template_of(part)
            if template is None:
                return Hole(first.reason, first.location)
            if part.__class__ is not Hole and part.__class__ is not str:
                return Hole(first.reason, first.location)
            templates.append(template)
        return Hole(first.reason, first.location, {"concat": templates})

    def _template_bool_op(self, is_and: bool, values: list) -> Hole:
        first = next(value for value in values if value.__class__ is Hole)
        templates = [_template_of(value) for value in values]
        if any(template is None for template in templates):
            raise self._refuse_hole(first)
        return Hole(first.reason, first.location, {"and" if is_and else "or": templates})


_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})

# Exceptions a template's ``try`` may name (the runtime knows these builtins by name).
_TEMPLATE_EXCEPTIONS = frozenset({"Exception", "ValueError", "TypeError", "ArithmeticError", "LookupError", "KeyError",
                                  "ImportError", "ModuleNotFoundError"})


class _Branches(_EvaluatorState):
    """Splitting on a condition the environment decides (a mixin of ModuleEvaluator)."""

    def _template_compare(self, op: ast.cmpop, left: Any, right: Any) -> Hole:
        """``raw is None``, ``raw == ""`` on a templated hole: a template of the test."""
        hole = left if left.__class__ is Hole else right
        other = right if hole is left else left
        cls = op.__class__
        if hole.template is not None:
            if (cls is ast.Is or cls is ast.IsNot) and other is None:
                template: Any = {"is_none": hole.template}
                return Hole(hole.reason, hole.location, template if cls is ast.Is else {"not": template})
            if cls is ast.Eq or cls is ast.NotEq:
                templates = [_template_of(left), _template_of(right)]
                if None not in templates:
                    template = {"eq": templates}
                    return Hole(hole.reason, hole.location, template if cls is ast.Eq else {"not": template})
            if (cls is ast.In or cls is ast.NotIn) and hole is left:
                membership = self._template_membership(hole, right, cls is ast.NotIn)
                if membership is not None:
                    return membership
        raise self._refuse_hole(hole)

    def _split(self, condition: Hole, stmt: ast.If, rest: Sequence[ast.stmt]) -> Any:
        """``if`` on a templated hole inside a function: run both ways to their ``return``.

        Only where the two ways cannot see each other's effects: every local is immutable when
        the function splits, and both ways return a value a template can carry."""
        frame = self._frame
        if condition.template is None or frame is None or frame.opaque:
            raise self._refuse_hole(condition, stmt.test)
        if not all(_is_frozen(value) for value in frame.values.values()):
            raise self._refuse_hole(condition, stmt.test)
        saved = dict(frame.values)
        taken = self._execute(list(stmt.body) + list(rest))
        frame.values = saved
        skipped = self._execute(list(stmt.orelse) + list(rest))
        if taken.__class__ is not _Returned or skipped.__class__ is not _Returned:
            raise self._refuse_hole(condition, stmt.test)
        then, otherwise = _template_of(taken.value), _template_of(skipped.value)
        if then is None or otherwise is None:
            raise self._refuse_hole(condition, stmt.test)
        return _Returned(Hole(condition.reason, condition.location,
                              {"if": condition.template, "then": then, "else": otherwise}))

    def _template_try(self, value: Hole, stmt: ast.Try) -> Hole:
        """``try: return int(raw) except ValueError: return default`` with ``raw`` from the
        environment: the runtime computes the body and falls back to the handler's value."""
        if value.template is None or len(stmt.body) != 1 or len(stmt.handlers) != 1:
            return value  # a template that raises makes the runtime import the module: still exact
        handler = stmt.handlers[0]
        names = _exception_names(handler.type)
        if names is None or handler.name is not None or not set(names) <= _TEMPLATE_EXCEPTIONS:
            return value
        frame = self._frame
        saved = dict(frame.values) if frame is not None else {}  # no frame: nothing to restore
        try:
            fallback = self._execute(handler.body)
        except _Refusal:
            return value
        finally:
            if frame is not None:
                frame.values = saved
        fallback_template = _template_of(fallback.value) if fallback.__class__ is _Returned else None
        if fallback_template is None:
            return value
        return Hole(value.reason, value.location, {"try": value.template, "except": names, "fallback": fallback_template})

    def _is_logging_call(self, node: ast.AST) -> bool:
        """``logger.warning("...", name)`` with ``logger = logging.getLogger(...)``, or
        ``logging.info(...)``: arguments that are names and constants only (nothing to run)."""
        if node.__class__ is not ast.Call or node.func.__class__ is not ast.Attribute:
            return False
        if node.func.attr not in _LOGGING_METHODS or node.keywords and any(k.arg is None for k in node.keywords):
            return False
        arguments = list(node.args) + [keyword.value for keyword in node.keywords]
        if not all(argument.__class__ in (ast.Name, ast.Constant) for argument in arguments):
            return False
        receiver = node.func.value
        if receiver.__class__ is not ast.Name or self._is_local(receiver.id):
            return False
        kind = self._classify(receiver.id)
        if kind[0] == "import":
            return kind[1].origin == "logging"
        if kind[0] != "constant" or kind[1].value.__class__ is not ast.Call:
            return False
        factory = kind[1].value.func
        if factory.__class__ is not ast.Attribute or factory.attr != "getLogger":
            return False
        root = _root_name(factory)
        if root is None or self._is_local(root):
            return False
        origin = self._classify(root)
        return origin[0] == "import" and origin[1].origin == "logging"


def _exception_names(node: Optional[ast.expr]) -> Optional[List[str]]:
    if node is None:
        return None
    elements = node.elts if node.__class__ is ast.Tuple else [node]
    names = [element.id for element in elements if element.__class__ is ast.Name]
    return sorted(names) if len(names) == len(elements) else None


def _is_frozen(value: Any) -> bool:
    cls = value.__class__
    if cls is _FunctionRef:
        return value.closure is None  # a closure sees what its frame holds when it runs
    if cls in _SCALAR_TYPES or cls is Hole or cls is _BuiltinRef or cls is LocalImport:
        return True
    return cls is tuple and all(_is_frozen(item) for item in value)


def first_hole_argument(arguments: _Arguments) -> Optional[Hole]:
    """The first argument of a call that is a hole (positional, then by keyword), or None."""
    for value in (*arguments.positional, *arguments.keywords.values()):
        if value.__class__ is Hole:
            return value
    return None


def _template_of(value: Any) -> Any:
    """The template that yields ``value``: a hole's own, or a constant; None when there is none."""
    if value.__class__ is Hole:
        return value.template
    if value.__class__ in _SCALAR_TYPES:
        return {"const": value}
    return None
