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


def _state(root: Path, config: Config, target: Path) -> Optional[Tuple[ResultCache, str]]:
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
    return _open_cache(root, config), f"{state}\n{target}\0{_key_text(_key_of(manifest))}"


def known_fresh(root: Path, config: Config, target: Path) -> Optional[str]:
    """The summary recorded when the manifest was last found up to date, if nothing it depended
    on has changed since; else None."""
    pinned = _state(root, config, target)
    if pinned is None:
        return None
    cache, state = pinned
    try:
        data = json.loads(cache._read(FRESH_NAME))
        if not isinstance(data, dict) or data.get("key") != cache.key_text or data.get("state") != state:
            return None
        if not cache._read_modules_unchanged(data.get("inputs")):
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
    text = json.dumps({"key": cache.key_text, "state": state,
                       "inputs": [list(item) for item in sorted(inputs.items())], "summary": summary},
                      separators=(",", ":"))
    try:
        if cache.prepare_directory():
            cache._write(FRESH_NAME, text)
    except OSError:  # a read-only checkout: the next run generates again
        pass
