"""Where a key of a TOML document is written: the line of a table header or a key, by its full
dotted path, however the document spells it (``[a.b]`` then ``c = ...``, ``[a]`` then
``b.c = ...``, or an inline table ``b = { c = ... }`` whose line holds all it contains).

``tomllib`` gives values without positions; this reads the document's lines (a key inside a
multi-line string is not told apart: a packaging file does not hide one there).
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
    for number, line in enumerate(text.split("\n"), start=1):
        header = _HEADER.match(line)
        if header:
            table = _parts(header.group(1))
            found.append((number, table, True))
            continue
        key = _KEY.match(line)
        if key:
            found.append((number, table + _parts(key.group(1)), False))
    return found


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
