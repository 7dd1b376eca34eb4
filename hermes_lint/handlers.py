"""Handler analysis shared by HRM101–HRM108, computed once per registration (memoised in ``ctx.memo``).

What it resolves: a named ``def`` handler of the module; a lambda (written in place or assigned
to a module name), followed into the module function its body calls; and, for return values,
``return other_module_function(...)`` followed up to ``MAX_DEPTH`` calls deep. Anything from
another module, an attribute, a decorated function (a decorator may wrap the returns, catch the
exceptions or change the signature) or a function defined more than once is *unknown*, and
unknown never gives a diagnostic.

What it computes:
- ``ValueKind`` of every return: ``string`` (literals, f-strings, ``str()``, ``json.dumps()``,
  ``tool_error()``/``tool_result()`` from the registry, variables assigned only from those),
  ``envelope`` (the multimodal dict), ``awaitable`` (a call of a module ``async def``),
  ``other`` (a dict/list/number/None/bool... with what it is) or ``unknown``; a None that a
  passed test rules out (``if err: return err``, past ``if x is None: return ...``) or that
  needs a parameter the call passes a literal for (``None if error is None else ...``) is dropped;
- whether the end of a function is certainly reachable (falls off = returns None); when in
  doubt (a call that may never return, ``while True``) it is not;
- the ``raise`` statements that no enclosing ``try`` of the same function can catch (a handler
  that might catch it — a base class from another module — counts as catching);
- the constant keys read from ``args`` (``args.get("k")``, ``args["k"]``, ``"k" in args``),
  following ``args`` passed whole into module functions, and whether every use is visible;
- calls that start an event loop, in the handler and the module functions it calls (not in a
  loop-aware bridge that first checks whether a loop is running).
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

from hermes_lint.context import CHILD_FIELDS
from hermes_lint.extract import REGISTER_PARAMETERS
from hermes_lint.model import Registration

MAX_DEPTH = 4

_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_TRY_NODES = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
_ERROR_STRING = re.compile(r"^\s*error\b", re.IGNORECASE)
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
# Method names of calls that may never return (sys.exit, pytest.fail, self.abort...).
_NO_RETURN_METHODS = re.compile(r"^(_?exit|abort|fail|skip|die|throw|raise\w*|_?fail\w*|_?abort\w*)$")
_LOOKING_BUILTINS = frozenset({"isinstance", "len", "bool", "type"})  # look at args, read no key
_RETURNING_BUILTINS = frozenset({"print", "setattr", "delattr", "isinstance", "len", "sorted", "open"})
# Context managers whose name says they swallow exceptions (contextlib.suppress, custom guards).
_SWALLOWING_CM = re.compile(r"suppress|ignore|catch|error|guard|boundary|safe|trap|swallow|handle", re.I)
_BUILTIN_EXCEPTIONS = {
    name: value for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


# --- facts ----------------------------------------------------------------------------------


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
# a branch a call's arguments rule out. Internal: ``_combine`` drops it, rules never see it.
NEVER = ValueKind("never")


@dataclass
class ReturnFact:
    node: ast.AST  # the ``return`` statement, or a lambda's body
    value: Optional[ast.expr]
    in_except: bool  # lexically inside an ``except`` block of the function
    except_names: Tuple[str, ...]  # names bound by the enclosing ``except ... as name`` blocks


@dataclass
class FunctionFacts:
    """One module function (or a handler lambda) analysed on its own."""

    name: str  # "" for a lambda
    node: ast.AST
    is_async: bool
    decorated: bool
    is_generator: bool
    returns: List[ReturnFact]
    falls_off_line: Optional[int]  # last line, when the end is certainly reachable
    uncaught_raises: List[ast.Raise]
    event_loop_calls: List[Tuple[ast.Call, str]]
    called_functions: List[str]  # module functions this one calls directly (by name)
    params: Set[str]
    bindings: Dict[str, Optional[List[ast.expr]]]  # local name -> plain assigned values | None
    # The one walk of the function's own scope: (node, parent) pairs and parent by node id.
    pairs: List[Tuple[ast.AST, ast.AST]] = field(default_factory=list, repr=False)
    parents: Dict[int, ast.AST] = field(default_factory=dict, repr=False)

    def is_local(self, name: str) -> bool:
        return name in self.params or name in self.bindings


@dataclass(frozen=True)
class ArgRead:
    key: str
    node: ast.AST
    function: str  # "" for the lambda
    # Keys read by the other operands of ``args.get("filename") or args.get("title")`` (aliases).
    alternates: Tuple[str, ...] = ()
    # ``"x" in args`` tests whether the model sent the key: a read for HRM108, and for HRM107
    # often a guard that rejects a key the schema deliberately leaves out.
    membership: bool = False


@dataclass
class ArgsUse:
    reads: List[ArgRead] = field(default_factory=list)
    all_visible: bool = True
    functions: Set[str] = field(default_factory=set)  # module functions ``args`` flows into


@dataclass
class PrimaryFunction:
    """A function whose own returns and raises are the handler's (the def, or the lambda's callee)."""

    facts: FunctionFacts
    who: str  # how messages name it: "handler `_handle`", "handler `fetch` (via lambda)"


@dataclass
class HandlerAnalysis:
    registration: Registration
    kind: str  # "function" | "lambda" | "unknown"
    entry: Optional[ast.AST]  # the def or the Lambda the registry calls
    entry_label: str  # "handler `_handle`" / "handler lambda"
    primary: List[PrimaryFunction]
    results: List[ValueKind]  # what calling the handler returns, per path (before awaiting)
    entry_is_async: bool  # the entry is ``async def``
    awaitable_callee: Optional[str]  # a returned call of a module ``async def`` (un-awaited)
    args: ArgsUse
    event_loop_calls: List[Tuple[ast.Call, str, str]]  # (call, text, who)

    @property
    def known(self) -> bool:
        return self.kind != "unknown"


# --- module-level analysis ------------------------------------------------------------------


class HandlerAnalyzer:
    """Per-module analyzer; ``analysis(registration, call)`` is what rules use."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.imports = ctx.index.imports
        self.functions = self._unique_functions()
        self._facts: Dict[str, Optional[FunctionFacts]] = {}
        # Cheap prefilter: most tool files never start an event loop, so HRM106 need not follow
        # every helper a handler calls.
        self.mentions_event_loops = any(
            word in ctx.text for word in ("asyncio", "run_until_complete", "run_forever")
        )
        self._results: Dict[Tuple[str, int], ValueKind] = {}

    @classmethod
    def of(cls, ctx) -> "HandlerAnalyzer":
        key = "handlers.analyzer"
        if key not in ctx.memo:
            ctx.memo[key] = cls(ctx)
        return ctx.memo[key]

    def _unique_functions(self) -> Dict[str, ast.AST]:
        """Top-level defs whose name nothing else at module level binds (else: unknown)."""
        index = self.ctx.index
        direct: Dict[str, List[ast.AST]] = {}
        for stmt in self.ctx.tree.body:
            if isinstance(stmt, _FUNCTION_NODES):
                direct.setdefault(stmt.name, []).append(stmt)
        return {
            name: nodes[0]
            for name, nodes in direct.items()
            if len(nodes) == 1
            and index.functions.get(name) is nodes[0]
            and name not in index.assigned
            and name not in index.imports
            and name not in index.classes
        }

    # --- function facts -----------------------------------------------------------------

    def facts(self, name: str) -> Optional[FunctionFacts]:
        if name not in self._facts:
            node = self.functions.get(name)
            self._facts[name] = None  # while being analysed: a recursive call is unknown
            if node is not None:
                try:
                    self._facts[name] = _analyse_function(node, name, self)
                except RecursionError:  # absurdly nested code: unknown, never a crash
                    self._facts[name] = None
        return self._facts[name]

    def lambda_facts(self, node: ast.Lambda) -> FunctionFacts:
        key = ("handlers.lambda", id(node))
        if key not in self.ctx.memo:
            self.ctx.memo[key] = _analyse_function(node, "", self)  # _analyse catches RecursionError
        return self.ctx.memo[key]

    def followable(self, name: str) -> Optional[FunctionFacts]:
        facts = self.facts(name)
        return facts if facts is not None and not facts.decorated else None

    def is_module_call(self, call: ast.AST, fn: FunctionFacts) -> Optional[str]:
        """The module function ``call`` calls by name (not shadowed locally), or None."""
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            name = call.func.id
            if name in self.functions and not fn.is_local(name):
                return name
        return None

    def _global_name(self, name: str, fn: FunctionFacts) -> bool:
        """``name`` is the module's (or the builtin) binding, not a local one."""
        return not fn.is_local(name)

    def is_import(self, node: ast.AST, fn: FunctionFacts, *targets: str) -> bool:
        """``node`` names one of ``targets`` ("json.dumps") through this module's imports."""
        if isinstance(node, ast.Name) and self._global_name(node.id, fn):
            return self.imports.get(node.id) in targets
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = self.imports.get(node.value.id)
            return self._global_name(node.value.id, fn) and f"{module}.{node.attr}" in targets
        return False

    def is_builtin(self, node: ast.AST, fn: FunctionFacts, names) -> bool:
        return (
            isinstance(node, ast.Name)
            and node.id in names
            and self._global_name(node.id, fn)
            and not self.ctx.index.is_bound(node.id)
        )

    def is_registry_helper(self, node: ast.AST, fn: FunctionFacts, helper: str) -> bool:
        """``tool_error``/``tool_result`` imported from the tools registry."""
        if not (isinstance(node, ast.Name) and self._global_name(node.id, fn)):
            return False
        target = self.imports.get(node.id, "")
        module, _, attr = target.rpartition(".")
        return attr == helper and module.rstrip(".").split(".")[-1] == "registry"

    # --- return kinds -------------------------------------------------------------------

    def return_kinds(self, fn: FunctionFacts) -> List[Tuple[ReturnFact, ValueKind]]:
        """Each return of ``fn`` with what it returns (memoised per function)."""
        key = ("handlers.returns", id(fn.node))
        if key not in self.ctx.memo:
            self.ctx.memo[key] = [(r, self._safe_kind(r.value, fn)) for r in fn.returns]
        return self.ctx.memo[key]

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
                        if not any(_says(expr.test, p, outcome) in _FALSY for p in bound)]
            return _combine([self.kind(b, fn, depth, stack, not_none, bound) for b in branches])
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
                return self.function_result(callee, depth + 1, stack, not_none, _truthy_arguments(inner, facts))
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
            values = [v for v in values if not _ruled_out(fn.parents.get(id(v), v), fn, bound)]
        kinds = [self.kind(value, fn, depth, stack + (marker,), not_none, bound) for value in values]
        if (not not_none and node is not None and any(k.kind == "other" for k in kinds)
                and _narrowed_not_none(node, name, fn)):
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
        if self.is_builtin(func, fn, _OTHER_BUILTINS):
            return ValueKind("other", _OTHER_BUILTINS[func.id])
        if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS:
            if self.kind(func.value, fn, depth, stack).kind == "string":
                return STRING
            return UNKNOWN
        callee = self.is_module_call(call, fn)
        facts = self.followable(callee) if callee else None
        if facts is not None and facts.is_async:
            return ValueKind("awaitable", detail=callee)
        if facts is not None:
            return self.function_result(callee, depth + 1, stack, not_none, _truthy_arguments(call, facts))
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
        if depth > MAX_DEPTH or name in stack:
            return UNKNOWN
        key = (name, depth, not_none, bound)
        if key in self._results:
            return self._results[key]
        facts = self.followable(name)
        if facts is None or facts.is_generator:
            return UNKNOWN
        kinds: List[ValueKind] = []
        for ret in facts.returns:
            if bound and _ruled_out(ret.node, facts, bound):
                continue
            k = self.kind(ret.value, facts, depth, stack + (name,), not_none, bound)
            if k.kind == "other" and not k.detail:
                k = ValueKind("other", k.what, f"`{name}` returns it at line {ret.node.lineno}")
            kinds.append(k)
        if facts.falls_off_line is not None and not not_none and not _end_ruled_out(facts, bound):
            falls_off = f"`{name}` falls off the end at line {facts.falls_off_line}"
            kinds.append(ValueKind("other", "None", falls_off))
        result = _combine(kinds)
        self._results[key] = result
        return result

    # --- args ---------------------------------------------------------------------------

    def args_use(self, fn: FunctionFacts, param: Optional[str], depth: int,
                 stack: Tuple[Tuple[str, str], ...], use: ArgsUse, keys: Optional[Dict[str, str]] = None) -> None:
        """Collect the reads of ``param`` (``fn``'s parameter holding ``args``) into ``use``.

        ``keys``: ``fn``'s other parameters whose value is a constant string at the one call
        being followed (``_bool_arg(args, "archived")`` reads ``args.get(name)``)."""
        self._keys = keys or {}
        if param is None:
            use.all_visible = False
            return
        if param in fn.bindings and not all(_is_or_empty_dict(v, param) for v in fn.bindings[param] or [None]):
            # ``args`` rebound (``args = args["inner"]``): later reads are of something else.
            use.all_visible = False
            return
        keys = self._keys
        for name_node, parent, grand in _uses_of(fn, param):
            self._keys = keys
            if not self._visible_use(name_node, parent, grand, fn, depth, stack, use):
                use.all_visible = False

    _keys: Dict[str, str] = {}

    def _visible_use(self, name_node, parent, grand, fn, depth, stack, use) -> bool:
        if isinstance(parent, ast.Attribute) and parent.value is name_node:
            is_call = isinstance(grand, ast.Call) and grand.func is parent
            if parent.attr in ("get", "pop", "setdefault") and is_call and grand.args:
                return self._read(grand.args[0], grand, fn, use)
            return False
        if isinstance(parent, ast.Subscript) and parent.value is name_node:
            return isinstance(parent.ctx, ast.Load) and self._read(parent.slice, parent, fn, use)
        if isinstance(parent, ast.Compare):
            membership = len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.In, ast.NotIn))
            if membership and parent.comparators[0] is name_node:
                return self._read(parent.left, parent, fn, use, membership=True)
            return all(isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) for op in parent.ops)
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            return True
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is name_node:
            return True
        if any(parent is value for value in fn.bindings.get(name_node.id) or ()):
            return True  # ``args = args or {}`` (any other rebinding was refused by args_use)
        if (
            isinstance(parent, ast.Assign)
            and parent.value is name_node
            and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)
        ):
            # ``params = args``: an alias bound once; its reads are reads of ``args``
            alias = parent.targets[0].id
            values = fn.bindings.get(alias)
            if alias in fn.params or values is None or len(values) != 1 or values[0] is not name_node:
                return False
            uses = list(_uses_of(fn, alias))
            return all(self._visible_use(n, p, g, fn, depth, stack, use) for n, p, g in uses)
        if isinstance(parent, ast.Call) and name_node in parent.args:
            if self.is_builtin(parent.func, fn, _LOOKING_BUILTINS) or _is_logging_call(parent):
                return True  # looks at the dict, reads no key
            return self._follow_args(parent, parent.args.index(name_node), None, fn, depth, stack, use)
        if isinstance(parent, ast.keyword) and parent.arg is not None and isinstance(grand, ast.Call):
            return self._follow_args(grand, None, parent.arg, fn, depth, stack, use)
        return False

    def _read(self, key_node: ast.AST, at: ast.AST, fn: FunctionFacts, use: ArgsUse, membership: bool = False) -> bool:
        key = None
        if isinstance(key_node, ast.Constant):
            key = key_node.value
        elif isinstance(key_node, ast.Name) and key_node.id in self._keys and not _rebinds_anywhere(fn, key_node.id):
            key = self._keys[key_node.id]
        elif isinstance(key_node, ast.Name) and not fn.is_local(key_node.id):
            try:  # a module constant: KEY = "city"
                key = self.ctx.evaluator.evaluate(key_node)
            except Exception:  # the evaluator is best effort; a key it cannot give is unknown
                key = None
        if not isinstance(key, str):
            return False
        use.reads.append(ArgRead(key, at, fn.name, _or_alternates(at, fn), membership))
        return True

    def _follow_args(self, call, position, keyword, fn, depth, stack, use) -> bool:
        callee = self.is_module_call(call, fn)
        facts = self.followable(callee) if callee else None
        if facts is None or depth >= MAX_DEPTH:
            return False
        params = facts.node.args
        positional = [a.arg for a in params.posonlyargs + params.args]
        if position is not None:
            starred = any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
            if starred or position >= len(positional):
                return False
            param = positional[position]
        else:
            names = positional[len(params.posonlyargs):] + [a.arg for a in params.kwonlyargs]
            if keyword not in names:
                return False
            param = keyword
        if (callee, param) in stack:
            return True  # recursion: its reads are being collected already
        use.functions.add(callee)
        saved = self._keys
        self.args_use(facts, param, depth + 1, stack + ((callee, param),), use, self._constant_arguments(call, facts, fn))
        self._keys = saved
        return True

    def _constant_arguments(self, call: ast.Call, callee: FunctionFacts, caller: FunctionFacts) -> Dict[str, str]:
        """The callee's parameters given a constant string at ``call`` (literal or module constant)."""
        params = callee.node.args
        positional = [a.arg for a in params.posonlyargs + params.args]
        given: List[Tuple[str, ast.AST]] = []
        for position, argument in enumerate(call.args):
            if isinstance(argument, ast.Starred):
                break
            if position < len(positional):
                given.append((positional[position], argument))
        given.extend((kw.arg, kw.value) for kw in call.keywords if kw.arg is not None)
        found: Dict[str, str] = {}
        for name, node in given:
            value = None
            if isinstance(node, ast.Constant):
                value = node.value
            elif isinstance(node, ast.Name) and node.id in self._keys and not _rebinds_anywhere(caller, node.id):
                value = self._keys[node.id]
            elif isinstance(node, ast.Name) and not caller.is_local(node.id):
                value = self.ctx.evaluator.evaluate(node)
            if isinstance(value, str):
                found[name] = value
        return found

    # --- registrations ------------------------------------------------------------------

    def handler_expr(self, call: ast.Call) -> Optional[ast.expr]:
        for kw in call.keywords:
            if kw.arg == "handler":
                return kw.value
        position = REGISTER_PARAMETERS.index("handler")
        leading = call.args[: position + 1]
        if len(leading) > position and not any(isinstance(a, ast.Starred) for a in leading):
            return leading[position]
        return None

    def lambda_node(self, expr: Optional[ast.expr]) -> Optional[ast.Lambda]:
        seen = set()
        while isinstance(expr, ast.Name) and expr.id not in seen:
            seen.add(expr.id)
            values = self.ctx.index.assigned.get(expr.id)
            if not values or len(values) != 1 or expr.id in self.ctx.index.functions:
                return None
            expr = values[0]
        return expr if isinstance(expr, ast.Lambda) else None

    def analysis(self, registration: Registration, call: ast.Call) -> HandlerAnalysis:
        key = ("handlers.analysis", id(call))
        if key not in self.ctx.memo:
            try:
                self.ctx.memo[key] = self._analyse(registration, call)
            except RecursionError:  # absurdly nested code: unknown, never a crash
                self.ctx.memo[key] = self._unknown(registration)
        return self.ctx.memo[key]

    def all_analyses(self) -> List[HandlerAnalysis]:
        return [self.analysis(reg, call) for reg, call in self.ctx.registration_calls()]

    def _unknown(self, registration: Registration) -> HandlerAnalysis:
        return HandlerAnalysis(
            registration, "unknown", None, "", [], [], False, None, ArgsUse(all_visible=False), []
        )

    def _analyse(self, registration: Registration, call: ast.Call) -> HandlerAnalysis:
        ref = registration.handler
        if ref is None:
            return self._unknown(registration)
        if ref.kind == "function":
            facts = self.followable(ref.target or "")
            if facts is None or facts.is_generator:
                return self._unknown(registration)
            who = f"handler `{facts.name}`"
            entry, entry_facts, primary = facts.node, facts, [PrimaryFunction(facts, who)]
            results = [kind for _, kind in self.return_kinds(facts)]
            if facts.falls_off_line is not None:
                results.append(ValueKind("other", "None"))
        elif ref.kind == "lambda":
            entry = self.lambda_node(self.handler_expr(call))
            if entry is None:
                return self._unknown(registration)
            entry_facts = self.lambda_facts(entry)
            who = "handler lambda"
            target = self.is_module_call(entry.body, entry_facts)
            if target is not None:
                target_facts = self.followable(target)
                if target_facts is None or target_facts.is_generator:
                    return self._unknown(registration)
                primary = [PrimaryFunction(target_facts, f"handler `{target}` (via lambda)")]
            else:
                primary = [PrimaryFunction(entry_facts, who)]
            results = [self.kind(entry.body, entry_facts, 0)]
        else:
            return self._unknown(registration)
        awaitable = next((k.detail for k in results if k.kind == "awaitable"), None)
        args = ArgsUse(functions={entry_facts.name or f"<lambda {entry.lineno}:{entry.col_offset}>"})
        params = entry.args
        positional = params.posonlyargs + params.args
        first = positional[0].arg if positional else None
        self.args_use(entry_facts, first, 0, ((entry_facts.name, first or ""),), args)
        return HandlerAnalysis(
            registration=registration,
            kind=ref.kind,
            entry=entry,
            entry_label=who,
            primary=primary,
            results=results,
            entry_is_async=isinstance(entry, ast.AsyncFunctionDef),
            awaitable_callee=awaitable,
            args=args,
            event_loop_calls=self._event_loops(primary, entry_facts),
        )

    def _event_loops(
        self, primary: List[PrimaryFunction], entry: FunctionFacts
    ) -> List[Tuple[ast.Call, str, str]]:
        """Event-loop calls in the handler and the module functions it calls, with who makes them."""
        found: List[Tuple[ast.Call, str, str]] = []
        if not self.mentions_event_loops:
            return found
        seen: Set[str] = set()
        todo: List[Tuple[FunctionFacts, str, int]] = [(p.facts, p.who, 0) for p in primary]
        if entry.name == "" and all(p.facts is not entry for p in primary):
            todo.append((entry, "handler lambda", 0))
        while todo:
            facts, who, depth = todo.pop(0)
            if facts.name in seen and facts.name:
                continue
            seen.add(facts.name)
            for call, text in facts.event_loop_calls:
                found.append((call, text, who))
            if depth < MAX_DEPTH:
                for name in facts.called_functions:
                    callee = self.followable(name)
                    if callee is not None and name not in seen:
                        todo.append((callee, f"`{name}`, called by {primary[0].who},", depth + 1))
        return found


def analyses(ctx) -> List[HandlerAnalysis]:
    """Every registration's handler analysis, in source order (computed once per module)."""
    return HandlerAnalyzer.of(ctx).all_analyses()


def unique_primaries(ctx) -> List[PrimaryFunction]:
    """The functions whose own returns/raises are a handler's, each once (handlers may be shared)."""
    seen: Set[int] = set()
    found = []
    for analysis in analyses(ctx):
        for primary in analysis.primary:
            if id(primary.facts.node) not in seen:
                seen.add(id(primary.facts.node))
                found.append(primary)
    return found


def signature_problems(entry: ast.AST) -> List[str]:
    """Why ``entry(args, **kwargs)`` cannot work, for a def or a lambda (each completes "handler X ...")."""
    params = entry.args
    positional = params.posonlyargs + params.args
    required = positional[: len(positional) - len(params.defaults)]
    call = "the registry calls `handler(args, **kwargs)`"
    if not positional and params.vararg is None and params.kwarg is None and not params.kwonlyargs:
        return [f"takes no parameters; {call}"]
    problems = []
    if not positional and params.vararg is None:
        problems.append(f"takes no positional parameter for `args`; {call}")
    if len(required) > 1:
        names = ", ".join(f"`{a.arg}`" for a in required)
        problems.append(f"requires {len(required)} positional arguments ({names}); {call}")
    for arg, default in zip(params.kwonlyargs, params.kw_defaults):
        if default is None:
            problems.append(f"requires keyword-only argument `{arg.arg}`; {call} and may not pass it")
    if params.kwarg is None and len(positional) <= 1 and not params.kwonlyargs:
        problems.append(f"accepts no **kwargs; {call} (with `task_id` and other keywords)")
    return problems


def declared_properties(registration: Registration) -> Optional[dict]:
    """``parameters.properties`` when the schema is resolved and it is a dict of named properties."""
    schema = registration.schema
    parameters = schema.get("parameters") if isinstance(schema, dict) else None
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    if isinstance(properties, dict) and all(isinstance(k, str) for k in properties):
        return properties
    return None


def schema_is_fixed(registration: Registration) -> bool:
    """The properties seen here are the ones the model gets: no run-time overrides, or
    overrides that never replace ``parameters`` (a description that names the active backend)."""
    overrides_position = REGISTER_PARAMETERS.index("dynamic_schema_overrides")
    return (
        not registration.overrides_may_change("parameters")
        and registration.positional_args <= overrides_position
        and not registration.has_star_args
    )


def undeclared_keys_allowed(registration: Registration) -> bool:
    """The schema lets the model send keys beyond ``properties`` (or combines sub-schemas)."""
    parameters = registration.schema["parameters"]
    extra = parameters.get("additionalProperties")
    if extra is not None and extra is not False:
        return True
    return any(k in parameters for k in ("patternProperties", "anyOf", "oneOf", "allOf", "$ref", "if"))


def properties_known_to_reads(ctx, analysis: HandlerAnalysis) -> Optional[Set[str]]:
    """Every property name a read in this handler's code may legitimately refer to.

    Handler code shared by several registrations (one ``_dispatch(action, args)`` behind several
    lambdas, one ``def`` registered twice) reads the keys of all their schemas: the union. None
    when one of those schemas is unknown, may change at run time, or admits undeclared keys.
    """
    names: Set[str] = set()
    for other in analyses(ctx):
        if other is not analysis and not (other.args.functions & analysis.args.functions):
            continue
        properties = declared_properties(other.registration)
        registration = other.registration
        if properties is None or not schema_is_fixed(registration) or undeclared_keys_allowed(registration):
            return None
        names.update(properties)
    return names


def reader_label(analysis: HandlerAnalysis, read: ArgRead) -> str:
    """Who performs ``read``: the handler itself, or a module function ``args`` was passed to."""
    entry_name = getattr(analysis.entry, "name", "")
    if read.function == entry_name or not read.function:
        return analysis.entry_label
    return f"`{read.function}` (given `args` by {analysis.entry_label})"


# --- helpers over kinds ---------------------------------------------------------------------


def _combine(kinds: Sequence[ValueKind]) -> ValueKind:
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


def _constant_read(node: ast.AST) -> Optional[Tuple[str, str]]:
    """(dict name, key) of ``d.get("k", ...)`` or ``d["k"]``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        receiver, key = node.func.value, node.args[0] if node.args else None
    elif isinstance(node, ast.Subscript):
        receiver, key = node.value, node.slice
    else:
        return None
    if isinstance(receiver, ast.Name) and isinstance(key, ast.Constant) and isinstance(key.value, str):
        return receiver.id, key.value
    return None


def _or_alternates(read: ast.AST, fn: FunctionFacts) -> Tuple[str, ...]:
    """Keys the other operands of the ``or`` around ``read`` read from the same dict (its aliases)."""
    chain = fn.parents.get(id(read))
    this = _constant_read(read)
    if this is None or not (isinstance(chain, ast.BoolOp) and isinstance(chain.op, ast.Or)):
        return ()
    others = (_constant_read(v) for v in chain.values if v is not read)
    return tuple(other[1] for other in others if other is not None and other[0] == this[0])


def _is_logging_call(call: ast.Call) -> bool:
    """``logger.debug("...", args)``: formats the dict, reads no key."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ("debug", "info", "warning", "error", "exception", "critical", "log")
        and isinstance(func.value, ast.Name)
        and func.value.id.lstrip("_").lower() in ("log", "logger", "logging")
    )


def _is_or_empty_dict(node: ast.AST, name: str) -> bool:
    """``name or {}`` (the one rebinding of ``args`` that keeps it the same dict)."""
    return (
        isinstance(node, ast.BoolOp)
        and isinstance(node.op, ast.Or)
        and len(node.values) == 2
        and isinstance(node.values[0], ast.Name)
        and node.values[0].id == name
        and isinstance(node.values[1], ast.Dict)
        and not node.values[1].keys
    )


# --- narrowing ------------------------------------------------------------------------------
# What the tests a path has passed prove: ``err = _guard(); if err: return err`` returns no None;
# past ``if x is None: return tool_error(...)`` x is not None; ``_finish("b", f"failed: {e}")``
# cannot take the ``None if error is None else ...`` branch. Only ever removes paths (silence).

_NOT_NONE = ("truthy", "not None")
_FALSY = ("falsy", "None")


def _says(test: ast.AST, name: str, outcome: bool) -> Optional[str]:
    """What ``test`` evaluating to ``outcome`` proves about ``name`` (in _NOT_NONE or _FALSY), or None."""
    if isinstance(test, ast.Name):
        return None if test.id != name else "truthy" if outcome else "falsy"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _says(test.operand, name, not outcome)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, op = test.left, test.comparators[0], test.ops[0]
        if isinstance(left, ast.Constant):
            left, right = right, left  # ``None is x``
        if not (isinstance(left, ast.Name) and left.id == name
                and isinstance(right, ast.Constant) and right.value is None):
            return None
        if isinstance(op, (ast.Is, ast.Eq)):
            return "None" if outcome else "not None"
        if isinstance(op, (ast.IsNot, ast.NotEq)):
            return "not None" if outcome else "None"
        return None
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        # isinstance(x, str) / bool(x) / len(x) / callable(x) true: x is not None
        first = test.args[0] if test.args else None
        if (outcome and test.func.id in ("isinstance", "bool", "len", "callable")
                and isinstance(first, ast.Name) and first.id == name):
            return "not None"
        return None
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) == outcome:
        # ``a and b`` true: both are true; ``a or b`` false: both are false.
        return next((s for s in (_says(v, name, outcome) for v in test.values) if s), None)
    return None


def exits(stmts: Sequence[ast.stmt]) -> bool:
    """The block certainly does not run past its end (return, raise, break, continue)."""
    for stmt in stmts:
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, ast.If) and stmt.orelse and exits(stmt.body) and exits(stmt.orelse):
            return True
    return False


def _block_conditions(
    block: Sequence[ast.stmt], index: int
) -> Iterator[Tuple[ast.expr, bool, Sequence[ast.stmt]]]:
    """(test, outcome, since) known when ``block[index]`` runs (``index == len(block)``: its end):
    guards before it that leave otherwise (``if x is None: return ...``, elif chains), asserts.
    ``since``: the statements run after the test (a rebinding there undoes what it proved)."""
    for i, stmt in enumerate(block[:index]):
        since = block[i + 1: index + 1]
        if isinstance(stmt, ast.Assert):
            yield stmt.test, True, since
        elif isinstance(stmt, ast.If):
            if stmt.orelse and exits(stmt.orelse):
                yield stmt.test, True, since
            link = stmt
            while exits(link.body):
                yield link.test, False, since
                if len(link.orelse) != 1 or not isinstance(link.orelse[0], ast.If):
                    break
                link = link.orelse[0]


def _conditions(node: ast.AST, fn: FunctionFacts) -> Iterator[Tuple[ast.expr, bool, Sequence[ast.stmt]]]:
    """(test, outcome, since) known whenever ``node`` (in ``fn``'s own scope) runs."""
    child = node
    for parent in _ancestors(node, fn.parents):
        if isinstance(parent, ast.IfExp) and child is not parent.test:
            yield parent.test, child is parent.body, ()
        elif isinstance(parent, (ast.stmt, ast.ExceptHandler, ast.match_case)):
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(parent, field_name, None)
                index = next((i for i, s in enumerate(block) if s is child), None) if isinstance(block, list) else None
                if index is None:
                    continue
                if isinstance(parent, ast.If):
                    yield parent.test, field_name == "body", block[: index + 1]
                yield from _block_conditions(block, index)
                break
        child = parent


def _rebinds_anywhere(fn: FunctionFacts, name: str) -> bool:
    """Whether ``fn`` assigns its parameter ``name`` anywhere (then its value is not the argument)."""
    return name in fn.bindings


def _rebinds(name: str, stmts: Sequence[ast.stmt]) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        for stmt in stmts for n in ast.walk(stmt)
    )


def _narrowed_not_none(node: ast.AST, name: str, fn: FunctionFacts) -> bool:
    """Local ``name`` is certainly not None where ``node`` runs: a test on it has been passed."""
    return any(
        _says(test, name, outcome) in _NOT_NONE and not _rebinds(name, since)
        for test, outcome, since in _conditions(node, fn)
    )


def _ruled_out(node: ast.AST, fn: FunctionFacts, bound: FrozenSet[str]) -> bool:
    """``node`` runs only when a ``bound`` parameter (passed a truthy value, never rebound) is falsy."""
    return any(_says(test, p, outcome) in _FALSY for test, outcome, _ in _conditions(node, fn) for p in bound)


def _end_ruled_out(facts: FunctionFacts, bound: FrozenSet[str]) -> bool:
    """Falling off the end of ``facts`` needs a ``bound`` parameter falsy (``if error: return ...``)."""
    if not bound or not isinstance(facts.node, _FUNCTION_NODES):
        return False
    body = facts.node.body
    return any(_says(t, p, outcome) in _FALSY for t, outcome, _ in _block_conditions(body, len(body)) for p in bound)


def _truthy_arguments(call: ast.AST, facts: FunctionFacts) -> FrozenSet[str]:
    """Parameters of ``facts`` that ``call`` passes a certainly truthy value and that it never rebinds."""
    if not isinstance(call, ast.Call) or not isinstance(facts.node, _FUNCTION_NODES):
        return frozenset()
    params = facts.node.args
    positional = [a.arg for a in params.posonlyargs + params.args]
    names = set()
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) or index >= len(positional):
            break
        if _certainly_truthy(arg):
            names.add(positional[index])
    by_keyword = set(positional[len(params.posonlyargs):]) | {a.arg for a in params.kwonlyargs}
    names.update(kw.arg for kw in call.keywords if kw.arg in by_keyword and _certainly_truthy(kw.value))
    return frozenset(n for n in names if n not in facts.bindings)


def _certainly_truthy(expr: ast.AST) -> bool:
    """A non-empty literal: ``"x"``, ``1``, ``f"failed: {e}"``, ``[a]``, ``{"k": v}``."""
    if isinstance(expr, ast.Constant):
        return bool(expr.value)
    if isinstance(expr, ast.JoinedStr):
        return any(isinstance(v, ast.Constant) and v.value for v in expr.values)
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return any(not isinstance(e, ast.Starred) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(k is not None for k in expr.keys)
    return False


# --- one function ---------------------------------------------------------------------------


def _scope_walk(node: ast.AST) -> List[Tuple[ast.AST, ast.AST]]:
    """(child, parent) pairs in ``node``'s own scope; nested defs/lambdas/classes not entered.

    A list built in one loop (children in ``ast.iter_child_nodes`` order, without the leaves
    ``context.walk`` leaves out): the generator over ``iter_child_nodes`` it replaces was
    the largest single cost of analysing a handler.
    """
    pairs: List[Tuple[ast.AST, ast.AST]] = []
    append = pairs.append
    node_type = ast.AST
    todo = [node]
    fields_of = CHILD_FIELDS
    while todo:
        parent = todo.pop()
        for name in fields_of[parent.__class__]:
            value = getattr(parent, name, None)
            if isinstance(value, node_type):
                children = (value,)
            elif isinstance(value, list):
                children = value
            else:
                continue
            for child in children:
                if isinstance(child, node_type):
                    append((child, parent))
                    if child.__class__ not in _SCOPE_CLASSES:
                        todo.append(child)
    return pairs


# Node kinds are tested by exact class (``ast.parse`` makes no subclasses): a set lookup, where
# ``isinstance`` against a tuple tries every entry for each of the many nodes that match none.
_SCOPE_CLASSES = frozenset(_SCOPE_NODES)
_COMPREHENSION_CLASSES = frozenset(_COMPREHENSIONS)
_FUNCTION_CLASSES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})
_FACT_CLASSES = frozenset({ast.Return, ast.Raise, ast.Call})
_YIELD_CLASSES = frozenset({ast.Yield, ast.YieldFrom})
# Every node kind ``_bindings`` looks at; any other is skipped with one test.
_BINDING_CLASSES = frozenset({
    ast.Assign, ast.AnnAssign, ast.Name, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
    ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.ExceptHandler,
    ast.MatchAs, ast.MatchStar, ast.MatchMapping,
})


def _bindings(
    fn: ast.AST,
    binding_pairs: Optional[List[Tuple[ast.AST, ast.AST]]] = None,
    comprehensions: Sequence[ast.comprehension] = (),
) -> Dict[str, Optional[List[ast.expr]]]:
    """Local names: the values of their plain ``name = value`` assignments, or None if bound otherwise.

    ``binding_pairs``: the (child, parent) pairs of ``fn``'s scope whose child is of a
    ``_BINDING_CLASSES`` kind, in walk order, with the scope's ``comprehensions``, when the
    caller has them (``_analyse_function`` sorts its one walk once); else ``fn`` is walked.
    """
    result: Dict[str, Optional[List[ast.expr]]] = {}

    def other(name: str) -> None:
        result[name] = None

    if binding_pairs is None:
        pairs = _scope_walk(fn)
        binding_pairs = [pair for pair in pairs if pair[0].__class__ in _BINDING_CLASSES]
        comprehensions = [child for child, _ in pairs if child.__class__ is ast.comprehension]
    # Comprehension targets live in the comprehension's own scope.
    hidden = {id(n) for child in comprehensions for n in ast.walk(child.target)}
    for child, parent in binding_pairs:
        if hidden and id(child) in hidden:
            continue
        if isinstance(child, ast.Assign) or (isinstance(child, ast.AnnAssign) and child.value is not None):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    if result.get(target.id, []) is not None:
                        result.setdefault(target.id, []).append(child.value)
        elif isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            if not (isinstance(parent, (ast.Assign, ast.AnnAssign)) and child in _targets(parent)):
                other(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            for alias in child.names:
                other((alias.asname or alias.name).split(".")[0])
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            for name in child.names:
                other(name)
        elif isinstance(child, ast.ExceptHandler) and child.name:
            other(child.name)
        elif isinstance(child, (ast.MatchAs, ast.MatchStar)) and child.name:
            other(child.name)
        elif isinstance(child, ast.MatchMapping) and child.rest:
            other(child.rest)
    return result


def _params(fn: ast.AST) -> Set[str]:
    args = fn.args
    every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _targets(stmt: ast.AST) -> List[ast.AST]:
    return stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]


def _analyse_function(node: ast.AST, name: str, analyzer: HandlerAnalyzer) -> FunctionFacts:
    pairs = _scope_walk(node)  # one walk (a fresh list), shared by everything below
    # One pass sorts out what the rest looks at: parents, and the few kinds of node tested.
    parents: Dict[int, ast.AST] = {}
    binding_pairs: List[Tuple[ast.AST, ast.AST]] = []
    fact_nodes: List[ast.AST] = []
    comprehensions: List[ast.comprehension] = []
    has_yield = False
    binding_kinds, fact_kinds, yield_kinds = _BINDING_CLASSES, _FACT_CLASSES, _YIELD_CLASSES
    for pair in pairs:
        child = pair[0]
        parents[id(child)] = pair[1]
        cls = child.__class__
        if cls in binding_kinds:
            binding_pairs.append(pair)
        elif cls in fact_kinds:
            fact_nodes.append(child)
        elif cls is ast.comprehension:
            comprehensions.append(child)
        elif cls in yield_kinds:
            has_yield = True
    is_lambda = isinstance(node, ast.Lambda)
    facts = FunctionFacts(
        name=name,
        node=node,
        is_async=isinstance(node, ast.AsyncFunctionDef),
        decorated=bool(getattr(node, "decorator_list", None)),
        is_generator=has_yield,
        returns=[],
        falls_off_line=None,
        uncaught_raises=[],
        event_loop_calls=[],
        called_functions=[],
        params=_params(node),
        bindings=_bindings(node, binding_pairs, comprehensions),
        pairs=pairs,
        parents=parents,
    )
    if is_lambda:
        facts.returns.append(ReturnFact(node.body, node.body, False, ()))
    else:
        if _completes(node.body, analyzer, facts):
            facts.falls_off_line = node.body[-1].end_lineno or node.body[-1].lineno
    for child in fact_nodes:
        if isinstance(child, ast.Return) and not is_lambda:
            handlers = [p for p in _ancestors(child, parents) if isinstance(p, ast.ExceptHandler)]
            names = tuple(h.name for h in handlers if h.name)
            facts.returns.append(ReturnFact(child, child.value, bool(handlers), names))
        elif isinstance(child, ast.Raise) and not _certainly_caught(child, parents):
            facts.uncaught_raises.append(child)
        elif isinstance(child, ast.Call):
            loop = _event_loop_call(child, analyzer, facts) if analyzer.mentions_event_loops else None
            if loop:
                facts.event_loop_calls.append((child, loop))
            callee = analyzer.is_module_call(child, facts)
            if callee and callee not in facts.called_functions:
                facts.called_functions.append(callee)
    return facts


def _ancestors(node: ast.AST, parents: Dict[int, ast.AST]) -> Iterator[ast.AST]:
    while id(node) in parents:
        node = parents[id(node)]
        yield node


# --- raises ---------------------------------------------------------------------------------


def _certainly_caught(raise_node: ast.Raise, parents: Dict[int, ast.AST]) -> bool:
    """True unless no enclosing ``try`` body of the function can catch it (unsure counts as caught)."""
    raised = _raised_name(raise_node)
    child: ast.AST = raise_node
    for parent in _ancestors(raise_node, parents):
        if isinstance(parent, _TRY_NODES) and any(child is s for s in parent.body):
            for handler in parent.handlers:
                if _handler_may_catch(handler, raised):
                    return True
        if isinstance(parent, (ast.With, ast.AsyncWith)) and any(
            _SWALLOWING_CM.search(ast.unparse(item.context_expr)) for item in parent.items
        ):
            return True
        child = parent
    return False


def _raised_name(node: ast.Raise) -> Optional[str]:
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    return exc.id if isinstance(exc, ast.Name) else None


def _handler_may_catch(handler: ast.ExceptHandler, raised: Optional[str]) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for t in types:
        if not isinstance(t, ast.Name) or t.id in ("Exception", "BaseException"):
            return True
        if raised is None or raised == t.id:
            return True
        caught, thrown = _BUILTIN_EXCEPTIONS.get(t.id), _BUILTIN_EXCEPTIONS.get(raised)
        if caught is None or thrown is None or issubclass(thrown, caught):
            return True  # a class of this or another module: it may be a subclass
    return False


def raise_description(node: ast.Raise) -> str:
    if node.exc is None:
        return "re-raises the exception"
    name = _raised_name(node)
    return f"raises `{name}`" if name else f"raises `{ast.unparse(node.exc)}`"


# --- reachability ---------------------------------------------------------------------------


def _completes(stmts: Sequence[ast.stmt], analyzer: HandlerAnalyzer, fn: FunctionFacts) -> bool:
    """True only when the end of ``stmts`` is certainly reachable (when unsure: False)."""
    return all(_stmt_completes(s, analyzer, fn) for s in stmts)


def _stmt_completes(stmt: ast.stmt, analyzer: HandlerAnalyzer, fn: FunctionFacts) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return False
    if isinstance(stmt, ast.Expr):
        awaited = isinstance(stmt.value, ast.Await)
        value = stmt.value.value if awaited else stmt.value
        return not isinstance(value, ast.Call) or _call_returns(value, analyzer, fn, awaited)
    if isinstance(stmt, ast.Assert):
        return not (isinstance(stmt.test, ast.Constant) and not stmt.test.value)
    if isinstance(stmt, ast.If):
        test = _constant_truth(stmt.test)
        if test is True:
            return _completes(stmt.body, analyzer, fn)
        if test is False:
            return _completes(stmt.orelse, analyzer, fn)
        return _completes(stmt.body, analyzer, fn) or _completes(stmt.orelse, analyzer, fn)
    if isinstance(stmt, (ast.While, ast.For, ast.AsyncFor)):
        if _has_break(stmt.body):
            return True
        if isinstance(stmt, ast.While) and _constant_truth(stmt.test) is True:
            return False
        # A loop whose body can leave the function (a retry loop returning on its last attempt)
        # may never end normally; only a loop that cannot leave certainly gets past its end.
        leaves = any(isinstance(n, (ast.Return, ast.Raise)) for s in stmt.body for n, _ in _scope_walk(s))
        leaves = leaves or any(isinstance(s, (ast.Return, ast.Raise)) for s in stmt.body)
        return not leaves and _completes(stmt.orelse, analyzer, fn)
    if isinstance(stmt, _TRY_NODES):
        if stmt.finalbody and not _completes(stmt.finalbody, analyzer, fn):
            return False
        if _completes(stmt.body, analyzer, fn) and _completes(stmt.orelse, analyzer, fn):
            return True
        may_raise = any(isinstance(n, (ast.Call, ast.Subscript, ast.Attribute, ast.Raise, ast.Await, ast.BinOp))
                        for s in stmt.body for n in ast.walk(s))
        return may_raise and any(_completes(h.body, analyzer, fn) for h in stmt.handlers)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return _completes(stmt.body, analyzer, fn)
    if isinstance(stmt, ast.Match):
        irrefutable = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
                          for c in stmt.cases)
        return not irrefutable or any(_completes(c.body, analyzer, fn) for c in stmt.cases)
    return True  # assignments, imports, defs, pass, ...


def _call_returns(call: ast.Call, analyzer: HandlerAnalyzer, fn: FunctionFacts, awaited: bool = False) -> bool:
    """True when the call certainly returns (a call that may never return makes the rest unsure)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and analyzer.imports.get(func.value.id) in ("sys", "os"):
            return func.attr not in ("exit", "_exit", "abort", "execv", "execvp", "execl")
        return not _NO_RETURN_METHODS.match(func.attr)
    if isinstance(func, ast.Name):
        if analyzer.is_builtin(func, fn, _RETURNING_BUILTINS):
            return True
        callee = analyzer.is_module_call(call, fn)
        if callee is not None:
            facts = analyzer.followable(callee)
            if facts is None:
                return False
            if facts.is_generator or (facts.is_async and not awaited):
                return True  # the call only creates the generator / coroutine
            # It returns if it has a return statement or can fall off its end.
            return bool(facts.returns) or facts.falls_off_line is not None
    return False


def _constant_truth(node: ast.AST) -> Optional[bool]:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    return None


def _has_break(stmts: Sequence[ast.stmt]) -> bool:
    """A ``break`` of this loop (not of a nested one)."""
    todo = list(stmts)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.Break):
            return True
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(stmt.orelse)
            continue
        if isinstance(stmt, _SCOPE_NODES):
            continue
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                todo.append(child)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                todo.extend(child.body)
    return False


# --- event loops ----------------------------------------------------------------------------


def _event_loop_call(call: ast.Call, analyzer: HandlerAnalyzer, fn: FunctionFacts) -> Optional[str]:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("run_until_complete", "run_forever"):
        return f"{ast.unparse(func)}(...)"
    for target in ("asyncio.run", "asyncio.new_event_loop", "asyncio.Runner"):
        if analyzer.is_import(func, fn, target):
            return f"{ast.unparse(func)}(...)"
    return None


# --- args uses ------------------------------------------------------------------------------


def _uses_of(fn: FunctionFacts, param: str) -> Iterator[Tuple[ast.Name, ast.AST, Optional[ast.AST]]]:
    """Every load of ``param`` in ``fn`` and in its closures that do not shadow it.

    Yields (name node, parent, grandparent). Reuses the function's own walk; only nested
    functions that see ``param`` (rare) are walked again.
    """
    shadowing = [
        child for child, _ in fn.pairs
        if child.__class__ in _COMPREHENSION_CLASSES
        and any(isinstance(n, ast.Name) and n.id == param for g in child.generators for n in ast.walk(g.target))
    ]
    name_class = ast.Name
    for child, parent in fn.pairs:
        cls = child.__class__
        if cls is name_class:
            if child.id == param and isinstance(child.ctx, ast.Load):
                if shadowing and any(a in shadowing for a in _ancestors(child, fn.parents)):
                    continue  # ``[args for args in ...]``: another variable
                yield child, parent, fn.parents.get(id(parent))
        elif cls in _FUNCTION_CLASSES:
            if param not in _params(child) and param not in _bindings(child):
                yield from _closure_uses(child, param)


def _closure_uses(node: ast.AST, param: str) -> Iterator[Tuple[ast.Name, ast.AST, Optional[ast.AST]]]:
    """Loads of ``param`` in a nested function (a closure over the handler's ``args``)."""
    parents: Dict[int, ast.AST] = {}
    todo = [node]
    while todo:
        parent = todo.pop()
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if param in _params(child) or param in _bindings(child):
                    continue  # a nested function with its own ``args``
            if isinstance(child, _COMPREHENSIONS) and any(
                isinstance(n, ast.Name) and n.id == param for g in child.generators for n in ast.walk(g.target)
            ):
                continue
            if isinstance(child, ast.Name) and child.id == param and isinstance(child.ctx, ast.Load):
                yield child, parent, parents.get(id(parent))
            todo.append(child)


# --- error shapes (HRM103) ------------------------------------------------------------------

_OTHER_ERROR_KEYS = ("error_message", "error_msg", "errmsg", "errorMessage", "err")
_FAILURE_FLAGS = {"success": False, "ok": False, "status": "error"}
# Keys that may stand beside ``err`` in an error payload. ``err`` next to anything else is often
# a command's stderr in a successful result (``{"out": ..., "err": ..., "code": 0}``).
_STATUS_KEYS = frozenset({"err", "success", "ok", "status", "details", "detail", "hint", "type", "error_type"})


def error_shape(ret: ReturnFact, analyzer: HandlerAnalyzer, fn: FunctionFacts) -> Optional[Tuple[ast.AST, str]]:
    """(node, how) when ``ret`` returns an error in another shape than ``{"error": ...}``.

    ``how`` completes "returns an error ...": "under `err`; ...", "as a plain string (...); ...".
    """
    value = ret.value
    if value is None:
        return None
    text = _leading_text(value)
    if text is not None and _ERROR_STRING.match(text):
        shown = text.strip()[:30]
        return value, (f"as a plain string (`{shown}...`); return `{{\"error\": ...}}` "
                       "as JSON (e.g. `tool_error(...)`)")
    payload = _returned_dict(value, analyzer, fn)
    if payload is None:
        return None
    keys = {k.value: k for k in payload.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if "error" in keys:
        return None
    for key in _OTHER_ERROR_KEYS:
        if key in keys and (key != "err" or set(keys) <= _STATUS_KEYS):
            return keys[key], (
                f"under `{key}`; the runtime and the model expect `{{\"error\": ...}}` (e.g. `tool_error(...)`)"
            )
    if ret.in_except and "message" in keys and _looks_like_failure(payload, keys, ret.except_names):
        return keys["message"], ("under `message` in an `except` block; return "
                                 "`{\"error\": ...}` (e.g. `tool_error(...)`)")
    flag = _failure_flag(payload, keys) if ret.in_except else None
    if flag is not None:
        return keys[flag], (f"flagged only by `{flag}: {_FAILURE_TEXT[flag]}` in an `except` block, "
                            "with no `error` key; return `{\"error\": ...}` (e.g. `tool_error(...)`)")
    return None


def _leading_text(value: ast.AST) -> Optional[str]:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, ast.JoinedStr) and value.values and isinstance(value.values[0], ast.Constant):
        return str(value.values[0].value)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "format":
        return _leading_text(value.func.value)
    return None


def _returned_dict(value: ast.AST, analyzer: HandlerAnalyzer, fn: FunctionFacts) -> Optional[ast.Dict]:
    if isinstance(value, ast.Dict):
        return value
    if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Dict):
        func = value.func
        if analyzer.is_import(func, fn, "json.dumps") or analyzer.is_registry_helper(func, fn, "tool_result"):
            return value.args[0]
    return None


_FAILURE_TEXT = {"success": "False", "ok": "False", "status": '"error"'}


def _failure_flag(payload: ast.Dict, keys: Dict[str, ast.AST]) -> Optional[str]:
    """The key of a literal failure flag (``"status": "error"``, ``"success": False``...), if any."""
    for key, expected in _FAILURE_FLAGS.items():
        if key in keys:
            value = payload.values[payload.keys.index(keys[key])]
            if isinstance(value, ast.Constant) and type(value.value) is type(expected) and value.value == expected:
                return key
    return None


def _looks_like_failure(payload: ast.Dict, keys: Dict[str, ast.AST], except_names: Tuple[str, ...]) -> bool:
    """A ``message`` that reports the caught exception, or a payload flagged as a failure."""
    if _failure_flag(payload, keys) is not None:
        return True
    message = payload.values[payload.keys.index(keys["message"])]
    return any(isinstance(n, ast.Name) and n.id in except_names for n in ast.walk(message))
