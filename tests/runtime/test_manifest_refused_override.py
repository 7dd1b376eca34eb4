"""A manifest start where the plugin override policy refuses one of a module's overrides: the
module's other tools are what import discovery leaves — those registered before the refused one
present and working, those after it absent — and the warning says the same.

The embedding application has registered ``zzref_shared`` (toolset ``zzref_base``) before the
start. A tool module whose code is a plugin's that may not override
(``register_plugin_override_policy``) registers ``zzref_first``, then ``zzref_shared`` with
``override=True`` (refused: ``PermissionError``), then ``zzref_last``. Importing it stops at the
refusal; loading the manifest must stop there too. Each start runs in a fresh interpreter: names,
toolsets, definitions, every dispatch (twice) and the registry's warnings are compared.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_lint.config import Config
from hermes_lint.manifest.generate import generate_for_root
from tests.runtime.fresh_interpreter import run_json


PLUGIN_MODULE = '''\
import json

from tools.registry import registry


def _schema(name, description):
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "Text."}}}}


def first(args, **kwargs):
    return json.dumps({"tool": "zzref_first", "text": args.get("text")})


def shared(args, **kwargs):
    return json.dumps({"tool": "zzref_shared", "from": "plugin"})


def last(args, **kwargs):
    return json.dumps({"tool": "zzref_last"})


registry.register(name="zzref_first", toolset="zzref_plugin", schema=_schema("zzref_first", "First."),
                  handler=first, check_fn=lambda: True)
registry.register(name="zzref_shared", toolset="zzref_plugin", schema=_schema("zzref_shared", "Replaces."),
                  handler=shared, check_fn=lambda: True, override=True)
registry.register(name="zzref_last", toolset="zzref_plugin", schema=_schema("zzref_last", "Last."),
                  handler=last, check_fn=lambda: True)
'''

START_SCRIPT = r"""
import json, logging, sys
import tools, tools.registry as r
mode, manifest, tools_dir = sys.argv[1:4]
tools.__path__.append(tools_dir)
warnings = []
class Keep(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            warnings.append(record.getMessage())
logging.getLogger("tools.registry").addHandler(Keep())
r.registry.register_plugin_override_policy("tools.zzref_plugin_tool", False)
r.registry.register(name="zzref_shared", toolset="zzref_base", check_fn=lambda: True,
                    schema={"name": "zzref_shared", "description": "Shared, by the application.",
                            "parameters": {"type": "object", "properties": {}}},
                    handler=lambda args, **kwargs: '{"tool": "zzref_shared", "from": "base"}')
if mode == "import":
    r.discover_builtin_tools(tools_dir, use_manifest=False)
else:
    r.registry.load_manifest(manifest, tools_dir=tools_dir)
names = r.registry.get_all_tool_names()
definitions = {d["function"]["name"]: d for d in r.registry.get_definitions(names)}
toolsets = {name: r.registry.get_entry(name).toolset for name in names}
asked = ["zzref_first", "zzref_shared", "zzref_last"]
dispatches = [{name: r.registry.dispatch(name, {"text": "hi"}) for name in asked} for _ in range(2)]
print(json.dumps({"names": names, "toolsets": toolsets, "definitions": definitions,
                  "dispatches": dispatches, "warnings": warnings}))
"""


def start(mode: str, tools_dir: Path) -> dict:
    return run_json(START_SCRIPT, mode, str(tools_dir / "manifest.json"), str(tools_dir))


@pytest.fixture(scope="module")
def starts(tmp_path_factory):
    root = tmp_path_factory.mktemp("refused-override")
    tools_dir = root / "tools"
    tools_dir.mkdir()
    (tools_dir / "zzref_plugin_tool.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    generated = generate_for_root(root, Config())
    assert generated.ok, generated.problems
    (tools_dir / "manifest.json").write_bytes(generated.text)
    frozen = json.loads(generated.text)["tools"]
    assert sorted(frozen) == ["zzref_first", "zzref_last", "zzref_shared"]  # the manifest holds all three
    return start("import", tools_dir), start("manifest", tools_dir)


def test_the_tools_after_the_refused_override_are_absent_as_under_import_discovery(starts):
    by_import, by_manifest = starts
    assert by_import["names"] == ["zzref_first", "zzref_shared"]
    assert by_import["toolsets"] == {"zzref_first": "zzref_plugin", "zzref_shared": "zzref_base"}
    assert by_manifest["names"] == by_import["names"]
    assert by_manifest["toolsets"] == by_import["toolsets"]
    assert by_manifest["definitions"] == by_import["definitions"]


def test_the_tool_before_the_refused_override_and_the_kept_tool_dispatch_as_under_import_discovery(starts):
    by_import, by_manifest = starts
    first, again = by_import["dispatches"]
    assert json.loads(first["zzref_first"]) == {"tool": "zzref_first", "text": "hi"}
    assert json.loads(first["zzref_shared"]) == {"tool": "zzref_shared", "from": "base"}
    assert json.loads(first["zzref_last"]) == {"error": "Unknown tool: zzref_last"}
    assert again == first
    assert by_manifest["dispatches"] == by_import["dispatches"]


def test_the_refusal_is_the_warning_of_a_module_that_could_not_be_imported(starts):
    by_import, by_manifest = starts
    refusal = ("Could not import tool module tools.zzref_plugin_tool: Plugin module 'tools.zzref_plugin_tool' "
               "cannot override tool 'zzref_shared' (toolset 'zzref_base') without operator opt-in "
               "(allow_tool_override)")
    assert refusal in by_import["warnings"]
    assert refusal in by_manifest["warnings"]
