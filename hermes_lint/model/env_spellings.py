"""How one module spells an environment read: ``os.getenv(N)``, ``os.environ.get(N)``,
``os.environ[N]``, ``N in os.environ``, under the names the module binds to them, and calls of
environment readers (``env_readers``). Syntax only: which node is a read, of which name node."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, Mapping, Optional

from hermes_lint.model.env_values import EnvReader


@dataclass(frozen=True)
class EnvAccess:
    """One read: ``os.getenv(N[, d])``/``os.environ.get(N[, d])`` ("get"), ``os.environ[N]``
    ("subscript") or ``N in os.environ`` ("contains", ``negated`` for ``not in``)."""

    node: ast.AST
    kind: str
    name_node: ast.expr
    default: Optional[ast.expr] = None
    negated: bool = False
    # The call is of a project's environment reader: what it gives when the variable is unset.
    reader: Optional[EnvReader] = None


# Tested by exact class (``ast.parse`` makes no subclasses): one set lookup per node.
ACCESS_CLASSES = frozenset({ast.Call, ast.Subscript, ast.Compare})
# The attribute names ``is_environ``/``is_getenv`` can accept.
ENVIRONMENT_ATTRIBUTES = frozenset({"environ", "getenv", "get"})


class EnvSpellings:
    """How one module spells an environment read: the names it binds to ``os``, ``os.environ``,
    ``os.getenv``/``os.environ.get``, and to *environment readers* — functions whose result is a
    read of the variable named by their first argument (``get_secret("TOKEN")``,
    ``env_var_enabled("DEBUG")``): see ``env_readers``. A reader of the project comes with its
    ``EnvReader`` (a call of one that raises on every path when the variable is unset is a
    "subscript" access, as ``os.environ[N]`` is); one named in the ``env-readers`` setting with
    None, and reads as ``os.getenv`` does."""

    def __init__(self, imports: Dict[str, str], readers: Optional[Mapping[str, Optional[EnvReader]]] = None):
        self.getenv_names = {n for n, t in imports.items() if t in ("os.getenv", "os.environ.get")}
        self.environ_names = {n for n, t in imports.items() if t == "os.environ"}
        self.os_names = {n for n, t in imports.items() if t == "os"}
        self.readers: Mapping[str, Optional[EnvReader]] = readers or {}
        self.reader_names = frozenset(self.readers)

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
            reader = self.readers.get(node.func.id) if isinstance(node.func, ast.Name) else None
            if reader is not None:
                return EnvAccess(node, "subscript" if reader.required else "get", node.args[0], reader=reader)
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
