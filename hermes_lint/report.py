"""Report: diagnostics as text, JSON and the other output formats."""

from __future__ import annotations

import json
from typing import Callable, Dict, Sequence

from hermes_lint.formats import format_github, format_sarif
from hermes_lint.model import Diagnostic


def format_text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(d.as_text() + "\n" for d in diagnostics)


def format_json(diagnostics: Sequence[Diagnostic]) -> str:
    """A JSON array of {path, line, col, code, message}: a contract other tools parse."""
    return json.dumps([d.as_json() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


FORMATTERS: Dict[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}
