"""``check --fix --unsafe-fixes`` on the benchmark corpus with injected defects, one kind per
file, every fixable rule represented: the fixed files parse and are clean, they differ from the
injected ones only on the lines of the diagnostics and of their fixes, and every defect that a
fix simply undoes is undone byte for byte."""

from __future__ import annotations

import ast
import difflib
import re
import sys
from pathlib import Path
from typing import Dict, Set

from hermes_lint.config import Config
from hermes_lint.check.engine import collect_sources
from hermes_lint.autofix.run import fixes_for
from hermes_lint.edit.fix.source import FixSource, Texts
from hermes_lint.project_check import run_project
from tests.test_cli import run

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from gen_corpus import generate  # noqa: E402
from inject_defects import DEFECTS, inject  # noqa: E402


def _changes_outside(old: str, new: str, allowed: Set[int]) -> Set[int]:
    """Lines of ``old`` (1-based) that ``new`` replaces or deletes, or between which it inserts
    lines, that are not in ``allowed`` (an insertion is allowed next to an allowed line)."""
    outside: Set[int] = set()
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            outside.update(set(range(i1 + 1, i2 + 1)) - allowed)
        elif tag == "insert" and not {i1, i1 + 1} & allowed:
            outside.add(i1)
    return outside


def test_fix_on_the_corpus_with_injected_defects(tmp_path):
    clean_root = tmp_path / "clean"
    root = tmp_path / "project"
    generate(30, clean_root, seed=7)
    generate(30, root, seed=7)
    injected = inject(root)
    assert set(injected.values()) == set(DEFECTS) | {"HRM404"}, "every fixable rule is exercised"
    config = Config()

    before = run_project(root, config)
    # A misspelt `check_fn=` (HRM004) also leaves the tool without a check (HRM201), until fixed.
    assert {d.code for d in before} == set(injected.values()) | {"HRM201"}
    # Where the fixes may touch: the diagnostics' lines and the lines of the edits they offer
    # (the first pass; later passes only finish the same edits).
    sources = collect_sources(root, config)
    texts = Texts({f.path: f.data for f in [*sources.tool_files, sources.toolsets]})
    allowed: Dict[str, Set[int]] = {}
    for diagnostic, fix in fixes_for(before, FixSource(texts, config), unsafe=True):
        allowed.setdefault(diagnostic.path, set()).add(diagnostic.line)
        for edit in fix.edits:
            allowed.setdefault(edit.path, set()).update(range(edit.start[0], edit.end[0] + 1))
    assert len(allowed) >= len(injected) - 1  # every defect (HRM404's two files count once)
    injected_texts = {path: (root / path).read_text(encoding="utf-8") for path in injected}

    result = run(["check", "--fix", "--unsafe-fixes", "--no-cache"], root)

    assert result.exit_code == 0, result.output
    fixed_count = int(re.fullmatch(r"Fixed (\d+) \(0 remaining\)\.\n", result.stderr).group(1))
    assert fixed_count == len([d for d in before if d.code != "HRM201"])
    assert run_project(root, config) == []
    for path, code in sorted(injected.items()):
        fixed = (root / path).read_text(encoding="utf-8")
        ast.parse(fixed)
        outside = _changes_outside(injected_texts[path], fixed, allowed.get(path, set()))
        assert not outside, f"{path} ({code}): changed outside the diagnostics' lines: {sorted(outside)}"
        if DEFECTS.get(code, (None, False))[1]:
            assert fixed == (clean_root / path).read_text(encoding="utf-8"), f"{path} ({code})"
    untouched = [p for p in (root / "tools").glob("*.py") if p.relative_to(root).as_posix() not in injected]
    for path in untouched:
        assert path.read_bytes() == (clean_root / path.relative_to(root)).read_bytes()
