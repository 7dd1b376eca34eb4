"""``hermes-lint check --fix / --diff / --add-noqa``: the command line's side (``cli.check``
hands over to ``run_fix_options``). Exit codes as ``check``'s: 0 clean, 1 findings (or, under
``--diff``, something to fix), 2 usage or internal error."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, Tuple

from hermes_lint.config import Config


def run_fix_options(
    root: Path,
    config: Config,
    *,
    wanted: Optional[Tuple[str, ...]],
    fix: bool,
    unsafe: bool,
    diff: bool,
    add_noqa: bool,
    output_format: str,
    exit_zero: bool,
    in_paths,
    jobs: int,
    use_cache: bool,
) -> int:
    from hermes_lint.cli import EXIT_CLEAN, EXIT_FINDINGS, UsageError
    from hermes_lint.fix import command

    if add_noqa and (fix or diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    keep = (lambda d: in_paths(d.path, wanted)) if wanted is not None else None
    if add_noqa:
        from hermes_lint.runner import run_project

        diagnostics = run_project(root, config, jobs=jobs, use_cache=use_cache)
        if keep is not None:
            diagnostics = [d for d in diagnostics if keep(d)]
        report = command.add_noqa(root, diagnostics)
        for note in report.skipped:
            command.echo_err(f"hermes-lint: {note}")
        command.echo_err(f"Added {report.added} noqa directive{'s' if report.added != 1 else ''}.")
        return EXIT_CLEAN
    report = command.fix_project(root, config, unsafe=unsafe, wanted=keep, jobs=jobs, use_cache=use_cache)
    for note in report.notes:
        command.echo_err(f"hermes-lint: note: {note}")
    if diff:
        sys.stdout.write(command.unified_diff(report))
        command.echo_err(f"Would fix {report.fixed} ({len(report.changed)} file{'s' if len(report.changed) != 1 else ''}).")
        return EXIT_FINDINGS if report.changed and not exit_zero else EXIT_CLEAN
    try:
        command.write_fixes(root, report)
    except (command.FixWriteError, OSError) as exc:
        raise UsageError(str(exc)) from None
    remaining = [d for d in report.remaining if keep is None or keep(d)]
    report.remaining = remaining
    from hermes_lint.report import FORMATTERS

    if output_format in ("json", "sarif"):
        fixes = command.fixes_on_disk(root, config, remaining)
        sys.stdout.write(FORMATTERS[output_format](remaining, fixes=fixes))
    else:
        sys.stdout.write(FORMATTERS[output_format](remaining))
    command.echo_err(command.summary(report))
    return EXIT_FINDINGS if remaining and not exit_zero else EXIT_CLEAN
