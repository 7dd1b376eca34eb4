"""Handler rules through the command line on dispatch and schema shapes real tools use: an
if/elif dispatch over a set of actions (HRM101), and a ``dynamic_schema_overrides`` that keeps
the static properties (HRM107/HRM108)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def check(root: Path, tool: str, select: str) -> list:
    (root / "toolsets.py").write_text(
        'TOOLSETS = {"demo": {"description": "d", "tools": ["process", "delegate"], "includes": []}}\n'
    )
    (root / "tools").mkdir(exist_ok=True)
    (root / "tools" / "demo_tool.py").write_text(textwrap.dedent(tool).lstrip())
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", "-q", "--select", select],
        cwd=root, capture_output=True, text=True,
    )
    assert completed.stderr == ""
    return completed.stdout.splitlines()


PROCESS_TOOL = """
    import json
    from tools.registry import registry, tool_error

    VALID = {"list", "poll", "log", "kill"}

    def _process(args, **kw):
        action = args.get("action")
        if action == "list":
            return json.dumps({"processes": []})
        elif action in VALID - {"list"}:
            if action == "poll":
                return json.dumps({"running": True})
            elif action == "log":
                return json.dumps({"log": ""})
            elif action == "kill":
                return json.dumps({"killed": True})
        else:
            return tool_error("unknown action")

    registry.register(name="process", toolset="demo", schema={}, handler=_process)
"""


def test_a_dispatch_over_every_member_of_a_set_difference_cannot_fall_off(tmp_path):
    assert check(tmp_path, PROCESS_TOOL, "HRM101") == []


def test_a_member_without_a_branch_can_fall_off(tmp_path):
    tool = PROCESS_TOOL.replace('VALID = {"list", "poll", "log", "kill"}', 'VALID = {"list", "poll", "log", "kill", "wait"}')
    assert check(tmp_path, tool, "HRM101") == [
        "tools/demo_tool.py:6:1: HRM101 handler `_process` can return None (falls off the end at line 18)"
    ]


def test_a_set_the_evaluator_cannot_read_is_no_proof(tmp_path):
    tool = PROCESS_TOOL.replace('VALID = {"list", "poll", "log", "kill"}', "from tools.actions import VALID")
    assert check(tmp_path, tool, "HRM101") == [
        "tools/demo_tool.py:6:1: HRM101 handler `_process` can return None (falls off the end at line 18)"
    ]


DELEGATE_TOOL = """
    from tools.registry import registry

    SCHEMA = {"name": "delegate", "description": "Delegate a task.", "parameters": {
        "type": "object", "properties": {
            "goal": {"type": "string", "description": "What to do."},
            "role": {"type": "string", "description": "Who does it."},
            "background": {"type": "boolean", "description": "Ignored."},
        }}}

    def _overrides():
        params = {**SCHEMA["parameters"]}
        params["properties"] = {k: dict(v) for k, v in SCHEMA["parameters"]["properties"].items()}
        params["properties"]["role"]["description"] = describe_roles()
        DROP
        return {"description": describe(), "parameters": params}

    def _run(goal, role=None, steps=None):
        return str([goal, role, steps])

    registry.register(name="delegate", toolset="demo", schema=SCHEMA,
                      handler=lambda args, **kw: _run(args.get("goal"), role=args.get("role"),
                                                      steps=args.get("max_steps")),
                      dynamic_schema_overrides=_overrides)
"""


def test_overrides_that_keep_the_static_properties_leave_hrm107_and_hrm108_on(tmp_path):
    assert check(tmp_path, DELEGATE_TOOL.replace("DROP", "pass"), "HRM107,HRM108") == [
        "tools/demo_tool.py:7:9: HRM108 schema property `background` of tool `delegate` is never read by handler lambda",
        "tools/demo_tool.py:22:57: HRM107 handler lambda reads argument `max_steps`, which the schema of tool "
        "`delegate` does not declare",
    ]


def test_a_property_some_path_drops_need_not_be_read(tmp_path):
    tool = DELEGATE_TOOL.replace("DROP", 'if legacy():\n            params["properties"].pop("background", None)')
    assert check(tmp_path, tool, "HRM107,HRM108") == [
        "tools/demo_tool.py:23:57: HRM107 handler lambda reads argument `max_steps`, which the schema of tool "
        "`delegate` does not declare",
    ]


def test_overrides_that_hand_the_properties_to_a_helper_silence_both(tmp_path):
    tool = DELEGATE_TOOL.replace("DROP", 'add_experimental(params["properties"])')
    assert check(tmp_path, tool, "HRM107,HRM108") == []


SHARED_DISPATCH = """
    from tools.registry import registry

    def _dispatch(action, args):
        if action == "process":
            return str(args.get("command") or args.get("cmd"))
        return str(args.get("goal")) + str(args.get("contxt"))

    registry.register(name="process", toolset="demo", handler=lambda args, **kw: _dispatch("process", args),
        schema={"name": "process", "parameters": {"type": "object", "properties": {"command": {}}}})
    registry.register(name="delegate", toolset="demo", handler=lambda args, **kw: _dispatch("delegate", args) + args["gaol"],
        schema={"name": "delegate", "parameters": {"type": "object", "properties": {"goal": {}, "context": {}}}})
"""


def test_a_read_in_code_two_tools_share_names_both_and_one_in_a_tools_own_lambda_names_that_tool(tmp_path):
    assert check(tmp_path, SHARED_DISPATCH, "HRM107") == [
        "tools/demo_tool.py:6:40: HRM107 `_dispatch` (given `args` by handler lambda) reads argument `contxt`, which "
        "the schemas of tools `process` and `delegate` do not declare (did you mean `context`?)",
        "tools/demo_tool.py:10:109: HRM107 handler lambda reads argument `gaol`, which the schema of tool `delegate` "
        "does not declare (did you mean `goal`?)",
    ]
