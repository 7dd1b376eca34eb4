"""A small, bounded, safe static evaluator over one module's own AST.

Tool files build their schemas in code: constants, ``+`` and f-strings, ``**`` merges, helper
functions such as ``_build_schema("name", "desc", props)``, comprehensions over lists of literal
schemas. ``ModuleEvaluator`` computes those values from the syntax tree alone. It never calls
``eval``, never imports, never runs the analysed code: it interprets a small subset of Python over
plain values (str, int, float, bool, None, list, dict, tuple, set) and refuses everything else with
an ``Unresolved`` that says what stopped it and where.

Guarantees the rest of the toolkit relies on:

- *Never guessed.* A module constant is a name bound exactly once, by a top-level assignment,
  and never rebound or mutated at module level; anything else is refused. A helper function that
  would mutate a module constant's value is refused too (Python would change the constant).
- *Bounded.* Each public call gets ``step_budget`` node evaluations; an evaluator as a whole gets
  ``total_step_budget``; strings, lists, integers, format widths and call depth are capped. Large
  results are refused *before* they are built (``"x" * 10**9`` allocates nothing).
- *Deterministic.* Each constant is evaluated once, with a fresh budget, so a result never
  depends on the order of calls. Iterating a set of strings (its order varies between runs) is
  refused.
- *Located.* Every dict key and list item the evaluator builds remembers the node it came from;
  ``locations_of`` turns that into JSON paths and 1-based character columns.

Values handed out are shared: a module constant is computed once and the same object is
returned each time it is asked for. Callers must not mutate results (copy them first).
"""

from __future__ import annotations

import ast
import bisect
import builtins
import re
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

import _string  # the C helpers behind str.format's field parsing (standard library)

from .model import Location, Unresolved

__all__ = ["ModuleEvaluator", "split_source_lines", "BUDGET_EXCEEDED"]

MAX_STR_CHARS = 1_000_000  # longest string built during evaluation
MAX_ITEMS = 100_000  # longest list/dict/set built during evaluation
MAX_RESULT_ITEMS = 1_000_000  # items in a result counted through shared references
MAX_RESULT_CHARS = 10_000_000  # characters in a result counted through shared references
MAX_INT_BITS = 4_096  # larger integers are refused (and so is the work to build them)
MAX_FORMAT_WIDTH = 1_000  # widths and precisions in format specs
MAX_CALL_DEPTH = 8  # nested calls of module functions
TOTAL_BUDGET_FACTOR = 50  # default total_step_budget = step_budget * this
# Walking container contents in C (comparisons, copies, membership) is far cheaper than
# evaluating a node: this many visited items cost one step.
ITEMS_PER_STEP = 32
# Text produced in one go (str() of a container, a % format) may briefly exceed MAX_STR_CHARS
# before the result is checked; its computed upper bound may not exceed this.
_TRANSIENT_TEXT_CAP = 10 * MAX_STR_CHARS

BUDGET_EXCEEDED = "evaluation budget exceeded"

_NONE_TYPE = type(None)
_SCALAR_TYPES = (str, int, float, bool, _NONE_TYPE)
_NUMBER_TYPES = (int, float, bool)
_PLAIN_CONTAINERS = (list, tuple, dict, set, frozenset)
# Errors the analysed code itself would raise (missing key, bad types...): the value is then "this
# raises", which is unresolved. RecursionError is deliberately absent (see _run).
_PYTHON_ERRORS = (TypeError, ValueError, LookupError, ArithmeticError, RuntimeError)

_VIEW_TYPES = (type({}.keys()), type({}.values()), type({}.items()))
# Lazy iterables the supported builtins return; they only ever walk plain values.
_ITERATOR_TYPES = tuple(
    {
        type(zip()),
        type(enumerate(())),
        type(iter([])),
        type(iter(())),
        type(iter("")),
        type(iter(range(0))),
        type(reversed([])),
        type(reversed(())),
        type(reversed(range(0))),
        type(reversed({})),
        type(reversed({}.values())),
        type(reversed({}.items())),
        type(iter({})),
        type(iter({}.values())),
        type(iter({}.items())),
        type(iter(set())),
    }
)
_ITERABLE_TYPES = (list, tuple, str, dict, range, set, frozenset) + _VIEW_TYPES + _ITERATOR_TYPES

# Methods that change the object they are called on: seen at module level, they make the name they
# are called on a non-constant.
_MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
        "sort", "reverse", "add", "discard", "difference_update", "intersection_update",
        "symmetric_difference_update",
    }
)
# Module-level calls that can rebind any global name behind the analyser's back.
_NAMESPACE_CHANGERS = frozenset({"globals", "vars", "locals", "exec", "eval"})
_ENVIRONMENT = frozenset({"os.environ", "os.environb", "os.getenv", "os.getenvb", "os.putenv", "os.unsetenv"})

_STATEMENT_LISTS = ("body", "orelse", "finalbody")
# Statements whose nested statements run at module level too (def and class bodies do not).
_COMPOUND_STATEMENTS = frozenset(
    {ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match}
    | ({ast.TryStar} if hasattr(ast, "TryStar") else set())
)
_DIGIT_RUNS = re.compile(r"\d+")
_PERCENT_DIRECTIVE = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?[hlL]?(?P<kind>.?)",
    re.S,
)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_source_lines(source: str) -> List[str]:
    """Split ``source`` into lines exactly as Python's tokenizer numbers them.

    ``str.splitlines`` also breaks at form feeds, ``\\x1c``-``\\x1e``, ``\\x85`` and ``\\u2028``/
    ``\\u2029``, which Python does not; a description containing one would shift every later line.
    """
    return _LINE_BREAK.split(source)


# --------------------------------------------------------------------------------------------
# Internal values


class _Refusal(Exception):
    """Evaluation cannot go on; becomes an ``Unresolved`` at the public boundary."""

    def __init__(self, reason: str, node: Optional[ast.AST] = None):
        super().__init__(reason)
        self.reason = reason
        self.node = node
        self.function: Optional[str] = None  # innermost module function it happened in


class _FunctionRef:
    """A module-level ``def`` used as a value (callable; never a result)."""

    __slots__ = ("name", "node")

    def __init__(self, name: str, node: ast.FunctionDef):
        self.name = name
        self.node = node


class _BuiltinRef:
    """A supported builtin used as a value (callable; never a result)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class _Frame:
    """Local names of a function call or a comprehension.

    ``opaque`` frames stand for a function whose locals are unknown: an expression inside a
    handler body may use module constants but not the handler's own variables.
    """

    __slots__ = ("owner", "local_names", "values", "parent", "opaque")

    def __init__(self, owner, local_names, values, parent=None, opaque=False):
        self.owner = owner
        self.local_names = local_names
        self.values = values
        self.parent = parent
        self.opaque = opaque


class _Returned:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


_BREAK = object()
_CONTINUE = object()


class _Arguments:
    """Evaluated call arguments, with the nodes they came from (for locations)."""

    __slots__ = ("positional", "positional_nodes", "keywords", "keyword_nodes")

    def __init__(self, positional, positional_nodes, keywords, keyword_nodes):
        self.positional = positional
        self.positional_nodes = positional_nodes
        self.keywords = keywords
        self.keyword_nodes = keyword_nodes


def _type_name(value: Any) -> str:
    if isinstance(value, _FunctionRef):
        return f"function {value.name}"
    if isinstance(value, _BuiltinRef):
        return f"builtin {value.name}"
    return type(value).__name__


def _budget(node: Optional[ast.AST] = None) -> _Refusal:
    return _Refusal(BUDGET_EXCEEDED, node)


def _raises(error: BaseException) -> str:
    text = str(error)
    if len(text) > 120:
        text = text[:117] + "..."
    return f"evaluation raises {type(error).__name__}: {text}" if text else f"evaluation raises {type(error).__name__}"


def _start(node: ast.AST) -> Tuple[int, int]:
    return (node.lineno, node.col_offset)


def _end(node: ast.AST) -> Tuple[int, int]:
    return (node.end_lineno or node.lineno, node.end_col_offset or 0)


def _root_name(node: ast.AST) -> Optional[str]:
    """``X`` for ``X``, ``X.a``, ``X["k"].b``, ``X.get("k").append``; None otherwise."""
    while True:
        cls = node.__class__
        if cls is ast.Name:
            return node.id
        if cls is ast.Attribute or cls is ast.Subscript:
            node = node.value
        elif cls is ast.Call:
            node = node.func
        else:
            return None


def _dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts = []
    while node.__class__ is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if node.__class__ is not ast.Name:
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _path_from_root(node: ast.AST) -> str:
    """The attributes right after the root name: ``.environ`` for ``os.environ["X"].lower``."""
    attributes: List[str] = []
    while True:
        cls = node.__class__
        if cls is ast.Attribute:
            attributes.append(node.attr)
            node = node.value
        elif cls is ast.Subscript or cls is ast.Call:
            attributes.clear()  # only the attributes adjacent to the root name the module
            node = node.value if cls is ast.Subscript else node.func
        else:
            return "".join("." + a for a in reversed(attributes))


def _child_statements(stmt: ast.stmt) -> Iterator[ast.stmt]:
    """Statements nested in a compound statement (not in def bodies: callers decide)."""
    for field in _STATEMENT_LISTS:
        yield from getattr(stmt, field, ())
    for handler in getattr(stmt, "handlers", ()):
        yield from handler.body
    for case in getattr(stmt, "cases", ()):
        yield from case.body


def _is_environment(origin: str) -> bool:
    return origin in _ENVIRONMENT or origin.startswith("os.environ.")


# --------------------------------------------------------------------------------------------
# What the module binds, where, and whether anything rebinds or mutates it


class _Binding:
    """One place a module-level name gets a value."""

    __slots__ = ("kind", "node", "value", "top_level", "origin", "aliases")

    def __init__(self, kind, node, value=None, top_level=False, origin=None, aliases=()):
        self.kind = kind  # assign, annassign, unpack, augassign, for, with, import, def, ...
        self.node = node  # the statement (or expression) that binds
        self.value = value  # the expression the name takes, for assignments
        self.top_level = top_level  # directly in the module body, not inside if/try/for/...
        self.origin = origin  # imports: the dotted thing imported
        self.aliases = aliases  # chained assignment: every name bound to the same object


_BINDING_WORDS = {
    "augassign": "an augmented assignment",
    "for": "a for loop",
    "with": "a with statement",
    "except": "an except clause",
    "del": "a del statement",
    "walrus": "an assignment expression",
    "match": "a match statement",
    "type": "a type alias",
    "unpack": "unpacking",
}


class _ModuleIndex:
    """Every module-level binding and mutation, found once per module."""

    def __init__(self, tree: ast.Module, source_lines: Optional[List[str]]):
        self.bindings: Dict[str, List[_Binding]] = {}
        self.mutations: Dict[str, List[ast.AST]] = {}
        self.global_declarations: Dict[str, Tuple[str, ast.AST]] = {}
        self.star_imports: List[ast.AST] = []
        self.dynamic: Optional[Tuple[str, ast.AST]] = None  # globals()/exec() at module level
        # module-level calls of plain names (and name decorators): what they run may mutate globals
        self.calls: List[Tuple[str, ast.AST, List[ast.AST]]] = []
        self._effects: Dict[str, Tuple[Set[str], bool]] = {}
        self._mutation_reasons: Optional[Dict[str, Tuple[str, ast.AST]]] = None
        for stmt in tree.body:
            self._visit(stmt, top_level=True, in_class=False)
        # `global` is rare: skip walking every function body when the text never says it.
        if source_lines is None or any("global" in line for line in source_lines):
            self._find_global_declarations(tree.body, None)

    # -- collection

    def _bind(self, name: str, binding: _Binding, in_class: bool) -> None:
        if not in_class:  # a class body binds class attributes, not module names
            self.bindings.setdefault(name, []).append(binding)

    def _mutate(self, root: Optional[str], node: ast.AST) -> None:
        if root is not None:
            self.mutations.setdefault(root, []).append(node)

    def _visit(self, stmt: ast.stmt, top_level: bool, in_class: bool) -> None:
        cls = stmt.__class__
        if cls is ast.Assign:
            self._assign(stmt, top_level, in_class)
        elif cls is ast.AnnAssign:
            if stmt.value is not None:  # `X: int` alone binds nothing
                self._target(stmt.target, "annassign", stmt, top_level, in_class, stmt.value)
        elif cls is ast.AugAssign:
            self._target(stmt.target, "augassign", stmt, top_level, in_class)
        elif cls is ast.For or cls is ast.AsyncFor:
            self._target(stmt.target, "for", stmt, top_level, in_class, stmt.iter)
        elif cls is ast.With or cls is ast.AsyncWith:
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._target(item.optional_vars, "with", stmt, top_level, in_class, item.context_expr)
        elif cls is ast.Import:
            for alias in stmt.names:
                name = alias.asname or alias.name.partition(".")[0]
                origin = alias.name if alias.asname else name
                self._bind(name, _Binding("import", stmt, origin=origin), in_class)
        elif cls is ast.ImportFrom:
            module = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                if alias.name == "*":
                    self.star_imports.append(stmt)
                else:
                    binding = _Binding("import", stmt, origin=f"{module}.{alias.name}")
                    self._bind(alias.asname or alias.name, binding, in_class)
        elif cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
            kind = "def" if cls is ast.FunctionDef else "async def"
            self._bind(stmt.name, _Binding(kind, stmt, top_level=top_level), in_class)
            self._decorators(stmt)
        elif cls is ast.ClassDef:
            self._bind(stmt.name, _Binding("class", stmt, top_level=top_level), in_class)
            self._decorators(stmt)
            for inner in stmt.body:  # runs at import time: may mutate module constants
                self._visit(inner, top_level=False, in_class=True)
        elif cls is ast.Delete:
            for target in stmt.targets:
                self._target(target, "del", stmt, top_level, in_class)
        elif cls is ast.Match:
            for case in stmt.cases:
                for node in ast.walk(case.pattern):
                    name = getattr(node, "name", None) or getattr(node, "rest", None)
                    if isinstance(name, str):
                        self._bind(name, _Binding("match", stmt), in_class)
        elif cls.__name__ == "TypeAlias":  # Python 3.12+
            self._bind(stmt.name.id, _Binding("type", stmt), in_class)
        for handler in getattr(stmt, "handlers", ()):
            if handler.name:
                self._bind(handler.name, _Binding("except", handler), in_class)
        self._scan_expressions(stmt)
        if cls in _COMPOUND_STATEMENTS:
            for inner in _child_statements(stmt):
                self._visit(inner, top_level=False, in_class=in_class)

    def _assign(self, stmt: ast.Assign, top_level: bool, in_class: bool) -> None:
        targets = stmt.targets
        if all(t.__class__ is ast.Name for t in targets):
            names = tuple(t.id for t in targets)
            for target in targets:
                self._bind(target.id, _Binding("assign", stmt, stmt.value, top_level, aliases=names), in_class)
            return
        target = targets[0]
        value = stmt.value
        if (
            len(targets) == 1
            and target.__class__ in (ast.Tuple, ast.List)
            and value.__class__ in (ast.Tuple, ast.List)
            and len(target.elts) == len(value.elts)
            and all(t.__class__ is ast.Name for t in target.elts)
            and not any(v.__class__ is ast.Starred for v in value.elts)
        ):  # A, B = "a", "b": each name takes its own element
            for name_node, element in zip(target.elts, value.elts):
                self._bind(name_node.id, _Binding("assign", stmt, element, top_level), in_class)
            return
        for target in targets:
            self._target(target, "assign", stmt, top_level, in_class, value)

    def _target(self, target, kind, stmt, top_level, in_class, value=None) -> None:
        cls = target.__class__
        if cls is ast.Name:
            if kind == "assign" and value is None:
                kind = "unpack"
            self._bind(target.id, _Binding(kind, stmt, value, top_level), in_class)
        elif cls is ast.Tuple or cls is ast.List:
            inner_kind = "unpack" if kind in ("assign", "annassign") else kind
            for element in target.elts:
                self._target(element, inner_kind, stmt, top_level, in_class, value if inner_kind != "unpack" else None)
        elif cls is ast.Starred:
            self._target(target.value, kind, stmt, top_level, in_class, value)
        elif cls is ast.Subscript or cls is ast.Attribute:
            self._mutate(_root_name(target), stmt)

    def _scan_expressions(self, stmt: ast.stmt) -> None:
        """Mutating calls and ``:=`` in the expressions a statement evaluates itself."""
        roots = _expression_roots(stmt)
        if not roots:
            return
        stack = roots
        while stack:
            node = stack.pop()
            cls = node.__class__
            if cls is ast.Constant or cls is ast.Name:
                continue
            if cls is ast.Dict:  # the bulk of a schema literal: walk it without the generic machinery
                stack.extend(k for k in node.keys if k is not None)
                stack.extend(node.values)
                continue
            if cls is ast.List or cls is ast.Tuple or cls is ast.Set:
                stack.extend(node.elts)
                continue
            if cls is ast.Lambda:  # its body runs later, if ever
                stack.extend(node.args.defaults)
                stack.extend(d for d in node.args.kw_defaults if d is not None)
                continue
            if cls is ast.Call:
                self._scan_call(node)
            elif cls is ast.NamedExpr and node.target.__class__ is ast.Name:
                self._bind(node.target.id, _Binding("walrus", node, node.value), False)
            stack.extend(ast.iter_child_nodes(node))

    def _decorators(self, stmt: ast.AST) -> None:
        for decorator in stmt.decorator_list:
            if decorator.__class__ is ast.Name:  # @register: a call of a module function, maybe
                self.calls.append((decorator.id, stmt, []))

    def _scan_call(self, node: ast.Call) -> None:
        func = node.func
        if func.__class__ is ast.Attribute:
            if func.attr in _MUTATING_METHODS or func.attr.startswith("__"):
                self._mutate(_root_name(func.value), node)
        elif func.__class__ is ast.Name:
            self.calls.append((func.id, node, list(node.args) + [k.value for k in node.keywords]))
            if func.id in _NAMESPACE_CHANGERS and self.dynamic is None:
                self.dynamic = (f"{func.id}()", node)
            elif func.id in ("setattr", "delattr") and node.args:
                self._mutate(_root_name(node.args[0]), node)

    def _find_global_declarations(self, statements, owner: Optional[str]) -> None:
        for stmt in statements:
            cls = stmt.__class__
            if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef or cls is ast.ClassDef:
                self._find_global_declarations(stmt.body, stmt.name)
            elif cls is ast.Global and owner is not None:
                for name in stmt.names:
                    self.global_declarations.setdefault(name, (owner, stmt))
            else:
                self._find_global_declarations(_child_statements(stmt), owner)

    # -- questions

    def mutation_of(self, name: str) -> Optional[Tuple[str, ast.AST]]:
        """Why ``name``'s value may change after assignment, or None."""
        if self._mutation_reasons is None:
            self._mutation_reasons = self._mutation_closure()
        return self._mutation_reasons.get(name)

    def _mutation_closure(self) -> Dict[str, Tuple[str, ast.AST]]:
        """Mutated names, plus every name whose object a mutated name may share.

        ``B = A; B.append(1)`` or ``for s in SCHEMAS: s["x"] = 1`` change ``A``/``SCHEMAS``
        without naming them: a mutated name taints the names its own value was computed from
        (its aliases, the names in its assigned expression, the names module functions called
        there refer to).
        """
        reasons = {}
        for name, nodes in self.mutations.items():
            reasons[name] = (f"{name} is mutated at line {nodes[0].lineno}", nodes[0])
        for function, call, arguments in self.calls:  # f(...) at module level runs f's body
            mutated, mutates_parameters = self._function_effects(function)
            if mutates_parameters:
                mutated = mutated | {r for r in map(_root_name, arguments) if r is not None}
            for name in sorted(mutated):
                if name not in reasons:
                    reasons[name] = (f"{name} is mutated at line {call.lineno} (by {function}())", call)
        queue = list(reasons)
        while queue:
            name = queue.pop()
            node = reasons[name][1]
            for binding in self.bindings.get(name, ()):
                related = set(binding.aliases)
                if binding.value is not None:
                    related |= self._names_reached(binding.value)
                for other in sorted(related - {name}):
                    if other not in reasons:
                        reasons[other] = (f"{other} may be mutated through {name} at line {node.lineno}", node)
                        queue.append(other)
        return reasons

    def _function_effects(self, name: str) -> Tuple[Set[str], bool]:
        """(module names a module function mutates, whether it mutates its parameters' values),
        following the module functions it calls."""
        effects = self._effects.get(name)
        if effects is not None:
            return effects
        self._effects[name] = (set(), False)  # recursion: assume nothing more on the way back
        definitions = [b.node for b in self.bindings.get(name, ()) if b.kind in ("def", "async def")]
        mutated: Set[str] = set()
        mutates_parameters = False
        for fdef in definitions:
            info = _analyse_function(fdef)
            spec = fdef.args
            parameters = {a.arg for a in spec.posonlyargs + spec.args + spec.kwonlyargs}
            parameters |= {a.arg for a in (spec.vararg, spec.kwarg) if a is not None}
            roots: List[Optional[str]] = []
            for node in ast.walk(fdef):
                cls = node.__class__
                if (cls is ast.Subscript or cls is ast.Attribute) and node.ctx.__class__ is not ast.Load:
                    roots.append(_root_name(node.value))
                elif cls is ast.Call and node.func.__class__ is ast.Attribute:
                    if node.func.attr in _MUTATING_METHODS or node.func.attr.startswith("__"):
                        roots.append(_root_name(node.func.value))
                elif cls is ast.Call and node.func.__class__ is ast.Name and node.func.id != name:
                    inner, inner_parameters = self._function_effects(node.func.id)
                    roots.extend(inner)
                    if inner_parameters:
                        roots.extend(_root_name(a) for a in list(node.args) + [k.value for k in node.keywords])
            for root in roots:
                if root is None:
                    continue
                if root in parameters:
                    mutates_parameters = True
                elif root not in info.local_names:
                    mutated.add(root)
        effects = self._effects[name] = (mutated, mutates_parameters)
        return effects

    def _names_reached(self, expression: ast.AST) -> Set[str]:
        names: Set[str] = set()
        pending = [expression]
        seen_functions: Set[str] = set()
        while pending:
            for node in ast.walk(pending.pop()):
                if node.__class__ is ast.Name:
                    names.add(node.id)
                    for binding in self.bindings.get(node.id, ()):
                        if binding.kind == "def" and node.id not in seen_functions:
                            seen_functions.add(node.id)
                            pending.append(binding.node)
        return names


def _expression_roots(stmt: ast.stmt) -> List[ast.AST]:
    """The expressions a module-level statement evaluates itself (not its nested statements).

    Spelled out for the common statements: this runs on every statement of every file.
    """
    cls = stmt.__class__
    if cls is ast.Expr or cls is ast.AnnAssign or cls is ast.AugAssign:
        return [stmt.value] if stmt.value is not None else []
    if cls is ast.Assign:
        return [stmt.value] + [t for t in stmt.targets if t.__class__ is not ast.Name]
    if cls in (ast.Import, ast.ImportFrom, ast.Pass, ast.Global, ast.Nonlocal, ast.Break, ast.Continue):
        return []
    if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef:
        # annotations are left out: a mutating call inside one is not something code does
        arguments = stmt.args
        return stmt.decorator_list + arguments.defaults + [d for d in arguments.kw_defaults if d is not None]
    if cls is ast.ClassDef:
        return stmt.decorator_list + stmt.bases + [k.value for k in stmt.keywords]
    if cls is ast.If or cls is ast.While:
        return [stmt.test]
    roots: List[ast.AST] = []
    for field, value in ast.iter_fields(stmt):
        if field in _STATEMENT_LISTS:
            continue
        if field == "handlers":
            roots.extend(h.type for h in value if h.type is not None)
        elif field == "cases":
            roots.extend(c.guard for c in value if c.guard is not None)
        elif isinstance(value, ast.AST):
            roots.append(value)
        elif isinstance(value, list):
            roots.extend(v for v in value if isinstance(v, ast.AST) and not isinstance(v, ast.stmt))
    return roots


class _FunctionInfo:
    """What a module function's body needs before it can be run: its local names, or a problem."""

    __slots__ = ("local_names", "problem")

    def __init__(self, local_names, problem):
        self.local_names = local_names
        self.problem = problem  # (what, node) or None


def _analyse_function(fdef: ast.FunctionDef) -> _FunctionInfo:
    arguments = fdef.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    if arguments.vararg:
        names.add(arguments.vararg.arg)
    if arguments.kwarg:
        names.add(arguments.kwarg.arg)
    problem = None
    stack: List[ast.AST] = list(fdef.body)
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is ast.Name:
            if node.ctx.__class__ is not ast.Load:
                names.add(node.id)
            continue
        if cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):  # own scope; binds its name
            names.add(node.name)
            stack.extend(node.decorator_list)
            continue
        if cls is ast.Lambda:
            continue
        if cls in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            for generator in node.generators:  # targets belong to the comprehension
                stack.append(generator.iter)
                stack.extend(generator.ifs)
            stack.extend([node.key, node.value] if cls is ast.DictComp else [node.elt])
            continue
        if problem is None:
            if cls is ast.Global or cls is ast.Nonlocal:
                problem = (f"a {cls.__name__.lower()} declaration", node)
            elif cls is ast.Yield or cls is ast.YieldFrom:
                problem = ("yield (it is a generator)", node)
            elif cls is ast.Await:
                problem = ("await", node)
        if cls is ast.Import or cls is ast.ImportFrom:
            names.update((a.asname or a.name.partition(".")[0]) for a in node.names)
        elif cls is ast.ExceptHandler and node.name:
            names.add(node.name)
        elif cls in (ast.MatchAs, ast.MatchStar) and node.name:
            names.add(node.name)
        elif cls is ast.MatchMapping and node.rest:
            names.add(node.rest)
        stack.extend(ast.iter_child_nodes(node))
    return _FunctionInfo(frozenset(names), problem)


_STATEMENT_WORDS = {
    ast.Try: "try", ast.With: "with", ast.AsyncWith: "async with", ast.While: "while loop",
    ast.Import: "import", ast.ImportFrom: "import", ast.Global: "global declaration",
    ast.Nonlocal: "nonlocal declaration", ast.FunctionDef: "nested function definition",
    ast.AsyncFunctionDef: "nested function definition", ast.ClassDef: "class definition",
    ast.Raise: "raise", ast.Delete: "del", ast.AsyncFor: "async for", ast.Match: "match",
}
_EXPRESSION_WORDS = {
    ast.Lambda: "lambda", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from",
    ast.NamedExpr: "assignment expression (:=)", ast.Starred: "starred expression here",
    ast.Slice: "slice here",
}


# --------------------------------------------------------------------------------------------
# The evaluator


class ModuleEvaluator:
    """Evaluates expressions of one module, statically. See the module docstring.

    ``evaluate(node)`` and ``constant(name)`` return a plain value or an ``Unresolved`` (with the
    location of the cause); ``locations_of(value)`` maps JSON paths of a value this evaluator
    produced to the source location of each dict key / list item. Not thread-safe.
    """

    def __init__(
        self,
        tree: ast.Module,
        source_lines: Optional[List[str]] = None,
        *,
        step_budget: int = 20_000,
        total_step_budget: Optional[int] = None,
    ):
        self._tree = tree
        self._lines = source_lines
        self._step_budget = step_budget
        self._total_budget = step_budget * TOTAL_BUDGET_FACTOR if total_step_budget is None else total_step_budget
        self._index: Optional[_ModuleIndex] = None
        self._kinds: Dict[str, tuple] = {}  # name -> classification (see _classify)
        self._constants: Dict[str, tuple] = {}  # name -> (True, value) | (False, _Refusal)
        self._defaults: Dict[tuple, tuple] = {}  # (function node, slot) -> same
        self._in_progress: Set[str] = set()
        self._infos: Dict[ast.AST, _FunctionInfo] = {}
        self._meta: Dict[int, tuple] = {}  # id(container) -> (container, key/item locations)
        self._plain_checked: Dict[int, Any] = {}
        self._shared: Tuple[Any, Dict[int, str]] = (None, {})
        self._encoded_lines: Dict[int, bytes] = {}
        self._nested: Dict[ast.AST, tuple] = {}  # statement -> its nested statements, sorted
        # state of the evaluation in progress
        self._frame: Optional[_Frame] = None
        self._now: Optional[Tuple[int, int]] = None  # module "time" of execution; None = after import
        self._steps = 0
        self._total = 0
        self._depth = 0

    # ---------------------------------------------------------------- public API

    def evaluate(self, node: ast.expr) -> Any:
        """The value of ``node`` (an expression of this module), or an ``Unresolved``."""
        if node.__class__ is ast.Constant and node.value.__class__ in _SCALAR_TYPES:
            return node.value
        now, frame = self._context_of(node)
        return self._run(lambda: self._eval(node), node, now, frame)

    def constant(self, name: str) -> Any:
        """The value of module constant ``name`` (as it is once the module is imported)."""
        return self._run(lambda: self._global(name, None), self._definition_of(name), None, None)

    def _definition_of(self, name: str) -> Optional[ast.AST]:
        """Where ``name`` gets its value (to locate refusals that have no better place)."""
        kind = self._classify(name)
        if len(kind) < 2 or not isinstance(kind[1], _Binding):
            return None
        binding = kind[1]
        return binding.value if binding.value is not None else binding.node

    def is_bound(self, name: str) -> bool:
        """True when anything at module level binds ``name`` (assignment, def, import...)."""
        return name in self._get_index().bindings

    def locations_of(self, value: Any) -> Dict[tuple, Location]:
        """JSON path -> location of that dict key / list item, for what this evaluator built.

        Paths are tuples of keys and indexes, e.g. ``("parameters", "properties", "city")``.
        Keys of merged dicts keep the location of the dict they came from; values this evaluator
        did not build (or whose origin it does not know) have no entry.
        """
        result: Dict[tuple, Location] = {}
        stack: List[Tuple[Any, tuple]] = [(value, ())]
        visited = 0
        while stack and visited <= MAX_RESULT_ITEMS:
            obj, path = stack.pop()
            visited += 1
            cls = obj.__class__
            table = self._table_of(obj)
            if cls is dict:
                for key, child in obj.items():
                    child_path = path + (key,)
                    node = table.get(key) if table is not None else None
                    if node is not None:
                        result[child_path] = self._location(node)
                    if child.__class__ in (dict, list, tuple):
                        stack.append((child, child_path))
            elif cls is list or cls is tuple:
                for position, child in enumerate(obj):
                    child_path = path + (position,)
                    node = table[position] if table is not None and position < len(table) else None
                    if node is not None:
                        result[child_path] = self._location(node)
                    if child.__class__ in (dict, list, tuple):
                        stack.append((child, child_path))
        return result

    # ---------------------------------------------------------------- boundary

    def _run(self, compute: Callable[[], Any], node, now, frame) -> Any:
        saved = (self._frame, self._now, self._steps, self._depth)
        self._frame, self._now, self._steps, self._depth = frame, now, 0, 0
        try:
            if self._total > self._total_budget:
                raise _budget()
            value = compute()
            self._ensure_plain(value)
            return value
        except _Refusal as refusal:
            return self._unresolved(refusal, node)
        except RecursionError:  # a pathologically nested expression: refuse, never crash
            return Unresolved("expression nested too deeply", self._location(node))
        except MemoryError:
            return Unresolved(BUDGET_EXCEEDED, self._location(node))
        finally:
            self._total += self._steps
            self._frame, self._now, self._steps, self._depth = saved

    def _unresolved(self, refusal: _Refusal, node) -> Unresolved:
        reason = refusal.reason
        if refusal.function is not None:
            reason = f"{reason} (in {refusal.function})"
        where = refusal.node if refusal.node is not None else node
        return Unresolved(reason, self._location(where))

    def _ensure_plain(self, value: Any) -> None:
        """Results are plain data of bounded size, even counted through shared references."""
        cls = value.__class__
        if cls in _SCALAR_TYPES:
            if cls is str and len(value) > MAX_STR_CHARS:
                raise _budget()
            return
        if self._plain_checked.get(id(value)) is value:
            return
        items = chars = 0
        stack = [value]
        while stack:
            obj = stack.pop()
            cls = obj.__class__
            if cls is str:
                chars += len(obj)
            elif cls in _SCALAR_TYPES:
                pass
            elif cls is dict:
                items += len(obj)
                stack.extend(obj.keys())
                stack.extend(obj.values())
            elif cls in _PLAIN_CONTAINERS:
                items += len(obj)
                stack.extend(obj)
            elif isinstance(obj, _FunctionRef):
                raise _Refusal(f"function {obj.name} used as a value")
            else:
                raise _Refusal(f"{_type_name(obj)} is not a plain value")
            if items > MAX_RESULT_ITEMS or chars > MAX_RESULT_CHARS:
                raise _budget()
        self._plain_checked[id(value)] = value

    # ---------------------------------------------------------------- locations

    def _location(self, node: Optional[ast.AST]) -> Optional[Location]:
        if node is None or not hasattr(node, "lineno"):
            return None
        return Location(node.lineno, self._char_column(node.lineno, node.col_offset))

    def _char_column(self, lineno: int, byte_col: int) -> int:
        lines = self._lines
        if lines is None or not 0 < lineno <= len(lines):
            return byte_col + 1
        text = lines[lineno - 1]
        if text.isascii():
            return byte_col + 1
        encoded = self._encoded_lines.get(lineno)
        if encoded is None:
            encoded = self._encoded_lines[lineno] = text.encode("utf-8", "surrogatepass")
        return len(encoded[:byte_col].decode("utf-8", "replace")) + 1

    def _remember(self, obj: Any, table: Any) -> Any:
        """Record where the keys/items of a container this evaluator built come from."""
        if table:
            self._meta[id(obj)] = (obj, table)
        return obj

    def _table_of(self, obj: Any) -> Any:
        entry = self._meta.get(id(obj))
        return entry[1] if entry is not None and entry[0] is obj else None

    def _list_table(self, obj: list) -> list:
        """The item-location list of ``obj``, created (all unknown) when it had none."""
        table = self._table_of(obj)
        if table is None:
            table = [None] * len(obj)
            self._meta[id(obj)] = (obj, table)
        return table

    def _dict_table(self, obj: dict) -> dict:
        table = self._table_of(obj)
        if table is None:
            table = {}
            self._meta[id(obj)] = (obj, table)
        return table

    def _items_table(self, obj: Any, length: int) -> list:
        """Item locations of a list/tuple (copied), or unknowns."""
        table = self._table_of(obj) if obj.__class__ in (list, tuple) else None
        return list(table) if table is not None else [None] * length

    # ---------------------------------------------------------------- budget and sizes

    def _tick(self, steps: int = 1) -> None:
        self._steps += steps
        if self._steps > self._step_budget:
            raise _budget()

    def _check_items(self, count: int) -> None:
        if count > MAX_ITEMS:
            raise _budget()

    def _check_text(self, length: int) -> None:
        if length > MAX_STR_CHARS:
            raise _budget()

    def _check_int(self, value: Any) -> Any:
        if value.__class__ is int and value.bit_length() > MAX_INT_BITS:
            raise _budget()
        return value

    def _charge_deep(self, *values: Any) -> None:
        """Pay for C code that walks container contents (==, in, sorting, hashing tuples)."""
        visited = 0
        limit = (self._step_budget - self._steps + 1) * ITEMS_PER_STEP
        stack = [v for v in values if v.__class__ not in _SCALAR_TYPES]
        while stack:
            obj = stack.pop()
            cls = obj.__class__
            if cls is dict:
                visited += len(obj)
                stack.extend(v for v in obj.values() if v.__class__ not in _SCALAR_TYPES)
            elif cls in _PLAIN_CONTAINERS:
                visited += len(obj)
                stack.extend(v for v in obj if v.__class__ not in _SCALAR_TYPES)
            else:
                visited += 1
            if visited > limit:
                raise _budget()
        self._tick(visited // ITEMS_PER_STEP)

    def _text_bound(self, value: Any) -> int:
        """An upper bound of len(repr(value)), refusing values whose text is not reproducible."""
        total = visited = 0
        limit = (self._step_budget - self._steps + 1) * ITEMS_PER_STEP
        stack = [value]
        while stack:
            obj = stack.pop()
            cls = obj.__class__
            visited += 1
            if cls is str:
                total += 10 * len(obj) + 2  # repr escapes a character to at most \U0010ffff
            elif cls is int:
                total += obj.bit_length() // 3 + 2
            elif cls in _SCALAR_TYPES:
                total += 32
            elif cls is dict:
                total += 2 + 4 * len(obj)
                stack.extend(obj.keys())
                stack.extend(obj.values())
            elif cls in _PLAIN_CONTAINERS:
                if cls in (set, frozenset):
                    self._require_stable_order(obj)
                total += 12 + 2 * len(obj)
                stack.extend(obj)
            else:
                raise _Refusal(f"text of a {_type_name(obj)}")
            if total > _TRANSIENT_TEXT_CAP or visited > limit:
                raise _budget()
        self._tick(visited // ITEMS_PER_STEP)
        return total

    def _require_stable_order(self, values: Any, node: Optional[ast.AST] = None) -> None:
        """Sets of numbers iterate in the same order in every run; sets of strings do not."""
        if len(values) > 1 and not all(v.__class__ in _NUMBER_TYPES for v in values):
            raise _Refusal("iteration order of a set of strings varies between runs", node)

    # ---------------------------------------------------------------- module names

    def _get_index(self) -> _ModuleIndex:
        if self._index is None:
            self._index = _ModuleIndex(self._tree, self._lines)
        return self._index

    def _classify(self, name: str) -> tuple:
        kind = self._kinds.get(name)
        if kind is None:
            kind = self._kinds[name] = self._classify_uncached(name)
        return kind

    def _classify_uncached(self, name: str) -> tuple:
        """("constant"|"function"|"async function"|"class"|"import", binding), ("refused", reason,
        node), ("builtin",) or ("undefined",)."""
        index = self._get_index()
        bindings = index.bindings.get(name)
        if not bindings:
            if name in _BUILTINS:
                return ("builtin",)
            if name in index.global_declarations:
                owner, node = index.global_declarations[name]
                return ("refused", f"{name} is only assigned inside function {owner} (global)", node)
            if index.star_imports:
                return ("refused", f"{name} may come from a star import", index.star_imports[0])
            if name.startswith("__") and name.endswith("__"):
                return ("refused", f"module attribute {name}", None)
            return ("undefined",)
        for binding in bindings:  # whatever else happens to the name, an import cannot be evaluated
            if binding.kind == "import":
                return ("import", binding)
        if name in index.global_declarations:
            owner, node = index.global_declarations[name]
            return ("refused", f"{name} is declared global in function {owner} (line {node.lineno})", node)
        if index.dynamic is not None:
            what, node = index.dynamic
            return ("refused", f"module names are changed dynamically ({what} at line {node.lineno})", node)
        first = bindings[0]
        if len(bindings) > 1:
            second = bindings[1]
            verb = "deleted" if second.kind == "del" else "reassigned"
            return ("refused", f"{name} is {verb} at line {second.node.lineno}", second.node)
        for star in index.star_imports:
            if _start(star) > _start(first.node):
                return ("refused", f"{name} may be rebound by a star import at line {star.lineno}", star)
        kind = first.kind
        line = first.node.lineno
        if kind in ("def", "async def", "class"):
            if not first.top_level:
                return ("refused", f"{name} is defined conditionally at line {line}", first.node)
            return ("function" if kind == "def" else "async function" if kind == "async def" else "class", first)
        if kind in ("assign", "annassign") and first.value is not None:
            if not first.top_level:
                return ("refused", f"{name} is assigned conditionally at line {line}", first.node)
            mutation = index.mutation_of(name)
            if mutation is not None:
                return ("refused", mutation[0], mutation[1])
            return ("constant", first)
        words = _BINDING_WORDS.get(kind, kind)
        return ("refused", f"{name} is bound by {words} at line {line}", first.node)

    def _check_time(self, name: str, binding: _Binding, node, used: str = "used") -> None:
        """A module-level statement can only use names bound by the statements before it."""
        if self._now is not None and _end(binding.node) > self._now:
            raise _Refusal(f"{name} is {used} before it is assigned (line {binding.node.lineno})", node)

    def _global(self, name: str, node) -> Any:
        """The value of a module-level name at the current point of the module."""
        kind = self._classify(name)
        tag = kind[0]
        if tag == "constant":
            self._check_time(name, kind[1], node)
            return self._constant_value(name, kind[1], node)
        if tag == "function":
            self._check_time(name, kind[1], node)
            return _FunctionRef(name, kind[1].node)
        if tag == "builtin":
            return _BuiltinRef(name)
        if tag == "refused":
            raise _Refusal(kind[1], kind[2] if kind[2] is not None else node)
        if tag == "import":
            origin = kind[1].origin
            where = node if node is not None else kind[1].node
            if _is_environment(origin):
                raise _Refusal("environment read", where)
            detail = "" if origin == name else f" ({origin})"
            raise _Refusal(f"imported name {name}{detail}", where)
        if tag == "undefined":
            if name in _PYTHON_BUILTIN_NAMES:
                raise _Refusal(f"builtin {name} is not supported", node)
            raise _Refusal(f"undefined name {name}", node)
        raise _Refusal(f"{tag} {name} used as a value", node)

    def _constant_value(self, name: str, binding: _Binding, node) -> Any:
        cached = self._constants.get(name)
        if cached is None:
            cached = self._constants[name] = self._compute_cached(name, binding.value, binding.node)
        if cached[0]:
            return cached[1]
        refusal = cached[1]
        copy = _Refusal(refusal.reason, refusal.node)
        copy.function = refusal.function
        raise copy

    def _compute_cached(self, key: Any, expression: ast.expr, at: ast.AST) -> tuple:
        """Evaluate a module-level expression once, in module scope at its own point of the
        module, with a fresh budget (so the cached result never depends on who asked first)."""
        if key in self._in_progress:
            return (False, _Refusal(f"{key} refers to itself", expression))
        saved = (self._frame, self._now, self._steps, self._depth)
        self._frame, self._now, self._steps, self._depth = None, _start(at), 0, 0
        self._in_progress.add(key)
        try:
            if self._total > self._total_budget:
                raise _budget(expression)
            value = self._eval(expression)
            if isinstance(value, _ITERATOR_TYPES):
                raise _Refusal(f"{key} holds an iterator (its value depends on when it is read)", expression)
            return (True, value)
        except _Refusal as refusal:
            if refusal.node is None:
                refusal.node = expression
            return (False, refusal)
        finally:
            self._in_progress.discard(key)
            self._total += self._steps
            self._frame, self._now, self._depth = saved[0], saved[1], saved[3]
            self._steps = saved[2] + 1

    # ---------------------------------------------------------------- scopes

    def _context_of(self, node: ast.AST) -> Tuple[Optional[Tuple[int, int]], Optional[_Frame]]:
        """When ``node`` runs: at its place in the module, or (inside a function body) after
        import, with the function's own variables unknown."""
        if not hasattr(node, "lineno"):
            return None, None
        position = _start(node)
        parent: ast.AST = self._tree
        frame = None
        deferred = False
        while True:
            statements, starts = self._statements_of(parent)
            at = bisect.bisect_right(starts, position) - 1
            if at < 0 or _end(statements[at]) < position:
                break
            stmt = statements[at]
            if stmt.__class__ is ast.FunctionDef or stmt.__class__ is ast.AsyncFunctionDef:
                if position < _start(stmt.body[0]):
                    break  # decorators and defaults run when the def does
                deferred = True
                frame = _Frame(stmt.name, self._function_info(stmt).local_names, {}, frame, opaque=True)
            parent = stmt
        return (None if deferred else position), frame

    def _statements_of(self, parent: ast.AST) -> Tuple[List[ast.stmt], List[Tuple[int, int]]]:
        """The statements directly nested in ``parent``, in source order, with their starts."""
        cached = self._nested.get(parent)
        if cached is None:
            if parent.__class__ in (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                statements = list(parent.body)
            else:
                statements = sorted(_child_statements(parent), key=_start)
            cached = self._nested[parent] = (statements, [_start(s) for s in statements])
        return cached

    def _lookup(self, name: str, node) -> Any:
        frame = self._frame
        while frame is not None:
            if name in frame.local_names:
                if frame.opaque:
                    raise _Refusal(f"local variable {name} of {frame.owner}", node)
                try:
                    return frame.values[name]
                except KeyError:
                    raise _Refusal(f"local variable {name} is used before it is assigned", node) from None
            frame = frame.parent
        return self._global(name, node)

    def _is_local(self, name: str) -> bool:
        frame = self._frame
        while frame is not None:
            if name in frame.local_names:
                return True
            frame = frame.parent
        return False

    def _function_info(self, fdef) -> _FunctionInfo:
        info = self._infos.get(fdef)
        if info is None:
            info = self._infos[fdef] = _analyse_function(fdef)
        return info

    # ---------------------------------------------------------------- expressions

    def _eval(self, node: ast.AST) -> Any:
        self._steps += 1
        if self._steps > self._step_budget:
            raise _budget(node)
        handler = _EXPRESSIONS.get(node.__class__)
        if handler is None:
            what = _EXPRESSION_WORDS.get(node.__class__, node.__class__.__name__)
            raise _Refusal(f"unsupported expression: {what}", node)
        try:
            return handler(self, node)
        except _Refusal as refusal:
            if refusal.node is None:
                refusal.node = node
            raise
        except RecursionError:
            raise
        except _PYTHON_ERRORS as error:
            raise _Refusal(_raises(error), node) from None

    def _value(self, node: ast.AST) -> Any:
        """``_eval`` with the fast path for literals (the bulk of a schema; they cost no step)."""
        if node.__class__ is ast.Constant:
            return node.value
        return self._eval(node)

    def _eval_constant(self, node: ast.Constant) -> Any:
        return node.value

    def _eval_name(self, node: ast.Name) -> Any:
        return self._lookup(node.id, node)

    def _eval_dict(self, node: ast.Dict) -> dict:
        result: dict = {}
        table: dict = {}
        for key_node, value_node in zip(node.keys, node.values):
            if key_node is None:  # {**other}
                self._merge(result, table, self._eval(value_node), value_node)
                continue
            key = key_node.value if key_node.__class__ is ast.Constant else self._eval(key_node)
            value = value_node.value if value_node.__class__ is ast.Constant else self._eval(value_node)
            if key.__class__ is not str:
                self._charge_deep(key)
            result[key] = value
            table[key] = key_node
        self._check_items(len(result))
        return self._remember(result, table)

    def _merge(self, result: dict, table: dict, mapping: Any, node) -> None:
        """``result.update(mapping)``, keys keeping the locations ``mapping`` had."""
        if mapping.__class__ is not dict:
            raise _Refusal(f"** unpacking of a {_type_name(mapping)}", node)
        self._tick(len(mapping) // ITEMS_PER_STEP)
        result.update(mapping)
        source = self._table_of(mapping)
        for key in mapping:
            where = source.get(key) if source is not None else None
            if where is None:
                table.pop(key, None)
            else:
                table[key] = where
        self._check_items(len(result))

    def _sequence(self, elts: List[ast.expr], ordered: bool = True) -> Tuple[list, list]:
        items: list = []
        table: list = []
        for element in elts:
            cls = element.__class__
            if cls is ast.Constant:
                items.append(element.value)
                table.append(element)
            elif cls is ast.Starred:
                source = self._eval(element.value)
                values = self._materialize(source, element.value, ordered)
                items.extend(values)
                table.extend(self._items_table(source, len(values)))
            else:
                items.append(self._eval(element))
                table.append(element)
        self._check_items(len(items))
        return items, table

    def _eval_list(self, node: ast.List) -> list:
        items, table = self._sequence(node.elts)
        return self._remember(items, table)

    def _eval_tuple(self, node: ast.Tuple) -> tuple:
        items, table = self._sequence(node.elts)
        return self._remember(tuple(items), table)

    def _eval_set(self, node: ast.Set) -> set:
        items, _ = self._sequence(node.elts, ordered=False)
        self._charge_deep(items)
        return set(items)

    def _eval_joined_str(self, node: ast.JoinedStr) -> str:
        pieces = []
        total = 0
        for part in node.values:
            text = part.value if part.__class__ is ast.Constant else self._eval(part)
            total += len(text)
            self._check_text(total)
            pieces.append(text)
        return "".join(pieces)

    def _eval_formatted_value(self, node: ast.FormattedValue) -> str:
        value = self._eval(node.value)
        spec = self._eval(node.format_spec) if node.format_spec is not None else ""
        return self._format_value(value, node.conversion, spec)

    def _eval_unary(self, node: ast.UnaryOp) -> Any:
        operand = self._eval(node.operand)
        op = node.op.__class__
        if op is ast.Not:
            return not self._truth(operand)
        if operand.__class__ not in _NUMBER_TYPES:
            raise TypeError(f"bad operand type for unary operator: '{_type_name(operand)}'")
        if op is ast.USub:
            return -operand
        if op is ast.UAdd:
            return +operand
        return ~operand

    def _eval_bool_op(self, node: ast.BoolOp) -> Any:
        is_and = node.op.__class__ is ast.And
        value = None
        for operand in node.values:
            value = self._eval(operand)
            if self._truth(value) != is_and:
                return value
        return value

    def _eval_if_exp(self, node: ast.IfExp) -> Any:
        return self._eval(node.body if self._truth(self._eval(node.test)) else node.orelse)

    def _eval_compare(self, node: ast.Compare) -> bool:
        left = self._eval(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self._eval(right_node)
            if not self._compare(op, left, right):
                return False
            left = right
        return True

    def _compare(self, op: ast.cmpop, left: Any, right: Any) -> bool:
        cls = op.__class__
        if cls is ast.Is or cls is ast.IsNot:
            # identity of strings and numbers is an interpreter detail: only None/True/False
            if not (left is None or right is None or left.__class__ is bool or right.__class__ is bool):
                raise _Refusal("identity comparison (is) of values other than None/True/False")
            return (left is right) == (cls is ast.Is)
        if cls is ast.In or cls is ast.NotIn:
            if not isinstance(right, (str, list, tuple, range, dict, set, frozenset) + _VIEW_TYPES):
                raise _Refusal(f"membership test in a {_type_name(right)}")
            self._charge_deep(left, right)
            return (left in right) == (cls is ast.In)
        self._charge_deep(left, right)
        if cls is ast.Eq:
            return left == right
        if cls is ast.NotEq:
            return left != right
        if cls is ast.Lt:
            return left < right
        if cls is ast.LtE:
            return left <= right
        if cls is ast.Gt:
            return left > right
        return left >= right

    def _truth(self, value: Any) -> bool:
        # Every value here is a builtin type (or one of the refs, which have no __len__ and so are
        # true like Python's functions): bool() runs no analysed code.
        return bool(value)

    def _eval_subscript(self, node: ast.Subscript) -> Any:
        container = self._eval(node.value)
        index_node = node.slice
        if index_node.__class__ is ast.Slice:
            return self._slice(container, self._slice_of(index_node))
        index = self._value(index_node)
        cls = container.__class__
        if cls is dict:
            if index.__class__ is not str:
                self._charge_deep(index)
            return container[index]
        if cls in (list, tuple, str, range):
            return container[index]
        raise _Refusal(f"subscript of a {_type_name(container)}")

    def _slice_of(self, node: ast.Slice) -> slice:
        parts = []
        for part in (node.lower, node.upper, node.step):
            value = None if part is None else self._value(part)
            if value is not None and value.__class__ not in (int, bool):
                raise TypeError("slice indices must be integers or None")
            parts.append(value)
        return slice(*parts)

    def _slice(self, container: Any, part: slice) -> Any:
        cls = container.__class__
        if cls not in (list, tuple, str, range):
            raise _Refusal(f"slice of a {_type_name(container)}")
        result = container[part]
        table = self._table_of(container)
        if table is not None:
            self._remember(result, table[part])
        return result

    def _eval_bin_op(self, node: ast.BinOp) -> Any:
        return self._binary(node.op, self._eval(node.left), self._eval(node.right))

    def _binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        cls = op.__class__
        handler = _BINARY.get(cls)
        if handler is None:
            raise _Refusal(f"unsupported operator {cls.__name__}")
        return handler(self, left, right)

    # -- binary operators

    def _add(self, left, right):
        lt, rt = left.__class__, right.__class__
        if lt is str and rt is str:
            self._check_text(len(left) + len(right))
            return left + right
        if (lt is list and rt is list) or (lt is tuple and rt is tuple):
            self._check_items(len(left) + len(right))
            self._tick((len(left) + len(right)) // ITEMS_PER_STEP)
            table = self._items_table(left, len(left)) + self._items_table(right, len(right))
            return self._remember(left + right, table)
        return self._arithmetic(left, right, "+", lambda a, b: a + b)

    def _arithmetic(self, left, right, symbol, operation):
        if left.__class__ in _NUMBER_TYPES and right.__class__ in _NUMBER_TYPES:
            return self._check_int(operation(left, right))
        raise TypeError(
            f"unsupported operand type(s) for {symbol}: '{_type_name(left)}' and '{_type_name(right)}'"
        )

    def _sub(self, left, right):
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            return left - right
        return self._arithmetic(left, right, "-", lambda a, b: a - b)

    def _mult(self, left, right):
        if left.__class__ in (int, bool) and right.__class__ in (str, list, tuple):
            left, right = right, left
        if left.__class__ in (str, list, tuple) and right.__class__ in (int, bool):
            count = max(int(right), 0)
            if left.__class__ is str:
                self._check_text(len(left) * count)
                return left * count
            self._check_items(len(left) * count)
            self._tick(len(left) * count // ITEMS_PER_STEP)
            return self._remember(left * count, self._items_table(left, len(left)) * count)
        if left.__class__ is int and right.__class__ is int:
            if left.bit_length() + right.bit_length() > MAX_INT_BITS + 1:
                raise _budget()
        return self._arithmetic(left, right, "*", lambda a, b: a * b)

    def _true_div(self, left, right):
        return self._arithmetic(left, right, "/", lambda a, b: a / b)

    def _floor_div(self, left, right):
        return self._arithmetic(left, right, "//", lambda a, b: a // b)

    def _mod(self, left, right):
        if left.__class__ is str:
            return self._percent_format(left, right)
        return self._arithmetic(left, right, "%", lambda a, b: a % b)

    def _pow(self, left, right):
        if left.__class__ in (int, bool) and right.__class__ in (int, bool) and right > 0:
            if max(int(left).bit_length(), 1) * right > MAX_INT_BITS:
                raise _budget()
        return self._arithmetic(left, right, "**", lambda a, b: a**b)

    def _bit_or(self, left, right):
        if left.__class__ is dict and right.__class__ is dict:
            result = dict(left)
            table = dict(self._table_of(left) or {})
            self._merge(result, table, right, None)
            return self._remember(result, table)
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            self._check_items(len(left) + len(right))
            return left | right
        return self._integer_op(left, right, "|", lambda a, b: a | b)

    def _bit_and(self, left, right):
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            return left & right
        return self._integer_op(left, right, "&", lambda a, b: a & b)

    def _bit_xor(self, left, right):
        if left.__class__ in (set, frozenset) and right.__class__ in (set, frozenset):
            return left ^ right
        return self._integer_op(left, right, "^", lambda a, b: a ^ b)

    def _left_shift(self, left, right):
        if left.__class__ in (int, bool) and right.__class__ in (int, bool) and right > 0:
            if int(left).bit_length() + right > MAX_INT_BITS:
                raise _budget()
        return self._integer_op(left, right, "<<", lambda a, b: a << b)

    def _right_shift(self, left, right):
        return self._integer_op(left, right, ">>", lambda a, b: a >> b)

    def _integer_op(self, left, right, symbol, operation):
        if left.__class__ in (int, bool) and right.__class__ in (int, bool):
            return self._check_int(operation(left, right))
        raise TypeError(
            f"unsupported operand type(s) for {symbol}: '{_type_name(left)}' and '{_type_name(right)}'"
        )

    # -- comprehensions

    def _eval_list_comp(self, node: ast.ListComp) -> list:
        items: list = []
        table: list = []
        # `[t for t in TOOLS if ...]`: each item is the source item itself, keep its location
        passthrough = (
            len(node.generators) == 1
            and node.elt.__class__ is ast.Name
            and node.generators[0].target.__class__ is ast.Name
            and node.generators[0].target.id == node.elt.id
        )

        def emit(source_location):
            items.append(self._value(node.elt))
            table.append(source_location if passthrough and source_location is not None else node.elt)
            self._check_items(len(items))

        self._comprehension(node, emit, ordered=True)
        return self._remember(items, table)

    def _eval_generator(self, node: ast.GeneratorExp) -> Iterator:
        # Evaluated eagerly (nothing here has side effects); a one-shot iterator like Python's.
        return iter(self._eval_list_comp(node))

    def _eval_set_comp(self, node: ast.SetComp) -> set:
        items: set = set()

        def emit(_):
            element = self._value(node.elt)
            if element.__class__ is not str:
                self._charge_deep(element)
            items.add(element)
            self._check_items(len(items))

        self._comprehension(node, emit, ordered=False)
        return items

    def _eval_dict_comp(self, node: ast.DictComp) -> dict:
        result: dict = {}
        table: dict = {}

        def emit(_):
            key = self._value(node.key)
            value = self._value(node.value)
            if key.__class__ is not str:
                self._charge_deep(key)
            result[key] = value
            table[key] = node.key
            self._check_items(len(result))

        self._comprehension(node, emit, ordered=True)
        return self._remember(result, table)

    def _comprehension(self, node, emit, ordered: bool) -> None:
        generators = node.generators
        names: Set[str] = set()
        for generator in generators:
            if generator.is_async:
                raise _Refusal("unsupported expression: async comprehension", node)
            _target_names(generator.target, names)
        first = self._eval(generators[0].iter)  # the first iterable runs in the enclosing scope
        saved = self._frame
        self._frame = _Frame(saved.owner if saved else None, names, {}, saved)
        try:
            self._comprehension_level(generators, 0, first, emit, ordered)
        finally:
            self._frame = saved

    def _comprehension_level(self, generators, level, iterable, emit, ordered) -> None:
        generator = generators[level]
        last = level == len(generators) - 1
        values = self._frame.values
        for item, location in self._items_with_locations(iterable, generator.iter, ordered):
            self._tick()
            self._assign_target(generator.target, item, values)
            if all(self._truth(self._eval(condition)) for condition in generator.ifs):
                if last:
                    emit(location)
                else:
                    inner = generators[level + 1]
                    self._comprehension_level(generators, level + 1, self._eval(inner.iter), emit, ordered)

    def _items_with_locations(self, iterable, node, ordered) -> Iterator[Tuple[Any, Any]]:
        source = self._iterable(iterable, node, ordered)
        table = self._table_of(iterable) if iterable.__class__ in (list, tuple) else None
        if table is None:
            for item in source:
                yield item, None
        else:
            for position, item in enumerate(source):
                yield item, (table[position] if position < len(table) else None)

    # -- iteration

    def _iterable(self, value: Any, node, ordered: bool = True) -> Any:
        if not isinstance(value, _ITERABLE_TYPES):
            raise _Refusal(f"iteration over a {_type_name(value)}", node)
        if ordered and value.__class__ in (set, frozenset):
            self._require_stable_order(value, node)
        return value

    def _materialize(self, value: Any, node, ordered: bool = True) -> list:
        source = self._iterable(value, node, ordered)
        if hasattr(source, "__len__"):
            self._check_items(len(source))
            self._tick(len(source) // ITEMS_PER_STEP)
            return list(source)
        items = []
        for item in source:  # lazy iterators: bounded by MAX_ITEMS as they are drained
            items.append(item)
            if len(items) > MAX_ITEMS:
                raise _budget(node)
        self._tick(len(items) // ITEMS_PER_STEP)
        return items

    def _assign_target(self, target: ast.AST, value: Any, scope: dict) -> None:
        """Bind a loop/comprehension target: a name or (nested) tuples of names."""
        cls = target.__class__
        if cls is ast.Name:
            scope[target.id] = value
        elif cls is ast.Tuple or cls is ast.List:
            if any(e.__class__ is ast.Starred for e in target.elts):
                raise _Refusal("starred assignment target", target)
            items = self._materialize(value, target)
            if len(items) != len(target.elts):
                raise ValueError(f"expected {len(target.elts)} values to unpack, got {len(items)}")
            for element, item in zip(target.elts, items):
                self._assign_target(element, item, scope)
        else:
            raise _Refusal(f"assignment to {cls.__name__.lower()}", target)

    # ---------------------------------------------------------------- calls

    def _eval_call(self, node: ast.Call) -> Any:
        func = node.func
        if func.__class__ is ast.Attribute:
            return self._call_attribute(node, func)
        callee = self._callee_by_name(func) if func.__class__ is ast.Name else self._eval(func)
        arguments = self._arguments(node)
        if isinstance(callee, _FunctionRef):
            return self._call_function(callee, arguments, node)
        if isinstance(callee, _BuiltinRef):
            return _BUILTINS[callee.name](self, arguments, node)
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
            raise _Refusal(f"call to imported function {name}", func)
        if tag == "class":
            raise _Refusal(f"call to class {name}", func)
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
        if root is None or self._is_local(root):
            return None
        kind = self._classify(root)
        if kind[0] != "import":
            return None
        return kind[1].origin + _path_from_root(node)

    def _call_attribute(self, node: ast.Call, func: ast.Attribute) -> Any:
        reached = self._imported_root(func)
        if reached is not None:
            if reached in ("copy.copy", "copy.deepcopy"):
                return self._copy_call(reached, self._arguments(node), node)
            if _is_environment(reached) or _is_environment(reached.rpartition(".")[0]):
                raise _Refusal("environment read", node)
            written = _dotted(func)
            if written is None:
                raise _Refusal(f"call on a value of another module ({_root_name(func)})", node)
            raise _Refusal(f"call to imported function {written}", node)
        receiver = self._eval(func.value)
        arguments = self._arguments(node)
        return self._call_method(receiver, func.attr, arguments, node)

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        reached = self._imported_root(node)
        if reached is not None:
            if _is_environment(reached):
                raise _Refusal("environment read", node)
            written = _dotted(node)
            if written is None:
                raise _Refusal(f"attribute of a value of another module ({_root_name(node)})", node)
            raise _Refusal(f"attribute of another module: {written}", node)
        value = self._eval(node.value)
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
                positional.append(self._value(argument))
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
                keywords[keyword.arg] = self._value(keyword.value)
                keyword_nodes[keyword.arg] = keyword
        return _Arguments(positional, positional_nodes, keywords, keyword_nodes)

    # -- module functions

    def _call_function(self, ref: _FunctionRef, arguments: _Arguments, node) -> Any:
        fdef = ref.node
        name = ref.name
        if fdef.decorator_list:
            raise _Refusal(f"call to decorated function {name}", node)
        info = self._function_info(fdef)
        if info.problem is not None:
            what, where = info.problem
            raise _Refusal(f"{name} contains {what}", where)
        if self._depth >= MAX_CALL_DEPTH:
            raise _Refusal(f"call depth limit ({MAX_CALL_DEPTH}) exceeded calling {name}", node)
        values = self._bind_parameters(fdef, arguments)
        saved = self._frame
        self._frame = _Frame(name, info.local_names, values)
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

    def _bind_parameters(self, fdef: ast.FunctionDef, arguments: _Arguments) -> dict:
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
                values[param.arg] = self._default(fdef, position, spec.defaults[position - first_default])
        for position, param in enumerate(spec.kwonlyargs):
            if param.arg not in values:
                default = spec.kw_defaults[position]
                if default is None:
                    raise TypeError(f"{name}() missing required keyword-only argument: '{param.arg}'")
                values[param.arg] = self._default(fdef, ("kw", position), default)
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
        raise _Refusal(cached[1].reason, cached[1].node)

    # -- statements (bodies of module functions)

    def _execute(self, statements: List[ast.stmt]) -> Any:
        for stmt in statements:
            self._tick()
            handler = _STATEMENTS.get(stmt.__class__)
            if handler is None:
                what = _STATEMENT_WORDS.get(stmt.__class__, stmt.__class__.__name__)
                raise _Refusal(f"unsupported statement: {what}", stmt)
            try:
                outcome = handler(self, stmt)
            except _Refusal as refusal:
                if refusal.node is None:
                    refusal.node = stmt
                raise
            except RecursionError:
                raise
            except _PYTHON_ERRORS as error:
                raise _Refusal(_raises(error), stmt) from None
            if outcome is not None:
                return outcome
        return None

    def _exec_expr(self, stmt: ast.Expr) -> None:
        if stmt.value.__class__ is not ast.Constant:  # docstrings and `...` do nothing
            self._eval(stmt.value)

    def _exec_pass(self, stmt) -> None:
        return None

    def _exec_break(self, stmt):
        return _BREAK

    def _exec_continue(self, stmt):
        return _CONTINUE

    def _exec_return(self, stmt: ast.Return) -> _Returned:
        return _Returned(None if stmt.value is None else self._value(stmt.value))

    def _exec_assign(self, stmt: ast.Assign) -> None:
        value = self._value(stmt.value)
        for target in stmt.targets:
            self._store(target, value, stmt.value)

    def _exec_ann_assign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is not None:
            self._store(stmt.target, self._value(stmt.value), stmt.value)

    def _exec_aug_assign(self, stmt: ast.AugAssign) -> None:
        target = stmt.target
        if target.__class__ is ast.Name:
            current = self._lookup(target.id, target)
            result = self._in_place(stmt.op, current, self._eval(stmt.value), stmt.value)
            self._frame.values[target.id] = result
        elif target.__class__ is ast.Subscript and target.slice.__class__ is not ast.Slice:
            container = self._eval(target.value)
            key = self._value(target.slice)
            result = self._in_place(stmt.op, container[key], self._eval(stmt.value), stmt.value)
            self._set_item(container, key, result, target.slice, stmt.value)
        else:
            raise _Refusal(f"augmented assignment to {target.__class__.__name__.lower()}", target)

    def _in_place(self, op, current, operand, operand_node) -> Any:
        """``x += y`` changes a list/dict/set in place (aliases see it); else it rebinds."""
        cls = current.__class__
        if cls is list and op.__class__ is ast.Add:
            self._list_extend(current, operand, operand_node)
            return current
        if cls is dict and op.__class__ is ast.BitOr:
            self._ensure_mutable(current)
            self._merge(current, self._dict_table(current), operand, operand_node)
            return current
        if cls is set and op.__class__ in (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor):
            self._ensure_mutable(current)
            result = self._binary(op, current, operand)
            current.clear()
            current.update(result)
            return current
        return self._binary(op, current, operand)

    def _exec_if(self, stmt: ast.If) -> Any:
        return self._execute(stmt.body if self._truth(self._eval(stmt.test)) else stmt.orelse)

    def _exec_for(self, stmt: ast.For) -> Any:
        iterable = self._iterable(self._eval(stmt.iter), stmt.iter)
        for item in iterable:
            self._tick()
            self._store(stmt.target, item, None)
            outcome = self._execute(stmt.body)
            if outcome is _BREAK:
                return None
            if outcome is _CONTINUE:
                continue
            if outcome is not None:
                return outcome
        return self._execute(stmt.orelse)

    def _exec_assert(self, stmt: ast.Assert) -> None:
        if not self._truth(self._eval(stmt.test)):
            raise _Refusal("assertion fails", stmt)

    def _store(self, target: ast.AST, value: Any, value_node) -> None:
        cls = target.__class__
        if cls is ast.Name:
            self._frame.values[target.id] = value
        elif cls is ast.Subscript:
            self._store_subscript(target, value, value_node)
        elif cls is ast.Tuple or cls is ast.List:
            self._assign_target(target, value, self._frame.values)
        else:
            raise _Refusal(f"assignment to {cls.__name__.lower()}", target)

    def _store_subscript(self, target: ast.Subscript, value: Any, value_node) -> None:
        if self._frame is None or self._frame.opaque:
            raise _Refusal("item assignment outside a function", target)
        if target.slice.__class__ is ast.Slice:
            raise _Refusal("slice assignment", target)
        container = self._eval(target.value)
        key = self._value(target.slice)
        self._set_item(container, key, value, target.slice, value_node)

    def _set_item(self, container, key, value, key_node, value_node) -> None:
        self._ensure_mutable(container)
        if container.__class__ is dict:
            if key.__class__ is not str:
                self._charge_deep(key)
            container[key] = value
            self._dict_table(container)[key] = key_node
            self._check_items(len(container))
        elif container.__class__ is list:
            container[key] = value
            table = self._list_table(container)
            table[key] = value_node
        else:
            raise _Refusal(f"item assignment on a {_type_name(container)}")

    # -- mutation of values built during evaluation

    def _ensure_mutable(self, obj: Any) -> None:
        """Only values this evaluation built may change: never a module constant's (Python would
        change the constant itself), never a default value (shared by every call)."""
        owner = self._shared_ids().get(id(obj))
        if owner is not None:
            raise _Refusal(f"mutates the value of {owner}")

    def _shared_ids(self) -> Dict[int, str]:
        version = (len(self._constants), len(self._defaults))
        cached_version, shared = self._shared
        if cached_version == version:
            return shared
        shared = {}
        sources = [(f"module constant {name}", entry[1]) for name, entry in self._constants.items() if entry[0]]
        sources += [(f"a default value of {key[0].name}", entry[1]) for key, entry in self._defaults.items() if entry[0]]
        for owner, value in sources:
            stack = [value]
            while stack:
                obj = stack.pop()
                cls = obj.__class__
                if cls in _SCALAR_TYPES or id(obj) in shared:
                    continue
                if cls is dict:
                    shared[id(obj)] = owner
                    stack.extend(obj.values())
                elif cls in _PLAIN_CONTAINERS:
                    shared[id(obj)] = owner
                    stack.extend(obj)
        self._shared = (version, shared)
        return shared

    def _list_extend(self, target: list, iterable: Any, node) -> None:
        self._ensure_mutable(target)
        items = self._materialize(iterable, node)
        self._check_items(len(target) + len(items))
        table = self._list_table(target)
        target.extend(items)
        table.extend(self._items_table(iterable, len(items)))

    # -- methods of plain values

    def _call_method(self, receiver: Any, name: str, arguments: _Arguments, node) -> Any:
        methods = _METHODS.get(receiver.__class__)
        method = methods.get(name) if methods is not None else None
        if method is None:
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

    # -- text

    def _text(self, value: Any, conversion: str) -> str:
        """str()/repr()/ascii() of a value, bounded and reproducible."""
        cls = value.__class__
        if cls is str and conversion == "s":
            return value
        if cls in _SCALAR_TYPES:
            if cls is str:
                self._text_bound(value)
            text = str(value) if conversion == "s" else repr(value) if conversion == "r" else ascii(value)
        else:
            self._text_bound(value)
            text = str(value) if conversion == "s" else repr(value) if conversion == "r" else ascii(value)
        self._check_text(len(text))
        return text

    def _format_value(self, value: Any, conversion: int, spec: str) -> str:
        if conversion != -1:
            value = self._text(value, chr(conversion))
        if not spec:
            return self._text(value, "s")
        self._check_spec(spec)
        if value.__class__ not in _SCALAR_TYPES:
            raise TypeError(f"unsupported format string passed to {_type_name(value)}.__format__")
        text = format(value, spec)
        self._check_text(len(text))
        return text

    def _check_spec(self, spec: str) -> None:
        for run in _DIGIT_RUNS.findall(spec):
            if len(run) > 6 or int(run) > MAX_FORMAT_WIDTH:
                raise _budget()

    def _percent_format(self, template: str, values: Any) -> str:
        directives = 0
        named = 0
        for match in _PERCENT_DIRECTIVE.finditer(template):
            if match.group("kind") == "%":
                continue
            directives += 1
            if match.group("key") is not None:
                named += 1
            for part in (match.group("width"), match.group("precision")):
                if part == "*":
                    raise _Refusal("'*' width in a % format")
                if part is not None and (len(part) > 6 or int(part) > MAX_FORMAT_WIDTH):
                    raise _budget()
        if values.__class__ is tuple:
            bound = sum(self._text_bound(v) for v in values)
        else:
            bound = self._text_bound(values) * max(named, 1)
        if len(template) + directives * MAX_FORMAT_WIDTH + bound > _TRANSIENT_TEXT_CAP:
            raise _budget()
        text = template % values
        self._check_text(len(text))
        return text

    def _str_format(self, template: str, arguments: _Arguments) -> str:
        pieces: List[str] = []
        total = 0
        automatic = 0
        numbering = None  # "auto" | "manual"
        for literal, field, spec, conversion in _string.formatter_parser(template):
            pieces.append(literal)
            total += len(literal)
            if field is None:
                continue
            first, rest = _string.formatter_field_name_split(field)
            if first == "":
                if numbering == "manual":
                    raise ValueError("cannot switch from manual field specification to automatic field numbering")
                numbering = "auto"
                first = automatic
                automatic += 1
            elif first.__class__ is int:
                if numbering == "auto":
                    raise ValueError("cannot switch from automatic field numbering to manual field specification")
                numbering = "manual"
            value = arguments.positional[first] if first.__class__ is int else arguments.keywords[first]
            for is_attribute, key in rest:
                if is_attribute:
                    raise _Refusal("attribute access in a format field")
                value = value[key]
            if spec and "{" in spec:
                raise _Refusal("nested replacement field in a format spec")
            text = self._format_value(value, ord(conversion) if conversion else -1, spec)
            total += len(text)
            self._check_text(total)
            pieces.append(text)
        return "".join(pieces)


# --------------------------------------------------------------------------------------------
# Helpers shared by methods and builtins


def _target_names(target: ast.AST, names: Set[str]) -> None:
    for node in ast.walk(target):
        if node.__class__ is ast.Name:
            names.add(node.id)


def _positional(arguments: _Arguments, minimum: int, maximum: int, what: str, keywords=()) -> list:
    """The positional arguments of a call taking ``minimum``..``maximum`` of them."""
    for key in arguments.keywords:
        if key not in keywords:
            raise _Refusal(f"unsupported keyword argument {key}= for {what}")
    count = len(arguments.positional)
    if not minimum <= count <= maximum:
        raise TypeError(f"{what}() takes {minimum}..{maximum} arguments ({count} given)")
    return arguments.positional


def _scalar_arguments(values: Iterable[Any], what: str) -> None:
    for value in values:
        if value.__class__ not in _SCALAR_TYPES and not (
            value.__class__ is tuple and all(v.__class__ is str for v in value)
        ):
            raise TypeError(f"{what}: unexpected argument of type {_type_name(value)}")


# -- str methods


def _str_join(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> str:
    (iterable,) = _positional(arguments, 1, 1, "str.join")
    items = self._materialize(iterable, node)
    if any(item.__class__ is not str for item in items):
        return receiver.join(items)  # raises the TypeError Python would
    self._check_text(sum(map(len, items)) + len(receiver) * max(len(items) - 1, 0))
    return receiver.join(items)


def _str_format_method(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> str:
    return self._str_format(receiver, arguments)


def _str_replace(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> str:
    values = _positional(arguments, 2, 3, "str.replace")
    _scalar_arguments(values, "str.replace")
    old, new = values[0], values[1]
    if old.__class__ is str and new.__class__ is str:
        occurrences = receiver.count(old) if old else len(receiver) + 1
        if len(values) == 3 and values[2].__class__ is int and values[2] >= 0:
            occurrences = min(occurrences, values[2])
        self._check_text(len(receiver) + occurrences * (len(new) - len(old)))
    return receiver.replace(*values)


def _str_plain_method(name: str) -> Callable:
    method = getattr(str, name)
    keywords = ("sep", "maxsplit") if name in ("split", "rsplit") else ()

    def call(self: ModuleEvaluator, receiver: str, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 0, 3, f"str.{name}", keywords)
        _scalar_arguments(list(values) + list(arguments.keywords.values()), f"str.{name}")
        result = method(receiver, *values, **arguments.keywords)
        if result.__class__ is str:
            self._check_text(len(result))
        elif result.__class__ is list:
            self._check_items(len(result))
        return result

    return call


# -- dict methods


def _dict_get(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "dict.get")
    if values[0].__class__ is not str:
        self._charge_deep(values[0])
    return receiver.get(*values)


def _dict_view(name: str) -> Callable:
    def call(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
        _positional(arguments, 0, 0, f"dict.{name}")
        return getattr(receiver, name)()

    return call


def _any_copy(self: ModuleEvaluator, receiver: Any, arguments: _Arguments, node) -> Any:
    _positional(arguments, 0, 0, f"{_type_name(receiver)}.copy")
    return self._copy(receiver, deep=False)


def _dict_update(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> None:
    values = _positional(arguments, 0, 1, "dict.update", keywords=tuple(arguments.keywords))
    self._ensure_mutable(receiver)
    table = self._dict_table(receiver)
    if values:
        source = values[0]
        if source.__class__ is not dict:
            source = _builtin_dict(self, _Arguments([source], [None], {}, {}), node)
        self._merge(receiver, table, source, node)
    for key, value in arguments.keywords.items():
        receiver[key] = value
        table[key] = arguments.keyword_nodes.get(key)
    self._check_items(len(receiver))
    return None


def _dict_setdefault(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "dict.setdefault")
    key = values[0]
    if key.__class__ is not str:
        self._charge_deep(key)
    if key in receiver:
        return receiver[key]
    self._ensure_mutable(receiver)
    receiver[key] = values[1] if len(values) > 1 else None
    self._dict_table(receiver)[key] = arguments.positional_nodes[0]
    self._check_items(len(receiver))
    return receiver[key]


def _dict_pop(self: ModuleEvaluator, receiver: dict, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "dict.pop")
    self._ensure_mutable(receiver)
    result = receiver.pop(*values)
    table = self._table_of(receiver)
    if table is not None:
        table.pop(values[0], None)
    return result


# -- list methods


def _list_append(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    (value,) = _positional(arguments, 1, 1, "list.append")
    self._ensure_mutable(receiver)
    self._check_items(len(receiver) + 1)
    table = self._list_table(receiver)
    receiver.append(value)
    table.append(arguments.positional_nodes[0])


def _list_extend_method(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    (iterable,) = _positional(arguments, 1, 1, "list.extend")
    self._list_extend(receiver, iterable, node)


def _list_insert(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    position, value = _positional(arguments, 2, 2, "list.insert")
    if position.__class__ not in (int, bool):
        raise TypeError("list.insert: index must be an integer")
    self._ensure_mutable(receiver)
    self._check_items(len(receiver) + 1)
    table = self._list_table(receiver)
    receiver.insert(position, value)
    table.insert(position, arguments.positional_nodes[1])


def _list_pop(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 0, 1, "list.pop")
    self._ensure_mutable(receiver)
    position = values[0] if values else -1
    table = self._list_table(receiver)
    result = receiver.pop(position)
    table.pop(position)
    return result


def _list_remove(self: ModuleEvaluator, receiver: list, arguments: _Arguments, node) -> None:
    (value,) = _positional(arguments, 1, 1, "list.remove")
    self._ensure_mutable(receiver)
    self._charge_deep(receiver, value)
    position = receiver.index(value)
    del receiver[position]
    del self._list_table(receiver)[position]


def _sequence_search(name: str) -> Callable:
    def call(self: ModuleEvaluator, receiver: Any, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 1, 3 if name == "index" else 1, f"{_type_name(receiver)}.{name}")
        self._charge_deep(receiver, values[0])
        return getattr(receiver, name)(*values)

    return call


# -- builtins


def _builtin_dict(self: ModuleEvaluator, arguments: _Arguments, node) -> dict:
    values = _positional(arguments, 0, 1, "dict", keywords=tuple(arguments.keywords))
    result: dict = {}
    table: dict = {}
    if values:
        source = values[0]
        if source.__class__ is dict:
            self._merge(result, table, source, node)
        else:
            for pair in self._materialize(source, node):
                items = self._materialize(pair, node)
                if len(items) != 2:
                    raise ValueError(f"dictionary update sequence element has length {len(items)}; 2 is required")
                if items[0].__class__ is not str:
                    self._charge_deep(items[0])
                result[items[0]] = items[1]
                table.pop(items[0], None)
            self._check_items(len(result))
    for key, value in arguments.keywords.items():
        result[key] = value
        table[key] = arguments.keyword_nodes.get(key)
    return self._remember(result, {k: v for k, v in table.items() if v is not None})


def _builtin_list(self: ModuleEvaluator, arguments: _Arguments, node) -> list:
    values = _positional(arguments, 0, 1, "list")
    if not values:
        return []
    items = self._materialize(values[0], node)
    return self._remember(items, self._items_table(values[0], len(items)))


def _builtin_tuple(self: ModuleEvaluator, arguments: _Arguments, node) -> tuple:
    values = _positional(arguments, 0, 1, "tuple")
    if not values:
        return ()
    items = self._materialize(values[0], node)
    return self._remember(tuple(items), self._items_table(values[0], len(items)))


def _builtin_set(kind: type) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 0, 1, kind.__name__)
        if not values:
            return kind()
        items = self._materialize(values[0], node, ordered=False)
        self._charge_deep(items)
        return kind(items)

    return call


def _builtin_sorted(self: ModuleEvaluator, arguments: _Arguments, node) -> list:
    (iterable,) = _positional(arguments, 1, 1, "sorted", keywords=("reverse",))
    reverse = self._truth(arguments.keywords.get("reverse", False))
    items = self._materialize(iterable, node, ordered=False)
    self._charge_deep(items)
    self._charge_deep(items)  # about two comparisons per item
    table = self._items_table(iterable, len(items))
    order = sorted(range(len(items)), key=items.__getitem__, reverse=reverse)
    return self._remember([items[i] for i in order], [table[i] for i in order])


def _builtin_len(self: ModuleEvaluator, arguments: _Arguments, node) -> int:
    (value,) = _positional(arguments, 1, 1, "len")
    if not isinstance(value, (str, list, tuple, dict, set, frozenset, range) + _VIEW_TYPES):
        raise TypeError(f"object of type '{_type_name(value)}' has no len()")
    return len(value)


def _builtin_str(self: ModuleEvaluator, arguments: _Arguments, node) -> str:
    values = _positional(arguments, 0, 1, "str")
    return self._text(values[0], "s") if values else ""


def _builtin_number(kind: type) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
        values = _positional(arguments, 0, 2 if kind is int else 1, kind.__name__, keywords=("base",) if kind is int else ())
        values = list(values) + ([arguments.keywords["base"]] if "base" in arguments.keywords else [])
        for value in values:
            if value.__class__ not in (str, int, float, bool):
                raise TypeError(f"{kind.__name__}() argument must be a string or a number, not '{_type_name(value)}'")
        return self._check_int(kind(*values))

    return call


def _builtin_bool(self: ModuleEvaluator, arguments: _Arguments, node) -> bool:
    values = _positional(arguments, 0, 1, "bool")
    return self._truth(values[0]) if values else False


def _builtin_extreme(pick: Callable) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
        name = pick.__name__
        values = _positional(arguments, 1, MAX_ITEMS, name, keywords=("default",))
        items = self._materialize(values[0], node, ordered=False) if len(values) == 1 else list(values)
        self._charge_deep(items)
        if not items and "default" in arguments.keywords:
            return arguments.keywords["default"]
        return pick(items)

    return call


def _builtin_sum(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "sum", keywords=("start",))
    start = values[1] if len(values) > 1 else arguments.keywords.get("start", 0)
    items = self._materialize(values[0], node, ordered=False)
    if not all(v.__class__ in _NUMBER_TYPES for v in items) or start.__class__ not in _NUMBER_TYPES:
        raise _Refusal("sum() of values other than numbers")
    return self._check_int(sum(items, start))


def _builtin_any_all(pick: Callable) -> Callable:
    def call(self: ModuleEvaluator, arguments: _Arguments, node) -> bool:
        (iterable,) = _positional(arguments, 1, 1, pick.__name__)
        return pick(self._truth(v) for v in self._materialize(iterable, node, ordered=False))

    return call


def _builtin_enumerate(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "enumerate", keywords=("start",))
    start = values[1] if len(values) > 1 else arguments.keywords.get("start", 0)
    if start.__class__ not in (int, bool):
        raise TypeError("enumerate() start must be an integer")
    return enumerate(self._iterable(values[0], node), start)


def _builtin_zip(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 0, 64, "zip", keywords=("strict",))
    strict = self._truth(arguments.keywords.get("strict", False))
    return zip(*(self._iterable(v, node) for v in values), strict=strict)


def _builtin_range(self: ModuleEvaluator, arguments: _Arguments, node) -> range:
    values = _positional(arguments, 1, 3, "range")
    if any(v.__class__ not in (int, bool) for v in values):
        raise TypeError("range() arguments must be integers")
    result = range(*values)
    self._check_items(len(result))
    return result


def _builtin_reversed(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    (value,) = _positional(arguments, 1, 1, "reversed")
    if value.__class__ not in (list, tuple, str, range, dict) and not isinstance(value, _VIEW_TYPES):
        raise TypeError(f"'{_type_name(value)}' object is not reversible")
    return reversed(value)


def _builtin_abs(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    (value,) = _positional(arguments, 1, 1, "abs")
    if value.__class__ not in _NUMBER_TYPES:
        raise TypeError(f"bad operand type for abs(): '{_type_name(value)}'")
    return abs(value)


def _builtin_round(self: ModuleEvaluator, arguments: _Arguments, node) -> Any:
    values = _positional(arguments, 1, 2, "round", keywords=("ndigits",))
    if "ndigits" in arguments.keywords:
        values = list(values) + [arguments.keywords["ndigits"]]
    if values[0].__class__ not in _NUMBER_TYPES or any(v.__class__ not in (int, bool, _NONE_TYPE) for v in values[1:]):
        raise TypeError("round() needs a number (and an integer number of digits)")
    return round(*values)


_BUILTINS: Dict[str, Callable] = {
    "dict": _builtin_dict,
    "list": _builtin_list,
    "tuple": _builtin_tuple,
    "set": _builtin_set(set),
    "frozenset": _builtin_set(frozenset),
    "sorted": _builtin_sorted,
    "len": _builtin_len,
    "str": _builtin_str,
    "int": _builtin_number(int),
    "float": _builtin_number(float),
    "bool": _builtin_bool,
    "min": _builtin_extreme(min),
    "max": _builtin_extreme(max),
    "sum": _builtin_sum,
    "any": _builtin_any_all(any),
    "all": _builtin_any_all(all),
    "enumerate": _builtin_enumerate,
    "zip": _builtin_zip,
    "range": _builtin_range,
    "reversed": _builtin_reversed,
    "abs": _builtin_abs,
    "round": _builtin_round,
}
_PYTHON_BUILTIN_NAMES = frozenset(dir(builtins))

_STR_METHODS: Dict[str, Callable] = {
    "join": _str_join,
    "format": _str_format_method,
    "replace": _str_replace,
}
for _name in (
    "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit", "startswith", "endswith",
    "title", "capitalize", "count", "find",
):
    _STR_METHODS[_name] = _str_plain_method(_name)

_METHODS: Dict[type, Dict[str, Callable]] = {
    str: _STR_METHODS,
    dict: {
        "get": _dict_get,
        "keys": _dict_view("keys"),
        "values": _dict_view("values"),
        "items": _dict_view("items"),
        "copy": _any_copy,
        "update": _dict_update,
        "setdefault": _dict_setdefault,
        "pop": _dict_pop,
    },
    list: {
        "copy": _any_copy,
        "index": _sequence_search("index"),
        "count": _sequence_search("count"),
        "append": _list_append,
        "extend": _list_extend_method,
        "insert": _list_insert,
        "pop": _list_pop,
        "remove": _list_remove,
    },
    tuple: {"index": _sequence_search("index"), "count": _sequence_search("count")},
    set: {"copy": _any_copy},
}

_BINARY: Dict[type, Callable] = {
    ast.Add: ModuleEvaluator._add,
    ast.Sub: ModuleEvaluator._sub,
    ast.Mult: ModuleEvaluator._mult,
    ast.Div: ModuleEvaluator._true_div,
    ast.FloorDiv: ModuleEvaluator._floor_div,
    ast.Mod: ModuleEvaluator._mod,
    ast.Pow: ModuleEvaluator._pow,
    ast.BitOr: ModuleEvaluator._bit_or,
    ast.BitAnd: ModuleEvaluator._bit_and,
    ast.BitXor: ModuleEvaluator._bit_xor,
    ast.LShift: ModuleEvaluator._left_shift,
    ast.RShift: ModuleEvaluator._right_shift,
}

# The dispatch tables: one handler per supported node type; anything else is refused by name.
_EXPRESSIONS: Dict[type, Callable] = {
    ast.Constant: ModuleEvaluator._eval_constant,
    ast.Name: ModuleEvaluator._eval_name,
    ast.Dict: ModuleEvaluator._eval_dict,
    ast.List: ModuleEvaluator._eval_list,
    ast.Tuple: ModuleEvaluator._eval_tuple,
    ast.Set: ModuleEvaluator._eval_set,
    ast.JoinedStr: ModuleEvaluator._eval_joined_str,
    ast.FormattedValue: ModuleEvaluator._eval_formatted_value,
    ast.UnaryOp: ModuleEvaluator._eval_unary,
    ast.BoolOp: ModuleEvaluator._eval_bool_op,
    ast.BinOp: ModuleEvaluator._eval_bin_op,
    ast.Compare: ModuleEvaluator._eval_compare,
    ast.IfExp: ModuleEvaluator._eval_if_exp,
    ast.Subscript: ModuleEvaluator._eval_subscript,
    ast.Attribute: ModuleEvaluator._eval_attribute,
    ast.Call: ModuleEvaluator._eval_call,
    ast.ListComp: ModuleEvaluator._eval_list_comp,
    ast.SetComp: ModuleEvaluator._eval_set_comp,
    ast.DictComp: ModuleEvaluator._eval_dict_comp,
    ast.GeneratorExp: ModuleEvaluator._eval_generator,
}

_STATEMENTS: Dict[type, Callable] = {
    ast.Expr: ModuleEvaluator._exec_expr,
    ast.Pass: ModuleEvaluator._exec_pass,
    ast.Break: ModuleEvaluator._exec_break,
    ast.Continue: ModuleEvaluator._exec_continue,
    ast.Return: ModuleEvaluator._exec_return,
    ast.Assign: ModuleEvaluator._exec_assign,
    ast.AnnAssign: ModuleEvaluator._exec_ann_assign,
    ast.AugAssign: ModuleEvaluator._exec_aug_assign,
    ast.If: ModuleEvaluator._exec_if,
    ast.For: ModuleEvaluator._exec_for,
    ast.Assert: ModuleEvaluator._exec_assert,
}
