"""A rule's documentation for the editor: the page ``hermes-lint explain CODE`` prints (hover),
and where that page is (``codeDescription``): the project's own ``docs-url`` when it sets one,
else the page's file where this installation has it; never an address that may not exist."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Optional

from hermes_lint.config import Config


@lru_cache(maxsize=None)
def rule_page(code: str) -> Optional[str]:
    """The rule's page (Markdown), or None for a code no rule has."""
    from hermes_lint.report.rule_docs import render_rule_page
    from hermes_lint.rules import rule_by_code

    try:
        rule = rule_by_code(code)
    except (KeyError, LookupError):
        return None
    return render_rule_page(rule) if rule is not None else None


def _page_files(code: str):
    """Where an installation keeps docs/rules/CODE.md: the package ``hermes_lint.rule_pages``
    when the distribution maps the pages there, else a source checkout's docs/rules."""
    import importlib.util

    spec = importlib.util.find_spec("hermes_lint.rule_pages")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        yield Path(location) / f"{code}.md"
    yield Path(__file__).resolve().parents[2] / "docs" / "rules" / f"{code}.md"


@lru_cache(maxsize=None)
def _installed_page_uri(code: str) -> Optional[str]:
    for path in _page_files(code):
        if path.is_file():
            return path.resolve().as_uri()
    return None


def rule_page_uri(code: str, config: Config) -> Optional[str]:
    """The address of the rule's page, or None when none is known to exist."""
    if config.docs_url:
        from hermes_lint.report.output import rule_url

        return rule_url(code, config.docs_url)
    return _installed_page_uri(code)
