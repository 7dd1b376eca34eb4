"""A function's own scope: one walk of its nodes, its parameters and the names it binds.

Nested ``def``s, lambdas and classes are scopes of their own and are not entered; comprehension
targets are bound in the comprehension's scope, not the function's.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

from hermes_lint.model.context import CHILD_FIELDS

if TYPE_CHECKING:
    from hermes_lint.model.semantic import CallableNode, FunctionNode

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

# Node kinds are tested by exact class (``ast.parse`` makes no subclasses): a set lookup, where
# ``isinstance`` against a tuple tries every entry for each of the many nodes that match none.
SCOPE_CLASSES = frozenset(SCOPE_NODES)
COMPREHENSION_CLASSES = frozenset(COMPREHENSIONS)
FUNCTION_CLASSES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})
# Every node kind ``bindings`` looks at; any other is skipped with one test.
BINDING_CLASSES = frozenset({
    ast.Assign, ast.AnnAssign, ast.Name, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
    ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.ExceptHandler,
    ast.MatchAs, ast.MatchStar, ast.MatchMapping,
})


def scope_walk(node: ast.AST) -> List[Tuple[ast.AST, ast.AST]]:
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
            children: Sequence[ast.AST]
            if isinstance(value, node_type):
                children = (value,)
            elif isinstance(value, list):
                children = value
            else:
                continue
            for child in children:
                if isinstance(child, node_type):
                    append((child, parent))
                    if child.__class__ not in SCOPE_CLASSES:
                        todo.append(child)
    return pairs


def bindings(
    fn: ast.AST,
    binding_pairs: Optional[List[Tuple[ast.AST, ast.AST]]] = None,
    comprehensions: Sequence[ast.comprehension] = (),
) -> Dict[str, Optional[List[ast.expr]]]:
    """Local names: the values of their plain ``name = value`` assignments, or None if bound otherwise.

    ``binding_pairs``: the (child, parent) pairs of ``fn``'s scope whose child is of a
    ``BINDING_CLASSES`` kind, in walk order, with the scope's ``comprehensions``, when the
    caller has them (``analyse_function`` sorts its one walk once); else ``fn`` is walked.
    """
    result: Dict[str, Optional[List[ast.expr]]] = {}

    def other(name: str) -> None:
        result[name] = None

    if binding_pairs is None:
        pairs = scope_walk(fn)
        binding_pairs = [pair for pair in pairs if pair[0].__class__ in BINDING_CLASSES]
        comprehensions = [child for child, _ in pairs if child.__class__ is ast.comprehension]
    # Comprehension targets live in the comprehension's own scope.
    hidden = {id(n) for child in comprehensions for n in ast.walk(child.target)}
    for child, parent in binding_pairs:
        if hidden and id(child) in hidden:
            continue
        if isinstance(child, ast.Assign) or (isinstance(child, ast.AnnAssign) and child.value is not None):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            value = child.value
            for target in targets:
                if isinstance(target, ast.Name):
                    values = result.setdefault(target.id, [])
                    if values is not None and value is not None:
                        values.append(value)
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


def parameter_names(fn: "CallableNode") -> Set[str]:
    args = fn.args
    every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _targets(stmt: Union[ast.Assign, ast.AnnAssign]) -> List[ast.expr]:
    return stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]


def ancestors(node: ast.AST, parents: Dict[int, ast.AST]) -> Iterator[ast.AST]:
    while id(node) in parents:
        node = parents[id(node)]
        yield node


def scope_binding(scope: FunctionNode, name: str,
                  returns_function: Optional[Callable[[ast.expr], bool]] = None) -> Tuple[bool, Optional[FunctionNode]]:
    """Whether ``scope`` binds ``name`` (else look outward), and the def that is its only
    binding (None when it is bound otherwise or more than once, or by a decorated def unless
    ``returns_function`` says that each of its decorators returns the function it is given)."""
    if name in parameter_names(scope):
        return True, None
    binders: List[ast.AST] = []
    for child, _ in scope_walk(scope):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and child.name == name:
            binders.append(child)
        elif isinstance(child, ast.Name) and child.id == name and not isinstance(child.ctx, ast.Load):
            binders.append(child)
        elif isinstance(child, (ast.Import, ast.ImportFrom)) and any(
            (alias.asname or alias.name).split(".")[0] == name for alias in child.names
        ):
            binders.append(child)
        elif isinstance(child, (ast.Global, ast.Nonlocal)) and name in child.names:
            binders.append(child)
        elif getattr(child, "name", None) == name or getattr(child, "rest", None) == name:
            binders.append(child)  # except ... as name, match captures
    if not binders:
        return False, None
    only = binders[0]
    if len(binders) == 1 and isinstance(only, FUNCTION_NODES) and (
        not only.decorator_list or (returns_function is not None and all(map(returns_function, only.decorator_list)))
    ):
        return True, only
    return True, None
