"""``hermes-lint check``'s run: which combinations of options make sense, and the run itself,
without click (the options are ``cli.options.CHECK``; the click command is ``cli.check``).

The report itself (formats, paths, statistics, the summary) is ``cli.check_report``; ``--fix``,
``--diff`` and ``--add-noqa`` are ``cli.fix``; ``--watch`` is ``cli.watch``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from hermes_lint.cli import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    UsageError,
    _split_codes,
    echo_err,
    relative_paths,
    resolve_root,
    run_guarded,
)
from hermes_lint.cli.options import STATISTICS_FORMATS, TEXT_FORMATS
from hermes_lint.project_config import load_config


def _in_paths(diagnostic_path: str, wanted) -> bool:
    return any(
        diagnostic_path == path or diagnostic_path.startswith(path.rstrip("/") + "/") or path == "."
        for path in wanted
    )


def refuse_combinations(*, output_format, statistics, show_source, show_diff, fix, fix_only, add_noqa,
                        watch, stdin, output_file, exit_non_zero_on_fix, show_fixes) -> None:
    """A combination of options that cannot all be honoured is a usage error that says which:
    never a flag silently dropped."""
    fixing = fix or fix_only
    if statistics and output_format not in STATISTICS_FORMATS:
        raise UsageError(f"--statistics prints counts as text or json, not {output_format}")
    if show_source and output_format not in TEXT_FORMATS:
        raise UsageError(f"--show-source shows source lines in the text formats, not in {output_format}")
    if show_diff:
        if output_format not in TEXT_FORMATS:
            raise UsageError(f"--diff prints a unified diff: it has no {output_format} form")
        # with --fix it is what it is alone (ruff's convention): the fixes shown, nothing written
        for given, name in ((statistics, "--statistics"), (show_source, "--show-source"), (fix_only, "--fix-only"),
                            (output_file, "--output-file")):
            if given:
                raise UsageError(f"--diff prints a unified diff and writes nothing: it cannot be combined with {name}")
    if add_noqa:
        for given, name in ((fixing or show_diff, "--fix or --diff"), (statistics, "--statistics"),
                            (show_source, "--show-source"), (output_file, "--output-file"),
                            (output_format not in TEXT_FORMATS, f"--format {output_format}")):
            if given:
                raise UsageError(f"--add-noqa edits comments and reports no diagnostics: it cannot be combined with {name}")
    if fix_only:
        for given, name in ((statistics, "--statistics"), (show_source, "--show-source"),
                            (output_format not in TEXT_FORMATS, f"--format {output_format}"),
                            (output_file, "--output-file")):
            if given:
                raise UsageError(f"--fix-only reports no diagnostics: it cannot be combined with {name}")
    if exit_non_zero_on_fix and not fixing:
        raise UsageError("--exit-non-zero-on-fix needs --fix or --fix-only")
    if stdin and (fixing or show_diff or add_noqa):
        raise UsageError("--fix, --diff and --add-noqa edit files on disk: they cannot read stdin")
    if watch:
        for given, name in ((stdin, "stdin"), (fixing or show_diff or add_noqa, "--fix, --diff or --add-noqa")):
            if given:
                raise UsageError(f"--watch checks the files on disk again after each change: it cannot be combined with {name}")


def run_check(paths, root, config_file, output_format, select, extend_select, ignore, exclude, extend_exclude,
              force_exclude, providers, changed, stdin_filename, show_source, show_fixes, statistics, output_file,
              quiet, exit_zero, strict, jobs, no_cache, debug, fix, unsafe_fixes, fix_only, exit_non_zero_on_fix,
              show_diff, add_noqa, watch) -> None:
    """``hermes-lint check`` with its parameters as click passes them (``cli.options.CHECK``);
    exits with the run's status."""
    if output_format == "full":
        show_source = True

    def action() -> int:
        stdin = _stdin_path(paths, stdin_filename)
        refuse_combinations(
            output_format=output_format, statistics=statistics, show_source=show_source and output_format != "full",
            show_diff=show_diff, fix=fix, fix_only=fix_only, add_noqa=add_noqa, watch=watch, stdin=stdin is not None,
            output_file=output_file, exit_non_zero_on_fix=exit_non_zero_on_fix, show_fixes=show_fixes,
        )
        if stdin is not None:
            given: Sequence[str] = [str(stdin.parent)] if stdin.parent.is_dir() else []
        else:
            given = [path for path in paths if Path(path).exists()] if changed else paths
        from hermes_lint.check import project_reads, sites_record
        from hermes_lint.project import registration_sites

        if not no_cache and stdin is None:  # before anything of the project is read
            project_reads.record_in_this_process()
        project_root = resolve_root(root, given)

        registration_sites.across_runs = sites_record if not no_cache and stdin is None else None
        if not no_cache and stdin is None:
            project_reads.make_cache_directory(project_root)

        def configured():
            return load_config(
                project_root,
                config_file=Path(config_file) if config_file is not None else None,
                select=_split_codes(select),
                extend_select=_split_codes(extend_select),
                ignore=_split_codes(ignore),
                providers=_split_codes(providers),
                exclude=_split_patterns(exclude),
                extend_exclude=_split_patterns(extend_exclude),
                force_exclude=force_exclude,
                strict=strict,
            )

        def once() -> int:
            config = configured()
            wanted = relative_paths(project_root, given, outside_ok=changed) if paths and stdin is None else None
            named_files = frozenset(p for p, g in zip(wanted or (), given) if Path(g).is_file())
            if debug:
                _echo_contracts(project_root, config)

            def reported(d) -> bool:
                if not config.is_excluded(d.path):
                    return True
                return d.path in named_files and not config.force_exclude

            if fix or fix_only or show_diff or add_noqa:
                from hermes_lint.check import affected
                from hermes_lint.cli.check_report import report
                from hermes_lint.cli.fix import run_fix_options

                fix_wanted = None
                if wanted is not None:
                    # a finding located in another file but about a value read from a given one
                    fix_wanted = affected.expand(
                        project_root, wanted, paths, changed,
                        affected.project_reads(project_root, config, jobs=jobs, use_cache=not no_cache),
                    )
                return run_fix_options(
                    project_root, config, wanted=fix_wanted, reported=reported,
                    fix=fix or fix_only, unsafe=unsafe_fixes, diff=show_diff, add_noqa=add_noqa, exit_zero=exit_zero,
                    fix_only=fix_only, exit_non_zero_on_fix=exit_non_zero_on_fix, show_fixes=show_fixes,
                    in_paths=_in_paths, jobs=jobs, use_cache=not no_cache, quiet=quiet,
                    report=lambda found: report(found, project_root, config, output_format, output_file, {},
                                                show_source=show_source, show_fixes=show_fixes, statistics=statistics,
                                                unsafe=unsafe_fixes, quiet=True),
                )
            checked: List[int] = [0, 0]
            diagnostics, sources = _diagnostics(
                project_root, config, stdin, wanted, changed, jobs, not no_cache, quiet, paths, checked
            )
            diagnostics = [d for d in diagnostics if reported(d)]
            from hermes_lint.cli.check_report import report, summary_line

            line, nothing = summary_line(diagnostics, project_root, config, checked)
            report(diagnostics, project_root, config, output_format, output_file, sources,
                   show_source=show_source, show_fixes=show_fixes, statistics=statistics, unsafe=unsafe_fixes,
                   quiet=quiet and not (nothing and config.strict), line=line)
            if nothing and config.strict:
                return EXIT_FINDINGS
            return EXIT_FINDINGS if diagnostics and not exit_zero else EXIT_CLEAN

        if watch:
            from hermes_lint.cli.watch import watch_project

            return watch_project(project_root, once, ignored=[output_file] if output_file else [])
        return once()

    run_guarded(debug, action)



def _split_patterns(values: Sequence[str]) -> Optional[List[str]]:
    if not values:
        return None
    return [pattern.strip() for value in values for pattern in value.split(",") if pattern.strip()]


def _diagnostics(root: Path, config, stdin: Optional[Path], wanted, changed: bool, jobs, use_cache: bool, quiet: bool,
                 paths: Sequence[str] = (), checked: Optional[List[int]] = None):
    """(the diagnostics to report, texts standing for files: the buffer read from stdin)."""
    from hermes_lint.check import affected
    from hermes_lint.project_check import run_project

    with _progress(root, config, quiet):
        if stdin is not None:
            relative = relative_paths(root, [str(stdin.parent)])[0]
            relative = stdin.name if relative == "." else f"{relative}/{stdin.name}"
            buffer = sys.stdin.buffer.read()
            return _check_buffer(root, config, relative, buffer, jobs, use_cache, checked), {relative: buffer}
        reads: Dict[str, Tuple[str, ...]] = {}
        diagnostics = run_project(
            root, config, jobs=jobs, use_cache=use_cache, reads=reads if wanted is not None else None, checked=checked
        )
        if wanted is not None:
            # a given file brings in the findings of every module whose facts were read from it
            wanted = affected.expand(root, wanted, paths, changed, reads)
        if changed:
            diagnostics = [
                d for d in diagnostics if (wanted and _in_paths(d.path, wanted)) or affected.reported_everywhere(d.code)
            ]
        elif wanted is not None:
            diagnostics = [d for d in diagnostics if _in_paths(d.path, wanted)]
        return diagnostics, {}


def _echo_contracts(root: Path, config) -> None:
    from hermes_lint.check.engine import collect_sources
    from hermes_lint.project.registry_contract import contracts_in_use

    for described, count in sorted(contracts_in_use(collect_sources(root, config), config).items()):
        echo_err(f"hermes-lint: registry contract for {count} module(s): {described}")


def _stdin_path(paths: Sequence[str], stdin_filename: Optional[str]) -> Optional[Path]:
    """The file stdin stands for: ``--stdin-filename PATH`` with no other path, or with ``-``
    (ruff's convention); None when stdin is not read."""
    if stdin_filename is None:
        if "-" in paths:
            raise UsageError("`-` reads the file from stdin: say which file it is with --stdin-filename PATH")
        return None
    if paths and list(paths) != ["-"]:
        raise UsageError("--stdin-filename checks the text read from stdin: it cannot be combined with other paths")
    return Path(stdin_filename).absolute()


def _check_buffer(root: Path, config, relative: str, data: bytes, jobs, use_cache: bool,
                  checked: Optional[List[int]] = None):
    """The project's diagnostics located in ``relative``, with ``data`` as that file's text: the
    other modules from disk (and the cache), so project rules see the buffer in its place;
    ``checked`` gets the registrations of the buffer (``project_check.run_project``)."""
    from hermes_lint.check.affected import may_hold_schema_keys, with_buffer
    from hermes_lint.check.engine import ProjectSources, SourceFile, check_module, finish
    from hermes_lint.check.runner import count_registrations, module_results
    from hermes_lint.discovery import SKIPPED_FILE_NAMES
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
    buffered = ProjectModules(str(root), {relative: data}, config.src)
    is_plugin = relative in project_sites(root, config, buffered).plugin_modules()
    is_read = path.suffix == ".py" and may_hold_schema_keys(data.decode("utf-8", "replace"))
    if not (is_toolsets or is_tool or is_plugin or is_read):
        return []  # not a file hermes-lint checks, nor one that holds keys of a tool's schema
    results, toolsets = module_results(root, config, jobs=jobs, use_cache=use_cache, project_rules_only=True)
    # The modules that read values from the buffer's file: their findings about its keys.
    results = with_buffer(results, root, config, relative, data, buffered)
    if is_toolsets:
        toolsets = own
    elif is_tool or is_plugin:
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
