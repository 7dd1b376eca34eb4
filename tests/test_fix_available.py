"""Whether a finding has a fix, told from the syntax without libcst (``edit.fixable``): always
what the libcst fix itself gives, and what a plain ``check`` reports with libcst never imported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_lint.config import config_from_table
from hermes_lint.check.engine import check_sources
from hermes_lint.edit.fixable import FixableFile
from hermes_lint.rules import all_rules
from hermes_lint.rules.base import Rule

from tests.test_rule_examples import example_sources

DECIDING = [rule for rule in all_rules() if rule.fix_available.__func__ is not Rule.fix_available.__func__]


def _cases():
    for rule in DECIDING:
        for number, example in enumerate(rule.invalid):
            yield pytest.param(rule, example, id=f"{rule.code}-INVALID-{number}")


def test_the_rules_real_projects_meet_decide_from_the_syntax():
    assert sorted(rule.code for rule in DECIDING) == ["HRM203", "HRM314"]


@pytest.mark.parametrize("rule, example", list(_cases()))
def test_the_syntax_tells_what_the_fix_gives(rule, example):
    from hermes_lint.autofix.run import fixes_for
    from hermes_lint.edit.fix.source import FixSource, Texts

    sources = example_sources(example)
    config = config_from_table({"select": [rule.code], **example.options})
    diagnostics = [d for d in check_sources(sources, config) if d.code == rule.code]
    assert diagnostics
    data = {file.path: file.data for file in sources.tool_files}
    fixed = {d for d, _ in fixes_for(diagnostics, FixSource(Texts(data), config))}
    for diagnostic in diagnostics:
        decided = rule.fix_available(diagnostic, FixableFile(data[diagnostic.path]))
        assert decided in (None, diagnostic in fixed), diagnostic


def test_every_example_with_a_fix_is_told_from_the_syntax_but_a_parenthesized_key():
    # the examples are plain literals: the syntax decides all but the one shape it leaves to libcst
    undecided = []
    for rule in DECIDING:
        for example in rule.invalid:
            sources = example_sources(example)
            config = config_from_table({"select": [rule.code], **example.options})
            data = {file.path: file.data for file in sources.tool_files}
            for diagnostic in check_sources(sources, config):
                if diagnostic.code == rule.code and rule.fix_available(diagnostic, FixableFile(data[diagnostic.path])) is None:
                    undecided.append(diagnostic.code)
    assert undecided == []


TOOLSETS = 'TOOLSETS = {"files": {"description": "d", "tools": ["patch", "lights"], "includes": []}}\n'

TOOL = '''
import os
from tools.registry import registry

SCHEMA = {
    "name": "patch",
    "description": "Patch a file.",
    "parameters": {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "description": "How.", DEFAULT_KEY: "replace"},
        },
        "required": ["mode"],
    },
}

registry.register(name="patch", toolset="files", schema=SCHEMA, handler=lambda a, **k: "",
                  check_fn=lambda: True)
registry.register(name="lights", toolset="files", schema={}, handler=lambda a, **k: "",
                  check_fn=lambda: bool(os.getenv("HASS_TOKEN")))
'''


def run_check(root: Path, *options: str, default_key: str = '"default"') -> subprocess.CompletedProcess:
    (root / "tools").mkdir(exist_ok=True)
    (root / "toolsets.py").write_text(TOOLSETS)
    (root / "tools" / "patch_tool.py").write_text(textwrap.dedent(TOOL).lstrip().replace("DEFAULT_KEY", default_key))
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hermes_lint", "check", "--no-cache", "--select", "HRM203,HRM314",
         *options],
        cwd=root, capture_output=True, text=True,
    )


def imported(completed: subprocess.CompletedProcess) -> set:
    return {line.split("|")[-1].strip() for line in completed.stderr.splitlines() if line.startswith("import time:")}


def summary(completed: subprocess.CompletedProcess) -> list:
    return [line for line in completed.stderr.splitlines() if not line.startswith("import time:")]


def test_a_plain_check_counts_the_fixes_without_importing_libcst(tmp_path):
    completed = run_check(tmp_path)
    assert completed.stdout.splitlines() == [
        'tools/patch_tool.py:10:63: HRM314 parameter `mode` is required and has a default "replace": a default '
        "applies only to an argument that may be left out",
        "tools/patch_tool.py:19:41: HRM203 `HASS_TOKEN` is required by the check_fn but not listed in "
        "`requires_env` of tool `lights`",
    ]
    assert summary(completed) == [
        "Found 2 diagnostics in 1 file (2 tools in tools/)", "No safe fixes; 2 with `--fix --unsafe-fixes`",
    ]
    assert "libcst" not in imported(completed)
    # --statistics counts them the same way
    statistics = run_check(tmp_path, "--statistics", "--unsafe-fixes")
    assert "libcst" not in imported(statistics)
    assert [line.split()[:3] for line in statistics.stdout.splitlines()] == [["1", "HRM203", "[*]"], ["1", "HRM314", "[*]"]]


def test_the_json_report_prints_the_edits_and_so_computes_them(tmp_path):
    completed = run_check(tmp_path, "--format", "json")
    assert "libcst" in imported(completed)
    fixes = [finding["fix"]["applicability"] for finding in json.loads(completed.stdout)]
    assert fixes == ["unsafe", "unsafe"]


def test_a_key_the_syntax_cannot_place_is_left_to_the_fix_itself(tmp_path):
    # a parenthesized key is a shape the syntax test does not vouch for: the fix decides, the same
    completed = run_check(tmp_path, default_key='("default")')
    assert "libcst" in imported(completed)
    assert summary(completed)[-1] == "No safe fixes; 2 with `--fix --unsafe-fixes`"
