"""Entry-point groups that are plainly meant to be Hermes's plugin group but are not (HRM812).

Hermes lists pip-installed plugins with ``importlib.metadata.entry_points().select(group=
"hermes_agent.plugins")`` (``hermes_cli/plugins.py``, ``_scan_entry_points``): the group name is
compared exactly. A package declaring ``hermes.plugins``, ``hermes-agent.plugins`` or
``hermes_agent_plugins`` instead is never loaded as an installed plugin. Only names that are
these words and nothing else (``hermes`` or ``hermes agent``, then ``plugin(s)``, joined by dots,
dashes or underscores, in any case) count: a group of another framework is no concern of ours.

Read from the same files as ``plugins.entry_points`` and in the same order (pyproject.toml,
setup.cfg, a literal ``setup(entry_points=...)``, then an unpacked wheel's or a built sdist's
``entry_points.txt``); never imported, never run.
"""

from __future__ import annotations

import ast
import configparser
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from hermes_lint.project.plugins import ENTRY_POINT_GROUP, _metadata_files, _read, parsed_toml

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


def _header_line(text: str, pattern: str) -> int:
    """The 1-based line of the first line matching ``pattern`` (anchored at a line's start,
    leading blanks allowed but not blank lines), else 0."""
    match = re.search(r"^[ \t]*" + pattern, text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 0


def _key_line(text: str, key: str, after: int) -> int:
    """The first line at or after line ``after`` that starts with ``key`` (quoted or not) and
    ``=``/``:``, else 0."""
    quoted = "[\"']?" + re.escape(key) + "[\"']?"
    for number, line in enumerate(text.split("\n")[max(after - 1, 0):], start=max(after, 1)):
        if re.match(r"[ \t]*" + quoted + r"[ \t]*[=:]", line):
            return number
    return 0


def meant_for_hermes(group: str) -> bool:
    """``group`` is a spelling of Hermes's plugin group other than the exact one."""
    if group == ENTRY_POINT_GROUP:
        return False
    words = tuple(word for word in _SEPARATORS.split(group.strip().lower()) if word)
    return words in _MEANT


def misnamed_groups(root: Path) -> List[MisnamedGroup]:
    """The misnamed groups of the first packaging file that declares any (the metadata files
    only when no packaging file does)."""
    readers: Tuple[Tuple[str, Callable[[str, str], List[MisnamedGroup]]], ...] = (
        ("pyproject.toml", _pyproject), ("setup.cfg", _setup_cfg), ("setup.py", _setup_py),
    )
    for name, reader in readers:
        text = _read(root / name)
        if text is not None and "ermes" in text.lower():
            found = reader(text, name)
            if found:
                return found
    for name in _metadata_files(root):
        text = _read(root / name)
        if text is not None:
            found = _entry_points_txt(text, name)
            if found:
                return found
    return []


def _pyproject(text: str, declared_in: str) -> List[MisnamedGroup]:
    data = parsed_toml(text)
    if data is None:
        return []
    project = _table(data, "project")
    poetry = _table(_table(data, "tool"), "poetry")
    found = []
    tables = ((project.get("entry-points"), r"project\.entry-points"), (poetry.get("plugins"), r"tool\.poetry\.plugins"))
    for groups, header in tables:
        if not isinstance(groups, dict):
            continue
        for group, table in groups.items():
            if not (isinstance(group, str) and meant_for_hermes(group) and isinstance(table, dict) and table):
                continue
            quoted = r"(\"" + re.escape(group) + r"\"|'" + re.escape(group) + r"'|" + re.escape(group) + ")"
            line = _header_line(text, r"\[[ \t]*" + header + r"[ \t]*\.[ \t]*" + quoted + r"[ \t]*\]")
            if not line:  # an inline table under [project.entry-points]
                line = _key_line(text, group, _header_line(text, r"\[[ \t]*" + header + r"[ \t]*\]"))
            found.append(MisnamedGroup(group, declared_in, line or 1, tuple(str(k) for k in table)))
    return found


def _table(data: Dict[str, Any], key: str) -> Dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _ini(text: str) -> Optional[configparser.ConfigParser]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment, method-assign]  # names keep their case
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def _setup_cfg(text: str, declared_in: str) -> List[MisnamedGroup]:
    parser = _ini(text)
    if parser is None or not parser.has_section("options.entry_points"):
        return []
    start = _header_line(text, r"\[options\.entry_points\]")
    found = []
    for group, block in parser.items("options.entry_points"):
        names = tuple(row.partition("=")[0].strip() for row in block.splitlines() if "=" in row)
        if meant_for_hermes(group) and names:
            found.append(MisnamedGroup(group, declared_in, _key_line(text, group, start) or start or 1, names))
    return found


def _entry_points_txt(text: str, declared_in: str) -> List[MisnamedGroup]:
    parser = _ini(text)
    if parser is None:
        return []
    found = []
    for group in parser.sections():
        names = tuple(name for name, _ in parser.items(group))
        if meant_for_hermes(group) and names:
            line = _header_line(text, r"\[" + re.escape(group) + r"\]")
            found.append(MisnamedGroup(group, declared_in, line or 1, names))
    return found


def _setup_py(text: str, declared_in: str) -> List[MisnamedGroup]:
    """The keys of a literal ``setup(entry_points={...})`` dict (or of a module-level name bound
    once to one)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    constants: Dict[str, Optional[ast.expr]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            constants[name] = stmt.value if name not in constants else None  # bound twice: unknown
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if called != "setup":
            continue
        for keyword in node.keywords:
            value: Optional[ast.expr] = keyword.value
            if isinstance(value, ast.Name):
                value = constants.get(value.id)
            if keyword.arg != "entry_points" or not isinstance(value, ast.Dict):
                continue
            for key, group in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and meant_for_hermes(key.value):
                    rows = group.elts if isinstance(group, (ast.List, ast.Tuple)) else [group]
                    names = tuple(
                        row.value.partition("=")[0].strip() for row in rows
                        if isinstance(row, ast.Constant) and isinstance(row.value, str) and "=" in row.value
                    )
                    if names:
                        found.append(MisnamedGroup(key.value, declared_in, key.lineno, names))
    return found
