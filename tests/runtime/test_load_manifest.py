"""ToolRegistry.load_manifest: a registry filled from tools/manifest.json without importing tools.

Equality with import discovery is checked in fresh interpreters (this process has long since
imported the built-in tools); everything else runs in process against probe modules placed on
``tools.__path__`` and a fresh module-level registry, as the discovery tests do.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tools
import tools.registry as registry_module
from tools import manifest_template_checks
from hermes_lint.config import Config
from hermes_lint.manifest.generate import generate_for_root
from tools.registry import ManifestError, ToolRegistry, discover_builtin_tools

REPO_ROOT = Path(__file__).resolve().parents[2]
LOGGER_NAME = "tools.registry"
PREFIX = "zzman_"


def test_a_manifest_start_imports_no_module_it_does_not_need(repo_manifest):
    # python -S: no site-packages .pth files, which may import pathlib, typing, threading...
    # first and would hide them. A fresh manifest is read and every definition built; what the
    # runtime would otherwise import at start-up costs tens of ms when no .pyc is there.
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import tools.registry as r\n"
        "load = r.registry.load_manifest(sys.argv[1])\n"
        "definitions = r.registry.get_definitions(r.registry.get_all_tool_names())\n"
        "assert load.tools and not load.stale and len(definitions) > 1, (load, len(definitions))\n"
        "print(' '.join(sorted(m for m in set(sys.modules) - before if not m.startswith('_'))))\n"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    completed = subprocess.run([sys.executable, "-S", "-c", script, str(repo_manifest)],
                               cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                               env=environment)
    assert completed.returncode == 0, completed.stderr
    loaded = completed.stdout.split()

    avoided = {"ast", "asyncio", "copy", "hashlib", "json", "logging", "pathlib", "threading", "typing"}
    assert [m for m in loaded if m.split(".")[0] in avoided] == []
    assert [m for m in loaded if m.split(".")[0] in ("hermes_lint", "tools")] == [
        "hermes_lint", "hermes_lint.discovery", "tools", "tools.check_cache", "tools.lazy_tools",
        "tools.manifest_loader", "tools.manifest_plan", "tools.manifest_templates", "tools.registry",
        "tools.tool_definitions", "tools.tool_entry",
    ]  # not manifest_schema (the file is as generated), nor manifest_holes (no tool has holes),
    #    nor dispatch, nor tool_error/tool_result


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_tools", REPO_ROOT / "benchmarks" / "gen_tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_manifest(root: Path) -> Path:
    generated = generate_for_root(root, Config())
    assert generated.ok, generated.problems
    path = root / "tools" / "manifest.json"
    path.write_bytes(generated.text)
    return path


# ============================================================== equality, in fresh interpreters

SNAPSHOT_SCRIPT = r"""
import json, sys
import tools, tools.registry as r
mode, manifest, tools_dir = sys.argv[1], sys.argv[2], sys.argv[3] or None
if tools_dir:
    tools.__path__.append(tools_dir)
def tool_modules():
    return sorted(m for m in sys.modules if m.startswith("tools.") and m not in r.RUNTIME_MODULES)
if mode == "import":
    r.discover_builtin_tools(tools_dir, use_manifest=False)
else:
    r.registry.load_manifest(manifest, tools_dir=tools_dir)
names = r.registry.get_all_tool_names()
loaded = tool_modules()
definitions = {d["function"]["name"]: d for d in r.registry.get_definitions(names)}
after_definitions = tool_modules()
order = [d["function"]["name"] for d in r.registry.get_definitions(list(reversed(names)))]
results = {name: r.registry.dispatch(name, {"query": "a b", "limit": 2}) for name in sys.argv[4:]}
print(json.dumps({"names": names, "definitions": definitions, "order": order, "loaded": loaded,
                  "after_definitions": after_definitions, "results": results}))
"""


def snapshot(mode, manifest, tools_dir="", dispatch=(), env=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("GEN_", "WEB_SEARCH"))}
    environment.update(env or {})
    environment["PYTHONPATH"] = str(REPO_ROOT)
    completed = subprocess.run(
        [sys.executable, "-c", SNAPSHOT_SCRIPT, mode, str(manifest), str(tools_dir), *dispatch],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, env=environment,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def assert_same_tool_by_tool(by_import, by_manifest):
    assert by_manifest["names"] == by_import["names"]
    assert sorted(by_manifest["definitions"]) == sorted(by_import["definitions"])
    for name, definition in by_import["definitions"].items():
        assert by_manifest["definitions"][name] == definition, name
    assert by_manifest["order"] == by_import["order"]


@pytest.fixture(scope="module")
def repo_manifest(tmp_path_factory):
    path = tmp_path_factory.mktemp("repo-manifest") / "manifest.json"
    generated = generate_for_root(REPO_ROOT, Config())
    assert generated.ok, generated.problems
    path.write_bytes(generated.text)
    return path


@pytest.mark.parametrize("env", [{}, {"WEB_SEARCH_API_KEY": "k"}], ids=["no-key", "key"])
def test_definitions_equal_import_discovery_on_this_repo(repo_manifest, env):
    by_import = snapshot("import", repo_manifest, env=env)
    by_manifest = snapshot("manifest", repo_manifest, env=env)

    assert_same_tool_by_tool(by_import, by_manifest)
    assert ("web_search" in by_manifest["definitions"]) == bool(env)
    # Every tool of this repo has a declarative check: nothing is imported for definitions.
    assert by_manifest["loaded"] == [] and by_manifest["after_definitions"] == []
    # Import discovery loads the 10 tool modules (and the helper modules they import).
    assert len([name for name in by_import["loaded"] if name.endswith("_tool")]) == 10


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    names = load_generator().generate_corpus(root, 40, import_fraction=0.1, variety=True, seed=7)
    manifest = write_manifest(root)
    return root, names, json.loads(manifest.read_text(encoding="utf-8"))


def operators(template):
    """Every operator a template uses."""
    found = set()
    stack = [template]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.update(key for key in node if key in TEMPLATE_OPERATORS)
            stack.extend(value for value in node.values() if isinstance(value, (dict, list)))
        elif isinstance(node, list):
            stack.extend(node)
    return found


TEMPLATE_OPERATORS = set(manifest_template_checks._FORMS)
# What the simple environment checks compile to: a variable's value, whether it is set, `and`.
ENVIRONMENT_OPERATORS = {"env", "not", "is_none", "and"}


def env_tools(manifest, slot):
    """The generated tools with an environment check of one kind (gen_tools.py: the kind is
    chosen by the tool's number modulo 10), in name order."""
    return [
        name for name, tool in sorted(manifest["tools"].items())
        if tool["check"]["kind"] == "template" and "env" in operators(tool["check"]["template"])
        and operators(tool["check"]["template"]) <= ENVIRONMENT_OPERATORS
        and int(name.split("_")[1]) % 10 == slot
    ]


def corpus_env(manifest):
    """Variables the corpus's checks read, each set so that one case is decided, and which tools
    that makes available and unavailable (a variable no tool reads would test nothing)."""
    plain, both_set, one_set = env_tools(manifest, 5)[0], env_tools(manifest, 1)[0], env_tools(manifest, 1)[1]
    present, helper, lambda_ = env_tools(manifest, 3)[0], env_tools(manifest, 4)[0], env_tools(manifest, 6)[0]
    key = lambda name, suffix="KEY": f"GEN_{name.split('_')[1]}_{suffix}"  # noqa: E731
    env = {
        key(plain): "set",  # bool(os.getenv(...)): available
        key(both_set): "a", key(both_set, "SECRET"): "b",  # `A and B`, both set: available
        key(one_set): "only-one",  # `A and B` with only A set: unavailable
        key(present): "",  # `"X" in os.environ`: set but empty still counts
        key(helper): "",  # bool(os.getenv(...)) through a helper: empty is unset
        key(lambda_): "lambda",  # a lambda check: available
    }
    return env, {plain, both_set, present, lambda_}, {one_set, helper}


def test_the_corpus_env_sets_only_variables_its_tools_read(corpus):
    _, _, manifest = corpus
    env, _, _ = corpus_env(manifest)
    read = {var for tool in manifest["tools"].values() for var in tool["requires_env"]}
    assert set(env) <= read


@pytest.mark.parametrize("with_env", [False, True], ids=["bare-env", "some-keys"])
def test_definitions_equal_import_discovery_on_a_generated_corpus(corpus, with_env):
    root, names, manifest = corpus
    env, available, unavailable = corpus_env(manifest) if with_env else ({}, set(), set())
    tools_dir = root / "tools"
    dispatched = ["gen_0000", "gen_0005", "gen_0007", "gen_0009"]  # function, lambda, async, overrides
    by_import = snapshot("import", tools_dir / "manifest.json", tools_dir, dispatched, env)
    by_manifest = snapshot("manifest", tools_dir / "manifest.json", tools_dir, dispatched, env)

    assert_same_tool_by_tool(by_import, by_manifest)
    assert available <= set(by_manifest["definitions"])
    assert not unavailable & set(by_manifest["definitions"])
    assert by_manifest["results"] == by_import["results"]
    assert by_manifest["loaded"] == []
    # Only modules whose definitions need the module (check of kind import, dynamic overrides).
    needing_import = sorted(
        tool["module"] for tool in manifest["tools"].values() if tool["import_for_definitions"]
    )
    assert needing_import and len(needing_import) < len(names)
    assert by_manifest["after_definitions"] == needing_import


def test_definitions_equal_import_discovery_on_the_check_benchmark_corpus(tmp_path):
    """The corpus of the `check` benchmark (benchmarks/gen_corpus.py), when present."""
    generator = REPO_ROOT / "benchmarks" / "gen_corpus.py"
    spec = importlib.util.spec_from_file_location("gen_corpus", generator)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(40, tmp_path, 3)
    manifest = write_manifest(tmp_path)

    by_import = snapshot("import", manifest, tmp_path / "tools")
    by_manifest = snapshot("manifest", manifest, tmp_path / "tools")

    assert_same_tool_by_tool(by_import, by_manifest)
    assert by_manifest["after_definitions"] == []


def test_corpus_exercises_every_check_kind(corpus):
    _, _, manifest = corpus
    kinds = {tool["check"]["kind"] for tool in manifest["tools"].values()}
    assert kinds == {"template", "import"}  # every generated tool has a check_fn
    templates = [tool["check"]["template"] for tool in manifest["tools"].values()
                 if tool["check"]["kind"] == "template"]
    assert {"const": True} in templates  # `return True`
    assert any(t.get("not", {}).get("is_none", {}).keys() == {"env"} for t in templates)  # `"X" in os.environ`
    assert any(operators(t) == {"not", "is_none", "find_spec"} for t in templates)
    assert any(operators(t) == {"and", "env"} for t in templates)
    assert any(tool["handler"] == "via import" for tool in manifest["tools"].values())
    assert any(tool["is_async"] for tool in manifest["tools"].values())


# ============================================================== in process: probe modules

PROBE_MODULE = '''\
from tools.registry import registry

LOADS = globals().get("LOADS", 0) + 1


def check():
    return True


def handle(args, **kwargs):
    return '{{"tool": "{name}", "args": %d}}' % len(args)


registry.register(
    name="{name}",
    toolset="{toolset}",
    schema={{"name": "{name}", "description": "Probe {name}.",
            "parameters": {{"type": "object", "properties": {{}}}}}},
    handler=handle,
    check_fn=check,{extra}
)
'''


class Project:
    """A project root with a tools/ directory importable as ``tools.<stem>``."""

    def __init__(self, root: Path, registry: ToolRegistry):
        self.root = root
        self.tools_dir = root / "tools"
        self.registry = registry

    def write(self, stem: str, name: str | None = None, toolset: str = "probe", extra: str = "",
              source: str | None = None) -> None:
        text = source if source is not None else PROBE_MODULE.format(
            name=name or stem, toolset=toolset, extra=extra
        )
        (self.tools_dir / f"{stem}.py").write_text(text, encoding="utf-8")
        importlib.invalidate_caches()

    def manifest(self) -> Path:
        return write_manifest(self.root)

    def load(self, **kwargs):
        return self.registry.load_manifest(self.tools_dir / "manifest.json", tools_dir=self.tools_dir, **kwargs)


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "tools").mkdir(parents=True)
    monkeypatch.setattr(tools, "__path__", [*tools.__path__, str(root / "tools")])
    fresh = ToolRegistry()
    monkeypatch.setattr(registry_module, "registry", fresh)
    yield Project(root, fresh)
    for module_name in [m for m in sys.modules if m.startswith("tools." + PREFIX)]:
        del sys.modules[module_name]


def probe_modules():
    return sorted(m for m in sys.modules if m.startswith("tools." + PREFIX))


def test_loading_imports_nothing_and_the_first_dispatch_imports_that_module_once(project):
    project.write(f"{PREFIX}a")
    project.write(f"{PREFIX}b")
    project.manifest()

    loaded = project.load()

    assert loaded.tools == [f"{PREFIX}a", f"{PREFIX}b"] and loaded.imported == []
    assert probe_modules() == []
    lazy = project.registry.get_entry(f"{PREFIX}a")
    assert project.registry.get_definitions([f"{PREFIX}a", f"{PREFIX}b"])[0]["function"]["name"] == f"{PREFIX}a"
    assert probe_modules() == []
    generation = project.registry.generation

    assert json.loads(project.registry.dispatch(f"{PREFIX}a", {"x": 1})) == {"tool": f"{PREFIX}a", "args": 1}

    assert probe_modules() == [f"tools.{PREFIX}a"]
    real = project.registry.get_entry(f"{PREFIX}a")
    assert real is not lazy and real.toolset == lazy.toolset == "probe"
    assert real.handler is sys.modules[f"tools.{PREFIX}a"].handle
    assert project.registry.generation > generation
    project.registry.dispatch(f"{PREFIX}a", {})
    assert sys.modules[f"tools.{PREFIX}a"].LOADS == 1
    assert probe_modules() == [f"tools.{PREFIX}a"]


def test_concurrent_first_dispatches_import_the_module_once(project):
    import threading

    project.write(f"{PREFIX}a")
    project.manifest()
    project.load()
    barrier = threading.Barrier(8)
    results = []

    def call():
        barrier.wait()
        results.append(project.registry.dispatch(f"{PREFIX}a", {}))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert [json.loads(r) for r in results] == [{"tool": f"{PREFIX}a", "args": 0}] * 8
    assert sys.modules[f"tools.{PREFIX}a"].LOADS == 1


def test_lazy_entry_is_replaced_cleanly_in_a_registry_that_is_not_the_module_level_one(project):
    project.write(f"{PREFIX}a")
    project.manifest()
    other = ToolRegistry()
    other.load_manifest(project.tools_dir / "manifest.json", tools_dir=project.tools_dir)

    assert json.loads(other.dispatch(f"{PREFIX}a", {})) == {"tool": f"{PREFIX}a", "args": 0}
    entry = other.get_entry(f"{PREFIX}a")
    assert entry.handler is sys.modules[f"tools.{PREFIX}a"].handle
    assert entry.check_fn is sys.modules[f"tools.{PREFIX}a"].check


def test_a_check_of_kind_import_imports_its_module_when_definitions_are_requested(project):
    source = PROBE_MODULE.format(name=f"{PREFIX}probed", toolset="probe", extra="").replace(
        "def check():\n    return True", "def check():\n    import shutil\n    return shutil.which('sh') is not None"
    )
    project.write(f"{PREFIX}probed", source=source)
    project.write(f"{PREFIX}plain")
    project.manifest()
    project.load()
    assert probe_modules() == []

    definitions = project.registry.get_definitions([f"{PREFIX}probed", f"{PREFIX}plain"])

    assert [d["function"]["name"] for d in definitions] == [f"{PREFIX}plain", f"{PREFIX}probed"]
    assert probe_modules() == [f"tools.{PREFIX}probed"]


def test_dynamic_schema_overrides_import_the_module_and_are_merged(project):
    extra = "\n    dynamic_schema_overrides=lambda: {'description': 'Live limit 7.'},"
    project.write(f"{PREFIX}dyn", extra=extra)
    project.manifest()
    project.load()

    (definition,) = project.registry.get_definitions([f"{PREFIX}dyn"])

    assert definition["function"]["description"] == "Live limit 7."
    assert probe_modules() == [f"tools.{PREFIX}dyn"]


def test_an_import_only_module_is_imported_while_loading(project):
    project.write(f"{PREFIX}frozen")
    dynamic_name = PROBE_MODULE.format(name=f"{PREFIX}x", toolset="probe", extra="").replace(
        f'name="{PREFIX}x"', f'name="{PREFIX}" + __name__.rpartition("_")[2]'
    )
    project.write(f"{PREFIX}dynamic_name", source=dynamic_name)
    manifest = json.loads(project.manifest().read_text(encoding="utf-8"))
    assert list(manifest["import_only"]) == [f"tools.{PREFIX}dynamic_name"]

    loaded = project.load()

    assert loaded.imported == [f"tools.{PREFIX}dynamic_name"]
    assert probe_modules() == [f"tools.{PREFIX}dynamic_name"]
    assert project.registry.get_all_tool_names() == [f"{PREFIX}frozen", f"{PREFIX}name"]


def test_a_module_that_fails_to_import_on_dispatch_gives_an_error_result(project, caplog):
    project.write(f"{PREFIX}a")
    project.manifest()
    project.load()
    # Breaking the module without changing the file: the import itself fails.
    monkey_source = project.tools_dir / f"{PREFIX}a.py"
    monkey_source.write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    importlib.invalidate_caches()

    with caplog.at_level(logging.ERROR, logger=LOGGER_NAME):
        result = json.loads(project.registry.dispatch(f"{PREFIX}a", {}))

    assert result == {"error": "Tool execution failed: RuntimeError: boom"}


def test_loading_twice_keeps_entries_already_imported(project):
    project.write(f"{PREFIX}a")
    project.manifest()
    project.load()
    project.registry.dispatch(f"{PREFIX}a", {})
    real = project.registry.get_entry(f"{PREFIX}a")

    project.load()

    assert project.registry.get_entry(f"{PREFIX}a") is real


def test_manifest_tools_follow_the_registration_conflict_rules(project, caplog):
    project.write(f"{PREFIX}a", name="shared", toolset="probe")
    project.manifest()
    project.registry.register("shared", "other", {"name": "shared", "parameters": {}}, lambda a, **k: "{}")

    with caplog.at_level(logging.ERROR, logger=LOGGER_NAME):
        loaded = project.load()

    assert loaded.tools == []
    assert project.registry.get_entry("shared").toolset == "other"
    assert "REJECTED" in caplog.text


# ============================================================== staleness


def test_a_changed_file_is_one_warning_and_only_that_module_is_imported(project, caplog):
    for stem in ("a", "b", "c"):
        project.write(f"{PREFIX}{stem}")
    project.manifest()
    project.write(f"{PREFIX}b", extra="\n    emoji='*',")

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        loaded = project.load()

    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert f"tools/{PREFIX}b.py (changed)" in warnings[0].getMessage()
    assert "hermes-lint manifest" in warnings[0].getMessage()
    assert loaded.stale == [f"tools/{PREFIX}b.py"]
    assert probe_modules() == [f"tools.{PREFIX}b"]
    assert project.registry.get_entry(f"{PREFIX}b").emoji == "*"
    assert project.registry.get_all_tool_names() == [f"{PREFIX}a", f"{PREFIX}b", f"{PREFIX}c"]
    assert loaded.modules == [f"tools.{PREFIX}a", f"tools.{PREFIX}b", f"tools.{PREFIX}c"]


def test_added_and_removed_files_are_stale_too(project, caplog):
    project.write(f"{PREFIX}a")
    project.write(f"{PREFIX}gone")
    project.manifest()
    (project.tools_dir / f"{PREFIX}gone.py").unlink()
    project.write(f"{PREFIX}new")
    project.write(f"{PREFIX}not_a_tool", source="VALUE = 1\n")

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        loaded = project.load()

    (warning,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    for expected in (f"{PREFIX}new.py (added)", f"{PREFIX}gone.py (removed)", f"{PREFIX}not_a_tool.py (added)"):
        assert expected in warning
    assert probe_modules() == [f"tools.{PREFIX}new"]  # the added non-tool file is not imported
    assert project.registry.get_all_tool_names() == [f"{PREFIX}a", f"{PREFIX}new"]
    assert sorted(loaded.stale) == sorted(
        [f"tools/{PREFIX}gone.py", f"tools/{PREFIX}new.py", f"tools/{PREFIX}not_a_tool.py"]
    )


# ============================================================== corrupt, foreign, newer


def mutate(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def loaded_project(project):
    project.write(f"{PREFIX}a")
    project.manifest()
    return project


BROKEN = {
    "truncated": (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "is truncated"),
    "empty": (lambda p: p.write_bytes(b""), "is truncated"),
    "garbage": (lambda p: p.write_bytes(b"{\"format\": oops}"), "is corrupt: not valid JSON"),
    "binary": (lambda p: p.write_bytes(b"\xff\xfe\x00garbage"), "is corrupt"),
    "not an object": (lambda p: p.write_text("[1, 2]"), "is not a hermes tool manifest"),
    "foreign format": (lambda p: mutate(p, lambda d: d.update(format="pip-lock")), "is not a hermes tool manifest"),
    "newer version": (lambda p: mutate(p, lambda d: d.update(format_version=5)), "format version 5, newer"),
    "bad version": (lambda p: mutate(p, lambda d: d.update(format_version="1")), "is corrupt"),
    "missing tools": (lambda p: mutate(p, lambda d: d.pop("tools")), "is corrupt: 'tools'"),
    "tool without schema": (
        lambda p: mutate(p, lambda d: d["tools"][f"{PREFIX}a"].pop("schema")), "is corrupt"),
    "unknown check kind": (
        lambda p: mutate(p, lambda d: d["tools"][f"{PREFIX}a"].update(check={"kind": "maybe"})), "unknown kind"),
    "bad hash": (lambda p: mutate(p, lambda d: d["sources"].update({f"tools/{PREFIX}a.py": "00"})), "sha256"),
}


@pytest.mark.parametrize("how", list(BROKEN))
def test_an_unusable_manifest_is_a_clear_error_and_leaves_the_registry_untouched(loaded_project, how):
    damage, message = BROKEN[how]
    damage(loaded_project.tools_dir / "manifest.json")

    with pytest.raises(ManifestError, match=message) as raised:
        loaded_project.load()

    assert "manifest.json" in str(raised.value)
    assert loaded_project.registry.get_all_tool_names() == []
    assert loaded_project.registry.generation == 0
    assert probe_modules() == []


def test_a_missing_manifest_is_a_manifest_error(project):
    with pytest.raises(ManifestError, match="cannot be read"):
        project.load()


def test_fallback_imports_every_tool_module_with_a_warning(loaded_project, caplog):
    (loaded_project.tools_dir / "manifest.json").write_bytes(b'{"format": "hermes-tool-manif')

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        loaded = loaded_project.load(fallback=True)

    assert loaded.fallback and loaded.imported == [f"tools.{PREFIX}a"]
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "is truncated" in warning and "falling back to importing every tool module" in warning
    assert loaded_project.registry.get_all_tool_names() == [f"{PREFIX}a"]


FOREIGN = {
    "stdlib module": lambda d: d["modules"].update({"os": d["modules"].pop(f"tools.{PREFIX}a")}),
    "relative path module": lambda d: d["modules"].update({"../x": d["modules"].pop(f"tools.{PREFIX}a")}),
    "nested module": lambda d: d["modules"].update({f"tools.{PREFIX}a.y": d["modules"].pop(f"tools.{PREFIX}a")}),
    "the registry itself": lambda d: d["import_only"].update(
        {"tools.registry": {"path": "tools/registry.py", "reasons": ["x"]}}),
    "path outside the tools dir": lambda d: d["modules"][f"tools.{PREFIX}a"].update(path="../evil.py"),
    "tools dir escaping the root": lambda d: d.update(tools_dir="../elsewhere"),
    "absolute source path": lambda d: d["sources"].update({"/etc/passwd": "0" * 64}),
    "another package": lambda d: d.update(package="os"),
    "handler of another module": lambda d: d["tools"][f"{PREFIX}a"].update(
        handler={"module": "os", "qualname": "system"}),
    "handler through an attribute path": lambda d: d["tools"][f"{PREFIX}a"].update(
        handler={"module": f"tools.{PREFIX}a", "qualname": "os.system"}),
    "dotted module check": lambda d: d["tools"][f"{PREFIX}a"].update(check={"kind": "module", "name": "evil.sub"}),
    "import-only module outside": lambda d: d["import_only"].update(
        {"zzevil_payload": {"path": "zzevil_payload.py", "reasons": ["x"]}}),
}


@pytest.mark.parametrize("how", list(FOREIGN))
def test_a_manifest_naming_code_outside_the_tools_package_is_refused(loaded_project, tmp_path, monkeypatch, how):
    # A module that would prove an import happened, importable from sys.path.
    payload_dir = tmp_path / "payload"
    payload_dir.mkdir()
    (payload_dir / "zzevil_payload.py").write_text("raise SystemExit('imported!')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(payload_dir))
    mutate(loaded_project.tools_dir / "manifest.json", FOREIGN[how])

    with pytest.raises(ManifestError, match="is refused|is corrupt"):
        loaded_project.load()

    assert "zzevil_payload" not in sys.modules
    assert loaded_project.registry.get_all_tool_names() == []


# ============================================================== discover_builtin_tools


def test_discovery_prefers_a_manifest_in_the_tools_directory(project):
    project.write(f"{PREFIX}a")
    project.write(f"{PREFIX}b")
    project.manifest()

    modules = discover_builtin_tools(project.tools_dir)

    assert modules == [f"tools.{PREFIX}a", f"tools.{PREFIX}b"]
    assert probe_modules() == []
    assert project.registry.get_all_tool_names() == [f"{PREFIX}a", f"{PREFIX}b"]


@pytest.mark.parametrize("switch", ["argument", "environment"])
def test_the_manifest_can_be_turned_off(project, monkeypatch, switch):
    project.write(f"{PREFIX}a")
    project.manifest()
    if switch == "environment":
        monkeypatch.setenv("HERMES_TOOLS_MANIFEST", "0")
        modules = discover_builtin_tools(project.tools_dir)
    else:
        modules = discover_builtin_tools(project.tools_dir, use_manifest=False)

    assert modules == [f"tools.{PREFIX}a"]
    assert probe_modules() == [f"tools.{PREFIX}a"]


def test_discovery_falls_back_on_a_corrupt_manifest(project, caplog):
    project.write(f"{PREFIX}a")
    (project.tools_dir / "manifest.json").write_text("{", encoding="utf-8")

    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        modules = discover_builtin_tools(project.tools_dir)

    assert modules == [f"tools.{PREFIX}a"]
    assert "falling back" in caplog.text


def test_importing_the_registry_stays_lean():
    script = "import sys, tools.registry; print(sorted(m for m in ('json', 'hashlib', 'ast', 'asyncio') if m in sys.modules))"
    completed = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                               text=True, timeout=60, check=True)
    assert completed.stdout.strip() == "[]"


# ============================================================== parsing without the json module

PARSED = [
    '{"a": [1, -2.5e3, 0.1, 10, true, false, null, "\\u00e9\\ud83d\\ude00 \\"q\\"", {}, []]}',
    ' \t\r\n{"x": {"y": [{"z": 1e-7}]}}\n\n',
    '{"dup": 1, "dup": 2}',
    '"just a string"',
]
UNPARSED = {
    "byte order mark": "\ufeff{}",
    "trailing garbage": '{"a": 1} x',
    "NaN": '{"a": NaN}',
    "overflowing float": '{"a": 1e400}',
    "cut short": '{"a": [1, 2',
    "nested too deeply": "[" * 100_000 + "]" * 100_000,
    "empty": "",
    "control character in a string": '{"a": "\x01"}',
}


@pytest.mark.parametrize("without_c_scanner", [False, True])
@pytest.mark.parametrize("text", PARSED)
def test_the_manifest_is_parsed_as_json_loads_parses_it(monkeypatch, text, without_c_scanner):
    from tools.manifest_plan import parse_json

    if without_c_scanner:
        monkeypatch.setitem(sys.modules, "_json", None)  # an interpreter without it
    parsed = parse_json("m", text)

    assert parsed == json.loads(text)
    assert json.dumps(parsed) == json.dumps(json.loads(text))  # 1 stays an int, 0.1 a float


@pytest.mark.parametrize("without_c_scanner", [False, True])
@pytest.mark.parametrize("how", list(UNPARSED))
def test_text_json_loads_refuses_gets_its_error(monkeypatch, how, without_c_scanner):
    from tools.manifest_checks import decode_json
    from tools.manifest_plan import parse_json

    text = UNPARSED[how]
    with pytest.raises(ManifestError) as expected:
        decode_json("m", text)
    if without_c_scanner:
        monkeypatch.setitem(sys.modules, "_json", None)
    with pytest.raises(ManifestError) as raised:
        parse_json("m", text)

    assert str(raised.value) == str(expected.value)
    assert str(raised.value).startswith(("m is corrupt: ", "m is truncated: "))
