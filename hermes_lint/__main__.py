"""``python -m hermes_lint``: the ``hermes-lint`` command."""

from hermes_lint.cli import main

main(prog_name="hermes-lint")
