"""The ``hermes-lint`` command line (click). Exit codes: 0 clean, 1 findings, 2 usage or internal error."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

import click

from hermes_lint import __version__
from hermes_lint.config import KNOWN_PROVIDERS, ConfigError
from hermes_lint.project_config import find_root, load_config

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
        click.echo(f"hermes-lint: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except BrokenPipeError:  # the reader went away (`| head`): what it wanted, it got
        _silence_stdout()
        sys.exit(EXIT_CLEAN)
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
        "new-tool": ("hermes_lint.cli.new_tool", "new_tool"),
        "new-plugin": ("hermes_lint.cli.new_plugin", "new_plugin"),
        "manifest": ("hermes_lint.cli.manifest", "manifest"),
        "diff": ("hermes_lint.cli.diff", "diff"),
        "init": ("hermes_lint.cli.init", "init"),
        "server": ("hermes_lint.cli.server", "server"),
        "lsp": ("hermes_lint.cli.lsp", "lsp"),
    }

    def main(
        self,
        args: Optional[Sequence[str]] = None,
        prog_name: Optional[str] = None,
        complete_var: Optional[str] = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Click's, except that a usage error is the one line every other error is (click's own
        report is four: usage, a hint, a blank line, the error)."""
        from hermes_lint.check.cache_identity import pinned_on_first_use

        with pinned_on_first_use():
            if not standalone_mode:
                return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            return self._main_standalone(args, prog_name, complete_var, **extra)

    def _main_standalone(self, args, prog_name, complete_var, **extra: Any) -> Any:
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
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


@main.command("rules")
def list_rules() -> None:
    """List every rule code with its one-line summary."""
    from hermes_lint.rules import all_rules

    write_stdout("".join(f"{rule.code}  {rule.summary}\n" for rule in all_rules()))


def _explain(code: Optional[str], show_all: bool, output_format: str) -> int:
    from hermes_lint.report.rule_docs import render_rule_page
    from hermes_lint.rules import all_rules, rule_by_code

    if show_all == (code is not None):
        raise UsageError("name one rule code, or pass --all for every rule")
    if code is not None:
        try:
            rules = [rule_by_code(code.upper())]
        except KeyError:
            raise UsageError(f"unknown rule code {code!r} (see `hermes-lint rules`)") from None
    else:
        rules = list(all_rules())
    if output_format == "json":
        import json

        from hermes_lint.report.output import rule_url

        entries = [
            {
                "code": rule.code,
                "summary": rule.summary,
                "fix": rule.fix_applicability,  # "safe", "unsafe" or null
                "explanation": render_rule_page(rule),
                "url": rule_url(rule.code),
            }
            for rule in rules
        ]
        write_stdout(json.dumps(entries if show_all else entries[0], indent=2, ensure_ascii=False) + "\n", json_text=True)
    else:
        write_stdout("\n".join(render_rule_page(rule) for rule in rules))
    return EXIT_CLEAN


def _explain_command(name: str, help_text: str) -> click.Command:
    @main.command(name, help=help_text)
    @click.argument("code", required=False)
    @click.option("--all", "show_all", is_flag=True, help="Every rule's page, one after the other (in JSON: an array).")
    @click.option("--output-format", "--format", "output_format", type=click.Choice(["text", "json"]), default="text",
                  show_default=True, help="json: {code, summary, fix, explanation, url}.")
    def command(code: Optional[str], show_all: bool, output_format: str) -> None:
        run_guarded(False, lambda: _explain(code, show_all, output_format))

    return command


explain = _explain_command(
    "explain", "Print a rule's documentation page: what it finds, why, an example and its fix."
)
rule = _explain_command("rule", "Print a rule's documentation page (ruff's name for `explain`).")

from hermes_lint.cli.check import check  # noqa: E402  (the command module needs the helpers above)

main.add_command(check)

if __name__ == "__main__":  # pragma: no cover
    main()
