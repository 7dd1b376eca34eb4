"""What the CLI tells the user, through the real command in a subprocess: paths as seen from the
current directory (and from the repository root for CI formats), one noqa grammar, links that
exist, combinations of options that are honoured or refused, and ruff's conventions
(--output-format, exclude, src, fix hints, --stdin-filename, --watch, `rule`)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_cli import GOOD_TOOL, make_project

REPO = Path(__file__).resolve().parents[1]
BAD = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo,")
HRM004_MESSAGE = "HRM004 [*] unknown keyword `check_func=` (did you mean `check_fn=`?)"
NO_DESCRIPTION = GOOD_TOOL.replace(', "description": "Text to repeat."', "")


def cli(args, cwd: Path, stdin: bytes = b"", env=None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "hermes_lint", *args], cwd=cwd, input=stdin, capture_output=True,
        env=environ, timeout=120,
    )


def out(completed) -> str:
    return completed.stdout.decode("utf-8")


def err(completed) -> str:
    return completed.stderr.decode("utf-8")


# ------------------------------------------------------------------ paths


def test_text_paths_are_relative_to_the_current_directory(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": BAD})
    from_tools = cli(["check", "--select", "HRM004"], project / "tools")
    assert out(from_tools) == f"echo_tool.py:30:5: {HRM004_MESSAGE}\n"
    from_root = cli(["check", "--select", "HRM004"], project)
    assert out(from_root) == f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"
    as_json = json.loads(out(cli(["check", "--select", "HRM004", "--format", "json"], project / "tools")))
    assert [(d["path"], d["filename"]) for d in as_json] == [("echo_tool.py", str(project / "tools" / "echo_tool.py"))]
    assert as_json[0]["fix"]["edits"][0]["path"] == "echo_tool.py"


def test_ci_formats_name_files_from_the_repository_root_of_a_monorepo(tmp_path):
    (tmp_path / ".git").mkdir()  # the repository; the project is a subdirectory of it
    project = make_project(tmp_path / "services" / "agent", {"echo_tool.py": BAD})
    github = cli(["check", "--select", "HRM004", "--format", "github"], project / "tools")
    assert out(github).startswith("::error file=services/agent/tools/echo_tool.py,line=30,col=5,title=HRM004::")
    sarif = json.loads(out(cli(["check", "--select", "HRM004", "--format", "sarif"], project / "tools")))
    (run,) = sarif["runs"]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "services/agent/tools/echo_tool.py", "uriBaseId": "%SRCROOT%"}


# ------------------------------------------------------------------ links


def test_links_point_at_installed_pages_or_the_configured_site(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": BAD})
    (entry,) = json.loads(out(cli(["check", "--select", "HRM004", "--format", "json"], project)))
    assert entry["url"].startswith("file://") and entry["url"].endswith("/HRM004.md")
    from urllib.parse import unquote, urlsplit

    assert Path(unquote(urlsplit(entry["url"]).path)).read_text(encoding="utf-8").startswith("# HRM004: ")
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\ndocs-url = "https://docs.example.com/hl/{code}.md"\n')
    (entry,) = json.loads(out(cli(["check", "--select", "HRM004", "--format", "json"], project)))
    assert entry["url"] == "https://docs.example.com/hl/HRM004.md"
    full = out(cli(["check", "--select", "HRM004", "--output-format", "full"], project))
    assert full.endswith("    docs: https://docs.example.com/hl/HRM004.md\n")
    for bad, says in (("https://docs.example.com/hl/", "with {code}"), ("docs/{code}.md", "http://, https:// or file://")):
        (project / "pyproject.toml").write_text(f'[tool.hermes-lint]\ndocs-url = "{bad}"\n')
        refused = cli(["check"], project)
        assert refused.returncode == 2 and says in err(refused)


# ------------------------------------------------------------------ noqa


NOQA_CASES = {
    # file -> what check and flake8 both report in it (codes)
    "prefix_tool.py": (BAD.replace("check_func=check_echo,", "check_func=check_echo,  # noqa: HRM0"), []),
    "flake8file_tool.py": ("# flake8: noqa\n" + BAD, []),
    "ownfile_tool.py": ("# hermes-lint: noqa\n" + BAD, []),
    "owncodes_tool.py": ("# hermes-lint: noqa: HRM306\n" + BAD.replace(', "description": "Text to repeat."', ""),
                         ["HRM004"]),
    "ruff_tool.py": ("# ruff: noqa\n" + BAD, ["HRM004"]),
}


def _noqa_project(tmp_path):
    tools = {name: text.replace('"echo"', f'"{name[:-8]}"') for name, (text, _) in NOQA_CASES.items()}
    listed = ", ".join(f'"{name[:-8]}"' for name in NOQA_CASES)
    return make_project(tmp_path, tools, toolsets=f'TOOLSETS = {{"demo": {{"description": "d", "tools": [{listed}], "includes": []}}}}\n')


def test_check_honours_prefixes_and_file_level_noqa(tmp_path):
    project = _noqa_project(tmp_path)
    found = cli(["check", "--select", "HRM0,HRM3,HRM9", "--output-format", "json"], project)
    reported = sorted((Path(d["path"]).name, d["code"]) for d in json.loads(out(found)))
    expected = sorted((name, code) for name, (_, codes) in NOQA_CASES.items() for code in codes)
    assert reported == expected


@pytest.mark.slow
def test_flake8_honours_the_same_comments(tmp_path):
    project = _noqa_project(tmp_path)
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "HRM0,HRM3,HRM9", "tools/"], cwd=project,
                            capture_output=True, text=True, timeout=300)
    reported = sorted((Path(line.split(":")[0]).name, line.split(" ")[1]) for line in flake8.stdout.splitlines())
    expected = sorted((name, code) for name, (_, codes) in NOQA_CASES.items() for code in codes)
    assert reported == expected, flake8.stdout + flake8.stderr


def test_unused_file_level_noqa_is_hrm900_and_fixed(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": "# hermes-lint: noqa: HRM306, HRM004\n" + BAD})
    found = cli(["check", "--select", "HRM004,HRM306,HRM900"], project)
    assert out(found) == "tools/echo_tool.py:1:1: HRM900 [*] unused `# hermes-lint: noqa` for HRM306: it suppresses nothing\n"
    fixed = cli(["check", "--select", "HRM004,HRM306,HRM900", "--fix"], project)
    assert fixed.returncode == 0, err(fixed)
    assert (project / "tools" / "echo_tool.py").read_text().splitlines()[0] == "# hermes-lint: noqa: HRM004"
    (project / "tools" / "echo_tool.py").write_text("# hermes-lint: noqa\n" + GOOD_TOOL)
    bare = cli(["check"], project)
    assert out(bare) == "tools/echo_tool.py:1:1: HRM900 [*] unused `# hermes-lint: noqa`: it suppresses nothing in this file\n"


def test_add_noqa_leaves_a_project_that_checks_clean(tmp_path):
    stale = GOOD_TOOL.replace('"name": "echo",', '"name": "echo",  # noqa: HRM306')
    project = make_project(tmp_path, {"echo_tool.py": stale.replace("check_fn=check_echo,", "check_func=check_echo,")})
    before = cli(["check"], project)
    assert before.returncode == 1 and "HRM900" in out(before)
    added = cli(["check", "--add-noqa"], project)
    assert added.returncode == 0, err(added)
    assert "removed 1 unused" in err(added)
    after = cli(["check"], project)
    assert (after.returncode, out(after)) == (0, "")


# ------------------------------------------------------------------ combinations


@pytest.mark.parametrize("args, says", [
    (["--statistics", "--format", "sarif"], "--statistics prints counts as text or json, not sarif"),
    (["--diff", "--format", "json"], "--diff prints a unified diff: it has no json form"),
    (["--diff", "--statistics"], "cannot be combined with --statistics"),
    (["--add-noqa", "--format", "json"], "--add-noqa edits comments and reports no diagnostics"),
    (["--fix-only", "--statistics"], "--fix-only reports no diagnostics"),
    (["--exit-non-zero-on-fix"], "--exit-non-zero-on-fix needs --fix or --fix-only"),
    (["--show-source", "--format", "github"], "--show-source shows source lines in the text formats"),
])
def test_a_combination_that_cannot_be_honoured_is_a_usage_error(tmp_path, args, says):
    project = make_project(tmp_path, {"echo_tool.py": BAD})
    refused = cli(["check", *args], project)
    assert refused.returncode == 2
    assert says in err(refused) and out(refused) == ""


def test_statistics_in_json_with_the_fixable_count(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": BAD, "aaa_tool.py": "def broken(:\n"})
    stats = cli(["check", "--select", "HRM001,HRM004", "--statistics", "--output-format", "json"], project)
    assert stats.returncode == 1
    assert json.loads(out(stats)) == [
        {"code": "HRM001", "count": 1, "fixable": False, "fixable_count": 0, "summary": "file cannot be read or parsed"},
        {"code": "HRM004", "count": 1, "fixable": True, "fixable_count": 1,
         "summary": "register() call with a missing required argument or an unknown keyword"},
    ]


def test_a_closed_pipe_ends_the_output_quietly(tmp_path):
    # Reports far larger than a pipe's buffer (64 KiB), read by `true`, which reads nothing and exits.
    registrations = "".join(
        f'registry.register(name="t{n}", toolset="demo", schema={{"name": "t{n}", "description": "Tool {n}.", '
        f'"parameters": {{"type": "object", "properties": {{}}}}}}, handler=_handle, check_func=check)\n'
        for n in range(1500)
    )
    module = "from tools.registry import registry\n\ndef check():\n    return True\n\ndef _handle(args, **kw):\n    return '{}'\n\n"
    project = make_project(tmp_path, {"many_tool.py": module + registrations})
    assert cli(["manifest"], project).returncode == 0
    (project / "tools" / "manifest.json").write_text("{}\n")
    for args in (["check", "--no-cache"], ["manifest", "--diff"], ["rule", "--all"]):
        piped = subprocess.run(f"{sys.executable} -m hermes_lint {' '.join(args)} | true; "
                               "echo \"${PIPESTATUS[0]}\"",
                               shell=True, executable="/bin/bash", cwd=project, capture_output=True, text=True, timeout=300)
        assert "rror" not in piped.stderr and "Traceback" not in piped.stderr, (args, piped.stderr)
        assert piped.stdout.strip() == ("0" if args[0] == "rule" else "1"), (args, piped.stdout)


def test_output_file_writes_into_a_device_or_fifo_and_replaces_regular_files(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": BAD})
    to_null = cli(["check", "--select", "HRM004", "-o", "/dev/null"], project)
    assert to_null.returncode == 1 and "report written to /dev/null" in err(to_null)
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    to_fifo = cli(["check", "--select", "HRM004", "-o", str(fifo)], project)
    assert reader.communicate(timeout=60)[0].decode() == f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"
    assert to_fifo.returncode == 1 and fifo.is_fifo()
    regular = tmp_path / "report.txt"
    regular.write_text("old report\n")
    cli(["check", "--select", "HRM004", "-o", str(regular)], project)
    assert regular.read_text() == f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"


# ------------------------------------------------------------------ ruff's conventions


def test_output_format_concise_and_full(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": BAD})
    concise = cli(["check", "--select", "HRM004", "--output-format", "concise"], project)
    assert out(concise) == f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"
    full = out(cli(["check", "--select", "HRM004", "--output-format", "full"], project))
    assert full.splitlines()[:3] == [f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}", "        check_func=check_echo,", "        ^"]
    assert out(cli(["check", "--select", "HRM004", "--format", "full"], project)) == full
    assert "--output-format" in out(cli(["check", "--help"], project))


def test_exclude_extend_exclude_and_force_exclude(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": BAD, "legacy_tool.py": BAD.replace('"echo"', '"legacy"')},
                           toolsets='TOOLSETS = {"demo": {"description": "d", "tools": ["echo", "legacy"], "includes": []}}\n')
    everything = cli(["check", "--select", "HRM004"], project)
    assert len(out(everything).splitlines()) == 2
    excluded = cli(["check", "--select", "HRM004", "--exclude", "legacy_*.py"], project)
    assert out(excluded) == f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\nextend-exclude = ["tools/legacy_tool.py"]\n')
    assert out(cli(["check", "--select", "HRM004"], project)) == out(excluded)
    # a file named explicitly is checked anyway, unless force-exclude (pre-commit names every file)
    named = cli(["check", "--select", "HRM004", "tools/legacy_tool.py"], project)
    assert out(named) == f"tools/legacy_tool.py:30:5: {HRM004_MESSAGE}\n"
    forced = cli(["check", "--select", "HRM004", "--force-exclude", "tools/legacy_tool.py"], project)
    assert (forced.returncode, out(forced)) == (0, "")
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\nextend-exclude = ["tools/legacy_tool.py"]\nforce-exclude = true\n')
    assert out(cli(["check", "--select", "HRM004", "--changed", "tools/legacy_tool.py"], project)) == ""
    # excluded files are not fixed either
    cli(["check", "--select", "HRM004", "--fix"], project)
    assert "check_func=" in (project / "tools" / "legacy_tool.py").read_text()
    assert "check_func=" not in (project / "tools" / "echo_tool.py").read_text()


def test_src_setting_resolves_imports_of_a_src_layout(tmp_path):
    tool = GOOD_TOOL.replace("from tools.registry import registry", "from tools.registry import registry\nfrom echo_schema.schema import PROPERTIES")
    schema_start = tool.index('"properties": {')
    schema_end = tool.index("}},", schema_start) + 2
    tool = tool[:schema_start] + '"properties": PROPERTIES' + tool[schema_end:]
    project = make_project(tmp_path, {"echo_tool.py": tool})
    # lib/, not src/ (where a package's own imports resolve without a setting)
    (project / "lib" / "echo_schema").mkdir(parents=True)
    (project / "lib" / "echo_schema" / "__init__.py").write_text("")
    (project / "lib" / "echo_schema" / "schema.py").write_text('PROPERTIES = {"text": {"type": "string"}}\n')
    unresolved = cli(["check", "--select", "HRM301,HRM306"], project)
    assert "HRM306" not in out(unresolved)  # the schema cannot be read: nothing said about its keys
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\nsrc = ["lib"]\n')
    resolved = cli(["check", "--select", "HRM301,HRM306"], project)
    assert "HRM306" in out(resolved) and "`text`" in out(resolved), out(resolved)


def test_fix_hints_show_fixes_fix_only_and_exit_non_zero_on_fix(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": BAD})
    found = cli(["check", "--select", "HRM004", "--show-fixes"], project)
    assert out(found) == (f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"
                          "    fix: rename an unknown keyword to the one registry keyword it is close to "
                          "(`check_func=` becomes `check_fn=`)\n")
    assert err(found) == "Found 1 diagnostic in 1 file (1 tool in tools/)\n[*] 1 fixable with `--fix`\n"
    fixed = cli(["check", "--select", "HRM004", "--fix", "--show-fixes", "--exit-non-zero-on-fix"], project)
    assert fixed.returncode == 1 and out(fixed) == ""
    assert "tools/echo_tool.py:\n    1 × HRM004 (register() call" in err(fixed)
    assert cli(["check", "--select", "HRM004", "--fix", "--exit-non-zero-on-fix"], project).returncode == 0
    (project / "tools" / "echo_tool.py").write_text(BAD + "\ndef broken(:\n")  # HRM001 remains, not fixable
    only = cli(["check", "--fix-only"], project)
    assert (only.returncode, out(only)) == (0, "")
    assert err(only) == "Fixed 0.\n"


def test_stdin_filename_alone_reads_standard_input(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    piped = cli(["check", "--select", "HRM004", "--stdin-filename", "tools/echo_tool.py"], project, stdin=BAD.encode())
    assert out(piped) == f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"
    with_dash = cli(["check", "--select", "HRM004", "--stdin-filename", "tools/echo_tool.py", "-"], project, stdin=BAD.encode())
    assert out(with_dash) == out(piped)


def test_rule_is_explain_with_all_and_json(tmp_path):
    explained = cli(["explain", "HRM101"], tmp_path)
    assert out(cli(["rule", "HRM101"], tmp_path)) == out(explained) and out(explained).startswith("# HRM101: ")
    entry = json.loads(out(cli(["rule", "HRM004", "--output-format", "json"], tmp_path)))
    assert (entry["code"], entry["fix"]) == ("HRM004", "safe") and entry["explanation"].startswith("# HRM004: ")
    every = json.loads(out(cli(["rule", "--all", "--output-format", "json"], tmp_path)))
    listed = [line.split()[0] for line in out(cli(["rules"], tmp_path)).splitlines()]
    assert [e["code"] for e in every] == listed
    assert cli(["rule"], tmp_path).returncode == 2


def test_watch_checks_again_after_a_change_and_stops_cleanly_on_ctrl_c(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ["WATCHFILES_FORCE_POLLING"] = "1"  # the same events on every file system
    process = subprocess.Popen([sys.executable, "-m", "hermes_lint", "check", "--select", "HRM004", "--watch"],
                               cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ)
    try:
        assert _read_until(process.stderr, b"watching for changes").endswith(b"watching for changes")
        # The watcher starts just after that line: a change made before it looks is not seen, so
        # the file is written again (with one more blank line) until the report comes.
        edits = 0
        while edits < 60 and not select.select([process.stdout], [], [], 1.0)[0]:
            (project / "tools" / "echo_tool.py").write_text(BAD + "\n" * edits)
            edits += 1
        second = _read_until(process.stdout, b"\n")
        assert second.decode() == f"tools/echo_tool.py:30:5: {HRM004_MESSAGE}\n"
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _read_until(stream, marker: bytes) -> bytes:
    """Bytes from ``stream`` up to ``marker`` (or its end): bounded by the process's own exit or
    the test's overall limit (an os.read never returns more than is there)."""
    seen = b""
    deadline = time.monotonic() + 120
    while marker not in seen and time.monotonic() < deadline:
        chunk = os.read(stream.fileno(), 1)
        if not chunk:
            break
        seen += chunk
    return seen


def test_manifest_prints_its_diagnostics_in_every_format_of_check(tmp_path):
    project = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    assert cli(["manifest"], project).returncode == 0
    fresh = cli(["manifest", "--check", "--output-format", "json"], project)
    assert (fresh.returncode, json.loads(out(fresh))) == (0, [])
    (project / "tools" / "echo_tool.py").write_text(GOOD_TOOL.replace("Repeat the given text.", "Repeat text."))
    stale = cli(["manifest", "--check", "--format", "github"], project / "tools")
    assert (stale.returncode, out(stale)) == (
        1, "::error file=tools/manifest.json,line=1,col=1,title=HRM501::manifest is out of date, run `hermes-lint manifest`\n")
    as_text = cli(["manifest", "--check"], project / "tools")
    assert out(as_text) == "manifest.json:1:1: HRM501 manifest is out of date, run `hermes-lint manifest`\n"
    refused = cli(["manifest", "--diff", "--format", "json"], project)
    assert refused.returncode == 2 and "--diff prints a unified diff: it has no json form" in err(refused)
