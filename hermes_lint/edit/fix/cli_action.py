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
    exit_zero: bool,
    in_paths,
    jobs: Optional[int],
    use_cache: bool,
    quiet: bool,
    report,
) -> int:
    """``report(diagnostics)`` writes the remaining diagnostics as ``check`` would (format,
    ``--output-file``...), without its summary line: the fix summary takes its place."""
    from hermes_lint.cli import EXIT_CLEAN, EXIT_FINDINGS, UsageError
    from hermes_lint.edit.fix import command

    if add_noqa and (fix or diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff")
    keep = (lambda d: in_paths(d.path, wanted)) if wanted is not None else None
    if add_noqa:
        from hermes_lint.check.runner import run_project

        diagnostics = run_project(root, config, jobs=jobs, use_cache=use_cache)
        if keep is not None:
            diagnostics = [d for d in diagnostics if keep(d)]
        added = command.add_noqa(root, diagnostics)
        for note in added.skipped:
            command.echo_err(f"hermes-lint: {note}")
        if not quiet:
            command.echo_err(f"Added {added.added} noqa directive{'s' if added.added != 1 else ''}.")
        return EXIT_CLEAN
    report_of_fixes = command.fix_project(root, config, unsafe=unsafe, wanted=keep, jobs=jobs, use_cache=use_cache)
    for note in report_of_fixes.notes:
        command.echo_err(f"hermes-lint: note: {note}")
    if diff:
        changed = report_of_fixes.changed
        sys.stdout.write(command.unified_diff(report_of_fixes))
        if not quiet:
            command.echo_err(f"Would fix {report_of_fixes.fixed} ({len(changed)} file{'s' if len(changed) != 1 else ''}).")
        return EXIT_FINDINGS if changed and not exit_zero else EXIT_CLEAN
    try:
        command.write_fixes(root, report_of_fixes)
    except (command.FixWriteError, OSError) as exc:
        raise UsageError(str(exc)) from None
    remaining = [d for d in report_of_fixes.remaining if keep is None or keep(d)]
    report_of_fixes.remaining = remaining
    report(remaining)
    if not quiet:
        command.echo_err(command.summary(report_of_fixes))
    return EXIT_FINDINGS if remaining and not exit_zero else EXIT_CLEAN
