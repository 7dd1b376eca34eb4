"""Environment-variable accesses in one module's syntax tree: which node reads which variable.

``extract.py`` records the reads whose variable has a constant name as ``EnvRead`` facts. The
analyses of HRM203 need the nodes themselves: to follow a read along control flow, to see its
default, and to notice the accesses they cannot name (``os.getenv(name)``, ``dict(os.environ)``),
which make "nothing reads this variable" unknowable.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, Optional

from hermes_lint.model.context import ModuleContext
from hermes_lint.model.env_readers import environment_readers
from hermes_lint.model.env_spellings import ACCESS_CLASSES, ENVIRONMENT_ATTRIBUTES, EnvAccess, EnvSpellings
from hermes_lint.model import EnvRead, Location


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
            if node.__class__ in ACCESS_CLASSES:  # what ``access`` can recognise, tested once
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
                elif cls is ast.Attribute and node.attr in ENVIRONMENT_ATTRIBUTES:  # type: ignore[attr-defined]
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
