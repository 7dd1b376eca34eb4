"""Plugins whose tables are built by functions: rows of nested handler functions returned by a
factory, and a table of handlers a plugin builds in its locals and trims before its loop, through
the real CLI. Every row's tool is checked, a nested handler is analysed as the handler (findings
placed in its def), and what cannot be read stays "cannot verify", never a guess."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.project_files import rewrite, unread
from tests.test_plugin_projects import check

CLOSURES = Path(__file__).resolve().parent / "fixtures" / "plugin_closures"


def fixture(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(CLOSURES / name, target)
    return target


FACTORY_FINDINGS = (
    "lantern_plugin/tools.py:11:55: HRM107 handler `_shine` reads argument `power`, which the schema of tool "
    "`lantern_shine` does not declare\n"
    "lantern_plugin/tools.py:13:5: HRM104 handler `_dim` accepts no **kwargs; the registry calls "
    "`handler(args, **kwargs)` (with `task_id` and other keywords)\n"
    "lantern_plugin/tools.py:16:5: HRM105 handler `_flicker` is `async def` but is registered without "
    "`is_async=True`; dispatch would get an un-awaited coroutine\n"
)


def test_rows_of_nested_handlers_returned_by_a_factory_are_tools_with_their_handlers(tmp_path):
    root = fixture(tmp_path, "factory_rows")
    # the factory's parameter (a client made at run time) is only read inside the handlers
    assert check(root) == (1, FACTORY_FINDINGS, "Found 3 diagnostics in 1 file (3 tools in 1 plugin)\n")


def test_a_nested_handler_shadowing_a_module_function_is_its_own_def(tmp_path):
    root = fixture(tmp_path, "factory_rows")
    # a module-level `_dump` returning a dict is not what the handlers call: theirs is the closure's
    rewrite(root / "lantern_plugin" / "tools.py", 'TOOLSET = "lantern"\n',
            'TOOLSET = "lantern"\n\n\ndef _dump(value):\n    return {"value": value}\n')
    shifted = FACTORY_FINDINGS.replace("tools.py:11:", "tools.py:15:").replace("tools.py:13:", "tools.py:17:")
    shifted = shifted.replace("tools.py:16:", "tools.py:20:")
    assert check(root) == (1, shifted, "Found 3 diagnostics in 1 file (3 tools in 1 plugin)\n")


def test_a_nested_def_under_a_branch_on_a_run_time_value_leaves_the_rows_unknown(tmp_path):
    root = fixture(tmp_path, "factory_rows")
    rewrite(root / "lantern_plugin" / "tools.py", "    def _dim(args):\n        return",
            "    if client.dimmable:\n        def _dim(args):\n            return")
    assert check(root) == (
        1, unread("lantern_plugin/tools.py:37:9", "_make_tools(client)"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_decorated_nested_handler_leaves_the_rows_unknown(tmp_path):
    root = fixture(tmp_path, "factory_rows")
    rewrite(root / "lantern_plugin" / "tools.py", "import json\n", "import functools\nimport json\n")
    rewrite(root / "lantern_plugin" / "tools.py", "    def _shine(", "    @functools.lru_cache\n    def _shine(")
    assert check(root) == (
        1, unread("lantern_plugin/tools.py:38:9", "_make_tools(client)"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_schema_built_from_the_factorys_run_time_parameter_leaves_the_rows_unknown(tmp_path):
    root = fixture(tmp_path, "factory_rows")
    rewrite(root / "lantern_plugin" / "tools.py", '_spec("lantern_dim", "Dim the lantern."',
            '_spec("lantern_dim", client.dim_text')
    assert check(root) == (
        1, unread("lantern_plugin/tools.py:36:9", "_make_tools(client)"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


KETTLE_HRM201 = (
    "kettle_plugin/__init__.py:33:9: HRM201 tool `{}` has no `check_fn`: it is offered to the model even where "
    "it cannot run; if it needs nothing, say so with a named check that returns True "
    "(`def check_kettle_requirements(): return True`) or the project's shared one\n"
)


def test_a_table_of_handlers_built_in_locals_and_trimmed_before_the_loop(tmp_path):
    root = fixture(tmp_path, "handler_dict")
    # the meter object and the settings are unknown, but only stored under keys popped before the loop
    assert check(root) == (
        1,
        "".join(KETTLE_HRM201.format(name) for name in ("kettle_brew", "kettle_empty", "kettle_fill", "kettle_steep"))
        + "kettle_plugin/schemas.py:11:9: HRM306 parameter `minutes` has no description (tool `kettle_steep`)\n",
        "Found 5 diagnostics in 2 files (4 tools in 1 plugin)\n",
    )


def test_an_unknown_value_left_in_the_table_leaves_it_unknown(tmp_path):
    root = fixture(tmp_path, "handler_dict")
    rewrite(root / "kettle_plugin" / "__init__.py", '    meter = handlers.pop("_meter")\n', "    meter = None\n")
    assert check(root) == (
        1, unread("kettle_plugin/__init__.py:33:9", "handlers.items()"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_table_handed_to_unknown_code_is_unknown(tmp_path):
    root = fixture(tmp_path, "handler_dict")
    # `settings.extend(handlers)` may add or remove tools: its result is no hole, the table unknown
    rewrite(root / "kettle_plugin" / "__init__.py", '    handlers.pop("_get_pot")\n',
            '    handlers.pop("_get_pot")\n    extended = settings.extend(handlers)\n')
    assert check(root) == (
        1, unread("kettle_plugin/__init__.py:34:9", "handlers.items()"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_table_changed_in_a_loop_over_run_time_values_is_unknown(tmp_path):
    root = fixture(tmp_path, "handler_dict")
    rewrite(root / "kettle_plugin" / "__init__.py", '    handlers["_meter"] = meter\n',
            '    for extra in settings.extras:\n        handlers[extra] = get_pot\n    handlers["_meter"] = meter\n')
    assert check(root) == (
        1, unread("kettle_plugin/__init__.py:35:9", "handlers.items()"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_a_table_changed_under_a_branch_on_a_run_time_value_is_unknown(tmp_path):
    root = fixture(tmp_path, "handler_dict")
    rewrite(root / "kettle_plugin" / "__init__.py", '    handlers.pop("_get_pot")\n',
            '    handlers.pop("_get_pot")\n    if settings.strength == "weak":\n        handlers.pop("kettle_brew")\n')
    assert check(root) == (
        1, unread("kettle_plugin/__init__.py:35:9", "handlers.items()"),
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )


def test_the_manifest_freezes_tools_whose_handlers_are_closures_or_functions_of_a_computed_table(tmp_path):
    import json
    import subprocess
    import sys

    for name, tools in [("factory_rows", ["lantern_dim", "lantern_flicker", "lantern_shine"]),
                        ("handler_dict", ["kettle_brew", "kettle_empty", "kettle_fill", "kettle_steep"])]:
        root = fixture(tmp_path, name)
        output = tmp_path / f"{name}.json"
        completed = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest", "--output", str(output)],
                                   cwd=root, capture_output=True, text=True, timeout=120)
        assert completed.returncode == 0, completed.stderr
        frozen = json.loads(output.read_text())
        assert frozen["import_only"] == {}
        assert sorted(frozen["tools"]) == tools
        # the handler is made when register runs: the runtime gets it from the plugin, never by name
        assert {tool["handler"] for tool in frozen["tools"].values()} == {"via import"}


def test_a_nested_handler_its_scope_binds_twice_is_read_as_a_tool_but_not_analysed(tmp_path):
    root = fixture(tmp_path, "factory_rows")
    # `_dim` is defined again after the first def: which def the row holds is not certain from the
    # names alone, so its handler findings go (the tool itself is still read and checked)
    rewrite(root / "lantern_plugin" / "tools.py", "    async def _flicker(",
            "    def _dim(args, **_):\n        return _dump({})\n\n    async def _flicker(")
    assert check(root) == (
        1,
        FACTORY_FINDINGS.replace(
            "lantern_plugin/tools.py:13:5: HRM104 handler `_dim` accepts no **kwargs; the registry calls "
            "`handler(args, **kwargs)` (with `task_id` and other keywords)\n", ""
        ).replace("tools.py:16:5:", "tools.py:19:5:"),
        "Found 2 diagnostics in 1 file (3 tools in 1 plugin)\n",
    )
