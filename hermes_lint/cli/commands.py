"""The ``hermes-lint`` command group (click) and its small commands (``rules``, ``explain``).

``hermes_lint.cli.main`` loads this module for every command line but the two the pre-commit
hooks run (``cli.hook_start``); each other subcommand lives in its own module, imported only
when named.
"""

from __future__ import annotations

import sys
from typing import Any, List, Optional, Sequence

import click

from hermes_lint import __version__
from hermes_lint.cli import EXIT_CLEAN, UsageError, configure_streams, run_guarded, write_stdout


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
    configure_streams()


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

from hermes_lint.cli.check import check  # noqa: E402  (after the group it joins)

main.add_command(check)
