"""The ``hermes-lint`` command line. Exit codes: 0 clean, 1 findings, 2 usage or internal error.

What every command shares, without click: the errors, the project root, writing the report, and
``main``, the entry point. ``main`` runs a ``check`` or ``manifest`` command line made of flags
and paths only, as the pre-commit hooks' are (``check --changed FILES``, ``manifest --check``),
without importing click (``cli.hook_start``: importing click costs about a third of a warm
``manifest --check``); every other command line, and every other use of ``main`` as a click
group (``CliRunner().invoke(main, ...)``), goes to the click group of ``cli.commands``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hermes_lint.config import ConfigError
from hermes_lint.project_config import find_root

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A problem the user must fix; printed as one line, exit 2."""


def _split_codes(values: Sequence[str]) -> Optional[List[str]]:
    """``--x A --x B,C`` -> ["A", "B", "C"]; None when the option was not given."""
    if not values:
        return None
    return [code.strip() for value in values for code in value.split(",") if code.strip()]


def resolve_root(root: Optional[str], paths: Sequence[str] = ()) -> Path:
    """``--root``; else the project of the PATHS given (as ruff and flake8 find the
    configuration from the file); else the project around the current directory."""
    if root is not None:
        path = Path(root)
        if not path.is_dir():
            raise UsageError(f"--root {root}: not a directory")
        return path.resolve()
    roots: Dict[Path, str] = {}
    for given in paths:
        start = Path(given)
        if not start.exists():
            raise UsageError(f"{given}: no such file or directory")
        found = find_root(start if start.is_dir() else start.parent)
        if found is not None:
            roots.setdefault(found, given)
    if len(roots) > 1:
        (first, first_path), (second, second_path) = list(roots.items())[:2]
        raise UsageError(
            f"{first_path} and {second_path} belong to different projects ({first} and {second}): "
            "check each project on its own"
        )
    if roots:
        return next(iter(roots))
    found = find_root(Path.cwd())
    if found is None:
        raise UsageError(
            "no project found: no toolsets.py, [tool.hermes-lint] table, `hermes_agent.plugins` entry point "
            "or plugin.yaml in this directory or its parents; pass --root DIR (or run `hermes-lint init` to "
            "start one)"
        )
    return found


def relative_paths(root: Path, paths: Sequence[str], outside_ok: bool = False) -> Tuple[str, ...]:
    result = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            if outside_ok:
                continue
            raise UsageError(f"{given}: no such file or directory")
        try:
            result.append(path.resolve().relative_to(root).as_posix())
        except ValueError:
            if not outside_ok:
                raise UsageError(f"{given}: is outside the project root {root}") from None
    return tuple(result)


def _in_paths(diagnostic_path: str, wanted: Tuple[str, ...]) -> bool:
    return any(
        diagnostic_path == path or diagnostic_path.startswith(path.rstrip("/") + "/") or path == "."
        for path in wanted
    )


def write_stdout(text: str, *, json_text: bool = False) -> None:
    """Write the report. JSON goes out as ASCII (``\\uXXXX`` escapes) where the stream cannot
    take UTF-8: ``backslashreplace`` would make invalid JSON of it."""
    stream = sys.stdout
    if stream is None:  # started with stdout closed (`>&-`)
        raise UsageError("standard output is closed: nowhere to write the report")
    if json_text and not _takes_unicode(stream):
        import json

        text = json.dumps(json.loads(text), indent=2, ensure_ascii=True) + "\n"
    global stdout_closed
    if stdout_closed:
        return
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): what it wanted, it got. Quietly, as ruff and git do;
        # the command still ends with its own exit status.
        stdout_closed = True
        _silence_stdout()


stdout_closed = False  # set once a write found the pipe closed: nothing more is written


def write_output(text: str, output_file: Optional[str], *, json_text: bool = False) -> None:
    """The report to ``output_file`` (``-o``), else to stdout. A regular file (or a new one) is
    replaced atomically; a device or FIFO (``/dev/null``, ``/dev/stdout``, a named pipe) is
    written into, as a shell redirection would."""
    if output_file is None:
        write_stdout(text, json_text=json_text)
        return
    import os
    import stat

    from hermes_lint.atomic import write_atomic

    data = text.encode("utf-8")
    try:
        try:
            mode = os.stat(output_file).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and stat.S_ISDIR(mode):
            raise UsageError(f"--output-file {output_file}: is a directory")
        if mode is None or stat.S_ISREG(mode):
            write_atomic(Path(output_file), data)
        else:
            with open(output_file, "ab") as stream:  # 'a': never truncates what it cannot replace
                stream.write(data)
    except BrokenPipeError:
        return  # a FIFO whose reader went away: as for stdout
    except OSError as exc:
        raise UsageError(f"--output-file {output_file}: {exc.strerror or exc}") from None


def _takes_unicode(stream) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name.startswith("utf")
    except LookupError:
        return False


def run_guarded(debug: bool, action) -> None:
    """Run ``action``; turn expected and unexpected errors into one line and exit 2."""
    try:
        code = action()
    except (UsageError, ConfigError) as exc:
        echo_err(f"hermes-lint: error: {exc}")
        sys.exit(EXIT_ERROR)
    except BrokenPipeError:  # the reader went away (`| head`): what it wanted, it got
        _silence_stdout()
        sys.exit(EXIT_CLEAN)
    except Exception as exc:  # an internal error must still be one clear line
        if debug:
            import traceback

            traceback.print_exc()
        echo_err(f"hermes-lint: internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)")
        sys.exit(EXIT_ERROR)
    sys.exit(code)


def _silence_stdout() -> None:
    # Python flushes stdout once more at exit: into the closed pipe, another error. Pointed at
    # the null device instead (as the Python documentation advises for SIGPIPE).
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


def echo_err(text: str) -> None:
    """One line (or more) on stderr, flushed; nothing when stderr is closed."""
    stream = sys.stderr
    if stream is None:
        return
    stream.write(text + "\n")
    stream.flush()


def configure_streams() -> None:
    """Before any command runs. A terminal or pipe that cannot take UTF-8 (PYTHONIOENCODING=ascii,
    LC_ALL=POSIX) still gets every line, non-ASCII characters escaped, rather than a
    UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


class _Entry:
    """``hermes-lint`` (the console script calls ``main()``) and ``python -m hermes_lint``.

    A command line ``cli.hook_start`` takes runs without click; any other goes to the click group
    (``cli.commands.main``), imported then. Everything else asked of ``main`` (``main.main(...)``,
    ``main.name``: what ``click.testing.CliRunner`` uses) is the group's."""

    def __call__(self, args: Optional[Sequence[str]] = None, prog_name: Optional[str] = None,
                 complete_var: Optional[str] = None, standalone_mode: bool = True, **extra: Any) -> Any:
        if standalone_mode and complete_var is None and not extra:
            from hermes_lint.cli import hook_start

            hook_start.run_if_taken(sys.argv[1:] if args is None else list(args))
        return self._group().main(args, prog_name, complete_var, standalone_mode, **extra)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._group(), name)

    @staticmethod
    def _group() -> Any:
        from hermes_lint.cli.commands import main as group

        return group


main = _Entry()
