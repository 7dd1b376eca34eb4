"""Patterns of published plugins, through the real CLI: what the rules say about them, exactly
(code, line, column, message), and the neighbours that keep them silent or speaking."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PYPROJECT = '[project]\nname = "hermes-notes"\nversion = "1.0.0"\n\n[project.entry-points."{group}"]\nnotes = "notes_plugin"\n'
MANIFEST = "name: notes\nversion: 1.0.0\ndescription: Notes.\n"
SCHEMA = (
    'SCHEMA = {"name": "{name}", "description": "A note tool.", '
    '"parameters": {"type": "object", "properties": {}}}\n'
)


def write(root: Path, files: dict) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def check(cwd: Path, *args: str):
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", *args],
        cwd=cwd, capture_output=True, text=True, env=environ, timeout=120,
    )
    return completed.returncode, completed.stdout.splitlines(), completed.stderr


def plugin(tmp_path: Path, modules: dict, group: str = "hermes_agent.plugins", manifest: str = MANIFEST) -> Path:
    """A pip-installable plugin package ``notes_plugin`` with a plugin.yaml."""
    files = {"pyproject.toml": PYPROJECT.format(group=group), "notes_plugin/plugin.yaml": manifest}
    files.update({f"notes_plugin/{name}": text for name, text in modules.items()})
    return write(tmp_path / "notes", files)


# --- HRM105: async handlers defined inside the function that registers them -------------------

MEMORY = '''import json


def _check():
    return True


def register_memory(ctx, client):
    async def handle_recall(args, **kw):
        return json.dumps(await client.recall(args.get("q")))

    async def handle_store(args, **kw):
        return json.dumps(await client.store(args.get("q")))

    def handle_count(args, **kw):
        return json.dumps({"n": 1})

    async def handle_shadowed(args, **kw):
        return "{}"

    handle_shadowed = handle_count
    ctx.register_tool(name="recall", toolset="notes", schema=RECALL, handler=handle_recall, check_fn=_check)
    ctx.register_tool(name="store", toolset="notes", schema=STORE, handler=handle_store, check_fn=_check,
                      is_async=True)
    ctx.register_tool(name="count", toolset="notes", schema=COUNT, handler=handle_count, check_fn=_check)
    ctx.register_tool(name="shadowed", toolset="notes", schema=SHADOWED, handler=handle_shadowed,
                      check_fn=_check, is_async=False)
'''


def test_a_nested_async_handler_without_is_async_is_reported_at_the_handler(tmp_path):
    schemas = "".join(SCHEMA.replace("{name}", n).replace("SCHEMA", n.upper()) for n in ("recall", "store", "count", "shadowed"))
    root = plugin(tmp_path, {
        "__init__.py": "from .memory import register\n",
        "memory.py": MEMORY.replace("import json\n", "import json\n\n" + schemas, 1)
        + "\n\ndef register(ctx):\n    register_memory(ctx, ctx.memory_client())\n",
    }, manifest=MANIFEST + "provides_tools: [recall, store, count, shadowed]\n")
    code, out, err = check(root, "--select", "HRM105")
    assert (code, out) == (1, [
        "notes_plugin/memory.py:27:78: HRM105 [*] handler `handle_recall` is `async def` but is registered without "
        "`is_async=True`; dispatch would get an un-awaited coroutine",
    ]), err
    assert err.startswith("Found 1 diagnostic in 1 file (4 tools in 1 plugin)\n")


def test_the_nested_async_handler_fix_adds_is_async(tmp_path):
    root = plugin(tmp_path, {
        "__init__.py": SCHEMA.replace("{name}", "recall") + "\n\ndef register(ctx):\n"
        "    async def handle_recall(args, **kw):\n        return '{}'\n\n"
        "    ctx.register_tool(name='recall', toolset='notes', schema=SCHEMA, handler=handle_recall, check_fn=bool)\n",
    }, manifest=MANIFEST + "provides_tools: [recall]\n")
    assert check(root, "--select", "HRM105", "--fix") == (0, [], "Fixed 1 (0 remaining).\n")
    assert (root / "notes_plugin" / "__init__.py").read_text().splitlines()[-1] == (
        "    ctx.register_tool(name='recall', toolset='notes', schema=SCHEMA, handler=handle_recall, check_fn=bool, "
        "is_async=True)"
    )
    assert check(root, "--select", "HRM105")[:2] == (0, [])


# --- HRM106: a loop started only where none runs ------------------------------------------------

SEND = '''import asyncio
import concurrent.futures
import json

SCHEMA = {"name": "notify", "description": "Notify.", "parameters": {"type": "object", "properties": {}}}


async def _deliver(text):
    return {"sent": text}


def _drive(make):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result(timeout=20)


def handle_notify(args, **kw):
    return json.dumps(_drive(lambda: _deliver(args.get("text"))))


def register(ctx):
    ctx.register_tool(name="notify", toolset="notes", schema=SCHEMA, handler=handle_notify, check_fn=bool)
'''


def test_asyncio_run_in_the_probe_s_except_runtimeerror_is_not_reported(tmp_path):
    root = plugin(tmp_path, {"__init__.py": SEND}, manifest=MANIFEST + "provides_tools: [notify]\n")
    assert check(root, "--select", "HRM106") == (0, [], "All checks passed (1 tool in 1 plugin)\n")


def test_the_probe_s_neighbours_are_still_reported(tmp_path):
    message = ("HRM106 `_drive`, called by handler `handle_notify`, runs its own event loop (`asyncio.run(...)`); "
               "make the handler `async def` with `is_async=True` and let the registry run it")
    # another exception caught: the block may run with a loop running
    root = plugin(tmp_path / "a", {"__init__.py": SEND.replace("except RuntimeError:", "except Exception:")},
                  manifest=MANIFEST + "provides_tools: [notify]\n")
    assert check(root, "--select", "HRM106")[:2] == (1, [f"notes_plugin/__init__.py:16:16: {message}"])
    # the loop started after the try: reached with a loop running too
    after = SEND.replace("        return asyncio.run(make())\n", "        pass\n    return asyncio.run(make())\n")
    root = plugin(tmp_path / "b", {"__init__.py": after}, manifest=MANIFEST + "provides_tools: [notify]\n")
    assert check(root, "--select", "HRM106")[:2] == (1, [f"notes_plugin/__init__.py:17:12: {message}"])


# --- HRM304: an OpenAI envelope as schema= ------------------------------------------------------

ENVELOPE = '''def _status(args, **kw):
    return "{}"


def register(ctx):
    ctx.register_tool(
        name="notes_status",
        toolset="notes",
        schema={
            "type": "function",
            "function": {
                "name": "notes_status",
                "description": "Status of the notes store.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
        handler=_status,
        check_fn=bool,
    )
'''


def test_an_openai_envelope_is_one_finding_that_names_it(tmp_path):
    root = plugin(tmp_path, {"__init__.py": ENVELOPE}, manifest=MANIFEST + "provides_tools: [notes_status]\n")
    code, out, err = check(root)
    assert (code, out) == (1, [
        'notes_plugin/__init__.py:9:16: HRM304 [*] schema is a whole OpenAI tool definition ({"type": "function", '
        '"function": {...}}), which Hermes builds itself from `schema` ({"type": "function", "function": '
        '{**schema, "name": ...}}): the model would get a function with no description and no parameters; pass '
        'the inner `function` dict as `schema=`',
    ]), err
    # the inner dict as the schema: nothing to say
    unwrapped = ENVELOPE.replace('            "type": "function",\n            "function": {\n', "").replace(
        "            },\n        },\n", "        },\n")
    (root / "notes_plugin" / "__init__.py").write_text(unwrapped)
    assert check(root) == (0, [], "All checks passed (1 tool in 1 plugin)\n")
    # the same envelope keys beside real parameters are not an envelope
    (root / "notes_plugin" / "__init__.py").write_text(ENVELOPE.replace(
        '            "type": "function",\n', '            "type": "function",\n            "parameters": {},\n', 1))
    out = check(root)[1]
    assert sorted(line.split(" ")[1] for line in out) == ["HRM304", "HRM304", "HRM306"]
    assert not any("OpenAI" in line for line in out)


# --- HRM809: plugin.yaml without provides_tools -------------------------------------------------

TABLE = '''import json

SCHEMA = {"name": "t", "description": "A note tool.", "parameters": {"type": "object", "properties": {}}}
TOOLS = ("notes_add", "notes_list", "notes_find", "notes_drop", "notes_tag")


def handle(args, **kw):
    return json.dumps({})


def register(ctx):
    for name in TOOLS:
        ctx.register_tool(name=name, toolset="notes", schema=SCHEMA, handler=handle, check_fn=bool)
'''


def test_a_plugin_yaml_without_provides_tools_is_one_finding_at_plugin_yaml(tmp_path):
    root = plugin(tmp_path, {"__init__.py": TABLE})
    assert check(root, "--select", "HRM809")[:2] == (1, [
        "notes_plugin/plugin.yaml:1:1: HRM809 plugin.yaml has no provides_tools, but register(ctx) registers 5 tools "
        "(`notes_add`, `notes_list`, `notes_find` and 2 more): list them in provides_tools",
    ])
    # with provides_tools, each missing name is reported where it is registered
    (root / "notes_plugin" / "plugin.yaml").write_text(MANIFEST + "provides_tools: [notes_add, notes_list, notes_find]\n")
    assert check(root, "--select", "HRM809")[:2] == (1, [
        "notes_plugin/__init__.py:4:51: HRM809 tool `notes_drop` is registered, but plugin.yaml's provides_tools does not list it",
        "notes_plugin/__init__.py:4:65: HRM809 tool `notes_tag` is registered, but plugin.yaml's provides_tools does not list it",
    ])


def test_an_unread_registration_makes_the_count_a_lower_bound(tmp_path):
    root = plugin(tmp_path, {"__init__.py": TABLE + "    for name in load_more():\n"
                             "        ctx.register_tool(name=name, toolset='notes', schema=SCHEMA, handler=handle)\n"})
    out = check(root, "--select", "HRM809")[1]
    assert out == [
        "notes_plugin/plugin.yaml:1:1: HRM809 plugin.yaml has no provides_tools, but register(ctx) registers at least "
        "5 tools (`notes_add`, `notes_list`, `notes_find` and 2 more): list them in provides_tools",
    ]


# --- HRM812: an entry point in a group Hermes does not read -------------------------------------

REGISTER = SCHEMA.replace("{name}", "notes_add") + (
    "\n\ndef register(ctx):\n"
    "    ctx.register_tool(name='notes_add', toolset='notes', schema=SCHEMA, handler=lambda a, **k: '{}', check_fn=bool)\n"
)
HRM812 = ("HRM812 entry point group `{group}` (`notes`) is not the one Hermes reads: its plugin loader lists only "
          "`hermes_agent.plugins` entry points, so a pip install of this package loads no plugin; name the group "
          "`hermes_agent.plugins`")


def test_a_misnamed_entry_point_group_is_reported_at_its_header(tmp_path):
    manifest = MANIFEST + "provides_tools: [notes_add]\n"
    for group in ("hermes.plugins", "hermes-agent.plugins", "hermes_agent_plugins", "Hermes_Agent.Plugins"):
        root = plugin(tmp_path / group, {"__init__.py": REGISTER}, group=group, manifest=manifest)
        assert check(root, "--select", "HRM812")[:2] == (1, ["pyproject.toml:5:1: " + HRM812.format(group=group)]), group
    # not Hermes's, or Hermes's own: silent
    for group in ("hermes_agent.plugins", "hermes.handlers", "hermes.plugins.v2", "hermes_agent.tools", "hermes_plugins_extra"):
        root = plugin(tmp_path / f"ok-{group}", {"__init__.py": REGISTER}, group=group, manifest=manifest)
        assert check(root, "--select", "HRM812")[:2] == (0, []), group


def test_a_misnamed_group_beside_hermes_s_own_is_not_reported(tmp_path):
    root = plugin(tmp_path, {"__init__.py": REGISTER}, manifest=MANIFEST + "provides_tools: [notes_add]\n")
    with (root / "pyproject.toml").open("a") as handle:
        handle.write('\n[project.entry-points."hermes.plugins"]\nnotes = "notes_plugin"\n')
    assert check(root, "--select", "HRM812")[:2] == (0, [])


def test_a_wheel_s_misnamed_group_is_reported_in_its_entry_points_txt(tmp_path):
    root = write(tmp_path / "wheel", {
        "notes_plugin/__init__.py": REGISTER,
        "notes_plugin/plugin.yaml": MANIFEST + "provides_tools: [notes_add]\n",
        "notes_plugin-1.0.0.dist-info/entry_points.txt": "[hermes.plugins]\nnotes = notes_plugin\n",
        "notes_plugin-1.0.0.dist-info/METADATA": "Name: notes-plugin\nVersion: 1.0.0\n",
    })
    assert check(root, "--select", "HRM812")[:2] == (1, [
        "notes_plugin-1.0.0.dist-info/entry_points.txt:1:1: " + HRM812.format(group="hermes.plugins"),
    ])


def test_the_envelope_fix_unwraps_it_in_place_and_keeps_the_layout(tmp_path):
    root = plugin(tmp_path, {"__init__.py": ENVELOPE}, manifest=MANIFEST + "provides_tools: [notes_status]\n")
    assert check(root, "--select", "HRM304", "--fix") == (0, [], "Fixed 1 (0 remaining).\n")
    assert (root / "notes_plugin" / "__init__.py").read_text() == ENVELOPE.replace(
        '            "type": "function",\n            "function": {\n', ""
    ).replace('                "', '            "').replace("            },\n        },\n", "        },\n")
    # an envelope bound to a constant may serve another API as well: reported, not rewritten
    constant = 'SCHEMA = {"type": "function", "function": {"name": "notes_status", "description": "S."}}\n\n' + \
        ENVELOPE.replace(ENVELOPE[ENVELOPE.index("schema={"):ENVELOPE.index("handler=")], "schema=SCHEMA,\n        ")
    (root / "notes_plugin" / "__init__.py").write_text(constant)
    code, out, err = check(root, "--select", "HRM304", "--fix")
    assert (code, [line.split(" ")[1:3] for line in out], err) == (1, [["HRM304", "schema"]], "Fixed 0 (1 remaining).\n")
    assert (root / "notes_plugin" / "__init__.py").read_text() == constant


def test_a_cached_run_sees_the_group_renamed(tmp_path):
    root = plugin(tmp_path, {"__init__.py": REGISTER}, group="hermes.plugins", manifest=MANIFEST + "provides_tools: [notes_add]\n")

    def cached():
        completed = subprocess.run([sys.executable, "-m", "hermes_lint", "check", "--select", "HRM812"],
                                   cwd=root, capture_output=True, text=True, timeout=120)
        return completed.returncode, completed.stdout.splitlines()

    assert cached() == (1, ["pyproject.toml:5:1: " + HRM812.format(group="hermes.plugins")])
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"hermes.plugins"', '"hermes-agent.plugins"'))
    assert cached() == (1, ["pyproject.toml:5:1: " + HRM812.format(group="hermes-agent.plugins")])
    pyproject.write_text(pyproject.read_text().replace('"hermes-agent.plugins"', '"hermes_agent.plugins"'))
    assert cached() == (0, [])


def test_a_package_declared_only_in_a_misnamed_group_is_checked_and_told_hermes_does_not_load_it(tmp_path):
    root = write(tmp_path / "notes", {
        "pyproject.toml": PYPROJECT.format(group="hermes.plugins"),
        "notes_plugin/__init__.py": REGISTER.replace(", check_fn=bool", ""),
    })
    not_loaded = "Hermes does not load it: entry point group `hermes.plugins` is not `hermes_agent.plugins`"
    assert check(root) == (1, [
        "notes_plugin/__init__.py:5:5: HRM201 tool `notes_add` has no `check_fn`: it is offered to the model even where "
        "it cannot run; if it needs nothing, say so with a named check that returns True "
        "(`def check_notes_requirements(): return True`) or the project's shared one",
        "pyproject.toml:5:1: " + HRM812.format(group="hermes.plugins"),
    ], f"Found 2 diagnostics in 2 files (1 tool in 1 plugin; {not_loaded})\n")
    # from a subdirectory too: the package is the project
    assert check(root / "notes_plugin", "--select", "HRM812")[:2] == (1, ["../pyproject.toml:5:1: " + HRM812.format(group="hermes.plugins")])
    # the other rules clean: the summary still says Hermes does not load it
    assert check(root, "--ignore", "HRM812,HRM201") == (0, [], f"All checks passed (1 tool in 1 plugin; {not_loaded})\n")
    # registering nothing: why nothing was checked names the group
    (root / "notes_plugin" / "__init__.py").write_text("def register(ctx):\n    pass\n")
    assert check(root, "--ignore", "HRM812") == (0, [], "Nothing checked: no tool registration found: plugin notes: "
                                                 "declared in entry point group `hermes.plugins`, which Hermes does not "
                                                 "read; its register(ctx) registers no tool\n")
    # the group named right: a plugin Hermes loads, nothing said about groups
    (root / "pyproject.toml").write_text(PYPROJECT.format(group="hermes_agent.plugins"))
    (root / "notes_plugin" / "__init__.py").write_text(REGISTER)
    assert check(root) == (0, [], "All checks passed (1 tool in 1 plugin)\n")
    # a group of another framework only: no project
    (root / "pyproject.toml").write_text(PYPROJECT.format(group="hermes.handlers"))
    code, out, err = check(root)
    assert (code, out) == (2, []) and "no project found" in err


def test_a_cached_run_sees_the_only_group_renamed_and_the_summary_follows(tmp_path):
    root = write(tmp_path / "notes", {
        "pyproject.toml": PYPROJECT.format(group="hermes.plugins"), "notes_plugin/__init__.py": REGISTER,
    })

    def cached():
        completed = subprocess.run([sys.executable, "-m", "hermes_lint", "check"],
                                   cwd=root, capture_output=True, text=True, timeout=120)
        return completed.returncode, completed.stdout.splitlines(), completed.stderr

    not_loaded = "; Hermes does not load it: entry point group `hermes.plugins` is not `hermes_agent.plugins`"
    found = (1, ["pyproject.toml:5:1: " + HRM812.format(group="hermes.plugins")],
             f"Found 1 diagnostic in 1 file (1 tool in 1 plugin{not_loaded})\n")
    assert cached() == found
    assert cached() == found  # warm
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"hermes.plugins"', '"hermes_agent.plugins"'))
    assert cached() == (0, [], "All checks passed (1 tool in 1 plugin)\n")
    pyproject.write_text(pyproject.read_text().replace('"hermes_agent.plugins"', '"hermes.plugins"'))
    assert cached() == found
