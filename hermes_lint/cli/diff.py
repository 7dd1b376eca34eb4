"""``hermes-lint diff OLD.json NEW.json``: label the changes between two tool manifests.

The ``main`` group of ``cli.commands`` loads this module when the command is named (``_LazyGroup``).
Exit codes as everywhere: 0 fine, 1 when ``--fail-on`` is met (for CI: ``--fail-on breaking``),
2 usage or internal error (a file that is missing, unreadable or not a hermes tool manifest).
"""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command("diff")
@click.argument("old", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
@click.option(
    "--fail-on",
    type=click.Choice(["breaking", "unknown", "any"]),
    default=None,
    help="Exit 1 when there is a change of this label: breaking; unknown (breaking or unknown); any.",
)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors.")
def diff(old, new, fail_on, output_format, debug) -> None:
    """Label each change from manifest OLD to manifest NEW as breaking, compatible or unknown.

    Breaking: a tool removed or renamed, a property removed or newly required, a type changed,
    an enum narrowed, a constraint tightened, a toolset that dropped a tool. Compatible: a tool
    or an optional property added, an enum or type widened, a description changed.
    """
    from hermes_lint.cli import EXIT_CLEAN, EXIT_FINDINGS, UsageError, run_guarded, write_stdout

    def action() -> int:
        from hermes_lint.manifest.diff import ManifestError, count, fails, format_changes, label_changes, load_manifest

        try:
            before, after = load_manifest(Path(old)), load_manifest(Path(new))
        except ManifestError as exc:
            raise UsageError(str(exc)) from None
        try:
            changes = label_changes(before, after)
        except RecursionError:
            raise UsageError(f"{old}, {new}: schemas nested too deeply to compare") from None
        if output_format == "json":
            payload = {"changes": [c.as_json() for c in changes], "counts": count(changes)}
            write_stdout(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", json_text=True)
        else:
            write_stdout(format_changes(changes, old, new))
        return EXIT_FINDINGS if fails(changes, fail_on) else EXIT_CLEAN

    run_guarded(debug, action)
