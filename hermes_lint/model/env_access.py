"""Environment-variable accesses in one module's syntax tree: which node reads which variable.

``extract.py`` records the reads whose variable has a constant name as ``EnvRead`` facts. The
analyses of HRM203 need the nodes themselves: to follow a read along control flow, to see its
default, and to notice the accesses they cannot name (``os.getenv(name)``, ``dict(os.environ)``),
which make "nothing reads this variable" unknowable.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Tuple

from hermes_lint.model.context import ModuleContext
from hermes_lint.model import EnvRead, Location


@dataclass(frozen=True)
class EnvAccess:
    """One read: ``os.getenv(N[, d])``/``os.environ.get(N[, d])`` ("get"), ``os.environ[N]``
    ("subscript") or ``N in os.environ`` ("contains", ``negated`` for ``not in``)."""

    node: ast.AST
    kind: str
    name_node: ast.expr
    default: Optional[ast.expr] = None
    negated: bool = False


# Tested by exact class (``ast.parse`` makes no subclasses): one set lookup per node.
_ACCESS_CLASSES = frozenset({ast.Call, ast.Subscript, ast.Compare})
# The attribute names ``is_environ``/``is_getenv`` can accept.
_ENVIRONMENT_ATTRIBUTES = frozenset({"environ", "getenv", "get"})


class EnvSpellings:
    """How one module spells an environment read: the names it binds to ``os``, ``os.environ``,
    ``os.getenv``/``os.environ.get``, and to *environment readers* — functions whose result is a
    read of the variable named by their first argument (``get_secret("TOKEN")``,
    ``env_var_enabled("DEBUG")``): see ``environment_readers``."""

    def __init__(self, imports: Dict[str, str], readers: FrozenSet[str] = frozenset()):
        self.getenv_names = {n for n, t in imports.items() if t in ("os.getenv", "os.environ.get")}
        self.environ_names = {n for n, t in imports.items() if t == "os.environ"}
        self.os_names = {n for n, t in imports.items() if t == "os"}
        self.reader_names = readers

    @property
    def may_access(self) -> bool:
        """False when the module binds no name any spelling goes through: then no node reads."""
        return bool(self.getenv_names or self.environ_names or self.os_names or self.reader_names)

    def is_environ(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.environ_names
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "environ"
            and isinstance(node.value, ast.Name)
            and node.value.id in self.os_names
        )

    def is_getenv(self, func: ast.AST) -> bool:
        if isinstance(func, ast.Name):
            return func.id in self.getenv_names or func.id in self.reader_names
        if isinstance(func, ast.Attribute):
            if func.attr == "getenv" and isinstance(func.value, ast.Name):
                return func.value.id in self.os_names
            return func.attr == "get" and self.is_environ(func.value)
        return False

    def access(self, node: ast.AST) -> Optional[EnvAccess]:
        if isinstance(node, ast.Call) and node.args and self.is_getenv(node.func):
            default = node.args[1] if len(node.args) > 1 else None
            for kw in node.keywords:
                if kw.arg in ("default", "value"):
                    default = kw.value
            return EnvAccess(node, "get", node.args[0], default)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and self.is_environ(node.value):
            return EnvAccess(node, "subscript", node.slice)
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and self.is_environ(node.comparators[0])
        ):
            return EnvAccess(node, "contains", node.left, negated=isinstance(node.ops[0], ast.NotIn))
        return None


def environment_readers(index: Any, evaluator: Any, configured: Tuple[str, ...] = ()) -> FrozenSet[str]:
    """Names of the module bound to environment readers: its own functions every return of
    which gives ``os.getenv(first parameter)`` (or a default: see ``_reads_its_argument``), the same imported from another
    module of the project (read from its file, never imported), and the dotted names listed in
    the ``env-readers`` setting (third-party helpers). Cached on ``index``."""
    cached = getattr(index, "env_readers", None)
    if cached is not None:
        return cached
    found = set()
    own = EnvSpellings(index.imports)
    called, reads_of_names = _calls_of(index, own)
    for name, function in index.functions.items():
        if name in index.assigned or not _may_read_a_parameter(function, reads_of_names):
            continue
        if _reads_its_argument(function, own):
            found.add(name)
    for name, origin in index.imports.items():
        if name not in called:
            continue  # only a call ``name("VARIABLE", ...)`` can be a read
        if origin in configured:
            found.add(name)
            continue
        definition = evaluator.imported_function(name) if evaluator is not None else None
        if definition is not None:
            function, imports = definition
            if _reads_its_argument(function, EnvSpellings(imports)):
                found.add(name)
    index.env_readers = frozenset(found)
    return index.env_readers


def _calls_of(index: Any, own: EnvSpellings) -> Tuple[FrozenSet[str], Dict[str, List[int]]]:
    """In one pass over the module's nodes: the names it calls with a constant string first
    (``get_secret("TOKEN")``), and the lines of its reads of a variable named by a name
    (``os.getenv(name)``, the module's own spellings), by that name."""
    called = set()
    reads: Dict[str, List[int]] = {}
    is_getenv = own.is_getenv
    spelled = own.may_access
    for node in index.nodes():
        if node.__class__ is not ast.Call or not node.args:
            continue
        first = node.args[0]
        func = node.func
        if first.__class__ is ast.Constant:
            if func.__class__ is ast.Name and isinstance(first.value, str):
                called.add(func.id)
        elif first.__class__ is ast.Name and spelled and is_getenv(func):
            reads.setdefault(first.id, []).append(node.lineno)
    return frozenset(called), reads


def _may_read_a_parameter(function: ast.AST, reads_of_names: Dict[str, List[int]]) -> bool:
    """What ``_reads_its_argument`` needs, cheaply: a read of a variable named by the function's
    first parameter on one of its lines (its own walk then decides)."""
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return False
    params = function.args.posonlyargs + function.args.args
    if not params:
        return False
    lines = reads_of_names.get(params[0].arg)
    if not lines:
        return False
    first, last = function.lineno, function.end_lineno or function.lineno
    return any(first <= line <= last for line in lines)


def _reads_its_argument(function: ast.AST, spellings: EnvSpellings) -> bool:
    """``function`` returns the variable named by its first parameter: every ``return`` gives a
    read of it (``os.getenv(name)``, ``os.environ.get(name, default)``, in an expression),
    ``None``/``""`` or another parameter (a default), and at least one gives the read; a
    ``return False`` says something other than the variable decided (a missing package). Branches
    (a scoped lookup, a fallback, a fail-closed path) are fine so long as each ends so; a
    function that rebinds the parameter reads something else."""
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return False
    params = function.args.posonlyargs + function.args.args
    if not params:
        return False
    first = params[0].arg
    others = {arg.arg for arg in params[1:] + function.args.kwonlyargs}
    returns: List[ast.Return] = []
    stack: List[ast.AST] = list(function.body)
    while stack:  # this function's own statements, not those of functions nested in it
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return):
            returns.append(node)
        elif isinstance(node, ast.Name) and node.id == first and not isinstance(node.ctx, ast.Load):
            return False
        stack.extend(ast.iter_child_nodes(node))
    reading = 0
    for statement in returns:
        value = statement.value
        if value is None or (isinstance(value, ast.Constant) and value.value in (None, "")):
            continue  # no value, as the read of an unset variable gives
        if isinstance(value, ast.Name) and value.id in others:
            continue  # the caller's default
        if not _returns_a_read_of(value, first, spellings):
            return False
        reading += 1
    return reading > 0


def _returns_a_read_of(value: ast.expr, first: str, spellings: EnvSpellings) -> bool:
    stack: List[ast.AST] = [] if isinstance(value, ast.Lambda) else [value]
    while stack:  # the returned expression, not a lambda in it (that reads later, when called)
        node = stack.pop()
        found = spellings.access(node)
        if found is not None and found.kind == "get":
            return isinstance(found.name_node, ast.Name) and found.name_node.id == first
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.Lambda))
    return False


class EnvAccessIndex:
    """The environment accesses of one module (the spellings of ``EnvSpellings``)."""

    def __init__(self, ctx: ModuleContext):
        self.ctx = ctx
        self.spellings = EnvSpellings(
            ctx.index.imports, environment_readers(ctx.index, ctx.evaluator, ctx.config.env_readers)
        )
        self.getenv_names = self.spellings.getenv_names | self.spellings.reader_names
        self.environ_names = self.spellings.environ_names
        self.os_names = self.spellings.os_names
        self.is_environ = self.spellings.is_environ
        self.is_getenv = self.spellings.is_getenv
        self.access = self.spellings.access
        # Reads extract.py could name, by location: an access elsewhere has no constant name.
        self.named: Dict[Location, EnvRead] = {read.location: read for read in ctx.facts.env_reads}
        self._unnamed_access: Optional[bool] = None  # has_unnamed_access, once computed

    @classmethod
    def of(cls, ctx: ModuleContext) -> "EnvAccessIndex":
        """The module's index, made on first use (kept by the module's semantic model)."""
        return ctx.semantic.analysis(cls, ctx)

    def read_of(self, access: EnvAccess) -> Optional[EnvRead]:
        """The ``EnvRead`` fact of ``access`` when its variable has a constant name."""
        return self.named.get(self.ctx.loc(access.node))

    @property
    def may_access(self) -> bool:
        return self.spellings.may_access

    def accesses(self, root: ast.AST) -> Iterator[EnvAccess]:
        if not self.may_access:
            return
        access = self.access
        for node in self.ctx.index.walk(root):
            if node.__class__ in _ACCESS_CLASSES:  # what ``access`` can recognise, tested once
                found = access(node)
                if found is not None:
                    yield found

    def has_unnamed_access(self) -> bool:
        """True when the module touches the environment in a way no ``EnvRead`` names.

        ``os.getenv(name)``, ``os.environ.copy()``, ``dict(os.environ)``, writes...: any of them
        may concern any variable.
        """
        if self._unnamed_access is not None:
            return self._unnamed_access
        # The nodes that name the environment (``os.environ``, ``os.getenv``...): without one,
        # nothing touches it; only when there are some must the named reads be told apart.
        # Statement by statement (order does not matter here): extraction already walked each
        # top-level statement of a module that may access the environment, the whole tree not.
        walk = self.ctx.index.walk
        # ``is_environ(node) or is_getenv(node)``, spelled out for the many names and attributes
        # of a module that are neither: a set lookup each instead of two method calls.
        names = self.environ_names | self.getenv_names
        references = []
        readers = self.spellings.reader_names
        for stmt in self.ctx.tree.body if self.may_access else ():
            if stmt.__class__ is ast.FunctionDef and stmt.name in readers:
                continue  # a reader's read of its parameter: its calls name the variables
            for node in walk(stmt):
                cls = node.__class__
                if cls is ast.Name:  # by identity (hot loop): mypy cannot narrow on it
                    if node.id in names:  # type: ignore[attr-defined]
                        references.append(node)
                elif cls is ast.Attribute and node.attr in _ENVIRONMENT_ATTRIBUTES:  # type: ignore[attr-defined]
                    if self.is_environ(node) or self.is_getenv(node):
                        references.append(node)
        if not references:
            self._unnamed_access = False
            return False
        covered = set()
        for access in (found for stmt in self.ctx.tree.body for found in self.accesses(stmt)):
            if self.read_of(access) is not None:
                covered.add(id(access.node.func if isinstance(access.node, ast.Call) else None))
                covered.add(id(access.node.value if isinstance(access.node, ast.Subscript) else None))
                if isinstance(access.node, ast.Compare):
                    covered.add(id(access.node.comparators[0]))
                if isinstance(access.node, ast.Call) and isinstance(access.node.func, ast.Attribute):
                    covered.add(id(access.node.func.value))  # os.environ in os.environ.get
        result = any(id(node) not in covered for node in references)
        self._unnamed_access = result
        return result
