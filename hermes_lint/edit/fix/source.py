"""The project's files as a fix sees them: their text, and their libcst tree on demand.

A finding's location is the start of the node it is about (a keyword, a value, a dict key), so a
fix finds what to edit by position, in the source itself: it does not depend on how the checker
computed the finding. Only files that decode as UTF-8 and parse are offered here; any other file
is never touched.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple, Type, TypeVar, Union

import warnings

with warnings.catch_warnings():  # libcst.metadata's type-inference module warns on import
    warnings.simplefilter("ignore", DeprecationWarning)
    import libcst as cst
    from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from hermes_lint.edit.fix.edits import Edit, TextIndex

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.config import Config

N = TypeVar("N", bound=cst.CSTNode)


@dataclass
class ParsedSource:
    """One top-level statement (or a few sharing lines), parsed alone: ``first_line`` is where its
    lines start in the file, and ``positions`` are file positions."""

    module: cst.Module
    first_line: int
    last_line: int
    positions: Dict[cst.CSTNode, CodeRange]
    parents: Dict[cst.CSTNode, cst.CSTNode]
    by_start: Dict[Tuple[int, int], List[cst.CSTNode]]  # outermost first


def decode_fixable(data: Optional[bytes]) -> Optional[str]:
    """The text of a file fixes may edit: UTF-8 (other encodings are left alone) that parses."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
        ast.parse(text)
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return text


class Texts:
    """Path -> text of the files fixes may edit, decoded (and parse-checked) on first use: most
    files of a project have nothing to fix. ``path in texts`` says whether a file may be edited."""

    def __init__(self, data: Dict[str, Optional[bytes]]):
        self.data = dict(data)
        self._decoded: Dict[str, Optional[str]] = {}
        self.changed: Dict[str, str] = {}

    def get(self, path: str) -> Optional[str]:
        if path not in self._decoded:
            self._decoded[path] = decode_fixable(self.data.get(path))
        return self._decoded[path]

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.get(path) is not None

    def __getitem__(self, path: str) -> str:
        text = self.get(path)
        if text is None:
            raise KeyError(path)
        return text

    def update(self, new: Dict[str, str]) -> None:
        self._decoded.update(new)
        self.changed.update(new)


class FixSource:
    """``texts``: path (relative to the project root) -> text of each file that fixes may edit
    (a dict, or ``Texts``).

    A fix reads the statement it edits with libcst, with positions and parents. Computing those
    for a whole file costs far more than parsing it with ``ast`` (libcst's position metadata
    renders the whole tree), so only the top-level statement holding the position asked for is
    parsed (found with ``ast``); positions are still the file's."""

    def __init__(self, texts, config: "Config"):
        self.texts = texts
        self.config = config
        self._trees: Dict[str, Optional[ast.Module]] = {}
        self._statements: Dict[str, List[ParsedSource]] = {}

    def text(self, path: str) -> Optional[str]:
        return self.texts.get(path)

    def tree(self, path: str) -> Optional[ast.Module]:
        """The file's ``ast`` tree (for module-level facts: definitions, imports, statements)."""
        if path not in self._trees:
            text = self.texts.get(path)
            self._trees[path] = ast.parse(text) if text is not None else None
        return self._trees[path]

    def newline(self, path: str) -> str:
        text = self.texts.get(path) or ""
        first = text.find("\n")
        return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"

    def statement(self, path: str, line: int) -> Optional[ParsedSource]:
        """The top-level statement holding ``line``, parsed with positions and parents."""
        for known in self._statements.get(path, ()):
            if known.first_line <= line <= known.last_line:
                return known
        tree = self.tree(path)
        span = _statement_span(tree, line) if tree is not None else None
        if span is None:
            return None
        first, last = span
        lines = TextIndex(self.texts[path])
        end = lines.starts[last] if last < len(lines.starts) else len(lines.text)
        parsed = _parse(lines.text[lines.starts[first - 1] : end], first, last)
        if parsed is not None:
            self._statements.setdefault(path, []).append(parsed)
        return parsed

    # mypy cannot type a default for a TypeVar'd parameter (python/mypy#3737): CSTNode is N's bound.
    def nodes_at(
        self, path: str, line: int, col: int, kind: Type[N] = cst.CSTNode  # type: ignore[assignment]
    ) -> List[N]:
        """Nodes of ``kind`` starting at the 1-based ``(line, col)``, outermost first."""
        parsed = self.statement(path, line)
        if parsed is None:
            return []
        return [node for node in parsed.by_start.get((line, col - 1), ()) if isinstance(node, kind)]

    def node_at(self, path: str, line: int, col: int, kind: Type[N]) -> Optional[N]:
        found = self.nodes_at(path, line, col, kind)
        return found[0] if found else None

    def _owner(self, path: str, node: cst.CSTNode) -> ParsedSource:
        for parsed in self._statements.get(path, ()):
            if node in parsed.positions:
                return parsed
        raise KeyError("a node of no statement read through this FixSource")

    def position(self, path: str, node: cst.CSTNode) -> CodeRange:
        return self._owner(path, node).positions[node]

    def parent(self, path: str, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self._owner(path, node).parents.get(node)

    def ancestor(self, path: str, node: cst.CSTNode, kind: Type[N]) -> Optional[N]:
        current = self.parent(path, node)
        while current is not None and not isinstance(current, kind):
            current = self.parent(path, current)
        return current

    def replace(self, path: str, node: cst.CSTNode, new: Union[cst.CSTNode, str]) -> Edit:
        """An edit replacing ``node``'s text with ``new`` (a node, or source text)."""
        owner = self._owner(path, node)
        where = owner.positions[node]
        content = new if isinstance(new, str) else owner.module.code_for_node(new)
        return Edit(path, (where.start.line, where.start.column + 1), (where.end.line, where.end.column + 1), content)

    def insert_after(self, path: str, node: cst.CSTNode, content: str) -> Edit:
        end = self.position(path, node).end
        return Edit(path, (end.line, end.column + 1), (end.line, end.column + 1), content)

    def code(self, path: str, node: cst.CSTNode) -> str:
        return self._owner(path, node).module.code_for_node(node)


def first_line(stmt: ast.stmt) -> int:
    """A statement's first line, its decorators' included."""
    decorators = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno] + [d.lineno for d in decorators])


def _statement_span(tree: ast.Module, line: int) -> Optional[Tuple[int, int]]:
    """First and last line of the top-level statement holding ``line`` (with any other statement
    sharing one of those lines, ``a = 1; b = 2``)."""
    spans = [(first_line(stmt), stmt.end_lineno or stmt.lineno) for stmt in tree.body]
    for index, (first, last) in enumerate(spans):
        if first <= line <= last:
            for before_first, before_last in reversed(spans[:index]):
                if before_last >= first:
                    first = min(first, before_first)
            for later_first, later_last in spans[index + 1 :]:
                if later_first <= last:
                    last = max(last, later_last)
            return first, last
    return None


def _parse(text: str, first: int, last: int) -> Optional[ParsedSource]:
    try:
        module = cst.parse_module(text)
    except Exception:  # syntax newer than this libcst understands: no fix, never a crash
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    offset = first - 1
    positions = {
        node: CodeRange((where.start.line + offset, where.start.column), (where.end.line + offset, where.end.column))
        for node, where in wrapper.resolve(PositionProvider).items()
    }
    parents: Dict[cst.CSTNode, cst.CSTNode] = {}  # a plain walk: ~3x cheaper than ParentNodeProvider
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[child] = node
            stack.append(child)
    by_start: Dict[Tuple[int, int], List[cst.CSTNode]] = {}
    for node, where in positions.items():
        by_start.setdefault((where.start.line, where.start.column), []).append(node)
    depth: Dict[cst.CSTNode, int] = {}

    def depth_of(node: cst.CSTNode) -> int:
        chain = []
        while node not in depth:
            chain.append(node)
            parent = parents.get(node)
            if parent is None:
                depth[node] = 0
                chain.pop()
                break
            node = parent
        for current in reversed(chain):
            depth[current] = depth[parents[current]] + 1
        return depth[chain[0]] if chain else depth[node]

    # Outermost first: a parent starts no later than its children.
    for nodes in by_start.values():
        nodes.sort(key=depth_of)
    return ParsedSource(module, first, last, positions, parents, by_start)


def call_keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def add_keyword(source: FixSource, path: str, call: cst.Call, text: str) -> Edit:
    """An edit adding the argument ``text`` (``is_async=True``) at the end of ``call``'s
    arguments, laid out like the last one: on its own line after a trailing comma that ends a
    line, else after ``, ``."""
    last = call.args[-1]
    if isinstance(last.comma, cst.Comma):
        if isinstance(last.comma.whitespace_after, cst.ParenthesizedWhitespace):
            # After the end of the comma's line, so that a comment there stays on it.
            index = TextIndex(source.texts[path])
            start_text = index.line_text(source.position(path, last).start.line)
            indent = start_text[: len(start_text) - len(start_text.lstrip())]
            line = source.position(path, last.comma).end.line
            end = (line, len(index.line_text(line)) + 1)
            newline = source.newline(path)
            return Edit(path, end, end, f"{newline}{indent}{text},")
        return source.insert_after(path, last.comma, f" {text},")
    return source.insert_after(path, last.value, f", {text}")
