"""`check` and `manifest` read a module through one semantic model, so they agree about it.

Each case runs the real CLI (`hermes-lint check`) and the real manifest generator on the same
project, where the two used to answer the same question in two ways.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from click.testing import CliRunner

from hermes_lint.cli import main
from hermes_lint.config import Config
from hermes_lint.manifest.generate import generate_for_root

SCHEMA = """
SCHEMA = {"name": "probe", "description": "Probe things.", "parameters": {"type": "object", "properties": {
    "city": {"type": "string", "description": "Which city."},
    "unused": {"type": "string", "description": "Never read."}}, "required": ["city"]}}
"""


def project(root: Path, body: str) -> Path:
    (root / "tools").mkdir()
    source = "import json\nfrom tools.registry import registry\n" + inspect.cleandoc(SCHEMA) + "\n\n" + inspect.cleandoc(body) + "\n"
    (root / "tools" / "probe_tool.py").write_text(source, encoding="utf-8")
    return root


def findings(root: Path, *codes: str) -> list:
    result = CliRunner().invoke(
        main, ["check", "--root", str(root), "--no-cache", "--format", "json", "--select", ",".join(codes)]
    )
    return [(d["code"], d["line"], d["message"]) for d in json.loads(result.stdout)]


def tool(root: Path) -> dict:
    return generate_for_root(root, Config()).data["tools"]["probe"]


REBOUND = """
def handle(args, **kwargs):
    return {"city": args.get("city")}

def _use_fallback():
    global handle
    handle = lambda args, **kwargs: json.dumps({})

registry.register(name="probe", toolset="probe", schema=SCHEMA, handler=handle, check_fn=lambda: True)
"""


def test_a_handler_rebound_through_global_is_unknown_to_check_and_to_the_manifest(tmp_path):
    root = project(tmp_path, REBOUND)
    # Which function runs is decided at run time: HRM101 says nothing about the `def` (it did
    # before, while the manifest already refused to name it)...
    assert findings(root, "HRM101") == []
    # ...and the manifest cannot name the function either: the runtime imports the module.
    assert tool(root)["handler"] == "via import"


def test_the_same_handler_not_rebound_is_known_to_both(tmp_path):
    root = project(tmp_path, REBOUND.replace("    global handle\n", "    pass\n").replace(
        "    handle = lambda args, **kwargs: json.dumps({})\n", ""))
    assert findings(root, "HRM101") == [
        ("HRM101", 8, "handler `handle` can return a dict, not a JSON string"),
    ]
    assert tool(root)["handler"] == {"module": "tools.probe_tool", "qualname": "handle"}


def test_overrides_none_is_no_overrides_for_check_and_for_the_manifest(tmp_path):
    root = project(tmp_path, """
        def handle(args, **kwargs):
            return json.dumps({"city": args["city"]})

        registry.register(name="probe", toolset="probe", schema=SCHEMA, handler=handle,
                          check_fn=lambda: True, dynamic_schema_overrides=None)
        """)
    # The schema is static: an unread property is reported...
    assert [code for code, _, _ in findings(root, "HRM108")] == ["HRM108"]
    # ...and the manifest serves the frozen definition without importing the module.
    frozen = tool(root)
    assert (frozen["dynamic_schema_overrides"], frozen["import_for_definitions"]) == (False, False)


def test_an_overrides_function_that_replaces_no_parameters_still_makes_the_manifest_import(tmp_path):
    root = project(tmp_path, """
        def handle(args, **kwargs):
            return json.dumps({"city": args["city"]})

        def _description():
            return {"description": "Probe things, now."}

        registry.register(name="probe", toolset="probe", schema=SCHEMA, handler=handle,
                          check_fn=lambda: True, dynamic_schema_overrides=_description)
        """)
    # Only the description may change at run time: the parameters are static for HRM108...
    assert [code for code, _, _ in findings(root, "HRM108")] == ["HRM108"]
    # ...while the runtime calls the function for the definition, so the module is imported.
    frozen = tool(root)
    assert (frozen["dynamic_schema_overrides"], frozen["import_for_definitions"]) == (True, True)


def check_chain(calls: int, tool_name: str) -> str:
    """A check_fn that reaches `os.getenv("PROBE_KEY")` through `calls` nested helper calls."""
    helpers = [f"def _check{i}():\n    return _check{i + 1}()\n" for i in range(calls)]
    helpers.append(f"def _check{calls}():\n    return bool(os.getenv('PROBE_KEY'))\n")
    return (
        "import json\nimport os\nfrom tools.registry import registry\n\n"
        + "\n".join(helpers)
        + "\ndef handle(args, **kwargs):\n    return json.dumps({})\n\n"
        + f'registry.register(name="{tool_name}", toolset="probe", handler=handle, check_fn=_check0,\n'
        + f'                  schema={{"name": "{tool_name}", "description": "Probe.", "parameters": {{"type": "object", "properties": {{}}}}}})\n'
    )


def test_every_analysis_follows_calls_to_the_same_depth(tmp_path):
    from hermes_lint.model.semantic import CALL_DEPTH

    (tmp_path / "tools").mkdir()
    for calls in (CALL_DEPTH, CALL_DEPTH + 1):
        (tmp_path / "tools" / f"depth{calls}_tool.py").write_text(check_chain(calls, f"depth{calls}"), encoding="utf-8")
    # The environment interpreter (HRM203) proves the variable required at the limit, not past it...
    assert findings(tmp_path, "HRM203") == [
        ("HRM203", 6 + 3 * CALL_DEPTH, f"`PROBE_KEY` is required by check_fn `_check0` but not listed in `requires_env` of tool `depth{CALL_DEPTH}`"),
    ]
    # ...and the check_fn form recogniser (the manifest's `check`) states it at the same limit.
    tools = generate_for_root(tmp_path, Config()).data["tools"]
    assert tools[f"depth{CALL_DEPTH}"]["check"] == {"kind": "template", "template": {"env": "PROBE_KEY"},
                                                    "function": "_check0"}
    assert tools[f"depth{CALL_DEPTH + 1}"]["check"]["kind"] == "import"


def test_a_handler_defined_again_inside_a_module_level_match_is_unknown(tmp_path):
    # Which of the two `def handle` runs depends on the match at import time.
    root = project(tmp_path, """
        import sys

        def handle(args, **kwargs):
            return {"city": args.get("city")}

        match sys.platform:
            case "win32":
                def handle(args, **kwargs):
                    return json.dumps({})

        registry.register(name="probe", toolset="probe", schema=SCHEMA, handler=handle, check_fn=lambda: True)
        """)
    assert findings(root, "HRM101") == []
    assert tool(root)["handler"] == "via import"
