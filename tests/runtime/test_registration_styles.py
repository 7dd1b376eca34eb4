"""The same tools, registered by importing their modules and loaded from the frozen manifest,
answer every registry question alike: definitions, dispatch results and availability.

Each style runs in a fresh interpreter (modules import once per process); the manifest is the
generator's own output for the fixture project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_lint.config import Config
from hermes_lint.manifest.generate import generate_for_root

REPO_ROOT = Path(__file__).resolve().parents[2]

SHELL = '''\
import json
import os

from tools.registry import registry

PROBES = []


def docker_ok():
    PROBES.append(1)
    return os.environ.get("ZZC_DOCKER") == "1"


def run(args, **kwargs):
    return json.dumps({"ran": args.get("command")})


def crash(args, **kwargs):
    raise RuntimeError("boom")


def wrong(args, **kwargs):
    return {"not": "a string"}



registry.register(
    name="zzc_run",
    toolset="zzc_shell",
    schema={"name": "zzc_run", "description": "Run a command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}},
    handler=run,
    check_fn=docker_ok,
    requires_env=["ZZC_DOCKER"],
    emoji="🐚",
    max_result_size_chars=2000,
)
registry.register(
    name="zzc_crash",
    toolset="zzc_shell",
    schema={"name": "zzc_crash", "description": "Always fails",
            "parameters": {"type": "object", "properties": {}}},
    handler=crash,
    check_fn=docker_ok,
)
registry.register(
    name="zzc_wrong",
    toolset="zzc_shell",
    schema={"name": "zzc_wrong", "description": "Breaks the result contract",
            "parameters": {"type": "object", "properties": {}}},
    handler=wrong,
    check_fn=docker_ok,
    requires_env=["ZZC_OTHER"],
)
'''

WEB = '''\
import json
import os

from tools.registry import registry


def has_key():
    return bool(os.getenv("ZZC_KEY"))


async def search(args, **kwargs):
    return json.dumps({"query": args.get("query"), "results": []})


registry.register(
    name="zzc_search",
    toolset="zzc_web",
    schema={"name": "zzc_search", "description": "Search the web",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                           "required": ["query"]}},
    handler=search,
    check_fn=has_key,
    requires_env=["ZZC_KEY"],
    is_async=True,
)
'''

PLAIN = '''\
from tools.registry import registry, tool_result


def note(args, **kwargs):
    return tool_result({"noted": args.get("text")}, length=len(args.get("text") or ""))


registry.register(
    name="zzc_note",
    toolset="zzc_notes",
    schema={"name": "zzc_note", "description": "Take a note",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
    handler=note,
    emoji="📝",
)
'''

SNAPSHOT = r"""
import json, sys
import tools, tools.registry as r
mode, tools_dir = sys.argv[1], sys.argv[2]
tools.__path__.append(tools_dir)
reg = r.registry
if mode == "import":
    r.discover_builtin_tools(tools_dir, use_manifest=False)
else:
    load = reg.load_manifest(tools_dir + "/manifest.json", tools_dir=tools_dir)
    assert not load.imported and not load.stale, load
names = reg.get_all_tool_names()
toolsets = reg.get_registered_toolset_names()
out = {
    "names": names,
    "toolsets": toolsets,
    "definitions": reg.get_definitions(names),
    "definitions_again": reg.get_definitions(set(names)),
    "toolset_requirements": reg.check_toolset_requirements(),
    "tool_availability": reg.check_tool_availability(),
    "available_toolsets": reg.get_available_toolsets(),
    "is_available": {t: reg.is_toolset_available(t) for t in toolsets + ["zzc_unknown"]},
    "requirements": {t: {**v, "check_fn": v["check_fn"] is not None}
                     for t, v in reg.get_toolset_requirements().items()},
    "emoji": {n: reg.get_emoji(n) for n in names + ["zzc_unknown"]},
    "max_size": {n: reg.get_max_result_size(n) for n in names},
    "tool_to_toolset": reg.get_tool_to_toolset_map(),
    "schemas": {n: reg.get_schema(n) for n in names},
}
shell = sys.modules.get("tools.zzcompat_shell")
out["probes_before_dispatch"] = len(shell.PROBES) if shell else 0
out["dispatch"] = {n: reg.dispatch(n, {"command": "ls", "query": "q", "text": "hi"}) for n in names}
out["dispatch"]["zzc_unknown"] = reg.dispatch("zzc_unknown", {})
shell = sys.modules.get("tools.zzcompat_shell")
out["probes"] = len(shell.PROBES) if shell else 0
print(json.dumps(out, sort_keys=True))
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("styles")
    tools_dir = root / "tools"
    tools_dir.mkdir()
    for stem, text in (("zzcompat_shell", SHELL), ("zzcompat_web", WEB), ("zzcompat_plain", PLAIN)):
        (tools_dir / f"{stem}.py").write_text(text, encoding="utf-8")
    generated = generate_for_root(root, Config())
    assert generated.ok, generated.problems
    (tools_dir / "manifest.json").write_bytes(generated.text)
    return tools_dir


def snapshot(mode: str, tools_dir: Path, env: dict) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("ZZC_", "PYTHON"))}
    environment.update(env, PYTHONPATH=str(REPO_ROOT), PYTHONDONTWRITEBYTECODE="1")
    completed = subprocess.run([sys.executable, "-c", SNAPSHOT, mode, str(tools_dir)],
                               cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                               env=environment)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_the_fixture_exercises_a_check_the_manifest_must_import(project):
    tools = json.loads((project / "manifest.json").read_text(encoding="utf-8"))["tools"]
    kinds = {name: tool["check"]["kind"] for name, tool in tools.items()}
    assert kinds == {"zzc_crash": "import", "zzc_note": "none", "zzc_run": "import",
                     "zzc_search": "template", "zzc_wrong": "import"}


@pytest.mark.parametrize(
    "env",
    [{}, {"ZZC_DOCKER": "1", "ZZC_KEY": "k"}, {"ZZC_DOCKER": "", "ZZC_KEY": ""}],
    ids=["unset", "set", "empty"],
)
def test_both_styles_answer_alike(project, env):
    by_import = snapshot("import", project, env)
    by_manifest = snapshot("manifest", project, env)

    assert by_manifest == by_import
    assert by_import["probes_before_dispatch"] == 1  # three tools, one shared check: one probe
    assert json.loads(by_import["dispatch"]["zzc_crash"]) == {
        "error": "Tool execution failed: RuntimeError: boom"}
    assert json.loads(by_import["dispatch"]["zzc_wrong"])["error_type"] == "tool_result_contract"
    shown = [d["function"]["name"] for d in by_import["definitions"]]
    expected = ["zzc_note"] + (["zzc_crash", "zzc_run", "zzc_search", "zzc_wrong"] if env.get("ZZC_KEY") else [])
    assert shown == sorted(expected)
