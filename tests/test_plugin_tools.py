"""Tools registered by plugins (``ctx.register_tool`` in ``register(ctx)``), end to end."""

from __future__ import annotations

import json
import textwrap

from tests.test_cli import GOOD_TOOL, make_project, run

TOOLSETS = '''\
TOOLSETS = {
    "demo": {"description": "Demo tools", "tools": ["echo"], "includes": []},
    "player": {"description": "Music", "tools": ["player_play", "player_pause", "player_queue"], "includes": []},
}
'''

# Fresh code in the shape of Hermes's bundled plugins: schemas and handlers in a sibling module,
# a literal table of rows, one register_tool call in a loop.
PLAYER_TOOLS = '''\
import json

PLAY_SCHEMA = {
    "name": "player_play",
    "description": "Start playback.",
    "parameters": {"type": "object", "properties": {"uri": {"type": "string", "description": "What to play."}}},
}
PAUSE_SCHEMA = {
    "name": "player_pause",
    "description": "Pause playback.",
    "parameters": {"type": "object", "properties": {"device": {"type": "string"}}},
}


def check_player():
    return True


def handle_play(args, **kw):
    return json.dumps({"playing": args.get("uri")})


def handle_pause(args, **kw):
    return json.dumps({"paused": args.get("device")})
'''

PLAYER_PLUGIN = '''\
"""Music player plugin."""
import platform

from plugins.player.tools import PAUSE_SCHEMA, PLAY_SCHEMA, check_player, handle_pause, handle_play

_TOOLS = (
    ("player_play", PLAY_SCHEMA, handle_play),
    ("player_pause", PAUSE_SCHEMA, handle_pause),
)


def register(ctx):
    if platform.system() == "Windows":
        return
    for name, schema, handler in _TOOLS:
        ctx.register_tool(name=name, toolset="player", schema=schema, handler=handler, check_fn=check_player)
'''


def _write(root, relative: str, text: str) -> None:
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(textwrap.dedent(text))


def _player_project(root, plugin_dir: str = "plugins", pyproject: str = ""):
    make_project(root, {"echo_tool.py": GOOD_TOOL}, toolsets=TOOLSETS, pyproject=pyproject)
    _write(root, f"{plugin_dir}/__init__.py", "")
    _write(root, f"{plugin_dir}/player/__init__.py", PLAYER_PLUGIN.replace("plugins.player", f"{plugin_dir}.player"))
    _write(root, f"{plugin_dir}/player/tools.py", PLAYER_TOOLS)
    return root


def test_plugin_rows_are_unrolled_and_checked_by_module_and_project_rules(tmp_path):
    _player_project(tmp_path)
    result = run(["check", "--no-cache"], tmp_path)
    assert result.stdout == (
        # the schema lives in plugins/player/tools.py: reported at the key, naming the tool
        "plugins/player/tools.py:11:53: HRM306 parameter `device` has no description (tool `player_pause`)\n"
        # listed, and nothing registers it: the plugin's own tools count as registered
        "toolsets.py:3:81: HRM403 tool `player_queue` is listed in toolset 'player' but no tool module registers it "
        "(did you mean `player_pause`?)\n"
    )


def test_plugin_dirs_setting_names_where_plugins_live(tmp_path):
    _player_project(tmp_path, "extensions", pyproject='[tool.hermes-lint]\nplugin-dirs = ["extensions"]\n')
    found = json.loads(run(["check", "--no-cache", "--format", "json"], tmp_path).stdout)
    assert {(d["path"], d["code"]) for d in found} == {
        ("extensions/player/tools.py", "HRM306"),
        ("toolsets.py", "HRM403"),
    }
    # with the default, extensions/ is not looked at: its tools are unknown, so they are unregistered
    (tmp_path / "pyproject.toml").write_text("")
    found = json.loads(run(["check", "--no-cache", "--format", "json", "--select", "HRM403"], tmp_path).stdout)
    assert [d["message"].split("`")[1] for d in found] == ["player_queue"]  # the other two: text search


def test_a_category_plugin_one_level_deeper_is_found(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=TOOLSETS)
    _write(tmp_path, "plugins/music/player/__init__.py", '''\
        def register(ctx):
            ctx.register_tool(name="player queue", toolset="player", schema={}, handler=lambda a, **k: "",
                              check_fn=lambda: True)
        ''')
    result = run(["check", "--no-cache", "--select", "HRM308"], tmp_path)
    assert result.stdout == (
        "plugins/music/player/__init__.py:2:28: HRM308 tool name 'player queue' contains ' ': providers require "
        "^[a-zA-Z0-9_-]{1,64}$\n"
    )


def test_a_loop_over_a_computed_table_is_not_read_and_keeps_hrm403_silent(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=TOOLSETS)
    _write(tmp_path, "plugins/player/__init__.py", '''\
        from plugins.player.specs import load_specs


        def register(ctx):
            for spec in load_specs():
                ctx.register_tool(name=spec["name"], toolset="player", schema=spec, handler=spec["handler"])
        ''')
    assert run(["check", "--no-cache", "--select", "HRM403"], tmp_path).stdout == ""
    # the same project without that plugin: the listed tools are reported as unregistered
    (tmp_path / "plugins" / "player" / "__init__.py").unlink()
    assert run(["check", "--no-cache", "--select", "HRM403"], tmp_path).stdout.count("HRM403") == 3


def test_the_cache_sees_an_edited_plugin(tmp_path):
    _player_project(tmp_path)
    assert "HRM308" not in run(["check", "--select", "HRM308"], tmp_path).stdout
    plugin = tmp_path / "plugins" / "player" / "__init__.py"
    plugin.write_text(plugin.read_text().replace('("player_pause"', '("player pause"'))
    assert run(["check", "--select", "HRM308"], tmp_path).stdout == (
        "plugins/player/__init__.py:8:6: HRM308 tool name 'player pause' contains ' ': providers require "
        "^[a-zA-Z0-9_-]{1,64}$\n"
    )


def test_the_manifest_leaves_plugin_tools_to_the_plugin_loader(tmp_path):
    _player_project(tmp_path)
    (tmp_path / "toolsets.py").write_text(TOOLSETS.replace(', "player_queue"', ""))
    result = run(["manifest"], tmp_path)
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "tools" / "manifest.json").read_text())
    assert sorted(manifest["tools"]) == ["echo"]
    assert not [path for path in manifest["sources"] if path.startswith("plugins/")]


def test_plugin_dirs_must_be_a_list_of_strings(tmp_path):
    _player_project(tmp_path, pyproject='[tool.hermes-lint]\nplugin-dirs = "plugins"\n')
    result = run(["check", "--no-cache"], tmp_path)
    assert result.exit_code == 2
    assert result.stderr == "hermes-lint: error: [tool.hermes-lint] plugin-dirs must be a list of strings\n"


def test_an_empty_plugin_dirs_turns_plugins_off(tmp_path):
    _player_project(tmp_path, pyproject="[tool.hermes-lint]\nplugin-dirs = []\n")
    result = run(["check", "--no-cache", "--select", "HRM306"], tmp_path)
    assert (result.stdout, result.exit_code) == ("", 0)


def _registrations(plugin_text: str):
    """(name, toolset, line of the name) of each plugin registration read, and the unread calls' lines."""
    from hermes_lint.config import Config
    from hermes_lint.check.engine import SourceFile, check_module

    facts = check_module(SourceFile("plugins/p/__init__.py", textwrap.dedent(plugin_text).encode()), Config()).facts
    read = [
        (r.name, r.toolset, r.keyword("name").value_location.line) for r in facts.registrations if r.plugin
    ]
    return read, [where.line for where, _ in facts.unread_plugin_calls]


def test_nested_loops_conditions_and_f_strings_are_unrolled():
    read, unread = _registrations('''\
        _ACTIONS = ["play", "pause"]
        _SETS = (("music", "m"), ("video", "v"))


        def register(ctx):
            for toolset, prefix in _SETS:
                for action in _ACTIONS:
                    if prefix:
                        ctx.register_tool(name=f"{prefix}_{action}", toolset=toolset, schema={},
                                          handler=lambda a, **k: "")
            ctx.register_tool("status", "music", {}, lambda a, **k: "")
        ''')
    assert read == [
        ("m_play", "music", 9), ("m_pause", "music", 9), ("v_play", "video", 9), ("v_pause", "video", 9),
        ("status", "music", 11),
    ]
    assert unread == []


def test_calls_that_depend_on_values_computed_in_register_are_not_read():
    read, unread = _registrations('''\
        import os

        _ROWS = (("a", "x"), ("b",))


        def register(ctx):
            toolset = ctx.config.get("TOOLSET", "t")
            ctx.register_tool(name="local", toolset=toolset, schema={}, handler=lambda a, **k: "")
            for name, kind in _ROWS:
                ctx.register_tool(name=name, toolset="t", schema={}, handler=lambda a, **k: "")
            for spec in load():
                ctx.register_tool(name=spec, toolset="t", schema={}, handler=lambda a, **k: "")
            ctx.register_tool(name="kept", toolset="t", schema={}, handler=lambda a, **k: "")
        ''')
    # ("b",) does not unpack into two names: that loop is not read, not half-read
    assert read == [("kept", "t", 13)]
    assert unread == [8, 10, 12]


def test_register_tool_outside_register_ctx_is_not_a_plugin_registration():
    read, unread = _registrations('''\
        class _Collector:
            def register_tool(self, *args, **kwargs):
                self.args = args


        def setup(ctx):
            ctx.register_tool(name="x", toolset="t", schema={}, handler=lambda a, **k: "")
        ''')
    assert (read, unread) == ([], [])


def test_a_table_past_the_unrolling_cap_is_read_up_to_it_and_the_call_counts_as_unread(monkeypatch):
    from hermes_lint.project import plugin_tools

    monkeypatch.setattr(plugin_tools, "MAX_UNROLLED", 2)
    read, unread = _registrations('''\
        _NAMES = ("a", "b", "c")


        def register(ctx):
            for name in _NAMES:
                ctx.register_tool(name=name, toolset="t", schema={}, handler=lambda a, **k: "")
        ''')
    assert ([r[0] for r in read], unread) == (["a", "b"], [6])


DEMO_PLUGIN = '''\
import json

_DESC = "Do a thing."


def check_demo():
    return True


def _handle_a(args, **kw):
    return {"ok": args.get("x")}


async def _handle_b(args, **kw):
    return json.dumps({"ok": True})


_TOOLS = (
    ("demo_a", _handle_a),
    ("demo_b", _handle_b),
)


def register(ctx):
    for name, handler in _TOOLS:
        ctx.register_tool(name=name, toolset="demo", handler=handler, check_fn=check_demo,
                          schema={"name": name, "description": _DESC,
                                  "parameters": {"type": "object", "properties": {}}})
'''


def test_handler_rules_follow_each_row_to_its_handler(tmp_path):
    toolsets = 'TOOLSETS = {"demo": {"description": "Demo", "tools": ["echo", "demo_a", "demo_b"], "includes": []}}\n'
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=toolsets)
    _write(tmp_path, "plugins/demo/__init__.py", DEMO_PLUGIN)
    assert run(["check", "--no-cache"], tmp_path).stdout == (
        "plugins/demo/__init__.py:11:5: HRM101 handler `_handle_a` can return a dict, not a JSON string\n"
        "plugins/demo/__init__.py:11:19: HRM107 handler `_handle_a` reads argument `x`, which the schema of tool "
        "`demo_a` does not declare\n"
        "plugins/demo/__init__.py:20:16: HRM105 handler `_handle_b` is `async def` but is registered without "
        "`is_async=True`; dispatch would get an un-awaited coroutine\n"
    )
    # the registry the plugin API forwards to runs coroutines itself: HRM105 has nothing to say
    from hermes_lint.rules.hrm105_async_handler_flag import FORK_REGISTRY

    fork = tmp_path / "fork"  # another project: the per-process reader remembers which files exist
    make_project(fork, {"echo_tool.py": GOOD_TOOL}, toolsets=toolsets)
    _write(fork, "plugins/demo/__init__.py", DEMO_PLUGIN)
    _write(fork, "tools/registry.py", FORK_REGISTRY)
    result = run(["check", "--no-cache", "--debug", "--select", "HRM105"], fork)
    assert result.stdout == ""
    assert "plugin API ctx.register_tool(name, toolset, schema, handler, check_fn, requires_env, is_async, " \
        "description, emoji, override); `register` forces `is_async=True` (line 11)" in result.stderr


def test_a_plugin_row_clashing_with_a_built_in_tool_is_the_registration_rejected(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=TOOLSETS)
    _write(tmp_path, "plugins/meet/__init__.py", '''\
        _TOOLS = (
            ("meet_join", "Join a call."),
            ("echo", "Repeat what was said."),
        )


        def register(ctx):
            for name, description in _TOOLS:
                ctx.register_tool(name=name, toolset="meet", schema={}, description=description,
                                  handler=lambda args, **kw: "", check_fn=lambda: True)
        ''')
    # plugins load after the built-in tools: the plugin's row is the one the registry rejects
    assert run(["check", "--no-cache", "--select", "HRM401"], tmp_path).stdout == (
        "plugins/meet/__init__.py:3:6: HRM401 tool `echo` is also registered in toolset 'demo' at "
        "tools/echo_tool.py:26: the registry rejects this registration\n"
        "tools/echo_tool.py:26:10: HRM401 tool `echo` is also registered in toolset 'meet' at "
        "plugins/meet/__init__.py:3: the registry rejects that registration\n"
    )
