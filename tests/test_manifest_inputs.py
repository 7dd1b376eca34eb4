"""`manifest`, `manifest --check`, `check`'s HRM501 and `check --fix` read the same inputs: on a
tree with bundled plugins they agree on whether the manifest is fresh, and never undo each other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOL = '''\
from tools.registry import registry


def check_weather():
    return True


def weather(args, **kwargs):
    return "{}"


SCHEMA = {"name": "weather", "description": "Current weather.",
          "parameters": {"type": "object", "properties": {}}}
registry.register(name="weather", toolset="weather", schema=SCHEMA, handler=weather,
                  check_fn=check_weather)
'''

PLUGIN = '''\
"""A bundled plugin: Hermes's plugin loader imports it and calls register(ctx)."""

SCHEMA = {"name": "music_play", "description": "Play a song.",
          "parameters": {"type": "object", "properties": {}}}


def register(ctx):
    ctx.register_tool(name="music_play", toolset="music", schema=SCHEMA,
                      handler=lambda args, **kw: "{}", check_fn=lambda: True)
'''

TOOLSETS = '''\
TOOLSETS = {
    "weather": {"description": "Weather", "tools": ["weather"], "includes": []},
    "music": {"description": "Music", "tools": ["music_play"], "includes": []},
}
'''


def hermes_lint(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hermes_lint", *args], cwd=root, capture_output=True, text=True
    )


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "weather_tool.py").write_text(TOOL)
    (tmp_path / "plugins" / "music").mkdir(parents=True)
    (tmp_path / "plugins" / "music" / "__init__.py").write_text(PLUGIN)
    (tmp_path / "plugins" / "music" / "plugin.yaml").write_text(
        "name: music\nversion: '1.0'\ndescription: Music.\nprovides_tools: [music_play]\n"
    )
    (tmp_path / "toolsets.py").write_text(TOOLSETS)
    written = hermes_lint(tmp_path, "manifest")
    assert written.returncode == 0, written.stderr
    return tmp_path


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_after_manifest_check_fix_has_nothing_to_do(project, cache):
    generated = (project / "tools" / "manifest.json").read_bytes()
    assert b"plugins/music" not in generated  # a plugin loads itself: not a frozen source

    dry = hermes_lint(project, "check", "--fix", "--diff", *cache)
    assert (dry.returncode, dry.stdout) == (0, "")
    assert "Would fix 0 (0 files)." in dry.stderr

    fixed = hermes_lint(project, "check", "--fix", *cache)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (project / "tools" / "manifest.json").read_bytes() == generated
    assert hermes_lint(project, "manifest", "--check").returncode == 0


@pytest.mark.parametrize("edited", ["tools/weather_tool.py", "toolsets.py"])
def test_check_reports_a_stale_manifest_as_manifest_check_does(project, edited):
    fresh = hermes_lint(project, "check", "--select", "HRM501")
    assert (fresh.returncode, fresh.stdout) == (0, "")
    path = project / edited
    path.write_text(path.read_text().replace('"Weather"', '"Forecast"').replace("Current weather.", "Weather now."))

    stale_line = "tools/manifest.json:1:1: HRM501 manifest is out of date, run `hermes-lint manifest`\n"
    manifest_check = hermes_lint(project, "manifest", "--check")
    assert (manifest_check.returncode, manifest_check.stdout) == (1, stale_line)
    for cache in ([], ["--no-cache"], []):  # the second cached run reuses the first's result
        check = hermes_lint(project, "check", "--select", "HRM501", "-q", *cache)
        assert (check.returncode, check.stdout) == (1, stale_line)

    fixed = hermes_lint(project, "check", "--fix", "--select", "HRM501")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Fixed 1 (0 remaining)." in fixed.stderr
    assert hermes_lint(project, "manifest", "--check").returncode == 0
    again = hermes_lint(project, "check", "--select", "HRM501")
    assert (again.returncode, again.stdout) == (0, "")


def test_a_manifest_edited_by_hand_is_stale_for_check_too(project):
    """Only the manifest changed: the cached result of the previous run must not be reused."""
    assert hermes_lint(project, "check", "--select", "HRM501").returncode == 0
    target = project / "tools" / "manifest.json"
    target.write_bytes(target.read_bytes().replace(b"Current weather.", b"Old weather."))
    check = hermes_lint(project, "check", "--select", "HRM501", "-q")
    assert check.returncode == 1 and "HRM501" in check.stdout


def test_check_asks_no_manifest_of_a_project_without_one(project):
    (project / "tools" / "manifest.json").unlink()
    check = hermes_lint(project, "check", "--select", "HRM501")
    assert (check.returncode, check.stdout) == (0, "")
