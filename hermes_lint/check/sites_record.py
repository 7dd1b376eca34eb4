"""The project's plugin sites kept across runs: a warm ``check`` with nothing changed reads no
module of the plugins.

What plugin discovery found (``registration_sites.PluginSites``) is kept in ``check``'s cache
directory with what it depended on, and trusted while all of that is unchanged:

- every file or directory discovery opened or listed, wherever it is (the interpreter's audit
  events ``open``, ``os.listdir`` and ``os.scandir`` name them: nothing is left out by a read
  this module does not know of), by its stat key (``regular_files.stat_key``; one that could not
  be taken, a file looked for and missing, is recorded as missing);
- every directory of the project and of its ``plugin-dirs`` (not those whose name starts with a
  dot, which discovery never looks into but when it lists them, and so records them), by its
  stat key: a file created or removed anywhere discovery may look for one (``pkg/beta.py``
  before it exists) changes its directory's;
- the version and files of hermes-lint, the interpreter's version, the project's real path and
  ``plugin-dirs``.

A stat pins nothing within one timestamp tick of a change (``regular_files.settled``): a
record is written only when every stat in it was settled when discovery started, so that a
file changed while discovery read it is never recorded with what it read before. A project
with a symbolic link in its tree, or more than ``MAX_DIRECTORIES`` directories, is not
recorded: discovery runs as always. Used by ``check`` (not with ``--no-cache``), never for
editor buffers (``registration_sites.across_runs``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from hermes_lint.regular_files import settled, stat_key

RECORD_NAME = "plugin-sites-v1.json"
MAX_DIRECTORIES = 4_000
MAX_RECORD_BYTES = 64 * 1024 * 1024

_touched: Optional[Set[str]] = None  # while discovery runs: every path it opened or listed
_hooked = False


def _audit(event: str, arguments: Tuple[Any, ...]) -> None:
    if _touched is None or event not in ("open", "os.listdir", "os.scandir") or not arguments:
        return
    path = arguments[0]
    if isinstance(path, (str, bytes, os.PathLike)):
        try:
            _touched.add(os.path.abspath(os.fsdecode(os.fspath(path))))
        except (TypeError, ValueError):
            pass


def _stat(path: str) -> Optional[List[int]]:
    try:
        return list(stat_key(os.stat(path)))
    except (OSError, ValueError):
        return None


def _directories(root: Path, plugin_dirs: Tuple[str, ...]) -> Optional[Dict[str, List[int]]]:
    """The stat key of every directory of the project (see the module's docstring), or None
    when it holds a symbolic link or more than ``MAX_DIRECTORIES`` directories."""
    found: Dict[str, List[int]] = {}
    pending = [str(root)] + [os.path.join(str(root), d) for d in plugin_dirs]
    while pending:
        directory = pending.pop()
        if directory in found:
            continue
        key = _stat(directory)
        if key is None:
            found[directory] = []  # missing: its appearance changes its parent's
            continue
        found[directory] = key
        if len(found) > MAX_DIRECTORIES:
            return None
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink():
                return None
            if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                continue
            pending.append(entry.path)
    return found


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
        if _directories(root, plugin_dirs) != data["directories"]:
            return None
        for path, key in data["files"]:
            if _stat(path) != key:
                return None
        return decode_sites(data["sites"])
    except Exception:  # missing, corrupt or tampered: discover
        return None


def discover_and_record(root: Path, plugin_dirs: Tuple[str, ...], discover: Callable[[], Any]):
    """``discover()``, watched: its answer recorded with everything it read when all of it was
    settled before it started."""
    global _touched, _hooked
    if not _hooked:
        sys.addaudithook(_audit)
        _hooked = True
    started = time.time_ns()
    _touched = set()
    try:
        sites = discover()
        touched = sorted(_touched)
    finally:
        _touched = None
    try:
        _record(root, plugin_dirs, sites, touched, started)
    except Exception:  # the speed-up is lost, never the answer
        pass
    return sites


def _record(root: Path, plugin_dirs: Tuple[str, ...], sites, touched: List[str], started: int) -> None:
    from hermes_lint.check.cache import ResultCache
    from hermes_lint.check.cache_identity import CACHE_DIR_NAME
    from hermes_lint.project.sites_codec import decode_sites, encode_sites

    cache_directory = os.path.abspath(root / CACHE_DIR_NAME)
    touched = [p for p in touched if not (p == cache_directory or p.startswith(cache_directory + os.sep))]
    directories = _directories(root, plugin_dirs)
    if directories is None:
        return
    stats = {path: _stat(path) for path in touched}
    files = [[path, key] for path, key in stats.items()]
    for key in list(directories.values()) + list(stats.values()):
        # mtime and change time: a rewrite that kept an old mtime (``cp -p``) while discovery ran
        if key and not (settled(key[1], started) and settled(key[2], started)):
            return
    encoded = encode_sites(sites)
    if decode_sites(json.loads(json.dumps(encoded))) != sites:
        return  # something the record cannot say exactly: not kept
    text = json.dumps({"key": _key(root, plugin_dirs), "directories": directories, "files": files, "sites": encoded},
                      separators=(",", ":"))
    cache = ResultCache(root, "")
    cache._write(RECORD_NAME, text)
