"""The start of ``check`` and ``manifest`` without click (``cli.hook_start``): it takes exactly
the command lines whose meaning does not depend on who parses them, gives the run the
parameters click would, and what the user sees is the same either way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from hermes_lint.cli import hook_start
from hermes_lint.cli.check import check
from hermes_lint.cli.manifest import manifest
from hermes_lint.cli.options import CHECK, MANIFEST
from tests.test_cli import GOOD_TOOL, make_project
from tests.test_warm_hooks import SHOUT, TOOLSETS

REPO_ROOT = Path(__file__).resolve().parents[1]
CLICK_COMMANDS = {"check": check, "manifest": manifest}


def click_params(argv):
    command = CLICK_COMMANDS[argv[0]]
    return command.make_context(argv[0], list(argv[1:])).params


def every_flag(table):
    return sorted(table.flag_values())


TAKEN = [
    ["check"],
    ["check", "--changed"],
    ["check", "--changed", "tools/a_tool.py", "toolsets.py", "README.md"],
    ["check", "tools/a_tool.py", "--changed", "-q", "tools/b_tool.py"],
    ["check", "--force-exclude", "--changed", "x.py"],
    ["check", "--no-force-exclude", "x.py"],
    ["check", "--strict", "--exit-zero", "--no-cache", "--debug"],
    ["check", "--changed", "--changed", "x.py", "x.py"],
    ["manifest"],
    ["manifest", "--check"],
    ["manifest", "--diff", "--debug"],
    *(["check", flag, "tools/a_tool.py"] for flag in every_flag(CHECK)),
    *(["manifest", flag] for flag in every_flag(MANIFEST)),
]


@pytest.mark.parametrize("argv", TAKEN, ids=" ".join)
def test_a_command_line_it_takes_gets_the_parameters_click_gives_it(argv):
    assert hook_start.parse(argv) == (argv[0], click_params(argv))


LEFT_TO_CLICK = [
    [],
    ["rules"],
    ["check", "--help"],
    ["check", "-h"],
    ["check", "--select", "HRM001"],
    ["check", "--select=HRM001"],
    ["check", "-j", "1"],
    ["check", "-qw"],  # grouped short flags
    ["check", "-"],  # stdin
    ["check", "--", "--changed"],  # a path named like a flag
    ["check", "--chang"],  # click says what is wrong
    ["check", "--changed=1"],
    ["manifest", "tools"],  # manifest takes no path: click's usage error
    ["manifest", "--output", "m.json"],
    ["manifest", "--format", "json", "--check"],
    ["--version"],
    ["check.py"],
]


@pytest.mark.parametrize("argv", LEFT_TO_CLICK, ids=lambda argv: " ".join(argv) or "(none)")
def test_a_command_line_with_anything_else_is_left_to_click(argv):
    assert hook_start.parse(argv) is None


@pytest.mark.parametrize("command", [CHECK, MANIFEST], ids=lambda command: command.name)
def test_the_tables_flags_are_the_click_commands_flags(command):
    """Every option of the click command that takes no value is a flag the table knows, setting the
    same parameter, and the table knows no other; the other parameters' defaults are click's."""
    click_command = CLICK_COMMANDS[command.name]
    flags = {}
    for param in click_command.params:
        if isinstance(param, click.Option) and param.is_flag:
            flags.update({opt: (param.name, True) for opt in param.opts})
            flags.update({opt: (param.name, False) for opt in param.secondary_opts})
    assert command.flag_values() == flags
    assert command.defaults() == click_params([command.name])


# What a warm commit hook of a project without plugins has no use for: click, the fixing and
# schema-validating libraries, the manifest's generator (once the manifest is recorded up to
# date), what only a plugin's finding needs, following a plugin's ``register``, and the
# readers of packaging files the project does not have (setup.cfg's configparser).
UNNEEDED = ["click", "configparser", "hermes_lint.manifest.generate", "hermes_lint.project.entry_point_target",
            "hermes_lint.project.plugin_register", "jsonschema", "libcst"]

# Runs the command line as the console script does (``main()``) or through the click group
# itself (``main.main``: never the start without click), then prints its exit status and
# which of UNNEEDED were imported.
SCRIPT = f"""
import json, sys
from hermes_lint.cli import main
start = main if sys.argv[1] == "entry" else main.main
sys.argv[:] = sys.argv[2:]
try:
    start()
except SystemExit as exit:
    code = exit.code
print(json.dumps([code, sorted(set({UNNEEDED!r}) & set(sys.modules))]), file=sys.stderr)
"""


def run(root: Path, how: str, *args: str):
    """(exit status, stdout, stderr without the last line, modules of interest imported)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = str(REPO_ROOT)
    done = subprocess.run([sys.executable, "-c", SCRIPT, how, "hermes-lint", *args], cwd=root, capture_output=True,
                          text=True, timeout=120, env=environment)
    *messages, last = done.stderr.splitlines()
    code, loaded = json.loads(last)
    return code, done.stdout, messages, loaded


def projects(tmp_path: Path, tools: dict, **options):
    """Two copies of one project: one for each start, each keeping its own caches."""
    return tuple(make_project(tmp_path / name, tools, **options) for name in ("entry", "click"))


def both(roots, *args: str):
    """The command line's result through the start without click (on the first project), and
    through click (on the second; its parsing and handling of errors is the reference): the
    same, and what each imported."""
    fast = run(roots[0], "entry", *args)
    slow = run(roots[1], "click", *args)
    assert fast[:3] == slow[:3]
    return fast[:3], fast[3], slow[3]


def edit(roots, path: str, text: str) -> None:
    for root in roots:
        (root / path).write_text(text, encoding="utf-8")


def test_the_hooks_on_a_clean_project_say_the_same_without_importing_click(tmp_path):
    roots = projects(tmp_path, {"echo_tool.py": GOOD_TOOL})
    result, loaded, loaded_by_click = both(roots, "manifest")
    assert result[0] == 0 and "click" not in loaded and "click" in loaded_by_click
    for args in (["check", "--changed", "tools/echo_tool.py"], ["manifest", "--check"]):
        for _ in range(2):  # cold, then warm
            result, loaded, _ = both(roots, *args)
            assert result[0] == 0 and "click" not in loaded, (args, result)
    # a commit: a tool module edited, the manifest regenerated
    edit(roots, "tools/echo_tool.py", GOOD_TOOL + "\n# changed\n")
    assert both(roots, "manifest")[0][0] == 0
    result, loaded, _ = both(roots, "check", "--changed", "tools/echo_tool.py")
    assert result == (0, "", ["All checks passed (1 tool in tools/)"]) and loaded == []
    result, loaded, _ = both(roots, "manifest", "--check")
    assert result == (0, "", ["tools/manifest.json is up to date (1 tool: 1 frozen, 0 resolved at import)"])
    assert loaded == []
    # edited again, the manifest not regenerated: stale
    edit(roots, "tools/echo_tool.py", GOOD_TOOL + "\n# changed again\n")
    result, loaded, _ = both(roots, "manifest", "--check")
    assert result == (1, "tools/manifest.json:1:1: HRM501 manifest is out of date, run `hermes-lint manifest`\n", [])
    assert "click" not in loaded


def test_findings_a_stale_manifest_and_a_refused_combination_are_reported_the_same(tmp_path):
    roots = projects(tmp_path, {"echo_tool.py": GOOD_TOOL, "shout_tool.py": SHOUT}, toolsets=TOOLSETS)
    edit(roots, "tools/manifest.json", "{}\n")
    result, loaded, _ = both(roots, "check", "--changed", "tools/shout_tool.py")
    assert result[0] == 1 and "click" not in loaded
    assert result[1].splitlines() == [
        "tools/shout_tool.py:20:24: HRM306 parameter `text` has no description",
        "toolsets.py:2:84: HRM405 toolset 'demo' includes unknown toolset 'extras'",
    ]
    result, loaded, _ = both(roots, "manifest", "--check")
    assert result[0] == 1 and "click" not in loaded
    result, _, _ = both(roots, "check", "--exit-non-zero-on-fix")
    assert result == (2, "", ["hermes-lint: error: --exit-non-zero-on-fix needs --fix or --fix-only"])


def test_a_command_line_left_to_click_still_runs_through_it(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    code, output, messages, loaded = run(root, "entry", "check", "--select", "HRM001", "--changed")
    assert (code, output, messages) == (0, "", ["All checks passed (1 tool in tools/)"]) and "click" in loaded
    code, _, messages, loaded = run(root, "entry", "manifest", "tools")
    assert code == 2 and "click" in loaded
    assert messages == ["hermes-lint: error: Got unexpected extra argument (tools) (see `hermes-lint manifest --help`)"]
