"""Questions about the syntax tree: positions, names, statement nesting, function bodies.

The walkers that visit every statement or node read a node's class once (``cls``) and compare it
with each kind in turn, the cheapest dispatch there is. A type checker cannot narrow a node
through a class held in a variable, so those walkers type the node ``Any``.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, Union

from hermes_lint.model.context import STATEMENT_LISTS, child_nodes, child_statements

# Methods that change the object they are called on: seen at module level, they make the name they
# are called on a non-constant (unless the call is a step that builds it: ``built_values``).
MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
        "sort", "reverse", "add", "discard", "difference_update", "intersection_update",
        "symmetric_difference_update",
    }
)
# Methods that put their arguments inside the object they are called on.
_STORING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})

# Statements whose nested statements run at module level too (def and class bodies do not).
_COMPOUND_STATEMENTS = frozenset(
    {ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match}
    | ({ast.TryStar} if hasattr(ast, "TryStar") else set())
)


# A node with a source position: what a binding, a refusal or a module "time" points at.
Positioned = Union[ast.stmt, ast.expr, ast.excepthandler]

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def _start(node: Positioned) -> Tuple[int, int]:
    return (node.lineno, node.col_offset)


def _end(node: Positioned) -> Tuple[int, int]:
    return (node.end_lineno or node.lineno, node.end_col_offset or 0)


def _root_name(node: ast.AST) -> Optional[str]:
    """``X`` for ``X``, ``X.a``, ``X["k"].b``, ``X.get("k").append``; None otherwise."""
    while True:
        if node.__class__ is ast.Name:
            return node.id
        if node.__class__ is ast.Attribute or node.__class__ is ast.Subscript:
            node = node.value
        elif node.__class__ is ast.Call:
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
        if node.__class__ is ast.Attribute:
            attributes.append(node.attr)
            node = node.value
        elif node.__class__ is ast.Subscript:
            attributes.clear()  # only the attributes adjacent to the root name the module
            node = node.value
        elif node.__class__ is ast.Call:
            attributes.clear()
            node = node.func
        else:
            return "".join("." + a for a in reversed(attributes))


def _is_main_name_test(node: ast.AST) -> Optional[bool]:
    """True for ``__name__ == "__main__"``, False for ``__name__ != "__main__"`` (either order),
    None for any other test."""
    if node.__class__ is not ast.Compare or len(node.ops) != 1:
        return None
    operator = node.ops[0].__class__
    if operator is not ast.Eq and operator is not ast.NotEq:
        return None
    sides = (node.left, node.comparators[0])
    names = [s for s in sides if s.__class__ is ast.Name and s.id == "__name__"]
    texts = [s for s in sides if s.__class__ is ast.Constant and s.value == "__main__"]
    if len(names) != 1 or len(texts) != 1:
        return None
    return operator is ast.Eq


def _imported_child_statements(stmt: ast.stmt) -> Iterator[ast.stmt]:
    """``child_statements`` without the branch of an ``if __name__ == "__main__":`` that never
    runs when the module is imported (its body; the ``else`` of a ``!=`` test)."""
    if stmt.__class__ is ast.If:
        main = _is_main_name_test(stmt.test)
        if main is not None:
            return iter(stmt.orelse if main else stmt.body)
    return child_statements(stmt)


_ANYWHERE = (None,)  # a path into a value that cannot be followed


def _access_path(node: ast.AST) -> Tuple[Optional[str], tuple]:
    """(root name, constant keys from it) for ``x["a"][0]``: ``("x", ("a", 0))``; a step that is
    not a constant key (attribute, call, computed index) is None."""
    path: List[Any] = []
    while True:
        if node.__class__ is ast.Name:
            return node.id, tuple(reversed(path))
        if node.__class__ is ast.Subscript:
            key = node.slice
            path.append(key.value if key.__class__ is ast.Constant and key.value.__class__ in (str, int) else None)
            node = node.value
        elif node.__class__ is ast.Attribute:
            path.append(None)
            node = node.value
        elif node.__class__ is ast.Call:
            path.append(None)
            node = node.func
        else:
            return None, ()


def _target_names(target: ast.AST, names: Set[str]) -> None:
    for node in ast.walk(target):
        if node.__class__ is ast.Name:
            names.add(node.id)


def _expression_roots(stmt: Any) -> List[ast.AST]:
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
        if field in STATEMENT_LISTS:
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


def _parameter_names(fdef: FunctionNode) -> Set[str]:
    spec = fdef.args
    names = {a.arg for a in spec.posonlyargs + spec.args + spec.kwonlyargs}
    return names | {a.arg for a in (spec.vararg, spec.kwarg) if a is not None}


# How a local name relates to an expression it is given (see _local_assignments).
IS = "is"  # x = value: x is value's object
ELEMENT_OF = "element of"  # for x in value / a, x = value: x is inside value's object
HOLDS = "holds"  # x.append(value), x[k] = value, x += value: value's object is inside x


def _local_assignments(fdef: FunctionNode) -> Dict[str, List[Tuple[ast.AST, str]]]:
    """Local name -> the expressions it is given, each with how (``IS``, ``ELEMENT_OF``, ``HOLDS``)."""
    assignments: Dict[str, List[Tuple[ast.AST, str]]] = {}

    def bind(target: ast.AST, value: ast.AST, how: str) -> None:
        for node in ast.walk(target):
            if node.__class__ is ast.Name:
                assignments.setdefault(node.id, []).append((value, how if node is target else ELEMENT_OF))

    def holds(container: ast.AST, value: ast.AST) -> None:
        if container.__class__ is ast.Name:
            assignments.setdefault(container.id, []).append((value, HOLDS))

    node: Any  # see the module docstring
    for node in ast.walk(fdef):
        cls = node.__class__
        if cls is ast.Assign:
            for target in node.targets:
                if target.__class__ is ast.Subscript:
                    holds(target.value, node.value)
                else:
                    bind(target, node.value, IS)
        elif cls is ast.AnnAssign and node.value is not None:
            bind(node.target, node.value, IS)
        elif cls is ast.AugAssign:
            holds(node.target, node.value)
        elif cls is ast.For or cls is ast.AsyncFor or cls is ast.comprehension:
            bind(node.target, node.iter, ELEMENT_OF)
        elif cls is ast.withitem and node.optional_vars is not None:
            bind(node.optional_vars, node.context_expr, ELEMENT_OF)
        elif cls is ast.NamedExpr:
            bind(node.target, node.value, IS)
        elif cls is ast.Call and node.func.__class__ is ast.Attribute and node.func.attr in _STORING_METHODS:
            for argument in list(node.args) + [k.value for k in node.keywords]:
                holds(node.func.value, argument)
    return assignments


class _FunctionInfo:
    """What a module function's body needs before it can be run: its local names, or a problem."""

    __slots__ = ("local_names", "problem")

    def __init__(self, local_names: FrozenSet[str], problem: Optional[Tuple[str, ast.AST]]):
        self.local_names = local_names
        self.problem = problem  # (what, node) or None


def _analyse_function(fdef: FunctionNode) -> _FunctionInfo:
    arguments = fdef.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    if arguments.vararg:
        names.add(arguments.vararg.arg)
    if arguments.kwarg:
        names.add(arguments.kwarg.arg)
    problem: Optional[Tuple[str, ast.AST]] = None
    stack: List[ast.AST] = list(fdef.body)
    node: Any  # see the module docstring
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
        stack.extend(child_nodes(node))
    return _FunctionInfo(frozenset(names), problem)


_STATEMENT_WORDS = {
    ast.Try: "try", ast.With: "with", ast.AsyncWith: "async with", ast.While: "while loop",
    ast.Import: "import", ast.ImportFrom: "import", ast.Global: "global declaration",
    ast.Nonlocal: "nonlocal declaration", ast.ClassDef: "class definition",
    ast.Raise: "raise", ast.Delete: "del", ast.AsyncFor: "async for", ast.Match: "match",
}

_EXPRESSION_WORDS = {
    ast.Lambda: "lambda", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from",
    ast.NamedExpr: "assignment expression (:=)", ast.Starred: "starred expression here",
    ast.Slice: "slice here",
}

