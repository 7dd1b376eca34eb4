"""The ``hermes-lint`` command line (click). Exit codes: 0 clean, 1 findings, 2 usage or internal error."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import click

from hermes_lint import __version__
from hermes_lint.config import KNOWN_PROVIDERS, Config, ConfigError, find_root, load_config

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A problem the user must fix; printed as one line, exit 2."""


def _split_codes(values: Sequence[str]) -> Optional[List[str]]:
    if not values:
        return None
    return [code.strip() for value in values for code in value.split(",") if code.strip()]


def resolve_root(root: Optional[str]) -> Path:
    if root is not None:
        path = Path(root)
        if not path.is_dir():
            raise UsageError(f"--root {root}: not a directory")
        return path.resolve()
    found = find_root(Path.cwd())
    if found is None:
        raise UsageError(
            "no project found: no toolsets.py or [tool.hermes-lint] in this directory or its "
            "parents; pass --root DIR"
        )
    return found


def relative_paths(root: Path, paths: Sequence[str]) -> Tuple[str, ...]:
    result = []
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise UsageError(f"{given}: no such file or directory")
        try:
            result.append(path.resolve().relative_to(root).as_posix())
        except ValueError:
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
    stream.write(text)
    stream.flush()


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
        click.echo(f"hermes-lint: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except BrokenPipeError:  # the reader went away (`| head`): what it wanted, it got
        _silence_stdout()
        click.echo("hermes-lint: error: standard output closed before the report was written", err=True)
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # an internal error must still be one clear line
        if debug:
            import traceback

            traceback.print_exc()
        click.echo(
            f"hermes-lint: internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)",
            err=True,
        )
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


class _LazyGroup(click.Group):
    """A group whose other subcommands are imported only when named (or listed by --help): each
    lives in its own module with its own dependencies (libcst...), which ``check`` never needs.
    The pattern of click's documentation, "Lazily Loading Subcommands"."""

    lazy_commands = {
        "new-tool": ("hermes_lint.scaffold_cli", "new_tool"),
        "manifest": ("hermes_lint.manifest_cli", "manifest"),
        "diff": ("hermes_lint.diff_cli", "diff"),
    }

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        """Click's, except that a usage error is the one line every other error is (click's own
        report is four: usage, a hint, a blank line, the error)."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare `hermes-lint`: the help is the message
                exc.show()
                sys.exit(exc.exit_code)
            hint = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
            click.echo(f"hermes-lint: error: {exc.format_message()}{hint}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        if name in self.lazy_commands:
            import importlib

            module_name, attribute = self.lazy_commands[name]
            return getattr(importlib.import_module(module_name), attribute)
        return super().get_command(ctx, name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hermes-lint")
def main() -> None:
    """Static checks for Hermes-style agent tool registrations."""
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that cannot take UTF-8 (PYTHONIOENCODING=ascii, LC_ALL=POSIX) still
        # gets every line, non-ASCII characters escaped, rather than a UnicodeEncodeError.
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--root", type=click.Path(), help="Project root (default: nearest parent with toolsets.py or [tool.hermes-lint]).")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True)
@click.option("--select", multiple=True, help="Codes or prefixes to enable (comma-separated).")
@click.option("--ignore", multiple=True, help="Codes or prefixes to disable (comma-separated).")
@click.option("--provider", "providers", multiple=True, type=click.Choice(KNOWN_PROVIDERS), help="Provider targets for HRM6xx.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes for the per-file phase (default: number of cores).")
@click.option("--no-cache", is_flag=True, help="Check every file afresh; neither read nor write .hermes_lint_cache/.")
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors.")
def check(paths, root, output_format, select, ignore, providers, exit_zero, jobs, no_cache, debug) -> None:
    """Check the project's tool modules and toolsets.py.

    With PATHS, only diagnostics located in those files are reported; project rules still see
    the whole project.
    """

    def action() -> int:
        from hermes_lint.report import FORMATTERS
        from hermes_lint.runner import default_jobs, run_project

        project_root = resolve_root(root)
        config = load_config(
            project_root,
            select=_split_codes(select),
            ignore=_split_codes(ignore),
            providers=list(providers) or None,
        )
        wanted = relative_paths(project_root, paths) if paths else None
        diagnostics = run_project(
            project_root, config, jobs=jobs or default_jobs(), use_cache=not no_cache
        )
        if wanted is not None:
            diagnostics = [d for d in diagnostics if _in_paths(d.path, wanted)]
        write_stdout(FORMATTERS[output_format](diagnostics), json_text=output_format in ("json", "sarif"))
        return EXIT_FINDINGS if diagnostics and not exit_zero else EXIT_CLEAN

    run_guarded(debug, action)


@main.command("rules")
def list_rules() -> None:
    """List every rule code with its one-line summary."""
    from hermes_lint.rules import all_rules

    for rule in all_rules():
        click.echo(f"{rule.code}  {rule.summary}")


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Print a rule's documentation with its examples."""
    from hermes_lint.rules import rule_by_code

    try:
        rule = rule_by_code(code.upper())
    except KeyError:
        click.echo(f"hermes-lint: error: unknown rule code {code!r} (see `hermes-lint rules`)", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(rule.doc(), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
