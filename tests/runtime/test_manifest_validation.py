"""The loader's validation: the shipped JSON Schema is the one definition of the format (the
runtime interprets it, jsonschema agrees), every field is typed and ranged, non-finite numbers
and helper modules are refused, and files that are not regular are never read."""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import logging
import os
import sys
from pathlib import Path

import jsonschema
import pytest

import hermes_lint.model.callables as callables
import hermes_lint.manifest.generate as generator
import tools
import tools.manifest_loader as loader
import tools.registry as registry_module
from hermes_lint import discovery
from hermes_lint.config import Config
from tools.manifest_schema import KEYWORDS, compile_schema, manifest_problem
from tools.registry import ManifestError, ToolRegistry, discover_builtin_tools

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = REPO_ROOT / "hermes_lint" / "data" / "manifest.schema.json"
LOGGER_NAME = "tools.registry"
PREFIX = "zzval_"


def shipped_schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def repo_manifest() -> dict:
    generated = generator.generate_for_root(REPO_ROOT, Config())
    assert generated.ok, generated.problems
    return generated.data


# ===================================================================== the contract, pinned


def test_the_linters_register_parameters_are_the_runtimes():
    runtime = list(inspect.signature(ToolRegistry.register).parameters)[1:]
    assert list(callables.REGISTER_PARAMETERS) == runtime
    assert set(callables.REQUIRED_PARAMETERS) == {
        name for name, p in inspect.signature(ToolRegistry.register).parameters.items()
        if name != "self" and p.default is inspect.Parameter.empty
    }


def test_the_linters_mcp_toolset_prefix_is_the_runtimes():
    from hermes_lint.project.index import MCP_TOOLSET_PREFIX, is_mcp

    assert MCP_TOOLSET_PREFIX == registry_module.MCP_TOOLSET_PREFIX
    assert is_mcp("mcp-github") and not is_mcp("mcp_github") and not is_mcp(None)


def test_the_generators_format_constants_are_the_runtimes():
    assert generator.FORMAT == loader.MANIFEST_FORMAT
    assert generator.FORMAT_VERSION in loader.MANIFEST_FORMAT_VERSIONS
    assert loader.MANIFEST_FORMAT_VERSION == max(loader.MANIFEST_FORMAT_VERSIONS)
    assert generator.PACKAGE == loader._PACKAGE
    schema = shipped_schema()["properties"]
    assert schema["format"] == {"const": loader.MANIFEST_FORMAT}
    assert schema["format_version"]["enum"] == list(loader.MANIFEST_FORMAT_VERSIONS)
    assert schema["package"]["const"] == loader._PACKAGE


def test_the_loader_is_not_a_tool_module_and_the_registry_names_stay_importable():
    for stem in ("manifest_loader", "manifest_schema", "manifest_templates", "registry",
                 "import_discovery", "plugin_policy", "toolset_queries", "dispatch_results",
                 "manifest_imports", "manifest_checks", "manifest_plan", "lazy_tools",
                 "check_cache", "tool_definitions", "tool_entry", "tool_results"):
        assert not discovery.module_registers_tools(REPO_ROOT / "tools" / f"{stem}.py"), stem
        assert f"tools.{stem}" in registry_module.RUNTIME_MODULES
    assert registry_module.ManifestError is loader.ManifestError
    assert registry_module.ManifestLoad is loader.ManifestLoad
    assert set(loader.__all__) <= set(dir(loader))


def test_the_runtime_modules_are_a_closed_set_of_standard_library_code():
    """RUNTIME_MODULES is what gets copied to run a manifest: each listed module exists, and
    every module it imports is another runtime module, hermes_lint.discovery or the standard
    library (a runtime module importing anything else would break a copied runtime)."""
    import ast

    runtime = registry_module.RUNTIME_MODULES
    imported: dict[str, set[str]] = {}
    for module in sorted(runtime):
        path = REPO_ROOT / "tools" / f"{module.split('.')[1]}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names
                                         if node.module in ("tools", "hermes_lint")]
            else:
                continue
            imported.setdefault(module, set()).update(names)
    outside = {
        (module, name)
        for module, names in imported.items()
        for name in names
        if name.split(".")[0] in ("tools", "hermes_lint")
        and name not in runtime | {"tools", "hermes_lint", "hermes_lint.discovery"}
        or name.split(".")[0] not in sys.stdlib_module_names | {"tools", "hermes_lint"}
    }
    assert outside == set()
    assert {"tools.tool_entry", "tools.manifest_plan", "tools.lazy_tools"} <= set(imported["tools.registry"]) | set(
        imported["tools.manifest_loader"])


# ===================================================================== the schema interpreter


def every_path(value, path=()):
    """Each place in the manifest outside the tools' own JSON schemas (which are free-form)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            if path[:1] == ("tools",) and len(path) == 2 and key == "schema":
                yield path + (key,)
                continue
            yield from every_path(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from every_path(item, path + (index,))


def replaced(data, path, value):
    changed = copy.deepcopy(data)
    if not path:
        return value
    node = changed
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return changed


SUBSTITUTES = [None, True, 0, -1, 2.5, "", "x", "tools.x", [], ["x"], {}, {"kind": "always"}]


def test_the_runtime_and_jsonschema_agree_on_every_single_substitution():
    data = repo_manifest()
    # Three tools (one of each check kind the repo uses) keep it quick; the schema sees each
    # place independently of the others.
    kinds = {}
    for name, tool in sorted(data["tools"].items()):
        kinds.setdefault(tool["check"]["kind"], name)
    data["tools"] = {name: data["tools"][name] for name in {*kinds.values(), "web_search"}}
    data["tools"]["web_search"]["holes"] = [
        {"path": ["description"], "template": {"concat": [{"const": "a"}, {"env": "HOME"}]}},
    ]
    data["format_version"] = 2
    validator = jsonschema.Draft202012Validator(shipped_schema())
    assert validator.is_valid(data) and manifest_problem(data) is None
    disagreements = []
    checked = 0
    for path in every_path(data):
        for value in SUBSTITUTES:
            candidate = replaced(data, path, value)
            checked += 1
            if validator.is_valid(candidate) != (manifest_problem(candidate) is None):
                disagreements.append((path, value))
    assert checked > 1000
    assert disagreements == []


@pytest.mark.parametrize(
    ("template", "valid"),
    [
        ({"const": [1, {"a": None}]}, True),
        ({"format": {"env": "X"}, "spec": ">4", "conversion": "r"}, True),
        ({"format": {"env": "X"}, "conversion": "x"}, False),
        ({"call": "int", "args": [{"env": "X"}]}, True),
        ({"call": "eval", "args": [{"const": "1"}]}, False),
        ({"try": {"const": 1}, "except": ["ValueError"], "fallback": {"const": 2}}, True),
        ({"try": {"const": 1}, "except": [], "fallback": {"const": 2}}, False),
        ({"eq": [{"const": 1}]}, False),
        ({"or": []}, False),
        ({"env": "X", "const": 1}, False),
        ({"getattr": "os"}, False),
        ({"if": {"const": 1}, "then": {"const": 2}}, False),
    ],
)
def test_the_runtime_and_jsonschema_agree_on_templates(template, valid):
    data = repo_manifest()
    data["format_version"] = 2
    data["tools"]["web_search"]["holes"] = [{"path": ["description"], "template": template}]
    assert jsonschema.Draft202012Validator(shipped_schema()).is_valid(data) is valid
    assert (manifest_problem(data) is None) is valid


def test_a_schema_keyword_the_interpreter_does_not_know_is_an_error_not_a_pass():
    with pytest.raises(ValueError, match="'patternProperties' is not understood"):
        compile_schema({"type": "object", "patternProperties": {"^x": {}}})
    used = set()

    def collect(node):
        if isinstance(node, dict):
            used.update(k for k in node if not isinstance(node.get(k), dict) or k in KEYWORDS)
            for key, value in node.items():
                if key not in ("properties", "$defs"):
                    collect(value)
                else:
                    for sub in value.values():
                        collect(sub)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    collect(shipped_schema())
    assert used <= KEYWORDS


def test_problems_name_the_place_and_the_rule():
    check = compile_schema(shipped_schema())
    data = repo_manifest()
    data["tools"]["todo"]["is_async"] = "false"
    assert check(data) == "tools['todo']['is_async']: 'false' is not of type boolean"
    data = repo_manifest()
    data["sources"]["tools/todo_tool.py"] = "00"
    assert check(data) == "sources['tools/todo_tool.py']: '00' does not match '^[0-9a-f]{64}$' (sha256 hex digest)"
    data = repo_manifest()
    data["tools"]["todo"]["check"] = {"kind": "maybe"}
    assert check(data) == "tools['todo']['check']: has an unknown kind 'maybe'"
    data = repo_manifest()
    data["tools"]["todo"]["check"] = {"kind": "module", "name": "a.b"}
    assert check(data).startswith("tools['todo']['check']['name']: 'a.b' does not match")
    data = repo_manifest()
    del data["toolsets"]
    assert check(data) == "'toolsets' is missing"


# ===================================================================== loading: refusals


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    tools_dir = root / "tools"
    tools_dir.mkdir(parents=True)
    monkeypatch.setattr(tools, "__path__", [*tools.__path__, str(tools_dir)])
    fresh = ToolRegistry()
    monkeypatch.setattr(registry_module, "registry", fresh)
    yield root, fresh
    for name in [m for m in sys.modules if m.startswith("tools." + PREFIX)]:
        del sys.modules[name]


TOOL = '''\
from tools.registry import registry

registry.register(name="{name}", toolset="probe", handler=lambda args, **kw: "{{}}",
                  schema={{"name": "{name}", "description": "Probe.",
                          "parameters": {{"type": "object", "properties": {{}}}}}})
'''


def write_project(root: Path) -> Path:
    (root / "tools" / f"{PREFIX}a.py").write_text(TOOL.format(name=f"{PREFIX}a"), encoding="utf-8")
    generated = generator.generate_for_root(root, Config())
    assert generated.ok, generated.problems
    path = root / "tools" / "manifest.json"
    path.write_bytes(generated.text)
    importlib.invalidate_caches()
    return path


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data["tools"][f"{PREFIX}a"])
    path.write_text(json.dumps(data), encoding="utf-8")


BAD_FIELDS = {
    "is_async as text": ("is_async", "false", "'false' is not of type boolean"),
    "description not text": ("description", 5, "5 is not of type string"),
    "emoji not text": ("emoji", None, "None is not of type string"),
    "requires_env items": ("requires_env", [5, None], "[0]: 5 is not of type string"),
    "requires_env empty name": ("requires_env", [""], "[0]: '' is shorter than 1"),
    "empty toolset": ("toolset", "", "'' is shorter than 1"),
    "size zero": ("max_result_size_chars", 0, "0 is not greater than 0"),
    "size as text": ("max_result_size_chars", "600", "'600' is not of type integer or number or null"),
    "size a boolean": ("max_result_size_chars", True, "True is not of type integer or number or null"),
    "line zero": ("line", 0, "0 is less than 1"),
    "override as text": ("override", "yes", "'yes' is not of type boolean"),
}


@pytest.mark.parametrize("case", list(BAD_FIELDS))
def test_every_tool_field_is_typed_and_ranged(project, case):
    root, reg = project
    path = write_project(root)
    field, value, message = BAD_FIELDS[case]
    edit(path, lambda tool: tool.__setitem__(field, value))

    with pytest.raises(ManifestError) as raised:
        reg.load_manifest(path, tools_dir=root / "tools")

    assert str(raised.value) == (
        f"Tool manifest {path} is corrupt: tools[{PREFIX + 'a'!r}][{field!r}]{message if message.startswith('[') else ': ' + message}"
    )
    assert reg.get_all_tool_names() == []


CHECK_KINDS_BY_VERSION = {
    # (format version, check): the error, or None when it loads
    "version 4, none": (4, {"kind": "none"}, None),
    "version 4, always": (4, {"kind": "always"}, "has the kind 'always', which format version 4 does not have"),
    "version 4, env": (4, {"kind": "env", "all": ["A"]}, "has the kind 'env', which format version 4 does not have"),
    "version 4, module": (4, {"kind": "module", "name": "json"}, "has the kind 'module', which format version 4 does not have"),
    "version 3, always": (3, {"kind": "always"}, None),
    "version 3, env": (3, {"kind": "env", "all": ["A"]}, None),
    "version 3, none": (3, {"kind": "none"}, "has the kind 'none', which format version 3 does not have"),
    "version 1, module": (1, {"kind": "module", "name": "json"}, None),
}


@pytest.mark.parametrize("case", list(CHECK_KINDS_BY_VERSION))
def test_each_format_version_has_its_own_check_kinds(project, case):
    root, reg = project
    path = write_project(root)
    version, check, error = CHECK_KINDS_BY_VERSION[case]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["format_version"] = version
    if version < 3:
        del data["digest"]
    data["tools"][f"{PREFIX}a"]["check"] = check
    path.write_text(json.dumps(data), encoding="utf-8")

    if error is None:
        reg.load_manifest(path, tools_dir=root / "tools")
        assert reg.get_all_tool_names() == [f"{PREFIX}a"]
        # The old forms are read as the templates format version 4 writes for them.
        assert type(reg.get_entry(f"{PREFIX}a").check_fn).__name__ == {
            "none": "NoneType", "always": "NoneType", "env": "TemplateCheck", "module": "TemplateCheck",
        }[check["kind"]]
        return
    with pytest.raises(ManifestError) as raised:
        reg.load_manifest(path, tools_dir=root / "tools")
    assert str(raised.value) == f"Tool manifest {path} is corrupt: tools[{PREFIX + 'a'!r}].check {error}"
    assert reg.get_all_tool_names() == []


def test_the_old_check_forms_translate_to_the_templates_the_generator_writes():
    from tools.manifest_checks import translate_checks

    tools = {
        "a": {"check": {"kind": "always"}},
        "b": {"check": {"kind": "env", "all": ["A", "B"], "present": ["C"]}},
        "c": {"check": {"kind": "env", "all": [], "present": ["C"]}},
        "d": {"check": {"kind": "env", "all": ["A"]}},
        "e": {"check": {"kind": "module", "name": "yaml"}},
        "f": {"check": {"kind": "import", "reason": "r"}},
        "g": {"check": {"kind": "env", "all": []}},
    }
    translate_checks(tools)
    is_set = lambda t: {"not": {"is_none": t}}  # noqa: E731
    assert {name: tool["check"] for name, tool in tools.items()} == {
        "a": {"kind": "none"},
        "b": {"kind": "template", "template": {"and": [{"env": "A"}, {"env": "B"}, is_set({"env": "C"})]}},
        "c": {"kind": "template", "template": is_set({"env": "C"})},
        "d": {"kind": "template", "template": {"env": "A"}},
        "e": {"kind": "template", "template": is_set({"find_spec": "yaml"})},
        "f": {"kind": "import", "reason": "r"},
        "g": {"kind": "template", "template": {"const": True}},
    }


def test_a_valid_size_limit_at_the_boundary_loads(project):
    root, reg = project
    path = write_project(root)
    edit(path, lambda tool: tool.__setitem__("max_result_size_chars", 0.5))

    reg.load_manifest(path, tools_dir=root / "tools")

    assert reg.get_max_result_size(f"{PREFIX}a") == 0.5


@pytest.mark.parametrize("spelling", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
def test_non_finite_numbers_are_refused(project, spelling):
    root, reg = project
    path = write_project(root)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"max_result_size_chars": null', f'"max_result_size_chars": {spelling}'),
                    encoding="utf-8")

    with pytest.raises(ManifestError, match=f"is corrupt: it holds the non-finite number {spelling}"):
        reg.load_manifest(path, tools_dir=root / "tools")


def test_non_finite_numbers_deep_in_a_schema_are_refused(project):
    root, reg = project
    path = write_project(root)
    edit(path, lambda tool: tool["schema"]["parameters"].__setitem__("minimum", float("nan")))
    assert "NaN" in path.read_text(encoding="utf-8")

    with pytest.raises(ManifestError, match="non-finite number NaN"):
        reg.load_manifest(path, tools_dir=root / "tools")


def import_only(data: dict, stem: str) -> None:
    data["import_only"][f"tools.{stem}"] = {"path": f"tools/{stem}.py", "reasons": ["HRM003"]}


def test_import_only_must_name_a_tool_module(project):
    root, reg = project
    helper = root / "tools" / f"{PREFIX}helper.py"
    helper.write_text("IMPORTED = True\nfrom tools.registry import registry  # never registers\n",
                      encoding="utf-8")
    path = write_project(root)
    data = json.loads(path.read_text(encoding="utf-8"))
    import_only(data, f"{PREFIX}helper")
    path.write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(ManifestError) as raised:
        reg.load_manifest(path, tools_dir=root / "tools")

    assert str(raised.value) == (
        f"Tool manifest {path} is refused: import-only module 'tools.{PREFIX}helper' registers "
        "no tool at top level"
    )
    assert f"tools.{PREFIX}helper" not in sys.modules and reg.get_all_tool_names() == []


def test_import_only_naming_a_tool_module_imports_it(project):
    root, reg = project
    (root / "tools" / f"{PREFIX}dyn.py").write_text(TOOL.format(name=f"{PREFIX}dyn"), encoding="utf-8")
    path = write_project(root)
    data = json.loads(path.read_text(encoding="utf-8"))
    record = data["modules"].pop(f"tools.{PREFIX}dyn")
    del data["tools"][f"{PREFIX}dyn"]
    import_only(data, f"{PREFIX}dyn")
    assert record["path"] == f"tools/{PREFIX}dyn.py"
    path.write_text(json.dumps(data), encoding="utf-8")

    loaded = reg.load_manifest(path, tools_dir=root / "tools")

    assert loaded.imported == [f"tools.{PREFIX}dyn"]
    assert reg.get_all_tool_names() == [f"{PREFIX}a", f"{PREFIX}dyn"]


# ===================================================================== files that are not regular


needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="the platform has no FIFOs")


@needs_fifo
def test_discovery_skips_a_fifo_and_a_link_to_a_device_with_a_warning(project, caplog):
    root, reg = project
    tools_dir = root / "tools"
    (tools_dir / f"{PREFIX}a.py").write_text(TOOL.format(name=f"{PREFIX}a"), encoding="utf-8")
    os.mkfifo(tools_dir / f"{PREFIX}fifo.py")
    os.symlink("/dev/zero", tools_dir / f"{PREFIX}zero.py")
    importlib.invalidate_caches()

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        imported = discover_builtin_tools(tools_dir, use_manifest=False)

    assert imported == [f"tools.{PREFIX}a"]
    assert [r.getMessage() for r in caplog.records] == [
        f"Skipping tool module {tools_dir / (PREFIX + 'fifo.py')}: not a regular file",
        f"Skipping tool module {tools_dir / (PREFIX + 'zero.py')}: not a regular file",
    ]
    assert not discovery.module_registers_tools(tools_dir / f"{PREFIX}fifo.py")
    assert not discovery.is_regular_file(tools_dir / f"{PREFIX}zero.py")
    assert discovery.is_regular_file(tools_dir / f"{PREFIX}a.py")


@needs_fifo
def test_a_fifo_in_a_manifest_project_is_stale_and_skipped_without_blocking(project, caplog):
    root, reg = project
    path = write_project(root)
    os.mkfifo(root / "tools" / f"{PREFIX}fifo.py")

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        loaded = reg.load_manifest(path, tools_dir=root / "tools")

    assert loaded.stale == [f"tools/{PREFIX}fifo.py"] and loaded.tools == [f"{PREFIX}a"]
    assert any("not a regular file" in r.getMessage() for r in caplog.records)


@needs_fifo
def test_a_manifest_that_is_a_fifo_is_a_manifest_error(project):
    root, reg = project
    fifo = root / "tools" / "manifest.json"
    os.mkfifo(fifo)

    with pytest.raises(ManifestError, match="cannot be read: .*not a regular file"):
        reg.load_manifest(fifo, tools_dir=root / "tools")


# ===================================================================== values read from other files


def with_reads(root: Path, path: Path, reads: list[str]) -> None:
    import hashlib

    data = json.loads(path.read_text(encoding="utf-8"))
    for read in reads:
        data["sources"][read] = hashlib.sha256((root / read).read_bytes()).hexdigest()
    data["modules"][f"tools.{PREFIX}a"]["reads"] = reads
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_module_whose_read_file_changed_is_imported_instead(project, caplog):
    root, reg = project
    (root / "agent").mkdir()
    (root / "agent" / "consts.py").write_text("LIMIT = 3\n", encoding="utf-8")
    path = write_project(root)
    with_reads(root, path, ["agent/consts.py"])

    assert reg.load_manifest(path, tools_dir=root / "tools").imported == []

    (root / "agent" / "consts.py").write_text("LIMIT = 4\n", encoding="utf-8")
    fresh = ToolRegistry()
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        loaded = fresh.load_manifest(path, tools_dir=root / "tools")

    assert loaded.stale == [f"tools/{PREFIX}a.py"] and loaded.imported == [f"tools.{PREFIX}a"]
    assert f"tools/{PREFIX}a.py (agent/consts.py changed)" in caplog.text


def test_a_read_file_without_a_source_hash_is_corrupt(project):
    root, reg = project
    path = write_project(root)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["modules"][f"tools.{PREFIX}a"]["reads"] = ["agent/consts.py"]
    path.write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(ManifestError, match="reads 'agent/consts.py', which has no source hash"):
        reg.load_manifest(path, tools_dir=root / "tools")
