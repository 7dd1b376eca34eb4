"""Where a key of a TOML document is written: the line of a table header or a key, by its full
dotted path, however the document spells it (``[a.b]`` then ``c = ...``, ``[a]`` then
``b.c = ...``, or an inline table ``b = { c = ... }`` whose line holds all it contains).

``tomllib`` gives values without positions (so does ``tomlkit``, whose items carry no line), so
this reads the document's lines, of a document ``tomllib`` has parsed: a line is a header or a
key only where a header or a key can begin, never inside a multi-line string (basic or literal,
escapes and up to two quotes before the closing three included) or a multi-line array.
"""

from __future__ import annotations

import json
import re
from typing import List, Optional, Tuple

Path = Tuple[str, ...]

_PART = r"""(?:[A-Za-z0-9_\-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = _PART + r"(?:[ \t]*\.[ \t]*" + _PART + r")*"
_HEADER = re.compile(r"[ \t]*\[\[?[ \t]*(" + _DOTTED + r")[ \t]*\]")
_KEY = re.compile(r"[ \t]*(" + _DOTTED + r")[ \t]*=")


def _parts(dotted: str) -> Path:
    parts = []
    for part in re.findall(_PART, dotted):
        if part.startswith('"'):
            try:
                part = json.loads(part)
            except ValueError:
                part = part[1:-1]
        elif part.startswith("'"):
            part = part[1:-1]
        parts.append(part)
    return tuple(parts)


def toml_lines(text: str) -> List[Tuple[int, Path, bool]]:
    """Every table header and key line of ``text``: (1-based line, full dotted path, is a header)."""
    found: List[Tuple[int, Path, bool]] = []
    table: Path = ()
    inside: Optional[str] = None  # the delimiter of the multi-line string a line is in
    depth = 0  # the arrays and inline tables a line is in
    for number, line in enumerate(text.split("\n"), start=1):
        if inside is not None or depth:
            inside, depth = _value_state(line, inside, depth)
            continue
        header = _HEADER.match(line)
        if header:
            table = _parts(header.group(1))
            found.append((number, table, True))
            continue
        key = _KEY.match(line)
        if key:
            found.append((number, table + _parts(key.group(1)), False))
            inside, depth = _value_state(line[key.end():], None, 0)
    return found


def _value_state(text: str, inside: Optional[str], depth: int) -> Tuple[Optional[str], int]:
    """After ``text`` (a line of a value, or the rest of a key's line), starting inside the
    multi-line string delimited by ``inside`` (or none) and ``depth`` brackets deep: the same two."""
    at = 0
    while at < len(text):
        if inside is not None:
            at = _string_end(text, at, inside)
            if at < 0:
                return inside, depth
            inside = None
            continue
        if text.startswith(('"""', "'''"), at):
            inside, at = text[at:at + 3], at + 3
            continue
        char = text[at]
        if char == "#":
            break
        if char in "\"'":
            at = _string_end(text, at + 1, char)
            if at < 0:
                break  # not closed on its line: not TOML tomllib parsed
            continue
        if char in "[{":
            depth += 1
        elif char in "]}" and depth:
            depth -= 1
        at += 1
    return inside, depth


def _string_end(text: str, at: int, delimiter: str) -> int:
    """Where the string delimited by ``delimiter`` that ``text`` is in at ``at`` ends (the index
    after its closing delimiter), or -1 when not on this line. A basic string's backslash escapes
    the next character; a multi-line string's closing quotes may follow up to two of its own."""
    basic = delimiter[0] == '"'
    while at < len(text):
        if basic and text[at] == "\\":
            at += 2
        elif text.startswith(delimiter, at):
            end = at + len(delimiter)
            if len(delimiter) == 3:
                while end < len(text) and end - at < 5 and text[end] == delimiter[0]:
                    end += 1
            return end
        else:
            at += 1
    return -1


def _prefix(short: Path, long: Path) -> bool:
    return long[: len(short)] == short


def value_line(lines: List[Tuple[int, Path, bool]], path: Path) -> Optional[int]:
    """The line that writes the value at ``path``: its own key, or the key of the inline table
    that holds it."""
    return next((number for number, written, header in lines if not header and _prefix(written, path)), None)


def table_line(lines: List[Tuple[int, Path, bool]], path: Path) -> Optional[int]:
    """The first line that writes the table at ``path``: its header, the key of it (or of an
    inline table holding it), or a dotted key inside it."""
    for number, written, header in lines:
        if _prefix(path, written) or (not header and _prefix(written, path)):
            return number
    return None
