"""The command line as users meet it: exit codes, formats, paths, configuration, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hermes_lint import __version__
from hermes_lint.cli import main
from hermes_lint.report.rule_docs import rendered_pages

# The clean tool file the integration tests (flake8, pre-commit) use too: one copy, so a rule
# change that makes it unclean fails everywhere at once.
GOOD_TOOL = (Path(__file__).parent / "fixtures" / "integrations" / "tools" / "echo_tool.py").read_text()

TOOLSETS = '''\
TOOLSETS = {
    "demo": {"description": "Demo tools", "tools": ["echo"], "includes": []},
}
'''


def make_project(root: Path, tools: dict, toolsets: str = TOOLSETS, pyproject: str = "") -> Path:
    (root / "tools").mkdir(parents=True, exist_ok=True)
    (root / "toolsets.py").write_text(toolsets)
    for name, text in tools.items():
        target = root / "tools" / name
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text)
    if pyproject:
        (root / "pyproject.toml").write_text(pyproject)
    return root


def run(args, cwd: Path):
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def test_clean_project_exits_zero_and_prints_nothing(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    result = run(["check"], tmp_path)
    assert result.stdout == ""
    assert result.exit_code == 0


def test_text_format_is_path_line_col_code_message_sorted(tmp_path):
    bad = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
    make_project(tmp_path, {"echo_tool.py": bad, "aaa_tool.py": "def broken(:\n"})
    result = run(["check", "--select", "HRM001,HRM004"], tmp_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "tools/aaa_tool.py:1:12: HRM001 syntax error: invalid syntax",
        "tools/echo_tool.py:30:5: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)",
    ]


def test_json_format_is_an_array_of_objects(tmp_path):
    bad = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
    make_project(tmp_path, {"echo_tool.py": bad})
    result = run(["check", "--select", "HRM004", "--format", "json"], tmp_path)
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {
            "path": "tools/echo_tool.py",
            "line": 30,
            "col": 5,
            "code": "HRM004",
            "message": "unknown keyword `check_func=` (did you mean `check_fn=`?)",
            "filename": str(tmp_path / "tools" / "echo_tool.py"),
            # the page installed with the package (here: the source checkout's docs/rules/)
            "url": (Path(__file__).resolve().parents[1] / "docs" / "rules" / "HRM004.md").as_uri(),
            "fix": {
                "applicability": "safe",
                "message": "rename an unknown keyword to the one registry keyword it is close to "
                "(`check_func=` becomes `check_fn=`)",
                "edits": [
                    {
                        "path": "tools/echo_tool.py",
                        "content": "check_fn",
                        "location": {"line": 30, "col": 5},
                        "end_location": {"line": 30, "col": 15},
                    }
                ],
            },
        }
    ]


def test_exit_zero_reports_but_succeeds(tmp_path):
    make_project(tmp_path, {"aaa_tool.py": "def broken(:\n"})
    result = run(["check", "--exit-zero", "--select", "HRM001"], tmp_path)
    assert result.exit_code == 0
    assert "HRM001" in result.stdout


def test_paths_limit_the_report_to_those_files(tmp_path):
    make_project(tmp_path, {"aaa_tool.py": "def broken(:\n", "bbb_tool.py": "def broken(:\n"})
    result = run(["check", "--select", "HRM001", "tools/bbb_tool.py"], tmp_path)
    assert result.stdout.splitlines() == ["tools/bbb_tool.py:1:12: HRM001 syntax error: invalid syntax"]


def test_missing_path_is_a_usage_error(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    result = run(["check", "tools/nope.py"], tmp_path)
    assert result.exit_code == 2
    assert "tools/nope.py: no such file or directory" in result.output


def test_no_project_found_is_a_usage_error(tmp_path):
    result = run(["check"], tmp_path)
    assert result.exit_code == 2
    assert "no project found" in result.output


def test_unknown_config_key_is_an_error_naming_it(tmp_path):
    make_project(
        tmp_path, {"echo_tool.py": GOOD_TOOL}, pyproject='[tool.hermes-lint]\ningore = ["HRM201"]\n'
    )
    result = run(["check"], tmp_path)
    assert result.exit_code == 2
    assert "unknown key 'ingore'" in result.output


def test_config_ignore_and_per_file_ignores(tmp_path):
    make_project(
        tmp_path,
        {"aaa_tool.py": "def broken(:\n", "bbb_tool.py": "def broken(:\n"},
        pyproject='[tool.hermes-lint]\nper-file-ignores = { "tools/aaa_tool.py" = ["HRM001"] }\n',
    )
    result = run(["check", "--select", "HRM001"], tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["tools/bbb_tool.py"]
    result = run(["check", "--select", "HRM001", "--ignore", "HRM001"], tmp_path)
    assert result.stdout == "" and result.exit_code == 0


def test_noqa_suppresses_and_unused_noqa_is_reported(tmp_path):
    bad = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,  # noqa: HRM004")
    bad = bad.replace("import json\n", "import json  # noqa: HRM101\n")
    make_project(tmp_path, {"echo_tool.py": bad})
    result = run(["check", "--select", "HRM004,HRM900,HRM101"], tmp_path)
    assert result.stdout.splitlines() == [
        "tools/echo_tool.py:2:14: HRM900 [*] unused `# noqa` for HRM101: it suppresses nothing"
    ]


def test_bare_noqa_suppresses_everything_on_its_line(tmp_path):
    bad = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,  # noqa")
    make_project(tmp_path, {"echo_tool.py": bad})
    assert run(["check", "--select", "HRM004,HRM900"], tmp_path).stdout == ""


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"def f(:\n", "tools/bad_tool.py:1:7: HRM001 syntax error: invalid syntax"),
        (b"x = 1\ny = '\xff'\n", "tools/bad_tool.py:2:6: HRM001 file is not valid UTF-8: invalid start byte"),
        (b"x = 1\x00\n", "tools/bad_tool.py:1:6: HRM001 file contains a NUL byte"),
        (b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n", "tools/bad_tool.py:1:205: HRM001 syntax error: too many nested parentheses"),
        (b"x = " + b"-" * 200000 + b"1\n", "tools/bad_tool.py:1:1: HRM001 file is too deeply nested to parse"),
    ],
    ids=["syntax", "utf8", "nul", "parens", "recursion"],
)
def test_bad_input_is_a_diagnostic_and_other_files_are_still_checked(tmp_path, content, expected):
    bad_other = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
    make_project(tmp_path, {"bad_tool.py": content, "echo_tool.py": bad_other})
    result = run(["check", "--select", "HRM001,HRM004"], tmp_path)
    assert result.stdout.splitlines() == [
        expected,
        "tools/echo_tool.py:30:5: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)",
    ]


def test_empty_file_and_directory_named_like_a_module(tmp_path):
    make_project(tmp_path, {"empty_tool.py": ""})
    (tmp_path / "tools" / "dir_tool.py").mkdir()
    result = run(["check", "--select", "HRM001"], tmp_path)
    assert result.stdout.splitlines() == [
        "tools/dir_tool.py:1:1: HRM001 cannot be read: it is a directory, not a file"
    ]


def test_very_large_file_is_checked(tmp_path):
    filler = "".join(f"CONSTANT_{i} = {i}\n" for i in range(50_000))
    bad = filler + GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
    make_project(tmp_path, {"big_tool.py": bad})
    result = run(["check", "--select", "HRM004"], tmp_path)
    assert result.stdout.startswith("tools/big_tool.py:50030:5: HRM004")


def test_checking_never_imports_or_runs_the_analysed_code(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    created = tmp_path / "created.txt"
    hostile = textwrap.dedent(
        f"""
        import os, pathlib
        pathlib.Path({str(created)!r}).write_text("ran")
        os.remove({str(victim)!r})
        from tools.registry import registry
        def _handle(args, **kw):
            return os.remove({str(victim)!r})
        registry.register(name=pathlib.Path({str(created)!r}).write_text("x"), toolset="demo",
                          schema=__import__("os").remove({str(victim)!r}), handler=_handle)
        """
    )
    make_project(tmp_path, {"hostile_tool.py": hostile})
    run(["check"], tmp_path)
    assert victim.read_text() == "keep me"
    assert not created.exists()


def test_rules_lists_every_code_and_explain_prints_the_doc(tmp_path):
    result = run(["rules"], tmp_path)
    assert "HRM004  register() call with a missing required argument or an unknown keyword" in result.output.splitlines()
    explained = run(["explain", "hrm004"], tmp_path)
    assert explained.output.startswith(
        "# HRM004: register() call with a missing required argument or an unknown keyword\n\n## What it does\n"
    )
    assert explained.output == rendered_pages()["HRM004.md"]
    unknown = run(["explain", "HRM999"], tmp_path)
    assert unknown.exit_code == 2


def test_console_script_runs_as_a_real_process(tmp_path):
    make_project(tmp_path, {"aaa_tool.py": "def broken(:\n"})
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--select", "HRM001"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 1
    assert completed.stdout == "tools/aaa_tool.py:1:12: HRM001 syntax error: invalid syntax\n"


def test_check_imports_none_of_the_other_commands_modules(tmp_path):
    """``check`` (what pre-commit runs on every commit) loads neither the other subcommands'
    modules nor what only they use: their start-up cost is not paid on every run."""
    import subprocess
    import sys

    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    script = (
        "import sys\n"
        "from hermes_lint.cli import main\n"
        "try:\n"
        "    main(['check', '--root', sys.argv[1]])\n"
        "except SystemExit as exit:\n"
        "    loaded = {'hermes_lint.cli.new_tool', 'hermes_lint.cli.manifest', 'hermes_lint.cli.diff',\n"
        "              'libcst', 'jsonschema', 'tomllib'} & set(sys.modules)\n"
        "    print(exit.code, sorted(loaded))\n"
    )
    completed = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, check=True)
    assert completed.stdout.split("\n")[-2] == "0 []"
