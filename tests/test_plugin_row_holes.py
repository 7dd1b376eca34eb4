"""A plugin's table whose rows are known but for values that decide neither which tools exist
nor their names (a description built from a parameter of the function that registers), through
the real CLI: each such value is an unknown part of its one registration, the rest of the row is
checked, and the manifest resolves that tool at import instead of freezing a guess. A value that
does decide them (a name, a row, the table's length, the schema's structure) leaves the loop
"cannot verify"."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_plugin_projects import check

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "plugin_tables" / "row_holes"
TOOLS = "lamp_plugin/tools.py"
MISSING_ROOM = f"{TOOLS}:35:44: HRM306 parameter `room` has no description\n"


def lamp(tmp_path: Path, old: str = "", new: str = "") -> Path:
    root = tmp_path / "lamp"
    shutil.copytree(FIXTURE, root)
    if old:
        path = root / TOOLS
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new))
    return root


def unread(line: int, why: str) -> str:
    return f"{TOOLS}:{line}:9: HRM003 cannot verify: this register_tool call cannot be read ({why}): its tool is not checked\n"


COMPUTED = "`settings` is computed inside `register_lamp_tools` at run time"
NOT_UNROLLED = "the loop over `rows` cannot be unrolled statically"
# lamp_off, the row whose description is literal, is read: its envelope is a finding of its own
ENVELOPE = (
    f"{TOOLS}:41:20: HRM304 schema is a whole OpenAI tool definition "
    '({"type": "function", "function": {...}}), which Hermes builds itself from `schema` '
    '({"type": "function", "function": {**schema, "name": ...}}): the model would get a function with no '
    "description and no parameters; pass the inner `function` dict as `schema=`\n"
)


def test_descriptions_computed_from_a_parameter_leave_every_row_read(tmp_path):
    # lamp_on's description and lamp_dim's `level` description use `settings`: unknown parts,
    # about which the description rules stay silent; lamp_off's missing description is found
    assert check(lamp(tmp_path)) == (1, MISSING_ROOM, "Found 1 diagnostic in 1 file (3 tools in 1 plugin)\n")


@pytest.mark.parametrize("old, new, expected", [
    pytest.param('("lamp_off", ', '(f"lamp_{settings.max_lamps}", ',
                 (unread(39, COMPUTED), "Found 1 diagnostic in 1 file (2 tools in 1 plugin, 1 unread)\n"),
                 id="a-name-computed-from-a-parameter"),
    pytest.param('schema={"name": name,', 'schema={"name": settings.prefix + name,',
                 (unread(39, COMPUTED), "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n"),
                 id="the-schema-name-computed"),
    pytest.param('schema={"name": name,', 'schema={**settings.extra, "name": name,',
                 (unread(39, COMPUTED), "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n"),
                 id="a-computed-mapping-spread-into-the-schema"),
    pytest.param('schema={"name": name, "description": description, "parameters": parameters},',
                 'schema={"type": "function", "function": {"name": name, "description": description,\n'
                 '                                                      "parameters": parameters}},',
                 (unread(39, COMPUTED) + ENVELOPE, "Found 2 diagnostics in 1 file (1 tool in 1 plugin, 1 unread)\n"),
                 id="an-openai-envelope"),
    pytest.param("    rows = [\n", "    rows = settings.more_rows + [\n",
                 (unread(39, NOT_UNROLLED), "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n"),
                 id="an-unknown-number-of-rows"),
    pytest.param("         lamp_off),\n", "         lamp_off),\n        settings.custom_row,\n",
                 (unread(40, NOT_UNROLLED), "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n"),
                 id="a-row-unknown-as-a-whole"),
    pytest.param('"required": ["level"]', '"required": settings.required',
                 (MISSING_ROOM + unread(39, COMPUTED), "Found 2 diagnostics in 1 file (2 tools in 1 plugin, 1 unread)\n"),
                 id="required-computed"),
    pytest.param('{"type": "integer", "description"', '{"type": settings.level_type, "description"',
                 (MISSING_ROOM + unread(39, COMPUTED), "Found 2 diagnostics in 1 file (2 tools in 1 plugin, 1 unread)\n"),
                 id="a-property-type-computed"),
    pytest.param('{"type": "integer", "description": f"From 0 to {settings.max_level}."}', "settings.level",
                 (MISSING_ROOM + unread(39, COMPUTED), "Found 2 diagnostics in 1 file (2 tools in 1 plugin, 1 unread)\n"),
                 id="a-whole-property-computed"),
])
def test_a_computed_value_that_decides_the_tools_or_their_structure_stays_unread(tmp_path, old, new, expected):
    assert check(lamp(tmp_path, old, new)) == (1, *expected)


def test_the_manifest_resolves_a_tool_with_a_computed_part_at_import_and_freezes_the_others(tmp_path):
    root = lamp(tmp_path)
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest"], cwd=root, capture_output=True,
                               text=True, timeout=120)
    assert (completed.returncode, completed.stderr) == (0, (
        f"lamp_plugin.tools: tool `lamp_dim` is resolved at import: {COMPUTED} (line 31)\n"
        f"lamp_plugin.tools: tool `lamp_on` is resolved at import: {COMPUTED} (line 26)\n"
        "wrote lamp_plugin/hermes-tools.json (3 tools: 1 frozen, 2 resolved at import)\n"
    ))
    manifest = json.loads((root / "lamp_plugin" / "hermes-tools.json").read_text())
    tools = manifest["tools"]
    assert manifest["import_only"] == {}
    assert {name: tool["import_for_definitions"] for name, tool in tools.items()} == {
        "lamp_dim": True, "lamp_off": False, "lamp_on": True,
    }
    assert "holes" not in tools["lamp_off"]
    assert tools["lamp_off"]["schema"] == {
        "name": "lamp_off",
        "description": "Switch the lamps of a room off.",
        "parameters": {"type": "object", "properties": {"room": {"type": "string"}}},
    }
    # the unknown part is no value in the manifest: null, with the hole saying why
    assert tools["lamp_on"]["holes"] == [{"path": ["description"], "reason": f"{COMPUTED} (line 26)"}]
    assert tools["lamp_on"]["schema"]["description"] is None
    assert tools["lamp_on"]["schema"]["parameters"]["properties"] == {
        "room": {"type": "string", "description": "Room the lamp is in."},
    }
    assert tools["lamp_dim"]["holes"] == [
        {"path": ["parameters", "properties", "level", "description"], "reason": f"{COMPUTED} (line 31)"},
    ]
    assert tools["lamp_dim"]["schema"]["parameters"] == {
        "type": "object", "properties": {"level": {"type": "integer", "description": None}}, "required": ["level"],
    }


def test_rows_of_nested_handlers_with_a_computed_description_are_read(tmp_path):
    # the nested `lamp_on` reads an undeclared `chamber`: a handler the loop's rows name from
    # the function's locals is not analysed (unknown, so no finding), but its tool is checked
    root = lamp(tmp_path, '    room = {"room"', (
        '    def lamp_on(args, **_):\n        return json.dumps({"on": True, "room": args.get("chamber")})\n\n'
        '    room = {"room"'
    ))
    assert check(root) == (
        1, f"{TOOLS}:38:44: HRM306 parameter `room` has no description\n",
        "Found 1 diagnostic in 1 file (3 tools in 1 plugin)\n",
    )


def test_a_single_call_with_a_computed_description_is_read_too(tmp_path):
    root = lamp(tmp_path, "    for name, description, parameters, handler in rows:\n", (
        '    ctx.register_tool(name="lamp_test", toolset="lamp", check_fn=bridge_available, handler=lamp_off,\n'
        '                      schema={"name": "lamp_test", "description": limit,\n'
        '                              "parameters": {"type": "object", "properties": {}}})\n'
        "    for name, description, parameters, handler in rows:\n"
    ))
    assert check(root) == (1, MISSING_ROOM, "Found 1 diagnostic in 1 file (4 tools in 1 plugin)\n")
