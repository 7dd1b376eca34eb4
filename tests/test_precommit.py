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
HRM004_LINE = "tools/broken_tool.py:30:16: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)"


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


def pre_commit(cwd: Path, *args: str, home: Path, extra_env: dict = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", PYTHONIOENCODING="utf-8")
    env.update(extra_env or {})
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
        subprocess.run([sys.executable, "-m", "hermes_lint", "manifest"], cwd=root, check=True, capture_output=True)
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


def readme_snippet() -> str:
    """The ``.pre-commit-config.yaml`` the README tells users to paste, exactly."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    (snippet,) = [block for block in blocks if "repo: local" in block]
    return snippet


def local_env() -> dict:
    """pre-commit's ``language: system`` finds ``hermes-lint`` on PATH: this environment's."""
    return {"PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}


@pytest.fixture
def snippet_project(tmp_path) -> Path:
    """The fixture project with the README's snippet committed, both tools listed (so that the
    only findings are broken_tool.py's own), and a fresh manifest."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root, ignore=FIXTURE_LEFTOVERS)
    toolsets = root / "toolsets.py"
    toolsets.write_text(toolsets.read_text().replace('["echo"]', '["echo", "broken"]'))
    (root / ".pre-commit-config.yaml").write_text(readme_snippet(), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "hermes_lint", "manifest"], cwd=root, check=True, capture_output=True)
    git_init(root)
    return root


def run_hooks(project: Path, home: Path, *hook: str):
    completed = pre_commit(project, "run", *hook, home=home, extra_env=local_env())
    return completed, completed.stdout + completed.stderr


def reset(project: Path) -> None:
    git(project, "reset", "--quiet", "--hard", "HEAD")


def test_readme_snippet_runs_the_project_rules_on_every_change(snippet_project, tmp_path):
    project, home = snippet_project, tmp_path / "home"

    # Nothing staged: both hooks run (always_run) and pass on a clean, fresh project.
    completed, output = run_hooks(project, home)
    assert completed.returncode == 0, output
    assert hook_report(completed.stdout, "hermes-lint")[0] == "Passed"
    assert hook_report(completed.stdout, "hermes-lint manifest")[0] == "Passed"

    # A change to the clean tool: broken_tool.py's own findings are not this commit's.
    with open(project / "tools" / "echo_tool.py", "a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    git(project, "add", "tools/echo_tool.py")
    completed, output = run_hooks(project, home, "hermes-lint")
    assert hook_report(completed.stdout, "hermes-lint")[0] == "Passed", output
    # ... but the manifest hook sees that the manifest no longer matches the edited tool.
    completed, output = run_hooks(project, home, "hermes-lint-manifest")
    status, printed = hook_report(completed.stdout, "hermes-lint manifest")
    assert status == "Failed" and "HRM501" in printed, output
    reset(project)

    # A change to the broken tool: its diagnostic blocks the commit.
    with open(project / "tools" / "broken_tool.py", "a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    git(project, "add", "tools/broken_tool.py")
    completed, output = run_hooks(project, home, "hermes-lint")
    status, printed = hook_report(completed.stdout, "hermes-lint")
    assert status == "Failed" and completed.returncode == 1, output
    assert HRM004_LINE in printed.splitlines()
    reset(project)

    # A tool removed from toolsets.py: reported in the unchanged tool file.
    toolsets = project / "toolsets.py"
    toolsets.write_text(toolsets.read_text().replace('["echo", "broken"]', '["broken"]'))
    git(project, "add", "toolsets.py")
    completed, output = run_hooks(project, home, "hermes-lint")
    status, printed = hook_report(completed.stdout, "hermes-lint")
    assert status == "Failed" and completed.returncode == 1, output
    assert (
        "tools/echo_tool.py:26:10: HRM404 [*] tool `echo` is registered, but no toolset in toolsets.py "
        "lists it, and toolsets.py does not add registered tools to their toolset 'demo': no agent is offered it"
    ) in printed.splitlines()
    assert "HRM004" not in printed
    reset(project)

    # A tool file deleted: no Python file is passed, the hook still runs and finds the name that
    # toolsets.py lists and nothing registers any more.
    git(project, "rm", "--quiet", "tools/echo_tool.py")
    completed, output = run_hooks(project, home, "hermes-lint")
    status, printed = hook_report(completed.stdout, "hermes-lint")
    assert status == "Failed" and completed.returncode == 1, output
    assert [line for line in printed.splitlines() if "HRM" in line] == [
        "toolsets.py:2:53: HRM403 tool `echo` is listed in toolset 'demo' but no tool module registers it"
    ]


def test_init_pre_commit_config_runs_with_real_pre_commit(tmp_path):
    project = tmp_path / "agent"
    project.mkdir()
    for args in (["init", "--pre-commit"], ["new-tool", "weather"]):
        subprocess.run([sys.executable, "-m", "hermes_lint", *args], cwd=project, check=True, capture_output=True)
    git_init(project)
    completed, output = run_hooks(project, tmp_path / "home")
    assert completed.returncode == 0, output
    assert hook_report(completed.stdout, "hermes-lint")[0] == "Passed"
    # The tool removed from toolsets.py: the commit is refused.
    toolsets = project / "toolsets.py"
    toolsets.write_text(toolsets.read_text().replace('"weather",\n', ""))
    git(project, "add", "toolsets.py")
    completed, output = run_hooks(project, tmp_path / "home")
    status, printed = hook_report(completed.stdout, "hermes-lint")
    assert status == "Failed" and "HRM404 [*] tool `weather` is registered, but no toolset" in printed, output


def test_a_commit_that_changes_only_a_tool_s_schema_module_is_checked_for_that_tool(tmp_path):
    """The hook passes the changed file only: the tool that reads its schema from it is checked."""
    from tests.test_findings_across_files import HRM306_LINE, SCHEMA_MODULE, scaffold

    project = tmp_path / "agent"
    project.mkdir()
    scaffold(project, ("init", "--pre-commit"))
    git_init(project)
    completed, output = run_hooks(project, tmp_path / "home", "hermes-lint")
    assert hook_report(completed.stdout, "hermes-lint")[0] == "Passed", output

    (project / "tools" / "weather_schema.py").write_text(SCHEMA_MODULE)  # a description deleted
    git(project, "add", "tools/weather_schema.py")
    completed, output = run_hooks(project, tmp_path / "home", "hermes-lint")
    status, printed = hook_report(completed.stdout, "hermes-lint")
    assert status == "Failed" and completed.returncode == 1, output
    assert [line for line in printed.splitlines() if "HRM" in line] == [HRM306_LINE]
