"""What a handler's returns are: a ``ValueKind`` for each return, following module functions.

``string`` (literals, f-strings, ``str()``, ``json.dumps()``, ``tool_error()``/``tool_result()``
from the registry, variables assigned only from those), ``envelope`` (the multimodal dict),
``awaitable`` (a call of a module ``async def``), ``other`` (a dict/list/number/None/bool... with
what it is) or ``unknown``. A None that a passed test rules out (``if err: return err``, past
``if x is None: return ...``) or that needs a parameter the call passes a literal for
(``None if error is None else ...``) is dropped.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from hermes_lint.model.semantic import CALL_DEPTH
from hermes_lint.analysis.functions import FunctionFacts, ModuleFunctions, ReturnFact
from hermes_lint.analysis.narrowing import FALSY, end_ruled_out, narrowed_not_none, ruled_out, says, truthy_arguments

# str methods that return a str: `"".join(...)`, `"...".format(...)`.
_STR_METHODS = frozenset(
    "format join strip lstrip rstrip upper lower replace title capitalize casefold "
    "removeprefix removesuffix center ljust rjust zfill expandtabs swapcase".split()
)
_STRING_BUILTINS = frozenset({"str", "repr", "format", "ascii", "chr"})
_OTHER_BUILTINS = {
    "dict": "a dict", "list": "a list", "tuple": "a tuple", "set": "a set", "frozenset": "a set",
    "int": "a number", "float": "a number", "len": "a number", "bool": "a bool", "sorted": "a list",
}


@dataclass(frozen=True)
class ValueKind:
    """What a returned expression is. ``what``/``detail`` only for ``other``."""

    kind: str  # "string" | "envelope" | "awaitable" | "other" | "unknown"
    what: str = ""  # "a dict", "None", ...
    detail: str = ""  # where a followed function returns it, e.g. "`_impl` returns it at line 20"
    certain: bool = True  # for "other" from a followed function: every other path known too

    @property
    def known_not_awaitable(self) -> bool:
        return self.kind in ("string", "envelope") or (self.kind == "other" and self.certain)


UNKNOWN = ValueKind("unknown")
STRING = ValueKind("string")
# A path that cannot run: ``None`` where the value is known not to be None (``if err: return err``),
# a branch a call's arguments rule out. Internal: ``combine`` drops it, rules never see it.
NEVER = ValueKind("never")


def combine(kinds: Sequence[ValueKind]) -> ValueKind:
    """What one of several paths returns, from the handler's point of view."""
    kinds = [k for k in kinds if k.kind != "never"]  # paths that cannot run
    others = [k for k in kinds if k.kind == "other"]
    if others:
        certain = all(k.known_not_awaitable for k in kinds)
        first = others[0]
        return ValueKind("other", first.what, first.detail, certain and first.certain)
    if any(k.kind == "unknown" for k in kinds) or not kinds:
        return UNKNOWN
    if all(k.kind == "awaitable" for k in kinds):
        return kinds[0]
    if any(k.kind == "awaitable" for k in kinds):
        return UNKNOWN
    return STRING


class ReturnKinds(ModuleFunctions):
    """The kinds of values returned by the module's functions (a part of ``HandlerAnalyzer``)."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._return_kinds: Dict[int, List[Tuple[ReturnFact, ValueKind]]] = {}
        self._results: Dict[Tuple[str, int, bool, FrozenSet[str]], ValueKind] = {}

    def return_kinds(self, fn: FunctionFacts) -> List[Tuple[ReturnFact, ValueKind]]:
        """Each return of ``fn`` with what it returns (memoised per function)."""
        key = id(fn.node)
        if key not in self._return_kinds:
            self._return_kinds[key] = [(r, self._safe_kind(r.value, fn)) for r in fn.returns]
        return self._return_kinds[key]

    def _safe_kind(self, expr: Optional[ast.expr], fn: FunctionFacts) -> ValueKind:
        try:
            return self.kind(expr, fn, 0, (fn.name,))
        except RecursionError:
            return UNKNOWN

    def kind(
        self, expr: Optional[ast.expr], fn: FunctionFacts, depth: int, stack: Tuple[str, ...] = (),
        not_none: bool = False, bound: FrozenSet[str] = frozenset(),
    ) -> ValueKind:
        """What ``expr`` (in ``fn``) is. ``not_none``: the value is known not to be None here
        (None paths are NEVER). ``bound``: parameters of ``fn`` the call passes a truthy value."""
        if expr is None:
            return NEVER if not_none else ValueKind("other", "None")
        if isinstance(expr, ast.Constant):
            value = expr.value
            if isinstance(value, str):
                return STRING
            if value is None:
                return NEVER if not_none else ValueKind("other", "None")
            if isinstance(value, bool):
                return ValueKind("other", "a bool")
            if isinstance(value, (int, float, complex)):
                return ValueKind("other", "a number")
            if isinstance(value, bytes):
                return ValueKind("other", "bytes")
            return UNKNOWN
        if isinstance(expr, ast.JoinedStr):
            return STRING
        if isinstance(expr, ast.Dict):
            keys = {k.value for k in expr.keys if isinstance(k, ast.Constant)}
            return ValueKind("envelope") if "_multimodal" in keys else ValueKind("other", "a dict")
        simple = {ast.List: "a list", ast.ListComp: "a list", ast.Tuple: "a tuple", ast.Set: "a set",
                  ast.SetComp: "a set", ast.DictComp: "a dict", ast.GeneratorExp: "a generator"}
        if type(expr) in simple:
            return ValueKind("other", simple[type(expr)])
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return ValueKind("other", "a bool")
        if isinstance(expr, ast.IfExp):
            branches = [b for b, outcome in ((expr.body, True), (expr.orelse, False))
                        if not any(says(expr.test, p, outcome) in FALSY for p in bound)]
            return combine([self.kind(b, fn, depth, stack, not_none, bound) for b in branches])
        if isinstance(expr, ast.BoolOp):
            kinds = [self.kind(v, fn, depth, stack) for v in expr.values]
            return STRING if all(k.kind == "string" for k in kinds) else UNKNOWN
        if isinstance(expr, ast.BinOp):
            return self._binop_kind(expr, fn, depth, stack)
        if isinstance(expr, ast.Name):
            return self._name_kind(expr.id, fn, depth, stack, expr, not_none, bound)
        if isinstance(expr, ast.Await):
            inner = expr.value
            callee = self.is_module_call(inner, fn)
            facts = self.followable(callee) if callee else None
            if facts is not None and facts.is_async:
                return self.function_result(facts.name, depth + 1, stack, not_none, truthy_arguments(inner, facts))
            return UNKNOWN
        if isinstance(expr, ast.Call):
            return self._call_kind(expr, fn, depth, stack, not_none)
        return UNKNOWN

    def _binop_kind(self, expr: ast.BinOp, fn: FunctionFacts, depth: int, stack: Tuple[str, ...]) -> ValueKind:
        """``"a" + b + "c"`` (every operand a string), ``"%s" % x``, ``"-" * n``: a string."""
        if isinstance(expr.op, (ast.Mod, ast.Mult)):
            return STRING if self.kind(expr.left, fn, depth, stack).kind == "string" else UNKNOWN
        operands = []
        node: ast.expr = expr
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # long chains: no recursion
            operands.append(node.right)
            node = node.left
        operands.append(node)
        if all(self.kind(o, fn, depth, stack).kind == "string" for o in operands):
            return STRING
        return UNKNOWN

    def _name_kind(
        self, name: str, fn: FunctionFacts, depth: int, stack: Tuple[str, ...],
        node: Optional[ast.Name] = None, not_none: bool = False, bound: FrozenSet[str] = frozenset(),
    ) -> ValueKind:
        values = fn.bindings.get(name)
        marker = f"{fn.name}:{name}"
        if not values or name in fn.params or marker in stack:
            return UNKNOWN  # a parameter, a global, or bound other than by ``name = value``
        if bound:  # assignments the call's arguments rule out (``if error is None: x = None``)
            values = [v for v in values if not ruled_out(fn.parents.get(id(v), v), fn, bound)]
        kinds = [self.kind(value, fn, depth, stack + (marker,), not_none, bound) for value in values]
        if (not not_none and node is not None and any(k.kind == "other" for k in kinds)
                and narrowed_not_none(node, name, fn)):
            # ``if err: return err``, or past ``if x is None: return ...``: no None reaches here.
            kinds = [self.kind(value, fn, depth, stack + (marker,), True, bound) for value in values]
        kinds = [k for k in kinds if k.kind != "never"]
        if not kinds:
            return UNKNOWN
        if all(k.kind in ("string", "envelope") for k in kinds):
            return STRING
        if all(k.kind == "other" for k in kinds):
            return kinds[0]
        return UNKNOWN  # e.g. a dict later replaced by its json.dumps(): cannot tell which returns

    def _call_kind(
        self, call: ast.Call, fn: FunctionFacts, depth: int, stack: Tuple[str, ...], not_none: bool = False
    ) -> ValueKind:
        func = call.func
        if self.is_import(func, fn, "json.dumps"):
            return STRING
        if self.is_registry_helper(func, fn, "tool_error") or self.is_registry_helper(func, fn, "tool_result"):
            return STRING
        if self.is_builtin(func, fn, _STRING_BUILTINS):
            return STRING
        if isinstance(func, ast.Name) and self.is_builtin(func, fn, _OTHER_BUILTINS):
            return ValueKind("other", _OTHER_BUILTINS[func.id])
        if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS:
            if self.kind(func.value, fn, depth, stack).kind == "string":
                return STRING
            return UNKNOWN
        callee = self.is_module_call(call, fn)
        facts = self.followable(callee) if callee else None
        if facts is not None and facts.is_async:
            return ValueKind("awaitable", detail=facts.name)
        if facts is not None:
            return self.function_result(facts.name, depth + 1, stack, not_none, truthy_arguments(call, facts))
        return UNKNOWN

    def function_result(
        self, name: str, depth: int, stack: Tuple[str, ...] = (),
        not_none: bool = False, bound: FrozenSet[str] = frozenset(),
    ) -> ValueKind:
        """What a call of module function ``name`` returns (awaited, for an ``async def``).

        ``not_none``: only the paths that return something other than None (the caller tested
        the result). ``bound``: parameters the call passes a truthy value, so the paths that
        need them None or falsy (``return None if error is None else ...``) do not run.
        """
        if depth > CALL_DEPTH or name in stack:
            return UNKNOWN
        key = (name, depth, not_none, bound)
        if key in self._results:
            return self._results[key]
        facts = self.followable(name)
        if facts is None or facts.is_generator:
            return UNKNOWN
        kinds: List[ValueKind] = []
        for ret in facts.returns:
            if bound and ruled_out(ret.node, facts, bound):
                continue
            k = self.kind(ret.value, facts, depth, stack + (name,), not_none, bound)
            if k.kind == "other" and not k.detail:
                k = ValueKind("other", k.what, f"`{name}` returns it at line {ret.node.lineno}")
            kinds.append(k)
        if facts.falls_off_line is not None and not not_none and not end_ruled_out(facts, bound):
            falls_off = f"`{name}` falls off the end at line {facts.falls_off_line}"
            kinds.append(ValueKind("other", "None", falls_off))
        result = combine(kinds)
        self._results[key] = result
        return result
