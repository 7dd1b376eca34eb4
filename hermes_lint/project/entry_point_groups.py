"""Entry-point groups that are plainly meant to be Hermes's plugin group but are not (HRM812).

Hermes lists pip-installed plugins with ``importlib.metadata.entry_points().select(group=
"hermes_agent.plugins")`` (``hermes_cli/plugins.py``, ``_scan_entry_points``): the group name is
compared exactly. A package declaring ``hermes.plugins``, ``hermes-agent.plugins`` or
``hermes_agent_plugins`` instead is never loaded as an installed plugin. Only names that are
these words and nothing else (``hermes`` or ``hermes agent``, then ``plugin(s)``, joined by dots,
dashes or underscores, in any case) count: a group of another framework is no concern of ours.

Read by the same reader as ``plugins.entry_points`` (``entry_point_reader``), from the first
file declaring any such group; never imported, never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

from hermes_lint.project.entry_point_reader import ENTRY_POINT_GROUP, declared_entry_points, first_declaring

_SEPARATORS = re.compile(r"[._\-]+")
_MEANT = frozenset({
    ("hermes", "plugins"), ("hermes", "plugin"),
    ("hermes", "agent", "plugins"), ("hermes", "agent", "plugin"),
    ("hermesagent", "plugins"), ("hermesagent", "plugin"),
})


@dataclass(frozen=True)
class MisnamedGroup:
    group: str  # as written
    declared_in: str  # relative path of the file
    line: int  # of the group's header or key (1-based)
    entries: Tuple[str, ...]  # its entry points' names


def meant_for_hermes(group: str) -> bool:
    """``group`` is a spelling of Hermes's plugin group other than the exact one."""
    if group == ENTRY_POINT_GROUP:
        return False
    words = tuple(word for word in _SEPARATORS.split(group.strip().lower()) if word)
    return words in _MEANT


def misnamed_groups(root: Path) -> List[MisnamedGroup]:
    """The misnamed groups of the first packaging file that declares any (the metadata files
    only when no packaging file does), each with its entry points, in declaration order."""
    files = declared_entry_points(root, mentioning=lambda text: "ermes" in text.lower())
    groups: Dict[Tuple[str, str], List] = {}
    for entry in first_declaring(files, meant_for_hermes):
        groups.setdefault((entry.group, entry.declared_in), []).append(entry)
    return [
        MisnamedGroup(group, declared_in, entries[0].group_line, tuple(e.name for e in entries))
        for (group, declared_in), entries in groups.items()
    ]
