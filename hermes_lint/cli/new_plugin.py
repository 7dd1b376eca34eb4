"""``hermes-lint new-plugin``: the click command over ``hermes_lint.scaffold.plugin``.

Loaded by the ``hermes-lint`` group only when named (see ``cli/new_tool.py``), so ``check`` does not
import libcst for it.
"""

from __future__ import annotations

from typing import Optional

import click


@click.command("new-plugin")
@click.argument("plugin_name", metavar="NAME")
@click.option("--description", default=None, metavar="TEXT",
              help="What the plugin and its first tool do (default: a TODO to replace).")
@click.option("--directory", "parent", type=click.Path(file_okay=False), default=".",
              help="Where to create the NAME/ directory (default: the current directory).")
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors.")
def new_plugin(plugin_name: str, description: Optional[str], parent: str, debug: bool) -> None:
    """Create NAME/, a pip-installable Hermes plugin package with one tool NAME.

    It holds pyproject.toml (the hermes_agent.plugins entry point), the package hermes_NAME with
    register(ctx), the tool module and plugin.yaml, and tests/test_plugin.py. Refuses (exit 2,
    nothing written) an invalid NAME, a name of a Hermes built-in tool and an existing NAME/.
    """
    from pathlib import Path

    from hermes_lint.cli import UsageError, run_guarded
    from hermes_lint.scaffold.plugin import plan_new_plugin, write_plugin_plan
    from hermes_lint.scaffold.tool import ScaffoldError, default_description

    def action() -> int:
        directory = Path(parent)
        if not directory.is_dir():
            raise UsageError(f"--directory {parent}: not a directory")
        try:
            plan = plan_new_plugin(plugin_name, directory, description or default_description(plugin_name))
            for line in write_plugin_plan(plan):
                click.echo(line)
        except ScaffoldError as exc:
            raise UsageError(str(exc)) from None
        click.echo(
            f"next: cd {plan.relative(directory / plugin_name)}, replace the TODOs, run `hermes-lint check` "
            "and `pip install -e '.[test]' && pytest`"
        )
        return 0

    run_guarded(debug, action)
