"""``manifest --check`` and ``check``'s HRM501 without generating, when nothing the manifest
depends on changed since it was last found, or written, up to date.

The verdict "up to date" is kept in ``check``'s cache directory (``hermes_lint/check/cache.py``:
the same directory, key and rules for what can be trusted) with what it depended on: the
toolkit and the configuration (the cache's key), the stat of every tool module and of
toolsets.py (``check``'s listing, taken before generating: a stat taken within one timestamp
tick of a change is not trusted), the sha256 of the manifest's bytes (so that ``hermes-lint
manifest`` can record the file it has just written), and the sha256 of every other project file
the generation read a value from or looked for (a helper module, ``utils.py``; a file that was
looked for and missing counts as "" and is seen when it appears). Any difference, or anything
unreadable, and the command generates as always. Only "up to date" is kept: a stale manifest is
reported afresh each time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, Optional

from hermes_lint.config import Config

FRESH_NAME = "manifest-fresh-v1.json"
MAX_RECORD_BYTES = 64 * 1024 * 1024  # a record names every file read: far below this


def pin(root: Path, config: Config) -> Optional[str]:
    """What the verdict depends on besides the manifest and other files' contents: ``check``'s
    listing of the tool modules and toolsets.py (their stats), or None when some input cannot be
    pinned by its stat. Taken before generating, so that a file changed while the generation
    read it cannot be recorded with the verdict about its old content."""
    from hermes_lint.check.runner import _Listing

    try:
        listing = _Listing(root, config, manifest=False)
    except Exception:  # an unlistable tools directory: the generation reports it
        return None
    return listing.state(config)


def _state(pinned: str, target: Path, manifest: bytes) -> str:
    """The recorded state: the listing, and the manifest by the sha256 of its bytes (a manifest
    just written, too recent for its stat to be trusted, is pinned all the same)."""
    import hashlib

    return f"{pinned}\n{target}\0sha256:{hashlib.sha256(manifest).hexdigest()}"


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

    pinned = pin(root, config)
    if pinned is None:
        return None
    directory = root / CACHE_DIR_NAME
    try:
        state = _state(pinned, target, read_regular_file(target))
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


def remember_fresh(root: Path, config: Config, target: Path, summary: str, inputs: Dict[str, str],
                   pinned: Optional[str], manifest: bytes) -> None:
    """Record that the manifest ``target``, whose bytes are ``manifest``, is up to date;
    ``inputs``: the other project files the generation depended on, with their sha256 ("" for one
    looked for and not found); ``pinned``: ``pin`` taken before generating (None: nothing is
    recorded)."""
    from hermes_lint.check.runner import _open_cache

    if pinned is None:
        return
    cache = _open_cache(root, config)
    text = json.dumps({"key": cache.key_text, "state": _state(pinned, target, manifest),
                       "inputs": [list(item) for item in sorted(inputs.items())], "summary": summary},
                      separators=(",", ":"))
    try:
        if cache.prepare_directory():
            cache.write_file(FRESH_NAME, text)
    except OSError:  # a read-only checkout: the next run generates again
        pass
