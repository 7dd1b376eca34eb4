"""The project's plugin sites kept across runs: a warm ``check`` with nothing changed reads no
module of the plugins.

What plugin discovery found (``registration_sites.PluginSites``) is kept in ``check``'s cache
directory with what it depended on, and trusted while all of that is unchanged: a
``read_watch`` snapshot of what discovery read (every file or directory it opened or listed,
wherever it is, and every directory of the project and of its ``plugin-dirs``: a file created
or removed anywhere discovery may look for one, ``pkg/beta.py`` before it exists, changes its
directory's), and the version and files of hermes-lint, the interpreter's version, the
project's real path and ``plugin-dirs``.

A record is written only when every stat in it was settled when discovery started, so that a
file changed while discovery read it is never recorded with what it read before. A project
with a symbolic link in its tree, or more than ``read_watch.MAX_DIRECTORIES`` directories, is
not recorded: discovery runs as always. Used by ``check`` (not with ``--no-cache``), never for
editor buffers (``registration_sites.across_runs``), and only for a project with plugins.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional, Set, Tuple

from hermes_lint.check import read_watch

RECORD_NAME = "plugin-sites-v1.json"
MAX_RECORD_BYTES = 64 * 1024 * 1024

# What discovery read in this process, and when it started (``project_reads`` records it too:
# the plugin rules may reuse what discovery parsed without reading it again).
discovery_reads: Set[str] = set()
discovery_started: Optional[int] = None


def _key(root: Path, plugin_dirs: Tuple[str, ...]) -> str:
    from hermes_lint import __version__
    from hermes_lint.check.cache_identity import toolkit_fingerprint

    # the interpreter too: what ``ast`` parses (and so what discovery follows) depends on it
    return json.dumps([__version__, sys.version, os.path.realpath(root), list(plugin_dirs), toolkit_fingerprint()])


def _record_path(root: Path) -> Path:
    from hermes_lint.check.cache_identity import CACHE_DIR_NAME

    return root / CACHE_DIR_NAME / RECORD_NAME


def recorded(root: Path, plugin_dirs: Tuple[str, ...]):
    """The ``PluginSites`` recorded for the project at ``root``, if nothing it depended on
    changed since; else None."""
    import stat

    from hermes_lint.check.cache_identity import CACHE_DIR_NAME
    from hermes_lint.project.sites_codec import decode_sites
    from hermes_lint.regular_files import read_regular_file

    try:
        if not stat.S_ISDIR(os.lstat(root / CACHE_DIR_NAME).st_mode):  # a link to a directory: not used
            return None
        data = json.loads(read_regular_file(_record_path(root), MAX_RECORD_BYTES).decode("utf-8"))
        if not isinstance(data, dict) or data.get("key") != _key(root, plugin_dirs):
            return None
        if not read_watch.unchanged(root, plugin_dirs, data):
            return None
        return decode_sites(data["sites"])
    except Exception:  # missing, corrupt or tampered: discover
        return None


def discover_and_record(root: Path, plugin_dirs: Tuple[str, ...], discover: Callable[[], Any]):
    """``discover()``, watched: its answer recorded with everything it read when all of it was
    settled before it started."""
    global discovery_started
    started = time.time_ns()
    if discovery_started is None:
        discovery_started = started
    with read_watch.watching() as touched:
        sites = discover()
    discovery_reads.update(touched)
    try:
        _record(root, plugin_dirs, sites, touched, started)
    except Exception:  # the speed-up is lost, never the answer
        pass
    return sites


def _record(root: Path, plugin_dirs: Tuple[str, ...], sites, touched: Set[str], started: int) -> None:
    from hermes_lint.check.cache import ResultCache
    from hermes_lint.check.cache_identity import CACHE_DIR_NAME
    from hermes_lint.project.sites_codec import decode_sites, encode_sites

    recorded = read_watch.snapshot(root, plugin_dirs, touched, started, excluded=[str(root / CACHE_DIR_NAME)])
    if recorded is None:
        return
    encoded = encode_sites(sites)
    if decode_sites(json.loads(json.dumps(encoded))) != sites:
        return  # something the record cannot say exactly: not kept
    text = json.dumps({"key": _key(root, plugin_dirs), **recorded, "sites": encoded}, separators=(",", ":"))
    ResultCache(root, "").write_file(RECORD_NAME, text)
