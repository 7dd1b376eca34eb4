"""What ``hermes-lint check`` does with ``--fix``, ``--diff`` and ``--add-noqa``, and the fixes
that ``--format json|sarif`` show: reading the project, writing files (atomically, and only if
they are still what was read), the manifest.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set

from hermes_lint.config import Config
from hermes_lint.edit.fix.edits import Fix
from hermes_lint.model import Diagnostic

STALE_MANIFEST = "HRM501"
UNUSED_NOQA = "HRM900"


class FixWriteError(Exception):
    """A file changed on disk while fixing: nothing of it was written."""


@dataclass
class FixReport:
    changed: Dict[str, bytes]  # path -> new bytes
    original: Dict[str, bytes]
    fixed: int
    remaining: List[Diagnostic]
    notes: List[str]
    fixed_by_path: Dict[str, Dict[str, int]] = field(default_factory=dict)  # path -> code -> findings fixed


def fix_project(
    root: Path,
    config: Config,
    *,
    unsafe: bool,
    wanted: Optional[Callable[[Diagnostic], bool]] = None,
    jobs: Optional[int] = 1,
    use_cache: bool = False,
) -> FixReport:
    """The project's fixed files (in memory) and what remains; nothing is written."""
    from hermes_lint.check.runner import module_results
    from hermes_lint.project_check import run_project

    if use_cache:
        # The common case, a project with nothing to fix, costs a plain cached check.
        first = run_project(root, config, jobs=jobs, use_cache=True)
        if not first:
            return _with_manifest(root, config, {}, FixReport({}, {}, 0, [], []))
    from hermes_lint.check.engine import collect_sources
    from hermes_lint.autofix.run import fix_sources

    # The per-file phase of the files as they are (from the cache when it is on, just filled):
    # the fix loop's first pass then only runs the project phase.
    known, _ = module_results(root, config, jobs=jobs, use_cache=use_cache)
    sources = collect_sources(root, config)
    files = [*sources.tool_files, *([sources.toolsets] if sources.toolsets else [])]
    original = {file.path: file.data for file in files if file.data is not None}
    outcome = fix_sources(sources, config, unsafe=unsafe, wanted=wanted, jobs=jobs, known=known)
    report = FixReport(
        dict(outcome.texts), {**outcome.original, **original}, outcome.fixed, outcome.remaining, [], outcome.fixed_by_path
    )
    return _with_manifest(root, config, report.changed, report)


def _with_manifest(root: Path, config: Config, changed: Dict[str, bytes], report: FixReport) -> FixReport:
    manifest = _regenerated_manifest(root, config, changed, report.notes)
    if manifest is not None:
        path, old, new = manifest
        report.original[path] = old
        report.changed[path] = new
        report.fixed += 1
        codes = report.fixed_by_path.setdefault(path, {})
        codes[STALE_MANIFEST] = codes.get(STALE_MANIFEST, 0) + 1
    return report


def _regenerated_manifest(root: Path, config: Config, changed: Dict[str, bytes], notes: List[str]):
    """The manifest, regenerated from the fixed texts by the manifest command's own functions,
    when the project has one and it is stale once the other fixes are made: stale before (HRM501's
    own fix, when HRM501 is selected), or made stale by them (whatever was selected: a fix must
    not leave a fresh manifest stale)."""
    selected = config.is_selected(STALE_MANIFEST)
    if not (selected or changed) or not (root / config.manifest).exists():
        return None  # a project without a manifest does not get one from `check --fix`
    from hermes_lint.check.engine import ProjectSources, SourceFile
    from hermes_lint.manifest.generate import generate, read_current
    from hermes_lint.manifest.inputs import manifest_inputs, manifest_sites

    target = root / config.manifest
    current = read_current(target)
    if current is None:
        return None
    sources = manifest_inputs(root, config)
    plugin_project = manifest_sites(root, config)
    if not selected and generate(sources, config, plugin_project).text != current:
        return None  # stale before the fixes, and HRM501 was not asked for

    def fixed(file: SourceFile) -> SourceFile:
        return SourceFile(file.path, changed[file.path]) if file.path in changed else file

    toolsets = fixed(sources.toolsets) if sources.toolsets is not None else None
    generated = generate(ProjectSources([fixed(f) for f in sources.tool_files], toolsets, root), config, plugin_project)
    if not generated.ok:
        notes.append(
            f"{config.manifest} was not regenerated: {len(generated.problems)} error(s) would make it "
            "wrong (see `hermes-lint manifest`)"
        )
        return None
    if generated.text == current:
        return None
    return target.relative_to(root).as_posix(), current, generated.text


def write_fixes(root: Path, report: FixReport) -> None:
    """Write every changed file atomically; a file that changed on disk since it was read is not
    written (and nothing is: checked for all before the first write)."""
    from hermes_lint.atomic import write_atomic

    for path in report.changed:
        try:
            current = (root / path).read_bytes()
        except OSError as exc:
            raise FixWriteError(f"{path}: cannot be read again ({exc.strerror or exc}); nothing was written")
        if current != report.original[path]:
            raise FixWriteError(f"{path} changed while fixing; nothing was written: run again")
    for path, data in sorted(report.changed.items()):
        write_atomic(root / path, data)


def unified_diff(report: FixReport) -> str:
    parts = []
    for path in sorted(report.changed):
        old = report.original[path].decode("utf-8", "replace").splitlines(keepends=True)
        new = report.changed[path].decode("utf-8", "replace").splitlines(keepends=True)
        for line in difflib.unified_diff(old, new, fromfile=f"a/{path}", tofile=f"b/{path}"):
            parts.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(parts)


def fixes_on_disk(
    root: Path, config: Config, diagnostics: Sequence[Diagnostic], sources: Optional[Dict[str, bytes]] = None
) -> Dict[Diagnostic, Fix]:
    """Each diagnostic's fix (safe and unsafe), for the JSON and SARIF outputs: only the files
    with a fixable finding (and toolsets.py) are read; ``sources``: texts that stand for files
    (an editor's buffer read from stdin)."""
    from hermes_lint.autofix.run import fixable_rules, fixes_for
    from hermes_lint.edit.fix.source import FixSource, decode_fixable

    rules = fixable_rules()
    fixable = [d for d in diagnostics if d.code in rules]
    if not fixable:
        return {}
    texts = {}
    for path in {d.path for d in fixable} | {config.toolsets_file}:
        try:
            text = decode_fixable(sources[path] if sources and path in sources else (root / path).read_bytes())
        except OSError:
            continue
        if text is not None:
            texts[path] = text
    return dict(fixes_for(fixable, FixSource(texts, config), unsafe=True))


def summary(report: FixReport) -> str:
    return f"Fixed {report.fixed} ({len(report.remaining)} remaining)."


def echo_err(text: str) -> None:
    sys.stderr.write(text + "\n")


def add_noqa(root: Path, diagnostics: Sequence[Diagnostic], config: Optional[Config] = None) -> "NoqaReport":
    """``--add-noqa``: a ``# noqa: CODE`` for each line with a finding, merged into the line's
    noqa comment when it has one. Files that do not parse are not touched; nor are lines where a
    comment cannot go (inside a multi-line string, before a backslash continuation): those
    findings are listed in ``skipped``."""
    from hermes_lint.atomic import write_atomic
    from hermes_lint.edit.fix.edits import TextIndex
    from hermes_lint.edit.fix.noqa_edit import add_codes
    from hermes_lint.edit.fix.source import decode_fixable

    removed = _remove_unused_noqa(root, [d for d in diagnostics if d.code == UNUSED_NOQA])
    if removed and config is not None:  # lines may have gone with their comment: look again
        from hermes_lint.project_check import run_project

        paths = {d.path for d in diagnostics}
        diagnostics = [d for d in run_project(root, config) if d.path in paths]
    by_path: Dict[str, Dict[int, set]] = {}
    for d in diagnostics:
        if d.code == UNUSED_NOQA:
            continue  # a noqa cannot silence itself: removed above
        by_path.setdefault(d.path, {}).setdefault(d.line, set()).add(d.code)
    added = 0
    skipped: List[str] = []
    writes: Dict[str, bytes] = {}
    for path, lines in sorted(by_path.items()):
        try:
            data = (root / path).read_bytes()
        except OSError:
            data = None
        text = decode_fixable(data)
        if text is None:
            skipped.append(f"{path}: cannot be parsed or is not UTF-8; left as it is")
            continue
        closed = _lines_without_comment_room(text)
        index = TextIndex(text)
        new_lines = {}
        for line, codes in sorted(lines.items()):
            if line in closed or line > len(index.starts):
                skipped.append(f"{path}:{line}: no comment can go on this line")
                continue
            new = add_codes(text, line, sorted(codes))
            if new is not None:
                new_lines[line] = new
                added += 1
        if not new_lines:
            continue
        new_text = _replace_lines(text, index, new_lines)
        if decode_fixable(new_text.encode("utf-8")) is None:  # never write a broken file
            skipped.append(f"{path}: adding the comments would break it; left as it is")
            continue
        writes[path] = new_text.encode("utf-8")
    for path, data in writes.items():
        write_atomic(root / path, data)
    return NoqaReport(added, skipped, removed)


def _remove_unused_noqa(root: Path, unused: Sequence[Diagnostic]) -> int:
    """HRM900's own fix for each unused code, written: how many codes were removed."""
    from hermes_lint.atomic import write_atomic
    from hermes_lint.edit.fix.edits import apply_edits
    from hermes_lint.edit.fix.source import decode_fixable
    from hermes_lint.edit.fix.noqa_edit import unused_noqa_edit

    removed = 0
    by_path: Dict[str, List[Diagnostic]] = {}
    for d in unused:
        by_path.setdefault(d.path, []).append(d)
    for path, found in sorted(by_path.items()):
        try:
            text = decode_fixable((root / path).read_bytes())
        except OSError:
            continue
        if text is None:
            continue
        new, count = text, 0
        # one code at a time, from the last line up: each edit is computed on the text it edits
        for d in sorted(found, key=lambda d: (-d.line, d.message)):
            edit = unused_noqa_edit(d.path, new, d)
            if edit is not None:
                new = apply_edits(new, [edit])
                count += 1
        if count and decode_fixable(new.encode("utf-8")) is not None:
            write_atomic(root / path, new.encode("utf-8"))
            removed += count
    return removed


@dataclass
class NoqaReport:
    added: int
    skipped: List[str]
    removed: int = 0


def _lines_without_comment_room(text: str) -> Set[int]:
    """Lines whose end is inside a string token (a multi-line string) or a backslash
    continuation: a comment appended there would change the code."""
    import io
    import tokenize

    closed: Set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.start[0] != token.end[0] and token.type != tokenize.NL and token.type != tokenize.NEWLINE:
            closed.update(range(token.start[0], token.end[0]))
    for number, line in enumerate(text.splitlines(), start=1):
        if line.rstrip().endswith("\\"):
            closed.add(number)
    return closed


def _replace_lines(text: str, index, new_lines: Dict[int, str]) -> str:
    parts = []
    position = 0
    for line, new in sorted(new_lines.items()):
        start = index.starts[line - 1]
        old = index.line_text(line)
        parts.append(text[position:start])
        parts.append(new)
        position = start + len(old)
    parts.append(text[position:])
    return "".join(parts)
