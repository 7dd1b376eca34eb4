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
