"""The project's own modules, for evaluation across files: found, read and parsed, never imported.

``from tools.computer_use.schema import COMPUTER_USE_SCHEMA`` names a plain literal one file
away. When the imported module is a file under the project root, the evaluator reads that file's
syntax tree and evaluates the name there, with the same bounds and the same refusals as in the
importing module. Modules outside the root (installed packages, the standard library) stay
unknown. Each file is parsed once per process, keyed on its stat, so that a long-lived process
(the flake8 plugin in an editor, the server) sees edits; where a run starts (``new_run``) a name
is looked up afresh, since a module may have been created or removed since. Every file a value
was read from is recorded with its content hash, so that cached facts can be invalidated when
one of them changes.
"""

from __future__ import annotations

import ast
import hashlib
import os
import stat
import time
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from hermes_lint.discovery import is_regular_file
from hermes_lint.regular_files import read_regular_file, settled, stat_key

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.model.parsing import ParsedModule

# A module read from disk: (relative path, sha256, tree, source lines), or None.
ParsedProjectModule = Tuple[str, str, ast.Module, List[str]]

MAX_IMPORT_DEPTH = 4  # modules followed through imports from the module being checked
MAX_MODULE_BYTES = 2_000_000  # larger files are not read for their values


class ProjectModules:
    """Maps dotted module names to files under ``root`` and parses them on demand."""

    def __init__(self, root: str, files: Optional[Dict[str, bytes]] = None, src: Tuple[str, ...] = ()):
        """``files``: relative path -> content of files given in memory (an editor's buffer, a
        rule's example); they are looked up before the disk (without a root, only they are).
        ``src``: directories under the root where imports also resolve (the ``src`` setting),
        tried after the root itself."""
        self.root = os.path.realpath(root) if root else ""
        # the root, the ``src`` setting's directories, then ``src/`` (a package's src layout)
        roots = [""] + [directory.strip("/") + "/" for directory in src if directory.strip("/")] + [SOURCE_ROOT]
        self.import_roots = tuple(dict.fromkeys(roots))
        self._files = dict(files or {})
        self._paths: Dict[str, Optional[str]] = {}  # this run's lookups: ``new_run`` forgets them
        self._run = 0
        # relative path -> (stat key, the run it was parsed in if its stat was not settled, parse)
        self._parsed: Dict[str, Tuple[Tuple[int, ...], Optional[int], Optional[ParsedProjectModule]]] = {}
        self._whole: Dict[str, "ParsedModule"] = {}  # relative path -> its parse from disk (``parsed_again``)

    def new_run(self) -> None:
        """A new run of a long-lived process: files may have appeared, gone or changed since."""
        self._paths.clear()
        self._run += 1

    def path_of(self, module: str) -> Optional[str]:
        """``tools.shared.schema`` -> ``tools/shared/schema.py`` (or its package ``__init__.py``)."""
        if module in self._paths:
            return self._paths[module]
        found = None
        parts = module.split(".")
        if module and all(part.isidentifier() for part in parts):
            for relative in self._candidates("/".join(parts)):
                if relative in self._files or (self.root and is_regular_file(os.path.join(self.root, relative))):
                    found = relative
                    break
        self._paths[module] = found
        return found

    def lookup_files(self, module: str) -> Dict[str, str]:
        """The files that decide what ``module`` is: each path ``path_of`` tries, up to the one
        it found, with the sha256 of its content ("" for one it did not find). A result that
        found no module, or one that cannot be read or parsed, depends on them as much as on a
        module that was read: it is stale once one of them appears or changes."""
        found: Dict[str, str] = {}
        parts = module.split(".")
        if not (module and all(part.isidentifier() for part in parts)):
            return found
        path = self.path_of(module)
        for relative in self._candidates("/".join(parts)):
            if relative != path:
                found[relative] = ""
                continue
            parsed = self.parsed(relative)  # parsed once per process: its hash comes with it
            if parsed is not None:
                found[relative] = parsed[1]
            else:  # cannot be read, too large or does not parse: the hash of what is there
                data = self._files.get(relative)
                if data is None and self.root:
                    data = _read_regular(os.path.join(self.root, relative))
                found[relative] = "" if data is None else hashlib.sha256(data).hexdigest()
            break
        return found

    def _candidates(self, base: str) -> List[str]:
        return [f"{prefix}{base}{suffix}" for prefix in self.import_roots for suffix in (".py", "/__init__.py")]

    def parsed(self, relative: str) -> Optional[ParsedProjectModule]:
        if relative in self._files:
            cached = self._parsed.get(relative)
            if cached is None:
                whole = _parse_data(relative, self._files[relative])
                cached = self._parsed[relative] = ((), None, None if whole is None else _project_module(whole))
            return cached[2]
        if not self.root:
            return None
        full = os.path.join(self.root, relative)
        taken = time.time_ns()
        try:
            info = os.stat(full)
        except OSError:
            return None
        key = stat_key(info)
        cached = self._parsed.get(relative)
        if cached is not None and cached[0] == key and cached[1] in (None, self._run):
            return cached[2]
        result = None
        self._whole.pop(relative, None)
        if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_MODULE_BYTES:
            data = _read_regular(full, MAX_MODULE_BYTES)
            whole = None if data is None else _parse_data(relative, data)
            if whole is not None:
                result = _project_module(whole)
                self._whole[relative] = whole
        # A stat too recent to pin the content holds for this run only (``regular_files.settled``).
        self._parsed[relative] = (key, None if settled(info.st_mtime_ns, taken) else self._run, result)
        return result

    def parsed_again(self, relative: str, data: bytes) -> Optional["ParsedModule"]:
        """``parse_module(relative, data)`` when this process parsed exactly these bytes of that
        file from disk already (a module that plugin discovery followed from ``register``, or
        that another module imports, read before it is checked itself), handed over and
        forgotten here; else None. The module's check is the tree's last use, so the tree is
        freed after it, as every other checked module's is: kept, the trees of a plugin's
        every module would live to the end of the run (their collections cost a plugin check
        a fifth of its time). A later ``parsed`` of the file reads it again. An editor's buffer
        is never kept here."""
        whole = self._whole.get(relative)
        if whole is None or whole.data != data:
            return None
        del self._whole[relative]
        self._parsed.pop(relative, None)
        return whole


# Where a package's own absolute imports also resolve without configuration (a src/ layout).
SOURCE_ROOT = "src/"


def _read_regular(path: str, limit: Optional[int] = None) -> Optional[bytes]:
    try:
        return read_regular_file(path, limit)
    except (OSError, ValueError):
        return None


def _parse_data(relative: str, data: bytes) -> Optional["ParsedModule"]:
    """``data`` parsed, or None when it is too large or does not parse."""
    from hermes_lint.model.parsing import parse_module  # the one way files are decoded and parsed

    if len(data) > MAX_MODULE_BYTES:
        return None
    parsed = parse_module(relative, data)
    return None if parsed.tree is None else parsed


def _project_module(parsed: "ParsedModule") -> ParsedProjectModule:
    assert parsed.tree is not None
    return parsed.path, parsed.sha256, parsed.tree, parsed.lines


_PROJECTS: Dict[str, ProjectModules] = {}


def new_run() -> None:
    """A new run in this process (``ProjectModules.new_run`` of every project read so far)."""
    for project in _PROJECTS.values():
        project.new_run()


def parsed_again(root: str, relative: str, data: bytes) -> Optional["ParsedModule"]:
    """``ProjectModules.parsed_again`` from every reader of the project at ``root`` read so
    far (plugin discovery reads it without the configured ``src``, the check with it)."""
    if not _PROJECTS:
        return None
    key = os.path.realpath(root)
    for project in _PROJECTS.values():
        if project.root == key:
            parsed = project.parsed_again(relative, data)
            if parsed is not None:
                return parsed
    return None


def project_modules(root: str, src: Tuple[str, ...] = ()) -> ProjectModules:
    """The per-process reader of the project at ``root`` (imports also resolving under ``src``)."""
    key = os.path.realpath(root)
    project = _PROJECTS.get(key + "\0" + "\0".join(src))
    if project is None:
        project = _PROJECTS[key + "\0" + "\0".join(src)] = ProjectModules(key, src=src)
    return project


def absolute_module(origin_module: str, importer: str, importer_is_package: bool) -> Optional[str]:
    """The absolute name of ``from <origin_module> import ...`` written in module ``importer``."""
    level = len(origin_module) - len(origin_module.lstrip("."))
    if level == 0:
        return origin_module
    package = importer.split(".") if importer else []
    if not importer_is_package:
        package = package[:-1]
    if level - 1 > len(package) or not (importer or importer_is_package):
        return None
    base = package[: len(package) - (level - 1)]
    rest = origin_module[level:]
    return ".".join(base + ([rest] if rest else [])) or None
