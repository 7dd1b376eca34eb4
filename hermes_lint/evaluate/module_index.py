"""What a module binds at module level, and whether anything rebinds or mutates it."""

from __future__ import annotations

import ast
from bisect import bisect_left
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple, Union, cast

from hermes_lint.model.context import child_nodes

from .mutations import _MutationAnalysis
from .syntax import (
    _COMPOUND_STATEMENTS,
    MUTATING_METHODS as _MUTATING_METHODS,
    Positioned,
    _expression_roots,
    _imported_child_statements,
    _root_name,
)


# Module-level calls that can rebind any global name behind the analyser's back.
_NAMESPACE_CHANGERS = frozenset({"globals", "vars", "locals", "exec", "eval"})

_ENVIRONMENT = frozenset({"os.environ", "os.environb", "os.getenv", "os.getenvb", "os.putenv", "os.unsetenv"})

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


class _BindingIndex(_MutationAnalysis):
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
        # `global` is rare: only the top-level statements whose lines say it (a keyword is
        # spelled in ASCII) are searched, the others' every nested statement is not.
        if source_lines is None:
            self._find_global_declarations(tree.body, None)
        else:
            said = [number for number, line in enumerate(source_lines, start=1) if "global" in line]
            if said:
                self._find_global_declarations(_statements_holding(tree.body, said), None)

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


def _statements_holding(statements: List[ast.stmt], lines: List[int]) -> List[ast.stmt]:
    """Those of ``statements`` whose lines (from the first decorator's) hold one of the sorted
    ``lines``, in order (the locations of ``source_lines`` are the parser's, as everywhere in
    the evaluator)."""
    kept = []
    for stmt in statements:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        position = bisect_left(lines, first)
        if position < len(lines) and lines[position] <= (stmt.end_lineno or stmt.lineno):
            kept.append(stmt)
    return kept
