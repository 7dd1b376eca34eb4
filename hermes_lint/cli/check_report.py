"""What ``check`` writes: the report in the chosen format (stdout or ``--output-file``), then the
summary on stderr. Which directory each format's paths are relative to: ``report.locations``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from hermes_lint.cli import echo_err, write_output
from hermes_lint.config import Config

if TYPE_CHECKING:
    from hermes_lint.project.registration_sites import ProjectSites


def fixes_of(root: Path, config, diagnostics: Sequence, sources, edits: bool = True) -> Dict:
    """Each diagnostic's fix (safe and unsafe); the fixing machinery is imported only when a
    diagnostic's rule has a fix (each rule asked alone: ``rule_by_code``). Without ``edits`` (a
    report that prints none), a ``KnownFix`` where the rules can tell from the syntax alone that
    there is one (``edit.fixable``): libcst is then never imported."""
    if not diagnostics:
        return {}
    from hermes_lint.rules import rule_by_code

    if not any(_has_fix(rule_by_code, d.code) for d in diagnostics):
        return {}
    if not edits:
        from hermes_lint.edit.fixable import fix_applicabilities
        from hermes_lint.rules import all_rules

        rules = {rule.code: rule for rule in all_rules() if rule.fix_applicability is not None}
        known = fix_applicabilities(root, rules, diagnostics, sources)
        if known is not None:
            return known
    from hermes_lint.autofix.command import fixes_on_disk

    return fixes_on_disk(root, config, diagnostics, sources)


def _has_fix(rule_by_code, code: str) -> bool:
    try:
        return rule_by_code(code).fix_applicability is not None
    except KeyError:
        return False


def report(diagnostics, root: Path, config, output_format: str, output_file: Optional[str], sources,
           *, show_source: bool, show_fixes: bool, statistics: bool, unsafe: bool, quiet: bool,
           line: Optional[str] = None) -> None:
    """Write the report, then the summary ``line`` (what was checked: ``summary_line``) on stderr."""
    from hermes_lint.report import terminal

    prints_edits = show_fixes or (output_format in ("json", "sarif") and not statistics)
    fixes = fixes_of(root, config, diagnostics, sources, edits=prints_edits)
    text, json_text = render(diagnostics, root, config, output_format, fixes, sources, colour=output_file is None,
                             show_source=show_source, show_fixes=show_fixes, statistics=statistics, unsafe=unsafe)
    write_output(text, output_file, json_text=json_text)
    if not quiet:
        line = line or terminal.summary(diagnostics)
        if output_file is not None:
            written = f"report written to {output_file}"
            line = f"{line[:-1]}; {written})" if line.endswith(")") else f"{line} ({written})"
        safe = sum(1 for fix in fixes.values() if fix.applicability == "safe")
        hint = terminal.fixable_hint(safe, len(fixes) - safe, unsafe)
        echo_err(line + (f"\n{hint}" if hint else ""))


def summary_line(diagnostics, root: Path, config, checked: List[int]) -> Tuple[str, bool]:
    """(the summary line, whether nothing was found to check). A run that read no registration
    never says "All checks passed": it says what it did not find, and why."""
    from hermes_lint.project.registration_sites import project_sites
    from hermes_lint.report import terminal

    read, unread = checked
    sites = project_sites(root, config)
    if read == 0 and not diagnostics:
        if unread:
            why = f"{terminal.plural(unread, 'register call')} cannot be read statically"
        else:
            why = nothing_found(sites, config)
        return f"Nothing checked: no tool registration found: {why}", True
    return f"{terminal.summary(diagnostics)} ({checked_summary(sites, read, unread)})", read == 0


def checked_summary(sites: Optional["ProjectSites"], registrations: int, unread: int) -> str:
    """What was checked, for the summary line: ``7 tools in 2 plugins``, ``84 tools in tools/ and
    87 plugins``; plugins declared only in a misnamed entry point group (HRM812) are said not to
    be loaded by Hermes."""
    from hermes_lint.project.entry_point_reader import ENTRY_POINT_GROUP
    from hermes_lint.report.terminal import plural

    tools = plural(registrations, "tool")
    plugins = len(sites.plugins) if sites is not None else 0
    parts = []
    unloaded = ""
    if sites is not None and sites.tool_modules:
        parts.append(f"{Path(sites.tools_dir).as_posix()}/")
    if plugins:
        assert sites is not None
        misnamed = sorted({
            p.spec.entry_point.group for p in sites.plugins
            if p.spec.entry_point is not None and not p.spec.entry_point.loaded_by_hermes
        })
        if misnamed:
            groups = " and ".join(f"`{group}`" for group in misnamed)
            them = "it" if plugins == 1 else "them"
            unloaded = f"; Hermes does not load {them}: entry point group {groups} is not `{ENTRY_POINT_GROUP}`"
        parts.append(plural(plugins, "plugin"))
    where = f" in {' and '.join(parts)}" if parts else ""
    more = f", {unread} unread" if unread else ""
    return f"{tools}{where}{more}{unloaded}"


def nothing_found(sites: Optional["ProjectSites"], config: Config) -> str:
    """Why a run found no registration to check: one line."""
    from hermes_lint.report.terminal import plural

    if sites is None:
        return "no project root"
    if sites.kind == "empty":
        return (
            f"no {config.tools_dir}/*.py module calls `registry.register(...)` at top level, and no plugin is "
            "declared (no `hermes_agent.plugins` entry point in pyproject.toml, setup.cfg or setup.py; no "
            "plugin.yaml beside an __init__.py)"
        )
    reasons: List[str] = []
    if sites.kind == "tools":
        reasons.append(
            f"no {config.tools_dir}/*.py module calls `registry.register(...)` at top level"
            if not sites.tool_modules else f"{plural(len(sites.tool_modules), 'tool module')} register nothing"
        )
    for plugin in sites.plugins:
        spec = plugin.spec
        if spec.register_module is None:
            what = f"`{spec.entry_point.value}`" if spec.entry_point else spec.directory
            why = f"{what} names no module of the project"
        else:
            why = plugin.problem or "its register(ctx) registers no tool"
        if spec.entry_point is not None and not spec.entry_point.loaded_by_hermes:
            why = f"declared in entry point group `{spec.entry_point.group}`, which Hermes does not read; {why}"
        reasons.append(f"plugin {spec.name}: {why}")
    return "; ".join(reasons)


def render(diagnostics, root: Path, config, output_format: str, fixes: Dict, sources=None, *, colour: bool = True,
           show_source: bool = False, show_fixes: bool = False, statistics: bool = False,
           unsafe: bool = False) -> Tuple[str, bool]:
    """(the report in ``output_format``, whether it is JSON): what ``check`` and ``manifest``
    print wherever their output is a list of diagnostics."""
    from hermes_lint.report import locations, terminal
    from hermes_lint.report.output import FORMATTERS, rule_url

    sources = sources or {}

    def fixable(d) -> bool:
        fix = fixes.get(d)
        return fix is not None and (unsafe or fix.applicability == "safe")

    def here(path: str) -> str:
        return locations.from_current_directory(root, path)

    docs_url = config.docs_url
    colour = colour and terminal.use_colour(sys.stdout)
    json_text = False
    if statistics:
        text, json_text = _statistics(diagnostics, output_format, fixable), output_format == "json"
    elif output_format in ("text", "concise", "full"):
        text = terminal.format_text(
            diagnostics,
            colour=colour,
            source_lines=_source_reader(root, sources) if show_source else None,
            url_of=(lambda code: rule_url(code, docs_url)) if show_source else None,
            path_of=here,
            fixable=fixable,
            fix_title=(lambda d: _fix_title(fixes.get(d))) if show_fixes else None,
        )
    elif output_format == "json":
        text = FORMATTERS["json"](diagnostics, docs_url=docs_url, fixes=fixes, path_of=here,
                                  filename_of=lambda path: str(root / path))
        json_text = True
    else:
        repository = locations.repository_root(root)

        def from_repository(path: str) -> str:
            return locations.from_repository_root(root, path, repository)

        if output_format == "sarif":
            text = FORMATTERS["sarif"](diagnostics, docs_url=docs_url, fixes=fixes, path_of=from_repository,
                                       base_uri=repository.as_uri().rstrip("/") + "/")
            json_text = True
        else:
            text = FORMATTERS["github"](diagnostics, docs_url=docs_url, path_of=from_repository)
    return text, json_text


def _fix_title(fix) -> Optional[str]:
    if fix is None:
        return None
    return fix.message + ("" if fix.applicability == "safe" else " (unsafe: needs --unsafe-fixes)")


def _statistics(diagnostics, output_format: str, fixable) -> str:
    from hermes_lint.report import terminal
    from hermes_lint.rules import rule_by_code

    def summary_of(code: str) -> str:
        try:
            return rule_by_code(code).summary
        except KeyError:
            return ""

    if output_format != "json":
        return terminal.statistics(diagnostics, summary_of, fixable)
    rows = [
        {"code": code, "count": count, "fixable": fixed > 0, "fixable_count": fixed, "summary": summary_of(code)}
        for code, count, fixed in terminal.statistics_rows(diagnostics, fixable)
    ]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def _source_reader(root: Path, sources):
    from hermes_lint.regular_files import read_regular_file

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

    return source_lines
