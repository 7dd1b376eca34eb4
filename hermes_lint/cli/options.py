"""The options of ``check`` and ``manifest``, defined once, without importing click.

The click commands are built from these tables (``cli.check``, ``cli.manifest``: ``decorate``),
and the start of the two commands the pre-commit hooks run (``cli.hook_start``) reads the same
tables for which flags it may take and every other parameter's default, so that the two cannot
drift apart. ``tests/test_hook_start.py`` asserts that both parse the same command lines alike.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

from hermes_lint.config import KNOWN_PROVIDERS

TEXT_FORMATS = ("text", "concise", "full")
FORMATS = (*TEXT_FORMATS, "json", "sarif", "github")
STATISTICS_FORMATS = (*TEXT_FORMATS, "json")


class Option(NamedTuple):
    """One ``click.option``: its flags (``"--on/--off"`` for a pair), the parameter's name, and
    the keywords click takes, with the type as data: ``choices`` (``click.Choice``), ``path``
    (``click.Path(**path)``), ``minimum`` (``click.IntRange(min=minimum)``)."""

    flags: Tuple[str, ...]
    name: str
    help: str
    default: Any = None
    is_flag: bool = False
    multiple: bool = False
    choices: Optional[Tuple[str, ...]] = None
    path: Optional[Dict[str, bool]] = None
    minimum: Optional[int] = None
    metavar: Optional[str] = None
    show_default: bool = False

    def value_when_absent(self) -> Any:
        """What click passes for the option when the command line does not give it."""
        if self.multiple and self.default is None:
            return ()
        return self.default


class Command(NamedTuple):
    """A command's options, and its one positional argument (``nargs=-1`` of ``click.Path``), if any."""

    name: str
    options: Tuple[Option, ...]
    paths_argument: Optional[str] = None

    def flag_values(self) -> Dict[str, Tuple[str, Any]]:
        """Each flag that takes no value -> (the parameter it sets, the value it sets)."""
        values: Dict[str, Tuple[str, Any]] = {}
        for option in self.options:
            if not option.is_flag:
                continue
            for flag in option.flags:
                on, _, off = flag.partition("/")
                values[on] = (option.name, True)
                if off:
                    values[off] = (option.name, False)
        return values

    def defaults(self) -> Dict[str, Any]:
        """Every parameter as click passes it when the command line gives none."""
        values = {option.name: option.value_when_absent() for option in self.options}
        if self.paths_argument is not None:
            values[self.paths_argument] = ()
        return values


CHECK = Command("check", paths_argument="paths", options=(
    Option(("--root",), "root", path={}, help="Project root (default: the project of the PATHS, else the nearest parent with toolsets.py or [tool.hermes-lint])."),
    Option(("--config",), "config_file", path={"dir_okay": False}, help="Settings from this TOML file (a pyproject.toml's [tool.hermes-lint], or those keys at the top of any other file) instead of the project's pyproject.toml."),
    Option(("--output-format", "--format"), "output_format", choices=FORMATS, default="text", show_default=True,
           help="text (= concise): one line per diagnostic; full: with its source line and the rule's page; json; sarif; github (workflow annotations)."),
    Option(("--select",), "select", multiple=True, help="Codes or prefixes to enable (comma-separated)."),
    Option(("--extend-select",), "extend_select", multiple=True, help="Codes or prefixes to enable on top of the selection (comma-separated)."),
    Option(("--ignore",), "ignore", multiple=True, help="Codes or prefixes to disable (comma-separated)."),
    Option(("--exclude",), "exclude", multiple=True, metavar="GLOB", help="Files and directories whose diagnostics are not reported (replaces the `exclude` setting; comma-separated)."),
    Option(("--extend-exclude",), "extend_exclude", multiple=True, metavar="GLOB", help="Patterns to exclude on top of the `exclude` setting (comma-separated)."),
    Option(("--force-exclude/--no-force-exclude",), "force_exclude", is_flag=True, help="Exclude files named as PATHS too (what pre-commit passes); default: the `force-exclude` setting, else off."),
    Option(("--provider",), "providers", multiple=True, metavar="NAME[,NAME...]", help=f"Provider targets for HRM6xx: {', '.join(KNOWN_PROVIDERS)}."),
    Option(("--changed",), "changed", is_flag=True, default=False, help="PATHS are the files a change touches (the pre-commit hook passes them): report the findings located in them and every project rule's finding (HRM003, HRM4xx...) wherever it is; with no PATHS, only the latter. Paths outside the project are ignored."),
    Option(("--stdin-filename",), "stdin_filename", metavar="PATH", help="Check the text on stdin as the project's file PATH (an editor's unsaved buffer); project rules see the buffer in its place. `-` as the path is optional."),
    Option(("--show-source",), "show_source", is_flag=True, default=False, help="Show each diagnostic's source line with a caret under its column, and its rule's page (--output-format full)."),
    Option(("--show-fixes",), "show_fixes", is_flag=True, default=False, help="With --fix: list what was fixed, per file and code; otherwise: under each fixable diagnostic, the fix it would get."),
    Option(("--statistics",), "statistics", is_flag=True, default=False, help="Print how often each code was reported, and how many are fixable, instead of the diagnostics (text or json)."),
    Option(("-o", "--output-file"), "output_file", path={"dir_okay": False}, help="Write the report to this file (replaced atomically; a device or FIFO is written into) instead of stdout."),
    Option(("-q", "--quiet"), "quiet", is_flag=True, default=False, help="Print the diagnostics only: no summary line, no progress."),
    Option(("--exit-zero",), "exit_zero", is_flag=True, default=False, help="Exit 0 even when there are findings."),
    Option(("--strict",), "strict", is_flag=True, help="Exit 1 when no tool registration was found to check (also: `strict = true` in [tool.hermes-lint])."),
    Option(("-j", "--jobs"), "jobs", minimum=1, help="Check files in at most N processes (default: as many as the amount of work and the idle cores make worthwhile)."),
    Option(("--no-cache",), "no_cache", is_flag=True, default=False, help="Check every file afresh; neither read nor write .hermes_lint_cache/."),
    Option(("--debug",), "debug", is_flag=True, default=False, help="Print tracebacks of internal errors, and which registry contract was used."),
    Option(("--fix",), "fix", is_flag=True, default=False, help="Apply safe fixes, then report what remains."),
    Option(("--unsafe-fixes",), "unsafe_fixes", is_flag=True, default=False, help="With --fix or --diff: also apply fixes that may change behaviour; otherwise count them as fixable."),
    Option(("--fix-only",), "fix_only", is_flag=True, default=False, help="Apply safe fixes and report nothing else: exit 0 unless --exit-non-zero-on-fix."),
    Option(("--exit-non-zero-on-fix",), "exit_non_zero_on_fix", is_flag=True, default=False, help="With --fix or --fix-only: exit 1 when something was fixed, even if nothing remains."),
    Option(("--diff",), "show_diff", is_flag=True, default=False, help="Print the fixes as a unified diff and write nothing (exit 1 when there is something to fix)."),
    Option(("--add-noqa",), "add_noqa", is_flag=True, default=False, help="Append `# noqa: CODE` to each line with a finding (merged with an existing noqa comment) and remove the codes of unused ones."),
    Option(("-w", "--watch"), "watch", is_flag=True, default=False, help="Check again each time a file of the project changes (Ctrl-C to stop)."),
))

MANIFEST = Command("manifest", options=(
    Option(("--root",), "root", path={}, help="Project root (default: nearest parent with toolsets.py or [tool.hermes-lint])."),
    Option(("--output",), "output", path={}, help="Manifest path (default: the `manifest` setting, tools/manifest.json, under the root)."),
    Option(("--check",), "check_only", is_flag=True, default=False, help="Write nothing; exit 1 with HRM501 when the manifest on disk is out of date."),
    Option(("--diff",), "show_diff", is_flag=True, default=False, help="Write nothing; show how the manifest on disk differs from what would be generated, as a unified diff and as labelled changes to the tools (exit 1 when it differs)."),
    Option(("--output-format", "--format"), "output_format", choices=FORMATS, default="text", show_default=True,
           help="How the diagnostics (HRM501, the errors that block generation) are printed: as `check` prints them."),
    Option(("--debug",), "debug", is_flag=True, default=False, help="Print tracebacks of internal errors."),
))


def decorate(command: Command) -> Callable[[Callable[..., Any]], Any]:
    """The click decorators of ``command``'s argument and options, applied in the table's order
    (``--help`` lists them so): ``@decorate(CHECK)`` under ``@click.command()``."""
    import click

    def apply(function: Callable[..., Any]) -> Any:
        for option in reversed(command.options):
            keywords: Dict[str, Any] = {"help": option.help}
            if option.is_flag:
                keywords["is_flag"] = True
            if option.default is not None or option.is_flag:
                keywords["default"] = option.default
            if option.multiple:
                keywords["multiple"] = True
            if option.choices is not None:
                keywords["type"] = click.Choice(option.choices)
            elif option.path is not None:
                keywords["type"] = click.Path(**option.path)
            elif option.minimum is not None:
                keywords["type"] = click.IntRange(min=option.minimum)
            if option.metavar is not None:
                keywords["metavar"] = option.metavar
            if option.show_default:
                keywords["show_default"] = True
            function = click.option(*option.flags, option.name, **keywords)(function)
        if command.paths_argument is not None:
            function = click.argument(command.paths_argument, nargs=-1, type=click.Path())(function)
        return function

    return apply
