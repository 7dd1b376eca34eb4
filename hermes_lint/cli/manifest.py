"""``hermes-lint manifest``: the click command, built from ``cli.options.MANIFEST``; the run,
and ``write_manifest`` (what ``new-tool`` calls), are ``cli.manifest_run``."""

from __future__ import annotations

import click

from hermes_lint.cli.manifest_run import WriteOutcome, configured_target, write_manifest
from hermes_lint.cli.options import MANIFEST, decorate

__all__ = ["manifest", "WriteOutcome", "configured_target", "write_manifest"]


@click.command("manifest")
@decorate(MANIFEST)
def manifest(**params) -> None:
    """Generate the tool manifest from the sources, without importing any tool module.

    Generation refuses to write while errors that would make the manifest wrong remain (a schema
    that cannot be evaluated or is invalid, a tool name registered twice, a toolset that cannot
    be resolved); it lists them as diagnostics and exits 1. The file is replaced atomically and
    only when its bytes change.
    """
    from hermes_lint.cli.manifest_run import run_manifest

    run_manifest(**params)
