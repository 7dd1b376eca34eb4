from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, List, Tuple

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import REGISTER, PluginRule

if TYPE_CHECKING:  # pragma: no cover - imported by the check, for a project with plugins only
    from packaging.requirements import Requirement

MANIFEST = """
name: echo
version: 1.0.0
description: Echo text back.
provides_tools: [echo]
python_dependencies:
  - httpx>=0.27,<1
  - {requirement}
"""

# Operators that bound a version from above: <, <=, == (without a wildcard), ~= (compatible
# release: ~=1.4 means >=1.4,<2) and === (arbitrary equality).
UPPER = ("<", "<=", "~=", "===")


def has_upper_bound(requirement: Requirement) -> bool:
    for specifier in requirement.specifier:
        if specifier.operator in UPPER:
            return True
        if specifier.operator == "==":
            return True  # ==1.2 and ==1.2.* both stop at the next release
    return False


class UnboundedPythonDependency(PluginRule, Rule):
    """A ``python_dependencies`` entry has no upper bound, or is not a requirement at all.

    A plugin runs in Hermes's own environment, beside every other plugin and Hermes's own
    dependencies. ``python_dependencies`` (manifest version 2; not read by Hermes 0.19.0) is what
    newer Hermes shows the operator to install (it never installs it itself) and what the plugin
    catalogue's admission check reads. A requirement with no upper bound (``httpx>=0.27``) accepts
    the next major release of that library, whatever it breaks, in installations set up after it
    ships. Bound it (``httpx>=0.27,<1``, ``httpx~=0.27``). Entries are parsed with ``packaging``, as pip parses them;
    one that does not parse is reported too.
    """

    code = "HRM807"
    summary = "a python_dependencies entry has no upper bound"

    valid = [Valid(MANIFEST.format(requirement="rich~=13.7"), files={"__init__.py": REGISTER})]
    invalid = [
        Invalid(
            MANIFEST.format(requirement="rich>=13"),
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=7,
            col=5,
            message="python dependency `rich>=13` has no upper bound: it accepts every future major release "
            "of rich (write `rich>=13,<14`)",
            fix=(("rich>=13", "rich>=13,<14"),),
        ),
        Invalid(
            MANIFEST.format(requirement="rich 13"),
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=7,
            col=5,
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        listed: List[Tuple[Any, List[Any]]] = []
        for view in plugin_views(ctx):
            document = view.document
            data = document.data if document is not None else None
            entries = data.get("python_dependencies") if isinstance(data, dict) else None
            if document is not None and isinstance(entries, list):
                listed.append((document, entries))
        if not any(isinstance(entry, str) for _, entries in listed for entry in entries):
            return  # no requirement to parse: packaging is not even imported
        from packaging.requirements import InvalidRequirement, Requirement

        for document, entries in listed:
            for number, entry in enumerate(entries):
                if not isinstance(entry, str):
                    continue
                where = document.location("python_dependencies", number)
                try:
                    requirement = Requirement(entry)
                except InvalidRequirement as exc:
                    yield Finding(where, f"python dependency `{entry}` is not a requirement: {exc}", document.path)
                    continue
                if requirement.url is None and not has_upper_bound(requirement):
                    yield Finding(where, _unbounded(entry, requirement), document.path)


def _unbounded(entry: str, requirement: Requirement) -> str:
    lower = next((s.version for s in requirement.specifier if s.operator in (">=", ">")), None)
    suggestion = ""
    if lower is not None and lower.split(".")[0].isdigit():
        major = int(lower.split(".")[0])
        suggestion = f" (write `{entry},<{major + 1}`)" if major > 0 else ""
    return (
        f"python dependency `{entry}` has no upper bound: it accepts every future major release "
        f"of {requirement.name}{suggestion}"
    )
