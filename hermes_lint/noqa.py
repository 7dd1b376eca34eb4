"""``# noqa`` comments: which lines suppress which codes.

Same syntax as flake8 and ruff: ``# noqa`` suppresses everything on its line, ``# noqa: HRM101,HRM107``
only the codes it lists. Only comment tokens count, so the words inside a string do not.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NoqaComment:
    line: int
    col: int  # 1-based column of the '#'
    codes: Optional[Tuple[str, ...]]  # None: a bare `# noqa`, suppressing every code


def find_noqa_comments(text: str) -> Dict[int, NoqaComment]:
    """Line number -> the noqa comment on that line."""
    if "noqa" not in text and "NOQA" not in text.upper():
        return {}  # the common case, without tokenizing
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


def _add(found: Dict[int, NoqaComment], line: int, offset: int, comment: str) -> None:
    match = _NOQA.search(comment)
    if not match:
        return
    codes = match.group("codes")
    parsed = tuple(code.upper() for code in re.split(r"[,\s]+", codes) if code) if codes else None
    found[line] = NoqaComment(line, offset + match.start() + 1, parsed)
