"""What the plugin rules' examples are made of: each example is a small plugin project, written
to a temporary directory and checked as a user would check it (``hermes_lint.rule_examples``),
so that the project's plugin recognition, ``register(ctx)`` following and plugin.yaml reading
are all exercised. ``example_path`` (a rule's) is where the example's ``code`` goes."""

from __future__ import annotations

from typing import ClassVar, Optional

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


class PluginRule:
    """Mixed into a plugin rule: project scope, examples that are plugin projects on disk."""

    scope: ClassVar[str] = "project"
    example_path: ClassVar[str] = "plugin.yaml"
    examples_run_by: ClassVar[Optional[str]] = "check"

