"""tools.registry as a drop-in for upstream Hermes's registry: the API upstream callers use,
with upstream's signatures and result shapes, and the plugin rules that keep a plugin from
taking a built-in tool over."""

from __future__ import annotations

import inspect
import json
import logging
import threading
from pathlib import Path
from unittest.mock import patch

import pytest

import tools.registry as registry_module
from tools.registry import ToolRegistry, _module_registers_tools, discover_builtin_tools

LOGGER_NAME = "tools.registry"


def schema(name: str) -> dict:
    return {"name": name, "description": f"The {name} tool",
            "parameters": {"type": "object", "properties": {}}}


def ok(args, **kwargs) -> str:
    return json.dumps({"ok": True})


def defined_in(module_name: str, source: str, **names):
    """Run ``source`` as if it were module ``module_name`` and return its namespace: code
    there is that module's code (its functions' globals, the caller frames it makes)."""
    namespace = {"__name__": module_name, "json": json, **names}
    exec(compile(source, f"<{module_name}>", "exec"), namespace)
    return namespace


PLUGIN_SOURCE = """
def handler(args, **kwargs):
    return json.dumps({"from": __name__})

def remove(name):
    return reg.deregister(name)

def take_over(name, toolset):
    reg.deregister(name)
    reg.register(name, toolset, {"description": "mine"}, handler)
"""


def plugin(reg: ToolRegistry, module_name: str):
    return defined_in(module_name, PLUGIN_SOURCE, reg=reg)


# ===================================================================== upstream's API


# Upstream ToolRegistry's public methods and their parameters (name, default), as published
# in hermes-agent's tools/registry.py. Ours may add keyword-only parameters, never drop one.
UPSTREAM_METHODS = {
    "get_entry": [("name", None)],
    "get_registered_toolset_names": [],
    "get_tool_names_for_toolset": [("toolset", None)],
    "register_toolset_alias": [("alias", None), ("toolset", None)],
    "get_registered_toolset_aliases": [],
    "get_toolset_alias_target": [("alias", None)],
    "register_plugin_override_policy": [("module_namespace", None), ("allowed", None)],
    "register": [("name", None), ("toolset", None), ("schema", None), ("handler", None),
                 ("check_fn", None), ("requires_env", None), ("is_async", False),
                 ("description", ""), ("emoji", ""), ("max_result_size_chars", None),
                 ("dynamic_schema_overrides", None), ("override", False)],
    "deregister": [("name", None)],
    "get_definitions": [("tool_names", None), ("quiet", False)],
    "dispatch": [("name", None), ("args", None)],
    "get_max_result_size": [("name", None), ("default", None)],
    "get_all_tool_names": [],
    "get_schema": [("name", None)],
    "get_toolset_for_tool": [("name", None)],
    "get_emoji": [("name", None), ("default", "⚡")],
    "get_tool_to_toolset_map": [],
    "is_toolset_available": [("toolset", None)],
    "check_toolset_requirements": [],
    "get_available_toolsets": [],
    "get_toolset_requirements": [],
    "check_tool_availability": [("quiet", False)],
}


@pytest.mark.parametrize("method", sorted(UPSTREAM_METHODS))
def test_every_upstream_method_exists_with_upstream_parameters(method):
    parameters = list(inspect.signature(getattr(ToolRegistry, method)).parameters.values())[1:]
    positional = [p for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    expected = UPSTREAM_METHODS[method]

    assert [p.name for p in positional] == [name for name, _ in expected]
    for parameter, (_, default) in zip(positional, expected):
        if default is not None or parameter.default is not inspect.Parameter.empty:
            assert parameter.default == default, parameter.name
    assert all(p.default is not inspect.Parameter.empty or p.kind is p.VAR_KEYWORD
               for p in parameters[len(positional):])


def test_module_level_names_upstream_callers_use():
    for name in ("registry", "discover_builtin_tools", "tool_error", "tool_result", "ToolEntry",
                 "invalidate_check_fn_cache", "_module_registers_tools", "logger", "importlib"):
        assert hasattr(registry_module, name), name
    assert registry_module.importlib is __import__("importlib")
    assert all(hasattr(registry_module, name) for name in registry_module.__all__)


def test_module_level_check_cache_functions_use_the_singleton(monkeypatch):
    fresh = ToolRegistry()
    monkeypatch.setattr(registry_module, "registry", fresh)
    calls = []

    def probe():
        calls.append(1)
        return True

    assert registry_module._check_fn_cached(probe) is True
    assert registry_module._check_fn_cached(probe) is True
    assert len(calls) == 1
    registry_module.invalidate_check_fn_cache()
    assert registry_module._check_fn_cached(probe) is True
    assert len(calls) == 2


def test_the_register_statement_predicate_under_upstreams_name():
    import ast

    module = ast.parse("registry.register(name='x')\nx = registry.register()\nother.register()\n")
    assert [registry_module._is_registry_register_call(stmt) for stmt in module.body] == [
        True, False, False]


def test_tool_entry_takes_upstream_positional_arguments():
    entry = registry_module.ToolEntry("t", "s", schema("t"), ok, None, ["KEY"], False, "d", "🔥")
    assert (entry.name, entry.requires_env, entry.description, entry.emoji) == ("t", ["KEY"], "d", "🔥")
    assert entry.max_result_size_chars is None and entry.dynamic_schema_overrides is None


# ===================================================================== discovery


def write(directory: Path, stem: str, text: str) -> None:
    (directory / f"{stem}.py").write_text(text, encoding="utf-8")


REGISTERS = "from tools.registry import registry\nregistry.register(name='{0}', toolset='x', schema={{}}, handler=lambda *a, **k: '{{}}')\n"


def test_discovery_imports_through_the_patchable_module_attribute(tmp_path):
    write(tmp_path, "__init__", "")
    write(tmp_path, "alpha", REGISTERS.format("alpha"))
    write(tmp_path, "beta", "VALUE = 1\n")
    write(tmp_path, "mcp_tool", REGISTERS.format("mcp_alpha"))

    with patch("tools.registry.importlib.import_module") as mock_import:
        imported = discover_builtin_tools(tmp_path, use_manifest=False)

    assert imported == ["tools.alpha"]
    mock_import.assert_called_once_with("tools.alpha")


def test_module_registers_tools_is_the_shared_predicate(tmp_path):
    write(tmp_path, "top", REGISTERS.format("top"))
    write(tmp_path, "nested", "from tools.registry import registry\ndef f():\n    registry.register(name='x')\n")
    write(tmp_path, "broken", "registry.register(\n")

    assert _module_registers_tools(tmp_path / "top.py") is True
    assert _module_registers_tools(str(tmp_path / "nested.py")) is False
    assert _module_registers_tools(tmp_path / "broken.py") is False
    assert _module_registers_tools(tmp_path / "missing.py") is False


# ===================================================================== lookups


def test_get_emoji_falls_back_to_the_default():
    reg = ToolRegistry()
    reg.register("fire", "s", schema("fire"), ok, emoji="🔥")
    reg.register("plain", "s", schema("plain"), ok)

    assert reg.get_emoji("fire") == "🔥"
    assert reg.get_emoji("plain") == "⚡"
    assert reg.get_emoji("plain", default="🔧") == "🔧"
    assert reg.get_emoji("missing") == "⚡"
    assert reg.get_emoji("missing", "❓") == "❓"


def test_small_lookups():
    reg = ToolRegistry()
    reg.register("a", "files", schema("a"), ok, max_result_size_chars=5000)
    reg.register("b", "web", schema("b"), ok)

    assert reg.get_schema("a") is reg.get_entry("a").schema
    assert reg.get_schema("missing") is None
    assert reg.get_toolset_for_tool("b") == "web" and reg.get_toolset_for_tool("x") is None
    assert reg.get_tool_to_toolset_map() == {"a": "files", "b": "web"}
    assert reg.get_max_result_size("a") == 5000
    assert reg.get_max_result_size("b") == registry_module.DEFAULT_RESULT_SIZE_CHARS == 100_000
    assert reg.get_max_result_size("b", default=7) == 7
    assert reg.get_max_result_size("a", default=7) == 5000
    assert reg.get_registered_toolset_names() == ["files", "web"]


def test_toolset_aliases_and_their_collision_warning(caplog):
    reg = ToolRegistry()
    reg.register_toolset_alias("github", "mcp-github")
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        reg.register_toolset_alias("github", "mcp-github-2")
        reg.register_toolset_alias("github", "mcp-github-2")  # same target: no warning

    assert reg.get_toolset_alias_target("github") == "mcp-github-2"
    assert reg.get_toolset_alias_target("gitlab") is None
    aliases = reg.get_registered_toolset_aliases()
    aliases["x"] = "y"  # a copy
    assert reg.get_registered_toolset_aliases() == {"github": "mcp-github-2"}
    assert [r.getMessage() for r in caplog.records] == [
        "Toolset alias collision: 'github' (mcp-github) overwritten by mcp-github-2"
    ]


def test_removing_the_last_tool_of_a_toolset_drops_its_check_and_aliases():
    reg = ToolRegistry()
    first_check, second_check = (lambda: True), (lambda: True)
    reg.register("a", "mcp-docs", schema("a"), ok, check_fn=first_check)
    reg.register("b", "mcp-docs", schema("b"), ok, check_fn=second_check)
    reg.register_toolset_alias("docs", "mcp-docs")
    assert reg.get_toolset_requirements()["mcp-docs"]["check_fn"] is first_check

    reg.deregister("a")
    assert reg.get_toolset_alias_target("docs") == "mcp-docs"
    assert reg.get_toolset_requirements()["mcp-docs"]["check_fn"] is first_check
    reg.deregister("b")

    assert reg.get_registered_toolset_aliases() == {}
    assert reg._toolset_checks == {}


# ===================================================================== toolset availability


def mixed_registry():
    reg = ToolRegistry()
    reg.register("read_terminal", "terminal", schema("read_terminal"), ok,
                 check_fn=lambda: False, requires_env=["DISPLAY"])
    reg.register("terminal", "terminal", schema("terminal"), ok, check_fn=lambda: True,
                 requires_env=["TERMINAL_ENV", "DISPLAY"])
    reg.register("search", "web", schema("search"), ok, check_fn=lambda: False,
                 requires_env=["SEARCH_KEY"])
    reg.register("broken", "crashes", schema("broken"), ok, check_fn=lambda: 1 / 0)
    reg.register("todo", "todo", schema("todo"), ok)
    return reg


def test_a_toolset_is_available_when_any_of_its_tools_is():
    reg = mixed_registry()

    assert reg.is_toolset_available("terminal") is True  # its first tool's check fails
    assert reg.is_toolset_available("web") is False
    assert reg.is_toolset_available("crashes") is False  # a raising check is False
    assert reg.is_toolset_available("todo") is True
    assert reg.is_toolset_available("unknown") is False
    assert reg.check_toolset_requirements() == {
        "crashes": False, "terminal": True, "todo": True, "web": False,
    }


def test_check_tool_availability_shape():
    available, unavailable = mixed_registry().check_tool_availability(quiet=True)

    assert available == ["terminal", "todo"]
    assert unavailable == [
        {"name": "crashes", "env_vars": [], "tools": ["broken"]},
        {"name": "web", "env_vars": ["SEARCH_KEY"], "tools": ["search"]},
    ]


def test_get_available_toolsets_shape():
    assert mixed_registry().get_available_toolsets() == {
        "terminal": {"available": True, "tools": ["read_terminal", "terminal"], "description": "",
                     "requirements": ["DISPLAY", "TERMINAL_ENV"]},
        "web": {"available": False, "tools": ["search"], "description": "",
                "requirements": ["SEARCH_KEY"]},
        "crashes": {"available": False, "tools": ["broken"], "description": "", "requirements": []},
        "todo": {"available": True, "tools": ["todo"], "description": "", "requirements": []},
    }


def test_get_toolset_requirements_shape():
    reg = mixed_registry()
    requirements = reg.get_toolset_requirements()

    assert list(requirements) == ["terminal", "web", "crashes", "todo"]
    terminal = requirements["terminal"]
    assert terminal["check_fn"] is reg.get_entry("read_terminal").check_fn
    assert {k: v for k, v in terminal.items() if k != "check_fn"} == {
        "name": "terminal", "env_vars": ["DISPLAY", "TERMINAL_ENV"], "setup_url": None,
        "tools": ["read_terminal", "terminal"],
    }
    assert requirements["todo"]["check_fn"] is None


def test_toolset_reads_use_one_snapshot(monkeypatch):
    reg = ToolRegistry()
    reg.register("alpha", "gated", schema("alpha"), ok, check_fn=lambda: False)
    entries, checks = reg._snapshot_state()

    def snapshot_then_mutate():
        reg.deregister("alpha")
        return entries, checks

    monkeypatch.setattr(reg, "_snapshot_state", snapshot_then_mutate)

    assert reg.get_available_toolsets() == {
        "gated": {"available": False, "tools": ["alpha"], "description": "", "requirements": []}
    }


def test_a_slow_probe_does_not_hold_the_table_lock():
    reg = ToolRegistry()
    probing, written = threading.Event(), threading.Event()

    def slow_check():
        probing.set()
        return written.wait(timeout=5)

    reg.register("alpha", "gated", schema("alpha"), ok, check_fn=slow_check)
    reg.register("beta", "plain", schema("beta"), ok)
    outcome = {}
    reader = threading.Thread(target=lambda: outcome.update(result=reg.check_tool_availability()))
    reader.start()
    assert probing.wait(timeout=5)
    reg.register("gamma", "new", schema("gamma"), ok)  # would deadlock under the lock
    reg.deregister("beta")
    written.set()
    reader.join(timeout=5)

    assert not reader.is_alive()
    assert outcome["result"] == (["gated", "plain"], [])
    assert reg.get_all_tool_names() == ["alpha", "gamma"]


# ===================================================================== plugins


def test_a_plugin_cannot_deregister_a_built_in_tool():
    reg = ToolRegistry()
    reg.register("terminal", "terminal", schema("terminal"), ok)
    generation = reg.generation

    with pytest.raises(PermissionError) as raised:
        plugin(reg, "hermes_plugins.shell")["remove"]("terminal")

    assert str(raised.value) == (
        "Plugin module 'hermes_plugins.shell' cannot deregister tool 'terminal' (toolset "
        "'terminal') without operator opt-in (allow_tool_override)"
    )
    assert reg.get_entry("terminal").handler is ok and reg.generation == generation


def test_a_plugin_cannot_take_a_tool_over_by_deregistering_it_first():
    reg = ToolRegistry()
    reg.register("terminal", "terminal", schema("terminal"), ok)

    with pytest.raises(PermissionError):
        plugin(reg, "hermes_plugins.shell.tools")["take_over"]("terminal", "shell")

    assert reg.get_entry("terminal").toolset == "terminal"


def test_a_plugin_may_remove_its_own_and_mcp_tools():
    reg = ToolRegistry()
    acme = plugin(reg, "hermes_plugins.acme")
    helper = plugin(reg, "hermes_plugins.acme.helpers")
    reg.register("acme_search", "acme", schema("acme_search"), helper["handler"])
    reg.register("docs_lookup", "mcp-docs", schema("docs_lookup"), ok)

    assert acme["remove"]("acme_search") is True  # defined in a submodule of the same plugin
    assert acme["remove"]("docs_lookup") is True
    assert reg.get_all_tool_names() == []


@pytest.mark.parametrize(
    ("policy", "operator", "allowed"),
    [(True, False, True), (False, True, False), (None, True, True), (None, False, False)],
    ids=["policy-allows", "policy-denies-over-operator", "operator-consent", "nobody-consents"],
)
def test_who_lets_a_plugin_remove_or_replace_a_built_in_tool(policy, operator, allowed):
    reg = ToolRegistry(allow_tool_override=operator)
    if policy is not None:
        reg.register_plugin_override_policy("hermes_plugins.shell", policy)
    reg.register("terminal", "terminal", schema("terminal"), ok)
    shell = plugin(reg, "hermes_plugins.shell")

    if allowed:
        shell["take_over"]("terminal", "shell")
        assert reg.get_entry("terminal").handler is shell["handler"]
    else:
        with pytest.raises(PermissionError):
            shell["take_over"]("terminal", "shell")
        assert reg.get_entry("terminal").handler is ok


def test_a_recorded_policy_namespace_makes_its_code_plugin_code():
    reg = ToolRegistry()
    reg.register_plugin_override_policy("vendor.plugins.acme", False)
    reg.register("memory", "memory", schema("memory"), ok)

    with pytest.raises(PermissionError):
        plugin(reg, "vendor.plugins.acme.mem")["remove"]("memory")
    assert plugin(reg, "vendor.plugins.other")["remove"]("memory") is True  # not plugin code


def test_code_that_is_no_plugin_deregisters_freely():
    reg = ToolRegistry()
    reg.register("terminal", "terminal", schema("terminal"), ok)
    embedder = defined_in("my_agent.setup", "def remove(n):\n    return reg.deregister(n)\n", reg=reg)

    assert embedder["remove"]("terminal") is True


CALLER_SOURCE = """
def who_calls():
    return reg._caller_module()
"""


def test_the_caller_hook_names_the_module_whose_code_called_the_registry():
    reg = ToolRegistry()
    shell = defined_in("hermes_plugins.shell.cleanup", CALLER_SOURCE, reg=reg)

    assert shell["who_calls"]() == "hermes_plugins.shell.cleanup"
    assert ToolRegistry._caller_module() == __name__  # called here, from this test module


@pytest.mark.parametrize(
    ("caller", "removed"),
    [("hermes_plugins.shell", False), ("hermes_plugins.shell.tools", False),
     ("hermes_plugins.acme", True), ("hermes_plugins.acme.cleanup", True),
     ("tools.mcp_tool", True), ("", True)],
    ids=["other-plugin", "other-plugin-submodule", "owner", "owner-submodule", "core", "unknown"],
)
def test_deregister_authorises_whoever_the_caller_hook_names(caller, removed):
    reg = ToolRegistry()
    owner = plugin(reg, "hermes_plugins.acme.handlers")
    reg.register("acme_search", "acme", schema("acme_search"), owner["handler"])

    with patch.object(ToolRegistry, "_caller_module", return_value=caller):
        if removed:
            assert reg.deregister("acme_search") is True
        else:
            with pytest.raises(PermissionError, match="allow_tool_override"):
                reg.deregister("acme_search")

    assert (reg.get_entry("acme_search") is None) is removed


# ===================================================================== dispatch


def test_a_raising_handler_is_reported_as_upstream():
    reg = ToolRegistry()

    def bad_handler(args, **kwargs):
        raise RuntimeError("boom")

    reg.register("bad", "s", schema("bad"), bad_handler)

    assert json.loads(reg.dispatch("bad", {})) == {"error": "Tool execution failed: RuntimeError: boom"}
    assert json.loads(reg.dispatch("nope", {})) == {"error": "Unknown tool: nope"}


@pytest.mark.parametrize("returned", [{"ok": True}, b"bytes", None, 7], ids=["dict", "bytes", "None", "int"])
def test_a_contract_error_carries_its_structure(returned):
    reg = ToolRegistry()
    reg.register("wrong", "s", schema("wrong"), lambda args, **kw: returned)
    type_name = type(returned).__name__

    assert json.loads(reg.dispatch("wrong", {})) == {
        "error": f"Tool handler returned unsupported result type: {type_name}",
        "error_type": "tool_result_contract",
        "tool": "wrong",
        "result_type": type_name,
    }
