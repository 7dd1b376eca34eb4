"""Which module-level names a module changes after binding them, and how: the statements that
build a name in order (``built_values``), the changes that make a name unknown (a mutation
through a function the module runs, an alias, a value that is not fresh), and the sources a value
shares with other names. A mixin of ``module_index._BindingIndex``, which collects what it reads."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Set, Tuple

from .built_values import building_steps, step_candidates
from .syntax import (
    _ANYWHERE,
    ELEMENT_OF,
    HOLDS,
    IS,
    MUTATING_METHODS as _MUTATING_METHODS,
    FunctionNode,
    Positioned,
    _access_path,
    _analyse_function,
    _local_assignments,
    _parameter_names,
    _root_name,
)

if TYPE_CHECKING:
    from .module_index import _Binding


# Expressions that always build a new object (so changing it changes nothing else).
_FRESH_EXPRESSIONS = frozenset(
    {ast.Dict, ast.List, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.JoinedStr,
     ast.Constant, ast.BinOp}
)

_FRESH_BUILTINS = frozenset({"dict", "list", "set", "tuple", "sorted", "frozenset"})
# Builtins that call a function they are given, with the other things they are given.
_CALLING_BUILTINS = frozenset({"map", "filter", "sorted", "min", "max"})


class _MutationAnalysis:
    """The questions about changes to module names; the collected facts are ``_BindingIndex``'s."""

    bindings: Dict[str, List["_Binding"]]
    mutations: Dict[str, List[Positioned]]
    calls: List[Tuple[str, ast.expr, List[ast.expr], Optional[str]]]
    _effects: Dict[str, Tuple[Set[str], bool]]
    _returned: Dict[str, Set[str]]
    _mutation_reasons: Optional[Dict[str, Tuple[str, Positioned]]]
    _body: List[ast.stmt]
    _steps: Optional[Dict[str, Tuple[ast.stmt, ...]]]
    _candidates: Optional[Dict[str, List[Tuple[ast.stmt, Positioned]]]]

    def steps_of(self, name: str) -> Tuple[ast.stmt, ...]:
        """The statements after its assignment that build module name ``name`` (``built_values``),
        when every other binding and change of it is one of them; else ()."""
        if self._steps is None:
            augmented = any(b.kind == "augassign" for bindings in self.bindings.values() for b in bindings[1:])
            self._steps = (
                building_steps(self._step_candidates(), self.bindings, self.mutations, self._is_fresh)
                if self.mutations or augmented
                else {}
            )
        return self._steps.get(name, ())

    def _step_candidates(self) -> Dict[str, List[Tuple[ast.stmt, Positioned]]]:
        if self._candidates is None:
            self._candidates = step_candidates(self._body)
        return self._candidates

    def mutation_of(self, name: str) -> Optional[Tuple[str, Positioned]]:
        """Why ``name``'s value may change after assignment, or None."""
        if self._mutation_reasons is None:
            self._mutation_reasons = self._mutation_closure()
        return self._mutation_reasons.get(name)

    def _mutation_closure(self) -> Dict[str, Tuple[str, Positioned]]:
        """Mutated names, plus every name whose object a mutated name may share.

        ``B = A; B.append(1)`` or ``for s in SCHEMAS: s["x"] = 1`` change ``A``/``SCHEMAS``
        without naming them: a mutated name taints the names its own value was computed from
        (its aliases, the names in its assigned expression, the names module functions called
        there refer to).
        """
        reasons: Dict[str, Tuple[str, Positioned]] = {}
        for name, nodes in self.mutations.items():
            if not self.steps_of(name):  # changed only by the steps that build it: known
                reasons[name] = (f"{name} is mutated at line {nodes[0].lineno}", nodes[0])
        for function, call, arguments, passed_to in self.calls:  # f(...) at import runs f's body
            if passed_to is not None and not self._calls_its_arguments(passed_to):
                continue  # registry.register(handler=f): f runs later, if ever
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
            stepped: Set[str] = set()
            for step, _ in self._step_candidates().get(name, ()):  # what they put in it changes with it
                stepped |= self._names_reached(step)
            for binding in self.bindings.get(name, ()):
                related = set(binding.aliases) | stepped
                if binding.value is not None:
                    related |= self._names_reached(binding.value)
                for other in sorted(related - {name}):
                    if other not in reasons:
                        reasons[other] = (f"{other} may be mutated through {name} at line {node.lineno}", node)
                        queue.append(other)
        return reasons

    def _function_effects(self, name: str) -> Tuple[Set[str], bool]:
        """(module names a module function may mutate, whether it may mutate its parameters'
        values), following the module functions it calls and the locals that alias globals."""
        effects = self._effects.get(name)
        if effects is not None:
            return effects
        self._effects[name] = (set(), False)  # recursion: assume nothing more on the way back
        mutated: Set[str] = set()
        mutates_parameters = False
        for fdef in self._definitions(name):
            parameters = _parameter_names(fdef)
            local_names = _analyse_function(fdef).local_names
            assignments = _local_assignments(fdef)
            pending = list(self._mutation_roots(fdef, name))  # (name, path to the changed object)
            seen: Set[Tuple[str, tuple]] = set()
            while pending:
                root, path = pending.pop()
                if root is None or (root, path) in seen:
                    continue
                seen.add((root, path))
                if root in parameters:
                    mutates_parameters = True
                elif root not in local_names:
                    mutated.add(root)
                else:  # a local: harmless if the changed object was built here, else trace it
                    for value, how in assignments.get(root, ()):
                        if how == IS:
                            pending.extend(self._sources_at(value, path, assignments))
                        elif how == ELEMENT_OF or path:  # what it holds changes only below it
                            pending.extend((source, _ANYWHERE) for source in self._value_sources(value))
        effects = self._effects[name] = (mutated, mutates_parameters)
        return effects

    def _calls_its_arguments(self, name: str) -> bool:
        """Whether a function passed to ``name`` may run now: ``name`` is a module function (we
        follow it) or a builtin that calls what it is given (``map(f, xs)``)."""
        return name in _CALLING_BUILTINS or bool(self._definitions(name))

    def _definitions(self, name: str) -> List[FunctionNode]:
        """The ``def`` and ``async def`` statements that bind module-level ``name``."""
        return [b.node for b in self.bindings.get(name, ()) if b.node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef)]

    def _mutation_roots(self, fdef: FunctionNode, name: str) -> Iterator[Tuple[Optional[str], tuple]]:
        """The objects ``fdef`` changes, as (name, path): ``x[k] = v`` and ``x.append(v)`` change
        ``("x", ())``; ``x["a"]["b"] = v`` changes ``("x", ("a",))``."""
        node: Any  # see ``syntax``
        for node in ast.walk(fdef):
            cls = node.__class__
            if (cls is ast.Subscript or cls is ast.Attribute) and node.ctx.__class__ is not ast.Load:
                yield _access_path(node.value)
            elif cls is ast.Call and node.func.__class__ is ast.Attribute:
                if node.func.attr in _MUTATING_METHODS or node.func.attr.startswith("__"):
                    yield _access_path(node.func.value)
            elif cls is ast.Name and node.id != name and node.ctx.__class__ is ast.Load:
                for root in self._function_effects(node.id)[0]:  # called here, or passed on
                    yield root, _ANYWHERE
            if cls is ast.Call and node.func.__class__ is ast.Name:
                arguments = list(node.args) + [k.value for k in node.keywords]
                calls_arguments = self._calls_its_arguments(node.func.id)
                for callee in [node.func] + arguments:  # f(x), or apply(f, x) / map(f, x)
                    if callee is not node.func and not calls_arguments:
                        break
                    if callee.__class__ is ast.Name and callee.id != name and self._function_effects(callee.id)[1]:
                        for argument in arguments:
                            if argument is not callee:
                                yield _access_path(argument)

    def _sources_at(self, value: Any, path: tuple, assignments) -> Iterator[Tuple[str, tuple]]:
        """Names whose values a change at ``path`` inside ``value`` may reach; nothing when the
        changed object is built by ``value`` itself (a literal, a comprehension, ``dict(...)``)."""
        while path and path[0] is not None:
            key = path[0]
            cls = value.__class__
            if cls is ast.Dict and None not in value.keys:
                matches = [v for k, v in zip(value.keys, value.values) if k.__class__ is ast.Constant and k.value == key]
                if not matches:
                    break
                value, path = matches[-1], path[1:]
            elif cls in (ast.List, ast.Tuple) and key.__class__ is int and -len(value.elts) <= key < len(value.elts):
                if any(e.__class__ is ast.Starred for e in value.elts):
                    break
                value, path = value.elts[key], path[1:]
            else:
                break
        if not path and self._is_fresh(value, assignments):
            return
        if value.__class__ is ast.Name:
            yield value.id, path
            return
        for source in self._value_sources(value):
            yield source, _ANYWHERE

    def _value_sources(self, value: Any, depth: int = 0) -> Set[str]:
        """Names whose objects the object of ``value`` may share (be, contain or be part of)."""
        cls = value.__class__
        if cls is ast.Name:
            return {value.id}
        if cls in (ast.Constant, ast.JoinedStr, ast.Compare, ast.UnaryOp, ast.Lambda):
            return set()
        if cls is ast.Call:
            func = value.func
            parts = list(value.args) + [k.value for k in value.keywords]
            sources: Set[str] = set()
            if func.__class__ is ast.Attribute:
                parts.append(func.value)  # x.get(k), x.copy(): parts of x
            elif func.__class__ is ast.Name and self._definitions(func.id):
                sources |= self._returned_sources(func.id, depth + 1)
            elif func.__class__ is not ast.Name:
                parts.append(func)
            for part in parts:
                sources |= self._value_sources(part, depth)
            return sources
        sources = set()
        for child in ast.iter_child_nodes(value):  # containers, operators, subscripts, ...
            if isinstance(child, (ast.expr, ast.comprehension, ast.keyword)):
                sources |= self._value_sources(child, depth)
        return sources

    def _returned_sources(self, name: str, depth: int) -> Set[str]:
        """Module names whose objects what module function ``name`` returns may share."""
        cached = self._returned.get(name)
        if cached is not None:
            return cached
        if depth > 8:
            return set(self.bindings)  # too deep to follow: anything
        self._returned[name] = set()  # recursion: assume nothing more on the way back
        result: Set[str] = set()
        for fdef in self._definitions(name):
            local_names = _analyse_function(fdef).local_names
            parameters = _parameter_names(fdef)
            assignments = _local_assignments(fdef)
            pending = [n for r in ast.walk(fdef) if r.__class__ is ast.Return and r.value is not None
                       for n in self._value_sources(r.value, depth)]
            seen: Set[str] = set()
            while pending:
                source = pending.pop()
                if source in seen or source in parameters:  # arguments are counted at the call
                    continue
                seen.add(source)
                if source in local_names:
                    for assigned, _ in assignments.get(source, ()):
                        pending.extend(self._value_sources(assigned, depth))
                else:
                    result.add(source)
        self._returned[name] = result
        return result

    def _is_fresh(self, value: Any, assignments: Dict[str, list], depth: int = 0) -> bool:
        """True when ``value`` builds a new container (nothing else refers to it yet)."""
        cls = value.__class__
        if cls in _FRESH_EXPRESSIONS:
            return True
        if cls is ast.IfExp:
            return self._is_fresh(value.body, assignments, depth) and self._is_fresh(value.orelse, assignments, depth)
        if cls is ast.Call:
            func = value.func
            if func.__class__ is ast.Attribute:
                return func.attr == "copy"
            if func.__class__ is ast.Name:
                if func.id in _FRESH_BUILTINS and not self.bindings.get(func.id):
                    return True
                return depth < 4 and self._returns_fresh(func.id, depth + 1)
        return False

    def _returns_fresh(self, name: str, depth: int) -> bool:
        """True when every ``return`` of module function ``name`` gives a newly built value."""
        definitions = self._definitions(name)
        if not definitions:
            return False
        for fdef in definitions:
            assignments = _local_assignments(fdef)
            for node in ast.walk(fdef):
                if node.__class__ is not ast.Return or node.value is None:
                    continue
                value = node.value
                if value.__class__ is ast.Name and value.id in assignments:
                    sources = [v for v, how in assignments[value.id] if how != HOLDS]
                    if all(how == IS for _, how in assignments[value.id] if how != HOLDS) and all(
                        self._is_fresh(v, assignments, depth) for v in sources
                    ):
                        continue
                    return False
                if not self._is_fresh(value, assignments, depth):
                    return False
        return True

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

