"""``manifest --check`` without generating, when nothing it depends on changed since it last
found the manifest up to date.

The verdict "up to date" is kept in ``check``'s cache directory (``hermes_lint/check/cache.py``:
the same directory, key and rules for what can be trusted) with what it depended on: the
toolkit and the configuration (the cache's key), the stat of every tool module, of toolsets.py
and of the manifest itself (``check``'s listing: a stat taken within one timestamp tick of a
change is not trusted), and the sha256 of every other project file the generation read a value
from or looked for (a helper module, ``utils.py``; a file that was looked for and missing counts
as "" and is seen when it appears). Any difference, or anything unreadable, and the command
generates as always. Only "up to date" is kept: a stale manifest is reported afresh each time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Optional, Tuple

from hermes_lint.config import Config

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.check.cache import ResultCache

FRESH_NAME = "manifest-fresh-v1.json"
MAX_RECORD_BYTES = 64 * 1024 * 1024  # a record names every file read: far below this


def _state(root: Path, config: Config, target: Path,
           open_cache: bool = True) -> Optional[Tuple[Optional[ResultCache], str]]:
    """``(cache, state)``: what the verdict depends on besides other files' contents, or None
    when some input cannot be pinned by its stat."""
    import time

    from hermes_lint.check.runner import _key_of, _key_text, _Listing, _open_cache, _stat
    from hermes_lint.regular_files import settled

    try:
        listing = _Listing(root, config)
    except Exception:  # an unlistable tools directory: the generation reports it
        return None
    state = listing.state(config)
    taken = time.time_ns()
    manifest = _stat(target)
    if state is None or manifest is None or not settled(manifest.st_mtime_ns, taken):
        return None
    return (_open_cache(root, config) if open_cache else None), f"{state}\n{target}\0{_key_text(_key_of(manifest))}"


def known_fresh(root: Path, config: Config, target: Path) -> Optional[str]:
    """The summary recorded when the manifest was last found up to date, if nothing it depended
    on has changed since; else None. Reads the record itself, without loading the cache's
    codec and the toolkit's data model (a tenth of a second of a run that finds nothing to do)."""
    import hashlib
    import os
    import stat

    from hermes_lint.check.cache_identity import CACHE_DIR_NAME, key_text, toolkit_fingerprint
    from hermes_lint.check.runner import cache_fingerprint
    from hermes_lint.config import leaves_root
    from hermes_lint.regular_files import read_regular_file

    pinned = _state(root, config, target, open_cache=False)
    if pinned is None:
        return None
    _, state = pinned
    directory = root / CACHE_DIR_NAME
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):  # a link to a directory: not used
            return None
        data = json.loads(read_regular_file(directory / FRESH_NAME, MAX_RECORD_BYTES).decode("utf-8"))
        if (not isinstance(data, dict) or data.get("state") != state
                or data.get("key") != key_text(cache_fingerprint(root, config), toolkit_fingerprint())):
            return None
        for item in data["inputs"]:  # as ResultCache._read_modules_unchanged judges them
            path, recorded = item
            if not isinstance(path, str) or not path or leaves_root(path):
                return None
            try:
                current = hashlib.sha256(read_regular_file(root / path)).hexdigest()
            except (OSError, ValueError):
                current = ""
            if current != recorded:
                return None
        summary = data.get("summary")
    except Exception:  # missing, corrupt or tampered: generate
        return None
    return summary if isinstance(summary, str) else None


def remember_fresh(root: Path, config: Config, target: Path, summary: str, inputs: Dict[str, str]) -> None:
    """Record that the manifest is up to date; ``inputs``: the other project files the
    generation depended on, with their sha256 ("" for one looked for and not found)."""
    pinned = _state(root, config, target)
    if pinned is None:
        return
    cache, state = pinned
    assert cache is not None
    text = json.dumps({"key": cache.key_text, "state": state,
                       "inputs": [list(item) for item in sorted(inputs.items())], "summary": summary},
                      separators=(",", ":"))
    try:
        if cache.prepare_directory():
            cache._write(FRESH_NAME, text)
    except OSError:  # a read-only checkout: the next run generates again
        pass
