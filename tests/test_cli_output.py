"""What ``check`` prints, as ruff and flake8 users expect: summary line, --quiet, --statistics,
--output-file, --show-source, colour (NO_COLOR / FORCE_COLOR / a terminal), --config,
--stdin-filename, documentation URLs, progress."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_lint import __version__
from hermes_lint.rules.hrm004_register_arguments import RegisterArguments
from hermes_lint.report.terminal import Progress
from tests.test_cli import GOOD_TOOL, make_project, run

BAD = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
# the pages installed with the package: in a source checkout, its docs/rules/
URL = (Path(__file__).resolve().parents[1] / "docs" / "rules").as_uri() + "/{}.md"
HRM004 = "tools/echo_tool.py:30:5: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)"
HRM001 = "tools/aaa_tool.py:1:12: HRM001 syntax error: invalid syntax"
BBB_HRM001 = "tools/bbb_tool.py:1:5: HRM001 syntax error: '(' was never closed"


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path, {"echo_tool.py": BAD, "aaa_tool.py": "def broken(:\n", "bbb_tool.py": "x = (\n"})


def process(root: Path, *args: str, env=None, stdin: bytes = None):
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", *args],
        cwd=root, capture_output=True, env=environ, input=stdin, timeout=60,
    )


def test_summary_line_on_stderr_and_the_report_alone_on_stdout(project):
    result = run(["check", "--select", "HRM001,HRM004"], project)
    assert result.stdout.splitlines() == [HRM001, BBB_HRM001, HRM004]
    # what was checked follows: the registrations read, in tools/ and in how many plugins
    assert result.stderr == "Found 3 diagnostics in 3 files (1 tool in tools/)\n[*] 1 fixable with `--fix`\n"
    one = run(["check", "--select", "HRM004"], project)
    assert one.stderr == "Found 1 diagnostic in 1 file (1 tool in tools/)\n[*] 1 fixable with `--fix`\n"
    clean = run(["check", "--select", "HRM004", "tools/aaa_tool.py"], project)
    assert (clean.exit_code, clean.stdout, clean.stderr) == (0, "", "All checks passed (1 tool in tools/)\n")


def test_quiet_prints_the_diagnostics_only(project):
    result = run(["check", "--select", "HRM004", "-q"], project)
    assert (result.exit_code, result.stdout, result.stderr) == (1, HRM004 + "\n", "")
    clean = run(["check", "--select", "HRM004", "--quiet", "tools/aaa_tool.py"], project)
    assert (clean.exit_code, clean.output) == (0, "")


def test_statistics_counts_each_code_most_frequent_first(project):
    result = run(["check", "--select", "HRM001,HRM004", "--statistics"], project)
    assert result.exit_code == 1
    assert result.stdout == (
        "2  HRM001      file cannot be read or parsed\n"
        "1  HRM004  [*] register() call with a missing required argument or an unknown keyword\n"
    )


def test_output_file_holds_the_report(project, tmp_path):
    target = tmp_path / "report.json"
    result = run(["check", "--select", "HRM004", "--format", "json", "--output-file", str(target)], project)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Found 1 diagnostic in 1 file (1 tool in tools/; report written to {target})\n[*] 1 fixable with `--fix`\n"
    assert json.loads(target.read_text()) == [
        {"path": "tools/echo_tool.py", "filename": str(project / "tools" / "echo_tool.py"), "line": 30, "col": 5, "code": "HRM004",
         "message": "unknown keyword `check_func=` (did you mean `check_fn=`?)", "url": URL.format("HRM004"),
         "fix": {"applicability": "safe", "message": RegisterArguments.fix_title, "edits": [
             {"path": "tools/echo_tool.py", "content": "check_fn",
              "location": {"line": 30, "col": 5}, "end_location": {"line": 30, "col": 15}}]}}
    ]
    refused = run(["check", "-o", str(tmp_path / "missing" / "r.txt")], project)
    assert refused.exit_code == 2
    assert "--output-file" in refused.stderr and "No such file or directory" in refused.stderr


def test_show_source_shows_the_line_a_caret_and_the_docs(tmp_path):
    tabbed = BAD.replace("    check_func=check_echo,", "\tcheck_func=check_echo,")
    make_project(tmp_path, {"echo_tool.py": tabbed})
    result = run(["check", "--select", "HRM004", "--show-source"], tmp_path)
    assert result.stdout == (
        "tools/echo_tool.py:30:2: HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)\n"
        "    \tcheck_func=check_echo,\n"
        "    \t^\n"
        f"    docs: {URL.format('HRM004')}\n"
    )


def test_colour_only_on_a_terminal_or_when_forced_and_never_with_no_color(project):
    plain = process(project, "--select", "HRM004")
    assert plain.stdout.decode() == HRM004 + "\n"
    forced = process(project, "--select", "HRM004", env={"FORCE_COLOR": "1"}).stdout.decode()
    assert forced == (
        "\x1b[1mtools/echo_tool.py\x1b[0m:30:5: \x1b[1m\x1b[31mHRM004\x1b[0m "
        "[*] unknown keyword `check_func=` (did you mean `check_fn=`?)\n"
    )
    both = process(project, "--select", "HRM004", env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert both.stdout.decode() == HRM004 + "\n"
    empty = process(project, "--select", "HRM004", env={"FORCE_COLOR": ""})
    assert empty.stdout.decode() == HRM004 + "\n"
    forced_json = process(project, "--select", "HRM004", "--format", "json", env={"FORCE_COLOR": "1"})
    assert "\x1b[" not in forced_json.stdout.decode()


def test_colour_on_a_real_terminal(project):
    controller, terminal = pty.openpty()
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "hermes_lint", "check", "--select", "HRM004"],
            cwd=project, stdout=terminal, stderr=subprocess.DEVNULL, timeout=60,
            env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")},
        )
        os.close(terminal)
        terminal = None
        output = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    finally:
        if terminal is not None:
            os.close(terminal)
        os.close(controller)
    assert completed.returncode == 1
    assert b"\x1b[1m\x1b[31mHRM004\x1b[0m" in output


def test_config_reads_settings_from_the_file_given(project, tmp_path):
    settings = tmp_path / "hermes-lint.toml"
    settings.write_text('select = ["HRM004"]\n')
    result = run(["check", "--config", str(settings)], project)
    assert result.stdout == HRM004 + "\n"
    pyproject = tmp_path / "elsewhere" / "pyproject.toml"
    pyproject.parent.mkdir()
    pyproject.write_text('[tool.hermes-lint]\nselect = ["HRM001"]\nignore = ["HRM001"]\n')
    assert run(["check", "--config", str(pyproject)], project).stdout == ""
    pyproject.write_text('[project]\nname = "x"\n')
    refused = run(["check", "--config", str(pyproject)], project)
    assert refused.exit_code == 2
    assert refused.stderr == f"hermes-lint: error: --config {pyproject}: it has no [tool.hermes-lint] table\n"
    settings.write_text('select = ["HRM04"]\n')
    typo = run(["check", "--config", str(settings)], project)
    assert typo.stderr == (
        f"hermes-lint: error: {settings} select: unknown rule code or prefix 'HRM04' (did you mean 'HRM004'?)\n"
    )


def test_stdin_filename_checks_the_buffer_in_place_of_the_file(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    # The buffer renames the tool: HRM004 on its own line, HRM404 because toolsets.py lists only
    # "echo"; the file on disk stays clean and is not reported.
    buffer = BAD.replace('name="echo"', 'name="echo2"').encode()
    completed = process(tmp_path, "--select", "HRM004,HRM404", "--stdin-filename", "tools/echo_tool.py", "-", stdin=buffer)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.decode().splitlines() == [
        "tools/echo_tool.py:26:10: HRM404 [*] tool `echo2` is registered, but no toolset in toolsets.py lists it, "
        "and toolsets.py does not add registered tools to their toolset 'demo': no agent is offered it",
        HRM004,
    ]
    # toolsets.py from stdin: the buffer lists a tool that nothing registers.
    toolsets = b'TOOLSETS = {\n    "demo": {"description": "Demo tools", "tools": ["echo", "gone"], "includes": []},\n}\n'
    completed = process(tmp_path, "--stdin-filename", str(tmp_path / "toolsets.py"), "-", stdin=toolsets)
    assert completed.stdout.decode() == (
        "toolsets.py:2:61: HRM403 tool `gone` is listed in toolset 'demo' but no tool module registers it\n"
    )
    # A file hermes-lint does not check: nothing to say.
    completed = process(tmp_path, "--stdin-filename", "notes.py", "-", stdin=b"x = (\n")
    assert (completed.returncode, completed.stdout) == (0, b"")
    missing = process(tmp_path, "-", stdin=b"")
    assert missing.returncode == 2
    assert b"say which file it is with --stdin-filename PATH" in missing.stderr


def test_docs_url_is_configurable_and_in_sarif(project):
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\ndocs-url = "https://lint.example/{code}"\n')
    result = run(["check", "--select", "HRM004", "--format", "sarif"], project)
    (rule,) = json.loads(result.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert rule["helpUri"] == "https://lint.example/HRM004"
    shown = run(["check", "--select", "HRM004", "--show-source"], project)
    assert "    docs: https://lint.example/HRM004\n" in shown.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_on_a_terminal_after_the_delay_and_erases_itself():
    stream = _Terminal()
    with Progress(1234, stream=stream, delay=0.0, interval=0.01):
        time.sleep(0.1)
    text = stream.getvalue()
    assert text.startswith("\rhermes-lint: checking 1234 files… ")
    assert text.endswith("\r\x1b[K")
    quick = _Terminal()
    with Progress(10, stream=quick, delay=5.0):
        pass
    assert quick.getvalue() == ""
    piped = io.StringIO()
    with Progress(10, stream=piped, delay=0.0, interval=0.01):
        time.sleep(0.05)
    assert piped.getvalue() == ""


def test_the_docs_document_every_check_option_and_setting():
    from hermes_lint.cli.check import check
    from hermes_lint.config import _KEYS

    repo = Path(__file__).resolve().parents[1]
    readme = (repo / "README.md").read_text(encoding="utf-8") + (repo / "docs" / "cli.md").read_text(encoding="utf-8")
    options = [name for param in check.params for name in param.opts if name.startswith("--")]
    missing = [name for name in options if name not in readme]
    assert not missing
    assert [key for key in _KEYS if f"{key} =" not in readme] == []


def _run_on_a_terminal(args, cwd):
    """Run ``python -m hermes_lint ARGS`` with stderr on a pseudo-terminal (stdout a pipe)."""
    controller, terminal = pty.openpty()
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "hermes_lint", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=terminal,
            env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}, timeout=300,
        )
        os.close(terminal)
        terminal = None
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if terminal is not None:
            os.close(terminal)
        os.close(controller)
    return completed, shown.decode("utf-8")


@pytest.mark.slow
def test_a_long_run_shows_progress_on_a_terminal_and_erases_it(tmp_path):
    repo = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, str(repo / "benchmarks" / "gen_corpus.py"), "600", str(tmp_path / "big")],
                   check=True, capture_output=True, timeout=300)
    completed, shown = _run_on_a_terminal(["check", "--no-cache", "-j", "1"], tmp_path / "big")
    assert completed.returncode == 0 and completed.stdout == b""
    assert "\rhermes-lint: checking 600 files… " in shown
    assert shown.endswith("\r\x1b[K" + "All checks passed (600 tools in tools/)\r\n")
    quiet, shown = _run_on_a_terminal(["check", "--no-cache", "-j", "1", "-q"], tmp_path / "big")
    assert quiet.returncode == 0 and shown == ""
