"""Report: diagnostics as text, JSON and the other output formats."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Dict, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.model import Diagnostic


def format_text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(d.as_text() + "\n" for d in diagnostics)


def format_json(diagnostics: Sequence[Diagnostic]) -> str:
    """A JSON array of {path, line, col, code, message}: a contract other tools parse."""
    return json.dumps([d.as_json() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


def format_sarif(diagnostics: Sequence[Diagnostic]) -> str:
    from hermes_lint import formats  # imported for these two formats only (text and JSON need none of it)

    return formats.format_sarif(diagnostics)


def format_github(diagnostics: Sequence[Diagnostic]) -> str:
    from hermes_lint import formats

    return formats.format_github(diagnostics)


FORMATTERS: Dict[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}
