"""The module's functions, each analysed once on its own into ``FunctionFacts``.

Only a function the module's semantic model says certainly runs (``SemanticModel.functions``) is
followed: a function defined twice, assigned over, imported over, shadowed by a class or rebound
through ``global`` is unknown, and so is a decorated one when its body is what matters (the decorator may wrap the returns, catch the exceptions or
change the signature; not ``functools.wraps``, which returns the function it is given). A function being analysed is unknown to the calls inside it (recursion).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple, Union

from hermes_lint.analysis.event_loops import event_loop_call, mentions_event_loops
from hermes_lint.analysis.raises import certainly_caught
from hermes_lint.analysis.reachability import completes
from hermes_lint.model.scopes import BINDING_CLASSES, FUNCTION_NODES, ancestors, parameter_names, scope_walk
from hermes_lint.model.semantic import NESTED, CallableNode, FunctionNode

_FACT_CLASSES = frozenset({ast.Return, ast.Raise, ast.Call})
_YIELD_CLASSES = frozenset({ast.Yield, ast.YieldFrom})


@dataclass
class ReturnFact:
    node: Union[ast.Return, ast.expr]  # the ``return`` statement, or a lambda's body
    value: Optional[ast.expr]
    in_except: bool  # lexically inside an ``except`` block of the function
    except_names: Tuple[str, ...]  # names bound by the enclosing ``except ... as name`` blocks


@dataclass
class FunctionFacts:
    """One module function (or a handler lambda) analysed on its own."""

    name: str  # "" for a lambda
    node: CallableNode
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
    # For a nested def, what its enclosing functions bind: their names, not the module's, are
    # what those names mean inside it (values unknown here).
    enclosing: FrozenSet[str] = frozenset()
    # The one walk of the function's own scope: (node, parent) pairs and parent by node id.
    pairs: List[Tuple[ast.AST, ast.AST]] = field(default_factory=list, repr=False)
    parents: Dict[int, ast.AST] = field(default_factory=dict, repr=False)

    def is_local(self, name: str) -> bool:
        return name in self.params or name in self.bindings or name in self.enclosing


class ModuleFunctions:
    """The functions of one module and how names inside them resolve (imports, builtins)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.imports = ctx.index.imports
        self.semantic = ctx.semantic
        self.functions = ctx.semantic.functions
        self._facts: Dict[str, Optional[FunctionFacts]] = {}
        self._lambda_facts: Dict[int, FunctionFacts] = {}
        # Cheap prefilter: most tool files never start an event loop, so HRM106 need not follow
        # every helper a handler calls.
        self.mentions_event_loops = mentions_event_loops(ctx.text)

    def facts(self, name: str) -> Optional[FunctionFacts]:
        """The facts of module function ``name``, or of the nested def qualified name ``name``
        denotes (``make.<locals>.handle``: its enclosing functions' names are its locals too)."""
        if name not in self._facts:
            node: Optional[FunctionNode] = self.functions.get(name)
            enclosing: FrozenSet[str] = frozenset()
            if node is None and NESTED in name:
                found = self.semantic.nested_function(name)
                if found is not None:
                    node, enclosing = found
            self._facts[name] = None  # while being analysed: a recursive call is unknown
            if node is not None:
                try:
                    self._facts[name] = analyse_function(node, node.name, self, enclosing)
                except RecursionError:  # absurdly nested code: unknown, never a crash
                    self._facts[name] = None
        return self._facts[name]

    def lambda_facts(self, node: ast.Lambda) -> FunctionFacts:
        """The facts of a handler lambda (a RecursionError is left to the caller)."""
        if id(node) not in self._lambda_facts:
            self._lambda_facts[id(node)] = analyse_function(node, "", self)
        return self._lambda_facts[id(node)]

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

    def is_import(self, node: ast.AST, fn: FunctionFacts, *targets: str) -> bool:
        """``node`` names one of ``targets`` ("json.dumps") through this module's imports."""
        root = node.value if isinstance(node, ast.Attribute) else node
        return isinstance(root, ast.Name) and not fn.is_local(root.id) and self.semantic.import_target(node) in targets

    def is_builtin(self, node: ast.AST, fn: FunctionFacts, names) -> bool:
        return (
            isinstance(node, ast.Name)
            and node.id in names
            and not fn.is_local(node.id)
            and self.semantic.is_builtin(node.id)
        )

    def is_registry_helper(self, node: ast.AST, fn: FunctionFacts, helper: str) -> bool:
        """``tool_error``/``tool_result`` imported from the tools registry."""
        return isinstance(node, ast.Name) and not fn.is_local(node.id) and self.semantic.is_registry_helper(node, helper)


def analyse_function(node: CallableNode, name: str, analyzer: ModuleFunctions,
                     enclosing: FrozenSet[str] = frozenset()) -> FunctionFacts:
    pairs = scope_walk(node)  # one walk (a fresh list), shared by everything below
    # One pass sorts out what the rest looks at: parents, and the few kinds of node tested.
    parents: Dict[int, ast.AST] = {}
    binding_pairs: List[Tuple[ast.AST, ast.AST]] = []
    fact_nodes: List[ast.AST] = []
    comprehensions: List[ast.comprehension] = []
    has_yield = False
    binding_kinds, fact_kinds, yield_kinds = BINDING_CLASSES, _FACT_CLASSES, _YIELD_CLASSES
    for pair in pairs:
        child = pair[0]
        parents[id(child)] = pair[1]
        cls = child.__class__
        if cls in binding_kinds:
            binding_pairs.append(pair)
        elif cls in fact_kinds:
            fact_nodes.append(child)
        elif cls is ast.comprehension:
            comprehensions.append(child)  # type: ignore[arg-type]  # class tested by identity
        elif cls in yield_kinds:
            has_yield = True
    is_lambda = isinstance(node, ast.Lambda)
    facts = FunctionFacts(
        name=name,
        node=node,
        is_async=isinstance(node, ast.AsyncFunctionDef),
        # ``functools.wraps`` returns the function it decorates: its body is the function's
        decorated=not all(map(analyzer.semantic.returns_decorated, getattr(node, "decorator_list", ()))),
        is_generator=has_yield,
        returns=[],
        falls_off_line=None,
        uncaught_raises=[],
        event_loop_calls=[],
        called_functions=[],
        params=parameter_names(node),
        bindings=analyzer.semantic.bindings(node, binding_pairs, comprehensions),
        enclosing=enclosing,
        pairs=pairs,
        parents=parents,
    )
    if isinstance(node, ast.Lambda):
        facts.returns.append(ReturnFact(node.body, node.body, False, ()))
    else:
        if completes(node.body, analyzer, facts):
            facts.falls_off_line = node.body[-1].end_lineno or node.body[-1].lineno
    for child in fact_nodes:
        if isinstance(child, ast.Return) and not is_lambda:
            handlers = [p for p in ancestors(child, parents) if isinstance(p, ast.ExceptHandler)]
            names = tuple(h.name for h in handlers if h.name)
            facts.returns.append(ReturnFact(child, child.value, bool(handlers), names))
        elif isinstance(child, ast.Raise) and not certainly_caught(child, parents):
            facts.uncaught_raises.append(child)
        elif isinstance(child, ast.Call):
            loop = event_loop_call(child, analyzer, facts) if analyzer.mentions_event_loops else None
            if loop:
                facts.event_loop_calls.append((child, loop))
            callee = analyzer.is_module_call(child, facts)
            if callee and callee not in facts.called_functions:
                facts.called_functions.append(callee)
    return facts
