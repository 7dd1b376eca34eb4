"""Tools a package registers through one helper, called from each tool module with a function
its decorator factory wrapped (``register_with_ctx(ctx, hoist)`` after ``@write_tool(...)``),
through the real CLI: each call site is one reading, the decorators are evaluated where the
tool module defines the function, and findings about a tool's name and schema point into that
module. What keeps it honest: a decorator that cannot be evaluated, a value read from the set
the decorator factory fills, a function no decorator marked."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.project_files import rewrite
from tests.test_plugin_projects import check, layout

GAUGE = (
    "winch_plugin/tools/gauge.py:6:17: HRM308 tool name 'winch.gauge' contains '.': providers require "
    "^[a-zA-Z0-9_-]{1,64}$\n"
    "winch_plugin/tools/gauge.py:6:56: HRM304 schema has no `parameters`: expected {\"type\": \"object\", "
    "\"properties\": {...}} (empty properties for no arguments)\n"
    "winch_plugin/tools/gauge.py:6:56: HRM306 tool `winch.gauge` has no description (in the schema or "
    "register(description=...))\n"
)
HOIST = "winch_plugin/tools/hoist.py:8:53: HRM306 parameter `weight` has no description (tool `winch_hoist`)\n"
LOWER = "winch_plugin/tools/lower.py:12:57: HRM306 parameter `depth` has no description (tool `winch_lower`)\n"


def test_each_decorated_tool_is_read_and_located_in_its_own_module(tmp_path):
    root = layout(tmp_path, "decorated_tools")
    # the name and schema root of gauge at its @read_tool arguments, hoist's property in its
    # module constant, lower's in the schema written inside its decorator; nothing at the one
    # register_tool call in registry.py that all three share
    assert check(root) == (1, GAUGE + HOIST + LOWER, "Found 5 diagnostics in 3 files (3 tools in 1 plugin)\n")


def test_the_manifest_freezes_each_decorated_tool_with_its_wrapper_as_handler(tmp_path):
    root = layout(tmp_path, "decorated_tools")
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest", "--output", "manifest.json"],
                               cwd=root, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    tools = json.loads((root / "manifest.json").read_text(encoding="utf-8"))["tools"]
    assert sorted(tools) == ["winch.gauge", "winch_hoist", "winch_lower"]
    hoist = tools["winch_hoist"]
    # the wrapper (`write_tool.<locals>.decorator.<locals>.guarded`) is a closure: made at import
    assert (hoist["module"], hoist["handler"], hoist["toolset"]) == ("winch_plugin.tools.registry", "via import", "winch")
    assert hoist["schema"]["parameters"]["required"] == ["weight"]


def test_a_decorator_that_cannot_be_evaluated_leaves_that_tool_unknown(tmp_path):
    root = layout(tmp_path, "decorated_tools")
    rewrite(root / "winch_plugin/tools/hoist.py", "from winch_plugin", "from winch_audit import audited\n\nfrom winch_plugin")
    rewrite(root / "winch_plugin/tools/hoist.py", '@write_tool(name="winch_hoist"', '@audited\n@write_tool(name="winch_hoist"')
    why = "hoist is decorated, and its decorators cannot be evaluated: imported name audited (winch_audit.audited)"
    # located at `register_with_ctx(ctx, hoist)`, the call that hands it over
    assert check(root) == (
        1,
        GAUGE
        + f"winch_plugin/tools/hoist.py:21:5: HRM003 tool name cannot be determined statically ({why}); the manifest "
        "will import this module\n"
        f"winch_plugin/tools/hoist.py:21:5: HRM003 toolset cannot be determined statically ({why}); the manifest "
        "will import this module\n"
        f"winch_plugin/tools/hoist.py:21:5: HRM301 schema cannot be evaluated statically: {why}\n"
        + LOWER,
        "Found 7 diagnostics in 3 files (3 tools in 1 plugin)\n",
    )


def test_a_value_read_from_the_set_the_decorators_fill_is_unknown(tmp_path):
    root = layout(tmp_path, "decorated_tools")
    (root / "winch_plugin/tools/ledger.py").write_text(
        "import json\n\n"
        "from winch_plugin.tools.registry import WRITE_NAMES, read_tool, register_with_ctx\n\n\n"
        "@read_tool(\n"
        '    name="winch_ledger",\n'
        '    toolset="winch",\n'
        "    schema={\n"
        '        "name": "winch_ledger",\n'
        '        "description": "What the write tools did: " + ", ".join(sorted(WRITE_NAMES)),\n'
        '        "parameters": {"type": "object", "properties": {}},\n'
        "    },\n"
        ")\n"
        "def ledger(args, **kwargs):\n"
        '    return json.dumps({"entries": []})\n\n\n'
        "def register(ctx):\n"
        "    register_with_ctx(ctx, ledger)\n",
        encoding="utf-8",
    )
    rewrite(root / "winch_plugin/tools/__init__.py", "gauge, hoist, lower", "gauge, hoist, ledger, lower")
    rewrite(root / "winch_plugin/tools/__init__.py", "(hoist, lower, gauge)", "(hoist, lower, gauge, ledger)")
    # by the time ledger.py is imported, write_tool has added hoist's and lower's names: what
    # WRITE_NAMES holds depends on the order of the imports, and is never read statically
    why = ("ledger is decorated, and its decorators cannot be evaluated: WRITE_NAMES of module "
           "winch_plugin.tools.registry is changed in place by function write_tool (line 15), maybe at another "
           "module's import: what it holds depends on the code that ran before (in module winch_plugin.tools.registry)")
    assert check(root) == (
        1,
        GAUGE + HOIST
        + f"winch_plugin/tools/ledger.py:20:5: HRM003 tool name cannot be determined statically ({why}); the manifest "
        "will import this module\n"
        f"winch_plugin/tools/ledger.py:20:5: HRM003 toolset cannot be determined statically ({why}); the manifest "
        "will import this module\n"
        + LOWER,
        "Found 7 diagnostics in 4 files (4 tools in 1 plugin)\n",
    )


def test_a_function_no_decorator_marked_registers_nothing(tmp_path):
    root = layout(tmp_path, "decorated_tools")
    lower = root / "winch_plugin/tools/lower.py"
    text = lower.read_text(encoding="utf-8")
    lower.write_text(text[:text.index("@write_tool(")] + text[text.index("def lower("):], encoding="utf-8")
    # getattr(lower, "_winch", None) is None: register_with_ctx raises before register_tool
    assert check(root) == (1, GAUGE + HOIST, "Found 4 diagnostics in 2 files (2 tools in 1 plugin)\n")


def test_a_change_of_the_set_that_may_fail_leaves_the_write_tools_unknown(tmp_path):
    root = layout(tmp_path, "decorated_tools")
    # `set.remove` raises for a name not in the set: the evaluator cannot drop it
    rewrite(root / "winch_plugin/tools/registry.py", "WRITE_NAMES.add(name)", "WRITE_NAMES.remove(name)")
    code, out, err = check(root)
    assert (code, err) == (1, "Found 9 diagnostics in 3 files (3 tools in 1 plugin)\n")
    assert out.count("WRITE_NAMES of module winch_plugin.tools.registry is changed in place by function write_tool "
                     "(line 15)") == 6  # name and toolset of hoist and lower, and their schemas
    assert HOIST not in out and LOWER not in out and out.startswith(GAUGE)


def test_the_handler_rules_read_the_wrapper_where_the_decorator_factory_defines_it(tmp_path):
    root = layout(tmp_path, "decorated_tools")
    # `plain` (read_tool's wrapper, gauge's handler) returns a dict; `functools.wraps` keeps it
    # the very function its def makes, so its body is the handler's
    rewrite(root / "winch_plugin/tools/registry.py", "            return fn(args, **kwargs)\n\n        plain",
            '            return {"result": fn(args, **kwargs)}\n\n        plain')
    code, out, err = check(root)
    assert (code, out) == (
        1, GAUGE + HOIST + LOWER + "winch_plugin/tools/registry.py:35:13: HRM101 handler `plain` can return a dict, "
        "not a JSON string\n")
    assert err.startswith("Found 6 diagnostics in 4 files (3 tools in 1 plugin)\n")
