"""Findings about a schema key name the tools they are about, when the place alone does not.

A finding about a schema key is reported at that key, in the file that holds it. When that file
is not the tool's own (``tools/weather_schema.py``, a plugin's ``tools.py``), or when several
tools share the definition, the place does not say which tool it is about, so the message does:
``parameter `city` has no description (tools `forecast`, `weather`)``. Several tools sharing one
definition get one diagnostic there that names them all, not one per tool: within a module here
(``attributed``, ``named``), across modules in the project phase (``merged_across_modules``).

Which tools a finding is about is read from the schema keys the rule located for each tool
(``schema_walk.locate``) while it produced the finding, never guessed from the place alone: a
helper function that builds several tools' schemas is one place with different values.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Dict, Iterable, List, Sequence, Set, Tuple

from hermes_lint.model import Diagnostic, Location
from hermes_lint.rules.base import Finding

_SUFFIX = re.compile(r" \(tools? ((?:`[^`]+`)(?:, `[^`]+`)*)\)$")


def attributed(findings: Iterable[Finding], located: List[Tuple[Location, str]]) -> List[Tuple[Finding, Set[str]]]:
    """Each finding a rule yields, with the tools whose schema key at its location the rule
    located while it ran (``located``, filled by ``schema_walk.locate`` as the rule runs): a rule
    locates a key for a tool to report it there, or where what it reports depends on the value
    at that key alone, which tools sharing the key share (a rule that reports each place once
    locates the key again for the other tools, and skips the repeat)."""
    found = list(findings)  # runs the rule: ``located`` is complete afterwards
    by_location: Dict[Location, Set[str]] = {}
    for where, name in located:
        by_location.setdefault(where, set()).add(name)
    return [(finding, set(by_location.get(finding.location, ()))) for finding in found]


def label(message: str, names: Set[str]) -> str:
    """``message`` naming ``names`` (unless it names its one tool already)."""
    if len(names) == 1 and f"`{next(iter(names))}`" in message:
        return message
    ordered = sorted(names)
    noun = "tool" if len(ordered) == 1 else "tools"
    return f"{message} ({noun} {', '.join(f'`{name}`' for name in ordered)})"


def named(pairs: Sequence[Tuple[Finding, Set[str]]], module_path: str) -> List[Tuple[Finding, str]]:
    """(finding, message) per distinct finding: findings alike but for the tool merged, their
    tools named when the key is in another file or shared by more than one tool."""
    merged: Dict[Tuple, Tuple[Finding, Set[str]]] = {}
    for finding, names in pairs:
        key = (finding.location, finding.path, finding.message)
        if key in merged:
            merged[key][1].update(names)
        else:
            merged[key] = (finding, set(names))
    result = []
    for finding, names in merged.values():
        message = finding.message
        elsewhere = finding.location.path not in ("", module_path)
        if names and (elsewhere or len(names) > 1):
            message = label(message, names)
        result.append((finding, message))
    return result


def merged_across_modules(diagnostics: List[Diagnostic], foreign: Set[Diagnostic]) -> List[Diagnostic]:
    """``diagnostics`` with those of ``foreign`` (module findings located in another file than
    their module's) that differ only by the tools they name merged into one naming them all:
    two tool modules importing one schema constant."""
    groups: Dict[Tuple, Tuple[Diagnostic, Set[str]]] = {}
    kept: List[Diagnostic] = []
    for diagnostic in diagnostics:
        match = _SUFFIX.search(diagnostic.message) if diagnostic in foreign else None
        if match is None:
            kept.append(diagnostic)
            continue
        base = diagnostic.message[: match.start()]
        names = set(re.findall(r"`([^`]+)`", match.group(1)))
        key = (diagnostic.path, diagnostic.line, diagnostic.col, diagnostic.code, base)
        if key in groups:
            groups[key][1].update(names)
        else:
            groups[key] = (diagnostic, names)
    for (_, _, _, _, base), (first, names) in groups.items():
        kept.append(replace(first, message=label(base, names)))
    return kept
