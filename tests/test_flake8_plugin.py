"""The flake8 plugin, run through the real flake8 (file and stdin modes), and its caching.

The fixture project (tests/fixtures/integrations) has one clean tool, one tool with a misspelt
``check_func=`` keyword (HRM004, after a non-ASCII character on the same line), a helper module
in tools/ that registers nothing, and a script outside tools/ with the same mistake.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from hermes_lint import __version__, flake8_plugin

from hermes_lint.check import engine
from hermes_lint.flake8_plugin import HermesLintChecker, check_buffer
from hermes_lint.rules.base import Finding, Rule

slow = pytest.mark.slow  # runs the real flake8 in a subprocess

FIXTURE = Path(__file__).parent / "fixtures" / "integrations"
# What a run of hermes-lint or Python inside the fixture directory may have left there.
FIXTURE_LEFTOVERS = shutil.ignore_patterns(".hermes_lint_cache", "__pycache__")
HRM004_LINE = "tools/broken_tool.py:30:16: HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root, ignore=FIXTURE_LEFTOVERS)
    flake8_plugin.clear_caches()
    return root


def _env():
    return dict(os.environ, PYTHONIOENCODING="utf-8")


def flake8(root: Path, *args: str, stdin: str = None, isolated: bool = True):
    command = [sys.executable, "-m", "flake8", *(["--isolated"] if isolated else []), *args]
    return subprocess.run(
        command,
        cwd=root,
        input=stdin.encode("utf-8") if stdin is not None else None,
        capture_output=True,
        env=_env(),
        timeout=120,
    )


def lines_of(completed) -> list:
    assert not completed.stderr, completed.stderr.decode("utf-8", "replace")
    return completed.stdout.decode("utf-8").splitlines()


def hermes_lint_check(root: Path, *args: str) -> list:
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", *args],
        cwd=root,
        capture_output=True,
        env=_env(),
        timeout=120,
    )
    assert completed.returncode in (0, 1), completed.stderr.decode("utf-8", "replace")
    # without check's `[*]` (fixable) marker, which flake8's format does not have
    return [line.replace(" [*] ", " ", 1) for line in completed.stdout.decode("utf-8").splitlines()]


def test_plugin_is_registered_in_flake8_extension_group_with_code_prefix_hrm():
    (entry,) = [ep for ep in entry_points(group="flake8.extension") if ep.value.startswith("hermes_lint")]
    assert entry.name == "HRM"
    assert entry.load() is HermesLintChecker
    assert HermesLintChecker.name == "hermes-lint"
    assert HermesLintChecker.version == __version__


@slow
def test_flake8_lists_the_plugin_in_its_version(project):
    completed = flake8(project, "--version")
    assert f"hermes-lint: {__version__}" in completed.stdout.decode()


@slow
def test_file_mode_reports_exact_lines_only_for_tool_modules(project):
    # scripts/not_a_tool.py makes the same mistake outside tools/: not a tool module, not reported.
    completed = flake8(project, "--select", "HRM004", "tools", "toolsets.py", "scripts")
    assert lines_of(completed) == [HRM004_LINE]
    assert completed.returncode == 1


@slow
def test_file_mode_reports_what_hermes_lint_check_reports(project):
    flake8_lines = lines_of(flake8(project, "--select", "HRM", "tools", "toolsets.py", "scripts"))
    assert HRM004_LINE in flake8_lines
    assert sorted(flake8_lines) == sorted(hermes_lint_check(project))


@slow
def test_stdin_mode_checks_the_buffer_not_the_file_on_disk(project):
    disk = (project / "tools" / "broken_tool.py").read_text(encoding="utf-8")
    fixed = disk.replace("check_func=", "check_fn=")
    completed = flake8(project, "--select", "HRM004", "--stdin-display-name", "tools/broken_tool.py", "-", stdin=fixed)
    assert lines_of(completed) == []
    assert completed.returncode == 0

    # The clean file on disk, a broken buffer with two more lines: the buffer's line is reported.
    echo = (project / "tools" / "echo_tool.py").read_text(encoding="utf-8")
    edited = "# edited\n# in the editor\n" + echo.replace("check_fn=check_echo", "check_func=check_echo")
    completed = flake8(project, "--select", "HRM004", "--stdin-display-name", "tools/echo_tool.py", "-", stdin=edited)
    assert lines_of(completed) == [
        "tools/echo_tool.py:32:5: HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)"
    ]
    assert completed.returncode == 1


@slow
def test_stdin_mode_checks_a_new_file_not_yet_saved(project):
    echo = (project / "tools" / "echo_tool.py").read_text(encoding="utf-8")
    new = echo.replace("check_fn=check_echo", "check_func=check_echo").replace('"echo"', '"fresh"')
    completed = flake8(project, "--select", "HRM004", "--stdin-display-name", "tools/fresh_tool.py", "-", stdin=new)
    assert not (project / "tools" / "fresh_tool.py").exists()
    assert lines_of(completed) == [
        "tools/fresh_tool.py:30:5: HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)"
    ]


@slow
def test_stdin_mode_on_a_file_that_is_not_a_tool_module_reports_nothing(project):
    script = (project / "scripts" / "not_a_tool.py").read_text(encoding="utf-8")
    for display_name in ("scripts/not_a_tool.py", "tools/helpers_sub/x_tool.py", "/elsewhere/tools/x_tool.py"):
        completed = flake8(project, "--select", "HRM", "--stdin-display-name", display_name, "-", stdin=script)
        assert lines_of(completed) == [], display_name


@slow
def test_noqa_is_left_to_flake8_and_hrm900_is_never_reported(project):
    path = project / "tools" / "broken_tool.py"
    text = path.read_text(encoding="utf-8")
    text = text.replace("check_func=check_broken,", "check_func=check_broken,  # noqa: HRM004")
    text = text.replace("import json\n", "import json  # noqa: HRM101\n")
    path.write_text(text, encoding="utf-8")
    # hermes-lint itself applies the noqa and reports the one that suppresses nothing...
    assert hermes_lint_check(project, "--select", "HRM004,HRM900,HRM101") == [
        "tools/broken_tool.py:2:14: HRM900 unused `# noqa` for HRM101: it suppresses nothing"
    ]
    # ...flake8 applies the noqa itself, and the plugin never speaks of unused ones.
    assert lines_of(flake8(project, "--select", "HRM004,HRM900,HRM101", "tools")) == []
    # The plugin did not filter the finding out itself: flake8's --disable-noqa shows it.
    completed = flake8(project, "--select", "HRM004,HRM900,HRM101", "--disable-noqa", "tools")
    assert lines_of(completed) == [HRM004_LINE]


@slow
def test_project_configuration_select_and_per_file_ignores_apply(project):
    (project / "pyproject.toml").write_text(
        '[tool.hermes-lint]\nper-file-ignores = { "tools/broken_tool.py" = ["HRM004"] }\n', encoding="utf-8"
    )
    assert lines_of(flake8(project, "--select", "HRM004", "tools")) == []


@slow
def test_no_cache_option_leaves_the_project_untouched(project):
    assert lines_of(flake8(project, "--select", "HRM004", "--hermes-lint-no-cache", "tools")) == [HRM004_LINE]
    assert not (project / ".hermes_lint_cache").exists()
    assert lines_of(flake8(project, "--select", "HRM004", "tools")) == [HRM004_LINE]
    assert (project / ".hermes_lint_cache").is_dir()


@slow
def test_root_option_from_command_line_and_flake8_config(project):
    (project / "toolsets.py").unlink()  # nothing marks the project root any more
    assert lines_of(flake8(project, "--select", "HRM004", "tools")) == []
    completed = flake8(project, "--select", "HRM004", f"--hermes-lint-root={project}", "tools")
    assert lines_of(completed) == [HRM004_LINE]
    (project / "setup.cfg").write_text("[flake8]\nselect = HRM004\nhermes-lint-root = .\n", encoding="utf-8")
    assert lines_of(flake8(project, "tools", isolated=False)) == [HRM004_LINE]


@slow
def test_stdin_buffer_sees_project_rules_over_the_files_on_disk(project):
    # The buffer registers "broken" under another toolset: tools/broken_tool.py on disk has it too.
    echo = (project / "tools" / "echo_tool.py").read_text(encoding="utf-8")
    buffer = echo.replace('name="echo"', 'name="broken"').replace('toolset="demo"', 'toolset="other"')
    completed = flake8(project, "--select", "HRM401", "--stdin-display-name", "tools/echo_tool.py", "-", stdin=buffer)
    reported = lines_of(completed)
    assert any(line.startswith("tools/echo_tool.py:") and "tools/broken_tool.py" in line for line in reported)
    # Exactly what `hermes-lint check` says about that file once the buffer is saved.
    (project / "tools" / "echo_tool.py").write_text(buffer, encoding="utf-8")
    expected = [line for line in hermes_lint_check(project, "--select", "HRM401") if line.startswith("tools/echo_tool.py:")]
    assert reported == expected


# In-process: the plugin class as flake8 drives it, project rules over buffer + disk, the caches.


class _DuplicateName(Rule):
    """A stand-in project rule: the same tool name registered in two modules."""

    code = "HRM499"
    summary = "test stand-in"
    scope = "project"

    def check(self, ctx):
        first = {}
        for module, registration in ctx.registrations():
            if registration.name in first:
                yield Finding(registration.location, f"also registered in {first[registration.name]}", module.path)
            else:
                first[registration.name] = module.path


def run_plugin(filename: str, text: str) -> list:
    checker = HermesLintChecker(ast.parse(text), filename, text.splitlines(keepends=True))
    return list(checker.run())


def test_plugin_yields_flake8_tuples_with_zero_based_columns(project, monkeypatch):
    monkeypatch.chdir(project)
    text = (project / "tools" / "broken_tool.py").read_text(encoding="utf-8")
    found = [r for r in run_plugin("tools/broken_tool.py", text) if r[2].startswith("HRM004")]
    assert found == [
        (30, 15, "HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)", HermesLintChecker)
    ]


def test_project_rules_combine_the_buffer_with_the_rest_of_the_project(project, monkeypatch):
    real = engine.selected_rules
    monkeypatch.setattr(
        engine, "selected_rules", lambda config, scope: [_DuplicateName] if scope == "project" else real(config, scope)
    )
    monkeypatch.chdir(project)
    echo = (project / "tools" / "echo_tool.py").read_text(encoding="utf-8")
    assert [r for r in run_plugin("tools/echo_tool.py", echo) if r[2].startswith("HRM499")] == []
    buffer = echo.replace('name="echo"', 'name="broken"')
    assert [r for r in run_plugin("tools/echo_tool.py", buffer) if r[2].startswith("HRM499")] == [
        (25, 0, "HRM499 also registered in tools/broken_tool.py", HermesLintChecker)
    ]
    # The file on disk is unchanged: checking tools/broken_tool.py from disk sees no duplicate.
    broken = (project / "tools" / "broken_tool.py").read_text(encoding="utf-8")
    assert [r for r in run_plugin("tools/broken_tool.py", broken) if r[2].startswith("HRM499")] == []


def count_checks(monkeypatch) -> list:
    checked = []
    real = engine.check_module
    monkeypatch.setattr(engine, "check_module", lambda source, config: checked.append(source.path) or real(source, config))
    return checked


def test_a_file_that_is_not_a_tool_module_does_not_even_import_the_engine(project):
    # flake8 loads the plugin for every Python file an editor lints.
    probe = (
        "import sys; from hermes_lint.flake8_plugin import check_buffer; "
        "assert check_buffer('scripts/not_a_tool.py', open('scripts/not_a_tool.py').readlines()) == []; "
        "assert check_buffer('tools/helpers.py', open('tools/helpers.py').readlines()) == []; "
        "print(sorted(set(sys.modules) & {'hermes_lint.check.engine', 'hermes_lint.rules', 'jsonschema', 'libcst'}))"
    )
    completed = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, timeout=60)
    assert completed.stderr == ""
    assert completed.stdout == "[]\n"


def test_the_project_is_read_once_per_run_and_rechecked_only_where_changed(project, monkeypatch):
    monkeypatch.chdir(project)
    checked = count_checks(monkeypatch)
    texts = {p: (project / p).read_text(encoding="utf-8") for p in ("tools/broken_tool.py", "tools/echo_tool.py")}
    for path, text in texts.items():  # what `flake8 tools/` does in one process
        run_plugin(path, text)
    # Every candidate module, as `hermes-lint check` does (helpers.py too), each exactly once.
    assert sorted(checked) == ["tools/broken_tool.py", "tools/echo_tool.py", "tools/helpers.py"]
    assert (project / ".hermes_lint_cache").is_dir()

    checked.clear()
    flake8_plugin.clear_caches()  # a new flake8 process, as an editor starts for every check
    for path, text in texts.items():
        run_plugin(path, text)
    assert checked == []  # the on-disk cache `hermes-lint check` shares served every file

    echo = project / "tools" / "echo_tool.py"
    echo.write_text(texts["tools/echo_tool.py"] + "# changed\n", encoding="utf-8")
    os.utime(echo, ns=(echo.stat().st_atime_ns, echo.stat().st_mtime_ns + 10**9))
    run_plugin("tools/broken_tool.py", texts["tools/broken_tool.py"])
    assert checked == []  # same run: the project as this run first read it
    flake8_plugin.new_run()
    run_plugin("tools/broken_tool.py", texts["tools/broken_tool.py"])
    assert checked == ["tools/echo_tool.py"]

    checked.clear()
    run_plugin("tools/echo_tool.py", "# an edited buffer\n" + texts["tools/echo_tool.py"])
    assert checked == ["tools/echo_tool.py"]  # only the buffer: the rest comes from the snapshot


def test_without_the_cache_nothing_is_written(project, monkeypatch):
    monkeypatch.chdir(project)
    lines = (project / "tools" / "broken_tool.py").read_text(encoding="utf-8").splitlines(keepends=True)
    found = check_buffer("tools/broken_tool.py", lines, use_cache=False)
    assert HRM004_LINE in [d.as_text() for d in found]
    assert not (project / ".hermes_lint_cache").exists()


def test_files_that_are_not_tool_modules_are_not_even_parsed(project, monkeypatch):
    monkeypatch.chdir(project)

    def must_not_run(source, config):
        raise AssertionError(f"{source.path} is not a tool module but was checked")

    monkeypatch.setattr(engine, "check_module", must_not_run)
    for path in ("tools/helpers.py", "scripts/not_a_tool.py", "tools/__init__.py"):
        text = (project / path).read_text(encoding="utf-8") if (project / path).exists() else "x = 1\n"
        assert run_plugin(path, text) == []
    outside = project.parent / "elsewhere.py"
    assert check_buffer(str(outside), ["from tools.registry import registry\n"]) == []


def test_file_mode_uses_the_exact_bytes_on_disk(project, monkeypatch):
    """flake8 reads files with universal newlines; the plugin still checks the bytes on disk."""
    monkeypatch.chdir(project)
    checked = count_checks(monkeypatch)
    path = project / "tools" / "broken_tool.py"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)  # universal newlines
    assert [d.as_text() for d in check_buffer("tools/broken_tool.py", lines) if d.code == "HRM004"] == [HRM004_LINE]
    assert sorted(checked) == ["tools/broken_tool.py", "tools/echo_tool.py", "tools/helpers.py"]  # no second check


def test_buffer_keeps_the_encoding_its_coding_cookie_declares():
    text = "# -*- coding: latin-1 -*-\nNAME = 'café'\n"
    assert flake8_plugin.encode_like_source(text) == text.encode("latin-1")
    assert flake8_plugin.encode_like_source("NAME = 'café'\n") == "NAME = 'café'\n".encode("utf-8")
    assert flake8_plugin.as_flake8_reads(text.encode("latin-1")) == text
    assert flake8_plugin.as_flake8_reads(b"\xef\xbb\xbfx = 1\r\n") == "x = 1\n"


@slow
def test_a_duplicate_registration_shows_in_both_files_in_the_editor(project):
    """Each file's own flake8 run (as an editor runs it) shows the clash, naming the other file."""
    echo = (project / "tools" / "echo_tool.py").read_text(encoding="utf-8")
    (project / "tools" / "zz_tool.py").write_text(echo.replace('toolset="demo"', 'toolset="other"'), encoding="utf-8")
    earlier = flake8(project, "--select", "HRM401", "tools/echo_tool.py")
    assert lines_of(earlier) == [
        "tools/echo_tool.py:26:10: HRM401 tool `echo` is also registered in toolset 'other' at "
        "tools/zz_tool.py:26: the registry rejects that registration"
    ]
    later = flake8(project, "--select", "HRM401", "--stdin-display-name", "tools/zz_tool.py", "-",
                   stdin=(project / "tools" / "zz_tool.py").read_text(encoding="utf-8"))
    assert lines_of(later) == [
        "tools/zz_tool.py:26:10: HRM401 tool `echo` is also registered in toolset 'demo' at "
        "tools/echo_tool.py:26: the registry rejects this registration"
    ]


def test_an_unchanged_file_is_answered_from_what_check_stored_without_the_engine(project):
    # The editor's case: a new flake8 process per save, after `hermes-lint check` ran.
    assert HRM004_LINE in hermes_lint_check(project)
    probe = (
        "import sys; from hermes_lint.flake8_plugin import check_buffer; "
        "found = check_buffer('tools/broken_tool.py', open('tools/broken_tool.py', encoding='utf-8').readlines()); "
        "print([d.as_text() for d in found if d.code == 'HRM004']); "
        "print(sorted(set(sys.modules) & {'hermes_lint.check.engine', 'hermes_lint.rules', 'hermes_lint.extract.module_facts'}))"
    )
    completed = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True,
                               timeout=60, env=_env())
    assert completed.stderr == ""
    assert completed.stdout == f"{[HRM004_LINE]}\n[]\n"


def test_stored_diagnostics_are_not_reused_once_the_project_changed(project, monkeypatch):
    monkeypatch.chdir(project)
    assert HRM004_LINE in hermes_lint_check(project)
    broken = project / "tools" / "broken_tool.py"
    fixed = broken.read_text(encoding="utf-8").replace("check_func=", "check_fn=")
    broken.write_text(fixed, encoding="utf-8")
    os.utime(broken, ns=(broken.stat().st_atime_ns, broken.stat().st_mtime_ns + 10**9))
    assert [r for r in run_plugin("tools/broken_tool.py", fixed) if r[2].startswith("HRM004")] == []
    # Nor for a buffer that differs from the file on disk (the project on disk is as stored).
    assert HRM004_LINE not in hermes_lint_check(project)
    flake8_plugin.clear_caches()
    unsaved = fixed.replace("check_fn=", "check_func=")
    assert [r[:3] for r in run_plugin("tools/broken_tool.py", unsaved) if r[2].startswith("HRM004")] == [
        (30, 15, "HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)")
    ]


def test_a_flake8_run_stores_the_diagnostics_the_next_one_reuses(project, monkeypatch):
    monkeypatch.chdir(project)
    text = (project / "tools" / "broken_tool.py").read_text(encoding="utf-8")
    first = run_plugin("tools/broken_tool.py", text)
    assert (30, 15, "HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)", HermesLintChecker) in first
    flake8_plugin.clear_caches()  # the next editor save: a new flake8 process

    def must_not_run(*args, **kwargs):
        raise AssertionError("the project was checked again")

    monkeypatch.setattr(engine, "check_module", must_not_run)
    monkeypatch.setattr(engine, "unsuppressed_diagnostics", must_not_run)
    assert run_plugin("tools/broken_tool.py", text) == first
