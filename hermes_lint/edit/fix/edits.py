"""Edits and fixes as plain data, and applying them to a text.

Positions are 1-based lines and 1-based columns counted in characters (as diagnostics are); the
end of a range is exclusive. An insertion has ``start == end``; a deletion has empty ``content``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

SAFE, UNSAFE = "safe", "unsafe"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text of ``path`` between ``start`` and ``end`` with ``content``."""

    path: str
    start: Tuple[int, int]  # (line, col), 1-based
    end: Tuple[int, int]  # exclusive
    content: str

    def as_json(self) -> dict:
        return {
            "path": self.path,
            "content": self.content,
            "location": {"line": self.start[0], "col": self.start[1]},
            "end_location": {"line": self.end[0], "col": self.end[1]},
        }


@dataclass(frozen=True)
class Fix:
    """What a rule offers for one finding: all of ``edits`` or none of them."""

    applicability: str  # SAFE or UNSAFE
    message: str
    edits: Tuple[Edit, ...]

    def as_json(self) -> dict:
        return {
            "applicability": self.applicability,
            "message": self.message,
            "edits": [edit.as_json() for edit in self.edits],
        }


class TextIndex:
    """Offsets of (line, col) positions in one text (lines end at ``\\n``, ``\\r\\n`` or ``\\r``,
    as Python's tokenizer and libcst split them)."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]

    def offset(self, line: int, col: int) -> int:
        if not 1 <= line <= len(self.starts):
            raise ValueError(f"line {line} is outside the text ({len(self.starts)} lines)")
        return min(self.starts[line - 1] + col - 1, len(self.text))

    def position(self, offset: int) -> Tuple[int, int]:
        import bisect

        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        """Line ``line`` without its line break."""
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")


def edit_between(path: str, old: str, new: str) -> Optional[Edit]:
    """The one edit that turns ``old`` into ``new`` (their common start and end left out), or
    None when they are equal."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    index = TextIndex(old)
    return Edit(path, index.position(prefix), index.position(len(old) - suffix), new[prefix : len(new) - suffix])


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` (of one file, not overlapping) applied."""
    index = TextIndex(text)
    spans = sorted((index.offset(*e.start), index.offset(*e.end), e.content) for e in edits)
    parts: List[str] = []
    position = 0
    for start, end, content in spans:
        if start < position:
            raise ValueError("overlapping edits")
        parts.append(text[position:start])
        parts.append(content)
        position = end
    parts.append(text[position:])
    return "".join(parts)


def choose_fixes(fixes: Sequence[Fix], texts) -> List[Tuple[Fix, int]]:
    """The fixes that can be applied together in one pass (in order, skipping any that touches a
    range an earlier one touched: the next pass offers it again if it still applies), each with
    how many findings it settles (a fix identical to a chosen one settles its finding too)."""
    taken: Dict[str, List[Tuple[int, int]]] = {}
    chosen: Dict[frozenset, List] = {}
    indexes: Dict[str, TextIndex] = {}
    for fix in fixes:
        key = frozenset(fix.edits)
        if fix.edits and key in chosen:
            chosen[key][1] += 1
            continue
        spans = []
        for edit in fix.edits:
            if edit.path not in texts:
                break
            if edit.path not in indexes:
                indexes[edit.path] = TextIndex(texts[edit.path])
            index = indexes[edit.path]
            spans.append((edit.path, index.offset(*edit.start), index.offset(*edit.end)))
        else:
            if spans and not any(_overlaps((start, end), taken.get(path, ())) for path, start, end in spans):
                for path, start, end in spans:
                    taken.setdefault(path, []).append((start, end))
                chosen[key] = [fix, 1]
    return [(fix, count) for fix, count in chosen.values()]


def _overlaps(span: Tuple[int, int], others) -> bool:
    start, end = span
    for other_start, other_end in others:
        if max(start, other_start) < min(end, other_end) or start == other_start:
            return True  # shared text, or two changes at one point (their order would be a guess)
        if start == end and other_start < start < other_end or other_start == other_end and start < other_start < end:
            return True  # an insertion inside the other's range
    return False
