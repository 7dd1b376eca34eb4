"""Rule codes and providers named on the command line or in the configuration are checked:
a typo is exit 2 with "did you mean", never a linter that silently checks nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hermes_lint.config import known_codes
from hermes_lint.rules import all_rules
from tests.test_cli import GOOD_TOOL, make_project, run

BAD = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
HRM004_LINE = "tools/echo_tool.py:30:5: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)"


def test_known_codes_are_the_catalogue():
    assert known_codes() == tuple(rule.code for rule in all_rules())


@pytest.mark.parametrize(
    "args, error",
    [
        (["--select", "XYZ"], "--select: unknown rule code or prefix 'XYZ' (see `hermes-lint rules`)"),
        (["--select", "HRM999"], "--select: unknown rule code or prefix 'HRM999' (did you mean 'HRM900'?)"),
        (["--select", "HRM1O1"], "--select: unknown rule code or prefix 'HRM1O1' (did you mean 'HRM101'?)"),
        (["--select", "hrmx"], "--select: unknown rule code or prefix 'HRMX' (did you mean 'HRM'?)"),
        (["--select", ""], "--select is empty: give rule codes or prefixes such as HRM1 or HRM101"),
        (["--select", " , "], "--select is empty: give rule codes or prefixes such as HRM1 or HRM101"),
        (["--select", "HRM004,HRM00X"], "--select: unknown rule code or prefix 'HRM00X' (did you mean 'HRM001'?)"),
        (["--ignore", "HRM10X"], "--ignore: unknown rule code or prefix 'HRM10X' (did you mean 'HRM101'?)"),
        (["--extend-select", "HRN"], "--extend-select: unknown rule code or prefix 'HRN' (did you mean 'HRM'?)"),
        (["--provider", "openai,gemni"], "--provider: unknown provider 'gemni' (did you mean 'gemini'? known: "
                                         "openai, openai-strict, anthropic, anthropic-strict, gemini, moonshot, mcp, llamacpp, perplexity)"),
    ],
    ids=["nothing-like", "code", "letter-o", "prefix", "empty", "only-commas", "second", "ignore", "extend", "provider"],
)
def test_unknown_code_on_the_command_line_is_exit_2_with_a_suggestion(tmp_path, args, error):
    make_project(tmp_path, {"echo_tool.py": BAD})
    result = run(["check", *args], tmp_path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"hermes-lint: error: {error}\n"


@pytest.mark.parametrize(
    "table, error",
    [
        ('select = ["HRMX"]', "[tool.hermes-lint] select: unknown rule code or prefix 'HRMX' (did you mean 'HRM'?)"),
        ("select = []", "[tool.hermes-lint] select is empty: give rule codes or prefixes such as HRM1 or HRM101"),
        ('ignore = ["HRM2O1"]', "[tool.hermes-lint] ignore: unknown rule code or prefix 'HRM2O1' (did you mean 'HRM201'?)"),
        ('extend-select = ["XYZ"]', "[tool.hermes-lint] extend-select: unknown rule code or prefix 'XYZ' (see `hermes-lint rules`)"),
        ('per-file-ignores = { "tools/a_tool.py" = ["HRM1O1"] }',
         "[tool.hermes-lint] per-file-ignores \"tools/a_tool.py\": unknown rule code or prefix 'HRM1O1' (did you mean 'HRM101'?)"),
        ('selct = ["HRM"]', "[tool.hermes-lint]: unknown key 'selct' (did you mean 'select'? known: docs-url, "
                            "env-readers, exclude, extend-exclude, extend-select, force-exclude, ignore, known-dynamic-tools, manifest, "
                            "max-description-length, per-file-ignores, plugin-dirs, providers, select, src, strict, tools-dir, toolsets-file)"),
    ],
    ids=["select", "select-empty", "ignore", "extend-select", "per-file-ignores", "key"],
)
def test_unknown_code_in_the_configuration_is_exit_2_with_a_suggestion(tmp_path, table, error):
    make_project(tmp_path, {"echo_tool.py": BAD}, pyproject=f"[tool.hermes-lint]\n{table}\n")
    result = run(["check"], tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"hermes-lint: error: {error}\n"


@pytest.mark.parametrize("code", ["ALL", "H", "HRM", "HRM0", "HRM00", "HRM004", "hrm004"])
def test_codes_prefixes_and_all_are_accepted(tmp_path, code):
    make_project(tmp_path, {"echo_tool.py": BAD})
    result = run(["check", "--select", code], tmp_path)
    assert result.exit_code == 1
    assert HRM004_LINE in result.stdout.splitlines()


def test_extend_select_adds_to_the_selection_and_select_replaces_the_configured_extension(tmp_path):
    broken = BAD.replace('"echo"', '"Echo tool!"')  # + HRM308: the name breaks the provider rule
    make_project(
        tmp_path, {"echo_tool.py": broken},
        pyproject='[tool.hermes-lint]\nselect = ["HRM004"]\nextend-select = ["HRM308"]\n',
    )
    codes = lambda result: sorted({line.split(" ")[1] for line in result.stdout.splitlines()})  # noqa: E731
    assert "HRM308" in codes(run(["check"], tmp_path))
    assert "HRM004" in codes(run(["check"], tmp_path))
    assert "HRM308" not in codes(run(["check", "--select", "HRM004"], tmp_path))
    assert "HRM308" in codes(run(["check", "--select", "HRM004", "--extend-select", "HRM3"], tmp_path))


def test_comma_separated_providers(tmp_path):
    gemini_drops = GOOD_TOOL.replace('"required": [],', '"required": [],\n        "additionalProperties": False,')
    make_project(tmp_path, {"echo_tool.py": gemini_drops})
    codes = lambda *args: {line.split(" ")[1] for line in run(["check", *args], tmp_path).stdout.splitlines()}  # noqa: E731
    assert "HRM604" not in codes("--provider", "openai")
    assert "HRM604" in codes("--provider", "openai,gemini")
    assert "HRM604" in codes("--provider", "openai", "--provider", "mcp,gemini")


def test_a_typo_is_exit_2_in_a_real_process(tmp_path):
    make_project(tmp_path, {"echo_tool.py": BAD})
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--select", "HRM999"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert (completed.returncode, completed.stdout) == (2, "")
    assert completed.stderr == "hermes-lint: error: --select: unknown rule code or prefix 'HRM999' (did you mean 'HRM900'?)\n"
