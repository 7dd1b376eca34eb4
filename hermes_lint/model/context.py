"""What rules see: one parsed module (``ModuleContext``) or the whole project (``ProjectContext``)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Tuple

from hermes_lint.config import Config
from hermes_lint.model import Location, ModuleFacts, Registration
from hermes_lint.model.mentions import Mentions

if TYPE_CHECKING:
    from hermes_lint.model.semantic import SemanticModel


def char_col(lines: List[str], line: int, byte_col: int) -> int:
    """1-based character column from ast's 0-based UTF-8 byte offset."""
    if 0 < line <= len(lines):
        text = lines[line - 1]
        if not text.isascii():
            return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace")) + 1
    return byte_col + 1


# Field types of the Python grammar (ASDL) that never hold a node a walk looks for: names,
# strings, constants and numbers, expression contexts (``Load``/``Store``/``Del``: a quarter of
# all nodes) and operators. Code reads those through their field (``.ctx``, ``.op``, ``.id``).
_LEAF_FIELD_TYPES = frozenset(
    {"identifier", "string", "constant", "int", "expr_context", "boolop", "operator", "unaryop", "cmpop"}
)
_SIGNATURE = re.compile(r"^\w+\((.*)\)$")


class _ChildFields(dict):
    """Node class -> the fields that may hold the child nodes a walk visits (``CHILD_FIELDS``);
    computed on a class's first lookup, a plain dict lookup after."""

    def __missing__(self, cls: type) -> Tuple[str, ...]:
        fields = self[cls] = _child_fields(cls)
        return fields


def _child_fields(cls: type) -> Tuple[str, ...]:
    """Read from the class's grammar signature, which ``ast`` gives as its docstring
    (``Name(identifier id, expr_context ctx)``): a ``Name`` or a ``Constant`` then has no field
    to look into. A class whose signature cannot be read keeps every field but ``ctx``."""
    every = tuple(getattr(cls, "_fields", ()))
    match = _SIGNATURE.match((cls.__doc__ or "").strip())
    if match is not None:
        declared = {}
        for part in filter(None, (p.strip() for p in match.group(1).split(","))):
            kind, _, name = part.partition(" ")
            declared[name] = kind.rstrip("?*")
        if set(declared) == set(every):
            return tuple(name for name in every if declared[name] not in _LEAF_FIELD_TYPES)
    return tuple(name for name in every if name != "ctx")


CHILD_FIELDS = _ChildFields()


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """``ast.iter_child_nodes(node)`` as a list, without the leaves ``CHILD_FIELDS`` leaves out."""
    children: List[ast.AST] = []
    node_type = ast.AST
    for name in CHILD_FIELDS[node.__class__]:
        value = getattr(node, name, None)
        if isinstance(value, node_type):
            children.append(value)
        elif isinstance(value, list):
            children.extend(item for item in value if isinstance(item, node_type))
    return children


def walk(node: ast.AST) -> List[ast.AST]:
    """Every node under ``node``, itself first, in ``ast.walk``'s (breadth-first) order but
    without the leaves no rule looks for (``CHILD_FIELDS``), as a list. Several times faster
    than ``ast.walk``: no generator frames, no ``iter_fields``, no look into names and constants."""
    nodes = [node]
    append = nodes.append
    node_type = ast.AST
    fields_of = CHILD_FIELDS
    for current in nodes:  # the list grows while it is iterated: breadth-first
        for name in fields_of[current.__class__]:
            value = getattr(current, name, None)
            if isinstance(value, node_type):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        append(item)
    return nodes


# The fields of a compound statement that hold its nested statements.
STATEMENT_LISTS = ("body", "orelse", "finalbody")


def child_statements(stmt: ast.AST) -> Iterator[ast.stmt]:
    """Statements nested in a compound statement (not in def bodies: callers decide)."""
    for field in STATEMENT_LISTS:
        yield from getattr(stmt, field, ())
    for handler in getattr(stmt, "handlers", ()):
        yield from handler.body
    for case in getattr(stmt, "cases", ()):
        yield from case.body


class ModuleIndex:
    """Names a module binds at its top level: functions, classes, imports and assignments.

    ``walk(node)`` also serves, once per node, the subtree lists that extraction and several
    rules would otherwise each compute again with ``ast.walk`` (the whole module, each function).
    """

    def __init__(self, tree: ast.Module, text: Optional[str] = None):
        """``text``: the module's source, which lets ``statements_spelling`` leave out statements."""
        self.tree = tree
        self._mentions = None if text is None else Mentions(text, tree.body)
        self._walks: Dict[int, Tuple[ast.AST, List[ast.AST]]] = {}
        self._nodes: Optional[List[ast.AST]] = None
        self.functions: Dict[str, ast.AST] = {}  # FunctionDef | AsyncFunctionDef; last wins
        self.classes: Dict[str, ast.ClassDef] = {}
        self.imports: Dict[str, str] = {}  # local name -> "module" or "module.attr"
        self.assigned: Dict[str, List[ast.AST]] = {}  # name -> assigned value nodes (top level)
        self.has_star_import = False
        # The module's plugin register calls (``project.plugin_tools.plugin_calls``), once found.
        self.plugin_calls: Optional[Any] = None
        self.bound_anywhere: set = set()  # every name bound anywhere at module level
        for stmt in tree.body:
            self._index_statement(stmt)

    def _index_statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.functions[stmt.name] = stmt
            self.bound_anywhere.add(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            self.classes[stmt.name] = stmt
            self.bound_anywhere.add(stmt.name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                self.imports[local] = alias.name if alias.asname else local
                self.bound_anywhere.add(local)
        elif isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                if alias.name == "*":
                    self.has_star_import = True
                    continue
                local = alias.asname or alias.name
                self.imports[local] = f"{module}.{alias.name}"
                self.bound_anywhere.add(local)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for node in walk(target):
                    if isinstance(node, ast.Name):
                        self.bound_anywhere.add(node.id)
                        if isinstance(target, ast.Name) and stmt.value is not None:
                            self.assigned.setdefault(node.id, []).append(stmt.value)
        else:
            # Names bound inside top-level if/try/with/for blocks still exist at run time.
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.stmt):
                    self._index_statement(child)
            for node in self.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    self.bound_anywhere.add(node.id)
                elif isinstance(node, ast.ExceptHandler) and node.name:
                    self.bound_anywhere.add(node.name)

    def is_bound(self, name: str) -> bool:
        return name in self.bound_anywhere or self.has_star_import

    def nodes(self) -> List[ast.AST]:
        """Every node of the module but the ``Module`` itself, statement by statement (each in
        ``walk``'s order), for callers to whom the order is indifferent. Built from the walks of
        the top-level statements, which extraction and the rules need anyway: a second,
        whole-module walk would visit every node again. Callers must not modify the list."""
        if self._nodes is None:
            nodes: List[ast.AST] = []
            for stmt in self.tree.body:
                nodes.extend(self.walk(stmt))
            self._nodes = nodes
        return self._nodes

    def statements_spelling(self, words: Iterable[str]) -> Sequence[ast.stmt]:
        """The top-level statements, in order, that may hold one of ``words`` as an identifier
        (a name, an attribute, a keyword): all that do, and some that do not
        (``model.mentions``); without the module's text, all of them."""
        if self._mentions is None:
            return self.tree.body
        return self._mentions.statements(words)

    def spelled_as_read(self) -> bool:
        """Whether every ASCII identifier of the module is spelled out in its text (no
        character may stand for an ASCII one under NFKC: ``model.mentions``); False without
        the text."""
        return self._mentions is not None and self._mentions.spelled_as_read()

    def statements_naming(self, names: Iterable[str]) -> Sequence[ast.stmt]:
        """``statements_spelling``, for ``Name`` nodes of ``names`` only."""
        if self._mentions is None:
            return self.tree.body
        return self._mentions.statements(names, names=True)

    def names_by_statement(
        self, names: Iterable[str], followed_by: Optional[Any] = None
    ) -> List[Tuple[ast.stmt, FrozenSet[str]]]:
        """``statements_naming``, each statement with those of ``names`` it may hold;
        ``followed_by``: a pattern the text after the name must match
        (``mentions.CALLED_WITH_A_STRING``)."""
        if self._mentions is None:
            every = frozenset(names)
            return [(stmt, every) for stmt in self.tree.body]
        return self._mentions.candidates(names, names=True, followed_by=followed_by)

    def walk(self, node: ast.AST) -> List[ast.AST]:
        """``walk(node)``, computed once per node; callers must not modify the list."""
        entry = self._walks.get(id(node))
        if entry is None or entry[0] is not node:
            # The entry keeps ``node`` alive, so its id cannot be reused by another node.
            entry = self._walks[id(node)] = (node, walk(node))
        return entry[1]


@dataclass
class ModuleContext:
    """One tool module for module rules: its text, syntax tree, semantic model and extracted facts."""

    path: str
    text: str
    lines: List[str]
    tree: ast.Module
    semantic: "SemanticModel"
    facts: ModuleFacts
    config: Config
    # The contract of the registry this module registers with (``registry_contract``);
    # None: the built-in one.
    contract: Optional[Any] = None
    # Computed once per module run on first use, by the accessors that own them.
    subschemas_by_registration: Dict[int, Tuple[Any, ...]] = field(default_factory=dict, repr=False)
    texts_by_registration: Dict[int, Tuple[Any, ...]] = field(default_factory=dict, repr=False)
    # While a rule runs: (location, tool name) of each schema key it located for a tool
    # (``schema_walk.locate``), so that its findings can name the tools (``check.tool_names``).
    located_keys: Optional[List[Tuple[Location, str]]] = field(default=None, repr=False)
    # Files other than Python modules a rule's findings depend on (a plugin's plugin.yaml, read
    # by HRM203): relative path -> sha256 ("" absent), kept with the facts for the cache.
    read_files: Dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def index(self) -> ModuleIndex:
        return self.semantic.index

    @property
    def evaluator(self) -> Any:  # hermes_lint.evaluate.ModuleEvaluator
        return self.semantic.evaluator

    def release(self) -> None:
        """Drop what the rules computed (see ``SemanticModel.release``)."""
        self.semantic.release()
        self.subschemas_by_registration.clear()
        self.texts_by_registration.clear()

    def loc(self, node: ast.AST) -> Location:
        # Every node a rule locates is an expression, statement, argument or keyword: all have
        # a position, which the AST base class does not declare.
        line: int = node.lineno  # type: ignore[attr-defined]
        return Location(line, char_col(self.lines, line, node.col_offset))  # type: ignore[attr-defined]

    def registration_calls(self) -> List[Tuple[Registration, ast.Call]]:
        """Each extracted registration with the call it was read from, in source order (a
        plugin's registrations last, each with its own call: loops unrolled, see ``plugin_tools``)."""
        return self.semantic.registration_calls


@dataclass
class ProjectContext:
    """Every tool module's facts plus the static reading of ``toolsets.py``."""

    modules: Tuple[ModuleFacts, ...]
    toolsets: Optional[Any]  # hermes_lint.project.toolsets_file.ToolsetsFacts, None without toolsets.py
    config: Config
    # The project directory on disk, when there is one (rules that look past the facts, such as
    # HRM403 searching other .py files for a tool name, stay as they were without it).
    root: Optional[Path] = None
    # Computed once per project run on first use, by the accessors that own them
    # (``project.index.registered``, ``rules.providers.tool_requests``).
    registered_cache: Optional[List[Any]] = field(default=None, repr=False)
    tool_requests_cache: Optional[List[Any]] = field(default=None, repr=False)
    subschemas_by_registration: Dict[int, Tuple[Any, ...]] = field(default_factory=dict, repr=False)
    # The project's plugins with their plugin.yaml (``project.plugin_view.plugin_views``).
    plugin_views_cache: Optional[Tuple[Any, ...]] = field(default=None, repr=False)
    # What Hermes's loader calls for each plugin spec (``project.plugin_view.loaded_target_of``).
    plugin_targets_cache: Dict[Any, Any] = field(default_factory=dict, repr=False)

    def registrations(self) -> List[Tuple[ModuleFacts, Registration]]:
        return [(module, reg) for module in self.modules for reg in module.registrations]
