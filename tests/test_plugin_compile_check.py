"""A plugin's register module is imported by Hermes's plugin loader as a tool module is imported by
discovery: what the compiler rejects in it (the syntax tree parses, importing it fails) is HRM001,
its tools are not counted as checked, and the manifest leaves it out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REGISTER = (
    "import json\n"
    "\n"
    'SCHEMA = {"name": "notes_add", "description": "Add a note.", "parameters": {"type": "object", "properties": {}}}\n'
    "\n"
    "\n"
    "def add(args, **kwargs):\n"
    '    return json.dumps({"ok": True})\n'
    "\n"
    "\n"
    "def register(ctx):\n"
    '    ctx.register_tool(name="notes_add", toolset="notes", schema=SCHEMA, handler=add, check_fn=lambda: True)\n'
)
PYPROJECT = (
    '[project]\nname = "hermes-notes"\nversion = "1.0"\n\n'
    '[project.entry-points."hermes_agent.plugins"]\nnotes = "notes_plugin"\n'
)


def package(root: Path, register_module: str) -> Path:
    (root / "notes_plugin").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (root / "notes_plugin" / "__init__.py").write_text(register_module, encoding="utf-8")
    return root


def hermes_lint(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hermes_lint", *args], cwd=root, capture_output=True, text=True,
                          timeout=120)


def test_a_plugin_that_compiles_is_checked(tmp_path):
    ran = hermes_lint(package(tmp_path, REGISTER), "check", "--no-cache")
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "All checks passed (1 tool in 1 plugin)\n")


@pytest.mark.parametrize(
    "tail, line, col, message",
    [
        ("\nyield SCHEMA\n", 13, 1, "syntax error: 'yield' outside function"),
        ("\nreturn None\n", 13, 1, "syntax error: 'return' outside function"),
        ("\n\ndef late():\n    nonlocal json\n", 15, 5, "syntax error: no binding for nonlocal 'json' found"),
        ("\nfrom __future__ import annotations\n", 13, 1,
         "syntax error: from __future__ imports must occur at the beginning of the file"),
    ],
)
def test_what_the_compiler_rejects_in_a_register_module_is_hrm001(tmp_path, tail, line, col, message):
    ran = hermes_lint(package(tmp_path, REGISTER + tail), "check", "--no-cache")
    assert (ran.returncode, ran.stdout) == (1, f"notes_plugin/__init__.py:{line}:{col}: HRM001 {message}\n")
    assert ran.stderr == "Found 1 diagnostic in 1 file (0 tools in 1 plugin)\n"


def test_a_directory_plugin_that_does_not_compile_is_hrm001(tmp_path):
    plugin = tmp_path / "plugins" / "notes"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: notes\nversion: '1'\ndescription: d\nprovides_tools: [notes_add]\n",
                                        encoding="utf-8")
    (plugin / "__init__.py").write_text(REGISTER + "\nreturn None\n", encoding="utf-8")
    ran = hermes_lint(tmp_path, "check", "--no-cache")
    assert ran.stdout == "plugins/notes/__init__.py:13:1: HRM001 syntax error: 'return' outside function\n"
    assert ran.returncode == 1


def test_the_manifest_leaves_a_register_module_that_does_not_compile_out(tmp_path):
    root = package(tmp_path, REGISTER + "\nyield SCHEMA\n")
    ran = hermes_lint(root, "manifest")
    assert ran.returncode == 0
    assert ran.stderr == (
        "notes_plugin/__init__.py: left out: HRM001 syntax error: 'yield' outside function "
        "(runtime discovery skips it too)\n"
        "wrote notes_plugin/hermes-tools.json (0 tools: 0 frozen, 0 resolved at import)\n"
    )


def test_the_compile_check_runs_on_the_parse_plugin_discovery_handed_over(tmp_path):
    # Discovery parses the register module to follow ``register``; the check takes that parse over
    # (``ProjectModules.parsed_again``) and must still make the compiler's check, cold and warm.
    root = package(tmp_path, REGISTER + "\nyield SCHEMA\n")
    expected = "notes_plugin/__init__.py:13:1: HRM001 syntax error: 'yield' outside function\n"
    assert hermes_lint(root, "check", "-j", "1").stdout == expected
    assert hermes_lint(root, "check", "-j", "1").stdout == expected  # from the cache
