"""What the project phase read, kept with the whole run's diagnostics (``cache.PROJECT_NAME``),
so that a run in which nothing changed reuses them although a project rule read files through
the project root: the plugin rules (plugin.yaml, pyproject.toml, the modules an entry point
names, the installed Hermes's files), HRM403 (the project's other files, searched for a tool's
name).

The project phase runs inside ``watching``; when it read through the root, a
``read_watch.snapshot`` of every file and directory it opened or listed, and of what plugin
discovery read in this process (``sites_record.discovery_reads``: the plugin rules reuse
modules discovery parsed without reading them again), is stored with the diagnostics, with the
interpreter (its version, ``sys.path`` and working directory: where the installed Hermes is
looked for). Only a process's first project phase is recorded: a long-lived process (the
``--watch`` loop) keeps in memory what its earlier runs read, which a later run reuses without
reading it. Stats must be settled since the reads began (the first discovery's start, else the
phase's), as everywhere in the cache.

``check`` turns this on (``record_in_this_process``) before it reads anything of the project,
unless ``--no-cache``, and makes the cache directory then (``make_cache_directory``).
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, Optional, Tuple

_enabled = False
_phases = 0  # project phases watched in this process


def record_in_this_process() -> None:
    """From now on this process's first project phase may be recorded."""
    global _enabled
    _enabled = True


def make_cache_directory(root: Path) -> None:
    """The cache directory, made now (when missing) rather than by the first record written:
    making it changes the root directory's stat, which every record of this run holds, and a
    change made after the reads began would keep this run from recording anything."""
    from hermes_lint.check import read_watch
    from hermes_lint.check.cache import ResultCache
    from hermes_lint.check.cache_identity import CACHE_DIR_NAME

    if os.path.lexists(root / CACHE_DIR_NAME):
        return
    try:
        if ResultCache(root, "").prepare_directory():
            read_watch.made_entry_in(str(root))
    except OSError:
        pass  # a read-only checkout: nothing is recorded, every run checks afresh


def _interpreter() -> list:
    # and the working directory, which the search for the installed Hermes leaves out of sys.path
    return [sys.version, list(sys.path), os.getcwd()]


@contextmanager
def watching(root: Path, plugin_dirs: Tuple[str, ...]) -> Iterator[Callable[[], Optional[Dict[str, Any]]]]:
    """Within: the project phase. Gives the question, asked after it, of what it read as a
    record to store (None: cannot be recorded)."""
    global _phases
    from hermes_lint.check import read_watch

    _phases += 1
    first = _enabled and _phases == 1
    started = time.time_ns()
    with read_watch.watching() as touched:
        yield lambda: _snapshot(root, plugin_dirs, touched, started) if first else None


def _snapshot(root: Path, plugin_dirs: Tuple[str, ...], touched, started: int) -> Optional[Dict[str, Any]]:
    import hermes_lint
    from hermes_lint.check import read_watch, sites_record
    from hermes_lint.check.cache_identity import CACHE_DIR_NAME

    if sites_record.discovery_started is not None:
        started = min(started, sites_record.discovery_started)
    # the toolkit's modules are in the cache's key already (its data files, the built-in tools'
    # catalogue, are not)
    toolkit = os.path.dirname(os.path.abspath(hermes_lint.__file__)) + os.sep
    read = {p for p in set(touched) | sites_record.discovery_reads
            if not (p.startswith(toolkit) and (p.endswith((".py", ".pyc")) or p.endswith("__pycache__")))}
    recorded = read_watch.snapshot(root, plugin_dirs, read, started, [str(root / CACHE_DIR_NAME)])
    if recorded is None:
        return None
    return {"interpreter": _interpreter(), **recorded}


def unchanged(root: Path, plugin_dirs: Tuple[str, ...], recorded: Any) -> bool:
    """Whether nothing a stored record names changed (and the interpreter is the same)."""
    from hermes_lint.check import read_watch

    try:
        if recorded["interpreter"] != _interpreter():
            return False
    except (KeyError, TypeError):
        return False
    return read_watch.unchanged(root, plugin_dirs, recorded)
