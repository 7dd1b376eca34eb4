"""Breaking-change labels between two manifests (``hermes_lint.manifest.diff``) and the
``hermes-lint diff`` command: every label and kind on a pair of manifests."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hermes_lint.cli.diff import diff
from hermes_lint.manifest.diff import (
    BREAKING,
    COMPATIBLE,
    UNKNOWN,
    ManifestError,
    fails,
    format_changes,
    label_changes,
)

REPO_MANIFEST = Path(__file__).resolve().parent.parent / "tools" / "manifest.json"


def tool(name, properties, required=(), module="tools.web_tool", description="Does a thing.", **extra):
    parameters = {"type": "object", "properties": properties, "required": list(required), **extra}
    return {
        "name": name, "toolset": "web", "module": module, "line": 1, "description": description,
        "schema": {"name": name, "description": description, "parameters": parameters},
        "emoji": "", "requires_env": [], "is_async": False, "max_result_size_chars": None, "override": False,
        "handler": "via import", "check": {"kind": "always"}, "dynamic_schema_overrides": False,
        "import_for_definitions": False,
    }


def manifest(*tools, toolsets=None, import_only=None):
    return {
        "format": "hermes-tool-manifest", "format_version": 1, "generator": "hermes-lint 0.1.0",
        "package": "tools", "tools_dir": "tools", "sources": {}, "modules": {},
        "import_only": import_only or {}, "tools": {t["name"]: t for t in tools},
        "toolsets": {"web": [t["name"] for t in tools]} if toolsets is None else toolsets,
    }


SEARCH = tool(
    "search",
    {
        "query": {"type": "string", "description": "Terms."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Max hits."},
        "units": {"type": "string", "enum": ["metric", "imperial"], "description": "Units."},
        "filter": {"type": "object", "properties": {"site": {"type": "string"}}, "description": "Filter."},
    },
    required=["query"],
)
FETCH = tool("fetch", {"url": {"type": "string", "description": "Address."}}, required=["url"], module="tools.fetch_tool")
BASE = manifest(SEARCH, FETCH)


def changed(edit):
    new = copy.deepcopy(BASE)
    edit(new)
    return [(c.label, c.kind, c.where) for c in label_changes(BASE, new)]


def params(m, name="search"):
    return m["tools"][name]["schema"]["parameters"]


def prop(m, name, tool_name="search"):
    return params(m, tool_name)["properties"][name]


# --------------------------------------------------------------------------- tools


def test_identical_manifests_have_no_changes():
    assert label_changes(BASE, copy.deepcopy(BASE)) == []
    assert format_changes([]) == "no changes to the tools between old and new\n"


def test_tool_removed_is_breaking_and_so_is_the_toolset_dropping_it():
    new = manifest(SEARCH)
    assert [(c.label, c.kind) for c in label_changes(BASE, new)] == [
        (BREAKING, "tool removed"),
        (BREAKING, "toolset dropped a tool"),
    ]


def test_tool_added_is_compatible():
    new = manifest(SEARCH, FETCH, tool("ping", {}, module="tools.ping_tool"))
    kinds = [(c.label, c.kind, c.tool) for c in label_changes(BASE, new)]
    assert kinds == [(COMPATIBLE, "tool added", "ping"), (COMPATIBLE, "toolset added a tool", "ping")]


def test_tool_renamed_is_one_breaking_change_not_a_removal_and_an_addition():
    renamed = copy.deepcopy(FETCH)
    renamed["name"] = renamed["schema"]["name"] = "fetch_url"
    changes = label_changes(BASE, manifest(SEARCH, renamed))
    tool_changes = [(c.label, c.kind, c.message) for c in changes if not c.kind.startswith("toolset")]
    assert tool_changes == [(BREAKING, "tool renamed", "tool `fetch` renamed to `fetch_url`")]


def test_a_tool_whose_module_became_import_only_is_unknown_not_removed():
    new = manifest(SEARCH, import_only={"tools.fetch_tool": {"path": "tools/fetch_tool.py", "reasons": ["x"]}},
                   toolsets={"web": ["search", "fetch"]})
    assert [(c.label, c.kind) for c in label_changes(BASE, new)] == [(UNKNOWN, "tool no longer frozen")]


def test_a_toolset_listing_only_tools_no_longer_frozen_is_unknown_and_one_that_dropped_a_tool_breaks():
    only_fetch = manifest(FETCH, toolsets={"web": ["search", "fetch"], "pages": ["fetch"]})
    gone = {"tools.fetch_tool": {"path": "tools/fetch_tool.py", "reasons": ["x"]}}
    # a plugin manifest's toolsets list its frozen tools: they go with the module's tools
    changes = label_changes(only_fetch, manifest(import_only=gone, toolsets={"web": ["search"]}))
    assert [(c.label, c.kind, c.tool, c.where) for c in changes] == [
        (UNKNOWN, "tool no longer frozen", "fetch", ""),
        (UNKNOWN, "toolset no longer frozen", "", "pages"),
        (UNKNOWN, "toolset tool no longer frozen", "fetch", "web"),
    ]
    # the same toolsets losing a tool whose module is not import-only: breaking
    changes = label_changes(only_fetch, manifest(FETCH, toolsets={"web": ["search"]}))
    assert [(c.label, c.kind, c.tool, c.where) for c in changes] == [
        (BREAKING, "toolset removed", "", "pages"),
        (BREAKING, "toolset dropped a tool", "fetch", "web"),
    ]


def test_tool_description_changed_is_compatible():
    def edit(m):
        m["tools"]["fetch"]["description"] = "Fetch a page."
    assert changed(edit) == [(COMPATIBLE, "description changed", "")]


# --------------------------------------------------------------------------- properties


def test_property_removed_is_breaking():
    assert changed(lambda m: params(m)["properties"].pop("units")) == [(BREAKING, "property removed", "units")]


def test_property_newly_required_is_breaking_and_no_longer_required_is_compatible():
    assert changed(lambda m: params(m)["required"].append("limit")) == [(BREAKING, "property newly required", "limit")]
    assert changed(lambda m: params(m).update(required=[])) == [(COMPATIBLE, "property no longer required", "query")]


def test_added_properties_are_labelled_by_whether_they_are_required():
    def optional(m):
        params(m)["properties"]["lang"] = {"type": "string"}
    def required(m):
        optional(m)
        params(m)["required"].append("lang")
    assert changed(optional) == [(COMPATIBLE, "optional property added", "lang")]
    assert changed(required) == [(BREAKING, "property newly required", "lang")]


def test_nested_properties_are_compared_with_their_path():
    def edit(m):
        prop(m, "filter")["properties"].pop("site")
        prop(m, "filter")["properties"]["host"] = {"type": "string"}
    assert changed(edit) == [
        (BREAKING, "property removed", "filter.site"),
        (COMPATIBLE, "optional property added", "filter.host"),
    ]


def test_array_items_are_compared():
    base = manifest(tool("tag", {"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}))
    new = copy.deepcopy(base)
    new["tools"]["tag"]["schema"]["parameters"]["properties"]["tags"]["items"]["enum"] = ["a"]
    assert [(c.label, c.kind, c.where) for c in label_changes(base, new)] == [(BREAKING, "enum narrowed", "tags[]")]


# --------------------------------------------------------------------------- types, enums, constraints


@pytest.mark.parametrize(
    "before, after, label, kind",
    [
        ("integer", "string", BREAKING, "type changed"),
        ("integer", ["integer", "null"], COMPATIBLE, "type widened"),
        ("integer", "number", COMPATIBLE, "type widened"),
        ("number", "integer", BREAKING, "type changed"),
        ("integer", None, COMPATIBLE, "type widened"),
    ],
)
def test_type_changes(before, after, label, kind):
    def edit(m):
        if after is None:
            prop(m, "limit").pop("type")
        else:
            prop(m, "limit")["type"] = after
    prop(BASE, "limit")["type"] = before
    try:
        assert changed(edit) == [(label, kind, "limit")]
    finally:
        prop(BASE, "limit")["type"] = "integer"


def test_enum_narrowed_is_breaking_and_widened_is_compatible():
    assert changed(lambda m: prop(m, "units").update(enum=["metric"])) == [(BREAKING, "enum narrowed", "units")]
    assert changed(lambda m: prop(m, "units").update(enum=["metric", "imperial", "si"])) == [
        (COMPATIBLE, "enum widened", "units")
    ]
    assert changed(lambda m: prop(m, "units").pop("enum")) == [(COMPATIBLE, "enum widened", "units")]
    assert changed(lambda m: prop(m, "query").update(enum=["a"])) == [(BREAKING, "enum narrowed", "query")]


@pytest.mark.parametrize(
    "keyword, value, label, kind",
    [
        ("minimum", 5, BREAKING, "constraint tightened"),
        ("minimum", 0, COMPATIBLE, "constraint loosened"),
        ("maximum", 10, BREAKING, "constraint tightened"),
        ("maximum", 100, COMPATIBLE, "constraint loosened"),
        ("maximum", None, COMPATIBLE, "constraint loosened"),
        ("multipleOf", 5, BREAKING, "constraint tightened"),
    ],
)
def test_bound_changes(keyword, value, label, kind):
    def edit(m):
        if value is None:
            prop(m, "limit").pop(keyword)
        else:
            prop(m, "limit")[keyword] = value
    assert changed(edit) == [(label, kind, "limit")]


def test_pattern_added_changed_and_removed():
    assert changed(lambda m: prop(m, "query").update(pattern="^a")) == [(BREAKING, "constraint tightened", "query")]
    prop(BASE, "query")["pattern"] = "^a"
    try:
        assert changed(lambda m: prop(m, "query").update(pattern="^b")) == [(BREAKING, "constraint changed", "query")]
        assert changed(lambda m: prop(m, "query").pop("pattern")) == [(COMPATIBLE, "constraint loosened", "query")]
    finally:
        prop(BASE, "query").pop("pattern")


def test_closing_an_object_is_breaking_and_opening_it_compatible():
    assert changed(lambda m: params(m).update(additionalProperties=False)) == [
        (BREAKING, "constraint tightened", "parameters")
    ]
    closed = copy.deepcopy(BASE)
    params(closed)["additionalProperties"] = False
    assert [(c.label, c.kind) for c in label_changes(closed, BASE)] == [(COMPATIBLE, "constraint loosened")]


def test_alternatives():
    base = manifest(tool("t", {"x": {"anyOf": [{"type": "string"}, {"type": "null"}]}}))

    def with_branches(branches):
        new = copy.deepcopy(base)
        new["tools"]["t"]["schema"]["parameters"]["properties"]["x"]["anyOf"] = branches
        return [(c.label, c.kind) for c in label_changes(base, new)]

    assert with_branches([{"type": "string"}, {"type": "null"}, {"type": "integer"}]) == [(COMPATIBLE, "alternatives widened")]
    assert with_branches([{"type": "string"}]) == [(BREAKING, "alternatives narrowed")]
    assert with_branches([{"type": "integer"}]) == [(BREAKING, "alternatives changed")]


def test_parameter_description_and_default_changes_are_compatible():
    assert changed(lambda m: prop(m, "query").update(description="Search terms.")) == [
        (COMPATIBLE, "description changed", "query")
    ]
    assert changed(lambda m: prop(m, "limit").update(default=10)) == [(COMPATIBLE, "default changed", "limit")]


def test_keywords_not_judged_are_unknown():
    assert changed(lambda m: prop(m, "query").update({"not": {"const": ""}})) == [
        (UNKNOWN, "schema keyword changed", "query")
    ]


def test_definitions_are_compared_and_a_removed_one_is_breaking():
    base = manifest(tool("t", {"x": {"$ref": "#/$defs/x"}}, **{"$defs": {"x": {"type": "string", "enum": ["a", "b"]}}}))
    narrowed = copy.deepcopy(base)
    narrowed["tools"]["t"]["schema"]["parameters"]["$defs"]["x"]["enum"] = ["a"]
    assert [(c.label, c.kind) for c in label_changes(base, narrowed)] == [(BREAKING, "enum narrowed")]
    removed = copy.deepcopy(base)
    removed["tools"]["t"]["schema"]["parameters"]["$defs"] = {}
    assert [(c.label, c.kind) for c in label_changes(base, removed)] == [(BREAKING, "definition removed")]


# --------------------------------------------------------------------------- toolsets


def test_toolset_changes():
    def edit(m):
        m["toolsets"]["web"].remove("fetch")
        m["toolsets"]["browse"] = ["fetch"]
    assert changed(edit) == [(COMPATIBLE, "toolset added", "browse"), (BREAKING, "toolset dropped a tool", "web")]
    assert changed(lambda m: m["toolsets"].pop("web")) == [(BREAKING, "toolset removed", "web")]
    assert changed(lambda m: m["toolsets"]["web"].append("extra")) == [(COMPATIBLE, "toolset added a tool", "web")]
    assert changed(lambda m: m.update(toolsets=None)) == [(UNKNOWN, "toolsets not readable", "")]


# --------------------------------------------------------------------------- text, CI, errors


def test_format_changes_lists_labels_and_a_summary():
    new = copy.deepcopy(BASE)
    params(new)["properties"].pop("units")
    params(new)["properties"]["lang"] = {"type": "string"}
    text = format_changes(label_changes(BASE, new), "v1.json", "v2.json")
    assert text == (
        "breaking    `search`: property `units` removed\n"
        "compatible  `search`: optional property `lang` added\n"
        "2 changes from v1.json to v2.json: 1 breaking, 1 compatible\n"
    )


def test_fail_on():
    breaking = label_changes(BASE, manifest(SEARCH))
    compatible = label_changes(BASE, manifest(SEARCH, FETCH, tool("ping", {}, module="tools.ping_tool")))
    assert fails(breaking, "breaking") and not fails(compatible, "breaking")
    assert fails(compatible, "any") and not fails(compatible, "unknown") and not fails(breaking, None)


def test_a_file_that_is_not_a_manifest_is_refused():
    with pytest.raises(ManifestError):
        label_changes({"format": "something-else", "tools": {}}, BASE)


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_cli_prints_the_labels_and_fails_on_breaking_only_when_asked(tmp_path):
    old = write(tmp_path, "old.json", BASE)
    new = write(tmp_path, "new.json", manifest(SEARCH))
    result = CliRunner().invoke(diff, [old, new])
    assert result.exit_code == 0, result.output
    assert "breaking    tool `fetch` removed" in result.output
    assert CliRunner().invoke(diff, [old, new, "--fail-on", "breaking"]).exit_code == 1
    assert CliRunner().invoke(diff, [old, old, "--fail-on", "breaking"]).exit_code == 0


def test_cli_json_output(tmp_path):
    old = write(tmp_path, "old.json", BASE)
    new = write(tmp_path, "new.json", manifest(SEARCH, FETCH, tool("ping", {}, module="tools.ping_tool")))
    result = CliRunner().invoke(diff, [old, new, "--format", "json", "--fail-on", "breaking"])
    assert result.exit_code == 0
    payload = json.loads(result.output)
    assert payload["counts"] == {"breaking": 0, "compatible": 2, "unknown": 0}
    assert payload["changes"][0] == {
        "label": "compatible", "kind": "tool added", "tool": "ping", "where": "", "message": "tool `ping` added",
    }


def test_cli_usage_errors_exit_2(tmp_path):
    good = write(tmp_path, "good.json", BASE)
    bad = write(tmp_path, "bad.json", {"tools": {}})
    missing = str(tmp_path / "missing.json")
    for args in ([good, bad], [missing, good]):
        result = CliRunner().invoke(diff, args)
        assert result.exit_code == 2
        assert "hermes-lint: error:" in result.output


def test_this_repos_manifest_against_itself_and_an_edited_copy(tmp_path):
    data = json.loads(REPO_MANIFEST.read_text(encoding="utf-8"))
    assert label_changes(data, copy.deepcopy(data)) == []
    edited = copy.deepcopy(data)
    name = sorted(edited["tools"])[0]
    edited["tools"][name]["schema"]["parameters"]["properties"]["__new__"] = {"type": "string"}
    assert [(c.label, c.kind) for c in label_changes(data, edited)] == [(COMPATIBLE, "optional property added")]


# --------------------------------------------------------------------------- values that are not what they were


@pytest.mark.parametrize(
    "value, shown",
    [(float("nan"), "NaN"), ("50", '"50"'), (float("inf"), "Infinity"), ([50], "[50]")],
)
def test_a_bound_that_is_no_longer_a_number_is_breaking(value, shown):
    assert changed(lambda m: prop(m, "limit").update(maximum=value)) == [(BREAKING, "constraint changed", "limit")]
    new = copy.deepcopy(BASE)
    prop(new, "limit")["maximum"] = value
    assert label_changes(BASE, new)[0].message == f"`search`: `maximum` of `limit` 50 → {shown} (not a finite number)"
    assert label_changes(new, copy.deepcopy(new)) == []  # NaN is unchanged when it stays NaN


def test_the_same_number_written_as_a_float_is_no_change():
    assert changed(lambda m: prop(m, "limit").update(maximum=50.0)) == []


def test_a_property_schema_replaced_by_something_else():
    assert changed(lambda m: params(m)["properties"].update(units="string")) == [(BREAKING, "schema replaced", "units")]
    assert changed(lambda m: params(m)["properties"].update(units=True)) == [(COMPATIBLE, "constraint loosened", "units")]
    assert changed(lambda m: params(m)["properties"].update(units=False)) == [(UNKNOWN, "schema keyword changed", "units")]
    old = copy.deepcopy(BASE)
    params(old)["properties"]["units"] = "string"
    assert label_changes(old, copy.deepcopy(old)) == []


@pytest.mark.parametrize(
    "value, label, kind",
    [(600, COMPATIBLE, "result limit changed"), (float("nan"), BREAKING, "result limit invalid"),
     ("600", BREAKING, "result limit invalid")],
)
def test_max_result_size_chars_changes_are_reported(value, label, kind):
    def edit(m):
        m["tools"]["search"]["max_result_size_chars"] = value
    assert changed(edit) == [(label, kind, "")]


def test_cli_diff_of_600_to_nan_and_to_a_string(tmp_path):
    old_manifest = copy.deepcopy(BASE)
    old_manifest["tools"]["search"]["max_result_size_chars"] = 600
    for value, shown in ((float("nan"), "NaN"), ("600", '"600"')):
        new_manifest = copy.deepcopy(old_manifest)
        new_manifest["tools"]["search"]["max_result_size_chars"] = value
        result = CliRunner().invoke(diff, [write(tmp_path, "old.json", old_manifest), write(tmp_path, "new.json", new_manifest), "--fail-on", "breaking"])
        assert result.exit_code == 1, result.output
        assert f"breaking    `search`: max_result_size_chars 600 → {shown} (not a finite number)" in result.output


def test_cli_diff_of_a_deeply_nested_manifest_is_a_clear_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "hermes-tool-manifest", "tools": {}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = CliRunner().invoke(diff, [str(deep), write(tmp_path, "good.json", BASE)])
    assert result.exit_code == 2
    assert result.output == f"hermes-lint: error: {deep}: not readable JSON (nested too deeply)\n"


def test_cli_diff_of_schemas_nested_too_deeply_to_compare_is_a_clear_error(tmp_path):
    def nested(levels, leaf):
        schema = leaf
        for _ in range(levels):
            schema = {"type": "object", "properties": {"p": schema}}
        return schema

    old_manifest, new_manifest = copy.deepcopy(BASE), copy.deepcopy(BASE)
    params(old_manifest)["properties"]["deep"] = nested(300, {"type": "string"})
    params(new_manifest)["properties"]["deep"] = nested(300, {"type": "integer"})
    old, new = write(tmp_path, "old.json", old_manifest), write(tmp_path, "new.json", new_manifest)
    result = CliRunner().invoke(diff, [old, new])
    assert result.exit_code == 2
    assert result.output == f"hermes-lint: error: {old}, {new}: schemas nested too deeply to compare\n"
