"""Where a project's cache lives, and what every cached or served result depends on besides the
project's files: the toolkit's version, its configuration and its own source files. Standard
library only: the flake8 plugin computes the key before asking ``hermes-lint server``, without
importing the checker."""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Tuple

from hermes_lint import __version__

CACHE_DIR_NAME = ".hermes_lint_cache"


_pinned = ""  # ``pin_toolkit_fingerprint``
_pin_first = False  # ``pin_on_first_use``


def toolkit_fingerprint() -> str:
    """Size and mtime of the toolkit's own modules: an edited rule must not reuse old results
    (the version alone does not change between a developer's edits)."""
    if _pinned:
        return _pinned
    if _pin_first:
        return pin_toolkit_fingerprint()
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # hermes_lint/, not check/
    parts = []
    # os.walk, not Path.rglob: this runs on every warm run and every editor save (~4x faster).
    for directory, subdirectories, files in os.walk(package):
        subdirectories.sort()
        relative = os.path.relpath(directory, package)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            try:
                stat = os.stat(os.path.join(directory, name))
            except OSError:
                continue
            path = name if relative == "." else f"{relative}/{name}".replace(os.sep, "/")
            parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(sorted(parts))


def pin_toolkit_fingerprint() -> str:
    """The fingerprint of the toolkit's files as they are now, kept as this process's from now
    on: a long-lived process (``hermes-lint server``) runs the code it imported at its start, and
    keys what it computes and caches on that code, not on files edited since."""
    global _pinned, _pin_first
    _pinned, _pin_first = "", False
    _pinned = toolkit_fingerprint()
    return _pinned


@contextmanager
def pinned_on_first_use():
    """Within: the fingerprint computed first is kept (``pin_toolkit_fingerprint``), and
    forgotten at the end unless it was pinned before. For a command-line run, which asks for it
    several times (the result cache, the plugin sites record, the manifest's record) and runs
    the code it imported."""
    global _pinned, _pin_first
    if _pinned or _pin_first:
        yield
        return
    _pin_first = True
    try:
        yield
    finally:
        _pinned, _pin_first = "", False


def key_text(config_fingerprint: str, toolkit: str) -> str:
    """The cache's key (``cache.ResultCache.key_text``): version, configuration, toolkit."""
    return f"{__version__}\n{config_fingerprint}\n{toolkit}"


def key_parts(text: str) -> Tuple[str, str, str]:
    """(version, configuration, toolkit) of a ``key_text``: the configuration's fingerprint is
    one line (a ``repr``), the toolkit's is the rest."""
    version, _, rest = text.partition("\n")
    configuration, _, toolkit = rest.partition("\n")
    return version, configuration, toolkit
