"""Editing ``# noqa`` comments: removing a code (HRM900's fix) and adding codes (``--add-noqa``).

Only comment tokens are edited, so the same words inside a string are never touched.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, Optional, Sequence, Tuple

from hermes_lint.edit.fix.edits import Edit, TextIndex
from hermes_lint.noqa import _FILE_NOQA, _NOQA


def comments(text: str) -> Dict[int, Tuple[int, str]]:
    """Line -> (0-based column, text) of the comment token on that line."""
    found: Dict[int, Tuple[int, str]] = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = (token.start[1], token.string)
    return found


def _separator(codes_text: str) -> str:
    for separator in (", ", ",", " "):
        if separator in codes_text:
            return separator
    return ", "


def unused_noqa_edit(path: str, text: str, diagnostic) -> Optional[Edit]:
    """HRM900's fix: the edit removing the unused code the finding records (``fix_data``) from
    the comment on its line (inline or file-level), or the whole unused ``# hermes-lint: noqa``
    line."""
    code = diagnostic.fix_value("code")
    if diagnostic.fix_value("form") == "hermes-lint":
        return _remove_file_level(path, text, diagnostic.line, code)
    return remove_code(path, text, diagnostic.line, code) if code else None


def _remove_file_level(path: str, text: str, line: int, code: Optional[str]) -> Optional[Edit]:
    index = TextIndex(text)
    if line > len(index.starts):
        return None
    line_text = index.line_text(line)
    match = _FILE_NOQA.match(line_text.rstrip("\r\n"))
    if match is None:
        return None
    whole_line = Edit(path, (line, 1), (line + 1, 1) if line < len(index.starts) else (line, len(line_text) + 1), "")
    if code is None or match.group("codes") is None:
        return whole_line
    codes_text = match.group("codes")
    codes = [c for c in re.split(r"[,\s]+", codes_text) if c]
    kept = [c for c in codes if c.upper() != code]
    if len(kept) == len(codes):
        return None
    if not kept:
        return whole_line
    start, end = match.start("codes") + 1, match.end("codes") + 1
    return Edit(path, (line, start), (line, end), _separator(codes_text).join(kept))


def remove_code(path: str, text: str, line: int, code: str) -> Optional[Edit]:
    """The edit removing ``code`` from the ``# noqa:`` comment on ``line``; the whole comment
    (and the blanks before it) when no code is left and the comment says nothing else, the whole
    line when the comment was all there was on it."""
    comment = comments(text).get(line)
    if comment is None:
        return None
    column, comment_text = comment
    match = _NOQA.search(comment_text)
    if match is None or match.group("codes") is None:
        return None
    codes_text = match.group("codes")
    codes = [c for c in re.split(r"[,\s]+", codes_text) if c]
    kept = [c for c in codes if c.upper() != code]
    if len(kept) == len(codes):
        return None
    index = TextIndex(text)
    line_text = index.line_text(line)
    start, end = (line, column + 1), (line, column + len(comment_text) + 1)
    if kept:
        new = comment_text[: match.start("codes")] + _separator(codes_text).join(kept) + comment_text[match.end("codes") :]
        return Edit(path, start, end, new)
    rest = (comment_text[: match.start()] + comment_text[match.end() :]).strip()
    if rest and rest != "#":
        return Edit(path, start, end, rest if rest.startswith("#") else "# " + rest)
    before = line_text[:column]
    if not before.strip():  # a line of its own: the line goes
        next_line = (line + 1, 1) if line < len(index.starts) else (line, len(line_text) + 1)
        return Edit(path, (line, 1), next_line, "")
    return Edit(path, (line, len(before.rstrip()) + 1), end, "")


def add_codes(text: str, line: int, codes: Sequence[str]) -> Optional[str]:
    """Line ``line`` of ``text`` with ``codes`` added to its ``# noqa:`` comment (a new one when
    it has none; codes already there are not repeated), or None when nothing changes."""
    line_text = TextIndex(text).line_text(line)
    comment = comments(text).get(line)
    if comment is not None:
        column, comment_text = comment
        match = _NOQA.search(comment_text)
        if match is not None:
            if match.group("codes") is None:
                return None  # a bare noqa suppresses everything already
            present = [c for c in re.split(r"[,\s]+", match.group("codes")) if c]
            new_codes = [c for c in codes if c not in {p.upper() for p in present}]
            if not new_codes:
                return None
            merged = _separator(match.group("codes")).join(present + sorted(new_codes))
            start = column + match.start("codes")
            return line_text[:start] + merged + line_text[column + match.end("codes") :]
    return line_text.rstrip() + "  # noqa: " + ", ".join(sorted(set(codes)))
