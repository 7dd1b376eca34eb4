"""Format version 2: schema leaves the generator could not freeze. A template hole is filled at
load from the environment without importing the module; a reason hole imports that one module
when that tool's definition is first requested. Either way ``get_definitions`` equals import
discovery, tool by tool, whatever the environment holds."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.manifest_holes import put
from tools.manifest_template_checks import check_template
from tools.manifest_templates import TemplateFailed, evaluate

REPO_ROOT = Path(__file__).resolve().parents[2]

# ===================================================================== templates, one by one


def env(name):
    return {"env": name}


def const(value):
    return {"const": value}


@pytest.mark.parametrize(
    ("template", "environ", "expected"),
    [
        (const({"a": [1]}), {}, {"a": [1]}),
        (env("ZZT_A"), {}, None),
        (env("ZZT_A"), {"ZZT_A": ""}, ""),
        ({"concat": [const("a"), env("ZZT_A"), const("c")]}, {"ZZT_A": "b"}, "abc"),
        ({"format": const(3.14159), "spec": ".2f"}, {}, f"{3.14159:.2f}"),
        ({"format": env("ZZT_A"), "spec": ">6", "conversion": "r"}, {"ZZT_A": "x"}, f"{'x'!r:>6}"),
        ({"format": env("ZZT_A"), "conversion": "a"}, {"ZZT_A": "é"}, f"{'é'!a}"),
        ({"format": env("ZZT_A"), "conversion": "s"}, {}, f"{None!s}"),
        ({"format": const(42), "spec": "#x"}, {}, f"{42:#x}"),
        ({"call": "int", "args": [const("0x1f"), const(16)]}, {}, int("0x1f", 16)),
        ({"call": "float", "args": [env("ZZT_A")]}, {"ZZT_A": " 2.5 "}, 2.5),
        ({"call": "bool", "args": [env("ZZT_A")]}, {}, False),
        ({"call": "bool", "args": []}, {}, False),
        ({"call": "str", "args": [const(None)]}, {}, "None"),
        ({"if": env("ZZT_A"), "then": const("yes"), "else": const("no")}, {"ZZT_A": ""}, "no"),
        ({"if": env("ZZT_A"), "then": const("yes"), "else": const("no")}, {"ZZT_A": "0"}, "yes"),
        ({"is_none": env("ZZT_A")}, {"ZZT_A": ""}, False),
        ({"eq": [const(1), const(1.0)]}, {}, True),
        ({"not": const([])}, {}, True),
        ({"or": [env("ZZT_A"), const(""), const(0)]}, {"ZZT_A": ""}, 0),
        ({"or": [env("ZZT_A"), const("default")]}, {}, "default"),
        ({"and": [const(1), env("ZZT_A"), const("never")]}, {"ZZT_A": ""}, ""),
        ({"and": [const(1), const("last")]}, {}, "last"),
        ({"try": {"call": "int", "args": [env("ZZT_A")]}, "except": ["ValueError"],
          "fallback": const(7)}, {"ZZT_A": "abc"}, 7),
        ({"try": {"call": "int", "args": [env("ZZT_A")]}, "except": ["ValueError", "TypeError"],
          "fallback": const(7)}, {}, 7),
        ({"try": {"call": "int", "args": [env("ZZT_A")]}, "except": ["ArithmeticError"],
          "fallback": const(7)}, {"ZZT_A": "12"}, 12),
    ],
)
def test_each_operator_does_what_python_does(monkeypatch, template, environ, expected):
    monkeypatch.delenv("ZZT_A", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert check_template(template) is None
    result = evaluate(template)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize(
    ("template", "environ", "message"),
    [
        ({"call": "int", "args": [env("ZZT_A")]}, {"ZZT_A": "abc"},
         "ValueError: invalid literal for int() with base 10: 'abc'"),
        ({"call": "int", "args": [env("ZZT_A")]}, {}, "TypeError: int() argument must be a string"),
        ({"concat": [const("a"), env("ZZT_A")]}, {}, 'TypeError: can only concatenate str (not "NoneType") to str'),
        ({"format": env("ZZT_A"), "spec": "d"}, {"ZZT_A": "x"}, "ValueError: Unknown format code 'd'"),
        ({"try": {"call": "int", "args": [env("ZZT_A")]}, "except": ["TypeError"],
          "fallback": const(0)}, {"ZZT_A": "abc"}, "ValueError: invalid literal"),
    ],
)
def test_an_exception_escaping_a_template_fails_it(monkeypatch, template, environ, message):
    monkeypatch.delenv("ZZT_A", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(TemplateFailed) as raised:
        evaluate(template)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ({"lookup": "HOME"}, "template has the unknown operator 'lookup'"),
        ({"call": "open", "args": []}, "template 'call' of 'open' is not a call of int, float, str or bool"),
        ({"try": const(1), "except": ["SystemExitt"], "fallback": const(2)},
         "template 'try' must name built-in exception classes"),
        ({"try": const(1), "except": ["print"], "fallback": const(2)},
         "template 'try' must name built-in exception classes"),
        ({"concat": [const("a"), {"nope": 1}]}, "template has the unknown operator 'nope'"),
        ({"not": const(1), "extra": 1}, "template 'not' has the keys ['extra', 'not'], expected ['not']"),
    ],
)
def test_malformed_templates_are_named(template, problem):
    assert check_template(template) == problem


def test_templates_nested_beyond_the_bound_are_refused():
    deep = const(1)
    for _ in range(64):
        deep = {"not": deep}
    assert check_template(deep) is None
    assert check_template({"not": deep}) == "template is nested too deeply"


def test_put_copies_only_the_path():
    schema = {"description": "?", "parameters": {"properties": {"m": {"enum": ["a", "?"]}}, "x": [1]}}
    filled = put(schema, ["parameters", "properties", "m", "enum", 1], "b")
    assert filled["parameters"]["properties"]["m"]["enum"] == ["a", "b"]
    assert schema["parameters"]["properties"]["m"]["enum"] == ["a", "?"]
    assert filled["parameters"]["x"] is schema["parameters"]["x"]


# ===================================================================== end to end

TIMEOUT_MODULE = '''\
import json
import os

from tools.registry import registry

TIMEOUT = int(os.environ.get("ZZH_TIMEOUT", "60"))
MODE = os.environ.get("ZZH_MODE", "fast")


def run(args, **kwargs):
    return json.dumps({"ran": True})


registry.register(
    name="zzh_run",
    toolset="zzh",
    schema={
        "name": "zzh_run",
        "description": f"Run a command (timeout {TIMEOUT}s, mode {MODE!r:>8})",
        "parameters": {"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["auto", MODE]},
            "timeout": {"type": "integer", "default": TIMEOUT},
        }},
    },
    handler=run,
)
registry.register(
    name="zzh_stop",
    toolset="zzh",
    schema={"name": "zzh_stop", "description": "Stop the command",
            "parameters": {"type": "object", "properties": {}}},
    handler=run,
)
'''

LIMIT_MODULE = '''\
import json
import os

from tools.registry import registry

try:
    LIMIT = float(os.getenv("ZZH_LIMIT") or "2.5")
except ValueError:
    LIMIT = 2.5
VERBOSE = bool(os.getenv("ZZH_VERBOSE"))


def fetch(args, **kwargs):
    return json.dumps({"fetched": True})


registry.register(
    name="zzh_fetch",
    toolset="zzh",
    schema={
        "name": "zzh_fetch",
        "description": f"Fetch up to {LIMIT:.1f} MB" + (" verbosely" if VERBOSE else ""),
        "parameters": {"type": "object", "properties": {}},
        "x-flags": {"quiet": not VERBOSE, "debug": os.environ.get("ZZH_MODE") == "debug" and "on"},
    },
    handler=fetch,
)
'''

HOME_MODULE = '''\
import json
import os

from tools.registry import registry


def notes(args, **kwargs):
    return json.dumps({"notes": []})


registry.register(
    name="zzh_notes",
    toolset="zzh",
    schema={"name": "zzh_notes", "description": f"Notes under {os.path.expanduser('~')}/notes",
            "parameters": {"type": "object", "properties": {}}},
    handler=notes,
)
'''


def or_default(name, default):
    """os.environ.get(name, default)"""
    return {"if": {"is_none": env(name)}, "then": const(default), "else": env(name)}


TIMEOUT = {"call": "int", "args": [or_default("ZZH_TIMEOUT", "60")]}
MODE = or_default("ZZH_MODE", "fast")
LIMIT = {"try": {"call": "float", "args": [{"or": [env("ZZH_LIMIT"), const("2.5")]}]},
         "except": ["ValueError"], "fallback": const(2.5)}
VERBOSE = {"call": "bool", "args": [env("ZZH_VERBOSE")]}

PLACEHOLDER = "<hole>"


def frozen_tool(name, module, qualname, schema, holes, description=PLACEHOLDER):
    tool = {
        "name": name, "toolset": "zzh", "module": module, "line": 1, "schema": schema,
        "description": description, "emoji": "", "requires_env": [], "is_async": False,
        "max_result_size_chars": None, "override": False,
        "handler": {"module": module, "qualname": qualname}, "check": {"kind": "always"},
        "dynamic_schema_overrides": False,
        "import_for_definitions": any("reason" in hole for hole in holes),
    }
    if holes:
        tool["holes"] = holes
    return tool


def empty_parameters():
    return {"type": "object", "properties": {}}


def hand_written_manifest(tools_dir: Path) -> dict:
    """What the generator is to write for the three modules (format version 2)."""
    run_schema = {
        "name": "zzh_run", "description": PLACEHOLDER,
        "parameters": {"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["auto", PLACEHOLDER]},
            "timeout": {"type": "integer", "default": PLACEHOLDER},
        }},
    }
    tools = {
        "zzh_run": frozen_tool("zzh_run", "tools.zzhole_timeout", "run", run_schema, [
            {"path": ["description"], "template": {"concat": [
                const("Run a command (timeout "), {"format": TIMEOUT, "spec": "", "conversion": ""},
                const("s, mode "), {"format": MODE, "spec": ">8", "conversion": "r"}, const(")"),
            ]}},
            {"path": ["parameters", "properties", "mode", "enum", 1], "template": MODE},
            {"path": ["parameters", "properties", "timeout", "default"], "template": TIMEOUT},
        ]),
        "zzh_stop": frozen_tool("zzh_stop", "tools.zzhole_timeout", "run",
                                {"name": "zzh_stop", "description": "Stop the command",
                                 "parameters": empty_parameters()}, [], "Stop the command"),
        "zzh_fetch": frozen_tool("zzh_fetch", "tools.zzhole_limit", "fetch", {
            "name": "zzh_fetch", "description": PLACEHOLDER, "parameters": empty_parameters(),
            "x-flags": {"quiet": PLACEHOLDER, "debug": PLACEHOLDER},
        }, [
            {"path": ["description"], "template": {"concat": [
                const("Fetch up to "), {"format": LIMIT, "spec": ".1f"}, const(" MB"),
                {"if": VERBOSE, "then": const(" verbosely"), "else": const("")},
            ]}},
            {"path": ["x-flags", "quiet"], "template": {"not": VERBOSE}},
            {"path": ["x-flags", "debug"],
             "template": {"and": [{"eq": [env("ZZH_MODE"), const("debug")]}, const("on")]}},
        ]),
        "zzh_notes": frozen_tool("zzh_notes", "tools.zzhole_home", "notes", {
            "name": "zzh_notes", "description": PLACEHOLDER, "parameters": empty_parameters(),
        }, [{"path": ["description"], "reason": "call to os.path.expanduser (not evaluated)"}]),
    }
    modules = {
        "tools.zzhole_home": ["zzh_notes"],
        "tools.zzhole_limit": ["zzh_fetch"],
        "tools.zzhole_timeout": ["zzh_run", "zzh_stop"],
    }
    return {
        "format": "hermes-tool-manifest", "format_version": 2, "generator": "hermes-lint 0.1.0",
        "package": "tools", "tools_dir": "tools",
        "sources": {f"tools/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest()
                    for p in sorted(tools_dir.glob("*.py"))},
        "modules": {m: {"path": f"tools/{m[6:]}.py", "tools": names} for m, names in modules.items()},
        "import_only": {}, "tools": tools, "toolsets": None,
    }


SNAPSHOT = r"""
import json, sys
import tools, tools.registry as r
mode, tools_dir = sys.argv[1], sys.argv[2]
tools.__path__.append(tools_dir)
def tool_modules():
    return sorted(m for m in sys.modules if m.startswith("tools.zzhole"))
if mode == "import":
    r.discover_builtin_tools(tools_dir, use_manifest=False)
else:
    load = r.registry.load_manifest(tools_dir + "/manifest.json", tools_dir=tools_dir)
    assert not load.stale and not load.imported, load
after_load = tool_modules()
frozen = r.registry.get_definitions(["zzh_run", "zzh_stop", "zzh_fetch"])
after_frozen = tool_modules()
everything = r.registry.get_definitions(["zzh_run", "zzh_stop", "zzh_fetch", "zzh_notes"])
print(json.dumps({"frozen": frozen, "definitions": {d["function"]["name"]: d for d in everything},
                  "after_load": after_load, "after_frozen": after_frozen,
                  "at_end": tool_modules()}))
"""


@pytest.fixture(scope="module")
def holes_project(tmp_path_factory):
    tools_dir = tmp_path_factory.mktemp("holes") / "tools"
    tools_dir.mkdir()
    for stem, text in (("zzhole_timeout", TIMEOUT_MODULE), ("zzhole_limit", LIMIT_MODULE),
                       ("zzhole_home", HOME_MODULE)):
        (tools_dir / f"{stem}.py").write_text(text, encoding="utf-8")
    manifest = hand_written_manifest(tools_dir)
    (tools_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return tools_dir


def snapshot(mode: str, tools_dir: Path, environ: dict) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("ZZH_", "PYTHON"))}
    environment.update(environ, PYTHONPATH=str(REPO_ROOT), PYTHONDONTWRITEBYTECODE="1")
    completed = subprocess.run([sys.executable, "-c", SNAPSHOT, mode, str(tools_dir)],
                               cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                               env=environment)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_the_hand_written_manifest_is_valid_for_the_shipped_schema(holes_project):
    import jsonschema

    schema = json.loads((REPO_ROOT / "hermes_lint/data/manifest.schema.json").read_text(encoding="utf-8"))
    data = json.loads((holes_project / "manifest.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)


ENVIRONMENTS = {
    "unset": {},
    "set": {"ZZH_TIMEOUT": "30", "ZZH_MODE": "debug", "ZZH_LIMIT": "7.25", "ZZH_VERBOSE": "1"},
    "empty": {"ZZH_TIMEOUT": "", "ZZH_MODE": "", "ZZH_LIMIT": "", "ZZH_VERBOSE": ""},
    "invalid": {"ZZH_TIMEOUT": "abc", "ZZH_MODE": "fast", "ZZH_LIMIT": "xyz", "ZZH_VERBOSE": "no"},
}


@pytest.mark.parametrize("environ", list(ENVIRONMENTS))
def test_definitions_equal_import_discovery_tool_by_tool(holes_project, environ):
    by_import = snapshot("import", holes_project, ENVIRONMENTS[environ])
    by_manifest = snapshot("manifest", holes_project, ENVIRONMENTS[environ])

    assert sorted(by_manifest["definitions"]) == sorted(by_import["definitions"])
    for name, definition in by_import["definitions"].items():
        assert by_manifest["definitions"][name] == definition, name
    assert by_manifest["frozen"] == by_import["frozen"]
    # The frozen tools never import (a failing template tries, and fails as the import does);
    # the reason hole imports its own module only.
    assert by_manifest["after_load"] == []
    timeout_fails = environ in ("empty", "invalid")  # int("") and int("abc") raise on import
    assert by_manifest["after_frozen"] == []
    assert by_manifest["at_end"] == ["tools.zzhole_home"]
    assert ("zzh_run" in by_import["definitions"]) is not timeout_fails
    assert ("zzh_stop" in by_import["definitions"]) is not timeout_fails


def test_the_values_come_from_the_environment(holes_project):
    unset = snapshot("manifest", holes_project, {})["definitions"]
    chosen = snapshot("manifest", holes_project, ENVIRONMENTS["set"])["definitions"]

    assert unset["zzh_run"]["function"]["description"] == "Run a command (timeout 60s, mode   'fast')"
    assert chosen["zzh_run"]["function"]["parameters"]["properties"]["timeout"]["default"] == 30
    assert chosen["zzh_run"]["function"]["parameters"]["properties"]["mode"]["enum"] == ["auto", "debug"]
    assert chosen["zzh_fetch"]["function"]["description"] == "Fetch up to 7.2 MB verbosely"
    assert chosen["zzh_fetch"]["function"]["x-flags"] == {"quiet": False, "debug": "on"}
    assert unset["zzh_fetch"]["function"]["x-flags"] == {"quiet": True, "debug": False}
    assert unset["zzh_notes"]["function"]["description"] == f"Notes under {os.path.expanduser('~')}/notes"


def run_tool(data):
    return data["tools"]["zzh_run"]


BAD_HOLES = {
    "unknown operator": (lambda d: run_tool(d)["holes"][1].update(template={"shell": "id"}),
                         "is corrupt: tools['zzh_run']['holes'][1]['template']"),
    "unknown exception": (lambda d: run_tool(d)["holes"][1].update(template={
        "try": const(1), "except": ["NoSuchError"], "fallback": const(2)}),
        "is corrupt: tools['zzh_run'].holes[1] template 'try' must name built-in exception classes"),
    "path outside the schema": (lambda d: run_tool(d)["holes"][1].update(
        path=["parameters", "properties", "mode", "enum", 2]),
        "is corrupt: tools['zzh_run'].holes[1] path ['parameters', 'properties', 'mode', 'enum', 2] "
        "does not lead into the frozen schema"),
    "reason without import_for_definitions": (
        lambda d: d["tools"]["zzh_notes"].update(import_for_definitions=False),
        "is corrupt: tools['zzh_notes'] has a hole only its module can fill but is not "
        "import_for_definitions"),
    "holes in format version 1": (lambda d: d.update(format_version=1),
                                  "is corrupt: format version 1 has no holes"),
    "hole with both forms": (lambda d: run_tool(d)["holes"][0].update(reason="x"),
                             "is corrupt: tools['zzh_run']['holes'][0]"),
}


@pytest.mark.parametrize("case", list(BAD_HOLES))
def test_malformed_holes_refuse_the_whole_manifest(holes_project, tmp_path, case):
    from tools.registry import ManifestError, ToolRegistry

    change, message = BAD_HOLES[case]
    data = json.loads((holes_project / "manifest.json").read_text(encoding="utf-8"))
    data.update(format_version=4)  # the version whose digest a runtime trusts
    for tool in data["tools"].values():
        tool["check"] = {"kind": "none"}  # format version 2's "always"
    change(data)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    reg = ToolRegistry()

    with pytest.raises(ManifestError) as raised:
        reg.load_manifest(path, tools_dir=holes_project)

    assert message in str(raised.value)
    assert reg.get_all_tool_names() == []


@pytest.fixture(scope="module")
def generated_project(tmp_path_factory):
    from hermes_lint.config import Config
    from hermes_lint.manifest.generate import generate_for_root

    root = tmp_path_factory.mktemp("holes-generated")
    tools_dir = root / "tools"
    tools_dir.mkdir()
    for stem, text in (("zzhole_timeout", TIMEOUT_MODULE), ("zzhole_limit", LIMIT_MODULE),
                       ("zzhole_home", HOME_MODULE)):
        (tools_dir / f"{stem}.py").write_text(text, encoding="utf-8")
    generated = generate_for_root(root, Config())
    assert generated.ok, generated.problems
    (tools_dir / "manifest.json").write_bytes(generated.text)
    return tools_dir, generated.data


def test_the_generator_writes_the_template_shape_the_runtime_reads(generated_project):
    _, data = generated_project
    hand = hand_written_manifest(generated_project[0])
    assert data["format_version"] == 4
    assert data["tools"]["zzh_run"]["holes"] == hand["tools"]["zzh_run"]["holes"]
    assert data["tools"]["zzh_notes"]["import_for_definitions"] is True


@pytest.mark.parametrize("environ", list(ENVIRONMENTS))
def test_the_generators_manifest_loads_equal_to_import_discovery(generated_project, environ):
    tools_dir, _ = generated_project
    by_import = snapshot("import", tools_dir, ENVIRONMENTS[environ])
    by_manifest = snapshot("manifest", tools_dir, ENVIRONMENTS[environ])

    assert by_manifest["definitions"] == by_import["definitions"]
    assert by_manifest["after_load"] == []


@pytest.mark.parametrize("case", list(BAD_HOLES))
def test_malformed_holes_under_a_recomputed_digest_refuse_the_whole_manifest(holes_project, tmp_path, case):
    """A digest recomputed over the edit skips the schema, not the checks a hole's template
    and path need before they are evaluated: the same error, and nothing registered."""
    from hermes_lint.manifest.generate import render
    from tools.registry import ManifestError, ToolRegistry

    change, message = BAD_HOLES[case]
    data = json.loads((holes_project / "manifest.json").read_text(encoding="utf-8"))
    data.update(format_version=4)  # the version whose digest a runtime trusts
    for tool in data["tools"].values():
        tool["check"] = {"kind": "none"}  # format version 2's "always"
    change(data)
    path = tmp_path / "manifest.json"
    path.write_bytes(render(data))
    reg = ToolRegistry()

    with pytest.raises(ManifestError) as raised:
        reg.load_manifest(path, tools_dir=holes_project)

    assert message in str(raised.value)
    assert reg.get_all_tool_names() == []
