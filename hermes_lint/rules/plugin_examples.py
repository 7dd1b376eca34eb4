"""How the plugin rules' examples run: each example is a small plugin project written to a
temporary directory and checked as a user would check it (``run_project``), so that the
project's plugin recognition, ``register(ctx)`` following and plugin.yaml reading are all
exercised. ``example_path`` (a rule's) is where the example's ``code`` goes."""

from __future__ import annotations

import inspect
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, List

# An example plugin's register(ctx), for examples about its plugin.yaml.
REGISTER = '''
import json

SCHEMA = {"name": "echo", "description": "Echo the text back.", "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "Text."}}, "required": ["text"]}}

def echo(args, **kwargs):
    return json.dumps({"text": args.get("text", "")})

def register(ctx):
    ctx.register_tool(name="echo", toolset="echo", schema=SCHEMA, handler=echo, check_fn=lambda: True)
'''

# A plugin.yaml that says what REGISTER registers.
MANIFEST = """
name: echo
version: 1.0.0
description: Echo text back.
provides_tools:
  - echo
"""

# A plugin registering one tool: ``PLUGIN.format(name=..., toolset=..., extra=", override=True")``.
PLUGIN = '''
def register(ctx):
    ctx.register_tool(name="{name}", toolset="{toolset}", schema={{}}, handler=lambda a, **k: ""{extra})
'''


def manifest(tool: str) -> str:
    """MANIFEST declaring ``tool`` instead of echo."""
    return MANIFEST.replace("  - echo", f"  - {tool}")


def run_plugin_example(rule: Any, example: Any) -> List[Any]:
    """``rule``'s diagnostics on the example's project."""
    from hermes_lint.check.runner import run_project
    from hermes_lint.config import config_from_table

    config = config_from_table({"select": [rule.code], **example.options})
    with tempfile.TemporaryDirectory(prefix=f"{rule.code.lower()}-example-") as directory:
        root = Path(directory)
        files = {**example.files, rule.example_path: example.code}
        for path, text in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(inspect.cleandoc(text) + "\n", encoding="utf-8")
        found = run_project(root, replace(config, project_root=str(root)))
    return [d for d in found if d.code == rule.code]


class PluginRule:
    """Mixed into a plugin rule: project scope, examples that are plugin projects on disk."""

    scope: ClassVar[str] = "project"
    example_path: ClassVar[str] = "plugin.yaml"

    @classmethod
    def run_example(cls, example: Any) -> List[Any]:
        return run_plugin_example(cls, example)
