"""Which project a command checks (from --root, the PATHS, or the current directory), what
``check --changed`` reports, and ``python -m hermes_lint``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.test_cli import GOOD_TOOL, make_project, run

BAD = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
UNLISTED = GOOD_TOOL.replace('"echo"', '"other"').replace("echo", "other")


def test_root_is_found_from_the_paths_given_not_only_the_current_directory(tmp_path):
    project = make_project(tmp_path / "project", {"echo_tool.py": BAD})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run(["check", "--select", "HRM004", str(project / "tools" / "echo_tool.py")], elsewhere)
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines() == [  # relative to the current directory, as ruff prints it
        "../project/tools/echo_tool.py:30:5: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)"
    ]
    # A directory works too, and so does the configuration found there.
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\nignore = ["HRM004"]\n')
    result = run(["check", "--select", "HRM004", str(project)], elsewhere)
    assert (result.exit_code, result.stdout) == (0, "")


def test_paths_of_two_projects_are_refused(tmp_path):
    one = make_project(tmp_path / "one", {"echo_tool.py": GOOD_TOOL})
    two = make_project(tmp_path / "two", {"echo_tool.py": GOOD_TOOL})
    result = run(["check", str(one / "tools"), str(two / "tools")], tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"hermes-lint: error: {one / 'tools'} and {two / 'tools'} belong to different projects "
        f"({one} and {two}): check each project on its own\n"
    )


def test_no_project_says_how_to_start_one(tmp_path):
    result = run(["check"], tmp_path)
    assert result.exit_code == 2
    assert "pass --root DIR (or run `hermes-lint init` to start one)" in result.stderr


def test_changed_reports_its_files_and_project_findings_everywhere(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL, "other_tool.py": UNLISTED, "bad_tool.py": "def f(:\n"})
    (tmp_path / "notes.py").write_text("x = 1\n")
    hrm404 = (
        "tools/other_tool.py:26:10: HRM404 [*] tool `other` is registered, but no toolset in toolsets.py "
        "lists it, and toolsets.py does not add registered tools to their toolset 'demo': no agent is offered it"
    )
    # No paths (a commit that deleted a file, or changed only pyproject.toml): the project rules.
    result = run(["check", "--changed"], tmp_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [hrm404]
    # The changed files' own findings, and the project's, wherever they are.
    result = run(["check", "--changed", "tools/bad_tool.py", "notes.py"], tmp_path)
    assert result.stdout.splitlines() == ["tools/bad_tool.py:1:7: HRM001 syntax error: invalid syntax", hrm404]
    # Without --changed, a path limits the report to that file.
    assert run(["check", "tools/echo_tool.py"], tmp_path).stdout == ""


def test_changed_ignores_paths_outside_the_project(tmp_path):
    project = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL})
    (tmp_path / "setup.py").write_text("x = 1\n")
    result = run(["check", "--changed", "setup.py", "project/tools/echo_tool.py", "gone.py"], tmp_path)
    assert (result.exit_code, result.stdout) == (0, "")
    result = run(["check", str(tmp_path / "setup.py")], project)
    assert result.exit_code == 2
    assert f"is outside the project root {project.resolve()}" in result.stderr


def test_python_dash_m_hermes_lint_is_the_command(tmp_path):
    make_project(tmp_path, {"echo_tool.py": BAD})
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--select", "HRM004"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout == "tools/echo_tool.py:30:5: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)\n"
    usage = subprocess.run([sys.executable, "-m", "hermes_lint", "--help"], capture_output=True, text=True, timeout=60)
    assert usage.stdout.startswith("Usage: hermes-lint [OPTIONS] COMMAND [ARGS]...")
