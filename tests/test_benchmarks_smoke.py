"""The benchmark tools work (nothing here is timed): the generated corpus is clean under
`hermes-lint check`, deterministic, shaped as documented, and the harness starts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_lint.config import Config
from hermes_lint.project_check import run_project

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from gen_corpus import MAX_LINES, MIN_LINES, generate  # noqa: E402


def test_generated_corpus_is_clean(tmp_path):
    written = generate(5, tmp_path, seed=3)
    assert len(written) == 5
    for path in written:
        assert MIN_LINES <= len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES
    assert run_project(tmp_path, Config()) == []
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--root", str(tmp_path), "--no-cache"],
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout == ""


def test_generation_is_deterministic(tmp_path):
    first = generate(5, tmp_path / "a", seed=7)
    second = generate(5, tmp_path / "b", seed=7)
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    assert (tmp_path / "a" / "toolsets.py").read_bytes() == (tmp_path / "b" / "toolsets.py").read_bytes()
    other = generate(5, tmp_path / "c", seed=8)
    assert [p.read_bytes() for p in other] != [p.read_bytes() for p in first]


def test_warm_and_edited_runs_report_what_a_cold_run_does(tmp_path):
    # The benchmark's warm and "one file edited" cases rely on the cache's reuse being exact.
    written = generate(5, tmp_path, seed=1)
    assert run_project(tmp_path, Config(), use_cache=True) == []
    assert run_project(tmp_path, Config(), use_cache=True) == []  # reused as a whole
    edited = written[2]
    source = edited.read_text(encoding="utf-8")
    edited.write_text(source.replace("check_fn=", "check_func="), encoding="utf-8")
    found = run_project(tmp_path, Config(), use_cache=True)
    assert {d.code for d in found} >= {"HRM004"}
    assert found == run_project(tmp_path, Config())
    assert run_project(tmp_path, Config(), use_cache=True) == found
    edited.write_text(source, encoding="utf-8")
    assert run_project(tmp_path, Config(), use_cache=True) == []


def test_toolsets_edit_invalidates_the_reused_result(tmp_path):
    generate(3, tmp_path, seed=2)
    assert run_project(tmp_path, Config(), use_cache=True) == []
    toolsets = tmp_path / "toolsets.py"
    toolsets.write_text(toolsets.read_text(encoding="utf-8").replace('"tools": [\n', '"tools": [\n            "ghost_tool",\n', 1), encoding="utf-8")
    found = run_project(tmp_path, Config(), use_cache=True)
    assert [d.code for d in found] == ["HRM403"]
    assert found == run_project(tmp_path, Config())


def test_harness_help():
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_check.py"), "--help"], capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr
    assert "--sizes" in completed.stdout and "--rounds" in completed.stdout
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "gen_corpus.py"), "--help"], capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr


def test_real_sized_corpus_is_clean_and_shaped_like_real_modules(tmp_path):
    import gen_real_sized

    written = generate(4, tmp_path, seed=5, real_sized=True)
    assert len(written) == 4
    texts = [path.read_text(encoding="utf-8") for path in written]
    for text in texts:
        assert gen_real_sized.MIN_LINES <= len(text.splitlines()) <= gen_real_sized.MAX_LINES
        assert "lambda" in text and "# noqa" in text
    assert sum(text.count("\nregistry.register(") for text in texts) > len(texts)  # several per file
    assert any("handler=lambda args, **kw:" in text for text in texts)
    assert run_project(tmp_path, Config()) == []
    again = generate(4, tmp_path / "again", seed=5, real_sized=True)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in written]


def test_real_project_benchmark_reads_only_copies(tmp_path):
    generate(2, tmp_path / "project", seed=1)
    before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "project").rglob("*"))
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_real.py"), "--real-sized", "0", "--rounds", "1",
         "--project", str(tmp_path / "project")],
        capture_output=True, text=True,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "hermes-lint reports 0 findings (exit 0), cold and warm alike" in completed.stdout
    assert "x ruff" in completed.stdout
    assert "the parsing floor alone is" in completed.stdout
    assert "cold -j 1 <= 1.5x the parsing floor (CPU): " in completed.stdout
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "project").rglob("*")) == before


@pytest.mark.slow  # runs git and pre-commit
def test_precommit_benchmark_runs_the_published_hook_entry(tmp_path):
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_precommit.py"), "--tools", "4", "--rounds", "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "both hooks on a commit of 1-3 tool files <= 0.3 s" in completed.stdout
    assert [line.split()[0] for line in completed.stdout.splitlines()[2:5]] == ["1", "2", "3"]


def test_plugin_benchmark_checks_the_same_tools_both_ways():
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_plugins.py"), "--tools", "3", "--rounds", "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "plugins cost what tools cost (cold -j 1)" in completed.stdout
    assert "plugins cost what tools cost (warm)" in completed.stdout
    assert "plugin package: 5 files" in completed.stdout  # 3 modules, __init__.py and the entry point's module
    assert "both check 3 tools" in completed.stdout


def test_noqa_benchmark_finds_the_same_comments_both_ways():
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_noqa.py"), str(Path(__file__).parent), "--rounds", "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "results differ in 0 (must be 0)" in completed.stdout


@pytest.mark.slow  # a dozen hermes-lint processes
def test_edit_benchmark_times_every_row_and_states_the_target(tmp_path):
    """A baseline toolkit (here the same package) runs on its own copy of the project, and
    every row passes (the project stays clean after each edit)."""
    import hermes_lint

    baseline = tmp_path / "baseline"
    shutil.copytree(Path(hermes_lint.__file__).parent, baseline / "hermes_lint",
                    ignore=shutil.ignore_patterns("__pycache__"))
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_edit.py"), "--tools", "6", "--rounds", "1", "--baseline", str(baseline)],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    rows = [line.split("  ")[1].strip() for line in completed.stdout.splitlines()[2:8]]
    assert rows == ["warm", "one file edited", "that file alone, cold", "import the checker", "python -c pass",
                    "check_module, in process"]
    assert completed.stdout.count("edited - warm <= 3x that file alone, cold") == 4  # wall, cpu; both toolkits
    assert completed.stdout.count("edited - warm <= 3x check_module of that file in process") == 1


def test_manifest_benchmark_times_every_step_of_a_start():
    """The runtime benchmark drives the loader's steps one by one (private names): a change to
    the loader must keep it running."""
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_manifest.py"), "--sizes", "3", "--repeat", "1", "--steps"],
        capture_output=True, text=True,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "import/manifest" in completed.stdout
    assert "CPU per step" in completed.stdout and "get_definitions" in completed.stdout


@pytest.mark.slow
def test_lsp_benchmark_times_every_row():
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_lsp.py"), "--tools", "3", "--repeat", "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert "lines, project of 3 real-sized tool modules; medians of 1 edits" in lines[0]
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        "in process, check_module (the file alone)",
        "in process, check_buffer (file + project rules)",
        "lsp, didChange -> publishDiagnostics (default debounce)",
        "lsp, same, debounce 0",
    ]
