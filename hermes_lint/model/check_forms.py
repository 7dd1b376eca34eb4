"""A registration's ``check_fn`` in declarative form, so the runtime can evaluate it without
importing the tool's module (the manifest's ``check`` entry).

The registry calls ``bool(check_fn())`` (an exception counts as False), so only the *truthiness*
of what the check returns matters. The manifest's ``check`` is one of:

- ``{"kind": "none"}``: no ``check_fn`` (or ``None``);
- ``{"kind": "template", "template": T}``: ``bool`` of a template over the operators of
  ``tools/manifest_templates.py`` — the runtime's one language for what it evaluates without
  importing;
- ``{"kind": "import", "reason": ...}``: the runtime must import the module and run the real
  function (``function`` names it when it is a plain module function).

Two ways lead to a template. The simple forms are recognised here first: a module function
whose body is only ``return <test>`` (a docstring allowed), a lambda whose body is such a test,
or either calling another such function without arguments, where the test is ``True``, tests
joined by ``and``, ``bool(...)`` of one, ``os.getenv("X")``/``os.environ.get("X")`` (no
default, or a ``None``/``""`` default: ``{"env": "X"}``, truthy when set and not empty),
``"X" in os.environ`` or ``os.getenv("X") is not None`` (``not is_none``), and
``importlib.util.find_spec("pkg") is not None`` (``not is_none`` of ``find_spec``) for a
top-level name only: ``find_spec("a.b")`` imports ``a``, which the runtime must not do from
manifest data. Anything else the evaluator can follow on every path
(``ModuleEvaluator.call_after_import``) is the template it computes. Only what it cannot follow
is ``import``, with a sentence saying why (``import_reason``).

Exactness over coverage: a form is only produced when evaluating it gives the same answer as
running the function, for every environment.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import FrozenSet, Optional, Tuple, Union

from hermes_lint.model import Hole, Unresolved
from hermes_lint.model.callables import register_argument
from hermes_lint.model.context import ModuleContext
from hermes_lint.model.env_access import EnvAccessIndex
from hermes_lint.model.parsing import source_segment
from hermes_lint.model.semantic import CALL_DEPTH, CallableNode

# `module` checks name a top-level package only: find_spec("a.b") imports `a` to search it,
# and the manifest must never make the runtime import anything by itself.
_TOP_LEVEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

NO_CHECK = {"kind": "none"}


@dataclass(frozen=True)
class _Env:
    nonempty: FrozenSet[str] = frozenset()
    present: FrozenSet[str] = frozenset()


@dataclass(frozen=True)
class _Module:
    name: str


_Form = Union[_Env, _Module]  # an _Env with no names is true: {"const": True}


class _NotDeclarative(Exception):
    """The check's truthiness cannot be stated as a declarative form; the message says why."""

    too_deep = False


class _TooDeep(_NotDeclarative):
    too_deep = True


def classify_check(ctx: ModuleContext, call: ast.Call) -> dict:
    """The declarative form of the ``check_fn`` passed to the register ``call`` of ``ctx``."""
    node = register_argument(call, "check_fn")
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return dict(NO_CHECK)
    target = ctx.semantic.callable_node(node)
    function = target.name if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    try:
        if target is None:
            raise _NotDeclarative("check_fn is not a plain function or lambda of this module")
        form = _Classifier(ctx).callable_form(target, depth=0, seen=())
    except _NotDeclarative as exc:
        reason = str(exc)
        # Past the call depth every analysis shares (CALL_DEPTH), the check stays an import.
        if (target is not None or isinstance(node, ast.Name)) and not exc.too_deep:
            value = ctx.evaluator.call_after_import(node)
            template = template_of_check(value)
            if template is not None:
                result = {"kind": "template", "template": template}
                if function is not None:
                    result["function"] = function
                return result
            if isinstance(value, Unresolved) and not value.reason.startswith(_CLASSIFIER_KNOWS_BETTER):
                reason = import_reason(value.reason)
        result = {"kind": "import", "reason": reason}
        if function is not None:
            result["function"] = function
        return result
    result = {"kind": "template", "template": _template_of_form(form)}
    if function is not None:
        result["function"] = function
    return result


def _template_of_form(form: _Form) -> dict:
    """The template whose truthiness is the form's (``tools.manifest_checks.translate_checks``
    reads the forms of manifest format versions 1 to 3 the same way)."""
    if isinstance(form, _Module):
        return _is_set({"find_spec": form.name})
    tests = [{"env": name} for name in sorted(form.nonempty)]
    tests += [_is_set({"env": name}) for name in sorted(form.present - form.nonempty)]  # non-empty implies set
    if not tests:
        return {"const": True}
    return tests[0] if len(tests) == 1 else {"and": tests}


def _is_set(template: dict) -> dict:
    return {"not": {"is_none": template}}


class _Classifier:
    def __init__(self, ctx: ModuleContext):
        self.ctx = ctx
        self.env = EnvAccessIndex.of(ctx)

    # --- callables -------------------------------------------------------------------------

    def callable_form(self, fn: CallableNode, depth: int, seen: Tuple[int, ...]) -> _Form:
        if depth > CALL_DEPTH or id(fn) in seen:
            raise _TooDeep("check_fn calls too deep a chain of functions")
        seen = seen + (id(fn),)
        if _has_parameters(fn.args):
            raise _NotDeclarative("check_fn takes parameters")
        if isinstance(fn, ast.Lambda):
            return self.truth(fn.body, depth, seen)
        if isinstance(fn, ast.AsyncFunctionDef):
            raise _NotDeclarative("check_fn is async: it returns a coroutine, not a value")
        if fn.decorator_list:
            raise _NotDeclarative("check_fn is decorated")
        body = list(fn.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            raise _NotDeclarative("check_fn's body is more than one `return <expression>`")
        return self.truth(body[0].value, depth, seen)

    # --- expressions, by their truthiness --------------------------------------------------

    def truth(self, node: ast.expr, depth: int, seen: Tuple[int, ...]) -> _Form:
        if isinstance(node, ast.Constant) and node.value is True:
            return _Env()
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            return self._conjunction([self.truth(v, depth, seen) for v in node.values])
        if isinstance(node, ast.Call):
            is_bool = isinstance(node.func, ast.Name) and node.func.id == "bool" and self.ctx.semantic.is_builtin("bool")
            if is_bool and len(node.args) == 1 and not node.keywords:
                return self.truth(node.args[0], depth, seen)
            module = self._find_spec_name(node)
            if module is not None:
                return _Module(module)
            name = self._env_get_name(node)
            if name is not None:
                return _Env(nonempty=frozenset([name]))
            if isinstance(node.func, ast.Name) and not node.args and not node.keywords:
                target = self.ctx.semantic.callable_node(node.func)
                if target is not None:
                    return self.callable_form(target, depth + 1, seen)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return self._comparison(node)
        raise _NotDeclarative(
            f"`{_source(self.ctx, node)}` is not an environment, installed-package or constant test"
        )

    def _comparison(self, node: ast.Compare) -> _Form:
        op, right = node.ops[0], node.comparators[0]
        if isinstance(op, ast.IsNot) and isinstance(right, ast.Constant) and right.value is None:
            if isinstance(node.left, ast.Call):
                module = self._find_spec_name(node.left)
                if module is not None:
                    return _Module(module)
                name = self._env_get_name(node.left)
                if name is not None:
                    return _Env(present=frozenset([name]))
        access = self.env.access(node)
        if access is not None and access.kind == "contains" and not access.negated:
            if self.ctx.semantic.binds_only_by_import(_root_name(right)):
                name = self._constant_str(access.name_node)
                if name is not None:
                    return _Env(present=frozenset([name]))
        raise _NotDeclarative(f"`{_source(self.ctx, node)}` is not an environment or installed-package test")

    @staticmethod
    def _conjunction(forms) -> _Form:
        modules = [f for f in forms if isinstance(f, _Module)]
        if modules:
            if len(forms) == 1:
                return modules[0]
            raise _NotDeclarative("check_fn combines an installed-package test with other tests")
        return _Env(
            nonempty=frozenset().union(*(f.nonempty for f in forms)),
            present=frozenset().union(*(f.present for f in forms)),
        )

    # --- recognisers -----------------------------------------------------------------------

    def _env_get_name(self, call: ast.Call) -> Optional[str]:
        """X of ``os.getenv("X")``/``os.environ.get("X")`` whose value is falsy exactly when X is
        unset or empty: no default, or a ``None``/``""`` default."""
        access = self.env.access(call)
        if access is None or access.kind != "get" or len(call.args) > 2:
            return None
        if any(kw.arg not in ("default", "value") for kw in call.keywords):
            return None
        default = access.default
        if default is not None and not (isinstance(default, ast.Constant) and default.value in (None, "")):
            return None
        if not self.ctx.semantic.binds_only_by_import(_root_name(call.func)):
            return None
        # Only os's own getters: a project's environment reader (``env_var_enabled("X")``) reads
        # X but answers something else (is it "1"/"true"/...?); the template path states that.
        if self.ctx.semantic.import_target(call.func) not in ("os.getenv", "os.environ.get"):
            return None
        return self._constant_str(access.name_node)

    def _find_spec_name(self, call: ast.Call) -> Optional[str]:
        """pkg of ``importlib.util.find_spec("pkg")`` (however importlib was imported)."""
        if len(call.args) != 1 or call.keywords or not self._is_find_spec(call.func):
            return None
        if not self.ctx.semantic.binds_only_by_import(_root_name(call.func)):
            return None
        name = self._constant_str(call.args[0])
        return name if name is not None and _TOP_LEVEL_NAME.match(name) else None

    def _is_find_spec(self, func: ast.expr) -> bool:
        return self.ctx.semantic.import_target(func) == "importlib.util.find_spec"

    def _constant_str(self, node: ast.expr) -> Optional[str]:
        value = self.ctx.evaluator.evaluate(node)
        return value if isinstance(value, str) else None


def _has_parameters(args: ast.arguments) -> bool:
    return bool(args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _root_name(node: ast.expr) -> Optional[str]:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _source(ctx: ModuleContext, node: ast.expr) -> str:
    text = source_segment(ctx.lines, node)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def template_of_check(value: object) -> Optional[dict]:
    """The template whose truthiness is the check's, from what the evaluator says calling the
    check returns: a templated hole's template, or a constant; None when there is none."""
    if isinstance(value, Hole):
        return value.template
    if value is None or type(value) in (bool, int, float, str):
        return {"const": value}
    return None


# Refusals the classifier's own reason states better (async, decorated).
_CLASSIFIER_KNOWS_BETTER = ("call to async function", "call to decorated function")

# What the evaluator's refusals mean for a check the runtime must import to run.
_REASONS = (
    (re.compile(r"^unsupported statement: import \(in (\w+)\)"),
     "{0} imports a module inside the function, which only running it can do"),
    (re.compile(r"^imported name (\w+)$"),
     "check_fn is {0}, imported from a module the manifest cannot read"),
    (re.compile(r"^call to imported function (\w+)"),
     "it calls {0}, which is not a function of a project module the manifest can evaluate"),
    (re.compile(r"^environment read"),
     "it reads the environment other than by os.getenv/os.environ.get of a constant name"),
    (re.compile(r"^imported name (\w+)"),
     "{0} is bound by an import and rebound in the module, so its value is not known"),
    (re.compile(r"contains a global declaration \(in (\w+)\)"),
     "{0} changes module state (a global declaration)"),
)


def import_reason(evaluator_reason: str) -> str:
    """An understandable sentence for why a check stays an import."""
    for pattern, sentence in _REASONS:
        found = pattern.search(evaluator_reason)
        if found is not None:
            return "check_fn must run: " + sentence.format(*found.groups())
    return f"check_fn must run: the manifest cannot evaluate it ({evaluator_reason})"
