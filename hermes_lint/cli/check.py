"""``hermes-lint check``: the click command, built from ``cli.options.CHECK``; the run is
``cli.check_run``."""

from __future__ import annotations

import click

from hermes_lint.cli.options import CHECK, decorate


@click.command()
@decorate(CHECK)
def check(**params) -> None:
    """Check the project's tool modules and toolsets.py.

    With PATHS, only diagnostics located in those files are reported; project rules still see
    the whole project. The summary line goes to stderr.
    """
    from hermes_lint.cli.check_run import run_check

    run_check(**params)
