"""The abstract interpreter behind the environment requirements: one run of a function with one
variable unset and every other unknown.

The unset variable reads as ``None`` (or the ``getenv`` default), any other as "unset or a
non-empty string", and anything the interpreter cannot follow is "unknown", which never proves
anything. A run yields each path's outcome (``return`` with its abstract value, or ``raise``);
``env_requirements`` asks which variables make every outcome fail.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from hermes_lint.model.context import ModuleContext, walk
from hermes_lint.model.semantic import CALL_DEPTH, CallableNode
from hermes_lint.model.env_access import EnvAccessIndex
from hermes_lint.model.env_calls import CallEntry, CallMemo, call_key
from hermes_lint.model.env_values import COMPARE, ERROR, FALSY, SET, TRUTHY, UNKNOWN, concrete, join, truth
from hermes_lint.model import Location, Unresolved

_STR_METHODS = frozenset(
    {"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "startswith", "endswith", "split", "title"}
)
MAX_PATHS = 64
MAX_STEPS = 4000
MAX_UNROLL = 32


class GiveUp(Exception):
    """The interpreter cannot follow this code."""


class _Raise(Exception):
    """This path certainly raises."""


class _Frame:
    def __init__(self, local_names: FrozenSet[str]):
        self.local_names = local_names


class EnvRun:
    """One abstract execution of a check with ``unset`` unset and every other variable unknown."""

    def __init__(self, ctx: ModuleContext, env: EnvAccessIndex, unset: Optional[str], handler: bool = False,
                 memo: Optional[CallMemo] = None):
        """``handler``: the run is of a handler, whose ``async def`` body is the result the
        registry awaits (a check's coroutine object would be truthy, whatever its body says).
        ``memo``: the calls of module functions remembered by the module's earlier runs."""
        self.ctx = ctx
        self.handler = handler
        self.env = env
        self.unset = unset
        self.memo = memo
        self.reads: Dict[str, Location] = {}
        self._read_at: Dict[str, int] = {}  # the step count of each variable's first read
        self.steps = 0

    # --- functions ---------------------------------------------------------------------

    def outcomes(
        self, fn: CallableNode, args: List[Any], kwargs: Dict[str, Any], depth: int
    ) -> List[Tuple[str, Any]]:
        frame = _Frame(self.ctx.semantic.local_names(fn))
        state: Dict[str, Any] = {}
        spec = fn.args
        positional = spec.posonlyargs + spec.args
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        for position, (arg, default) in enumerate(zip(positional, defaults)):
            if position < len(args):
                state[arg.arg] = args[position]
            elif arg.arg in kwargs:
                state[arg.arg] = kwargs[arg.arg]
            else:
                state[arg.arg] = self.expr(default, {}, frame, depth) if default is not None else UNKNOWN
        for arg, default in zip(spec.kwonlyargs, spec.kw_defaults):
            value = kwargs.get(arg.arg, UNKNOWN)
            if arg.arg not in kwargs and default is not None:
                value = self.expr(default, {}, frame, depth)
            state[arg.arg] = value
        for extra in (spec.vararg, spec.kwarg):
            if extra is not None:
                state[extra.arg] = UNKNOWN
        if isinstance(fn, ast.Lambda):
            try:
                return [("return", self.expr(fn.body, state, frame, depth))]
            except _Raise:
                return [("raise", None)]
        if (isinstance(fn, ast.AsyncFunctionDef) and not (self.handler and depth == 0)) or fn.decorator_list:
            raise GiveUp()  # a coroutine object or a wrapper, not the body's value
        results = []
        for kind, value, _ in self.block(fn.body, state, frame, depth):
            results.append(("return", None) if kind == "next" else (kind, value))
        return results

    def call(self, fn: CallableNode, args: List[Any], kwargs: Dict[str, Any], depth: int) -> Any:
        if depth >= CALL_DEPTH:
            return UNKNOWN
        key = call_key(fn, args, kwargs, depth) if self.memo is not None else None
        entry = self.memo.find(key, self.unset) if self.memo is not None and key is not None else None
        if entry is None:
            entry = self._run_call(fn, args, kwargs, depth)
            if self.memo is not None and key is not None:
                self.memo.add(key, entry)
        else:
            self._replay(entry)
        if entry.raises:
            raise _Raise()
        return entry.value

    def _run_call(self, fn: CallableNode, args: List[Any], kwargs: Dict[str, Any], depth: int) -> CallEntry:
        """The call run, with what it read and its steps (``env_calls``); a give-up propagates
        with the reads made before it."""
        outer, outer_at, start = self.reads, self._read_at, self.steps
        self.reads, self._read_at = {}, {}
        try:
            results = self.outcomes(fn, args, kwargs, depth + 1)
        finally:
            inner, inner_at = self.reads, self._read_at
            self.reads, self._read_at = outer, outer_at
            for name, where in inner.items():
                self._record(name, where, inner_at[name])
        reads = tuple((name, where, inner_at[name] - start) for name, where in inner.items())
        raises = all(kind == "raise" for kind, _ in results)
        if raises or any(kind == "raise" for kind, _ in results):
            value: Any = UNKNOWN
        else:
            value = join(value for _, value in results)
        return CallEntry(self.unset, frozenset(inner), reads, self.steps - start, raises, value)

    def _replay(self, entry: CallEntry) -> None:
        start = self.steps
        for name, where, after in entry.reads:
            if start + after > MAX_STEPS:
                break  # read after the step that gives up
            self._record(name, where, start + after)
        self.steps = start + entry.steps
        if self.steps > MAX_STEPS:
            raise GiveUp()

    def _record(self, name: str, where: Location, steps: int) -> None:
        if name not in self.reads:
            self.reads[name] = where
            self._read_at[name] = steps

    # --- statements --------------------------------------------------------------------

    def block(self, stmts: List[ast.stmt], state: Dict[str, Any], frame: _Frame, depth: int):
        paths = [state]
        finished: List[Tuple[str, Any, Dict[str, Any]]] = []
        for stmt in stmts:
            following = []
            for current in paths:
                for kind, value, after in self.stmt(stmt, current, frame, depth):
                    if kind == "next":
                        following.append(after)
                    else:
                        finished.append((kind, value, after))
            paths = following
            if len(paths) + len(finished) > MAX_PATHS:
                raise GiveUp()
            if not paths:
                break
        return finished + [("next", None, s) for s in paths]

    def stmt(self, stmt: ast.stmt, state: Dict[str, Any], frame: _Frame, depth: int):
        self._step()
        state = dict(state)
        try:
            if isinstance(stmt, ast.Expr):
                self.expr(stmt.value, state, frame, depth)
                return [("next", None, state)]
            if isinstance(stmt, ast.Pass):
                return [("next", None, state)]
            if isinstance(stmt, ast.Return):
                value = self.expr(stmt.value, state, frame, depth) if stmt.value is not None else None
                return [("return", value, state)]
            if isinstance(stmt, ast.Raise):
                return [("raise", None, state)]
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                if stmt.value is None:
                    return [("next", None, state)]
                value = self.expr(stmt.value, state, frame, depth)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    self._bind(target, value, state, frame, depth)
                return [("next", None, state)]
            if isinstance(stmt, ast.AugAssign):
                self.expr(stmt.value, state, frame, depth)
                self._bind(stmt.target, UNKNOWN, state, frame, depth)
                return [("next", None, state)]
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    state[(alias.asname or alias.name).split(".")[0]] = UNKNOWN
                return [("next", None, state)]
            if isinstance(stmt, ast.If):
                test = truth(self.expr(stmt.test, state, frame, depth))
                results = []
                if test is not False:
                    results += self.block(stmt.body, dict(state), frame, depth)
                if test is not True:
                    results += self.block(stmt.orelse, dict(state), frame, depth)
                return results
            if isinstance(stmt, ast.Assert):
                test = truth(self.expr(stmt.test, state, frame, depth))
                results = [] if test is True else [("raise", None, state)]
                return results + ([] if test is False else [("next", None, state)])
            if isinstance(stmt, ast.Try):
                return self._try(stmt, state, frame, depth)
            if isinstance(stmt, ast.For):
                return self._for(stmt, state, frame, depth)
        except _Raise:
            return [("raise", None, state)]
        raise GiveUp()

    def _try(self, stmt: ast.Try, state, frame, depth):
        if stmt.finalbody:
            raise GiveUp()
        results = []
        for kind, value, after in self.block(stmt.body, dict(state), frame, depth):
            if kind == "next":
                results += self.block(stmt.orelse, after, frame, depth)
            else:
                results.append((kind, value, after))
        # A handler may run after any statement of the body: what the body assigns is unknown.
        assigned = {
            n.id
            for s in stmt.body
            for n in walk(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        for handler in stmt.handlers:
            entry = dict(state)
            entry.update({name: UNKNOWN for name in assigned})
            if handler.name:
                entry[handler.name] = UNKNOWN
            results += self.block(handler.body, entry, frame, depth)
        return results

    def _for(self, stmt: ast.For, state, frame, depth):
        items = self.expr(stmt.iter, state, frame, depth)
        if isinstance(items, dict):
            items = list(items)
        breaks = any(isinstance(n, (ast.Break, ast.Continue)) for s in stmt.body for n in walk(s))
        if not isinstance(items, (list, tuple, str)) or len(items) > MAX_UNROLL or breaks or stmt.orelse:
            raise GiveUp()
        paths, finished = [state], []
        for item in items:
            following = []
            for current in paths:
                current = dict(current)
                self._bind(stmt.target, item, current, frame, depth)
                for kind, value, after in self.block(stmt.body, current, frame, depth):
                    (following.append(after) if kind == "next" else finished.append((kind, value, after)))
            paths = following
            if len(paths) + len(finished) > MAX_PATHS:
                raise GiveUp()
        return finished + [("next", None, s) for s in paths]

    def _bind(self, target: ast.expr, value: Any, state, frame, depth) -> None:
        if isinstance(target, ast.Name):
            state[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            parts = value if isinstance(value, (tuple, list)) and len(value) == len(target.elts) else None
            for position, element in enumerate(target.elts):
                self._bind(element, parts[position] if parts is not None else UNKNOWN, state, frame, depth)
        # attribute and subscript targets change nothing the interpreter tracks

    def _step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise GiveUp()

    # --- expressions -------------------------------------------------------------------

    def expr(self, node: ast.expr, state: Dict[str, Any], frame: _Frame, depth: int) -> Any:
        self._step()
        access = self.env.access(node)
        if access is not None:
            return self._env(access, state, frame, depth)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in state:
                return state[node.id]
            if node.id in frame.local_names or node.id in self.ctx.semantic.functions:
                return UNKNOWN
            value = self.ctx.evaluator.evaluate(node)
            return UNKNOWN if isinstance(value, Unresolved) or not concrete(value) else value
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, state, frame, depth)
        if isinstance(node, ast.UnaryOp):
            value = self.expr(node.operand, state, frame, depth)
            if isinstance(node.op, ast.Not):
                t = truth(value)
                return UNKNOWN if t is None else not t
            return UNKNOWN
        if isinstance(node, ast.Compare):
            return self._compare(node, state, frame, depth)
        if isinstance(node, ast.IfExp):
            t = truth(self.expr(node.test, state, frame, depth))
            if t is not None:
                return self.expr(node.body if t else node.orelse, state, frame, depth)
            branches = (node.body, node.orelse)
            return join([self._maybe(branch, state, frame, depth) for branch in branches])
        if isinstance(node, ast.Call):
            return self._call(node, state, frame, depth)
        if isinstance(node, (ast.Tuple, ast.List)):
            values = [self.expr(e, state, frame, depth) for e in node.elts if not isinstance(e, ast.Starred)]
            if len(values) == len(node.elts) and all(concrete(v) for v in values):
                return tuple(values) if isinstance(node, ast.Tuple) else values
            return TRUTHY if node.elts else UNKNOWN
        if isinstance(node, ast.Attribute):
            self.expr(node.value, state, frame, depth)
            return UNKNOWN
        if isinstance(node, ast.Subscript):
            container = self.expr(node.value, state, frame, depth)
            key = self.expr(node.slice, state, frame, depth)
            if concrete(container) and concrete(key):
                try:
                    return container[key]
                except (KeyError, IndexError, TypeError):
                    return UNKNOWN
            return UNKNOWN
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    self.expr(part.value, state, frame, depth)
            literal = any(isinstance(p, ast.Constant) and p.value for p in node.values)
            return TRUTHY if literal else UNKNOWN
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value, state, frame, depth)
            state[node.target.id] = value
            return value
        return UNKNOWN  # lambdas, comprehensions, arithmetic...: not followed

    def _maybe(self, node, state, frame, depth) -> Any:
        """Evaluate code that runs only on some paths: a certain raise there is not certain."""
        try:
            return self.expr(node, state, frame, depth)
        except _Raise:
            return UNKNOWN

    def _env(self, access, state, frame, depth) -> Any:
        name = self.expr(access.name_node, state, frame, depth)
        if not isinstance(name, str):
            return UNKNOWN
        if name not in self.reads:
            self._record(name, self.ctx.loc(access.node), self.steps)
        if access.reader is not None:
            return self._reader(access, name, state, frame, depth)
        default = self.expr(access.default, state, frame, depth) if access.default is not None else None
        if name == self.unset:
            if access.kind == "subscript":
                raise _Raise()
            return access.negated if access.kind == "contains" else default
        # Any other variable may or may not be set. (Its KeyError path is left out: a raise is
        # falsy, and leaving out a falsy path never makes "every path is falsy" true wrongly.)
        if access.kind == "subscript":
            return SET
        return UNKNOWN if access.kind == "contains" else join([default, SET])

    def _reader(self, access, name: str, state, frame, depth) -> Any:
        """A call of an environment reader of the project, as its paths say (``EnvReader``)."""
        reader = access.reader
        nodes = reader.argument_nodes(access.node)
        arguments = {p: self.expr(node, state, frame, depth) for p, node in (nodes or {}).items()}
        if name != self.unset:
            return SET if reader.required else UNKNOWN
        if reader.required:
            raise _Raise()
        return reader.unset_value(arguments) if nodes is not None else UNKNOWN

    def _boolop(self, node: ast.BoolOp, state, frame, depth) -> Any:
        is_or = isinstance(node.op, ast.Or)
        doubtful = False  # an earlier operand of unknown truthiness may have decided the result
        value = None
        for operand in node.values:
            evaluate = self._maybe if doubtful else self.expr
            value = evaluate(operand, state, frame, depth)
            t = truth(value)
            if t is None:
                doubtful = True
            elif t is is_or:  # decides: truthy for `or`, falsy for `and`
                return value if not doubtful else (TRUTHY if is_or else FALSY)
        if not doubtful:
            return value
        t = truth(value)
        if is_or:
            return TRUTHY if t is True else UNKNOWN
        return FALSY if t is False else UNKNOWN

    def _compare(self, node: ast.Compare, state, frame, depth) -> Any:
        left = self.expr(node.left, state, frame, depth)
        rights = [self.expr(c, state, frame, depth) for c in node.comparators]
        if len(node.ops) != 1:
            return UNKNOWN
        op, right = node.ops[0], rights[0]
        if concrete(left) and concrete(right):
            try:
                return COMPARE[type(op)](left, right)
            except (TypeError, KeyError):
                return UNKNOWN
        if isinstance(op, (ast.Is, ast.IsNot)) and right is None:
            if truth(left) is True:  # a truthy value is never None
                return isinstance(op, ast.IsNot)
            return UNKNOWN
        if isinstance(op, (ast.Eq, ast.NotEq)) and left is SET and concrete(right):
            if not (isinstance(right, str) and right):
                return isinstance(op, ast.NotEq)
        return UNKNOWN

    def _call(self, node: ast.Call, state, frame, depth) -> Any:
        func = node.func
        if isinstance(func, ast.Name) and func.id not in state and func.id not in frame.local_names:
            functions = self.ctx.semantic.functions
            if func.id in functions:
                args = [
                    self.expr(a, state, frame, depth) for a in node.args if not isinstance(a, ast.Starred)
                ]
                kwargs = {k.arg: self.expr(k.value, state, frame, depth) for k in node.keywords if k.arg}
                if len(args) != len(node.args) or len(kwargs) != len(node.keywords):
                    return UNKNOWN
                return self.call(functions[func.id], args, kwargs, depth)
            if self.ctx.semantic.is_builtin(func.id) and not node.keywords:
                return self._builtin(func.id, node.args, state, frame, depth)
        if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS:
            receiver = self.expr(func.value, state, frame, depth)
            args = [self.expr(a, state, frame, depth) for a in node.args]
            if isinstance(receiver, str) and all(concrete(a) for a in args) and not node.keywords:
                try:
                    return getattr(receiver, func.attr)(*args)
                except (TypeError, ValueError):
                    return UNKNOWN
            if receiver is SET and func.attr in ("lower", "upper", "casefold", "title"):
                return SET
            return UNKNOWN
        if self._is_error_result(node):
            for arg in node.args:
                self.expr(arg.value if isinstance(arg, ast.Starred) else arg, state, frame, depth)
            return ERROR
        # Something the interpreter does not follow: its arguments still run first.
        if isinstance(func, ast.Attribute):
            self.expr(func.value, state, frame, depth)
        for arg in node.args:
            self.expr(arg.value if isinstance(arg, ast.Starred) else arg, state, frame, depth)
        for kw in node.keywords:
            self.expr(kw.value, state, frame, depth)
        return UNKNOWN

    def _is_error_result(self, node: ast.Call) -> bool:
        """``tool_error(...)`` of the registry, or ``json.dumps({"error": ...})``."""
        semantic = self.ctx.semantic
        if semantic.is_registry_helper(node.func, "tool_error"):
            return True
        if semantic.import_target(node.func) != "json.dumps" or not node.args or not isinstance(node.args[0], ast.Dict):
            return False
        return any(isinstance(key, ast.Constant) and key.value == "error" for key in node.args[0].keys)

    def _builtin(self, name: str, arg_nodes: List[ast.expr], state, frame, depth) -> Any:
        if name in ("all", "any") and len(arg_nodes) == 1:
            return self._all_any(name == "all", arg_nodes[0], state, frame, depth)
        args = [self.expr(a, state, frame, depth) for a in arg_nodes if not isinstance(a, ast.Starred)]
        if len(args) != len(arg_nodes):
            return UNKNOWN
        if name == "bool":
            t = truth(args[0]) if args else False
            return UNKNOWN if t is None else t
        if name == "str" and len(args) == 1:
            if args[0] is SET:
                return SET
            return str(args[0]) if concrete(args[0]) else UNKNOWN
        if name == "len" and len(args) == 1:
            if args[0] is SET:
                return TRUTHY
            return len(args[0]) if isinstance(args[0], (str, tuple, list, dict)) else UNKNOWN
        return UNKNOWN

    def _all_any(self, is_all: bool, arg: ast.expr, state, frame, depth) -> Any:
        if isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
            if len(arg.generators) != 1 or arg.generators[0].ifs or arg.generators[0].is_async:
                return UNKNOWN
            generator = arg.generators[0]
            items = self.expr(generator.iter, state, frame, depth)
            if isinstance(items, dict):
                items = list(items)
            if not isinstance(items, (list, tuple)) or len(items) > MAX_UNROLL:
                return UNKNOWN

            def elements():
                for item in items:
                    inner = dict(state)
                    self._bind(generator.target, item, inner, frame, depth)
                    yield arg.elt, inner
        elif isinstance(arg, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in arg.elts):
            def elements():
                for element in arg.elts:
                    yield element, state
        else:
            return UNKNOWN
        doubtful = False
        for element, inner in elements():
            evaluate = self._maybe if doubtful else self.expr
            t = truth(evaluate(element, inner, frame, depth))
            if t is None:
                doubtful = True
            elif t is not is_all:  # a falsy element decides all(); a truthy one decides any()
                return not is_all
        return UNKNOWN if doubtful else is_all
