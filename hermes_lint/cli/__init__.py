"""The ``hermes-lint`` command line (click). Exit codes: 0 clean, 1 findings, 2 usage or internal error."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

import click

from hermes_lint import __version__
from hermes_lint.config import KNOWN_PROVIDERS, ConfigError, find_root, load_config

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
    stream.write(text)
    stream.flush()


def _takes_unicode(stream) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name.startswith("utf")
    except LookupError:
        return False


def _project_rule_codes() -> FrozenSet[str]:
    """Codes of the rules that look at the whole project: a change anywhere (a tool deleted, a
    name removed from toolsets.py) can make them report in a file the change did not touch."""
    from hermes_lint.rules import all_rules

    return frozenset(rule.code for rule in all_rules() if rule.scope == "project")


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
        "new-tool": ("hermes_lint.cli.new_tool", "new_tool"),
        "new-plugin": ("hermes_lint.cli.new_plugin", "new_plugin"),
        "manifest": ("hermes_lint.cli.manifest", "manifest"),
        "diff": ("hermes_lint.cli.diff", "diff"),
        "init": ("hermes_lint.cli.init", "init"),
        "server": ("hermes_lint.cli.server", "server"),
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
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
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


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--root", type=click.Path(), help="Project root (default: the project of the PATHS, else the nearest parent with toolsets.py or [tool.hermes-lint]).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Settings from this TOML file (a pyproject.toml's [tool.hermes-lint], or those keys at the top of any other file) instead of the project's pyproject.toml.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True)
@click.option("--select", multiple=True, help="Codes or prefixes to enable (comma-separated).")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to enable on top of the selection (comma-separated).")
@click.option("--ignore", multiple=True, help="Codes or prefixes to disable (comma-separated).")
@click.option("--provider", "providers", multiple=True, metavar="NAME[,NAME...]", help=f"Provider targets for HRM6xx: {', '.join(KNOWN_PROVIDERS)}.")
@click.option("--changed", is_flag=True, help="PATHS are the files a change touches (the pre-commit hook passes them): report the findings located in them and every project rule's finding (HRM003, HRM4xx...) wherever it is; with no PATHS, only the latter. Paths outside the project are ignored.")
@click.option("--stdin-filename", metavar="PATH", help="With the path `-`: check the text on stdin as the project's file PATH (an editor's unsaved buffer); project rules see the buffer in its place.")
@click.option("--show-source", is_flag=True, help="Show each diagnostic's source line with a caret under its column, and its rule's documentation URL.")
@click.option("--statistics", is_flag=True, help="Print how often each code was reported instead of the diagnostics.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the report to this file instead of stdout.")
@click.option("-q", "--quiet", is_flag=True, help="Print the diagnostics only: no summary line, no progress.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--strict", is_flag=True, default=None, help="Exit 1 when no tool registration was found to check (also: `strict = true` in [tool.hermes-lint]).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Check files in at most N processes (default: as many as the amount of work and the idle cores make worthwhile).")
@click.option("--no-cache", is_flag=True, help="Check every file afresh; neither read nor write .hermes_lint_cache/.")
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors, and which registry contract was used.")
@click.option("--fix", "fix", is_flag=True, help="Apply safe fixes, then report what remains.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff: also apply fixes that may change behaviour.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff and write nothing (exit 1 when there is something to fix).")
@click.option("--add-noqa", is_flag=True, help="Append `# noqa: CODE` to each line with a finding (merged with an existing noqa comment).")
def check(paths, root, config_file, output_format, select, extend_select, ignore, providers, changed, stdin_filename,
          show_source, statistics, output_file, quiet, exit_zero, strict, jobs, no_cache, debug,
          fix, unsafe_fixes, show_diff, add_noqa) -> None:
    """Check the project's tool modules and toolsets.py.

    With PATHS, only diagnostics located in those files are reported; project rules still see
    the whole project. The summary line goes to stderr.
    """

    def action() -> int:
        from hermes_lint.check.runner import run_project

        stdin = _stdin_path(paths, stdin_filename)
        if stdin is not None:
            given = [str(stdin.parent)] if stdin.parent.is_dir() else []
        else:
            given = [path for path in paths if Path(path).exists()] if changed else paths
        project_root = resolve_root(root, given)
        config = load_config(
            project_root,
            config_file=Path(config_file) if config_file is not None else None,
            select=_split_codes(select),
            extend_select=_split_codes(extend_select),
            ignore=_split_codes(ignore),
            providers=_split_codes(providers),
            strict=strict,
        )
        if debug:
            _echo_contracts(project_root, config)
        if fix or show_diff or add_noqa:
            from hermes_lint.edit.fix.cli_action import run_fix_options

            if stdin is not None:
                raise UsageError("--fix, --diff and --add-noqa edit files on disk: they cannot read stdin")
            return run_fix_options(
                project_root, config, wanted=relative_paths(project_root, given, outside_ok=changed) if paths else None,
                fix=fix, unsafe=unsafe_fixes, diff=show_diff, add_noqa=add_noqa, exit_zero=exit_zero,
                in_paths=_in_paths, jobs=jobs, use_cache=not no_cache, quiet=quiet,
                report=lambda found: _report(found, project_root, config, output_format, output_file, {},
                                             show_source=show_source, statistics=statistics, quiet=True),
            )
        checked: List[int] = [0, 0]
        with _progress(project_root, config, quiet):
            if stdin is not None:
                relative = relative_paths(project_root, [str(stdin.parent)])[0]
                relative = stdin.name if relative == "." else f"{relative}/{stdin.name}"
                buffer = sys.stdin.buffer.read()
                diagnostics = _check_buffer(project_root, config, relative, buffer, jobs, not no_cache, checked)
                sources = {relative: buffer}
            else:
                wanted = relative_paths(project_root, given, outside_ok=changed) if paths else None
                diagnostics = run_project(
                    project_root, config, jobs=jobs, use_cache=not no_cache, checked=checked
                )
                if changed:
                    everywhere = _project_rule_codes()
                    diagnostics = [
                        d for d in diagnostics if d.code in everywhere or (wanted and _in_paths(d.path, wanted))
                    ]
                elif wanted is not None:
                    diagnostics = [d for d in diagnostics if _in_paths(d.path, wanted)]
                sources = {}
        line, nothing = _summary_line(diagnostics, project_root, config, checked)
        _report(diagnostics, project_root, config, output_format, output_file, sources,
                show_source=show_source, statistics=statistics, quiet=quiet and not (nothing and config.strict),
                line=line)
        if nothing and config.strict:
            return EXIT_FINDINGS
        return EXIT_FINDINGS if diagnostics and not exit_zero else EXIT_CLEAN

    run_guarded(debug, action)


def _echo_contracts(root: Path, config) -> None:
    from hermes_lint.check.engine import collect_sources
    from hermes_lint.project.registry_contract import contracts_in_use

    for described, count in sorted(contracts_in_use(collect_sources(root, config), config).items()):
        click.echo(f"hermes-lint: registry contract for {count} module(s): {described}", err=True)


def _stdin_path(paths: Sequence[str], stdin_filename: Optional[str]) -> Optional[Path]:
    """``check --stdin-filename PATH -``: PATH; None when stdin is not read."""
    if "-" not in paths:
        if stdin_filename is not None:
            raise UsageError("--stdin-filename names the text read from stdin: pass `-` as the path")
        return None
    if stdin_filename is None:
        raise UsageError("`-` reads the file from stdin: say which file it is with --stdin-filename PATH")
    if len(paths) > 1:
        raise UsageError("`-` (stdin) cannot be combined with other paths")
    return Path(stdin_filename).absolute()


def _summary_line(diagnostics, root: Path, config, checked: List[int]) -> Tuple[str, bool]:
    """(the summary line, whether nothing was found to check). A run that read no registration
    never says "All checks passed": it says what it did not find, and why."""
    from hermes_lint.project.registration_sites import nothing_found, project_sites, summary
    from hermes_lint.report import terminal

    read, unread = checked
    sites = project_sites(root, config)
    if read == 0 and not diagnostics:
        if unread:
            why = f"{terminal.plural(unread, 'register call')} cannot be read statically"
        else:
            why = nothing_found(sites, config)
        return f"Nothing checked: no tool registration found: {why}", True
    return f"{terminal.summary(diagnostics)} ({summary(sites, read, unread)})", read == 0


def _check_buffer(root: Path, config, relative: str, data: bytes, jobs: int, use_cache: bool,
                  checked: Optional[List[int]] = None):
    """The project's diagnostics located in ``relative``, with ``data`` as that file's text: the
    other modules from disk (and the cache), so project rules see the buffer in its place;
    ``checked`` gets the registrations of the buffer (``runner.run_project``)."""
    from hermes_lint.discovery import SKIPPED_FILE_NAMES
    from hermes_lint.check.engine import ProjectSources, SourceFile, check_module, finish
    from hermes_lint.check.runner import count_registrations, module_results
    from hermes_lint.evaluate.project import ProjectModules
    from hermes_lint.project.registration_sites import project_sites

    own = SourceFile(relative, data)
    path = root / relative
    is_toolsets = path == root / config.toolsets_file
    is_tool = (
        path.parent.resolve() == (root / config.tools_dir).resolve()
        and path.suffix == ".py"
        and path.name not in SKIPPED_FILE_NAMES
    )
    # A plugin module: the buffer in its place decides which of its functions are register functions.
    buffered = ProjectModules(str(root), {relative: data})
    is_plugin = relative in project_sites(root, config, buffered).plugin_modules()
    if not (is_toolsets or is_tool or is_plugin):
        return []  # not a file hermes-lint checks
    results, toolsets = module_results(root, config, jobs=jobs, use_cache=use_cache, project_rules_only=True)
    if is_toolsets:
        toolsets = own
    else:
        results = [result for result in results if result.facts.path != relative]
        results.append(check_module(own, config, buffered))
        if checked is not None:
            checked[:] = list(count_registrations(results[-1:]))
    diagnostics = finish(results, ProjectSources([], toolsets, root), config)
    return [d for d in diagnostics if d.path == relative]


def _progress(root: Path, config, quiet: bool):
    """A progress line on stderr for a run that takes long, on a terminal only."""
    import contextlib

    if quiet or not sys.stderr.isatty():
        return contextlib.nullcontext()
    from hermes_lint.discovery import candidate_tool_paths
    from hermes_lint.report.terminal import Progress

    return Progress(len(candidate_tool_paths(root / config.tools_dir)))


def _report(diagnostics, root: Path, config, output_format: str, output_file: Optional[str], sources,
            *, show_source: bool, statistics: bool, quiet: bool, line: Optional[str] = None) -> None:
    """Write the report (stdout or ``--output-file``) and the summary line (stderr)."""
    from hermes_lint.report import terminal
    from hermes_lint.regular_files import read_regular_file
    from hermes_lint.report.output import DOCS_URL, FORMATTERS, rule_url

    docs_url = config.docs_url or DOCS_URL
    colour = output_file is None and terminal.use_colour(sys.stdout)
    if statistics:
        from hermes_lint.rules import rule_by_code

        def summary_of(code: str) -> str:
            try:
                return rule_by_code(code).summary
            except KeyError:
                return ""

        text = terminal.statistics(diagnostics, summary_of)
    elif output_format == "text" and (show_source or colour):
        lines: dict = {}

        def source_lines(path: str):
            if path not in lines:
                data = sources.get(path)
                if data is None:
                    try:
                        data = read_regular_file(root / path)
                    except OSError:
                        data = None
                lines[path] = None if data is None else data.decode("utf-8", "replace").splitlines()
            return lines[path]

        text = terminal.format_text(
            diagnostics,
            colour=colour,
            source_lines=source_lines if show_source else None,
            url_of=(lambda code: rule_url(code, docs_url)) if show_source else None,
        )
    elif output_format in ("json", "sarif"):  # these carry each diagnostic's fix
        from hermes_lint.edit.fix.command import fixes_on_disk

        fixes = fixes_on_disk(root, config, diagnostics, sources)
        text = FORMATTERS[output_format](diagnostics, docs_url=docs_url, fixes=fixes)
    else:
        text = FORMATTERS[output_format](diagnostics, docs_url=docs_url)
    if output_file is not None:
        from hermes_lint.atomic import write_atomic

        try:
            write_atomic(Path(output_file), text.encode("utf-8"))
        except OSError as exc:
            raise UsageError(f"--output-file {output_file}: {exc.strerror or exc}") from None
    else:
        write_stdout(text, json_text=output_format in ("json", "sarif") and not statistics)
    if not quiet:
        line = line or terminal.summary(diagnostics)
        if output_file is not None:
            written = f"report written to {output_file}"
            line = f"{line[:-1]}; {written})" if line.endswith(")") else f"{line} ({written})"
        click.echo(line, err=True)


@main.command("rules")
def list_rules() -> None:
    """List every rule code with its one-line summary."""
    from hermes_lint.rules import all_rules

    for rule in all_rules():
        click.echo(f"{rule.code}  {rule.summary}")


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Print a rule's documentation page: what it finds, why, an example and its fix."""
    from hermes_lint.report.rule_docs import render_rule_page
    from hermes_lint.rules import rule_by_code

    try:
        rule = rule_by_code(code.upper())
    except KeyError:
        click.echo(f"hermes-lint: error: unknown rule code {code!r} (see `hermes-lint rules`)", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(render_rule_page(rule), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
