"""``hermes-lint new-plugin`` and ``new-tool`` inside a plugin, through the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
HERMES_LINT = [sys.executable, "-m", "hermes_lint"]


def run(args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(HERMES_LINT + list(args), cwd=cwd, capture_output=True, text=True, timeout=120)


def tree(root: Path) -> dict:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and ".hermes-lint-cache" not in path.parts
        and not any(part.endswith(".egg-info") for part in path.parts)
    }


@pytest.fixture
def weather(tmp_path) -> Path:
    made = run(["new-plugin", "weather", "--description", "Report the weather for a city."], tmp_path)
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[:5] == [
        "created weather/pyproject.toml",
        "created weather/hermes_weather/__init__.py",
        "created weather/hermes_weather/weather_tool.py",
        "created weather/hermes_weather/plugin.yaml",
        "created weather/tests/test_plugin.py",
    ]
    return tmp_path / "weather"


def test_the_new_plugin_declares_its_entry_point_and_tool_and_passes_check(weather):
    assert sorted(tree(weather)) == [
        "hermes_weather/__init__.py",
        "hermes_weather/plugin.yaml",
        "hermes_weather/weather_tool.py",
        "pyproject.toml",
        "tests/test_plugin.py",
    ]
    pyproject = (weather / "pyproject.toml").read_text()
    assert '[project.entry-points."hermes_agent.plugins"]\nweather = "hermes_weather"\n' in pyproject
    assert (weather / "hermes_weather" / "plugin.yaml").read_text() == (
        "# What Hermes and the plugin catalogue know about the plugin before loading it.\n"
        "# `hermes-lint check` compares provides_tools with what register(ctx) registers.\n"
        "name: weather\n"
        "version: 0.1.0\n"
        'description: "Report the weather for a city."\n'
        "provides_tools:\n"
        "  - weather\n"
        "provides_hooks: []\n"
        "requires_env: []\n"
    )
    checked = run(["check", "--no-cache"], weather)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "All checks passed (1 tool in 1 plugin)\n")


def test_new_tool_in_the_plugin_edits_register_and_plugin_yaml_and_keeps_comments(weather):
    manifest = weather / "hermes_weather" / "plugin.yaml"
    manifest.write_text(manifest.read_text().replace("  - weather\n", "  - weather  # the first tool\n# end of tools\n"))
    before = tree(weather)
    added = run(["new-tool", "forecast", "--description", "Forecast the weather."], weather)
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines()[:3] == [
        "created hermes_weather/forecast_tool.py",
        "updated hermes_weather/__init__.py",
        "updated hermes_weather/plugin.yaml",
    ]
    after = tree(weather)
    assert set(after) - set(before) == {"hermes_weather/forecast_tool.py"}
    assert after["hermes_weather/plugin.yaml"].decode() == before["hermes_weather/plugin.yaml"].decode().replace(
        "  - weather  # the first tool\n", "  - weather  # the first tool\n  - forecast\n"
    )
    init_before = before["hermes_weather/__init__.py"].decode()
    assert after["hermes_weather/__init__.py"].decode() == init_before.replace(
        "from .weather_tool import WEATHER_SCHEMA, check_weather, handle_weather\n",
        "from .weather_tool import WEATHER_SCHEMA, check_weather, handle_weather\n"
        "from .forecast_tool import FORECAST_SCHEMA, check_forecast, handle_forecast\n",
    ) + (
        "    ctx.register_tool(\n"
        '        name="forecast",\n'
        '        toolset="weather",\n'
        "        schema=FORECAST_SCHEMA,\n"
        "        handler=handle_forecast,\n"
        "        check_fn=check_forecast,\n"
        "    )\n"
    )
    checked = run(["check", "--no-cache"], weather)
    assert (checked.returncode, checked.stderr) == (0, "All checks passed (2 tools in 1 plugin)\n")


@pytest.mark.parametrize(
    "provides, expected",
    [
        ("provides_tools: [weather]\n", "provides_tools: [weather, forecast]\n"),
        ("provides_tools: []  # none yet\n", "provides_tools: [forecast]  # none yet\n"),
    ],
)
def test_a_flow_list_gets_the_name_inside_it(weather, provides, expected):
    from hermes_lint.scaffold.plugin import add_provided_tool

    text = f"name: weather\nversion: 0.1.0\ndescription: d\n{provides}requires_env: []\n"
    assert add_provided_tool(text.encode(), "forecast").decode() == text.replace(provides, expected)


def test_a_manifest_without_provides_tools_gets_one():
    from hermes_lint.scaffold.plugin import add_provided_tool

    assert add_provided_tool(b"name: w\nversion: 1\n", "forecast") == b"name: w\nversion: 1\nprovides_tools:\n  - forecast\n"


@pytest.mark.parametrize(
    "args, error",
    [
        (["new-tool", "weather"], "hermes_weather/weather_tool.py already exists; new-tool never overwrites a file"),
        (["new-tool", "web_search"], "'web_search' is a built-in tool of hermes-agent 0.19.0 (catalogue shipped with "
         "hermes-lint): the registry would reject the plugin's tool (HRM810); choose another name"),
        (["new-tool", "Bad-Name"], "invalid tool name 'Bad-Name': use 1-64 characters, lowercase letters, digits and "
         "underscores, starting with a letter (^[a-z][a-z0-9_]{0,63}$)"),
        (["new-tool", "forecast", "--env", "KEY"], "--async, --env, --core and --template apply to a tools/ tree; "
         "in a plugin, edit the new tool module instead"),
    ],
)
def test_refusals_in_a_plugin_write_nothing(weather, args, error):
    before = tree(weather)
    refused = run(args, weather)
    assert (refused.returncode, refused.stdout, refused.stderr) == (2, "", f"hermes-lint: error: {error}\n")
    assert tree(weather) == before


def test_a_plugin_yaml_the_line_edit_would_change_otherwise_is_refused_and_nothing_written(weather):
    manifest = weather / "hermes_weather" / "plugin.yaml"
    # the item list ends in a multi-line scalar: inserting a line after it would change its text
    manifest.write_text("name: weather\nversion: 0.1.0\ndescription: d\nprovides_tools:\n  - weather\n  - >\n    folded\nrequires_env: []\n")
    before = tree(weather)
    refused = run(["new-tool", "forecast"], weather)
    assert refused.returncode == 2
    assert refused.stderr == (
        "hermes-lint: error: hermes_weather/plugin.yaml: adding `forecast` to provides_tools would change more "
        "than that: add it by hand\n"
    )
    assert tree(weather) == before


@pytest.mark.parametrize(
    "name, error",
    [
        ("web_search", "'web_search' is a built-in tool of hermes-agent 0.19.0 (catalogue shipped with hermes-lint): "
         "the registry would reject the plugin's tool (HRM810); choose another name"),
        ("class", "invalid tool name 'class': it is a Python keyword"),
    ],
)
def test_new_plugin_refusals_write_nothing(tmp_path, name, error):
    refused = run(["new-plugin", name], tmp_path)
    assert (refused.returncode, refused.stderr) == (2, f"hermes-lint: error: {error}\n")
    assert list(tmp_path.iterdir()) == []


def test_new_plugin_never_writes_into_an_existing_directory(tmp_path):
    (tmp_path / "weather").mkdir()
    (tmp_path / "weather" / "notes.txt").write_text("mine\n")
    refused = run(["new-plugin", "weather"], tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == "hermes-lint: error: weather already exists; new-plugin never overwrites anything\n"
    assert tree(tmp_path) == {"weather/notes.txt": b"mine\n"}


@pytest.mark.slow
def test_the_new_plugin_pip_installs_and_its_test_passes(weather, tmp_path_factory):
    """A fresh virtual environment: the package installs from its own pyproject.toml, Hermes's
    entry point is declared in the installed metadata, and the generated test passes there."""
    environment = tmp_path_factory.mktemp("venv")
    venv.create(environment, with_pip=True, system_site_packages=True)
    python = environment / ("Scripts" if os.name == "nt" else "bin") / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "-q", str(weather)],
        capture_output=True, text=True, timeout=600,
    )
    assert installed.returncode == 0, installed.stderr
    probe = (
        "import importlib.metadata as m\n"
        "eps = [ep for ep in m.entry_points(group='hermes_agent.plugins') if ep.name == 'weather']\n"
        "print(eps[0].value, eps[0].dist.name)\n"
        "import hermes_weather, pathlib\n"
        "print((pathlib.Path(hermes_weather.__file__).parent / 'plugin.yaml').is_file())\n"
    )
    shown = subprocess.run([str(python), "-c", probe], cwd=tmp_path_factory.mktemp("elsewhere"), capture_output=True, text=True, timeout=120)
    assert shown.stdout == "hermes_weather hermes-weather\nTrue\n", shown.stderr
    # the generated test, against the installed package (not the checkout: run from elsewhere)
    tested = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(weather / "tests")],
        cwd=tmp_path_factory.mktemp("run"), capture_output=True, text=True, timeout=600,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "3 passed" in tested.stdout
