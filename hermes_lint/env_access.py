"""Environment-variable accesses in one module's syntax tree: which node reads which variable.

``extract.py`` records the reads whose variable has a constant name as ``EnvRead`` facts. The
analyses of HRM203 need the nodes themselves: to follow a read along control flow, to see its
default, and to notice the accesses they cannot name (``os.getenv(name)``, ``dict(os.environ)``),
which make "nothing reads this variable" unknowable.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, Iterator, Optional

from hermes_lint.context import ModuleContext
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


class EnvAccessIndex:
    """Recognises environment accesses the way ``extract.py`` does (same import spellings)."""

    def __init__(self, ctx: ModuleContext):
        self.ctx = ctx
        imports = ctx.index.imports
        self.getenv_names = {n for n, t in imports.items() if t in ("os.getenv", "os.environ.get")}
        self.environ_names = {n for n, t in imports.items() if t == "os.environ"}
        self.os_names = {n for n, t in imports.items() if t == "os"}
        # Reads extract.py could name, by location: an access elsewhere has no constant name.
        self.named: Dict[Location, EnvRead] = {read.location: read for read in ctx.facts.env_reads}

    @classmethod
    def of(cls, ctx: ModuleContext) -> "EnvAccessIndex":
        if "env_access_index" not in ctx.memo:
            ctx.memo["env_access_index"] = cls(ctx)
        return ctx.memo["env_access_index"]

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
            return func.id in self.getenv_names
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

    def read_of(self, access: EnvAccess) -> Optional[EnvRead]:
        """The ``EnvRead`` fact of ``access`` when its variable has a constant name."""
        return self.named.get(self.ctx.loc(access.node))

    @property
    def may_access(self) -> bool:
        """False when the module imports none of ``os``, ``os.environ``, ``os.getenv``: then no
        node can be an access (every spelling recognised goes through one of those names)."""
        return bool(self.getenv_names or self.environ_names or self.os_names)

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
        if "env_unnamed_access" in self.ctx.memo:
            return self.ctx.memo["env_unnamed_access"]
        # The nodes that name the environment (``os.environ``, ``os.getenv``...): without one,
        # nothing touches it; only when there are some must the named reads be told apart.
        # Statement by statement (order does not matter here): extraction already walked each
        # top-level statement of a module that may access the environment, the whole tree not.
        walk = self.ctx.index.walk
        # ``is_environ(node) or is_getenv(node)``, spelled out for the many names and attributes
        # of a module that are neither: a set lookup each instead of two method calls.
        names = self.environ_names | self.getenv_names
        references = []
        for stmt in self.ctx.tree.body if self.may_access else ():
            for node in walk(stmt):
                cls = node.__class__
                if cls is ast.Name:
                    if node.id in names:
                        references.append(node)
                elif cls is ast.Attribute and node.attr in _ENVIRONMENT_ATTRIBUTES:
                    if self.is_environ(node) or self.is_getenv(node):
                        references.append(node)
        if not references:
            self.ctx.memo["env_unnamed_access"] = False
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
        self.ctx.memo["env_unnamed_access"] = result
        return result
