"""Report: diagnostics as text, JSON and the other output formats."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Dict, Mapping, Optional, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.fix.edits import Fix
    from hermes_lint.model import Diagnostic


def format_text(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(d.as_text() + "\n" for d in diagnostics)


def format_json(diagnostics: Sequence[Diagnostic], fixes: Optional[Mapping[Diagnostic, Fix]] = None) -> str:
    """A JSON array of {path, line, col, code, message, fix}: a contract other tools parse.
    ``fix`` is null or {applicability, message, edits} (``hermes_lint.fix.edits.Fix``)."""
    fixes = fixes or {}
    items = [{**d.as_json(), "fix": fixes[d].as_json() if d in fixes else None} for d in diagnostics]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def format_sarif(diagnostics: Sequence[Diagnostic], fixes: Optional[Mapping[Diagnostic, Fix]] = None) -> str:
    from hermes_lint import formats  # imported for these two formats only (text and JSON need none of it)

    return formats.format_sarif(diagnostics, fixes=fixes)


def format_github(diagnostics: Sequence[Diagnostic]) -> str:
    from hermes_lint import formats

    return formats.format_github(diagnostics)


FORMATTERS: Dict[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}
