"""Running a whole project: cached and parallel per-file phase, then the project phase.

The per-file phase (``engine.check_module``) is independent for every file, so it runs across
processes (``jobs``) or comes from the cache; the project phase (``engine.finish``) always runs
in this process over every module's facts, so project rules see the whole project whether a
file was re-checked or not.

With the cache, a run in which no file changed (same paths, same size and mtime of every tool
module and of toolsets.py, same configuration and toolkit) reuses the previous run's final
diagnostics without loading the per-file entries. The checking machinery (``engine``, the rules,
the evaluator) is imported only when some file has to be checked or the project phase must run,
so that warm path costs little more than starting Python and stat-ing the files.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Set, Tuple, cast

from hermes_lint.check.collection import freezing, paused, settle, threshold, worker_gc
from hermes_lint.config import Config, require_listable
from hermes_lint.discovery import candidate_tool_paths
from hermes_lint.regular_files import StatKey, settled, stat_key

if TYPE_CHECKING:  # pragma: no cover - imported lazily: see the module docstring
    from concurrent.futures import Future

    from hermes_lint.check.cache import ResultCache
    from hermes_lint.check.engine import ModuleResult, SourceFile
    from hermes_lint.model import Diagnostic


# A worker costs CPU however little it does (~30 ms to fork and stop, then the pages it touches
# copied and its results pickled back: ~0.05 ms per KB of source), while checking costs ~0.2 ms
# (real tool modules, much of them plain code) to ~1 ms (dense tool modules) per KB: each
# process must be given at least this much source to pay off.
BYTES_PER_WORKER = 256 * 1024


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity, e.g. under ``taskset`` or a container)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def idle_cpus(cpus: int) -> int:
    """Of ``cpus``, as many as the last minute's load average leaves idle (at least one), as
    ``make -l`` judges it: on a machine whose cores are busy, more processes only share the same
    time and add the cost of forking and collecting them. The load counts the whole machine (a
    container sees its host's), so it is set against the whole machine's CPUs. The idle
    capacity is rounded, not the load truncated: at a load of 0.9 one of two cores is nearly
    always busy, and a second process would mostly wait for it."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not available here: assume idle
        return cpus
    machine = max(cpus, os.cpu_count() or cpus)
    return max(1, min(cpus, int(machine - load + 0.5)))


def worker_count(work_bytes: int, files: int, jobs: Optional[int], cpus: int) -> int:
    """Processes for checking ``files`` files of ``work_bytes`` in all: as many as the work can
    keep busy, no more than ``cpus``, nor than ``jobs`` when the user gave ``--jobs``."""
    limit = cpus if jobs is None else min(jobs, cpus)
    return max(1, min(limit, files, work_bytes // BYTES_PER_WORKER))


class _Listing:
    """The project's tool modules (paths, '/'-separated relative paths, stat keys) and the
    stat key of toolsets.py, taken once per run."""

    def __init__(self, root: Path, config: Config, manifest: bool = True):
        """``manifest=False``: without the manifest's stat (``manifest.fresh_cache`` pins the
        manifest by its content)."""
        tools_dir = root / config.tools_dir
        self.paths = candidate_tool_paths(tools_dir)
        if not self.paths:
            require_listable(tools_dir)
        self.relative: List[str] = []
        if self.paths:
            # The files are direct children of tools_dir: one relative_to, not one per file.
            prefix = tools_dir.relative_to(root).as_posix()
            self.relative = [path.name if prefix == "." else f"{prefix}/{path.name}" for path in self.paths]
        from hermes_lint.project.registration_sites import project_sites

        self.sites = project_sites(root, config)
        plugins = self.sites.plugin_modules()
        self.paths = self.paths + [root / path for path in plugins]
        self.relative += list(plugins)
        listed_ns = time.time_ns()
        stats = [_stat(path) for path in self.paths]
        self.stats = [_key_of(stat) for stat in stats]
        self.regular = [stat is not None and _is_regular(stat) for stat in stats]
        self.toolsets_stat = _stat(root / config.toolsets_file)
        # HRM501 compares the manifest's bytes with what its inputs (listed here) generate.
        self.manifest_stat = (
            _stat(root / config.manifest) if manifest and config.is_selected("HRM501", config.manifest) else None
        )
        # Whether each stat pins its file's content (``settled``): it may be recorded.
        self.settled = [key is not None and settled(key[1], listed_ns) for key in self.stats]
        self.toolsets_settled = self.toolsets_stat is None or settled(self.toolsets_stat.st_mtime_ns, listed_ns)
        self.manifest_settled = self.manifest_stat is None or settled(self.manifest_stat.st_mtime_ns, listed_ns)

    def state(self, config: Config) -> Optional[str]:
        """Everything the final diagnostics depend on besides the toolkit and the configuration
        (which key the cache itself), or None when some input cannot be pinned by its stat (not
        a regular file, or changed too recently for its stat to be trusted: ``settled``)."""
        if not (all(self.regular) and all(self.settled) and self.toolsets_settled and self.manifest_settled):
            return None
        parts = [f"{rel}\0{_key_text(key)}" for rel, key in zip(self.relative, self.stats)]
        if self.toolsets_stat is None:
            parts.append(f"{config.toolsets_file}\0absent")
        elif _is_regular(self.toolsets_stat):
            parts.append(f"{config.toolsets_file}\0{_key_text(_key_of(self.toolsets_stat))}")
        else:
            return None
        if self.manifest_stat is not None:
            if not _is_regular(self.manifest_stat):
                return None
            parts.append(f"{config.manifest}\0{_key_text(_key_of(self.manifest_stat))}")
        return "\n".join(parts)


def _stat(path: Path) -> Optional[os.stat_result]:
    try:
        return path.stat()
    except OSError:
        return None


def _is_regular(stat: os.stat_result) -> bool:
    import stat as stat_module

    return stat_module.S_ISREG(stat.st_mode)


def _key_of(stat: Optional[os.stat_result]) -> Optional[StatKey]:
    return None if stat is None else stat_key(stat)


def _key_text(key) -> str:
    return "\0".join(str(part) for part in key)


def _stat_key(path: Path) -> Optional[StatKey]:
    return _key_of(_stat(path))


def _check_chunk(args: Tuple[Sequence[SourceFile], Config]) -> List[ModuleResult]:
    from hermes_lint.check.engine import check_module

    sources, config = args
    return [check_module(source, config) for source in sources]


def check_modules(sources: Sequence[SourceFile], config: Config, jobs: Optional[int]) -> List[ModuleResult]:
    """``check_module`` over ``sources``, in worker processes when that pays off (``jobs``: at
    most that many; None: as many as pay off); order kept."""
    from hermes_lint.check.engine import check_module, selected_rules

    work = sum(len(source.data) for source in sources if source.data is not None)
    # --jobs: the user's choice, up to every CPU; by default, only those the load leaves idle.
    cpus = available_cpus() if jobs is not None else idle_cpus(available_cpus())
    jobs = worker_count(work, len(sources), jobs, cpus)
    with freezing():
        if jobs == 1:
            results = []
            with threshold():
                for number, source in enumerate(sources, start=1):
                    results.append(check_module(source, config))
                    if number % 256 == 0:
                        settle()  # the results so far: kept to the end, never to be re-scanned
            return results
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # Import every rule (and what the rules import) before forking: otherwise each worker
        # imports them again on its first file.
        selected_rules(config, "module")
        # Many chunks per process (of at least ~32 KB: not per-file pickling overhead), so that
        # the last one to finish, while the others idle, is short; dealt out largest file
        # first, so that chunks are alike although files differ in size a hundredfold.
        chunk_count = max(jobs, min(jobs * 16, len(sources), work // max(1, BYTES_PER_WORKER // 8)))
        by_size = sorted(sources, key=lambda source: -len(source.data or b""))
        chunks = [by_size[i::chunk_count] for i in range(chunk_count)]
        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        # Frozen before forking, the imported toolkit stays out of every collection, in the
        # workers too, whose memory pages then stay shared with this process's.
        settle()
        by_path: Dict[str, ModuleResult] = {}
        with ProcessPoolExecutor(max_workers=jobs - 1, mp_context=context, initializer=worker_gc) as pool:
            for results in _share_chunks(pool, jobs - 1, chunks, config):
                by_path.update((result.facts.path, result) for result in results)
            settle()
        return [by_path[source.path] for source in sources]


def _share_chunks(pool, workers: int, chunks: List[List[SourceFile]], config: Config):
    """Every chunk's results: ``workers`` processes and this one check them together.

    This process is one of the ``jobs``, not an idle coordinator: it checks a chunk whenever the
    workers have enough queued, so it needs one worker fewer (one fork, one share of results
    to pickle fewer), and on a machine whose other cores are busy it does the work itself."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from hermes_lint.check.engine import check_module

    queue = list(reversed(chunks))  # popped from the end: in the order given
    running: Set[Future[List[ModuleResult]]] = set()
    with threshold():
        while queue or running:
            while queue and len(running) < 2 * workers:
                running.add(pool.submit(_check_chunk, (queue.pop(), config)))
            if queue:
                yield [check_module(source, config) for source in queue.pop()]
                finished = {future for future in running if future.done()}
            else:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
            running -= finished
            for future in finished:
                yield future.result()


def module_results(
    root: Path,
    config: Config,
    *,
    jobs: Optional[int] = 1,
    use_cache: bool = False,
    check=None,
    project_rules_only: bool = False,
) -> Tuple[List[ModuleResult], Optional[SourceFile]]:
    """The per-file phase for every tool module (from the cache where unchanged), in path
    order, and toolsets.py as read from disk. ``check`` replaces ``check_modules`` (the flake8
    plugin memoises per file across a run). ``project_rules_only``: the facts are read by the
    project rules alone, so cached ones may be their ``project_records.project_view`` (as in ``run_project``)."""
    _start_run()
    cache = _open_cache(root, config) if use_cache else None
    schemas = not project_rules_only or _project_rules_need_schemas(config)
    with freezing():
        return _module_results(root, config, _Listing(root, config), cache, jobs, check, schemas=schemas)


def _start_run() -> None:
    """In a process that runs more than once (the flake8 plugin in an editor, the server), the
    other project modules a run reads are looked up afresh (``evaluate.project.new_run``). A
    process that never imported the evaluator has nothing to forget, and does not import it."""
    project = sys.modules.get("hermes_lint.evaluate.project")
    if project is not None:
        project.new_run()


def _project_rules_need_schemas(config: Config) -> bool:
    from hermes_lint.check.engine import selected_rules

    return any(rule.needs_schemas(config) for rule in selected_rules(config, "project"))


def _open_cache(root: Path, config: Config) -> "ResultCache":
    from hermes_lint.check.cache import ResultCache

    return ResultCache(root, cache_fingerprint(root, config))


def cache_fingerprint(root: Path, config: Config) -> str:
    """What the cache is keyed on besides the toolkit: the settings, and the project's
    registration sites (a module's registrations depend on which of its functions receive a
    plugin context: on the project's packaging, its plugin.yaml files and the modules
    ``register`` goes through)."""
    from hermes_lint.project.registration_sites import project_sites

    return f"{config.fingerprint()} {project_sites(root, config).fingerprint()}"


def _module_results(
    root: Path,
    config: Config,
    listing: _Listing,
    cache: Optional["ResultCache"],
    jobs: Optional[int],
    check,
    *,
    schemas: bool,
    save: bool = True,
) -> Tuple[List[ModuleResult], Optional[SourceFile]]:
    """``schemas=False``: facts from the cache may be their ``project_records.project_view``, without
    schemas. ``save=False``: the cache is left for the caller to save."""
    from hermes_lint.check.engine import SourceFile, read_source

    results: List[Optional[ModuleResult]] = [None] * len(listing.paths)
    pending: List[Tuple[int, SourceFile]] = []
    with paused():  # decoding cache entries: plain data, kept to the end
        for position, (path, rel, stat, regular) in enumerate(
            zip(listing.paths, listing.relative, listing.stats, listing.regular)
        ):
            data = None
            if cache is not None and regular and stat is not None:  # a regular file has a stat
                cached, data = cache.lookup(
                    rel, stat, lambda p=path: _read_or_none(p), full=schemas, settled=listing.settled[position]
                )
                if cached is not None:
                    results[position] = cached
                    continue
            source = SourceFile(rel, data) if data is not None else read_source(root, rel)
            pending.append((position, source))
        settle()
    sources = [source for _, source in pending]
    fresh = check(sources, config) if check is not None else check_modules(sources, config, jobs)
    with paused():  # encoding entries: plain data
        for (position, source), result in zip(pending, fresh):
            results[position] = result
            stat = listing.stats[position]
            if cache is not None and source.data is not None and stat is not None:
                cache.store(source.path, stat if listing.settled[position] else None, result)
        if cache is not None:
            cache.prune(listing.relative)
            if save:
                cache.save()
        settle()
    toolsets = read_source(root, config.toolsets_file) if listing.toolsets_stat is not None else None
    # Every position is filled by now: from the cache, or by the check.
    return cast("List[ModuleResult]", results), toolsets


def check_project(
    root: Path,
    config: Config,
    *,
    manifest_findings: Callable[[Path, Config], List["Diagnostic"]],
    jobs: Optional[int] = 1,
    use_cache: bool = False,
    reads: Optional[Dict[str, Tuple[str, ...]]] = None,
    checked: Optional[List[int]] = None,
) -> List[Diagnostic]:
    """Every diagnostic of the project at ``root`` (``project_check.run_project`` is the entry).
    ``manifest_findings``: HRM501's, what ``manifest --check`` says of the manifest on disk
    (``manifest.inputs.stale_manifest``, which runs this package's engine: handed in, not
    imported), asked after the project phase and cached with its diagnostics. ``jobs``: at most
    that many processes for the per-file phase; None: as many as the amount of work and the CPUs
    make worthwhile. ``reads``: filled with each tool module's path -> the other project files
    its facts were read from (``affected.module_reads``). ``checked``: a list that gets
    [registrations read, register calls that could not be read]."""
    from hermes_lint.check.affected import module_reads

    _start_run()
    listing = _Listing(root, config)
    cache = _open_cache(root, config) if use_cache else None
    state = listing.state(config) if cache is not None else None
    if cache is not None and state is not None:
        reused = cache.project_diagnostics(state)
        if reused is not None and cache.project_reads is not None:
            from hermes_lint.check.project_reads import unchanged

            reused = reused if unchanged(root, config.plugin_dirs, cache.project_reads) else None
        if reused is not None:
            if reads is not None and cache.project_module_reads is not None:
                reads.update(cache.project_module_reads)
            elif reads is not None:  # the cached facts (nothing changed): their compact entries
                with freezing():
                    known, _ = _module_results(root, config, listing, cache, jobs, None, schemas=False)
                reads.update(module_reads(known))
            if checked is not None:
                checked[:] = list(cache.checked)
            return reused
    from hermes_lint.check.engine import ProjectSources, finish
    from hermes_lint.check.project_reads import watching

    # The project phase is all that reads the cached modules' facts here: their full facts
    # (schemas included) are read only for a project rule that reads schemas; else the compact
    # entries of the index are enough (``project_records.project_view``).
    schemas = _project_rules_need_schemas(config)
    with freezing():
        results, toolsets = _module_results(root, config, listing, cache, jobs, None, schemas=schemas, save=False)
        watched, touched = _watched(root)
        with watching(root, config.plugin_dirs) as phase_reads:
            diagnostics = finish(results, ProjectSources([], toolsets, watched), config, cache)
            diagnostics = sorted(diagnostics + manifest_findings(root, config))
        if reads is not None:
            reads.update(module_reads(results))
        if cache is not None:
            cache.save()  # the modules checked afresh, and toolsets.py's facts
    counts = count_registrations(results)
    if checked is not None:
        checked[:] = list(counts)
    # A project rule that looked at other files of the project (HRM403 searches them for a tool
    # name, the plugin rules read plugin.yaml) made the result depend on more than the stats in
    # ``state``: reusable only with a record of what the phase read.
    reads = phase_reads() if cache is not None and state is not None and touched() else None
    if cache is not None and state is not None and (reads is not None or not touched()):
        listed = set(listing.relative)
        read_modules = {
            path: sha256
            for result in results
            for path, sha256 in result.facts.read_modules
            if path not in listed  # tool modules are in ``state`` already
        }
        cache.store_project_diagnostics(
            state, diagnostics, tuple(sorted(read_modules.items())), module_reads(results), counts, reads
        )
    return diagnostics


def count_registrations(results: Sequence["ModuleResult"]) -> Tuple[int, int]:
    """(registrations read, register calls that could not be read) over the modules' facts."""
    read = sum(len(r.facts.registrations) for r in results)
    unread = sum(len(r.facts.unread_register_calls) + len(r.facts.unread_plugin_calls) for r in results)
    return read, unread


def _watched(root: Path) -> Tuple[Path, Callable[[], bool]]:
    """``root``, as a path that records whether anything used it as a path (opened, listed,
    joined or stat-ed something under it), and the question whether it was."""

    # Its base is the concrete class of ``root`` (PosixPath, WindowsPath), which mypy cannot
    # follow: a dynamic base class.
    class WatchedRoot(type(root)):  # type: ignore[misc]
        touched = False

        def __fspath__(self) -> str:
            type(self).touched = True
            return super().__fspath__()

        def __str__(self) -> str:
            type(self).touched = True
            return super().__str__()

    return WatchedRoot(root), lambda: WatchedRoot.touched


def _read_or_none(path: Path) -> Optional[bytes]:
    from hermes_lint.regular_files import read_regular_file

    try:
        return read_regular_file(path)
    except OSError:
        return None
