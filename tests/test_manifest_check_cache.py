"""``hermes-lint manifest --check`` answers from check's cache directory when nothing it depends
on changed since it last found the manifest up to date, and sees every change that matters: a
tool module, toolsets.py, the manifest itself, a project module a schema reads, and a module
that was looked for and did not exist."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
FRESH = Path(".hermes_lint_cache") / "manifest-fresh-v1.json"

TOOL = '''
from shared_text import DESCRIPTION
from tools.registry import registry


def handle(args, **kwargs):
    return "{}"


registry.register(name="lookup", toolset="lookup", schema={"name": "lookup", "description": DESCRIPTION,
                  "parameters": {"type": "object", "properties": {}}}, handler=handle)
'''


def settle(root: Path, *only: Path) -> None:
    """Files (all, or ``only``) an hour old: a stat taken within a timestamp tick of a change
    is never trusted (``regular_files.settled``), and the tests must not sleep. (It moves the
    files' change time, which a stat key compares: a settled file counts as changed.)"""
    past = os.stat(root).st_mtime - 3600
    for path in only or [p for p in root.rglob("*") if ".hermes_lint_cache" not in p.parts]:
        if path.is_file():
            os.utime(path, (past, past))


def cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = str(REPO_ROOT)
    return subprocess.run([sys.executable, "-m", "hermes_lint", "manifest", *args], cwd=root,
                          capture_output=True, text=True, timeout=120, env=environment)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "lookup_tool.py").write_text(TOOL, encoding="utf-8")
    (tmp_path / "shared_text.py").write_text('DESCRIPTION = "Look up a record."\n', encoding="utf-8")
    (tmp_path / "toolsets.py").write_text('TOOLSETS = {"lookup": {"tools": ["lookup"]}}\n', encoding="utf-8")
    assert cli(tmp_path).returncode == 0
    settle(tmp_path)
    checked = cli(tmp_path, "--check")
    assert checked.returncode == 0, checked.stderr
    return tmp_path


def test_an_unchanged_tree_is_answered_from_the_cache(project):
    recorded = json.loads((project / FRESH).read_text(encoding="utf-8"))
    assert recorded["summary"] == "1 tool: 1 frozen, 0 resolved at import"
    assert [path for path, _ in recorded["inputs"]] == ["shared_text.py"]
    # What the next run prints comes from the record: it did not generate.
    recorded["summary"] = "as recorded"
    (project / FRESH).write_text(json.dumps(recorded), encoding="utf-8")
    again = cli(project, "--check")
    assert (again.returncode, again.stderr) == (0, "tools/manifest.json is up to date (as recorded)\n")


def assert_stale(root: Path) -> None:
    checked = cli(root, "--check")
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout == "tools/manifest.json:1:1: HRM501 manifest is out of date, run `hermes-lint manifest`\n"


def test_a_changed_module_a_schema_reads_is_seen(project):
    path = project / "shared_text.py"
    stat = path.stat()
    path.write_text('DESCRIPTION = "Look up a record by id."\n', encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime: only the content tells
    assert_stale(project)


def test_a_changed_tool_module_is_seen(project):
    path = project / "tools" / "lookup_tool.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    settle(project, path)
    checked = cli(project, "--check")
    assert checked.returncode == 1  # the manifest records every tool file's hash


def test_an_edited_manifest_is_seen(project):
    path = project / "tools" / "manifest.json"
    path.write_bytes(path.read_bytes().replace(b"Look up a record.", b"Look up a thing."))
    settle(project, path)
    assert_stale(project)


def test_a_module_that_appears_where_one_was_looked_for_is_seen(tmp_path):
    """The schema reads a name from a package module that does not exist yet: the manifest is
    generated without it (an import hole), and creating the module makes it stale."""
    (tmp_path / "tools").mkdir()
    tool = TOOL.replace("from shared_text import DESCRIPTION", "from texts.shared import DESCRIPTION")
    (tmp_path / "tools" / "lookup_tool.py").write_text(tool, encoding="utf-8")
    (tmp_path / "toolsets.py").write_text('TOOLSETS = {"lookup": {"tools": ["lookup"]}}\n', encoding="utf-8")
    assert cli(tmp_path).returncode == 0
    settle(tmp_path)
    assert cli(tmp_path, "--check").returncode == 0
    assert (tmp_path / FRESH).exists()
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "texts" / "shared.py").write_text('DESCRIPTION = "Now known."\n', encoding="utf-8")
    assert_stale(tmp_path)


def test_nothing_is_recorded_while_an_input_is_too_recent_to_trust(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "lookup_tool.py").write_text(TOOL, encoding="utf-8")
    (tmp_path / "shared_text.py").write_text('DESCRIPTION = "Look up a record."\n', encoding="utf-8")
    (tmp_path / "toolsets.py").write_text('TOOLSETS = {"lookup": {"tools": ["lookup"]}}\n', encoding="utf-8")
    assert cli(tmp_path).returncode == 0
    settle(tmp_path)
    (tmp_path / FRESH).unlink()  # what writing the manifest recorded
    future = os.stat(tmp_path).st_mtime + 3600  # a tool module "changed" no earlier than now
    module = tmp_path / "tools" / "lookup_tool.py"
    os.utime(module, (future, future))
    assert cli(tmp_path, "--check").returncode == 0
    assert not (tmp_path / FRESH).exists()
    settle(tmp_path, module)
    assert cli(tmp_path, "--check").returncode == 0
    assert (tmp_path / FRESH).exists()


def check_hrm501(root: Path) -> list:
    """``check``'s HRM501 lines (its settings as ``manifest``'s: the same record)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = str(REPO_ROOT)
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "check", "-q"], cwd=root,
                               capture_output=True, text=True, timeout=120, env=environment)
    assert completed.returncode in (0, 1), completed.stderr
    return [line for line in completed.stdout.splitlines() if " HRM501 " in line]


def settled_project(root: Path) -> Path:
    """The project's files, an hour old, and no manifest yet."""
    (root / "tools").mkdir()
    (root / "tools" / "lookup_tool.py").write_text(TOOL, encoding="utf-8")
    (root / "shared_text.py").write_text('DESCRIPTION = "Look up a record."\n', encoding="utf-8")
    (root / "toolsets.py").write_text('TOOLSETS = {"lookup": {"tools": ["lookup"]}}\n', encoding="utf-8")
    settle(root)
    return root


def test_the_manifest_just_written_is_known_up_to_date(tmp_path):
    """``manifest`` records the file it wrote (pinned by its bytes: its stat is too recent to
    trust), so the commit hook's ``manifest --check`` answers without generating."""
    root = settled_project(tmp_path)
    assert cli(root).returncode == 0
    recorded = json.loads((root / FRESH).read_text(encoding="utf-8"))
    recorded["summary"] = "as recorded"
    (root / FRESH).write_text(json.dumps(recorded), encoding="utf-8")
    again = cli(root, "--check")
    assert (again.returncode, again.stderr) == (0, "tools/manifest.json is up to date (as recorded)\n")


def test_a_manifest_edited_after_it_was_written_is_stale(tmp_path):
    root = settled_project(tmp_path)
    assert cli(root).returncode == 0
    path = root / "tools" / "manifest.json"
    stat = path.stat()
    path.write_bytes(path.read_bytes().replace(b"Look up a record.", b"Look up a thing."))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime: only the content tells
    assert_stale(root)
    assert check_hrm501(root) == ["tools/manifest.json:1:1: HRM501 manifest is out of date, run `hermes-lint manifest`"]


def test_check_sees_a_module_changed_after_the_manifest_was_written(tmp_path):
    root = settled_project(tmp_path)
    assert cli(root).returncode == 0
    path = root / "shared_text.py"
    stat = path.stat()
    path.write_text('DESCRIPTION = "Look up a record by id."\n', encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert check_hrm501(root) == ["tools/manifest.json:1:1: HRM501 manifest is out of date, run `hermes-lint manifest`"]


def test_check_records_the_manifest_it_found_up_to_date(tmp_path):
    root = settled_project(tmp_path)
    assert cli(root).returncode == 0
    (root / FRESH).unlink()
    settle(root)
    assert check_hrm501(root) == []
    recorded = json.loads((root / FRESH).read_text(encoding="utf-8"))
    assert recorded["summary"] == "1 tool: 1 frozen, 0 resolved at import"
    recorded["summary"] = "as recorded"
    (root / FRESH).write_text(json.dumps(recorded), encoding="utf-8")
    again = cli(root, "--check")
    assert (again.returncode, again.stderr) == (0, "tools/manifest.json is up to date (as recorded)\n")
