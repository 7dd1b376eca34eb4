"""Every entry point a package declares, of every group, with where it is declared: read from its
packaging files, never imported, never run.

Sources, in the order a build reads them: ``pyproject.toml`` (``[project.entry-points.<group>]``,
Poetry's ``[tool.poetry.plugins.<group>]``), ``setup.cfg`` (``[options.entry_points]``),
``setup.py`` (the ``entry_points=`` of every ``setup()`` call, read from the syntax tree), then
the ``entry_points.txt`` of an unpacked wheel (``*.dist-info``) or a built sdist (``*.egg-info``)
at the root or under ``src/``. ``declared_entry_points`` returns them file by file; which file a
question takes its answer from is ``first_declaring``'s: the first packaging file that declares an
entry point of the groups asked about (a build backend uses one of them), the metadata files only
when no packaging file does.

What cannot be read statically is kept as ``UnreadableDeclaration`` at its place, never dropped:

- ``setup(entry_points=...)`` whose value is not a literal (a call, a name bound more than once or
  not at module level, a ``**`` merge, an f-string row);
- ``pyproject.toml`` whose ``[project]`` lists ``entry-points`` in ``dynamic`` (the backend computes
  them) when neither ``setup.cfg`` nor ``setup.py`` declares any.

Several ``setup()`` calls (one per branch of an ``if``, typically) are all read, in source order:
any of them may be the one that runs, so the entry points of each are the package's (a row
declared identically twice counts once).
"""

from __future__ import annotations

import ast
import configparser
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

ENTRY_POINT_GROUP = "hermes_agent.plugins"  # the group Hermes lists pip-installed plugins from
SOURCE_ROOTS = ("", "src")  # where a package's modules (and a build's metadata) may live
PACKAGING_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
MAX_PACKAGING_BYTES = 1_000_000


@dataclass(frozen=True)
class DeclaredEntryPoint:
    group: str  # as written
    name: str  # left of '='
    value: str  # right of '=': "pkg", "pkg.mod:attr", extras kept
    declared_in: str  # the file, relative to the project root
    line: int  # 1-based line of the entry point's own key or row
    group_line: int  # 1-based line of its group's header (or key)


@dataclass(frozen=True)
class UnreadableDeclaration:
    declared_in: str
    line: int
    col: int  # 1-based
    reason: str  # why, for a "cannot verify" message: "`entry_points=` is `_eps()`, not a literal"


@dataclass(frozen=True)
class FileEntryPoints:
    declared_in: str
    entries: Tuple[DeclaredEntryPoint, ...]
    unreadable: Tuple[UnreadableDeclaration, ...]
    metadata: bool  # an entry_points.txt a build wrote, not a packaging file


def read_packaging_file(path: Path) -> Optional[str]:
    """A packaging or metadata file's text (capped, regular files only), None when it cannot be
    read: every file entry-point discovery looks at is read here."""
    from hermes_lint.regular_files import read_regular_file

    try:
        return read_regular_file(path, MAX_PACKAGING_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


def metadata_files(root: Path) -> List[str]:
    """``*.dist-info/entry_points.txt`` (an unpacked wheel) and ``*.egg-info/entry_points.txt``
    (a built sdist), at the root or under src/, relative and sorted."""
    found = []
    for base in SOURCE_ROOTS:
        try:
            children = sorted((root / base).iterdir()) if (root / base).is_dir() else []
        except OSError:
            continue
        for child in children:
            if child.name.endswith((".dist-info", ".egg-info")) and (child / "entry_points.txt").is_file():
                found.append(f"{base + '/' if base else ''}{child.name}/entry_points.txt")
    return found


def declared_entry_points(root: Path, mentioning: Optional[Callable[[str], bool]] = None) -> Tuple[FileEntryPoints, ...]:
    """Every file of ``root`` that declares entry points (or tries to), in the order above.
    ``mentioning``: a cheap test of a file's text; files failing it are not parsed."""
    found: List[FileEntryPoints] = []
    dynamic: Optional[UnreadableDeclaration] = None
    for name, reader in (("pyproject.toml", _pyproject), ("setup.cfg", _setup_cfg), ("setup.py", _setup_py)):
        text = read_packaging_file(root / name)
        if text is None or (mentioning is not None and not mentioning(text)):
            continue
        entries, unreadable = reader(text, name)
        if name == "pyproject.toml" and unreadable and not entries:
            dynamic = unreadable[0]  # only a problem when no other file declares them
            continue
        if entries or unreadable:
            found.append(FileEntryPoints(name, tuple(entries), tuple(unreadable), metadata=False))
    if dynamic is not None and not found:
        found.insert(0, FileEntryPoints(dynamic.declared_in, (), (dynamic,), metadata=False))
    for name in metadata_files(root):
        text = read_packaging_file(root / name)
        if text is None or (mentioning is not None and not mentioning(text)):
            continue
        entries = _entry_points_txt(text, name)
        if entries:
            found.append(FileEntryPoints(name, tuple(entries), (), metadata=True))
    return tuple(found)


def first_declaring(files: Iterable[FileEntryPoints], wanted: Callable[[str], bool]) -> List[DeclaredEntryPoint]:
    """The entry points of groups ``wanted`` of the first packaging file declaring any (a
    backend builds from one of them; the others are ignored unless it declares none), else of the
    first metadata file declaring any."""
    files = tuple(files)
    for metadata in (False, True):
        for file in files:
            if file.metadata != metadata:
                continue
            chosen = [entry for entry in file.entries if wanted(entry.group)]
            if chosen:
                return chosen
    return []


# --- locating lines ------------------------------------------------------------------------


def _header_line(text: str, pattern: str, after: int = 0) -> int:
    """The 1-based line of the first line (at or after line ``after``) matching ``pattern`` after
    optional blanks, else 0."""
    offset = sum(len(line) + 1 for line in text.split("\n")[: max(after - 1, 0)])
    match = re.compile(r"^[ \t]*" + pattern, re.MULTILINE).search(text, offset)
    return text.count("\n", 0, match.start()) + 1 if match else 0


def _key_line(text: str, key: str, after: int = 0) -> int:
    """The first line at or after line ``after`` that starts with ``key`` (quoted or not) and
    ``=``/``:``, else 0."""
    quoted = "[\"']?" + re.escape(key) + "[\"']?"
    for number, line in enumerate(text.split("\n")[max(after - 1, 0):], start=max(after, 1)):
        if re.match(r"[ \t]*" + quoted + r"[ \t]*[=:]", line):
            return number
    return 0


def _quoted(group: str) -> str:
    escaped = re.escape(group)
    return r"(\"" + escaped + r"\"|'" + escaped + r"'|" + escaped + ")"


# --- pyproject.toml ------------------------------------------------------------------------


def parsed_toml(text: str) -> Optional[Dict[str, Any]]:
    """``text`` as TOML, or None where it does not parse (its own finding elsewhere)."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def _table(data: Dict[str, Any], key: str) -> Dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


Read = Tuple[List[DeclaredEntryPoint], List[UnreadableDeclaration]]


def _pyproject(text: str, declared_in: str) -> Read:
    data = parsed_toml(text)
    if data is None:
        return [], []
    project = _table(data, "project")
    poetry = _table(_table(data, "tool"), "poetry")
    found: List[DeclaredEntryPoint] = []
    tables = ((project.get("entry-points"), r"project\.entry-points"), (poetry.get("plugins"), r"tool\.poetry\.plugins"))
    for groups, header in tables:
        if not isinstance(groups, dict):
            continue
        for group, table in groups.items():
            if not isinstance(table, dict):
                continue
            line = _header_line(text, r"\[[ \t]*" + header + r"[ \t]*\.[ \t]*" + _quoted(group) + r"[ \t]*\]")
            if not line:  # an inline table under [project.entry-points]
                line = _key_line(text, group, _header_line(text, r"\[[ \t]*" + header + r"[ \t]*\]"))
            start = line or _header_line(text, r"\[[ \t]*" + header)
            for name, value in table.items():
                if isinstance(value, str):
                    # a row of an inline table: the group's line
                    where = _key_line(text, name, start) or line
                    found.append(DeclaredEntryPoint(group, name, value.strip(), declared_in, where, line or 1))
    dynamic = project.get("dynamic")
    if not found and isinstance(dynamic, list) and "entry-points" in dynamic:
        line = _key_line(text, "dynamic", _header_line(text, r"\[[ \t]*project[ \t]*\]")) or 1
        reason = ("pyproject.toml lists `entry-points` in `dynamic` (the build backend computes them) and neither "
                  "setup.cfg nor setup.py declares them")
        return [], [UnreadableDeclaration(declared_in, line, 1, reason)]
    return found, []


# --- setup.cfg and entry_points.txt --------------------------------------------------------


def _ini(text: str) -> Optional[configparser.ConfigParser]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment, method-assign]  # names keep their case
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def _rows(block: str) -> List[Tuple[str, str]]:
    """``name = value`` rows of an ini-style block, blank and malformed rows left out."""
    rows = []
    for row in block.splitlines():
        name, equals, value = row.partition("=")
        if equals and name.strip() and value.strip():
            rows.append((name.strip(), value.strip()))
    return rows


def _setup_cfg(text: str, declared_in: str) -> Read:
    parser = _ini(text)
    if parser is None or not parser.has_section("options.entry_points"):
        return [], []
    start = _header_line(text, r"\[options\.entry_points\]")
    found = []
    for group, block in parser.items("options.entry_points"):
        group_line = _key_line(text, group, start) or start or 1
        for name, value in _rows(block):
            found.append(DeclaredEntryPoint(group, name, value, declared_in, _key_line(text, name, group_line), group_line))
    return found, []


def _entry_points_txt(text: str, declared_in: str) -> List[DeclaredEntryPoint]:
    parser = _ini(text)
    if parser is None:
        return []
    found = []
    for group in parser.sections():
        group_line = _header_line(text, r"\[" + re.escape(group) + r"\]") or 1
        for name, value in parser.items(group):
            if value.strip():
                found.append(DeclaredEntryPoint(group, name, value.strip(), declared_in,
                                                _key_line(text, name, group_line), group_line))
    return found


# --- setup.py ------------------------------------------------------------------------------


def _setup_py(text: str, declared_in: str) -> Read:
    """The ``entry_points=`` of every ``setup()`` call: a dict display (or a module-level name
    bound once to one) of group -> row or list of rows, or ini-style text."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], []
    reader = _SetupPy(tree, text, declared_in)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called_name(node.func) == "setup":
            for keyword in node.keywords:
                if keyword.arg == "entry_points":
                    reader.read(keyword.value)
    found: Dict[Tuple[str, str, str], DeclaredEntryPoint] = {}
    for entry in sorted(reader.found, key=lambda e: (e.group_line, e.line)):
        found.setdefault((entry.group, entry.name, entry.value), entry)
    return list(found.values()), reader.unreadable


def _called_name(func: ast.expr) -> Optional[str]:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


class _SetupPy:
    def __init__(self, tree: ast.Module, text: str, declared_in: str) -> None:
        self.text, self.declared_in = text, declared_in
        self.found: List[DeclaredEntryPoint] = []
        self.unreadable: List[UnreadableDeclaration] = []
        self.constants: Dict[str, Optional[ast.expr]] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                self.constants[name] = stmt.value if name not in self.constants else None  # bound twice: unknown

    def _literal(self, value: ast.expr) -> Tuple[Optional[ast.expr], str]:
        """``value``, or what the module-level name it is bound to once; else (None, why)."""
        if isinstance(value, ast.Name):
            if value.id not in self.constants:
                return None, f"`{value.id}` is not bound at module level"
            bound = self.constants[value.id]
            if bound is None:
                return None, f"`{value.id}` is bound more than once"
            return bound, ""
        return value, ""

    def _cannot(self, node: ast.expr, reason: str) -> None:
        self.unreadable.append(UnreadableDeclaration(self.declared_in, node.lineno, node.col_offset + 1, reason))

    def read(self, value: ast.expr) -> None:
        literal, why = self._literal(value)
        if literal is None:
            return self._cannot(value, f"`entry_points={ast.unparse(value)}`: {why}")
        if isinstance(literal, ast.Constant) and literal.value is None:
            return None  # declares none
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
            return self._ini_text(literal)
        if not isinstance(literal, ast.Dict):
            return self._cannot(value, f"`entry_points={_short(value)}` is not a literal")
        for key, group in zip(literal.keys, literal.values):
            if key is None:
                self._cannot(group, f"`**{_short(group)}` in `entry_points=` is not a literal")
            elif not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                self._cannot(key, f"the group `{_short(key)}` in `entry_points=` is not a literal")
            else:
                self._group(key.value, key.lineno, group)

    def _group(self, group: str, group_line: int, value: ast.expr) -> None:
        rows, why = self._literal(value)
        if rows is None:
            return self._cannot(value, f"the entry points of `{group}` in `entry_points=`: {why}")
        items = rows.elts if isinstance(rows, (ast.List, ast.Tuple)) else [rows]
        for item in items:
            if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                self._cannot(item, f"the entry point `{_short(item)}` of `{group}` is not a literal")
                continue
            for name, target in _rows(item.value):
                self.found.append(DeclaredEntryPoint(group, name, target, self.declared_in, item.lineno, group_line))

    def _ini_text(self, literal: ast.Constant) -> None:
        parser = _ini(str(literal.value))
        if parser is None:
            return self._cannot(literal, "the ini-style text of `entry_points=` does not parse")
        for group in parser.sections():
            group_line = _header_line(self.text, r"\[" + re.escape(group) + r"\]", literal.lineno) or literal.lineno
            for name, target in parser.items(group):
                if target.strip():
                    line = _key_line(self.text, name, group_line) or literal.lineno
                    self.found.append(DeclaredEntryPoint(group, name, target.strip(), self.declared_in, line, group_line))


def _short(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
