"""Generated source laid out within ``LINE_WIDTH``: string literals split over continuation
lines, calls with their string argument on lines of their own, docstring text wrapped."""

from __future__ import annotations

import re
import textwrap
from typing import List

from hermes_lint.edit.literals import string_literal

# Generated lines stay within this width where the generator chooses the line breaks: flake8's
# default (pycodestyle E501), so that a scaffolded file passes it as generated.
LINE_WIDTH = 79


def docstring_text(text: str) -> str:
    """A module docstring's text, escaped and wrapped so that each line fits with its quotes."""
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return textwrap.fill(escaped, width=LINE_WIDTH - 3, break_long_words=False, break_on_hyphens=False)


def wrapped_literal(text: str, indent: int, prefix: str) -> str:
    """A string literal that fits after ``prefix`` at ``indent``, or a parenthesized implicit
    concatenation of lines that fit (as the built-in tools write long descriptions)."""
    literal = string_literal(text)
    if indent + len(prefix) + len(literal) + 1 <= LINE_WIDTH:
        return literal
    return "(\n" + continuation_lines(text, indent + 4) + " " * indent + ")"


def wrapped_call(function: str, text: str, indent: int, prefix: str = "") -> str:
    """The line ``prefix function("text")`` at ``indent``, or the call with the string on
    continuation lines that fit."""
    one_line = f"{' ' * indent}{prefix}{function}({string_literal(text)})"
    if len(one_line) <= LINE_WIDTH:
        return one_line
    return f"{' ' * indent}{prefix}{function}(\n" + continuation_lines(text, indent + 4) + " " * indent + ")"


def dedented(text: str, by: int) -> str:
    """``text`` with ``by`` characters of indentation taken off every line (a block that a
    template indents again)."""
    return "\n".join(line[by:] for line in text.split("\n"))


def continuation_lines(text: str, indent: int) -> str:
    """``text`` as string literals on lines of their own at ``indent``, each within the width."""
    room = LINE_WIDTH - indent - 2  # inside the quotes
    pieces: List[str] = []
    current = ""
    for word in re.findall(r"\S+\s*|\s+", text):
        if current and len(string_literal(current + word)) - 2 > room:
            pieces.append(current)
            current = ""
        current += word
    pieces.append(current)
    return "".join(f"{' ' * indent}{string_literal(piece)}\n" for piece in pieces)


def wrapped_docstring(text: str, indent: int) -> str:
    """The text of a one-sentence docstring at ``indent``: its later lines indented, every
    line (quotes included) within the width."""
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = textwrap.wrap(escaped, width=LINE_WIDTH - indent - 6, break_long_words=False, break_on_hyphens=False)
    return ("\n" + " " * indent).join(lines)
