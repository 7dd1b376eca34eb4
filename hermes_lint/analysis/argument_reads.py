"""The constant keys a handler reads from ``args``, and whether every use of ``args`` is visible.

Reads are ``args.get("k")``, ``args["k"]``, ``"k" in args``, ``args.pop``/``setdefault`` with a
constant key (a literal, a module constant, or a parameter given a constant at the followed
call), in the function, its closures, and the module functions ``args`` is passed to whole.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from hermes_lint.model.semantic import CALL_DEPTH
from hermes_lint.analysis.functions import FunctionFacts, ModuleFunctions
from hermes_lint.model.scopes import COMPREHENSION_CLASSES, COMPREHENSIONS, FUNCTION_CLASSES, ancestors, bindings, parameter_names

_LOOKING_BUILTINS = frozenset({"isinstance", "len", "bool", "type"})  # look at args, read no key


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


class ArgumentReads(ModuleFunctions):
    """Reads of a handler's ``args`` (a part of ``HandlerAnalyzer``)."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._keys: Dict[str, str] = {}

    def args_use(self, fn: FunctionFacts, param: Optional[str], depth: int,
                 stack: Tuple[Tuple[str, str], ...], use: ArgsUse, keys: Optional[Dict[str, str]] = None) -> None:
        """Collect the reads of ``param`` (``fn``'s parameter holding ``args``) into ``use``.

        ``keys``: ``fn``'s other parameters whose value is a constant string at the one call
        being followed (``_bool_arg(args, "archived")`` reads ``args.get(name)``)."""
        self._keys = keys or {}
        if param is None:
            use.all_visible = False
            return
        # ``bindings[param]`` is None when ``param`` is bound some other way than ``param = value``.
        assigned: Sequence[Optional[ast.expr]] = (fn.bindings[param] or [None]) if param in fn.bindings else []
        if param in fn.bindings and not all(_is_or_empty_dict(v, param) for v in assigned):
            # ``args`` rebound (``args = args["inner"]``): later reads are of something else.
            use.all_visible = False
            return
        keys = self._keys
        for name_node, parent, grand in _uses_of(fn, param):
            self._keys = keys
            if not self._visible_use(name_node, parent, grand, fn, depth, stack, use):
                use.all_visible = False

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
        key = self._constant_string(key_node, fn)
        if key is None:
            return False
        use.reads.append(ArgRead(key, at, fn.name, _or_alternates(at, fn), membership))
        return True

    def _follow_args(self, call, position, keyword, fn, depth, stack, use) -> bool:
        callee = self.is_module_call(call, fn)
        facts = self.followable(callee) if callee else None
        if facts is None or depth >= CALL_DEPTH:
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
            value = self._constant_string(node, caller)
            if value is not None:
                found[name] = value
        return found

    def _constant_string(self, node: ast.AST, fn: FunctionFacts) -> Optional[str]:
        """The string ``node`` certainly is inside ``fn``: a literal, a parameter given a
        constant by the caller being followed (``self._keys``) and never rebound, or a module
        constant (``KEY = "city"``); else None."""
        value = None
        if isinstance(node, ast.Constant):
            value = node.value
        elif isinstance(node, ast.Name) and node.id in self._keys and not _rebinds_anywhere(fn, node.id):
            value = self._keys[node.id]
        elif isinstance(node, ast.Name) and not fn.is_local(node.id):
            try:
                value = self.ctx.evaluator.evaluate(node)
            except Exception:  # the evaluator is best effort; a value it cannot give is unknown
                value = None
        return value if isinstance(value, str) else None


def _rebinds_anywhere(fn: FunctionFacts, name: str) -> bool:
    """Whether ``fn`` assigns its parameter ``name`` anywhere (then its value is not the argument)."""
    return name in fn.bindings


def constant_read(node: ast.AST) -> Optional[Tuple[str, str]]:
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
    this = constant_read(read)
    if this is None or not (isinstance(chain, ast.BoolOp) and isinstance(chain.op, ast.Or)):
        return ()
    others = (constant_read(v) for v in chain.values if v is not read)
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


def _is_or_empty_dict(node: Optional[ast.AST], name: str) -> bool:
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


def _uses_of(fn: FunctionFacts, param: str) -> Iterator[Tuple[ast.Name, ast.AST, Optional[ast.AST]]]:
    """Every load of ``param`` in ``fn`` and in its closures that do not shadow it.

    Yields (name node, parent, grandparent). Reuses the function's own walk; only nested
    functions that see ``param`` (rare) are walked again.
    """
    shadowing = [
        child for child, _ in fn.pairs
        if child.__class__ in COMPREHENSION_CLASSES
        and any(isinstance(n, ast.Name) and n.id == param for g in child.generators for n in ast.walk(g.target))  # type: ignore[attr-defined]  # a comprehension, by class
    ]
    name_class = ast.Name
    for child, parent in fn.pairs:
        cls = child.__class__
        if cls is name_class:
            name_node: ast.Name = child  # type: ignore[assignment]  # class tested by identity
            if name_node.id == param and isinstance(name_node.ctx, ast.Load):
                if shadowing and any(a in shadowing for a in ancestors(name_node, fn.parents)):
                    continue  # ``[args for args in ...]``: another variable
                yield name_node, parent, fn.parents.get(id(parent))
        elif cls in FUNCTION_CLASSES:
            if param not in parameter_names(child) and param not in bindings(child):  # type: ignore[arg-type]  # a function, by class
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
                if param in parameter_names(child) or param in bindings(child):
                    continue  # a nested function with its own ``args``
            if isinstance(child, COMPREHENSIONS) and any(
                isinstance(n, ast.Name) and n.id == param for g in child.generators for n in ast.walk(g.target)
            ):
                continue
            if isinstance(child, ast.Name) and child.id == param and isinstance(child.ctx, ast.Load):
                yield child, parent, parents.get(id(parent))
            todo.append(child)
