"""``# noqa`` comments: which lines (and files) suppress which codes.

One grammar for ``hermes-lint check`` and the flake8 plugin, flake8's own (``flake8.defaults``):

- ``# noqa`` suppresses everything on its line; ``# noqa: HRM101,HRM107`` the codes it lists,
  each a code or a prefix (``# noqa: HRM1`` covers HRM101 to HRM199), as flake8 matches them;
- ``# flake8: noqa`` on a line of its own exempts the whole file (flake8 then runs no plugin
  on it, so ``check`` reports nothing in it either);
- ``# hermes-lint: noqa`` on a line of its own exempts the file from hermes-lint only, and
  ``# hermes-lint: noqa: HRM306`` from those codes only (ruff's ``# ruff: noqa`` forms, under
  this tool's name). ``# ruff: noqa`` is addressed to ruff, which never runs these rules, and
  is not honoured: one comment would otherwise silence two unrelated linters.

Only comments count, so the words inside a string do not (flake8 itself reads ``# flake8: noqa``
on any physical line, and so does ``check``).

Tokenizing a whole file to find its comments cost more than parsing it, so a file is read where a
``noqa`` can be: one regular-expression search over the text finds every ``# noqa``-looking spot
(none, in most files: nothing else is done). A ``#`` outside every string literal of the syntax
tree starts or continues a comment, since Python has no other use for it; one inside a string
literal's span is a comment only between the pieces of an implicit concatenation, so that
literal alone is tokenized. Without a syntax tree (a file that does not parse) the whole text is
tokenized, as before.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

_NOQA = re.compile(
    r"# noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)
# File-level forms, each on a line of its own: flake8's NOQA_FILE, and this tool's own.
_FLAKE8_FILE_NOQA = re.compile(r"^[ \t\f]*# flake8[:=]\s*noqa", re.IGNORECASE | re.MULTILINE)
_FILE_NOQA = re.compile(
    r"^[ \t\f]*#[ \t]*hermes-lint:[ \t]*noqa(?::[ \t]?(?P<codes>[A-Z]+[0-9]+(?:[, \t]+[A-Z]+[0-9]+)*))?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
# What every match of the file-level forms holds: searched first, with a leading '#' that the
# regular-expression engine finds fast (a search from each line's start is slow).
_MAY_FLAKE8_FILE_NOQA = re.compile(r"# flake8", re.IGNORECASE)
_MAY_FILE_NOQA = re.compile(r"#[ \t]*hermes-lint:", re.IGNORECASE)
FLAKE8, HERMES_LINT = "flake8", "hermes-lint"
# Python's own line breaks (the syntax tree's line numbers), not str.splitlines's.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class NoqaComment:
    line: int
    col: int  # 1-based column of the '#'
    codes: Optional[Tuple[str, ...]]  # None: a bare `# noqa`, suppressing every code
    file_level: str = ""  # FLAKE8 or HERMES_LINT for a comment exempting the whole file

    def suppresses(self, code: str) -> bool:
        """flake8's matching: a listed code, or a code that starts with a listed prefix."""
        return self.codes is None or code in self.codes or code.startswith(self.codes)

    def describe(self) -> str:
        return "`# hermes-lint: noqa`" if self.file_level == HERMES_LINT else "`# noqa`"


def may_have_noqa(text: str) -> bool:
    """False when ``text`` certainly holds no noqa comment, inline or file-level (one
    search). Every form spells ``noqa`` in any case, and no character but the ASCII letters
    matches ``n``, ``o``, ``q`` or ``a`` case-insensitively: the ASCII lower-casing of the
    UTF-8 bytes tells it, and a byte search is several times faster than a case-insensitive
    regular expression over the text."""
    return b"noqa" in text.encode("utf-8", "surrogatepass").lower()


def file_level_comments(text: str, tree: Optional[ast.Module] = None) -> List[NoqaComment]:
    """The comments exempting the whole file: ``# flake8: noqa`` on any physical line (as
    flake8 reads it), ``# hermes-lint: noqa[: CODES]`` in a comment on a line of its own."""
    if _MAY_FLAKE8_FILE_NOQA.search(text) is None and _MAY_FILE_NOQA.search(text) is None:
        return []
    if "\r" in text:
        text = _LINE_BREAK.sub("\n", text)
    found: List[NoqaComment] = []
    for match in _FLAKE8_FILE_NOQA.finditer(text):
        found.append(NoqaComment(text.count("\n", 0, match.start()) + 1, 1, None, FLAKE8))
    for match in _FILE_NOQA.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        line_start = text.rfind("\n", 0, match.start()) + 1
        col = text.index("#", match.start()) - line_start
        if tree is not None and _literal_around(tree, number, _byte_col(text[line_start:match.end()], col)) is not None:
            continue  # inside a string
        codes = match.group("codes")
        parsed = tuple(code.upper() for code in re.split(r"[,\s]+", codes) if code) if codes else None
        found.append(NoqaComment(number, col + 1, parsed, HERMES_LINT))
    return found


def find_noqa_comments(text: str, tree: Optional[ast.Module] = None) -> Dict[int, NoqaComment]:
    """Line number -> the noqa comment on that line. ``tree``: ``text`` parsed (``ast.parse``);
    with it, only the string literals around ``# noqa``-looking text are tokenized."""
    if not may_have_noqa(text):
        return {}  # the common case: no search beyond this one
    found = _inline_comments(text, tree)
    for comment in file_level_comments(text, tree):
        found.setdefault(comment.line, comment)
    return found


def _inline_comments(text: str, tree: Optional[ast.Module]) -> Dict[int, NoqaComment]:
    if _NOQA.search(text) is None:
        return {}
    if tree is None:
        return _tokenized(text)
    if "\r" in text:
        text = _LINE_BREAK.sub("\n", text)  # same lines and columns, one kind of break
    lines = text.split("\n")
    found: Dict[int, NoqaComment] = {}
    literals: Dict[int, Dict[int, NoqaComment]] = {}  # id(literal) -> the comments inside it
    number, line_start, counted = 1, 0, 0
    # A match never holds a second '#', so no candidate hides inside another's match.
    for candidate in _NOQA.finditer(text):
        position = candidate.start()
        breaks = text.count("\n", counted, position)
        if breaks:
            number += breaks
            line_start = text.rindex("\n", counted, position) + 1
        counted = position
        line = lines[number - 1]
        col = position - line_start
        if number in found or _NOQA.match(line, col) is None:  # (the match crossed a line)
            continue
        literal = _literal_around(tree, number, _byte_col(line, col))
        if literal is None:  # outside every string: in a comment
            _add(found, number, col, line[col:])
        elif id(literal) not in literals:
            inside = _comments_inside(literal, lines)
            if inside is None:  # cannot happen for a parsed file; stay exact anyway
                return _tokenized(text)
            literals[id(literal)] = inside
            found.update(inside)
    return found


def _tokenized(text: str) -> Dict[int, NoqaComment]:
    found: Dict[int, NoqaComment] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                _add(found, token.start[0], token.start[1], token.string)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # An untokenizable file is already HRM001; fall back to reading comment-looking text.
        for number, line in enumerate(text.splitlines(), start=1):
            position = line.find("#")
            if position >= 0:
                _add(found, number, position, line[position:])
    return found


def _byte_col(line: str, position: int) -> int:
    """The syntax tree counts columns in UTF-8 bytes."""
    return position if line.isascii() else len(line[:position].encode("utf-8"))


_STRING_VALUES = (str, bytes)


def _literal_around(tree: ast.Module, line: int, col: int) -> Optional[ast.expr]:
    """The string literal (``Constant`` or f-string) whose source span holds ``(line, col)``."""
    here = (line, col)
    stack: List[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        end = getattr(node, "end_lineno", None)
        if end is not None:
            # With an end line, the node has all four positions (typeshed declares them only on
            # the node classes that always have them).
            located: Any = node
            first = getattr(node, "decorator_list", None)  # decorators come before the `def`
            start = first[0] if first else located
            if here < (start.lineno, start.col_offset - (1 if first else 0)) or here >= (end, located.end_col_offset):
                continue
            if isinstance(node, ast.JoinedStr) or (
                isinstance(node, ast.Constant) and isinstance(node.value, _STRING_VALUES)
            ):
                return node
        stack.extend(ast.iter_child_nodes(node))  # nodes without a position: their children
    return None


def _comments_inside(literal: ast.expr, lines: List[str]) -> Optional[Dict[int, NoqaComment]]:
    """The noqa comments between the pieces of one (implicitly concatenated) string literal."""
    # A parsed node has its end position (typeshed types it Optional for built trees).
    assert literal.end_lineno is not None and literal.end_col_offset is not None
    first, last = literal.lineno - 1, literal.end_lineno - 1
    chunk = [line.encode("utf-8") for line in lines[first : last + 1]]
    chunk[-1] = chunk[-1][: literal.end_col_offset]
    head = chunk[0][: literal.col_offset].decode("utf-8")
    chunk[0] = chunk[0][literal.col_offset :]
    # In parentheses, the pieces' line breaks and indentation mean nothing to the tokenizer.
    segment = "(" + b"\n".join(chunk).decode("utf-8") + ")"
    found: Dict[int, NoqaComment] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(segment).readline):
            if token.type == tokenize.COMMENT:
                row, col = token.start
                offset = len(head) + col - 1 if row == 1 else col
                _add(found, first + row, offset, token.string)
    except (tokenize.TokenError, SyntaxError):
        return None
    return found


def _add(found: Dict[int, NoqaComment], line: int, offset: int, comment: str) -> None:
    match = _NOQA.search(comment)
    if not match:
        return
    codes = match.group("codes")
    parsed = tuple(code.upper() for code in re.split(r"[,\s]+", codes) if code) if codes else None
    found[line] = NoqaComment(line, offset + match.start() + 1, parsed)
