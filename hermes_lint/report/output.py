"""Report: diagnostics as text, JSON and the other output formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, Mapping, Optional, Sequence

from hermes_lint import __version__

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.edit.fix.edits import Fix
    from hermes_lint.model import Diagnostic

# No page is published on the web by default: the rule pages are installed with the package
# (``hermes_lint/rule_pages/``) and a diagnostic links to the installed page, whose version is
# the one that reported it. ``docs-url`` in [tool.hermes-lint] points at a copy the project
# hosts; ``{code}`` and ``{version}`` are filled in.
DOCS_URL = ""


def rule_url(code: str, template: str = DOCS_URL) -> Optional[str]:
    """The rule's page: ``template`` filled in, else the installed page's ``file:`` URI; None for
    a code without a page (never a link that leads nowhere)."""
    if template:
        return template.replace("{code}", code).replace("{version}", __version__)
    page = installed_rule_page(code)
    return page.as_uri() if page is not None else None


def installed_rule_page(code: str) -> Optional[Path]:
    if not code.isalnum():
        return None
    page = rule_pages_dir() / f"{code}.md"
    return page if page.is_file() else None


def rule_pages_dir() -> Path:
    """Where the rule pages are: ``hermes_lint/rule_pages/`` in an installed wheel (package data
    mapped from docs/rules/), docs/rules/ in a source checkout (an editable install)."""
    installed = Path(__file__).resolve().parents[1] / "rule_pages"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "docs" / "rules"


def _same(path: str) -> str:
    return path


def format_text(diagnostics: Sequence[Diagnostic], docs_url: str = DOCS_URL) -> str:
    return "".join(d.as_text() + "\n" for d in diagnostics)


def format_json(
    diagnostics: Sequence[Diagnostic],
    docs_url: str = DOCS_URL,
    fixes: Optional[Mapping[Diagnostic, Fix]] = None,
    path_of: Callable[[str], str] = _same,
    filename_of: Optional[Callable[[str], str]] = None,
) -> str:
    """A JSON array of {path, filename, line, col, code, message, url, fix}: a contract other
    tools parse. ``path``: ``path_of`` the root-relative path (the CLI: relative to the current
    directory); ``filename``: absolute (ruff's key), when ``filename_of`` is given; ``url``: the
    rule's page or null; ``fix``: null or {applicability, message, edits}
    (``hermes_lint.edit.fix.edits.Fix``), the edits' paths as ``path``."""
    fixes = fixes or {}
    entries = []
    for d in diagnostics:
        entry = {**d.as_json(), "path": path_of(d.path)}
        if filename_of is not None:
            entry["filename"] = filename_of(d.path)
        fix = fixes[d].as_json() if d in fixes else None
        if fix is not None:
            for edit in fix["edits"]:
                edit["path"] = path_of(edit["path"])
        entries.append({**entry, "url": rule_url(d.code, docs_url), "fix": fix})
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"


def format_sarif(
    diagnostics: Sequence[Diagnostic],
    docs_url: str = DOCS_URL,
    fixes: Optional[Mapping[Diagnostic, Fix]] = None,
    path_of: Callable[[str], str] = _same,
    base_uri: Optional[str] = None,
) -> str:
    from hermes_lint.report import ci_formats as formats  # imported for these two formats only (text and JSON need none of it)

    return formats.format_sarif(diagnostics, docs_url, fixes=fixes, path_of=path_of, base_uri=base_uri)


def format_github(diagnostics: Sequence[Diagnostic], docs_url: str = DOCS_URL, path_of: Callable[[str], str] = _same) -> str:
    from hermes_lint.report import ci_formats as formats

    return formats.format_github(diagnostics, path_of=path_of)


FORMATTERS: Dict[str, Callable[..., str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}
