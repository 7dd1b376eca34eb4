"""Running a whole project: cached and parallel per-file phase, then the project phase.

The per-file phase (``engine.check_module``) is independent for every file, so it runs across
processes (``jobs``) or comes from the cache; the project phase (``engine.finish``) always runs
in this process over every module's facts, so project rules see the whole project whether a
file was re-checked or not.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from hermes_lint.config import Config
from hermes_lint.discovery import candidate_tool_paths
from hermes_lint.engine import ModuleResult, ProjectSources, SourceFile, check_module, finish, read_source
from hermes_lint.model import Diagnostic

# Below this many files to check, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 64


def default_jobs() -> int:
    return os.cpu_count() or 1


def _stat_key(path: Path) -> Optional[Tuple[int, int]]:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)


def _check_chunk(args: Tuple[Sequence[SourceFile], Config]) -> List[ModuleResult]:
    sources, config = args
    return [check_module(source, config) for source in sources]


def check_modules(sources: Sequence[SourceFile], config: Config, jobs: int) -> List[ModuleResult]:
    """``check_module`` over ``sources``, in worker processes when that pays off; order kept."""
    if jobs <= 1 or len(sources) < PARALLEL_THRESHOLD:
        return [check_module(source, config) for source in sources]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # A few chunks per worker balance uneven files without paying per-file pickling overhead.
    chunk_count = jobs * 4
    chunks = [list(sources[i::chunk_count]) for i in range(chunk_count)]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        chunk_results = list(pool.map(_check_chunk, [(chunk, config) for chunk in chunks]))
    by_path = {result.facts.path: result for results in chunk_results for result in results}
    return [by_path[source.path] for source in sources]


def module_results(
    root: Path,
    config: Config,
    *,
    jobs: int = 1,
    use_cache: bool = False,
    check=None,
) -> Tuple[List[ModuleResult], Optional[SourceFile]]:
    """The per-file phase for every tool module (from the cache where unchanged), in path
    order, and toolsets.py as read from disk. ``check`` replaces ``check_modules`` (the flake8
    plugin memoises per file across a run)."""
    from hermes_lint.cache import ResultCache

    cache = ResultCache(root, config.fingerprint()) if use_cache else None
    paths = candidate_tool_paths(root / config.tools_dir)
    relative = [path.relative_to(root).as_posix() for path in paths]
    results: List[Optional[ModuleResult]] = [None] * len(paths)
    stats = [_stat_key(path) for path in paths]
    pending: List[Tuple[int, SourceFile]] = []
    for position, (path, rel, stat) in enumerate(zip(paths, relative, stats)):
        data = None
        if cache is not None and stat is not None and path.is_file():
            cached, data = cache.lookup(rel, stat, lambda p=path: _read_or_none(p))
            if cached is not None:
                results[position] = cached
                continue
        source = SourceFile(rel, data) if data is not None else read_source(root, rel)
        pending.append((position, source))
    sources = [source for _, source in pending]
    fresh = check(sources, config) if check is not None else check_modules(sources, config, jobs)
    for (position, source), result in zip(pending, fresh):
        results[position] = result
        if cache is not None and source.data is not None and stats[position] is not None:
            cache.store(source.path, stats[position], result)
    if cache is not None:
        cache.prune(relative)
        cache.save()
    toolsets_path = root / config.toolsets_file
    toolsets = read_source(root, config.toolsets_file) if toolsets_path.exists() else None
    return results, toolsets


def run_project(root: Path, config: Config, *, jobs: int = 1, use_cache: bool = False) -> List[Diagnostic]:
    """Every diagnostic of the project at ``root``."""
    results, toolsets = module_results(root, config, jobs=jobs, use_cache=use_cache)
    return finish(results, ProjectSources([], toolsets, root), config)


def _read_or_none(path: Path) -> Optional[bytes]:
    try:
        return path.read_bytes()
    except OSError:
        return None
