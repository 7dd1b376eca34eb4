"""flake8 plugin: the rules of ``hermes-lint check`` on the file (or editor buffer) flake8 hands over.

Editors run flake8 on one file, often as ``flake8 --stdin-display-name tools/x_tool.py -``. The
plugin finds the project of that file, checks the text flake8 read (``lines``: the buffer in
stdin mode), and runs the project rules over that text plus the rest of the project read from
disk, so one file still hears "this name is also registered in tools/y.py".

A finding about a schema key is located where the key is written, which may be another file
than the tool module's (``tools/weather_schema.py``, a plugin's ``tools.py``): flake8 reports it
when it checks that file (any Python file of the project), since a row can only point into the
file flake8 is checking.

The rest of the project is read once per flake8 run (``parse_options`` marks a new run) into a
snapshot that every file of a ``flake8 tools/`` run reuses, project-rule findings included. Its
per-file results come from ``.hermes_lint_cache/``, the cache ``hermes-lint check`` keeps (keyed
by file stat, then content hash), so an editor's flake8 process re-checks only changed files.
A file saved as it is (no ``# noqa`` in it) gets the diagnostics of ``hermes-lint check``: of a
project unchanged since the last run, those it stored, without the checking machinery even being
imported.

When ``hermes-lint server`` runs for the project (its socket is in ``.hermes_lint_cache/``), the
first tool module or toolsets file of a run is sent to it instead (``server_client``): it holds
the checker imported and the project in memory and answers with this module's ``check_buffer``,
so a file changed since the last run costs this process no more than an unchanged one. Without a
server, or when it does not answer as it should, the file is checked here, as it is without one.

flake8 applies ``# noqa`` and ``# flake8: noqa`` itself (``--disable-noqa``, its own
per-file-ignores): the plugin reports its diagnostics before those suppressions, and never HRM900;
it applies the file-level ``# hermes-lint: noqa[: CODES]``, which flake8 does not know. ``[tool.hermes-lint]`` select, ignore
and per-file-ignores still apply, so the editor shows what ``hermes-lint check`` shows.
"""

from __future__ import annotations

import io
import os
import sys
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from hermes_lint import __version__, server_client
from hermes_lint.check.affected import may_hold_schema_keys
from hermes_lint.config import Config, ConfigError
from hermes_lint.project_config import find_root, load_config
from hermes_lint.discovery import SKIPPED_FILE_NAMES, text_may_register_tools

# flake8 imports every plugin for every file it checks, tool module or not: the engine and the
# rules are imported only once a file turns out to be one.
if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.check.engine import ModuleResult, SourceFile
    from hermes_lint.model import Diagnostic

# A tool module, a plugin's module, the toolsets file, or another Python file of the project: one
# that tool modules may read values from (a schema constant), where findings about its keys are located.
TOOL, PLUGIN, TOOLSETS, READ = "tool", "plugin", "toolsets", "read"

# Per-process caches (each flake8 worker process has its own).
_run = 0  # which flake8 run this is; a snapshot of an earlier run is validated again
_run_token = ""  # the same, unique across processes: what a server is told (``new_run``)
_configs: Dict[str, Tuple[Optional[Tuple[int, ...]], Config]] = {}  # root -> (pyproject stat, config)
_modules: Dict[Tuple[str, str], Tuple[bytes, ModuleResult]] = {}  # (config, path) -> (data, result), this run's
_snapshots: Dict[str, "ProjectSnapshot"] = {}  # root -> the project as this run read it
_stored: Dict[str, Tuple[int, Dict[str, List[Diagnostic]]]] = {}  # root -> (run, check's diagnostics by path)
_asked: Dict[str, int] = {}  # root -> the run in which its server was asked: not asked again


def new_run() -> None:
    """Start a new flake8 run: the next file re-validates its project against the disk. A file's
    result is kept for one run only: the same bytes may read values from project modules that
    change between runs of a long-lived process (the server, an editor's in-process flake8)."""
    global _run, _run_token
    _run += 1
    _modules.clear()
    # Made before flake8 forks its workers (``parse_options``), so they share it: a server reads
    # the project once for the first files of all of them, as one process would.
    _run_token = os.urandom(8).hex()
    _root_above.cache_clear()


def clear_caches() -> None:
    """Forget every configuration and result this process holds (not the on-disk cache)."""
    for cache in (_configs, _modules, _snapshots, _stored, _asked):
        cache.clear()
    new_run()


def _stat_key(path: str) -> Optional[Tuple[int, ...]]:
    """(size, mtime, ctime): unchanged, unless rewritten with its old mtime kept."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns)  # ctime: `cp -p` keeps the mtime


def project_config(root: Path, again: bool = False) -> Config:
    """The project's configuration, read again when pyproject.toml's stat changed, or
    ``again``: a stat cannot tell two saves apart within one timestamp tick."""
    key = _stat_key(os.path.join(root, "pyproject.toml"))
    cached = _configs.get(str(root))
    if again or cached is None or cached[0] != key:
        cached = (key, load_config(root))
        _configs[str(root)] = cached
    return cached[1]


def module_result(source: SourceFile, config: Config, fingerprint: str) -> ModuleResult:
    """``check_module``, again only when the file's bytes changed (``fingerprint``: the config's)."""
    from hermes_lint.check.engine import check_module

    if source.data is None:
        return check_module(source, config)
    key = (fingerprint, source.path)
    cached = _modules.get(key)
    if cached is None or cached[0] != source.data:
        cached = (source.data, check_module(source, config))
        _modules[key] = cached
    return cached[1]


@dataclass
class ProjectSnapshot:
    """A project as one flake8 run read it from disk."""

    run: int
    root: Path
    config: Config
    fingerprint: str
    results: Dict[str, ModuleResult]  # tool module path -> module phase, in path order
    toolsets: Optional[SourceFile]
    _by_path: Optional[Dict[str, List[Diagnostic]]] = field(default=None, repr=False)

    def diagnostics_in(self, relative: str) -> List[Diagnostic]:
        """What the project as on disk has to say about one file (the project rules run once)."""
        if self._by_path is None:
            self._by_path = {}
            for d in self.diagnostics_with(self.results, self.toolsets):
                self._by_path.setdefault(d.path, []).append(d)
        return self._by_path.get(relative, [])

    def diagnostics_with(self, results: Dict[str, ModuleResult], toolsets: Optional[SourceFile]) -> List[Diagnostic]:
        from hermes_lint.check.engine import ProjectSources, unsuppressed_diagnostics

        ordered = [results[path] for path in sorted(results)]  # the order `hermes-lint check` uses
        return unsuppressed_diagnostics(ordered, ProjectSources([], toolsets, self.root), self.config)


def _read_bytes(path: str) -> Optional[bytes]:
    from hermes_lint.regular_files import read_regular_file

    try:
        return read_regular_file(path)
    except OSError:
        return None


def project_snapshot(root: Path, use_cache: bool = True) -> ProjectSnapshot:
    """Every tool module's results, from ``.hermes_lint_cache/`` (shared with ``hermes-lint
    check``) where the file is unchanged, else checked now; toolsets.py as it is on disk."""
    snapshot = _snapshots.get(str(root))
    if snapshot is not None and snapshot.run == _run:
        return snapshot
    from hermes_lint.check.runner import module_results

    config = project_config(root)
    fingerprint = config.fingerprint()
    ordered, toolsets = module_results(
        root,
        config,
        use_cache=use_cache,
        check=lambda sources, cfg: [module_result(source, cfg, fingerprint) for source in sources],
        project_rules_only=True,  # the snapshot's facts feed the project rules, nothing else
    )
    results = {result.facts.path: result for result in ordered}
    snapshot = ProjectSnapshot(_run, root, config, fingerprint, results, toolsets)
    _snapshots[str(root)] = snapshot
    return snapshot


@lru_cache(maxsize=256)
def _root_above(directory: str) -> Optional[Path]:
    return find_root(Path(directory))


def locate(filename: str, root: Optional[str] = None) -> Optional[Tuple[Path, str, str]]:
    """(project root, relative path, kind) when ``filename`` is a tool module, a plugin module or
    the toolsets file of a project, else None. Cheap: only a plugin's packaging and the modules
    its ``register`` goes through are read, once per run."""
    path = Path(os.path.abspath(filename))
    project_root = Path(root).resolve() if root else _root_above(str(path.parent))
    if project_root is None:
        return None
    try:
        relative = PurePosixPath(path.resolve().relative_to(project_root).as_posix())
    except ValueError:
        return None
    config = project_config(project_root)
    if relative == PurePosixPath(config.toolsets_file):
        kind = TOOLSETS
    elif (
        relative.parent == PurePosixPath(config.tools_dir)
        and relative.suffix == ".py"
        and relative.name not in SKIPPED_FILE_NAMES
    ):
        kind = TOOL
    elif relative.suffix == ".py" and _is_plugin_module(project_root, config, str(relative)):
        kind = PLUGIN
    elif relative.suffix == ".py":
        kind = READ
    else:
        return None
    return project_root, str(relative), kind


def _is_plugin_module(root: Path, config: Config, relative: str) -> bool:
    """A module of a plugin of the project (``registration_sites``): found once per run."""
    from hermes_lint.project.registration_sites import project_sites

    return relative in project_sites(root, config).plugin_modules()


def as_flake8_reads(data: bytes) -> str:
    """The text flake8 makes of these bytes: its decoding, universal newlines, no BOM."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (LookupError, SyntaxError, UnicodeError):
        text = data.decode("latin-1")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text[1:] if text.startswith("\ufeff") else text


def encode_like_source(text: str) -> bytes:
    """Bytes for buffer text, in the encoding its coding cookie declares (UTF-8 without one)."""
    data = text.encode("utf-8", "surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if encoding not in ("utf-8", "utf-8-sig"):
            return text.encode(encoding)
    except (LookupError, SyntaxError, UnicodeError):
        pass  # the engine reports the bad cookie or encoding as HRM001
    return data


Row = Tuple[int, int, str, str]  # what flake8 is told: line, column (1-based), code, message


def report_rows(filename: str, lines: Sequence[str], root: Optional[str] = None, use_cache: bool = True) -> List[Row]:
    """``check_buffer``'s diagnostics as rows: for the first file of a run, from ``hermes-lint
    server`` when one runs for the project and answers; else checked here."""
    located = _located_text(filename, lines, root)
    if located is None:
        return []
    project_root, relative, kind, text = located
    # One request per run: the editor's one file. A run of many (``flake8 tools/``) has the rest
    # checked here, which then costs a cache read and ~0.1 ms a file, less than a round trip
    # each; the server checked what changed and stored it in the cache for them.
    if use_cache and _asked.get(str(project_root)) != _run and server_client.serving(str(project_root)):
        _asked[str(project_root)] = _run
        rows = server_client.ask(str(project_root), relative, text, _key_text(project_root), _run_token)
        if rows is not None:
            return rows
    return [_row(d) for d in _checked(project_root, relative, kind, text, use_cache)]


def _row(d: Diagnostic) -> Row:
    return d.line, d.col, d.code, d.message


def _key_text(root: Path) -> str:
    """What the server's results must have been computed with (``check.cache_identity``)."""
    from hermes_lint.check.cache_identity import key_text, toolkit_fingerprint

    return key_text(project_config(root).fingerprint(), toolkit_fingerprint())


def check_buffer(
    filename: str, lines: Sequence[str], root: Optional[str] = None, use_cache: bool = True
) -> List[Diagnostic]:
    """The diagnostics of ``hermes-lint check`` located in this file, with ``lines`` as its
    text, before ``# noqa``; nothing for a file that is not a tool module or the toolsets file.
    Checked in this process (what ``hermes-lint server`` answers with)."""
    located = _located_text(filename, lines, root)
    if located is None:
        return []
    return _checked(*located, use_cache=use_cache)


def _located_text(filename: str, lines: Sequence[str], root: Optional[str]) -> Optional[Tuple[Path, str, str, str]]:
    """(project root, relative path, kind, text) of a file that may have something to report."""
    located = locate(filename, root)
    if located is None:
        return None
    project_root, relative, kind = located
    text = "".join(lines)
    if kind == TOOL and not text_may_register_tools(text):
        kind = READ  # registers nothing: what it may hold is findings about keys of its values
    if kind == READ and not may_hold_schema_keys(text):
        return None  # no schema key written here: nothing to say, and nothing imported or read
    return project_root, relative, kind, text


def _checked(project_root: Path, relative: str, kind: str, text: str, use_cache: bool) -> List[Diagnostic]:
    stored = stored_diagnostics_in(project_root, relative, text) if use_cache else None
    if stored is not None:
        config = project_config(project_root)
        return sorted({d for d in stored if d.code != "HRM900" and config.is_selected(d.code, d.path)})
    from hermes_lint.check.engine import UNUSED_NOQA, SourceFile

    project = project_snapshot(project_root, use_cache)
    data = _read_bytes(os.path.join(project_root, relative))
    if data is None or as_flake8_reads(data) != text:
        data = encode_like_source(text)  # an edited buffer (stdin) or a file not saved yet
    # else: flake8 read the file itself, or the buffer is saved as is: the exact bytes on disk.
    if kind == TOOLSETS:
        unchanged = project.toolsets is not None and project.toolsets.data == data
    elif kind == READ:
        unchanged = data == _read_bytes(os.path.join(project_root, relative))
    else:
        from hashlib import sha256  # not on the path of a file whose diagnostics are stored

        unchanged = relative in project.results and project.results[relative].facts.sha256 == sha256(data).hexdigest()
    if unchanged:
        diagnostics = project.diagnostics_in(relative)  # the project as on disk: rules ran once
    else:
        own = SourceFile(relative, data)
        if kind in (TOOL, PLUGIN):
            results = dict(project.results)
            results[relative] = module_result(own, project.config, project.fingerprint)
            diagnostics = project.diagnostics_with(results, project.toolsets)
        elif kind == READ:
            diagnostics = project.diagnostics_with(_with_read_buffer(project, relative, data), project.toolsets)
        else:
            diagnostics = project.diagnostics_with(project.results, own)
    config = project.config
    from hermes_lint.noqa import HERMES_LINT, file_level_comments

    # flake8 applies `# noqa` and `# flake8: noqa` itself; `# hermes-lint: noqa` is this plugin's.
    exempt = [c for c in file_level_comments(text) if c.file_level == HERMES_LINT]
    return sorted(
        {
            d
            for d in diagnostics
            if d.path == relative
            and d.code != UNUSED_NOQA
            and config.is_selected(d.code, d.path)
            and not any(c.suppresses(d.code) for c in exempt)
        }
    )


def _with_read_buffer(project: ProjectSnapshot, relative: str, data: bytes) -> Dict[str, ModuleResult]:
    """The project's module results with ``data`` as the text of ``relative``, a file that tool
    modules read values from (``affected.with_buffer``)."""
    from hermes_lint.check.affected import with_buffer

    ordered = with_buffer(list(project.results.values()), project.root, project.config, relative, data)
    return {result.facts.path: result for result in ordered}


def stored_diagnostics_in(root: Path, relative: str, text: str) -> Optional[List[Diagnostic]]:
    """This file's diagnostics as ``hermes-lint check`` reports them, when they are what the
    plugin would compute: ``text`` is the file on disk and holds no ``# noqa`` (``check``'s
    diagnostics are after suppression; flake8 suppresses by itself). Else None.

    The editor's case, each save a new flake8 process: ``check``'s warm path reuses the last
    run's stored diagnostics when no input changed, without importing the checking machinery;
    else it checks what changed and stores them for the next process. Once per flake8 run."""
    from hermes_lint.noqa import may_have_noqa

    if may_have_noqa(text):
        return None
    data = _read_bytes(os.path.join(root, relative))
    if data is None or as_flake8_reads(data) != text:
        return None
    memo = _stored.get(str(root))
    if memo is None or memo[0] != _run:
        from hermes_lint.project_check import run_project

        by_path: Dict[str, List[Diagnostic]] = {}
        for diagnostic in run_project(root, project_config(root), use_cache=True):
            by_path.setdefault(diagnostic.path, []).append(diagnostic)
        memo = _stored[str(root)] = (_run, by_path)
    return memo[1].get(relative, [])


_reported_config_errors: set = set()


def report_config_error(exc: ConfigError) -> None:
    """One line on stderr per configuration problem and process; the files of that project get
    no HRM diagnostics (every Python file would otherwise take flake8 down with a traceback)."""
    message = str(exc)
    if message not in _reported_config_errors:
        _reported_config_errors.add(message)
        sys.stderr.write(f"hermes-lint: error: {message} (no HRM checks until it is fixed)\n")


class HermesLintChecker:
    """The flake8 ``tree`` plugin (entry point ``HRM`` in the ``flake8.extension`` group).

    flake8 gives each plugin the parameters its ``__init__`` names: ``tree`` makes this a tree
    plugin (flake8 runs those only on files that parse), ``lines`` is the text flake8 read, from
    disk or from stdin.
    """

    name = "hermes-lint"
    version = __version__
    root: Optional[str] = None
    use_cache = True

    def __init__(self, tree: Any, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        option_manager.add_option(
            "--hermes-lint-root",
            default=None,
            parse_from_config=True,
            help="hermes-lint project root (default: the nearest parent directory of each file "
            "with toolsets.py or a [tool.hermes-lint] table in pyproject.toml)",
        )
        option_manager.add_option(
            "--hermes-lint-no-cache",
            action="store_true",
            parse_from_config=True,
            help="neither read nor write the project's .hermes_lint_cache/ (as `hermes-lint check --no-cache`)",
        )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        cls.root = options.hermes_lint_root
        cls.use_cache = not options.hermes_lint_no_cache
        new_run()  # flake8 parses options once per run (and once in each spawned worker)
        # The usual project's configuration is read here, before flake8 forks its workers, so
        # that a broken one is reported once per run rather than once per worker.
        root = Path(cls.root).resolve() if cls.root else _root_above(os.getcwd())
        if root is not None:
            try:
                project_config(root)
            except ConfigError as exc:
                report_config_error(exc)

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        try:
            found = report_rows(self.filename, self.lines, self.root, self.use_cache)
        except ConfigError as exc:
            report_config_error(exc)
            return
        for line, col, code, message in found:
            # flake8 columns are 0-based; it adds 1 when it prints them.
            yield line, col - 1, f"{code} {message}", type(self)
