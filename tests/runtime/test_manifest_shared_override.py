"""Two tool modules registering one name, the later with ``override=True``: the manifest holds one
record per name, so freezing both made a manifest the runtime refused as corrupt ("modules[...]
.tools does not list that module's tools") and fell back to importing everything. Such modules
are import-only instead: the manifest is accepted, and the registry ends as import discovery
leaves it (the later registration replaces the earlier), while the other modules stay frozen."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtime.fresh_interpreter import run_json



def module(tools: list) -> str:
    lines = ["import json\n\nfrom tools.registry import registry\n\n"]
    for name, toolset, marker, extra in tools:
        lines.append(
            f"\ndef handle_{marker}(args, **kwargs):\n    return json.dumps({{\"tool\": \"{name}\", \"from\": \"{marker}\"}})\n\n\n"
            f"registry.register(name=\"{name}\", toolset=\"{toolset}\", handler=handle_{marker}, check_fn=lambda: True,\n"
            f"                  schema={{\"name\": \"{name}\", \"description\": \"From {marker}.\", "
            f"\"parameters\": {{\"type\": \"object\", \"properties\": {{}}}}}}{extra})\n"
        )
    return "".join(lines)


START = r"""
import json, logging, sys
import tools, tools.registry as r
mode, tools_dir = sys.argv[1:3]
tools.__path__.append(tools_dir)
warnings = []
class Keep(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            warnings.append(record.getMessage())
logging.getLogger("tools").addHandler(Keep())
modules = r.discover_builtin_tools(tools_dir, use_manifest=(mode == "manifest"))
names = r.registry.get_all_tool_names()
print(json.dumps({"modules": modules, "names": names,
                  "toolsets": {name: r.registry.get_entry(name).toolset for name in names},
                  "definitions": r.registry.get_definitions(names),
                  "dispatches": {name: r.registry.dispatch(name, {}) for name in names}, "warnings": warnings}))
"""


def start(mode: str, tools_dir: Path) -> dict:
    return run_json(START, mode, str(tools_dir))


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("shared-override")
    tools_dir = root / "tools"
    tools_dir.mkdir()
    (tools_dir / "zzso_a_tool.py").write_text(module([("zzso_shared", "zzso_a", "a", ""), ("zzso_only_a", "zzso_a", "a2", "")]))
    (tools_dir / "zzso_b_tool.py").write_text(module([("zzso_shared", "zzso_b", "b", ", override=True")]))
    (tools_dir / "zzso_c_tool.py").write_text(module([("zzso_other", "zzso_c", "c", "")]))
    (root / "toolsets.py").write_text("TOOLSETS = {}\n")
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest"], cwd=root,
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ("wrote tools/manifest.json (1 tool: 1 frozen, 0 resolved at import; 2 import-only "
                                "modules: tools.zzso_a_tool, tools.zzso_b_tool)\n")
    return tools_dir


def test_the_modules_sharing_a_name_are_import_only_and_the_others_frozen(project):
    data = json.loads((project / "manifest.json").read_text())
    assert data["import_only"] == {
        "tools.zzso_a_tool": {"path": "tools/zzso_a_tool.py", "reasons": [
            "tool `zzso_shared` is registered by tools/zzso_b_tool.py too: which registration the registry keeps is "
            "decided as the modules run, so they are imported"]},
        "tools.zzso_b_tool": {"path": "tools/zzso_b_tool.py", "reasons": [
            "tool `zzso_shared` is registered by tools/zzso_a_tool.py too: which registration the registry keeps is "
            "decided as the modules run, so they are imported"]},
    }
    assert data["modules"] == {"tools.zzso_c_tool": {"path": "tools/zzso_c_tool.py", "tools": ["zzso_other"]}}
    assert sorted(data["tools"]) == ["zzso_other"]


def test_the_runtime_accepts_the_manifest_and_ends_as_import_discovery_does(project):
    by_import, by_manifest = start("import", project), start("manifest", project)
    assert by_import["toolsets"] == {"zzso_only_a": "zzso_a", "zzso_other": "zzso_c", "zzso_shared": "zzso_b"}
    assert json.loads(by_import["dispatches"]["zzso_shared"]) == {"tool": "zzso_shared", "from": "b"}
    for key in ("modules", "names", "toolsets", "definitions", "dispatches", "warnings"):
        assert by_manifest[key] == by_import[key], key
    assert by_manifest["warnings"] == ["Tool 'zzso_shared' (toolset 'zzso_b') overrides the same name in toolset 'zzso_a'"]
