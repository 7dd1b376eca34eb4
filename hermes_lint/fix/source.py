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
    from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from hermes_lint.fix.edits import Edit

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.config import Config

N = TypeVar("N", bound=cst.CSTNode)


@dataclass
class ParsedSource:
    module: cst.Module
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
    (a dict, or ``Texts``)."""

    def __init__(self, texts, config: "Config"):
        self.texts = texts
        self.config = config
        self._parsed: Dict[str, Optional[ParsedSource]] = {}

    def text(self, path: str) -> Optional[str]:
        return self.texts.get(path)

    def parsed(self, path: str) -> Optional[ParsedSource]:
        if path not in self._parsed:
            self._parsed[path] = _parse(self.texts[path]) if path in self.texts else None
        return self._parsed[path]

    def nodes_at(self, path: str, line: int, col: int, kind: Type[N] = cst.CSTNode) -> List[N]:
        """Nodes of ``kind`` starting at the 1-based ``(line, col)``, outermost first."""
        parsed = self.parsed(path)
        if parsed is None:
            return []
        return [node for node in parsed.by_start.get((line, col - 1), ()) if isinstance(node, kind)]

    def node_at(self, path: str, line: int, col: int, kind: Type[N]) -> Optional[N]:
        found = self.nodes_at(path, line, col, kind)
        return found[0] if found else None

    def parent(self, path: str, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        parsed = self.parsed(path)
        return parsed.parents.get(node) if parsed is not None else None

    def ancestor(self, path: str, node: cst.CSTNode, kind: Type[N]) -> Optional[N]:
        current = self.parent(path, node)
        while current is not None and not isinstance(current, kind):
            current = self.parent(path, current)
        return current

    def replace(self, path: str, node: cst.CSTNode, new: Union[cst.CSTNode, str]) -> Edit:
        """An edit replacing ``node``'s text with ``new`` (a node, or source text)."""
        parsed = self.parsed(path)
        where = parsed.positions[node]
        content = new if isinstance(new, str) else parsed.module.code_for_node(new)
        return Edit(path, (where.start.line, where.start.column + 1), (where.end.line, where.end.column + 1), content)

    def insert_after(self, path: str, node: cst.CSTNode, content: str) -> Edit:
        end = self.parsed(path).positions[node].end
        return Edit(path, (end.line, end.column + 1), (end.line, end.column + 1), content)

    def code(self, path: str, node: cst.CSTNode) -> str:
        return self.parsed(path).module.code_for_node(node)


def _parse(text: str) -> Optional[ParsedSource]:
    try:
        module = cst.parse_module(text)
    except Exception:  # syntax newer than this libcst understands: no fix, never a crash
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    by_start: Dict[Tuple[int, int], List[cst.CSTNode]] = {}
    # Outermost first: a parent starts no later than its children and is visited before them.
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

    for nodes in by_start.values():
        nodes.sort(key=depth_of)
    return ParsedSource(module, dict(positions), dict(parents), by_start)


def call_keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def string_value(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def add_keyword(source: FixSource, path: str, call: cst.Call, text: str) -> Edit:
    """An edit adding the argument ``text`` (``is_async=True``) at the end of ``call``'s
    arguments, laid out like the last one: on its own line after a trailing comma that ends a
    line, else after ``, ``."""
    last = call.args[-1]
    if isinstance(last.comma, cst.Comma):
        if isinstance(last.comma.whitespace_after, cst.ParenthesizedWhitespace):
            # After the end of the comma's line, so that a comment there stays on it.
            from hermes_lint.fix.edits import TextIndex

            index = TextIndex(source.texts[path])
            start_text = index.line_text(source.parsed(path).positions[last].start.line)
            indent = start_text[: len(start_text) - len(start_text.lstrip())]
            line = source.parsed(path).positions[last.comma].end.line
            end = (line, len(index.line_text(line)) + 1)
            newline = source.parsed(path).module.default_newline
            return Edit(path, end, end, f"{newline}{indent}{text},")
        return source.insert_after(path, last.comma, f" {text},")
    return source.insert_after(path, last.value, f", {text}")
