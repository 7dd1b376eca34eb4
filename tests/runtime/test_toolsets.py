"""toolsets.py: the shipped data, its literal shape, and include resolution."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toolsets
from toolsets import TOOLSETS, ToolsetError, resolve_toolset, validate_toolsets

TOOLSETS_SOURCE = Path(toolsets.__file__).read_text(encoding="utf-8")

BUILT_IN_TOOLS_BY_TOOLSET = {
    "file": ["read_file", "write_file", "patch", "search_files"],
    "terminal": ["terminal"],
    "todo": ["todo"],
    "memory": ["memory"],
    "clarify": ["clarify"],
    "web": ["web_search"],
    "code_execution": ["execute_code"],
}


def toolset(tools=(), includes=()) -> dict:
    return {"description": "test", "tools": list(tools), "includes": list(includes)}


# ===================================================================== shipped data


@pytest.mark.parametrize(("name", "tools"), BUILT_IN_TOOLS_BY_TOOLSET.items())
def test_each_built_in_toolset_lists_its_tools(name, tools):
    assert resolve_toolset(name) == tools


def test_hermes_cli_gets_every_built_in_tool():
    every_tool = [tool for tools in BUILT_IN_TOOLS_BY_TOOLSET.values() for tool in tools]
    assert sorted(resolve_toolset("hermes-cli")) == sorted(every_tool)
    assert TOOLSETS["hermes-cli"]["tools"] is toolsets._HERMES_CORE_TOOLS


def test_shipped_toolsets_are_valid_and_described():
    assert validate_toolsets() == []
    for name, definition in TOOLSETS.items():
        assert set(definition) == {"description", "tools", "includes"}, name
        assert definition["description"], name


def module_assignment(name: str) -> ast.expr:
    tree = ast.parse(TOOLSETS_SOURCE)
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and [
            t.id for t in statement.targets if isinstance(t, ast.Name)
        ] == [name]:
            return statement.value
    raise AssertionError(f"no top-level assignment to {name}")


def tool_lists_in_source():
    """Every list literal of ``_HERMES_CORE_TOOLS`` and ``TOOLSETS``, as the linter sees them."""
    yield module_assignment("_HERMES_CORE_TOOLS")
    for definition in module_assignment("TOOLSETS").values:
        yield from (v for v in definition.values if isinstance(v, ast.List))


def test_toolsets_is_a_literal_dict_apart_from_the_core_tools_reference():
    # The linter reads TOOLSETS with ast and the scaffolder edits it with libcst: nothing in it
    # may need running code, except the one name reference it knows how to follow.
    core = module_assignment("_HERMES_CORE_TOOLS")
    assert isinstance(core, ast.List)
    assert ast.literal_eval(core) == toolsets._HERMES_CORE_TOOLS

    table = module_assignment("TOOLSETS")
    assert isinstance(table, ast.Dict)
    for definition in table.values:
        assert isinstance(definition, ast.Dict)
        for value in definition.values:
            if isinstance(value, ast.Name):
                assert value.id == "_HERMES_CORE_TOOLS"
            else:
                ast.literal_eval(value)


def test_lists_hold_one_tool_per_line_with_trailing_commas():
    # One element per line keeps a scaffolded insertion a one-line diff.
    lines = TOOLSETS_SOURCE.splitlines()
    for node in tool_lists_in_source():
        if not node.elts:
            continue
        element_lines = [element.lineno for element in node.elts]
        assert len(set(element_lines)) == len(element_lines), element_lines
        assert node.lineno not in element_lines and node.end_lineno not in element_lines
        last = node.elts[-1]
        after_last = lines[last.end_lineno - 1][last.end_col_offset:]
        assert after_last.strip() == ",", (last.lineno, after_last)


# ===================================================================== resolution


def test_resolution_follows_includes_depth_first_and_keeps_first_positions():
    table = {
        "top": toolset(["t1", "shared"], includes=["left", "right"]),
        "left": toolset(["l1", "shared"], includes=["deep"]),
        "deep": toolset(["d1", "t1"]),
        "right": toolset(["r1", "d1"]),
    }
    assert resolve_toolset("top", table) == ["t1", "shared", "l1", "d1", "r1"]


def test_diamond_includes_are_not_a_cycle():
    table = {
        "top": toolset(includes=["a", "b"]),
        "a": toolset(["a1"], includes=["base"]),
        "b": toolset(["b1"], includes=["base"]),
        "base": toolset(["x"]),
    }
    assert resolve_toolset("top", table) == ["a1", "x", "b1"]


def test_missing_keys_count_as_empty():
    assert resolve_toolset("bare", {"bare": {"description": "no lists"}}) == []


def test_unknown_toolset():
    with pytest.raises(ToolsetError) as raised:
        resolve_toolset("nope")
    assert str(raised.value) == "unknown toolset 'nope'"
    assert isinstance(raised.value, ValueError)


def test_unknown_direct_include_names_the_includer():
    table = {"hermes-cli": toolset(["a"], includes=["x"])}
    with pytest.raises(ToolsetError) as raised:
        resolve_toolset("hermes-cli", table)
    assert str(raised.value) == "unknown toolset 'x' (included from 'hermes-cli')"


def test_unknown_deep_include_names_the_whole_path():
    table = {"a": toolset(includes=["b"]), "b": toolset(includes=["x"])}
    with pytest.raises(ToolsetError) as raised:
        resolve_toolset("a", table)
    assert str(raised.value) == "unknown toolset 'x' (included from 'b' via a -> b)"


@pytest.mark.parametrize(
    ("table", "start", "message"),
    [
        ({"a": toolset(includes=["a"])}, "a", "toolset cycle: a -> a"),
        (
            {"a": toolset(includes=["b"]), "b": toolset(includes=["a"])},
            "a",
            "toolset cycle: a -> b -> a",
        ),
        (
            {
                "top": toolset(includes=["a"]),
                "a": toolset(includes=["b"]),
                "b": toolset(includes=["c"]),
                "c": toolset(includes=["a"]),
            },
            "top",
            "toolset cycle: top -> a -> b -> c -> a",
        ),
    ],
)
def test_include_cycles(table, start, message):
    with pytest.raises(ToolsetError) as raised:
        resolve_toolset(start, table)
    assert str(raised.value) == message


def test_validate_reports_every_broken_toolset_once_in_table_order():
    table = {
        "fine": toolset(["ok"]),
        "a": toolset(includes=["b"]),
        "b": toolset(includes=["a"]),
        "typo": toolset(includes=["fiel"]),
        "uses_typo": toolset(includes=["typo"]),
    }
    assert validate_toolsets(table) == [
        "toolset cycle: a -> b -> a",
        "toolset cycle: b -> a -> b",
        "unknown toolset 'fiel' (included from 'typo')",
        "unknown toolset 'fiel' (included from 'typo' via uses_typo -> typo)",
    ]
