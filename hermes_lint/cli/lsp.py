"""``hermes-lint lsp``: the Language Server Protocol server, over stdio (``hermes_lint.lsp``)."""

from __future__ import annotations

import click


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk on the standard streams (the default and only transport; accepted because editors pass it).")
def lsp(stdio: bool) -> None:
    """Run the language server on stdin/stdout, for an editor to start.

    Diagnostics on open, change and save of tool modules, plugin modules and toolsets.py (what
    `hermes-lint check` reports on those texts), fixes and `# noqa` as code actions, each
    rule's page on hover. Configuration: the project's [tool.hermes-lint], read again when
    pyproject.toml changes. See docs/editors.md for editor set-ups.
    """
    from hermes_lint.lsp.server import run_stdio

    run_stdio()
