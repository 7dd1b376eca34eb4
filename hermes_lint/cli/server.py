"""``hermes-lint server``: answer the flake8 plugin from a long-lived process (``hermes_lint.server``)."""

from __future__ import annotations

from typing import Optional

import click

from hermes_lint.cli import EXIT_CLEAN, UsageError, resolve_root, run_guarded
from hermes_lint.project_config import load_config


@click.command("server")
@click.option("--root", type=click.Path(), help="Project root (default: the nearest parent of the current directory with toolsets.py or [tool.hermes-lint]).")
@click.option("--idle-timeout", type=click.FloatRange(min=0, min_open=True), default=1800.0, show_default=True, metavar="SECONDS", help="Stop after this many seconds without a request.")
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors.")
def server(root: Optional[str], idle_timeout: float, debug: bool) -> None:
    """Check files for the flake8 plugin in a long-lived process, in the foreground.

    The flake8 plugin (an editor's flake8 on save) asks it for the file it lints instead of
    importing the checker and reading the project itself, and checks in process when it gets no
    answer. It listens on a socket in the project's .hermes_lint_cache/ and stops after
    --idle-timeout, on Ctrl-C, SIGTERM, or when a plugin of another hermes-lint asks.
    """

    def action() -> int:
        from hermes_lint.server import ServerError, run_server

        project_root = resolve_root(root)
        load_config(project_root)  # a broken configuration is reported now, not per request
        try:
            run_server(project_root, idle_timeout)
        except ServerError as exc:
            raise UsageError(str(exc)) from None
        return EXIT_CLEAN

    run_guarded(debug, action)
