"""``hermes-lint manifest``'s run, without click: write, check or diff the frozen tool manifest
(``hermes_lint.manifest``). The options are ``cli.options.MANIFEST``; the click command is
``cli.manifest``, which the group (``cli.commands``) loads when the command is named.

Exit codes as everywhere: 0 fine, 1 findings (errors that block generation; a stale manifest
under ``--check``/``--diff``), 2 usage or internal error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, List, NamedTuple, Optional

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.config import Config
    from hermes_lint.model import Diagnostic


def run_manifest(root, output, check_only, show_diff, output_format, debug) -> None:
    """``hermes-lint manifest`` with its parameters as click passes them (``cli.options.MANIFEST``);
    exits with the run's status."""
    from hermes_lint.cli import (
        EXIT_CLEAN, EXIT_FINDINGS, UsageError, echo_err, resolve_root, run_guarded, write_stdout,
    )

    def action() -> int:
        from hermes_lint.project_config import load_config

        project_root = resolve_root(root)
        config = load_config(project_root)
        if show_diff and output_format not in ("text", "concise", "full"):
            raise UsageError(f"--diff prints a unified diff: it has no {output_format} form")

        def format_text(diagnostics) -> str:
            from hermes_lint.cli.check_report import render

            return render(diagnostics, project_root, config, output_format, {}, colour=False,
                          show_source=output_format == "full")[0]

        if output is not None:  # the command line may name any path the user can write
            target = Path(output)
        else:  # the repository's configuration may not: it is data, like the sources
            target = configured_target(project_root, config)
        shown = _display_path(target, project_root)
        if target.is_dir():
            raise UsageError(f"--output {shown}: is a directory")
        if not target.parent.is_dir():
            raise UsageError(f"{shown}: directory {_display_path(target.parent, project_root)} does not exist")
        if _exists_not_regular(target):
            raise UsageError(f"{shown}: is not a regular file (a device, FIFO or socket); it is never replaced")
        if not (check_only or show_diff) and target.is_symlink():
            raise UsageError(f"{shown}: is a symbolic link; it is never replaced (name the file it points to)")

        if check_only:  # unchanged since the last run found it fresh: nothing to generate
            from hermes_lint.manifest.fresh_cache import known_fresh

            known = known_fresh(project_root, config, target)
            if known is not None:
                if output_format in ("json", "sarif"):
                    write_stdout(format_text([]))  # an empty list, not no document at all
                echo_err(f"{shown} is up to date ({known})")
                return EXIT_CLEAN
        from hermes_lint.manifest.generate import (
            diff,
            generate_for_root,
            is_fresh,
            read_current,
            stale_diagnostic,
            summary,
        )

        if not (check_only or show_diff):
            try:
                outcome = write_manifest(project_root, config, target)
            except OSError as exc:  # read-only directory, disk full: nothing was replaced
                raise UsageError(f"{shown}: cannot be written: {exc.strerror or exc}") from None
            if outcome.problems:
                write_stdout(format_text(outcome.problems))
            echo_err(outcome.message)
            return EXIT_FINDINGS if outcome.problems else EXIT_CLEAN

        from hermes_lint.manifest.fresh_cache import pin, remember_fresh

        pinned = pin(project_root, config)
        generated = generate_for_root(project_root, config)
        if not generated.ok:
            write_stdout(format_text(generated.problems))
            echo_err(_refusal(shown, generated, "checked"))
            return EXIT_FINDINGS
        data, text = generated.produced()
        try:
            current = read_current(target)
        except OSError as exc:
            raise UsageError(f"{shown}: cannot be read: {exc.strerror or exc}") from None
        if is_fresh(current, generated):
            if check_only:
                assert current is not None  # fresh: the bytes on disk are the generated ones
                remember_fresh(project_root, config, target, summary(data), generated.inputs, pinned, current)
                if output_format in ("json", "sarif"):
                    write_stdout(format_text([]))  # an empty list, not no document at all
                echo_err(f"{shown} is up to date ({summary(data)})")
            return EXIT_CLEAN
        if check_only:
            write_stdout(format_text([stale_diagnostic(shown)]))
        if show_diff:
            write_stdout(diff(current, text, shown))
            write_stdout(_labelled_changes(current, data, shown))
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
    from hermes_lint.manifest.fresh_cache import pin, remember_fresh
    from hermes_lint.manifest.generate import generate_for_root, import_lines, is_fresh, read_current, summary

    if target is None:
        target = configured_target(root, config)
    shown = _display_path(target, root)
    pinned = pin(root, config)
    generated = generate_for_root(root, config)
    if not generated.ok:
        return WriteOutcome(False, _refusal(shown, generated, "written"), list(generated.problems))
    data, text = generated.produced()
    if is_fresh(read_current(target), generated):
        remember_fresh(root, config, target, summary(data), generated.inputs, pinned, text)
        return WriteOutcome(False, f"{shown} is up to date ({summary(data)})", [])
    write_atomic(target, text)
    # What the commit hooks (``manifest --check``, ``check``'s HRM501) then find without generating.
    remember_fresh(root, config, target, summary(data), generated.inputs, pinned, text)
    skipped = [f"{d.path}: left out: {d.code} {d.message} (runtime discovery skips it too)" for d in generated.skipped]
    lines = [*skipped, *import_lines(data), f"wrote {shown} ({summary(data)})"]
    return WriteOutcome(True, "\n".join(lines), [])


def configured_target(root: Path, config: Config) -> Path:
    """The ``manifest`` setting's path under ``root``; ``ConfigError`` when its directory leads
    outside the root through a symbolic link (the setting itself cannot say `..`: config.py)."""
    from hermes_lint.config import ConfigError

    target = root / config.manifest
    if not _inside(target.parent, root):
        raise ConfigError(
            f"[tool.hermes-lint] manifest = {config.manifest!r}: its directory is outside the project "
            f"root {root} (through a symbolic link); name the file with --output to write there"
        )
    return target


def _refusal(shown: str, generated, verb: str) -> str:
    count = len(generated.problems)
    return (
        f"hermes-lint: {shown} not {verb}: {count} error{'' if count == 1 else 's'} above would "
        "make it wrong; fix them first"
    )


def _labelled_changes(current, data: dict, shown: str) -> str:
    """What the change means to callers of the tools (breaking, compatible, unknown), when the
    file on disk is a manifest at all (``hermes_lint.manifest.diff``)."""
    import json

    from hermes_lint.manifest.diff import format_changes, label_changes

    if current is None:
        return ""
    try:
        changes = label_changes(json.loads(current.decode("utf-8")), data)
    except (ValueError, UnicodeDecodeError, RecursionError):  # not JSON, not a manifest, nested too deeply: the text diff says it all
        return ""
    return "\n" + format_changes(changes, f"{shown} (on disk)", "the generated manifest")


def _inside(path: Path, root: Path) -> bool:
    """``path``, its symbolic links followed, is ``root`` or below it."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _exists_not_regular(path: Path) -> bool:
    import os
    import stat

    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # absent (or a dangling link): nothing there to replace
        return False


def _display_path(path: Path, root: Path) -> str:
    """Root-relative and '/'-separated when inside the root (as diagnostics are), else as is."""
    try:
        return (path.parent.resolve() / path.name).relative_to(root).as_posix()  # the link itself, if one
    except ValueError:
        return str(path)
