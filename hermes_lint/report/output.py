"""Report: diagnostics as text, JSON and the other output formats."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Dict, Mapping, Optional, Sequence

from hermes_lint import __version__

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.edit.fix.edits import Fix
    from hermes_lint.model import Diagnostic

# Where each rule's page is published: this repository's docs/rules/ at the release's tag, so
# that the page matches the installed version. ``docs-url`` in [tool.hermes-lint] points
# elsewhere (a copy your organisation hosts); ``{code}`` and ``{version}`` are filled in.
DOCS_URL = "https://github.com/hermes-lint/hermes-lint/blob/v{version}/docs/rules/{code}.md"


def rule_url(code: str, template: str = DOCS_URL) -> str:
    return template.replace("{code}", code).replace("{version}", __version__)


def format_text(diagnostics: Sequence[Diagnostic], docs_url: str = DOCS_URL) -> str:
    return "".join(d.as_text() + "\n" for d in diagnostics)


def format_json(
    diagnostics: Sequence[Diagnostic], docs_url: str = DOCS_URL, fixes: Optional[Mapping[Diagnostic, Fix]] = None
) -> str:
    """A JSON array of {path, line, col, code, message, url, fix}: a contract other tools parse.
    ``fix`` is null or {applicability, message, edits} (``hermes_lint.edit.fix.edits.Fix``)."""
    fixes = fixes or {}
    return json.dumps(
        [
            {**d.as_json(), "url": rule_url(d.code, docs_url), "fix": fixes[d].as_json() if d in fixes else None}
            for d in diagnostics
        ],
        indent=2,
        ensure_ascii=False,
    ) + "\n"


def format_sarif(
    diagnostics: Sequence[Diagnostic], docs_url: str = DOCS_URL, fixes: Optional[Mapping[Diagnostic, Fix]] = None
) -> str:
    from hermes_lint.report import ci_formats as formats  # imported for these two formats only (text and JSON need none of it)

    return formats.format_sarif(diagnostics, docs_url, fixes=fixes)


def format_github(diagnostics: Sequence[Diagnostic], docs_url: str = DOCS_URL) -> str:
    from hermes_lint.report import ci_formats as formats

    return formats.format_github(diagnostics)


FORMATTERS: Dict[str, Callable[..., str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}
