"""``hermes-lint init``: starting from nothing, never overwriting; and new-tool's hints."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from hermes_lint.cli import main
from hermes_lint.cli.init import CONFIG_TABLE, TOOLSETS_TEMPLATE
from hermes_lint.scaffold.reference_runtime import runtime_file_names

REPO_TOOLS = Path(__file__).resolve().parents[1] / "tools"


def run(args, cwd):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_new_tool_in_an_empty_directory_says_how_to_start(tmp_path):
    result = run(["new-tool", "weather"], tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (
        "hermes-lint: error: no project found: no toolsets.py, [tool.hermes-lint] table, `hermes_agent.plugins` "
        "entry point or plugin.yaml in this directory or its parents; pass --root DIR (or run `hermes-lint init` "
        "to start one)\n"
    )
    (tmp_path / "pyproject.toml").write_text("[tool.hermes-lint]\n")
    result = run(["new-tool", "weather"], tmp_path)
    assert result.exit_code == 2
    assert "(`hermes-lint init` creates one)" in result.stderr
    assert snapshot(tmp_path) == {"pyproject.toml": b"[tool.hermes-lint]\n"}


def test_init_then_new_tool_then_check_is_clean(tmp_path):
    result = run(["init"], tmp_path)
    assert result.exit_code == 0, result.output
    runtime = runtime_file_names(REPO_TOOLS)
    assert result.stdout.splitlines()[: 4 + len(runtime)] == [
        "created tools/",
        "created tools/__init__.py",
        "created toolsets.py",
        *[f"created tools/{name}" for name in runtime],
        "created pyproject.toml ([tool.hermes-lint])",
    ]
    assert snapshot(tmp_path) == {
        "pyproject.toml": CONFIG_TABLE.encode(),
        "tools/__init__.py": b"",
        "toolsets.py": TOOLSETS_TEMPLATE.encode(),
        **{f"tools/{name}": (REPO_TOOLS / name).read_bytes() for name in runtime},
    }
    assert "TOOLSETS = {\n}\n" in TOOLSETS_TEMPLATE
    created = run(["new-tool", "weather", "--core"], tmp_path)
    assert created.exit_code == 0, created.output
    assert '"weather",' in (tmp_path / "toolsets.py").read_text()
    checked = run(["check"], tmp_path)
    assert (checked.exit_code, checked.stdout) == (0, "")


def test_init_never_overwrites_and_appends_the_table_to_an_existing_pyproject(tmp_path):
    (tmp_path / "toolsets.py").write_text("TOOLSETS = {'mine': {}}\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "agent"\n')
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    result = run(["init", "--pre-commit"], tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "toolsets.py").read_text() == "TOOLSETS = {'mine': {}}\n"
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    assert (tmp_path / "pyproject.toml").read_text() == '[project]\nname = "agent"\n\n' + CONFIG_TABLE
    assert "toolsets.py: exists, left as it is" in result.stderr
    assert ".pre-commit-config.yaml (add the hook from hermes-lint's README by hand): exists, left as it is" in result.stderr
    before = snapshot(tmp_path)
    again = run(["init", "--pre-commit"], tmp_path)
    assert again.exit_code == 2
    assert again.stderr.endswith("hermes-lint: error: nothing to do: . already has a hermes-lint project\n")
    assert snapshot(tmp_path) == before


def test_init_refuses_a_pyproject_that_is_not_toml_and_writes_nothing_to_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project\n")
    result = run(["init", str(tmp_path)], tmp_path)
    assert result.exit_code == 2
    assert result.stderr.endswith(f"{tmp_path / 'pyproject.toml'}:1:9: not valid TOML: Expected ']' at the end of a table declaration\n")
    assert snapshot(tmp_path) == {"pyproject.toml": b"[project\n"}


def test_new_tool_drops_a_tool_suffix_and_says_so(tmp_path):
    run(["init"], tmp_path)
    result = run(["new-tool", "weather_tool"], tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tools" / "weather_tool.py").is_file()
    assert not (tmp_path / "tools" / "weather_tool_tool.py").exists()
    assert "note: the tool is named 'weather', its file weather_tool.py" in result.stderr
    assert 'name="weather"' in (tmp_path / "tools" / "weather_tool.py").read_text()


def test_the_readme_quick_start_runs_as_written(tmp_path):
    import re
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```\n(.*?)```", readme, re.S) if b.startswith("hermes-lint init\n")]
    commands = [line.split("#")[0].split() for line in block.splitlines()]
    for command in commands:
        assert command[0] == "hermes-lint"
        completed = subprocess.run(
            [sys.executable, "-m", "hermes_lint", *command[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
        assert completed.returncode == 0, (command, completed.stdout, completed.stderr)
    assert completed.stdout == "" and completed.stderr == "All checks passed (1 tool in tools/)\n"
    assert (tmp_path / "tools" / "weather_tool.py").is_file()
