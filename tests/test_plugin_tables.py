"""Plugins that register from a loop over a table their modules build (a literal completed by
the statements after it, objects of the project's own classes), through the real CLI: every
row's tool is checked, findings are placed at the key they are about, and a table changed where
the order of changes cannot be seen is "cannot verify", never its first value."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.project_files import rewrite, unread
from tests.test_plugin_projects import check

TABLES = Path(__file__).resolve().parent / "fixtures" / "plugin_tables"


def fixture(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(TABLES / name, target)
    return target


def test_a_list_extended_by_augmented_assignment_and_append_gives_every_tool(tmp_path):
    root = fixture(tmp_path, "extended_list")
    assert check(root) == (
        1,
        "recipes_plugin/schemas.py:19:57: HRM306 parameter `recipe_id` has no description (tool `recipe_show`)\n",
        "Found 1 diagnostic in 1 file (3 tools in 1 plugin)\n",
    )


def test_a_step_under_a_branch_leaves_the_table_unknown(tmp_path):
    root = fixture(tmp_path, "extended_list")
    rewrite(root / "recipes_plugin" / "schemas.py", "RECIPE_SCHEMAS.append(_RANDOM)",
            "if _RANDOM:\n    RECIPE_SCHEMAS.append(_RANDOM)")
    assert check(root) == (
        1, unread("recipes_plugin/__init__.py:8:9", "schemas.RECIPE_SCHEMAS"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_step_in_a_function_the_import_runs_leaves_the_table_unknown(tmp_path):
    root = fixture(tmp_path, "extended_list")
    rewrite(root / "recipes_plugin" / "schemas.py", "RECIPE_SCHEMAS.append(_RANDOM)",
            "def _add_random():\n    RECIPE_SCHEMAS.append(_RANDOM)\n\n\n_add_random()")
    assert check(root)[1] == unread("recipes_plugin/__init__.py:8:9", "schemas.RECIPE_SCHEMAS")


def test_a_table_the_importing_module_changes_is_unknown_there(tmp_path):
    root = fixture(tmp_path, "extended_list")
    rewrite(root / "recipes_plugin" / "__init__.py", "from .handlers import available, dispatch\n",
            "from .handlers import available, dispatch\n\nschemas.RECIPE_SCHEMAS.append(schemas._RANDOM)\n")
    assert check(root)[1] == unread("recipes_plugin/__init__.py:10:9", "schemas.RECIPE_SCHEMAS")


def test_a_dict_of_helper_calls_merged_from_sibling_modules_with_a_key_deleted(tmp_path):
    root = fixture(tmp_path, "merged_dict")
    # garden_debug_dump (whose `depth` has no description) is deleted from the table: not a tool
    assert check(root) == (
        1,
        "garden_plugin/harvest.py:5:57: HRM306 parameter `kilograms` has no description (tool `garden_harvest`)\n",
        "Found 1 diagnostic in 1 file (4 tools in 1 plugin)\n",
    )
    rewrite(root / "garden_plugin" / "schemas.py", 'del GARDEN_SCHEMAS["garden_debug_dump"]\n', "")
    assert check(root) == (
        1,
        "garden_plugin/debug.py:5:57: HRM306 parameter `depth` has no description (tool `garden_debug_dump`)\n"
        "garden_plugin/harvest.py:5:57: HRM306 parameter `kilograms` has no description (tool `garden_harvest`)\n",
        "Found 2 diagnostics in 2 files (5 tools in 1 plugin)\n",
    )


def test_a_merge_that_may_not_run_leaves_the_dict_unknown(tmp_path):
    root = fixture(tmp_path, "merged_dict")
    rewrite(root / "garden_plugin" / "schemas.py", "GARDEN_SCHEMAS.update(HARVEST_SCHEMAS)",
            "try:\n    GARDEN_SCHEMAS.update(HARVEST_SCHEMAS)\nexcept ImportError:\n    pass")
    assert check(root) == (
        1, unread("garden_plugin/__init__.py:8:9", "GARDEN_SCHEMAS.items()"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_table_of_this_module_completed_after_its_literal_gives_every_row(tmp_path):
    root = fixture(tmp_path, "same_module")
    assert check(root) == (
        1,
        "timer_plugin/__init__.py:32:86: HRM108 schema property `lap` of tool `timer_start` is never read by handler "
        "`_start`\n"
        "timer_plugin/__init__.py:32:86: HRM108 schema property `lap` of tool `timer_stop` is never read by handler "
        "`_stop`\n"
        "timer_plugin/__init__.py:32:86: HRM306 parameter `lap` has no description (tools `timer_start`, `timer_stop`)\n",
        "Found 3 diagnostics in 1 file (2 tools in 1 plugin)\n",
    )


def test_a_table_of_this_module_changed_by_a_function_the_import_runs_is_not_read_as_its_literal(tmp_path):
    root = fixture(tmp_path, "same_module")
    rewrite(root / "timer_plugin" / "__init__.py", '_TOOLS.append(("timer_stop", "Stop a timer.", _stop))',
            'def _more():\n    _TOOLS.append(("timer_stop", "Stop a timer.", _stop))\n\n\n_more()')
    assert check(root) == (
        1, unread("timer_plugin/__init__.py:32:9", "_TOOLS"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_table_of_named_tuples_dataclasses_and_plain_objects_gives_every_tool(tmp_path):
    root = fixture(tmp_path, "object_table")
    assert check(root) == (
        1,
        "parcel_plugin/schemas.py:2:40: HRM306 parameter `carrier` has an empty description (tool `parcel_quote`)\n",
        "Found 1 diagnostic in 1 file (3 tools in 1 plugin)\n",
    )


def test_the_manifest_of_an_object_table_freezes_schemas_built_from_the_objects(tmp_path):
    import json
    import subprocess
    import sys

    root = fixture(tmp_path, "object_table")
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest"], cwd=root, capture_output=True,
                               text=True, timeout=120)
    assert (completed.returncode, completed.stderr) == (
        0, "wrote parcel_plugin/hermes-tools.json (3 tools: 3 frozen, 0 resolved at import)\n"
    )
    tools = json.loads((root / "parcel_plugin" / "hermes-tools.json").read_text())["tools"]
    assert sorted(tools) == ["parcel_label_post", "parcel_quote", "parcel_track"]
    assert tools["parcel_label_post"]["schema"] == {
        "name": "parcel_label_post",
        "description": "Print a standard label.",
        "parameters": {
            "type": "object",
            "properties": {"tracking_id": {"type": "string", "description": "The parcel's tracking number."}},
            "required": ["tracking_id"],
        },
    }


def test_an_object_table_whose_class_does_more_than_store_is_not_read(tmp_path):
    for module, old, new in [
        ("specs.py", "    tags: list = field(default_factory=list)\n",
         "    tags: list = field(default_factory=list)\n\n    def __post_init__(self):\n        pass\n"),
        ("specs.py", "        self.code = code\n", "        self.code = code.lower()\n"),
        ("specs.py", "class Param(NamedTuple):", "class Param(NamedTuple, Base):"),
    ]:
        root = fixture(tmp_path / module / str(len(new)), "object_table")
        rewrite(root / "parcel_plugin" / module, old, new)
        assert check(root) == (
            1, unread("parcel_plugin/__init__.py:8:9", "specs.all_specs()"),
            "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
        ), new


def test_a_helper_that_completes_each_computed_row_sees_its_own_copy(tmp_path):
    root = fixture(tmp_path, "extended_list")
    rewrite(root / "recipes_plugin" / "__init__.py", "schema=schema,", "schema=_strict(schema),")
    rewrite(root / "recipes_plugin" / "__init__.py", "\n\ndef register(ctx):", '''


def _strict(schema):
    schema["parameters"]["additionalProperties"] = False
    schema["parameters"].setdefault("required", []).append("locale")
    schema["parameters"]["properties"]["locale"] = {"type": "string", "description": "Language of the answer."}
    return schema


def register(ctx):''')
    assert check(root) == (
        1,
        "recipes_plugin/schemas.py:19:57: HRM306 parameter `recipe_id` has no description (tool `recipe_show`)\n",
        "Found 1 diagnostic in 1 file (3 tools in 1 plugin)\n",
    )
