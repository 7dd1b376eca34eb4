"""``hermes-lint check --fix / --fix-only / --diff / --add-noqa``: the command line's side
(``cli.check`` hands over to ``run_fix_options``). Exit codes as ``check``'s: 0 clean, 1 findings
(or, under ``--diff``, something to fix; with ``--exit-non-zero-on-fix``, something fixed), 2
usage or internal error."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from hermes_lint.config import Config


def run_fix_options(
    root: Path,
    config: Config,
    *,
    wanted: Optional[Tuple[str, ...]],
    reported: Callable,
    fix: bool,
    unsafe: bool,
    diff: bool,
    add_noqa: bool,
    exit_zero: bool,
    fix_only: bool = False,
    exit_non_zero_on_fix: bool = False,
    show_fixes: bool = False,
    in_paths,
    jobs: Optional[int],
    use_cache: bool,
    quiet: bool,
    report,
) -> int:
    """``report(diagnostics)`` writes the remaining diagnostics as ``check`` would (format,
    ``--output-file``...), without its summary line: the fix summary takes its place.
    ``reported(diagnostic)``: False for those ``exclude`` leaves out (never fixed either)."""
    from hermes_lint.cli import EXIT_CLEAN, EXIT_FINDINGS, UsageError, write_stdout
    from hermes_lint.autofix import command

    def keep(d) -> bool:
        return reported(d) and (wanted is None or in_paths(d.path, wanted))

    if add_noqa:
        return _add_noqa(root, config, keep, jobs=jobs, use_cache=use_cache, quiet=quiet)
    report_of_fixes = command.fix_project(root, config, unsafe=unsafe, wanted=keep, jobs=jobs, use_cache=use_cache)
    for note in report_of_fixes.notes:
        command.echo_err(f"hermes-lint: note: {note}")
    if diff:
        changed = report_of_fixes.changed
        write_stdout(command.unified_diff(report_of_fixes))
        if not quiet:
            command.echo_err(f"Would fix {report_of_fixes.fixed} ({len(changed)} file{'s' if len(changed) != 1 else ''}).")
        return EXIT_FINDINGS if changed and not exit_zero else EXIT_CLEAN
    try:
        command.write_fixes(root, report_of_fixes)
    except (command.FixWriteError, OSError) as exc:
        raise UsageError(str(exc)) from None
    remaining = [d for d in report_of_fixes.remaining if keep(d)]
    report_of_fixes.remaining = remaining
    if not fix_only:
        report(remaining)
    if show_fixes and not quiet:
        command.echo_err(_fixed_listing(report_of_fixes.fixed_by_path))
    if not quiet:
        command.echo_err(command.summary(report_of_fixes) if not fix_only else f"Fixed {report_of_fixes.fixed}.")
    if exit_non_zero_on_fix and report_of_fixes.fixed:
        return EXIT_FINDINGS
    if fix_only:
        return EXIT_CLEAN
    return EXIT_FINDINGS if remaining and not exit_zero else EXIT_CLEAN


def _fixed_listing(fixed_by_path: Dict[str, Dict[str, int]]) -> str:
    """ruff's ``--show-fixes``: each file, then ``N × CODE (summary)`` for what was fixed in it."""
    from hermes_lint.rules import rule_by_code

    if not fixed_by_path:
        return "No fixes applied."
    lines = []
    for path, codes in sorted(fixed_by_path.items()):
        lines.append(f"{path}:")
        for code, count in sorted(codes.items()):
            try:
                summary = rule_by_code(code).summary
            except KeyError:
                summary = ""
            lines.append(f"    {count} × {code} ({summary})" if summary else f"    {count} × {code}")
    return "\n".join(lines)


def _add_noqa(root: Path, config: Config, keep, *, jobs, use_cache: bool, quiet: bool) -> int:
    """A ``# noqa: CODE`` on each line with a finding, the unused codes (HRM900) removed, then a
    check: whatever no comment can silence is listed with what to do, and the exit status is
    what ``check`` will say next."""
    from hermes_lint.project_check import run_project
    from hermes_lint.cli import EXIT_CLEAN, EXIT_FINDINGS
    from hermes_lint.autofix import command

    diagnostics = [d for d in run_project(root, config, jobs=jobs, use_cache=use_cache) if keep(d)]
    added = command.add_noqa(root, diagnostics, config)
    for note in added.skipped:
        command.echo_err(f"hermes-lint: {note}")
    remaining = [d for d in run_project(root, config, jobs=jobs, use_cache=use_cache) if keep(d)]
    if not quiet:
        removed = f", removed {added.removed} unused" if added.removed else ""
        command.echo_err(f"Added {added.added} noqa directive{'s' if added.added != 1 else ''}{removed}.")
        if remaining:
            command.echo_err(
                f"{len(remaining)} finding{'s' if len(remaining) != 1 else ''} cannot be silenced by a comment on "
                "its line: see `hermes-lint check` (fix it, or ignore the code for the file with per-file-ignores "
                "or a `# hermes-lint: noqa: CODE` line)."
            )
    return EXIT_FINDINGS if remaining else EXIT_CLEAN
