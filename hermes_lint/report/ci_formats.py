"""Output formats for CI: SARIF 2.1.0 (code scanning) and GitHub Actions workflow commands.

Both take the final, sorted diagnostics (paths relative to the project root, 1-based lines and
character columns) and return the whole output as one string.
"""

from __future__ import annotations

import json
from typing import Callable, Dict, List, Optional, Sequence
from urllib.parse import quote

from hermes_lint import __version__
from hermes_lint.model import Diagnostic
from hermes_lint.report.output import DOCS_URL

SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _same(path: str) -> str:
    return path


def _sarif_rule(code: str, docs_url: str) -> dict:
    from hermes_lint.report.output import rule_url
    from hermes_lint.report.rule_docs import render_rule_page
    from hermes_lint.rules import rule_by_code

    try:
        rule = rule_by_code(code)
    except KeyError:  # a code without a rule class: still a valid descriptor
        return {"id": code, "shortDescription": {"text": code}}
    url = rule_url(code, docs_url)
    return {
        "id": code,
        **({"helpUri": url} if url else {}),  # no page, no link
        "name": rule.__name__,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.rationale() or rule.summary},
        # The rule's page: code scanning shows the Markdown, other viewers the text.
        "help": {"text": rule.doc(), "markdown": render_rule_page(rule)},
        "defaultConfiguration": {"level": "error"},
    }


def format_sarif(
    diagnostics: Sequence[Diagnostic],
    docs_url: str = "",
    fixes=None,
    path_of: Callable[[str], str] = _same,
    base_uri: Optional[str] = None,
) -> str:
    """One SARIF run whose ``tool.driver.rules`` lists the rules that reported something.

    Only reported rules are described (as ruff does): the output stays small and its bytes do
    not change when a rule is added to the catalogue. Locations are ``path_of`` the
    root-relative path (the CLI: relative to the repository root) under ``uriBaseId``
    ``%SRCROOT%``, which ``originalUriBaseIds`` defines as ``base_uri`` (an absolute URI ending
    in '/') when given; columns count Unicode code points, as hermes-lint's do.
    """
    codes = sorted({d.code for d in diagnostics})
    rule_index: Dict[str, int] = {code: index for index, code in enumerate(codes)}
    results: List[dict] = [
        {
            "ruleId": d.code,
            "ruleIndex": rule_index[d.code],
            "level": "error",
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": quote(path_of(d.path)), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": d.line, "startColumn": d.col},
                    }
                }
            ],
        }
        for d in diagnostics
    ]
    for result, d in zip(results, diagnostics):
        if fixes and d in fixes:
            result["fixes"] = [_sarif_fix(fixes[d], path_of)]
    log = {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "hermes-lint",
                        "version": __version__,
                        "rules": [_sarif_rule(code, docs_url or DOCS_URL) for code in codes],
                    }
                },
                **({"originalUriBaseIds": {"%SRCROOT%": {"uri": base_uri}}} if base_uri else {}),
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _sarif_fix(fix, path_of: Callable[[str], str]) -> dict:
    """A SARIF ``fix``: one ``artifactChange`` per edited file, each edit a ``replacement`` of a
    region (an insertion deletes an empty one); whether it is safe goes in the property bag."""
    changes: Dict[str, List[dict]] = {}
    for edit in fix.edits:
        changes.setdefault(edit.path, []).append(
            {
                "deletedRegion": {
                    "startLine": edit.start[0],
                    "startColumn": edit.start[1],
                    "endLine": edit.end[0],
                    "endColumn": edit.end[1],
                },
                "insertedContent": {"text": edit.content},
            }
        )
    return {
        "description": {"text": fix.message},
        "artifactChanges": [
            {"artifactLocation": {"uri": quote(path_of(path)), "uriBaseId": "%SRCROOT%"}, "replacements": replacements}
            for path, replacements in sorted(changes.items())
        ],
        "properties": {"applicability": fix.applicability},
    }


# The escaping of @actions/core's command.ts (escapeData / escapeProperty).
_DATA_ESCAPES = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY_ESCAPES = _DATA_ESCAPES + ((":", "%3A"), (",", "%2C"))


def _escape(text: str, escapes) -> str:
    for raw, escaped in escapes:  # '%' first, so the escapes themselves are not re-escaped
        text = text.replace(raw, escaped)
    return text


def format_github(diagnostics: Sequence[Diagnostic], path_of: Callable[[str], str] = _same) -> str:
    """One ``::error`` workflow command per diagnostic: an annotation on the pull request, its
    ``file`` ``path_of`` the root-relative path (the CLI: relative to the repository root)."""
    lines = []
    for d in diagnostics:
        properties = ",".join(
            f"{key}={_escape(str(value), _PROPERTY_ESCAPES)}"
            for key, value in (("file", path_of(d.path)), ("line", d.line), ("col", d.col), ("title", d.code))
        )
        lines.append(f"::error {properties}::{_escape(d.message, _DATA_ESCAPES)}\n")
    return "".join(lines)
