"""Every entry point a package declares, of every group, with where it is declared: read from its
packaging files, never imported, never run.

Sources, in the order a build reads them: ``pyproject.toml`` (``[project.entry-points.<group>]``,
Poetry's ``[tool.poetry.plugins.<group>]``), ``setup.cfg`` (``[options.entry_points]``),
``setup.py`` (the ``entry_points=`` of every ``setup()`` call, read from the syntax tree), then
the ``entry_points.txt`` of an unpacked wheel (``*.dist-info``) or a built sdist (``*.egg-info``)
at the root or under ``src/``, read as ``importlib.metadata`` reads it (``ini_lines``), since that
is how Hermes lists installed plugins. ``declared_entry_points`` returns them file by file; which file a
question takes its answer from is ``first_declaring``'s: the first packaging file that declares an
entry point of the groups asked about (a build backend uses one of them), the metadata files only
when no packaging file does.

What cannot be read statically is kept as ``UnreadableDeclaration`` at its place, never dropped:

- a packaging file that does not parse and mentions Hermes's group (or a spelling meant for it),
  at the parse error, and such an ``entry_points.txt`` with a row ``importlib.metadata`` cannot
  read, at that row;
- ``setup(entry_points=...)`` whose value is not a literal (a call, a name bound more than once,
  conditionally, not at module level or changed after it is bound, a ``**`` merge, an f-string
  row), and a ``setup(**kwargs)`` with no ``entry_points=`` of its own;
- ``pyproject.toml`` whose ``[project]`` lists ``entry-points`` in ``dynamic`` (the backend computes
  them) when neither ``setup.cfg`` nor ``setup.py`` declares any.

Only setuptools' ``setup`` is read: a name bound by ``from setuptools import setup`` (or
``distutils.core``'s), or ``setuptools.setup`` / ``distutils.core.setup`` of the imported module;
another object's ``setup()`` method declares nothing.

Several ``setup()`` calls (one per branch of an ``if``, typically) are all read, in source order:
any of them may be the one that runs, so the entry points of each are the package's (a row
declared identically twice counts once).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Tuple

# Each format's reader imports its parser (configparser and ``ini_lines``, ``setup_py_names``,
# ``toml_lines``) when a file of that format is there: most projects have none of them, and
# every run asks (``find_root``, plugin discovery), the commit hooks included.
if TYPE_CHECKING:  # pragma: no cover
    import configparser

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
        text = read_regular_file(path, MAX_PACKAGING_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # lines as every reader counts them


def metadata_files(root: Path) -> List[str]:
    """``*.dist-info/entry_points.txt`` (an unpacked wheel) and ``*.egg-info/entry_points.txt``
    (a built sdist), at the root or under src/, relative and sorted."""
    found = []
    for base in SOURCE_ROOTS:
        try:
            names = [name for name in os.listdir(root / base) if name.endswith((".dist-info", ".egg-info"))]
        except OSError:  # absent, or not a directory
            continue
        for child in sorted(root / base / name for name in names):
            if (child / "entry_points.txt").is_file():
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
        try:
            entries, unreadable = reader(text, name)
        except _DoesNotParse as error:
            if _mentions_group(text):
                found.append(FileEntryPoints(name, (), (error.declaration,), metadata=False))
            continue
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
        try:
            entries = _entry_points_txt(text, name)
        except _DoesNotParse as error:
            if _mentions_group(text):
                found.append(FileEntryPoints(name, (), (error.declaration,), metadata=True))
            continue
        if entries:
            found.append(FileEntryPoints(name, tuple(entries), (), metadata=True))
    return tuple(found)


def built_distribution(root: Path) -> bool:
    """``root`` is an unpacked wheel or a built sdist whose metadata (at the root or under src/)
    declares ``hermes_agent.plugins`` entry points, or tries to in a file that cannot be read."""
    files = declared_entry_points(root, mentioning=lambda text: ENTRY_POINT_GROUP in text)
    return any(
        file.metadata and (file.unreadable or any(entry.group == ENTRY_POINT_GROUP for entry in file.entries))
        for file in files
    )


class _DoesNotParse(Exception):
    def __init__(self, declared_in: str, line: int, col: int, why: str) -> None:
        super().__init__(why)
        self.declaration = UnreadableDeclaration(declared_in, max(line, 1), max(col, 1), f"{declared_in} does not parse: {why}")


def _mentions_group(text: str) -> bool:
    """``text`` names Hermes's group, or a group plainly meant to be it (HRM812's): a file that
    does not parse is kept only then (a broken file about something else is not our concern)."""
    from hermes_lint.project.entry_point_groups import meant_for_hermes

    return ENTRY_POINT_GROUP in text or any(meant_for_hermes(word) for word in re.findall(r"[\w.\-]+", text))


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


# --- pyproject.toml ------------------------------------------------------------------------


def _table(data: Dict[str, Any], key: str) -> Dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


Read = Tuple[List[DeclaredEntryPoint], List[UnreadableDeclaration]]


def _pyproject(text: str, declared_in: str) -> Read:
    from hermes_lint.config import loads_toml, toml_error

    try:
        data = loads_toml(text)
    except ValueError as error:
        why, at = toml_error(error)
        raise _DoesNotParse(declared_in, *(at or (text.rstrip("\n").count("\n") + 1, 1)), why) from None
    except RecursionError:
        raise _DoesNotParse(declared_in, 1, 1, "nested too deeply") from None
    from hermes_lint.project.toml_lines import table_line, toml_lines, value_line

    project = _table(data, "project")
    poetry = _table(_table(data, "tool"), "poetry")
    lines = toml_lines(text)
    found: List[DeclaredEntryPoint] = []
    for groups, where in ((project.get("entry-points"), ("project", "entry-points")),
                          (poetry.get("plugins"), ("tool", "poetry", "plugins"))):
        if not isinstance(groups, dict):
            continue
        for group, table in groups.items():
            if not isinstance(table, dict):
                continue
            group_line = table_line(lines, where + (group,)) or 1
            for name, value in table.items():
                if isinstance(value, str):
                    line = value_line(lines, where + (group, name)) or group_line
                    found.append(DeclaredEntryPoint(group, name, value.strip(), declared_in, line, group_line))
    dynamic = project.get("dynamic")
    if not found and isinstance(dynamic, list) and "entry-points" in dynamic:
        line = value_line(lines, ("project", "dynamic")) or 1
        reason = ("pyproject.toml lists `entry-points` in `dynamic` (the build backend computes them) and neither "
                  "setup.cfg nor setup.py declares them")
        return [], [UnreadableDeclaration(declared_in, line, 1, reason)]
    return found, []


# --- setup.cfg and entry_points.txt --------------------------------------------------------


def _parsed_ini(text: str) -> configparser.ConfigParser:
    """``text`` parsed as ini (raises ``configparser.Error``)."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment, method-assign]  # names keep their case
    parser.read_string(text)
    return parser


def _ini(text: str) -> Optional[configparser.ConfigParser]:
    import configparser

    try:
        return _parsed_ini(text)
    except configparser.Error:
        return None


def _ini_error(error: configparser.Error) -> Tuple[int, str]:
    """Where an ini file stops parsing, and why."""
    import configparser

    if isinstance(error, configparser.MissingSectionHeaderError):
        return error.lineno, f"`{error.line.strip()}` comes before any `[section]` header"
    if isinstance(error, configparser.ParsingError) and error.errors:
        line, shown = error.errors[0]  # the line's repr()
        return line, f"`{ast.literal_eval(shown).strip()}` is neither a `[section]` header nor a `name = value` row"
    if isinstance(error, configparser.DuplicateOptionError):
        return error.lineno or 1, f"`{error.option}` is set twice in `[{error.section}]`"
    if isinstance(error, configparser.DuplicateSectionError):
        return error.lineno or 1, f"`[{error.section}]` is declared twice"
    return 1, str(error).splitlines()[0]


def _rows(block: str) -> List[Tuple[str, str]]:
    """``name = value`` rows of an ini-style block, blank and malformed rows left out."""
    rows = []
    for row in block.splitlines():
        name, equals, value = row.partition("=")
        if equals and name.strip() and value.strip():
            rows.append((name.strip(), value.strip()))
    return rows


def _setup_cfg(text: str, declared_in: str) -> Read:
    """The values are configparser's (setuptools reads the file with it); each group is located at
    its own key of ``[options.entry_points]`` (or of ``[DEFAULT]``, whose keys configparser gives
    every section), each row at its own line of that key's value."""
    import configparser

    from hermes_lint.project.ini_lines import config_sections

    try:
        parser = _parsed_ini(text)
    except configparser.Error as error:
        line, why = _ini_error(error)
        raise _DoesNotParse(declared_in, line, 1, why) from None
    if not parser.has_section("options.entry_points"):
        return [], []
    sections = {section.name: section for section in config_sections(text)}
    section = sections.get("options.entry_points")
    found = []
    for group, block in parser.items("options.entry_points"):
        key = next((s.key(group) for s in (section, sections.get("DEFAULT")) if s is not None and s.key(group)), None)
        group_line = key.line if key is not None else section.line if section is not None else 1
        rows = list(key.rows) if key is not None else []
        for name, value in _rows(block):
            at = next((i for i, (_, row) in enumerate(rows) if _rows(row) and _rows(row)[0][0] == name), None)
            line = rows.pop(at)[0] if at is not None else group_line
            found.append(DeclaredEntryPoint(group, name, value, declared_in, line, group_line))
    return found, []


def _entry_points_txt(text: str, declared_in: str) -> List[DeclaredEntryPoint]:
    """As ``importlib.metadata`` reads it (``ini_lines.metadata_entry_points``); a row declared
    identically twice counts once."""
    from hermes_lint.project.ini_lines import NotARow, metadata_entry_points

    try:
        rows = metadata_entry_points(text)
    except NotARow as error:
        raise _DoesNotParse(declared_in, error.line, 1, f"`{error.row}` is not a `name = value` row "
                            "(importlib.metadata raises ValueError reading it)") from None
    found: Dict[Tuple[str, str, str], DeclaredEntryPoint] = {}
    for row in rows:
        if row.value:
            entry = DeclaredEntryPoint(row.group, row.name, row.value, declared_in, row.line, row.group_line)
            found.setdefault((row.group, row.name, row.value), entry)
    return list(found.values())


# --- setup.py ------------------------------------------------------------------------------


def _setup_py(text: str, declared_in: str) -> Read:
    """The ``entry_points=`` of every ``setup()`` call: a dict display (or a module-level name
    bound once to one) of group -> row or list of rows, or ini-style text."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise _DoesNotParse(declared_in, error.lineno or 1, error.offset or 1, error.msg) from None
    except ValueError as error:  # a null byte
        raise _DoesNotParse(declared_in, 1, 1, str(error)) from None
    except (RecursionError, MemoryError):
        raise _DoesNotParse(declared_in, 1, 1, "nested too deeply") from None
    from hermes_lint.project.setup_py_names import setup_functions

    reader = _SetupPy(tree, text, declared_in)
    is_setup = setup_functions(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and is_setup(node.func):
            explicit = [keyword.value for keyword in node.keywords if keyword.arg == "entry_points"]
            for value in explicit:
                reader.read(value)
            for value in [] if explicit else [keyword.value for keyword in node.keywords if keyword.arg is None]:
                reader.read_merged(value)  # an explicit entry_points= is the one a call passes
    found: Dict[Tuple[str, str, str], DeclaredEntryPoint] = {}
    for entry in sorted(reader.found, key=lambda e: (e.group_line, e.line)):
        found.setdefault((entry.group, entry.name, entry.value), entry)
    return list(found.values()), reader.unreadable


class _SetupPy:
    def __init__(self, tree: ast.Module, text: str, declared_in: str) -> None:
        from hermes_lint.project.setup_py_names import changed_names, module_bindings

        self.text, self.declared_in = text, declared_in
        self.found: List[DeclaredEntryPoint] = []
        self.unreadable: List[UnreadableDeclaration] = []
        self.bindings = module_bindings(tree)
        self.changed = changed_names(tree)

    def _literal(self, value: ast.expr) -> Tuple[Optional[ast.expr], str]:
        """``value``, or what the module-level name it is bound to once; else (None, why)."""
        if not isinstance(value, ast.Name):
            return value, ""
        name, bindings = value.id, self.bindings.get(value.id, [])
        if not bindings:
            return None, f"`{name}` is not bound at module level"
        if len(bindings) > 1:
            return None, f"`{name}` is bound more than once"
        line, bound, how = bindings[0]
        if bound is None:
            return None, f"`{name}` is bound {how} at line {line}"
        if name in self.changed:
            return None, f"`{name}` is changed at line {self.changed[name]}"
        return bound, ""

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
            displayed = isinstance(literal, (ast.Constant, ast.List, ast.Tuple, ast.Set))  # a literal, of another type
            why = "is not a dict or ini-style text" if displayed else "is not a literal"
            return self._cannot(value, f"`entry_points={_short(value)}` {why}")
        for key, group in zip(literal.keys, literal.values):
            if key is None:
                self._cannot(group, f"`**{_short(group)}` in `entry_points=` is not a literal")
            elif not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                self._cannot(key, f"the group `{_short(key)}` in `entry_points=` is not a literal")
            else:
                self._group(key.value, key.lineno, group)

    def read_merged(self, value: ast.expr) -> None:
        """``setup(**value)`` with no ``entry_points=`` of its own: its ``entry_points`` key, when
        ``value`` is (a name bound once to) a dict display with literal keys."""
        merged, why = self._literal(value)
        if isinstance(merged, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in merged.keys):
            for key, item in zip(merged.keys, merged.values):
                if isinstance(key, ast.Constant) and key.value == "entry_points":
                    self.read(item)
            return None
        why = f": {why}" if why else ""
        self._cannot(value, f"`setup(**{_short(value)})` may pass `entry_points=`{why}")

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
        """Each row located at its own key in its own section of the text, when the literal
        writes its line breaks as they are (else at the literal)."""
        from hermes_lint.project.ini_lines import config_sections

        text = str(literal.value)
        parser = _ini(text)
        if parser is None:
            return self._cannot(literal, "the ini-style text of `entry_points=` does not parse")
        segment = ast.get_source_segment(self.text, literal) or ""
        shift = literal.lineno - 1 if segment.count("\n") == text.count("\n") else None

        def at(line: int) -> int:
            return line + shift if shift is not None else literal.lineno

        sections = {section.name: section for section in config_sections(text)}
        for group in parser.sections():
            section = sections.get(group)
            group_line = at(section.line) if section is not None else literal.lineno
            for name, target in parser.items(group):
                if target.strip():
                    key = section.key(name) if section is not None else None
                    line = at(key.line) if key is not None else group_line
                    self.found.append(DeclaredEntryPoint(group, name, target.strip(), self.declared_in, line, group_line))


def _short(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
