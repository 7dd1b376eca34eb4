"""``hermes-lint manifest``: write, check or diff the frozen tool manifest (DESIGN §5).

The ``main`` group of ``cli.py`` loads this module when the command is named (``_LazyGroup``).
Exit codes as everywhere: 0 fine, 1 findings (errors that block generation; a stale manifest
under ``--check``/``--diff``), 2 usage or internal error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, NamedTuple, Optional

import click

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.config import Config
    from hermes_lint.model import Diagnostic


@click.command("manifest")
@click.option("--root", type=click.Path(), help="Project root (default: nearest parent with toolsets.py or [tool.hermes-lint]).")
@click.option("--output", type=click.Path(), help="Manifest path (default: the `manifest` setting, tools/manifest.json, under the root).")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 with HRM501 when the manifest on disk is out of date.")
@click.option("--diff", "show_diff", is_flag=True, help="Write nothing; show how the manifest on disk differs from what would be generated, as a unified diff and as labelled changes to the tools (exit 1 when it differs).")
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors.")
def manifest(root, output, check_only, show_diff, debug) -> None:
    """Generate the tool manifest from the sources, without importing any tool module.

    Generation refuses to write while errors that would make the manifest wrong remain (a schema
    that cannot be evaluated or is invalid, a tool name registered twice, a toolset that cannot
    be resolved); it lists them as diagnostics and exits 1. The file is replaced atomically and
    only when its bytes change.
    """
    from hermes_lint.cli import EXIT_CLEAN, EXIT_FINDINGS, UsageError, resolve_root, run_guarded

    def action() -> int:
        from hermes_lint.config import load_config
        from hermes_lint.manifest import (
            diff,
            generate_for_root,
            is_fresh,
            read_current,
            stale_diagnostic,
            summary,
        )
        from hermes_lint.report import format_text

        project_root = resolve_root(root)
        config = load_config(project_root)
        target = Path(output) if output is not None else project_root / config.manifest
        shown = _display_path(target, project_root)
        if target.is_dir():
            raise UsageError(f"--output {shown}: is a directory")
        if not target.parent.is_dir():
            raise UsageError(f"{shown}: directory {_display_path(target.parent, project_root)} does not exist")

        if not (check_only or show_diff):
            outcome = write_manifest(project_root, config, target)
            if outcome.problems:
                sys.stdout.write(format_text(outcome.problems))
            click.echo(outcome.message, err=True)
            return EXIT_FINDINGS if outcome.problems else EXIT_CLEAN

        generated = generate_for_root(project_root, config)
        if not generated.ok:
            sys.stdout.write(format_text(generated.problems))
            click.echo(_refusal(shown, generated, "checked"), err=True)
            return EXIT_FINDINGS
        current = read_current(target)
        if is_fresh(current, generated):
            if check_only:
                click.echo(f"{shown} is up to date ({summary(generated.data)})", err=True)
            return EXIT_CLEAN
        if check_only:
            sys.stdout.write(format_text([stale_diagnostic(shown)]))
        if show_diff:
            sys.stdout.write(diff(current, generated.text, shown))
            sys.stdout.write(_labelled_changes(current, generated.data, shown))
        return EXIT_FINDINGS

    run_guarded(debug, action)


class WriteOutcome(NamedTuple):
    """What ``write_manifest`` did: ``message`` is one line for the user; ``problems`` are the
    errors that kept it from writing (empty when it wrote or the file was already fresh)."""

    written: bool
    message: str
    problems: List[Diagnostic]


def write_manifest(root: Path, config: Config, target: Optional[Path] = None) -> WriteOutcome:
    """Generate the manifest of the project at ``root`` and write it to ``target`` (default: the
    ``manifest`` setting under ``root``) when its bytes change: what ``hermes-lint manifest``
    does, and what ``new-tool`` calls after adding a tool."""
    from hermes_lint.atomic import write_atomic
    from hermes_lint.manifest import generate_for_root, import_lines, is_fresh, read_current, summary

    if target is None:
        target = root / config.manifest
    shown = _display_path(target, root)
    generated = generate_for_root(root, config)
    if not generated.ok:
        return WriteOutcome(False, _refusal(shown, generated, "written"), list(generated.problems))
    if is_fresh(read_current(target), generated):
        return WriteOutcome(False, f"{shown} is up to date ({summary(generated.data)})", [])
    write_atomic(target, generated.text)
    lines = [*import_lines(generated.data), f"wrote {shown} ({summary(generated.data)})"]
    return WriteOutcome(True, "\n".join(lines), [])


def _refusal(shown: str, generated, verb: str) -> str:
    count = len(generated.problems)
    return (
        f"hermes-lint: {shown} not {verb}: {count} error{'' if count == 1 else 's'} above would "
        "make it wrong; fix them first"
    )


def _labelled_changes(current, data: dict, shown: str) -> str:
    """What the change means to callers of the tools (breaking, compatible, unknown), when the
    file on disk is a manifest at all (``hermes_lint.manifest_diff``)."""
    import json

    from hermes_lint.manifest_diff import format_changes, label_changes

    if current is None:
        return ""
    try:
        changes = label_changes(json.loads(current.decode("utf-8")), data)
    except (ValueError, UnicodeDecodeError):  # not JSON, or not a manifest: the text diff says it all
        return ""
    return "\n" + format_changes(changes, f"{shown} (on disk)", "the generated manifest")


def _display_path(path: Path, root: Path) -> str:
    """Root-relative and '/'-separated when inside the root (as diagnostics are), else as is."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)
