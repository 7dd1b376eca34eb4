"""``check --watch``: check, then check again after each change to the project's files.

File-system notifications come from ``watchfiles`` (inotify, FSEvents, ReadDirectoryChangesW,
or polling where none works); it batches a burst of writes (an editor's save) into one change.
Ctrl-C ends the loop cleanly, exit status 0.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

import click

from hermes_lint.check.cache_identity import CACHE_DIR_NAME

WATCHED_SUFFIXES = (".py", ".toml", ".json")


def watch_project(root: Path, check_once: Callable[[], int], ignored: Sequence[str] = ()) -> int:
    import watchfiles

    skipped = {os.path.realpath(path) for path in ignored}

    class ProjectFilter(watchfiles.DefaultFilter):
        """The project's sources, settings and manifest; not the cache hermes-lint writes, nor the
        report it writes (``-o``), which would start the next run by themselves."""

        def __init__(self) -> None:
            super().__init__(ignore_dirs=(*self.ignore_dirs, CACHE_DIR_NAME))

        def __call__(self, change, path: str) -> bool:
            return (
                super().__call__(change, path)
                and path.endswith(WATCHED_SUFFIXES)
                and os.path.realpath(path) not in skipped
            )

    def run() -> None:
        from hermes_lint.cli import UsageError
        from hermes_lint.config import ConfigError

        try:
            check_once()
        except (UsageError, ConfigError) as exc:  # a settings file mid-edit: say so, keep watching
            click.echo(f"hermes-lint: error: {exc}", err=True)

    run()
    click.echo("hermes-lint: watching for changes (Ctrl-C to stop)", err=True)
    try:
        for _changes in watchfiles.watch(root, watch_filter=ProjectFilter(), raise_interrupt=False):
            click.echo("hermes-lint: files changed, checking again", err=True)
            run()
    except KeyboardInterrupt:  # between two runs, or during one
        pass
    return 0
