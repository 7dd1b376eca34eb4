"""The pre-commit hooks (.pre-commit-hooks.yaml), run by the real pre-commit on a git repository.

pre-commit builds a virtual environment and pip-installs this repository into it, so these tests
need PyPI. ``pre-commit try-repo`` always uses a fresh store of its own (it ignores
PRE_COMMIT_HOME), so each try-repo run is one install: the suite runs it twice, once on a bad
project and once on a good one, each time with both hooks. The configuration snippet users paste
is run with ``pre-commit run`` and a PRE_COMMIT_HOME shared by the session: one more install.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "integrations"
# What a run of hermes-lint or Python inside the fixture directory may have left there.
FIXTURE_LEFTOVERS = shutil.ignore_patterns(".hermes_lint_cache", "__pycache__")
HRM004_LINE = "tools/broken_tool.py:30:16: HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)"


def git(cwd: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-c", "user.name=hermes-lint tests", "-c", "user.email=tests@hermes-lint.invalid",
         "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout


def git_init(path: Path) -> None:
    git(path, "init", "--quiet")
    git(path, "add", "-A")
    git(path, "commit", "--quiet", "-m", "initial")


@pytest.fixture(scope="session")
def hooks_repo(tmp_path_factory) -> Path:
    """This checkout as a repository whose HEAD is the working tree, untracked files included.

    (try-repo on a dirty checkout would add only changes to tracked files.)
    """
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    dest = tmp_path_factory.mktemp("hooks-repo")
    for relative in filter(None, listed.split("\0")):
        source = REPO / relative
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (dest / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / relative)
    git_init(dest)
    return dest


def pre_commit(cwd: Path, *args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,
    )


def hook_report(output: str, name: str):
    """(status, what the hook printed) for the hook called ``name`` in pre-commit's output."""
    status_line = re.compile(r"^(?P<name>\S.*?)\.{3,}(?P<status>Passed|Failed|\(no files to check\)Skipped|Skipped)$", re.M)
    matches = list(status_line.finditer(output))
    for index, match in enumerate(matches):
        if match.group("name") == name:
            end = matches[index + 1].start() if index + 1 < len(matches) else len(output)
            return match.group("status"), output[match.end():end]
    raise AssertionError(f"no report of hook {name!r} in:\n{output}")


def make_project(tmp_path: Path, good: bool) -> Path:
    root = tmp_path / ("good" if good else "bad")
    shutil.copytree(FIXTURE, root, ignore=FIXTURE_LEFTOVERS)
    if good:
        (root / "tools" / "broken_tool.py").unlink()
        subprocess.run([sys.executable, "-m", "hermes_lint.cli", "manifest"], cwd=root, check=True, capture_output=True)
    git_init(root)
    return root


@pytest.fixture(scope="session")
def try_repo_runs(hooks_repo, tmp_path_factory):
    """pre-commit try-repo with every hook of this repository, on a bad and on a good project."""
    runs = {}
    for good in (False, True):
        project = make_project(tmp_path_factory.mktemp("try-repo"), good)
        completed = pre_commit(project, "try-repo", str(hooks_repo), "--all-files", home=tmp_path_factory.mktemp("unused-home"))
        runs["good" if good else "bad"] = completed.stdout + completed.stderr
    return runs


def test_try_repo_hermes_lint_fails_on_a_bad_tool(try_repo_runs):
    status, printed = hook_report(try_repo_runs["bad"], "hermes-lint")
    assert status == "Failed", try_repo_runs["bad"]
    assert "- exit code: 1" in printed
    assert HRM004_LINE in printed.splitlines()


def test_try_repo_hermes_lint_passes_on_a_good_tool(try_repo_runs):
    status, printed = hook_report(try_repo_runs["good"], "hermes-lint")
    assert status == "Passed", try_repo_runs["good"]


def test_try_repo_manifest_fails_when_stale_with_the_fix_and_passes_when_fresh(try_repo_runs):
    status, printed = hook_report(try_repo_runs["bad"], "hermes-lint manifest")
    assert status == "Failed", try_repo_runs["bad"]
    assert "hermes-lint manifest" in printed  # the command that regenerates it
    status, printed = hook_report(try_repo_runs["good"], "hermes-lint manifest")
    assert status == "Passed", try_repo_runs["good"]


README_SNIPPET = """\
repos:
  - repo: {repo}
    rev: {rev}
    hooks:
      - id: hermes-lint
      - id: hermes-lint-manifest
"""


def test_config_snippet_checks_the_staged_files_against_the_whole_project(hooks_repo, tmp_path, tmp_path_factory):
    """The README's snippet, run as a commit would run it: on the staged files only."""
    project = make_project(tmp_path, good=False)
    rev = git(hooks_repo, "rev-parse", "HEAD").strip()
    (project / ".pre-commit-config.yaml").write_text(README_SNIPPET.format(repo=hooks_repo, rev=rev), encoding="utf-8")
    git(project, "add", ".pre-commit-config.yaml")
    git(project, "commit", "--quiet", "-m", "pre-commit")
    home = tmp_path_factory.getbasetemp() / "pre-commit-home"  # one install for the session

    # A change to the clean tool: reported clean although tools/broken_tool.py is broken.
    with open(project / "tools" / "echo_tool.py", "a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    git(project, "add", "tools/echo_tool.py")
    completed = pre_commit(project, "run", "hermes-lint", home=home)
    assert hook_report(completed.stdout, "hermes-lint")[0] == "Passed", completed.stdout + completed.stderr
    assert completed.returncode == 0

    # A change to the broken tool: its diagnostic blocks the commit.
    with open(project / "tools" / "broken_tool.py", "a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    git(project, "add", "tools/broken_tool.py")
    completed = pre_commit(project, "run", "hermes-lint", home=home)
    status, printed = hook_report(completed.stdout, "hermes-lint")
    assert status == "Failed" and completed.returncode == 1, completed.stdout + completed.stderr
    assert HRM004_LINE in printed.splitlines()
