"""Python string literals in libcst trees: the value one holds, and the literal for a text."""

from __future__ import annotations

from typing import Optional

import libcst as cst


def string_value(node: cst.CSTNode) -> Optional[str]:
    """The text of a string literal (concatenated ones included); None for any other node or
    a bytes literal."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def string_literal(text: str, quote: str = '"') -> str:
    """``text`` as a Python string literal in ``quote`` (control characters other than newline and
    tab must have been rejected by the caller)."""
    body = text.replace("\\", "\\\\").replace(quote, "\\" + quote)
    return quote + body.replace("\n", "\\n").replace("\t", "\\t") + quote
