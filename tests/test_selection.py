"""``--select`` runs only what the selected rules need (a module's environment reads are
extracted only for a rule that reads them, ``Rule.reads_environment``), and reports exactly what
a run of every rule reports for those codes, with or without the cache in between."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Tuple

import pytest

TOOLSETS = 'TOOLSETS = {"home": {"description": "d", "tools": ["weather", "player", "lights", "radio"], "includes": []}}\n'

MODULES = {
    # HRM202 and HRM203 (a check function's read), both read environment reads
    "tools/weather_tool.py": """
        import os
        from tools.registry import registry

        def check_weather_requirements():
            return bool(os.getenv("WEATHER_API_KEY"))

        registry.register(name="weather", toolset="home", schema={}, handler=lambda a, **k: "",
                          check_fn=check_weather_requirements())
    """,
    # HRM101 beside a handler's environment read that a noqa comment silences (HRM203)
    "tools/player_tool.py": """
        import json
        import os
        from tools.registry import registry

        def _player(args, **kw):
            token = os.environ["PLAYER_TOKEN"]  # noqa: HRM203
            if args.get("mode") == "show":
                return json.dumps({"token": token})

        def check_player():
            return True

        registry.register(name="player", toolset="home", schema={}, handler=_player, check_fn=check_player,
                          requires_env=[])
    """,
    # HRM203 through an environment reader of the module
    "tools/lights_tool.py": """
        import os
        from tools.registry import registry

        def get_secret(name):
            return os.environ.get(name)

        def check_lights():
            return bool(get_secret("HASS_TOKEN"))

        registry.register(name="lights", toolset="home", schema={}, handler=lambda a, **k: "",
                          check_fn=check_lights)
    """,
    # HRM203: a variable listed that nothing reads, told from the one that is read
    "tools/radio_tool.py": """
        import os
        from tools.registry import registry

        def check_radio():
            return bool(os.getenv("RADIO_KEY"))

        registry.register(name="radio", toolset="home", schema={}, handler=lambda a, **k: "",
                          check_fn=check_radio, requires_env=["RADIO_KEY", "RADIO_SECRET"])
    """,
    "tools/broken_tool.py": "def broken(:\n",  # HRM001
}

SELECTIONS = [("HRM001",), ("HRM203",), ("HRM202",), ("HRM101",), ("HRM2",), ("HRM1", "HRM3"), ("HRM900",),
              ("HRM203", "HRM900")]


def write_project(root: Path) -> None:
    (root / "tools").mkdir(parents=True)
    (root / "toolsets.py").write_text(TOOLSETS)
    for path, text in MODULES.items():
        (root / path).write_text(textwrap.dedent(text))


def check(root: Path, *options: str) -> Tuple[int, List[str]]:
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "-q", *options],
        cwd=root, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode in (0, 1), completed.stderr
    return completed.returncode, completed.stdout.splitlines()


def code_of(line: str) -> str:
    return line.split(" ", 2)[1]


@pytest.fixture(scope="module")
def full_run(tmp_path_factory) -> Tuple[Path, List[str]]:
    root = tmp_path_factory.mktemp("selection")
    write_project(root)
    _, lines = check(root, "--no-cache")
    return root, lines


def test_the_project_has_findings_of_every_selection(full_run):
    _, lines = full_run
    codes = {code_of(line) for line in lines}
    assert {"HRM001", "HRM101", "HRM202", "HRM203", "HRM304", "HRM306"} <= codes
    # the silenced read is no HRM203 finding, and its noqa comment is used
    assert not any(line.startswith("tools/player_tool.py:7:") for line in lines)
    assert "HRM900" not in codes
    assert [line.split(" ", 1)[0] for line in lines if code_of(line) == "HRM203"] == [
        "tools/lights_tool.py:9:17:", "tools/radio_tool.py:9:68:"]


@pytest.mark.parametrize("select", SELECTIONS, ids=",".join)
def test_a_selection_reports_what_every_rule_reports_for_it(full_run, select):
    root, lines = full_run
    expected = [line for line in lines if code_of(line).startswith(select)]
    status, found = check(root, "--no-cache", "--select", ",".join(select))
    assert found == expected
    assert status == (1 if expected else 0)


def test_the_cache_keeps_a_selection_apart(full_run, tmp_path):
    _, lines = full_run
    write_project(tmp_path)
    assert check(tmp_path)[1] == lines  # fills the cache
    assert check(tmp_path, "--select", "HRM001")[1] == [line for line in lines if code_of(line) == "HRM001"]
    assert check(tmp_path)[1] == lines  # never the facts of the narrower run
