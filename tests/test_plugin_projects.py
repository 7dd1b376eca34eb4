"""Plugin projects through the real CLI: each packaging layout is recognised without configuration,
``register`` is followed as Hermes's loader calls it, and the summary says what was checked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LAYOUTS = Path(__file__).resolve().parent / "fixtures" / "plugin_layouts"


def layout(tmp_path: Path, name: str) -> Path:
    """A copy of the fixture outside this repository (whose toolsets.py would be its project)."""
    target = tmp_path / name
    shutil.copytree(LAYOUTS / name, target)
    return target


def check(cwd: Path, *args: str):
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", *args],
        cwd=cwd, capture_output=True, text=True, env=environ, timeout=120,
    )
    return completed.returncode, completed.stdout, completed.stderr


def test_flat_layout_with_a_pyproject_entry_point(tmp_path):
    root = layout(tmp_path, "flat")
    assert check(root) == (0, "", "All checks passed (1 tool in 1 plugin)\n")
    # from inside the package too: the entry point's declaration marks the root
    assert check(root / "weather_plugin") == (0, "", "All checks passed (1 tool in 1 plugin)\n")


def test_src_layout_register_re_exported_and_a_schema_bound_to_a_local(tmp_path):
    root = layout(tmp_path, "src_layout")
    # `from .hermes import register`; `from notes_plugin.schemas import ...` resolves in src/;
    # `schema = {...}` in register is read as the schema it is
    assert check(root / "src" / "notes_plugin") == (
        1,
        "hermes.py:21:90: HRM305 `required` names `txt`, which is not in `properties` "
        "(did you mean `text`?)\n",  # relative to where check runs
        "Found 1 diagnostic in 1 file (2 tools in 1 plugin)\nNo safe fixes; 1 with `--fix --unsafe-fixes`\n",
    )


def test_setup_cfg_entry_point_naming_an_instance(tmp_path):
    root = layout(tmp_path, "setup_cfg")
    code, out, err = check(root)
    assert (code, err) == (1, "Found 1 diagnostic in 1 file (1 tool in 1 plugin)\n")
    # `timer_plugin.plugin:plugin` is an instance: the loader calls its bound `register(self, ctx)`
    assert out.startswith("timer_plugin/plugin.py:18:9: HRM201 tool `timer_now` has no `check_fn`")


def test_setup_py_entry_point_naming_a_function(tmp_path):
    root = layout(tmp_path, "setup_py")
    # read from setup.py's syntax tree (never run); the function's tools are checked, and HRM801
    # says that the loader looks up `register` on the function and finds none
    assert check(root) == (
        1,
        "dice_plugin/tools.py:12:5: HRM101 handler `roll` can return a dict, not a JSON string\n"
        'setup.py:9:1: HRM801 entry point `dice = "dice_plugin.tools:register"` loads the function `register` '
        "itself, on which the loader then looks up `register`: Hermes logs \"Plugin 'dice' has no register() "
        'function" and the plugin registers nothing\n',
        "Found 2 diagnostics in 2 files (1 tool in 1 plugin)\nNo safe fixes; 1 with `--fix --unsafe-fixes`\n",
    )


def test_helpers_receiving_the_context_or_its_register_tool(tmp_path):
    root = layout(tmp_path, "helpers")
    code, out, err = check(root)
    # _register.register_plugin(ctx) -> _add_tools(ctx.register_tool) over TABLE.items(), and
    # _add_zones(ctx) with getattr(ctx, "register_tool", None) over a comprehension of another module
    assert (code, err) == (1, "Found 4 diagnostics in 1 file (4 tools in 1 plugin)\n")
    assert out.splitlines() == [
        "clock_plugin/_register.py:36:69: HRM108 schema property `format` of tool `clock_paris` is never read by "
        "handler `_handler`",
        "clock_plugin/_register.py:36:69: HRM108 schema property `format` of tool `clock_tokyo` is never read by "
        "handler `_handler`",
        "clock_plugin/_register.py:36:69: HRM306 parameter `format` has no description (tools `clock_paris`, "
        "`clock_tokyo`)",
        "clock_plugin/_register.py:36:80: HRM302 invalid JSON Schema (Draft 2020-12) at "
        "`parameters.properties.format.type`: 'strin' is not valid under any of the given schemas (JSON Schema "
        "types: array, boolean, integer, null, number, object, string) (tools `clock_paris`, `clock_tokyo`)",
    ]


def test_a_directory_plugin_is_judged_by_the_plugin_api(tmp_path):
    root = layout(tmp_path, "directory_plugin")
    code, out, err = check(root)
    assert (code, err) == (1, "Found 4 diagnostics in 2 files (1 tool in 1 plugin)\n")
    assert "__init__.py:14:46: HRM004 unknown keyword `max_result_size_chars=` (the plugin API's " \
        "`ctx.register_tool` has no such parameter)" in out.splitlines()
    # at the key, in the module that writes the schema
    assert "schemas.py:4:63: HRM309 array `topic` has no `items` (tool `quote_random`)" in out.splitlines()


def test_a_plugins_directory_and_one_plugin_in_it(tmp_path):
    root = layout(tmp_path, "plugins_dir")
    # <name>/plugin.yaml and <category>/<name>/plugin.yaml; a plugin registering hooks only counts
    assert check(root) == (0, "", "All checks passed (3 tools in 3 plugins)\n")
    assert check(root / "media" / "radio") == (0, "", "All checks passed (2 tools in 1 plugin)\n")


def test_a_tree_with_bundled_plugins(tmp_path):
    source = Path(__file__).resolve().parent / "fixtures" / "projects" / "plugin_tools"
    shutil.copytree(source, tmp_path / "tree")
    code, _, err = check(tmp_path / "tree" / "plugins")
    assert (code, err) == (1, "Found 6 diagnostics in 2 files (3 tools in tools/ and 1 plugin)\n")


def test_what_cannot_be_read_is_reported_never_skipped(tmp_path):
    root = layout(tmp_path, "unreadable")
    assert check(root) == (
        1,
        "search_plugin/__init__.py:15:9: HRM003 cannot verify: this register_tool call cannot be read (the loop "
        "over `load_specs()` cannot be unrolled statically): its tool is not checked\n"
        "search_plugin/__init__.py:16:5: HRM003 cannot verify: the plugin context is passed to "
        "`vendor_toolkit.install`, which cannot be followed (`vendor_toolkit` is not a module of the project): the "
        "tools registered there are not checked\n",
        "Found 2 diagnostics in 1 file (0 tools in 1 plugin, 2 unread)\n",
    )
    # with HRM003 ignored nothing was read: never "All checks passed"
    assert check(root, "--ignore", "HRM003") == (
        0, "", "Nothing checked: no tool registration found: 2 register calls cannot be read statically\n"
    )


NOTHING = (
    "Nothing checked: no tool registration found: no tools/*.py module calls `registry.register(...)` at top "
    "level, and no plugin is declared (no `hermes_agent.plugins` entry point in pyproject.toml, setup.cfg or "
    "setup.py; no plugin.yaml beside an __init__.py)\n"
)


def test_an_empty_project_says_nothing_was_found(tmp_path):
    root = layout(tmp_path, "empty")
    assert check(root, "--root", ".") == (0, "", NOTHING)
    assert check(root, "--root", ".", "-q") == (0, "", "")
    assert check(root, "--root", ".", "--strict") == (1, "", NOTHING)
    assert check(root, "--root", ".", "--strict", "-q") == (1, "", NOTHING)  # the reason it failed


def test_the_strict_setting(tmp_path):
    root = layout(tmp_path, "empty")
    (root / "pyproject.toml").write_text("[tool.hermes-lint]\nstrict = true\n")
    assert check(root) == (1, "", NOTHING)
    (root / "pyproject.toml").write_text("[tool.hermes-lint]\nstrict = 1\n")
    assert check(root)[0] == 2


def test_a_plugin_whose_register_registers_no_tool(tmp_path):
    root = layout(tmp_path, "plugins_dir")
    shutil.rmtree(root / "reminders")
    shutil.rmtree(root / "media")
    nothing = "Nothing checked: no tool registration found: plugin notes_only: none of its files names `register_tool`\n"
    assert check(root) == (0, "", nothing)
    # without any register(ctx), the summary still says only what is true; HRM801 says the rest
    (root / "notes_only" / "__init__.py").write_text("NOTES = []\n", encoding="utf-8")
    code, out, err = check(root)
    assert (code, err) == (1, "Found 1 diagnostic in 1 file (0 tools in 1 plugin)\n")
    assert out.startswith("notes_only/__init__.py:1:1: HRM801 module `notes_only/__init__.py` defines no `register`")
    assert check(root, "--ignore", "HRM801") == (0, "", nothing)


@pytest.mark.parametrize("name", ["flat", "helpers"])
def test_the_cache_follows_the_entry_point(tmp_path, name):
    root = layout(tmp_path, name)
    first = subprocess.run([sys.executable, "-m", "hermes_lint", "check"], cwd=root, capture_output=True, text=True,
                           timeout=120)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("hermes_agent.plugins", "other.group"))
    second = subprocess.run([sys.executable, "-m", "hermes_lint", "check", "--root", "."], cwd=root,
                            capture_output=True, text=True, timeout=120)
    assert "plugin)" in first.stderr
    assert second.stderr.startswith("Nothing checked"), second.stderr


def flake8(cwd: Path, *args: str, stdin: str = None):
    completed = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "HRM", *args], cwd=cwd, capture_output=True,
        text=True, input=stdin, timeout=120,
    )
    assert completed.stderr == ""
    return completed.stdout.splitlines()


def test_flake8_on_a_plugin_module_and_its_unsaved_buffer(tmp_path):
    root = layout(tmp_path, "src_layout")
    hermes = root / "src" / "notes_plugin" / "hermes.py"
    expected = ["src/notes_plugin/hermes.py:21:90: HRM305 `required` names `txt`, which is not in `properties` "
                "(did you mean `text`?)"]
    assert flake8(root, "src/notes_plugin/hermes.py") == expected
    # the editor's buffer, fixed and not saved: nothing to report; the disk still has the finding
    fixed = hermes.read_text().replace('["txt"]', '["text"]')
    assert flake8(root, "--stdin-display-name", "src/notes_plugin/hermes.py", "-", stdin=fixed) == []
    # a buffer that stops re-exporting register: its module no longer registers anything
    assert flake8(root, "--stdin-display-name", "src/notes_plugin/__init__.py", "-", stdin="") == []
    # a module of the package that registers nothing is not checked
    assert flake8(root, "src/notes_plugin/schemas.py") == []


def test_the_pre_commit_hook_command_in_a_plugin_package(tmp_path):
    root = layout(tmp_path, "helpers")
    code, out, _ = check(root, "--changed", "clock_plugin/__init__.py")
    assert (code, out) == (0, "")  # the findings are in another file, and none is a project rule's
    code, out, _ = check(root, "--changed", "clock_plugin/_register.py")
    assert code == 1 and len(out.splitlines()) == 4


def test_sarif_and_fix_in_a_directory_plugin(tmp_path):
    import json

    root = layout(tmp_path, "directory_plugin")
    init = root / "__init__.py"
    init.write_text(init.read_text().replace("check_fn=lambda: True, max_result_size_chars=2000", "check_func=lambda: True"))
    code, out, _ = check(root, "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1 and ("HRM004", "__init__.py") in [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results
    ]
    code, _, err = check(root, "--fix", "--select", "HRM004")
    assert (code, err) == (0, "Fixed 1 (0 remaining).\n")
    assert "check_fn=lambda: True)" in init.read_text()


def manifest(cwd: Path, *args: str):
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest", *args], cwd=cwd,
                               capture_output=True, text=True, timeout=120)
    return completed.returncode, completed.stdout, completed.stderr


def test_manifest_of_a_plugin_package_and_diff_of_two_releases(tmp_path):
    import json

    root = layout(tmp_path, "src_layout")
    target = root / "src" / "notes_plugin" / "hermes-tools.json"  # beside the package's modules: it ships
    assert manifest(root) == (0, "", "wrote src/notes_plugin/hermes-tools.json (2 tools: 2 frozen, 0 resolved at import)\n")
    data = json.loads(target.read_text())
    # not the runtime's format: the runtime loads plugins by importing them, and refuses this file
    assert (data["format"], data["format_version"]) == ("hermes-plugin-tool-manifest", 4)
    assert (data["package"], data["tools_dir"], data["toolsets"]) == ("notes_plugin", "src/notes_plugin",
                                                                       {"notes": ["notes_add", "notes_list"]})
    assert data["plugins"] == {"notes": {"directory": "src/notes_plugin", "entry_point": "notes_plugin",
                                         "manifest": None, "tools": ["notes_add", "notes_list"]}}
    assert data["modules"] == {"notes_plugin.hermes": {"path": "src/notes_plugin/hermes.py",
                                                       "reads": ["src/notes_plugin/schemas.py"],
                                                       "tools": ["notes_add", "notes_list"]}}
    assert data["tools"]["notes_add"]["handler"] == {"module": "notes_plugin.hermes", "qualname": "add_note"}
    assert data["tools"]["notes_add"]["schema"]["parameters"]["properties"]["text"] == {
        "type": "string", "description": "The note's text."}
    old = tmp_path / "old.json"
    shutil.copy(target, old)
    hermes = root / "src" / "notes_plugin" / "hermes.py"
    hermes.write_text(hermes.read_text().replace('"required": ["txt"]', '"required": ["text"]'))
    assert manifest(root, "--check")[0] == 1
    assert manifest(root)[0] == 0
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "diff", str(old), str(target), "--fail-on",
                                "breaking"], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 1
    assert "breaking    `notes_add`: property `text` is now required" in completed.stdout


def test_a_registration_that_cannot_be_read_makes_its_module_import_only_and_diff_unknown(tmp_path):
    import json

    root = layout(tmp_path, "src_layout")
    target = root / "src" / "notes_plugin" / "hermes-tools.json"
    assert manifest(root)[0] == 0
    old = tmp_path / "old.json"
    shutil.copy(target, old)
    hermes = root / "src" / "notes_plugin" / "hermes.py"
    hermes.write_text(hermes.read_text().replace(
        '    ctx.register_tool(name="notes_list"',
        '    for name in sorted(ctx.enabled_tools()):\n        ctx.register_tool(name=name'))
    # the module's other tool is readable, but a manifest listing it alone would say notes_list is gone
    assert manifest(root) == (0, "", "wrote src/notes_plugin/hermes-tools.json (0 tools: 0 frozen, 0 resolved at "
                                     "import; 1 import-only module: notes_plugin.hermes)\n")
    data = json.loads(target.read_text())
    assert (data["tools"], data["modules"], data["toolsets"]) == ({}, {}, {})
    assert data["import_only"] == {"notes_plugin.hermes": {"path": "src/notes_plugin/hermes.py", "reasons": [
        "line 26: this register_tool call cannot be read (the loop over `sorted(ctx.enabled_tools())` cannot be "
        "unrolled statically): its tool is not checked"]}}
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "diff", str(old), str(target), "--fail-on",
                                "breaking"], capture_output=True, text=True, timeout=120)
    assert (completed.returncode, completed.stdout) == (0, (
        "unknown     tool `notes_add` is no longer in the manifest: its module `notes_plugin.hermes` is import-only "
        "now, so only the import can tell whether it still registers it\n"
        "unknown     tool `notes_list` is no longer in the manifest: its module `notes_plugin.hermes` is import-only "
        "now, so only the import can tell whether it still registers it\n"
        "unknown     toolset `notes` is no longer in the manifest: the modules of its tools are import-only now, so "
        "only the import can tell what it includes\n"
        f"3 changes from {old} to {target}: 3 unknown\n"))


def test_manifest_of_a_plugins_directory(tmp_path):
    import json

    root = layout(tmp_path, "plugins_dir")
    assert manifest(root) == (0, "", "wrote hermes-tools.json (3 tools: 3 frozen, 0 resolved at import)\n")
    data = json.loads((root / "hermes-tools.json").read_text())
    assert (data["package"], data["tools_dir"]) == ("hermes_plugins", ".")
    assert sorted(data["modules"]) == ["hermes_plugins.radio", "hermes_plugins.reminders"]
    assert data["plugins"]["notes_only"]["tools"] == []


def test_shapes_of_published_plugins(tmp_path):
    root = layout(tmp_path, "patterns")
    # a helper imported inside register; `schemas.PLANT` through `from . import schemas` (a value
    # built by a function of that module); a table local to register; a `callable(...)` guard; a
    # context handed to a class that only keeps it (its module never names register_tool)
    assert check(root) == (
        1,
        # each at its key: in schemas.py, where PLANT is built, and in water.py, which passes `bed`
        "garden_plugin/schemas.py:8:49: HRM108 schema property `species` of tool `garden_plant` is never read by "
        "handler `_ok`\n"
        "garden_plugin/schemas.py:9:17: HRM108 schema property `depth` of tool `garden_plant` is never read by "
        "handler `_ok`\n"
        "garden_plugin/schemas.py:9:17: HRM306 parameter `depth` has no description (tool `garden_plant`)\n"
        "garden_plugin/schemas.py:9:43: HRM312 `minimum` 10 of `depth` is greater than its `maximum` 2: no value "
        "can satisfy both (tool `garden_plant`)\n"
        "garden_plugin/tools/water.py:12:70: HRM306 parameter `bed` has no description\n",
        "Found 5 diagnostics in 2 files (4 tools in 1 plugin)\n",
    )


def test_a_handler_and_check_computed_in_register_leave_the_tools_readable(tmp_path):
    root = layout(tmp_path, "runtime_parts")
    # `tool_name = schema["name"]` is read; `handler = _HANDLERS.get(...)` and
    # `check_fn=provider.ready` are unknown only themselves: both tools are checked
    assert check(root) == (
        1,
        "forecast_plugin/__init__.py:9:34: HRM305 `required` names `town`, which is not in `properties`\n",
        "Found 1 diagnostic in 1 file (2 tools in 1 plugin)\nNo safe fixes; 1 with `--fix --unsafe-fixes`\n",
    )


def test_a_loop_whose_registrations_cannot_be_frozen_gives_its_reason_once(tmp_path):
    import json

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "echo-plugin"\nversion = "1.0"\n\n'
        '[project.entry-points."hermes_agent.plugins"]\necho = "echo_plugin"\n'
    )
    package = tmp_path / "echo_plugin"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import json\n"
        "\n"
        "SCHEMAS = [\n"
        '    {"name": "echo_one", "description": "Echo once.", "parameters": {"type": "object", "properties": {}}},\n'
        '    {"name": "echo_two", "description": "Echo twice.", "parameters": {"type": "object", "properties": {}}},\n'
        "]\n"
        "\n"
        "\n"
        "def handle(args, **kwargs):\n"
        '    return json.dumps({"ok": True})\n'
        "\n"
        "\n"
        "def register(ctx):\n"
        "    for schema in SCHEMAS:\n"
        "        ctx.register_tool(name=schema['name'], toolset='echo', schema=schema, handler=handle,\n"
        "                          check_fn=lambda: True, parameters=schema['parameters'])\n"
    )
    assert manifest(tmp_path) == (0, "", "wrote echo_plugin/hermes-tools.json (0 tools: 0 frozen, 0 resolved at "
                                         "import; 1 import-only module: echo_plugin)\n")
    data = json.loads((package / "hermes-tools.json").read_text())
    assert data["import_only"] == {"echo_plugin": {"path": "echo_plugin/__init__.py", "reasons": [
        "line 15: register() gets an unknown keyword `parameters` (HRM004)"]}}
