"""A project started with ``hermes-lint init`` and ``new-tool`` runs: the reference runtime is
written into it, the scaffolded tool imports and dispatches through that runtime, and the
scaffolded file passes flake8's and ruff's default rules as generated."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_lint.scaffold.reference_runtime import runtime_file_names

REPO_TOOLS = Path(__file__).resolve().parents[1] / "tools"

slow = pytest.mark.slow  # runs the real CLI, flake8 and ruff in subprocesses


def hermes_lint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hermes_lint", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


# Run in the new project's directory: its tools/ must be what `tools` imports, and the tool is
# dispatched through the registry as an agent would (discovery, then dispatch).
DISPATCH = """\
import json, sys
sys.path.insert(0, sys.argv[1])
import tools.registry as runtime
names = runtime.discover_builtin_tools()
print(json.dumps({
    "names": names,
    "registry_file": runtime.__file__,
    "loaded": sorted(m for m in sys.modules if m == "tools" or m.startswith("tools.")),
    "ok": runtime.registry.dispatch("weather", {"input": "rain"}),
    "bad": runtime.registry.dispatch("weather", {"input": ""}),
}))
"""


@slow
def test_init_then_new_tool_gives_a_tool_that_imports_and_dispatches(tmp_path):
    assert hermes_lint(tmp_path, "init").returncode == 0
    assert hermes_lint(tmp_path, "new-tool", "weather").returncode == 0
    ran = subprocess.run(
        [sys.executable, "-I", "-c", DISPATCH, str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""
    found = json.loads(ran.stdout)
    assert found["names"] == ["tools.weather_tool"]  # the modules it imported
    assert Path(found["registry_file"]) == tmp_path / "tools" / "registry.py"  # the project's copy
    assert "tools.weather_tool" in found["loaded"]
    assert json.loads(found["ok"]) == {"input": "rain"}
    assert json.loads(found["bad"]) == {"error": "input must be a non-empty string"}


def test_the_runtime_written_is_every_module_runtime_modules_names(tmp_path):
    from click.testing import CliRunner

    from hermes_lint.cli import main

    result = CliRunner().invoke(main, ["init", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    names = runtime_file_names(REPO_TOOLS)
    assert "registry.py" in names and len(names) > 1
    written = sorted(p.name for p in (tmp_path / "tools").iterdir())
    assert written == sorted(["__init__.py", *names])
    for name in names:
        assert (tmp_path / "tools" / name).read_bytes() == (REPO_TOOLS / name).read_bytes()


def test_a_project_with_its_own_registry_gets_no_reference_modules(tmp_path):
    from click.testing import CliRunner

    from hermes_lint.cli import main

    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "registry.py").write_text("registry = None  # the project's own runtime\n")
    result = CliRunner().invoke(main, ["init", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tools.iterdir()) == ["__init__.py", "registry.py"]
    assert (tools / "registry.py").read_text() == "registry = None  # the project's own runtime\n"
    assert "tools/registry.py (the project's runtime: not replaced): exists, left as it is" in result.stderr


def test_a_runtime_module_already_there_is_never_overwritten(tmp_path):
    from click.testing import CliRunner

    from hermes_lint.cli import main

    names = runtime_file_names(REPO_TOOLS)
    other = next(name for name in names if name != "registry.py")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / other).write_text("# mine\n")
    result = CliRunner().invoke(main, ["init", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tools" / other).read_text() == "# mine\n"
    assert f"tools/{other}: exists, left as it is" in result.stderr
    assert (tmp_path / "tools" / "registry.py").read_bytes() == (REPO_TOOLS / "registry.py").read_bytes()


# (arguments of new-tool, the file it writes): the templates and every generated part whose
# line breaks the generator chooses (a long description, the environment guard and check_fn's
# docstring), at the longest names that fit in 79 columns.
SCAFFOLDS = [
    (["weather"], "weather_tool.py"),
    (["fetch_page", "--async"], "fetch_page_tool.py"),
    (["one_key", "--env", "WEATHER_API_KEY"], "one_key_tool.py"),
    (
        ["a_tool_name_of_thirty_four_letters", "--async", "--env",
         "A_RATHER_LONG_ENVIRONMENT_VARIABLE_NAME,ANOTHER_VARIABLE_THAT_IS_LONG", "--description", "word " * 60],
        "a_tool_name_of_thirty_four_letters_tool.py",
    ),
]


@slow
@pytest.mark.parametrize("args, file_name", SCAFFOLDS, ids=[s[1] for s in SCAFFOLDS])
def test_the_scaffolded_file_passes_flake8_and_ruff_default_rules(tmp_path, args, file_name):
    assert hermes_lint(tmp_path, "init").returncode == 0
    created = hermes_lint(tmp_path, "new-tool", *args)
    assert created.returncode == 0, created.stderr
    path = tmp_path / "tools" / file_name
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", str(path)], capture_output=True, text=True, timeout=120
    )
    assert (flake8.returncode, flake8.stdout, flake8.stderr) == (0, "", "")
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--output-format", "concise", str(path)],
        capture_output=True, text=True, timeout=120,
    )
    assert (ruff.returncode, ruff.stdout) == (0, "All checks passed!\n"), ruff.stdout + ruff.stderr
    checked = hermes_lint(tmp_path, "check")
    assert (checked.returncode, checked.stdout) == (0, ""), checked.stdout
