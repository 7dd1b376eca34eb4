"""``check`` and ``manifest`` without importing click, for the command lines that need nothing of it.

The pre-commit hooks run ``hermes-lint check --changed FILES`` and ``hermes-lint manifest
--check`` on every commit, and importing click costs about as much as the rest of a warm
``manifest --check``. A command line made only of those commands' flags that take no value (as
``cli.options`` defines them, where the click commands take them from) and, for ``check``, of
paths, means one thing whatever parses it: its parameters are the flags given and every other
option's default, and the run is the click command's own (``check_run.run_check``,
``manifest_run.run_manifest``). Anything else (an option with a value, ``--help``, ``--``, ``-``,
grouped short flags, shell completion) is left to click, which also reports its usage errors.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional, Tuple

from hermes_lint.cli.options import CHECK, MANIFEST

COMMANDS = {command.name: command for command in (CHECK, MANIFEST)}


def parse(argv: List[str]) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(the command, its parameters as click would pass them), or None for a command line that
    is click's to parse."""
    if not argv or argv[0] not in COMMANDS:
        return None
    command = COMMANDS[argv[0]]
    flags = command.flag_values()
    params = command.defaults()
    paths = []
    for token in argv[1:]:
        if token.startswith("-"):
            if token not in flags:
                return None
            name, value = flags[token]
            params[name] = value
        elif command.paths_argument is not None:
            paths.append(token)
        else:
            return None
    if command.paths_argument is not None:
        params[command.paths_argument] = tuple(paths)
    return command.name, params


def run_if_taken(argv: List[str]) -> None:
    """Run the command line and exit, when ``parse`` takes it; else return (click runs it)."""
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return  # click's shell completion (``_HERMES_LINT_COMPLETE``)
    parsed = parse(argv)
    if parsed is None:
        return
    name, params = parsed
    from hermes_lint.check.cache_identity import pinned_on_first_use
    from hermes_lint.cli import _silence_stdout, configure_streams, echo_err

    # What the click group does around every command (``cli.commands``): its callback, the
    # toolkit's identity taken once, and click's handling of Ctrl-C and of a closed pipe.
    try:
        with pinned_on_first_use():
            configure_streams()
            if name == "check":
                from hermes_lint.cli.check_run import run_check

                run_check(**params)
            else:
                from hermes_lint.cli.manifest_run import run_manifest

                run_manifest(**params)
    except KeyboardInterrupt:
        echo_err("")
        echo_err("Aborted!")
        sys.exit(1)
    except BrokenPipeError:
        _silence_stdout()
        sys.exit(1)
    sys.exit(0)
