"""The fix loop: check, apply the fixes that do not overlap, check again, until nothing changes.

Everything happens on texts in memory (``ProjectSources``); the caller decides whether to write
them (``--fix``) or show them (``--diff``). A pass that would leave a file unparsable keeps that
file as it was. The loop is bounded: fixes that undo each other cannot run forever.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type, Union

from hermes_lint.config import Config
from hermes_lint.check.engine import ModuleResult, ProjectSources, SourceFile, finish
from hermes_lint.edit.fix.edits import SAFE, Fix, apply_edits, choose_fixes
from hermes_lint.edit.fix.source import FixSource, Texts, decode_fixable
from hermes_lint.model import Diagnostic

if TYPE_CHECKING:
    from hermes_lint.rules.base import Rule

MAX_PASSES = 100  # as ruff; a project needing more passes than this has fixes that fight


def fixable_rules() -> Dict[str, Type[Rule]]:
    from hermes_lint.rules import all_rules

    return {rule.code: rule for rule in all_rules() if rule.fix_applicability is not None}


def fixes_for(
    diagnostics: Sequence[Diagnostic], source: FixSource, *, unsafe: bool = True
) -> List[Tuple[Diagnostic, Fix]]:
    """Each diagnostic's fix, for those whose rule has one that applies here (unsafe fixes only
    with ``unsafe``), in diagnostic order."""
    rules = fixable_rules()
    found = []
    for diagnostic in diagnostics:
        rule = rules.get(diagnostic.code)
        applicability = rule.fix_applicability if rule is not None else None
        if rule is None or applicability is None or (applicability != SAFE and not unsafe):
            continue
        if diagnostic.path not in source.texts:
            continue  # unreadable, not UTF-8, or a syntax error: never touched
        try:
            edits = rule.fix(diagnostic, source)
        except Exception:  # a shape the fix did not foresee: no fix, and the report still prints
            edits = None
        if edits and all(edit.path in source.texts for edit in edits):
            found.append((diagnostic, Fix(applicability, rule.fix_title, tuple(edits))))
    return found


@dataclass
class FixOutcome:
    texts: Dict[str, bytes]  # path -> new bytes, for every file that changed
    fixed: int  # findings settled by a fix
    remaining: List[Diagnostic]  # the diagnostics of the fixed project
    passes: int
    # The bytes each changed file had when read: the project's files, and the other files that
    # modules read values from, where a finding about a schema key may be fixed.
    original: Dict[str, bytes] = field(default_factory=dict)
    fixed_by_path: Dict[str, Dict[str, int]] = field(default_factory=dict)  # path -> code -> findings fixed


class _Checker:
    """The per-file phase remembered by (path, bytes, the fixed texts of the files it read): a
    pass re-checks only the files it changed and those that read values from them; the first
    checks them all, across ``jobs`` processes (``runner.check_modules``)."""

    def __init__(self, config: Config, jobs: Optional[int]):
        self.config = config
        self.jobs = jobs
        self.memo: Dict[Tuple, ModuleResult] = {}
        self.reads: Dict[Tuple[str, Optional[bytes]], Tuple[str, ...]] = {}

    def key(self, file: SourceFile, changed: Mapping[str, bytes]) -> Tuple:
        read = self.reads.get((file.path, file.data), ())
        return (file.path, file.data, tuple((path, changed[path]) for path in read if path in changed))

    def remember(self, file: SourceFile, result: ModuleResult, changed: Mapping[str, bytes]) -> None:
        self.reads[(file.path, file.data)] = tuple(path for path, _ in result.facts.read_modules)
        self.memo[self.key(file, changed)] = result

    def __call__(self, sources: ProjectSources, changed: Mapping[str, bytes] = {}) -> List[Diagnostic]:
        """``changed``: the fixed texts so far, which the modules reading them must see."""
        from hermes_lint.check.engine import check_module
        from hermes_lint.check.runner import check_modules
        from hermes_lint.evaluate.project import ProjectModules

        pending = [file for file in sources.tool_files if self.key(file, changed) not in self.memo]
        if changed:  # in this process, with the texts in memory before the disk
            given = {file.path: file.data for file in sources.tool_files if file.data is not None}
            project = ProjectModules(self.config.project_root, {**given, **changed}, self.config.src)
            fresh = [check_module(file, self.config, project) for file in pending]
        else:
            fresh = check_modules(pending, self.config, self.jobs)
        for file, result in zip(pending, fresh):
            self.remember(file, result, changed)
        results = [self.memo[self.key(file, changed)] for file in sources.tool_files]
        return finish(results, sources, self.config)


def _read_files(config: Config, diagnostics: Sequence[Diagnostic], results: Sequence[ModuleResult], texts: Texts) -> None:
    """Add to ``texts`` the files that modules read values from and that a diagnostic is
    located in (a schema key of another module): fixes may edit them too."""
    from pathlib import Path

    from hermes_lint.regular_files import read_regular_file

    read = {path for result in results for path, sha256 in result.facts.read_modules if sha256}
    for path in {d.path for d in diagnostics} & read:
        if path not in texts.data and config.project_root:
            try:
                texts.data[path] = read_regular_file(Path(config.project_root) / path)
            except OSError:
                continue


def fix_sources(
    sources: ProjectSources,
    config: Config,
    *,
    unsafe: bool = False,
    wanted: Optional[Callable[[Diagnostic], bool]] = None,
    jobs: Optional[int] = 1,
    known: Sequence[ModuleResult] = (),
) -> FixOutcome:
    """Apply fixes to ``sources`` until none applies; ``wanted``: which diagnostics to fix (all
    by default; ``check --fix PATHS`` fixes those located in PATHS); ``known``: per-file results
    already computed for these files as they are (the cache's)."""
    check = _Checker(config, jobs)
    by_path = {file.path: file for file in sources.tool_files}
    for result in known:
        if result.facts.path in by_path:
            check.remember(by_path[result.facts.path], result, {})
    files = {file.path: file for file in [*sources.tool_files, *([sources.toolsets] if sources.toolsets else [])]}
    texts = Texts({path: file.data for path, file in files.items()})
    diagnostics = check(sources)
    _read_files(config, diagnostics, [check.memo[check.key(file, {})] for file in sources.tool_files], texts)
    fixed = 0
    fixed_by_path: Dict[str, Dict[str, int]] = {}
    passes = 0
    seen = {_state(texts.changed)}
    while passes < MAX_PASSES:
        to_fix = [d for d in diagnostics if wanted(d)] if wanted is not None else diagnostics
        pairs = fixes_for(to_fix, FixSource(texts, config), unsafe=unsafe)
        fixes = [fix for _, fix in pairs]
        fixed_diagnostic = {id(fix): diagnostic for diagnostic, fix in pairs}
        chosen = choose_fixes(fixes, texts)
        if not chosen:
            break
        passes += 1
        changed = _apply([fix for fix, _ in chosen], texts)
        if not changed:
            break
        texts.update(changed)
        for fix, count in chosen:
            if all(edit.path in changed for edit in fix.edits):
                fixed += count
                settled = fixed_diagnostic[id(fix)]
                codes = fixed_by_path.setdefault(settled.path, {})
                codes[settled.code] = codes.get(settled.code, 0) + count
        sources = _with_texts(sources, changed)
        diagnostics = check(sources, {path: text.encode("utf-8") for path, text in texts.changed.items()})
        state = _state(texts.changed)
        if state in seen:
            break  # fixes that undo each other (a schema shared by two tools): stop here
        seen.add(state)
    new_bytes = {
        path: text.encode("utf-8") for path, text in texts.changed.items() if text.encode("utf-8") != texts.data[path]
    }
    original = {path: data for path in new_bytes if (data := texts.data.get(path)) is not None}
    return FixOutcome(new_bytes, fixed, diagnostics, passes, original, fixed_by_path)


def _state(texts: Dict[str, str]) -> int:
    return hash(tuple(sorted(texts.items())))


def _apply(chosen: Sequence[Fix], texts: Union[Texts, Mapping[str, str]]) -> Dict[str, str]:
    by_path: Dict[str, list] = {}
    for fix in chosen:
        for edit in fix.edits:
            by_path.setdefault(edit.path, []).append(edit)
    changed = {}
    for path, edits in by_path.items():
        new = apply_edits(texts[path], edits)
        if new != texts[path] and decode_fixable(new.encode("utf-8")) is not None:
            changed[path] = new  # a pass that would break the file leaves it as it was
    return changed


def _with_texts(sources: ProjectSources, changed: Dict[str, str]) -> ProjectSources:
    def updated(file: SourceFile) -> SourceFile:
        return SourceFile(file.path, changed[file.path].encode("utf-8")) if file.path in changed else file

    toolsets = updated(sources.toolsets) if sources.toolsets is not None else None
    return replace(sources, tool_files=[updated(file) for file in sources.tool_files], toolsets=toolsets)
