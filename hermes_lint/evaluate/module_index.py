"""What a module binds at module level, and whether anything rebinds or mutates it."""

from __future__ import annotations

import ast
from itertools import repeat
from typing import Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple, Union, cast

from hermes_lint.model.context import child_nodes

from .built_values import building_steps, step_candidates
from .syntax import (
    _ANYWHERE,
    _COMPOUND_STATEMENTS,
    ELEMENT_OF,
    HOLDS,
    IS,
    MUTATING_METHODS as _MUTATING_METHODS,
    FunctionNode,
    Positioned,
    _access_path,
    _analyse_function,
    _expression_roots,
    _imported_child_statements,
    _local_assignments,
    _parameter_names,
    _root_name,
)


# Module-level calls that can rebind any global name behind the analyser's back.
_NAMESPACE_CHANGERS = frozenset({"globals", "vars", "locals", "exec", "eval"})

_ENVIRONMENT = frozenset({"os.environ", "os.environb", "os.getenv", "os.getenvb", "os.putenv", "os.unsetenv"})

# Expressions that always build a new object (so changing it changes nothing else).
_FRESH_EXPRESSIONS = frozenset(
    {ast.Dict, ast.List, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.JoinedStr,
     ast.Constant, ast.BinOp}
)

_FRESH_BUILTINS = frozenset({"dict", "list", "set", "tuple", "sorted", "frozenset"})
# Builtins that call a function they are given, with the other things they are given.
_CALLING_BUILTINS = frozenset({"map", "filter", "sorted", "min", "max"})


def _is_environment(origin: str) -> bool:
    return origin in _ENVIRONMENT or origin.startswith("os.environ.")


class _Binding:
    """One place a module-level name gets a value."""

    __slots__ = ("kind", "node", "value", "top_level", "origin", "aliases")

    def __init__(
        self,
        kind: str,
        node: Positioned,
        value: Optional[ast.expr] = None,
        top_level: bool = False,
        origin: str = "",
        aliases: Tuple[str, ...] = (),
    ):
        self.kind = kind  # assign, annassign, unpack, augassign, for, with, import, def, ...
        self.node = node  # the statement (or expression) that binds
        self.value = value  # the expression the name takes, for assignments
        self.top_level = top_level  # directly in the module body, not inside if/try/for/...
        self.origin = origin  # imports: the dotted thing imported (other bindings: "")
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


class _BindingIndex:
    """Every module-level binding and mutation, found once per module."""

    def __init__(self, tree: ast.Module, source_lines: Optional[List[str]]):
        self.bindings: Dict[str, List[_Binding]] = {}
        self.mutations: Dict[str, List[Positioned]] = {}
        self.global_declarations: Dict[str, Tuple[str, ast.Global]] = {}
        self.star_imports: List[ast.ImportFrom] = []
        self.dynamic: Optional[Tuple[str, ast.Call]] = None  # globals()/exec() at module level
        # module-level calls of plain names (and name decorators): what they run may mutate globals
        # (function, call node, arguments, the module function it is passed to or None)
        self.calls: List[Tuple[str, ast.expr, List[ast.expr], Optional[str]]] = []
        self._effects: Dict[str, Tuple[Set[str], bool]] = {}
        self._returned: Dict[str, Set[str]] = {}
        self._mutation_reasons: Optional[Dict[str, Tuple[str, Positioned]]] = None
        self._body = tree.body
        self._steps: Optional[Dict[str, Tuple[ast.stmt, ...]]] = None
        self._candidates: Optional[Dict[str, List[Tuple[ast.stmt, Positioned]]]] = None
        for stmt in tree.body:
            self._visit(stmt, top_level=True, in_class=False)
        # `global` is rare: skip walking every function body when the text never says it.
        if source_lines is None or any(map(str.__contains__, source_lines, repeat("global"))):
            self._find_global_declarations(tree.body, None)

    # -- collection

    def _bind(self, name: str, binding: _Binding, in_class: bool) -> None:
        if not in_class:  # a class body binds class attributes, not module names
            self.bindings.setdefault(name, []).append(binding)

    def _mutate(self, root: Optional[str], node: Positioned) -> None:
        if root is not None:
            self.mutations.setdefault(root, []).append(node)

    def _visit(self, stmt: Any, top_level: bool, in_class: bool) -> None:
        """Record what statement ``stmt`` binds and mutates (typed Any: see ``syntax``)."""
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
                    # `from . import schemas` is ".schemas", `from .a import b` ".a.b"
                    origin = f"{module}.{alias.name}" if stmt.module else f"{module}{alias.name}"
                    binding = _Binding("import", stmt, origin=origin)
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
        if cls in _COMPOUND_STATEMENTS:  # not the body of `if __name__ == "__main__":`
            for inner in _imported_child_statements(stmt):
                self._visit(inner, top_level=False, in_class=in_class)

    def _assign(self, stmt: ast.Assign, top_level: bool, in_class: bool) -> None:
        targets = stmt.targets
        names = tuple(t.id for t in targets if t.__class__ is ast.Name)
        if len(names) == len(targets):
            for name in names:
                self._bind(name, _Binding("assign", stmt, stmt.value, top_level, aliases=names), in_class)
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
            # every element of the target is a Name (checked above)
            for name_node, element in zip(cast(List[ast.Name], target.elts), value.elts):
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
        node: Any  # see ``syntax``
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
            stack.extend(child_nodes(node))

    def _decorators(self, stmt: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]) -> None:
        for decorator in stmt.decorator_list:
            if decorator.__class__ is ast.Name:  # @register: a call of a module function, maybe
                self.calls.append((decorator.id, decorator, [], None))

    def _scan_call(self, node: ast.Call) -> None:
        func = node.func
        if func.__class__ is ast.Attribute:
            if func.attr in _MUTATING_METHODS or func.attr.startswith("__"):
                self._mutate(_root_name(func.value), node)
        arguments = list(node.args) + [k.value for k in node.keywords]
        if func.__class__ is ast.Name:
            for argument in arguments:  # apply(helper, X) with apply a module function: helper(X)
                if argument.__class__ is ast.Name:
                    self.calls.append((argument.id, node, [a for a in arguments if a is not argument], func.id))
            self.calls.append((func.id, node, arguments, None))
            if func.id in _NAMESPACE_CHANGERS and self.dynamic is None:
                self.dynamic = (f"{func.id}()", node)
            elif func.id in ("setattr", "delattr") and node.args:
                self._mutate(_root_name(node.args[0]), node)

    def _find_global_declarations(self, statements: Iterable[ast.stmt], owner: Optional[str]) -> None:
        stmt: Any  # see ``syntax``
        for stmt in statements:
            cls = stmt.__class__
            if cls is ast.FunctionDef or cls is ast.AsyncFunctionDef or cls is ast.ClassDef:
                self._find_global_declarations(stmt.body, stmt.name)
            elif cls is ast.Global and owner is not None:
                for name in stmt.names:
                    self.global_declarations.setdefault(name, (owner, stmt))
            else:
                self._find_global_declarations(_imported_child_statements(stmt), owner)

    # -- questions

    def imports_by_name(self) -> Dict[str, str]:
        """Module-level names bound only by an import, with what they import ("os", "os.getenv")."""
        return {
            name: bindings[0].origin
            for name, bindings in self.bindings.items()
            if len(bindings) == 1 and bindings[0].kind == "import"
        }

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

