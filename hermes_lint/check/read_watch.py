"""What part of a run read from disk, recorded so that a later run can reuse its result while
none of it changed (``sites_record``: plugin discovery; ``project_reads``: the project phase).

Within ``watching()`` every file or directory opened or listed, wherever it is, is collected
from the interpreter's audit events ``open``, ``os.listdir`` and ``os.scandir``: nothing is left
out by a read this module does not know of. A ``Snapshot`` of such a set holds the stat key
(``regular_files.stat_key``) of each of those paths (one that could not be taken, a file looked
for and missing, as missing), of the directory holding each, and of every directory of the
project and of its ``plugin-dirs`` (not those whose name starts with a dot): a file created or
removed where the run only looked for it (its stat taken, which raises no audit event)
changes its directory's. It is taken only when every stat in it was settled when the reads
began (``regular_files.settled``, by the modification and the change time), so that a file
changed while it was read is never recorded with what was read before; a project with a
symbolic link in its tree, or more than ``MAX_DIRECTORIES`` directories, gets none. The one
change a run makes itself, creating its cache directory in the project root before the reads
begin (``made_entry_in``), does not count: the root's stat is taken right after it, and a stat
that is still that one, with the same entries, is the run's own.

Audit hooks cannot be removed once added: the hook is added on first use and does nothing
outside a window.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from hermes_lint.regular_files import settled, stat_key

MAX_DIRECTORIES = 4_000
_EVENTS = frozenset({"open", "os.listdir", "os.scandir"})

_windows: List[Set[str]] = []  # the sets being filled: one per open ``watching()``
_hooked = False
# A directory this process created an entry in -> its stat key and its entries right after.
_made: Dict[str, Tuple[List[int], List[str]]] = {}


def _audit(event: str, arguments: Tuple[Any, ...]) -> None:
    if not _windows or event not in _EVENTS or not arguments:
        return
    path = arguments[0]
    if isinstance(path, (str, bytes, os.PathLike)):
        try:
            absolute = os.path.abspath(os.fsdecode(os.fspath(path)))
        except (TypeError, ValueError):
            return
        for window in _windows:
            window.add(absolute)


@contextmanager
def watching() -> Iterator[Set[str]]:
    """Within: the set it gives fills with every path opened or listed (absolute)."""
    global _hooked
    if not _hooked:
        sys.addaudithook(_audit)
        _hooked = True
    window: Set[str] = set()
    _windows.append(window)
    try:
        yield window
    finally:
        _windows.remove(window)


def made_entry_in(directory: str) -> None:
    """This process has just created an entry in ``directory``, before any read of the project
    began: its stat from now on, while it stays the same and ``directory`` holds the same entries,
    is settled for ``snapshot`` (a change by anyone else moves it, or adds or removes an entry)."""
    key = stat_list(directory)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return
    if key is not None:
        _made[os.path.abspath(directory)] = (key, names)


def _own_change(directory: str, key: List[int]) -> bool:
    made = _made.get(os.path.abspath(directory))
    if made is None or made[0] != key:
        return False
    try:
        return sorted(os.listdir(directory)) == made[1]
    except OSError:
        return False


def stat_list(path: str) -> Optional[List[int]]:
    """``path``'s stat key as a list (as JSON keeps it), or None when it cannot be taken."""
    try:
        return list(stat_key(os.stat(path)))
    except (OSError, ValueError):
        return None


def project_directories(root: Path, plugin_dirs: Tuple[str, ...]) -> Optional[Dict[str, List[int]]]:
    """The stat key of every directory of the project (see the module's docstring; [] for a
    plugin directory that is missing), or None when the tree holds a symbolic link or more than
    ``MAX_DIRECTORIES`` directories."""
    found: Dict[str, List[int]] = {}
    pending = [str(root)] + [os.path.join(str(root), d) for d in plugin_dirs]
    while pending:
        directory = pending.pop()
        if directory in found:
            continue
        key = stat_list(directory)
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


def snapshot(root: Path, plugin_dirs: Tuple[str, ...], paths: Iterable[str], started: int,
             excluded: Iterable[str] = ()) -> Optional[Dict[str, Any]]:
    """``{"directories": ..., "files": [[path, key], ...]}`` for ``paths`` (read since
    ``started``, ``time.time_ns()``), leaving out those under ``excluded`` directories; None when
    one of the stats was not settled at ``started``, or the project cannot be recorded."""
    prefixes = tuple(os.path.abspath(d) for d in excluded)
    kept = sorted(p for p in set(paths) if not any(p == d or p.startswith(d + os.sep) for d in prefixes))
    directories = project_directories(root, plugin_dirs)
    if directories is None:
        return None
    holding = {os.path.dirname(path) for path in kept} - set(directories) - set(kept)
    stats = {path: stat_list(path) for path in kept + sorted(holding)}
    for path, key in list(directories.items()) + list(stats.items()):
        # mtime and change time: a rewrite that kept an old mtime (``cp -p``) while it was read
        if key and not (settled(key[1], started) and settled(key[2], started)) and not _own_change(path, key):
            return None
    return {"directories": directories, "files": [[path, key] for path, key in stats.items()]}


def unchanged(root: Path, plugin_dirs: Tuple[str, ...], recorded: Any) -> bool:
    """Whether every stat of a ``snapshot`` is as it was."""
    try:
        if project_directories(root, plugin_dirs) != recorded["directories"]:
            return False
        return all(stat_list(path) == key for path, key in recorded["files"])
    except (KeyError, TypeError, ValueError):  # not a snapshot
        return False
