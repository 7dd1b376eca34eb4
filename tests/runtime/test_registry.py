"""tools.registry: discovery, registration rules, definitions, check_fn cache, dispatch."""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import logging
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

import tools
import tools.registry as registry_module
from tools.registry import (
    CHECK_FN_TTL_SECONDS,
    ToolEntry,
    ToolRegistry,
    discover_builtin_tools,
    registry,
    tool_error,
    tool_result,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
LOGGER_NAME = "tools.registry"


class FakeClock:
    """Monotonic seconds under the test's control: the check_fn cache is tested without sleep."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_schema(name: str, description: str = "Does one thing", **extra) -> dict:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": {}},
        **extra,
    }


def ok_handler(args, **kwargs) -> str:
    return json.dumps({"ok": True})


def handler_from_module(module_name: str):
    """A handler defined in module ``module_name`` (its globals' ``__name__``): override
    policies match on the module that defined a handler."""
    namespace: dict = {"__name__": module_name, "json": json}
    exec(
        compile("def handler(args, **kwargs):\n    return json.dumps({'from': __name__})\n",
                f"<{module_name}>", "exec"),
        namespace,
    )
    return namespace["handler"]


def register_simple(reg: ToolRegistry, name: str, toolset: str, **kwargs) -> None:
    kwargs.setdefault("handler", ok_handler)
    reg.register(name, toolset, make_schema(name), **kwargs)


def error_of(result: str) -> str:
    return json.loads(result)["error"]


# ===================================================================== discovery


PROBE_PREFIX = "zzprobe_"

REGISTERING_MODULE = """\
from tools.registry import registry

registry.register(
    name={name!r},
    toolset="probe",
    schema={{"name": {name!r}, "description": "probe"}},
    handler=lambda args, **kw: "{{}}",
)
"""


class RecordingRegistry(ToolRegistry):
    """Remembers the order of registrations, i.e. the order in which modules were imported."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []

    def register(self, name, *args, **kwargs):
        self.order.append(name)
        return super().register(name, *args, **kwargs)


@pytest.fixture
def probe_tools_dir(tmp_path, monkeypatch):
    """An extra directory of the ``tools`` package, and a fresh registry for its modules.

    Discovery imports ``tools.<stem>``: putting the directory on ``tools.__path__`` makes its
    files importable under that name without touching the real tools/ directory.
    """
    directory = tmp_path / "tools_probe"
    directory.mkdir()
    monkeypatch.setattr(tools, "__path__", [*tools.__path__, str(directory)])
    fresh = RecordingRegistry()
    monkeypatch.setattr(registry_module, "registry", fresh)
    yield directory, fresh
    for module_name in [m for m in sys.modules if m.startswith("tools." + PROBE_PREFIX)]:
        del sys.modules[module_name]


def write_module(directory: Path, stem: str, source: str) -> None:
    (directory / f"{stem}.py").write_text(source, encoding="utf-8")
    importlib.invalidate_caches()


def write_tool_module(directory: Path, stem: str) -> None:
    write_module(directory, stem, REGISTERING_MODULE.format(name=stem))


def test_discovery_imports_tool_modules_in_sorted_file_order(probe_tools_dir):
    directory, fresh = probe_tools_dir
    for stem in ("zzprobe_c", "zzprobe_a", "zzprobe_b"):
        write_tool_module(directory, stem)

    imported = discover_builtin_tools(directory)

    assert imported == ["tools.zzprobe_a", "tools.zzprobe_b", "tools.zzprobe_c"]
    assert fresh.order == ["zzprobe_a", "zzprobe_b", "zzprobe_c"]


def test_discovery_skips_package_marker_registry_and_mcp_bridge(probe_tools_dir):
    directory, fresh = probe_tools_dir
    for stem in ("__init__", "registry", "mcp_tool"):
        write_module(directory, stem, REGISTERING_MODULE.format(name=f"{PROBE_PREFIX}{stem}"))
    write_tool_module(directory, "zzprobe_kept")

    imported = discover_builtin_tools(directory)

    assert imported == ["tools.zzprobe_kept"]
    assert fresh.get_all_tool_names() == ["zzprobe_kept"]
    assert "tools.mcp_tool" not in sys.modules


def test_discovery_does_not_import_file_without_top_level_register(probe_tools_dir):
    directory, fresh = probe_tools_dir
    nested = "from tools.registry import registry\n\nif True:\n    registry.register(name='x')\n"
    write_module(directory, "zzprobe_nested", nested)
    assigned = "from tools.registry import registry\n\nresult = registry.register(name='x')\n"
    write_module(directory, "zzprobe_assigned", assigned)

    assert discover_builtin_tools(directory) == []
    assert "tools.zzprobe_nested" not in sys.modules
    assert "tools.zzprobe_assigned" not in sys.modules
    assert fresh.order == []


def test_discovery_logs_a_broken_module_and_imports_the_others(probe_tools_dir, caplog):
    directory, fresh = probe_tools_dir
    write_tool_module(directory, "zzprobe_a")
    broken = 'raise RuntimeError("boom")\n\n' + REGISTERING_MODULE.format(name="zzprobe_b")
    write_module(directory, "zzprobe_b_broken", broken)
    write_tool_module(directory, "zzprobe_c")

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        imported = discover_builtin_tools(directory)

    assert imported == ["tools.zzprobe_a", "tools.zzprobe_c"]
    assert fresh.get_all_tool_names() == ["zzprobe_a", "zzprobe_c"]
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        (LOGGER_NAME, logging.WARNING, "Could not import tool module tools.zzprobe_b_broken: boom")
    ]


def test_discovery_defaults_to_the_registry_directory_and_shared_predicate(monkeypatch):
    import hermes_lint.discovery as discovery

    monkeypatch.setenv("HERMES_TOOLS_MANIFEST", "0")  # import discovery, not the manifest
    scanned = []

    def fake_candidates(tools_dir):
        scanned.append(Path(tools_dir))
        return [Path(tools_dir) / "a_tool.py", Path(tools_dir) / "b_tool.py"]

    monkeypatch.setattr(discovery, "candidate_tool_paths", fake_candidates)
    monkeypatch.setattr(discovery, "module_registers_tools", lambda path: False)

    assert discover_builtin_tools() == []
    assert scanned == [Path(registry_module.__file__).resolve().parent]


def test_importing_the_registry_pulls_in_no_toolkit_dependencies(tmp_path):
    # A fresh interpreter: this test process has long since imported everything.
    script = (
        "import sys, json\n"
        "import tools.registry\n"
        "at_import = sorted(sys.modules)\n"
        f"tools.registry.discover_builtin_tools({str(tmp_path)!r})\n"
        "print(json.dumps({'at_import': at_import, 'after_discovery': sorted(sys.modules)}))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True,
        timeout=60, check=True,
    )
    modules = json.loads(completed.stdout)

    forbidden_roots = {"libcst", "click", "jsonschema", "flake8"}
    for phase in ("at_import", "after_discovery"):
        loaded = modules[phase]
        assert [m for m in loaded if m.split(".")[0] in forbidden_roots] == [], phase
    assert [m for m in modules["at_import"] if m.split(".")[0] == "hermes_lint"] == []
    assert "asyncio" not in modules["at_import"]
    assert [m for m in modules["after_discovery"] if m.split(".")[0] == "hermes_lint"] == [
        "hermes_lint",
        "hermes_lint.discovery",
    ]


# ===================================================================== entries


def test_tool_entry_slots_are_exactly_the_documented_fields():
    assert ToolEntry.__slots__ == (
        "name",
        "toolset",
        "schema",
        "handler",
        "check_fn",
        "requires_env",
        "is_async",
        "description",
        "emoji",
        "max_result_size_chars",
        "dynamic_schema_overrides",
    )
    entry = ToolEntry(name="x", toolset="t", schema={}, handler=ok_handler)
    with pytest.raises(AttributeError):
        entry.extra = 1


def test_register_stores_every_field():
    reg = ToolRegistry()
    check = lambda: True  # noqa: E731
    overrides = lambda: {}  # noqa: E731
    reg.register(
        "weather", "weather", make_schema("weather"), ok_handler, check_fn=check,
        requires_env=["WEATHER_API_KEY"], is_async=False, description="Weather now",
        emoji="☀", max_result_size_chars=5000, dynamic_schema_overrides=overrides,
    )

    entry = reg.get_entry("weather")
    assert (entry.name, entry.toolset, entry.handler, entry.check_fn) == (
        "weather", "weather", ok_handler, check,
    )
    assert entry.requires_env == ["WEATHER_API_KEY"]
    assert (entry.is_async, entry.description, entry.emoji) == (False, "Weather now", "☀")
    assert entry.max_result_size_chars == 5000
    assert entry.dynamic_schema_overrides is overrides


def test_description_defaults_to_the_schema_description():
    reg = ToolRegistry()
    reg.register("a", "t", make_schema("a", description="From the schema"), ok_handler)
    reg.register("b", "t", {"name": "b"}, ok_handler)

    assert reg.get_entry("a").description == "From the schema"
    assert reg.get_entry("b").description == ""
    assert reg.get_entry("b").requires_env == []


def test_get_entry_of_unknown_name_is_none():
    assert ToolRegistry().get_entry("nope") is None


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (["not", "a", "dict"], "Tool 'bad': schema must be a dict, got list"),
        ('{"name": "bad"}', "Tool 'bad': schema must be a dict, got str"),
        (
            {"name": "bad", "parameters": None},
            "Tool 'bad': schema['parameters'] must be a dict, got NoneType",
        ),
        (
            {"name": "bad", "parameters": [1]},
            "Tool 'bad': schema['parameters'] must be a dict, got list",
        ),
    ],
)
def test_register_rejects_a_malformed_schema(schema, message):
    reg = ToolRegistry()
    with pytest.raises(TypeError) as raised:
        reg.register("bad", "t", schema, ok_handler)
    assert str(raised.value) == message
    assert reg.get_entry("bad") is None
    assert reg.generation == 0


def test_register_rejects_requires_env_given_as_a_string():
    with pytest.raises(TypeError) as raised:
        ToolRegistry().register("x", "t", make_schema("x"), ok_handler, requires_env="API_KEY")
    assert str(raised.value) == (
        "Tool 'x': requires_env must be a list of variable names, got the string 'API_KEY'"
    )


# ===================================================================== conflicts


def test_same_name_in_another_toolset_is_rejected_and_the_first_stays(caplog):
    reg = ToolRegistry()
    register_simple(reg, "read_file", "file")
    first = reg.get_entry("read_file")

    with caplog.at_level(logging.ERROR, logger=LOGGER_NAME):
        register_simple(reg, "read_file", "plugin-x")

    assert reg.get_entry("read_file") is first
    assert reg.generation == 1
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.ERROR,
            "Tool registration REJECTED: 'read_file' (toolset 'plugin-x') would shadow the "
            "same name in toolset 'file'",
        )
    ]


def test_mcp_toolset_replaces_another_mcp_toolset(caplog):
    reg = ToolRegistry()
    register_simple(reg, "search", "mcp-alpha")
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        register_simple(reg, "search", "mcp-beta")

    assert reg.get_entry("search").toolset == "mcp-beta"
    assert reg.generation == 2
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.parametrize(("first", "second"), [("mcp-alpha", "web"), ("web", "mcp-alpha")])
def test_mcp_refresh_rule_needs_both_toolsets_to_be_mcp(first, second):
    reg = ToolRegistry()
    register_simple(reg, "search", first)
    register_simple(reg, "search", second)
    assert reg.get_entry("search").toolset == first


def test_same_toolset_re_registers():
    reg = ToolRegistry()
    register_simple(reg, "todo", "todo")
    replacement = handler_from_module("tools.todo_tool")
    reg.register("todo", "todo", make_schema("todo"), replacement)

    assert reg.get_entry("todo").handler is replacement
    assert reg.generation == 2


def test_plugin_override_without_permission_raises_and_keeps_the_built_in():
    reg = ToolRegistry()
    register_simple(reg, "terminal", "terminal")
    first = reg.get_entry("terminal")

    with pytest.raises(PermissionError) as raised:
        reg.register("terminal", "plugin-shell", make_schema("terminal"),
                     handler_from_module("hermes_plugins.shell.tools"), override=True)

    assert str(raised.value) == (
        "Plugin module 'hermes_plugins.shell' cannot override tool 'terminal' (toolset "
        "'terminal') without operator opt-in (allow_tool_override)"
    )
    assert reg.get_entry("terminal") is first
    assert reg.generation == 1


def test_override_from_code_that_is_no_plugin_replaces_as_upstream():
    reg = ToolRegistry()
    register_simple(reg, "terminal", "terminal")
    embedder = handler_from_module("my_agent.tools")

    reg.register("terminal", "custom", make_schema("terminal"), embedder, override=True)

    assert reg.get_entry("terminal").handler is embedder


def test_a_plugin_cannot_launder_its_handler_through_module_attribute():
    reg = ToolRegistry()
    register_simple(reg, "terminal", "terminal")
    handler = handler_from_module("hermes_plugins.sneaky")
    handler.__module__ = "tools.terminal_tool"  # the defining module's globals still tell

    with pytest.raises(PermissionError):
        reg.register("terminal", "sneaky", make_schema("terminal"), handler, override=True)
    assert reg.get_entry("terminal").toolset == "terminal"


def test_override_with_operator_consent_replaces_and_warns(caplog):
    reg = ToolRegistry(allow_tool_override=True)
    register_simple(reg, "terminal", "terminal")
    plugin_handler = handler_from_module("hermes_plugins.shell")

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        reg.register("terminal", "plugin-shell", make_schema("terminal"), plugin_handler,
                     override=True)

    assert reg.get_entry("terminal").handler is plugin_handler
    assert reg.generation == 2
    assert [r.getMessage() for r in caplog.records] == [
        "Tool 'terminal' (toolset 'plugin-shell') overrides the same name in toolset 'terminal'"
    ]


def test_operator_consent_is_not_enough_without_override_flag():
    reg = ToolRegistry(allow_tool_override=True)
    register_simple(reg, "terminal", "terminal")
    register_simple(reg, "terminal", "plugin-shell", handler=handler_from_module("hermes_plugins.shell"))
    assert reg.get_entry("terminal").toolset == "terminal"


def test_override_of_a_new_name_needs_no_permission():
    reg = ToolRegistry()
    register_simple(reg, "fresh", "plugin-x", override=True)
    assert reg.get_entry("fresh").toolset == "plugin-x"


def test_plugin_policy_allows_override_with_operator_flag_off():
    reg = ToolRegistry()
    reg.register_plugin_override_policy("plugins.acme", True)
    register_simple(reg, "memory", "memory")
    plugin_handler = handler_from_module("plugins.acme.memory_plus")

    reg.register("memory", "acme", make_schema("memory"), plugin_handler, override=True)

    assert reg.get_entry("memory").handler is plugin_handler


def test_plugin_policy_matches_whole_dotted_namespaces_only():
    reg = ToolRegistry()
    reg.register_plugin_override_policy("hermes_plugins.acme", True)
    register_simple(reg, "memory", "memory")

    with pytest.raises(PermissionError):
        reg.register("memory", "evil", make_schema("memory"),
                     handler_from_module("hermes_plugins.acme_evil"), override=True)
    assert reg.get_entry("memory").toolset == "memory"


def test_plugin_policy_denial_beats_operator_consent():
    reg = ToolRegistry(allow_tool_override=True)
    reg.register_plugin_override_policy("plugins.untrusted", False)
    register_simple(reg, "memory", "memory")

    with pytest.raises(PermissionError):
        reg.register("memory", "untrusted", make_schema("memory"),
                     handler_from_module("plugins.untrusted.mem"), override=True)


def test_most_specific_plugin_policy_decides():
    reg = ToolRegistry()
    reg.register_plugin_override_policy("plugins", False)
    reg.register_plugin_override_policy("plugins.sketchy", False)
    reg.register_plugin_override_policy("plugins.fine", True)
    register_simple(reg, "clarify", "clarify")
    register_simple(reg, "memory", "memory")

    with pytest.raises(PermissionError):
        reg.register("clarify", "sketchy", make_schema("clarify"),
                     handler_from_module("plugins.sketchy.ask"), override=True)
    reg.register("memory", "fine", make_schema("memory"),
                 handler_from_module("plugins.fine.mem"), override=True)

    assert reg.get_entry("clarify").toolset == "clarify"
    assert reg.get_entry("memory").toolset == "fine"


# ===================================================================== lookups


def test_deregister_reports_whether_a_tool_was_removed():
    reg = ToolRegistry()
    register_simple(reg, "patch", "file")

    assert reg.deregister("patch") is True
    assert reg.get_entry("patch") is None
    assert reg.generation == 2
    assert reg.deregister("patch") is False
    assert reg.generation == 2


def test_all_tool_names_are_sorted():
    reg = ToolRegistry()
    for name in ("write_file", "clarify", "read_file"):
        register_simple(reg, name, "file")
    assert reg.get_all_tool_names() == ["clarify", "read_file", "write_file"]


def test_toolset_lookup_accepts_the_alias_or_the_real_name():
    reg = ToolRegistry()
    register_simple(reg, "foo_search", "mcp-foo")
    register_simple(reg, "foo_fetch", "mcp-foo")
    register_simple(reg, "read_file", "file")
    before = reg.generation

    reg.register_toolset_alias("foo", "mcp-foo")

    assert reg.generation == before + 1
    assert reg.get_tool_names_for_toolset("foo") == ["foo_fetch", "foo_search"]
    assert reg.get_tool_names_for_toolset("mcp-foo") == ["foo_fetch", "foo_search"]
    assert reg.get_tool_names_for_toolset("nothing") == []


def test_module_singleton_is_a_registry():
    assert isinstance(registry, ToolRegistry)


# ===================================================================== definitions


def test_definitions_are_sorted_by_name_and_skip_unknown_and_repeated_names():
    reg = ToolRegistry()
    for name in ("a", "b", "c"):
        register_simple(reg, name, "t")

    definitions = reg.get_definitions(["c", "missing", "a", "c"])

    assert definitions == [
        {"type": "function", "function": make_schema("a")},
        {"type": "function", "function": make_schema("c")},
    ]
    assert reg.get_definitions({"c", "a"}) == definitions


def test_definition_name_is_the_registered_name():
    reg = ToolRegistry()
    reg.register("real_name", "t", make_schema("schema_name"), ok_handler)
    reg.register("nameless", "t", {"description": "no name key"}, ok_handler)

    functions = [d["function"] for d in reg.get_definitions(["real_name", "nameless"])]

    assert [f["name"] for f in functions] == ["nameless", "real_name"]


def test_definitions_are_copies_callers_may_mutate():
    reg = ToolRegistry()
    register_simple(reg, "a", "t")
    definition = reg.get_definitions(["a"])[0]
    definition["function"]["parameters"]["properties"]["injected"] = {"type": "string"}

    assert reg.get_entry("a").schema == make_schema("a")


def test_definitions_of_schemas_beyond_json_are_deep_copies_too():
    class Marker:
        pass

    reg = ToolRegistry()
    marker = Marker()
    cyclic: dict = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic
    schema = {
        "description": "not only JSON",
        "parameters": {"type": "object", "properties": {}, "enum_tuple": ("a", "b")},
        "x-marker": [marker],
        "x-cycle": cyclic,
    }
    reg.register("odd", "t", schema, ok_handler)

    function = reg.get_definitions(["odd"])[0]["function"]

    assert function["parameters"] == schema["parameters"]
    assert function["parameters"] is not schema["parameters"]
    assert function["x-marker"][0] is not marker and isinstance(function["x-marker"][0], Marker)
    copied_cycle = function["x-cycle"]
    assert copied_cycle is not cyclic and copied_cycle["properties"]["self"] is copied_cycle


def test_the_module_logger_is_made_on_first_use():
    # ``logging`` is imported only when something is logged; the attribute stays available.
    assert registry_module.logger is logging.getLogger("tools.registry")


def test_tools_whose_check_fails_are_left_out():
    reg = ToolRegistry()
    register_simple(reg, "shown", "t", check_fn=lambda: True)
    register_simple(reg, "hidden", "t", check_fn=lambda: False)
    register_simple(reg, "unchecked", "t")

    names = [d["function"]["name"] for d in reg.get_definitions(["shown", "hidden", "unchecked"])]

    assert names == ["shown", "unchecked"]


def test_dynamic_overrides_are_merged_over_the_schema():
    reg = ToolRegistry()
    limits = {"max_children": 3}

    def overrides():
        return {
            "description": f"Delegate to at most {limits['max_children']} children",
            "name": "cannot_rename",
        }

    register_simple(reg, "delegate_task", "delegation", dynamic_schema_overrides=overrides)

    first = reg.get_definitions(["delegate_task"])[0]["function"]
    limits["max_children"] = 5
    second = reg.get_definitions(["delegate_task"])[0]["function"]

    assert first["description"] == "Delegate to at most 3 children"
    assert second["description"] == "Delegate to at most 5 children"
    assert second["name"] == "delegate_task"
    assert second["parameters"] == {"type": "object", "properties": {}}
    assert reg.get_entry("delegate_task").schema == make_schema("delegate_task")


def test_failing_dynamic_override_falls_back_to_the_static_schema(caplog):
    reg = ToolRegistry()

    def broken():
        raise KeyError("config.max")

    register_simple(reg, "raising", "t", dynamic_schema_overrides=broken)
    register_simple(reg, "not_a_dict", "t", dynamic_schema_overrides=lambda: ["x"])

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        definitions = reg.get_definitions(["raising", "not_a_dict"])

    assert definitions == [
        {"type": "function", "function": make_schema("not_a_dict")},
        {"type": "function", "function": make_schema("raising")},
    ]
    assert [r.getMessage() for r in caplog.records] == [
        "dynamic_schema_overrides of tool 'not_a_dict' returned list, expected a dict; using "
        "the static schema",
        "dynamic_schema_overrides of tool 'raising' raised KeyError: 'config.max'; using the "
        "static schema",
    ]


# ===================================================================== check_fn cache


class ScriptedCheck:
    """A check_fn whose answers the test sets; counts how often it was probed."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.calls = 0
        self.__qualname__ = "ScriptedCheck"

    def __call__(self) -> bool:
        self.calls += 1
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def checked_registry(answer):
    clock = FakeClock()
    reg = ToolRegistry(clock=clock)
    check = ScriptedCheck(answer)
    register_simple(reg, "probe", "t", check_fn=check)
    return reg, clock, check


def available(reg: ToolRegistry) -> bool:
    return bool(reg.get_definitions(["probe"]))


def test_no_check_fn_means_available():
    reg = ToolRegistry(clock=FakeClock())
    register_simple(reg, "plain", "t")
    assert [d["function"]["name"] for d in reg.get_definitions(["plain"])] == ["plain"]
    assert reg.is_toolset_available("t") is True


def test_check_result_is_reused_within_the_ttl():
    reg, clock, check = checked_registry(True)

    assert available(reg) is True  # probed at t=0
    check.answer = False
    clock.now = CHECK_FN_TTL_SECONDS - 0.5
    assert available(reg) is True
    assert check.calls == 1

    clock.now = CHECK_FN_TTL_SECONDS  # exactly TTL after the probe: expired
    assert available(reg) is True  # failing now, but within the grace window
    assert check.calls == 2


def test_negative_result_is_cached_too():
    reg, clock, check = checked_registry(False)

    assert available(reg) is False
    check.answer = True
    clock.now = CHECK_FN_TTL_SECONDS - 0.5
    assert available(reg) is False
    assert check.calls == 1
    clock.now = CHECK_FN_TTL_SECONDS
    assert available(reg) is True
    assert check.calls == 2


def test_tools_sharing_a_check_function_probe_it_once_per_ttl():
    clock = FakeClock()
    reg = ToolRegistry(clock=clock)
    docker = ScriptedCheck(True)
    for name in ("terminal", "process", "execute_code"):
        register_simple(reg, name, name, check_fn=docker)

    names = ["terminal", "process", "execute_code"]
    assert len(reg.get_definitions(names)) == 3
    assert reg.check_toolset_requirements() == {"execute_code": True, "process": True,
                                                "terminal": True}
    assert reg.is_toolset_available("process") is True
    clock.now = CHECK_FN_TTL_SECONDS - 0.5
    assert len(reg.get_definitions(names)) == 3
    assert docker.calls == 1

    clock.now = CHECK_FN_TTL_SECONDS
    assert len(reg.get_definitions(names)) == 3
    assert docker.calls == 2


def test_a_failure_in_the_grace_window_answers_true_and_is_not_cached(caplog):
    reg, clock, check = checked_registry(True)
    assert available(reg) is True  # success at t=0

    check.answer = False
    clock.now = 31.0  # fails 31 s after the success: grace, and not cached
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert available(reg) is True
    assert [r.getMessage() for r in caplog.records] == [
        "check_fn ScriptedCheck returned False within 60 s of its last success; its tools stay "
        "available"
    ]
    clock.now = 59.5  # probed again: still in grace
    assert available(reg) is True
    assert check.calls == 3

    clock.now = 60.0  # fails exactly 60 s after the last success: unavailable, and cached
    assert available(reg) is False
    clock.now = 89.5
    assert available(reg) is False
    assert check.calls == 4


def test_one_pass_probes_a_check_in_its_grace_window_once():
    clock = FakeClock()
    reg = ToolRegistry(clock=clock)
    flaky = ScriptedCheck(True)
    for name in ("a", "b", "c"):
        register_simple(reg, name, "t", check_fn=flaky)
    assert len(reg.get_definitions(["a"])) == 1

    flaky.answer = False
    clock.now = 31.0
    assert len(reg.get_definitions(["a", "b", "c"])) == 3
    assert flaky.calls == 2
    assert reg.check_tool_availability() == (["t"], [])
    assert flaky.calls == 3


def test_a_new_success_restarts_the_grace_window():
    reg, clock, check = checked_registry(True)
    assert available(reg) is True  # success at t=0
    clock.now = 30.0
    assert available(reg) is True  # success at t=30

    check.answer = False
    clock.now = 60.0  # fails 30 s after the last success: grace
    assert available(reg) is True
    clock.now = 90.0  # fails 60 s after it: unavailable
    assert available(reg) is False


def test_never_successful_check_gets_no_grace():
    reg, clock, check = checked_registry(False)
    assert available(reg) is False


def test_raising_check_counts_as_false_and_is_logged(caplog):
    reg, clock, check = checked_registry(OSError("docker socket missing"))

    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        assert available(reg) is False

    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.WARNING,
            "check_fn ScriptedCheck raised OSError: docker socket missing; its tools are "
            "unavailable",
        ),
        (logging.DEBUG, "Tool probe unavailable (check failed)"),
    ]


def test_a_check_that_returns_false_is_not_a_warning(caplog):
    reg, clock, check = checked_registry(False)

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert reg.get_definitions(["probe"], quiet=True) == []

    assert caplog.records == []


def test_raising_check_within_grace_still_reports_available():
    reg, clock, check = checked_registry(True)
    assert available(reg) is True

    check.answer = RuntimeError("flaky")
    clock.now = 30.0
    assert available(reg) is True
    clock.now = 60.0
    assert available(reg) is False


def test_re_registered_tool_with_another_check_does_not_inherit_the_old_result():
    reg, clock, check = checked_registry(True)
    assert available(reg) is True

    replacement = ScriptedCheck(False)
    register_simple(reg, "probe", "t", check_fn=replacement)

    assert available(reg) is False
    assert replacement.calls == 1


def test_invalidating_the_cache_probes_again_and_forgets_the_last_success():
    reg, clock, check = checked_registry(True)
    assert available(reg) is True
    check.answer = False

    reg.invalidate_check_fn_cache()

    assert available(reg) is False  # no grace: the last success is forgotten too
    assert check.calls == 2


def test_module_level_invalidation_clears_the_singleton_cache(monkeypatch):
    fresh = ToolRegistry(clock=FakeClock())
    monkeypatch.setattr(registry_module, "registry", fresh)
    check = ScriptedCheck(True)
    register_simple(fresh, "probe", "t", check_fn=check)
    assert available(fresh) is True
    check.answer = False

    registry_module.invalidate_check_fn_cache()

    assert available(fresh) is False


def test_an_unhashable_check_function_is_cached_by_identity():
    class Unhashable(ScriptedCheck):
        __hash__ = None

    clock = FakeClock()
    reg = ToolRegistry(clock=clock)
    check = Unhashable(True)
    register_simple(reg, "a", "t", check_fn=check)
    register_simple(reg, "b", "t", check_fn=check)

    assert len(reg.get_definitions(["a", "b"])) == 2
    assert check.calls == 1


def test_the_default_clock_is_looked_up_at_each_call(monkeypatch):
    reg = ToolRegistry()
    check = ScriptedCheck(True)
    register_simple(reg, "probe", "t", check_fn=check)
    monkeypatch.setattr(registry_module.time, "monotonic", lambda: 1000.0)
    assert available(reg) is True
    monkeypatch.setattr(registry_module.time, "monotonic", lambda: 1000.0 + CHECK_FN_TTL_SECONDS)
    assert available(reg) is True
    assert check.calls == 2


# ===================================================================== dispatch


def test_dispatch_of_unknown_tool():
    assert ToolRegistry().dispatch("nope", {}) == json.dumps({"error": "Unknown tool: nope"})


def test_dispatch_passes_args_and_kwargs():
    reg = ToolRegistry()
    seen = []

    def handler(args, **kwargs):
        seen.append((args, kwargs))
        return json.dumps({"location": args["location"]})

    reg.register("weather", "weather", make_schema("weather"), handler)

    assert reg.dispatch("weather", {"location": "London"}, task_id="t-1") == (
        '{"location": "London"}'
    )
    assert seen == [({"location": "London"}, {"task_id": "t-1"})]


def test_dispatch_turns_an_exception_into_an_error_result(caplog):
    reg = ToolRegistry()

    def handler(args, **kwargs):
        raise ValueError("bad path")

    reg.register("read_file", "file", make_schema("read_file"), handler)

    with caplog.at_level(logging.ERROR, logger=LOGGER_NAME):
        result = reg.dispatch("read_file", {})

    assert json.loads(result) == {"error": "Tool execution failed: ValueError: bad path"}
    [record] = caplog.records
    assert record.getMessage() == "Tool 'read_file' raised"
    assert record.exc_info[0] is ValueError


@pytest.mark.parametrize(
    ("returned", "type_name"),
    [({"ok": True}, "dict"), (["a"], "list"), (42, "int"), (None, "NoneType"),
     ({"_multimodal": True, "content": "not a list"}, "dict"),
     ({"_multimodal": 1, "content": []}, "dict")],
)
def test_dispatch_reports_a_result_that_breaks_the_contract(returned, type_name, caplog):
    reg = ToolRegistry()
    reg.register("bad", "t", make_schema("bad"), lambda args, **kw: returned)

    with caplog.at_level(logging.ERROR, logger=LOGGER_NAME):
        result = reg.dispatch("bad", {})

    assert json.loads(result) == {
        "error": f"Tool handler returned unsupported result type: {type_name}",
        "error_type": "tool_result_contract",
        "tool": "bad",
        "result_type": type_name,
    }
    assert [r.getMessage() for r in caplog.records] == [
        f"Tool 'bad' returned {type_name}, expected a JSON string"
    ]


def test_dispatch_passes_the_multimodal_envelope_through():
    envelope = {"_multimodal": True, "content": [{"type": "text", "text": "hi"}]}
    reg = ToolRegistry()
    reg.register("screenshot", "browser", make_schema("screenshot"), lambda args, **kw: envelope)

    assert reg.dispatch("screenshot", {}) is envelope


def test_sync_handler_returning_a_coroutine_is_a_contract_error_without_leaking_it(caplog):
    async def forgot_is_async(args, **kwargs):
        return "{}"

    reg = ToolRegistry()
    reg.register("slow", "t", make_schema("slow"), forgot_is_async)

    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.ERROR):
        warnings.simplefilter("always")
        result = reg.dispatch("slow", {})
        gc.collect()

    assert json.loads(result) == {
        "error": "Tool handler returned unsupported result type: coroutine",
        "error_type": "tool_result_contract", "tool": "slow", "result_type": "coroutine",
    }
    assert [r.getMessage() for r in caplog.records if r.name == LOGGER_NAME] == [
        "Tool 'slow' returned coroutine, expected a JSON string (an async handler needs "
        "is_async=True)"
    ]
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []


async def async_echo(args, **kwargs):
    await asyncio.sleep(0)
    return json.dumps({"echo": args["text"], "thread": threading.current_thread().name})


def test_async_handler_runs_in_a_fresh_loop():
    reg = ToolRegistry()
    reg.register("echo", "t", make_schema("echo"), async_echo, is_async=True)

    result = json.loads(reg.dispatch("echo", {"text": "hi"}))

    assert result == {"echo": "hi", "thread": threading.current_thread().name}


def test_async_handler_inside_a_running_loop_runs_in_a_worker_thread():
    reg = ToolRegistry()
    reg.register("echo", "t", make_schema("echo"), async_echo, is_async=True)

    async def caller():
        return reg.dispatch("echo", {"text": "from async code"})

    result = json.loads(asyncio.run(caller()))

    assert result == {"echo": "from async code", "thread": "hermes-tool-echo"}


def test_async_handler_exception_becomes_an_error_result_in_both_modes(caplog):
    async def failing(args, **kwargs):
        raise TimeoutError("server slow")

    reg = ToolRegistry()
    reg.register("fetch", "web", make_schema("fetch"), failing, is_async=True)

    async def caller():
        return reg.dispatch("fetch", {})

    with caplog.at_level(logging.ERROR, logger=LOGGER_NAME):
        results = [reg.dispatch("fetch", {}), asyncio.run(caller())]

    assert [json.loads(r) for r in results] == [
        {"error": "Tool execution failed: TimeoutError: server slow"}
    ] * 2
    assert [r.getMessage() for r in caplog.records] == ["Tool 'fetch' raised"] * 2


def test_async_handler_may_return_any_awaitable():
    class Awaitable:
        def __await__(self):
            yield from asyncio.sleep(0).__await__()
            return '{"awaited": true}'

    reg = ToolRegistry()
    reg.register("aw", "t", make_schema("aw"), lambda args, **kw: Awaitable(), is_async=True)

    assert reg.dispatch("aw", {}) == '{"awaited": true}'


def test_async_handler_result_is_held_to_the_contract():
    async def returns_dict(args, **kwargs):
        return {"raw": True}

    reg = ToolRegistry()
    reg.register("raw", "t", make_schema("raw"), returns_dict, is_async=True)

    assert json.loads(reg.dispatch("raw", {}))["result_type"] == "dict"


# ===================================================================== result helpers


def test_tool_error():
    assert tool_error("not found") == '{"error": "not found"}'
    assert tool_error("ファイルがない", path="/tmp/ä") == (
        '{"error": "ファイルがない", "path": "/tmp/ä"}'
    )


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        ((), {}, "{}"),
        ((), {"ok": True}, '{"ok": true}'),
        (({"path": "a.txt"},), {"bytes": 3}, '{"path": "a.txt", "bytes": 3}'),
        (({"n": 1},), {"n": 2}, '{"n": 2}'),
        ((42,), {}, "42"),
        ((42,), {"unit": "s"}, '{"result": 42, "unit": "s"}'),
        ((["a", "é"],), {"count": 2}, '{"result": ["a", "é"], "count": 2}'),
        (("テキスト",), {}, '"テキスト"'),
    ],
)
def test_tool_result(args, kwargs, expected):
    assert tool_result(*args, **kwargs) == expected
