"""What a check of a plugin project does beyond what a ``tools/`` tree's does, through the real
CLI in a fresh interpreter: every module ``register`` goes through is parsed once (discovery's
parse is the check's), and the libraries that only some plugins need (``packaging`` for
``python_dependencies``, ``importlib.metadata`` for an installed Hermes) are imported only when
they are needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from hermes_lint.evaluate.project import ProjectModules
from hermes_lint.extract.builtin_tools import _may_hold_distribution
from tests.project_files import write

# Runs `hermes-lint ARGS...` in this interpreter, counting the parses of each file, then prints
# the counts and which of the watched modules were imported, as one JSON line on stderr.
RUN_COUNTING = """
import collections, json, sys
import hermes_lint.model.parsing as parsing
parses = collections.Counter()
real_parse = parsing.parse_module
def counting_parse(path, data):
    parses[path] += 1
    return real_parse(path, data)
parsing.parse_module = counting_parse
from hermes_lint.cli import main
try:
    main(sys.argv[1:], prog_name="hermes-lint")
except SystemExit as exit:
    status = exit.code
watched = ("packaging", "importlib.metadata")
print(json.dumps({"status": status, "parses": parses, "imported": [m for m in watched if m in sys.modules]}),
      file=sys.stderr)
"""

TOOL = """\
SCHEMA = {{
    "name": "{name}",
    "description": "Echo the text back.",
    "parameters": {{"type": "object", "properties": {{"text": {{"type": "string", "description": "The text."}}}}}},
}}


def _handle(args, **kwargs):
    return str(args.get("text", ""))


def register_tools(ctx):
    ctx.register_tool(name="{name}", toolset="echo", schema=SCHEMA, handler=_handle, check_fn=lambda: True)
"""

PACKAGE = {
    "pyproject.toml": '[project]\nname = "echo-plugin"\nversion = "1.0"\n\n'
    '[project.entry-points."hermes_agent.plugins"]\necho = "echo_plugin.plugin"\n',
    "echo_plugin/__init__.py": "",
    "echo_plugin/plugin.py": "from . import echo_tools, shout_tools\n\n\ndef register(ctx):\n"
    "    echo_tools.register_tools(ctx)\n    shout_tools.register_tools(ctx)\n",
    "echo_plugin/echo_tools.py": TOOL.format(name="echo"),
    "echo_plugin/shout_tools.py": TOOL.format(name="shout"),
}


def run_counting(cwd: Path, *args: str, path: Path = None):
    """(stdout lines, summary line, parses per file, watched modules imported) of a check."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    if path is not None:
        environ["PYTHONPATH"] = str(path)
    completed = subprocess.run([sys.executable, "-c", RUN_COUNTING, *args], cwd=cwd, capture_output=True,
                               text=True, env=environ, timeout=120)
    *summary, report = completed.stderr.splitlines()
    found = json.loads(report)
    return completed.stdout.splitlines(), summary, found["parses"], found["imported"], found["status"]


def hermes_installed_here() -> bool:
    from importlib import metadata

    return any(True for _ in metadata.distributions(name="hermes-agent"))


def test_each_module_register_goes_through_is_parsed_once(tmp_path):
    root = write(tmp_path, PACKAGE)
    lines, summary, parses, _, status = run_counting(root, "check", "--no-cache", "-j", "1")
    assert (status, lines, summary) == (0, [], ["All checks passed (2 tools in 1 plugin)"])
    assert parses == {"echo_plugin/plugin.py": 1, "echo_plugin/echo_tools.py": 1, "echo_plugin/shout_tools.py": 1}


def test_a_finding_in_a_followed_module_is_the_same_from_its_one_parse(tmp_path):
    root = write(tmp_path, PACKAGE)
    (root / "echo_plugin/shout_tools.py").write_text(TOOL.format(name="shout").replace('"description": "The text."', '"description": ""'))
    lines, _, parses, _, status = run_counting(root, "check", "--no-cache", "-j", "1", "--select", "HRM306")
    assert (status, lines) == (1, ["echo_plugin/shout_tools.py:4:80: HRM306 parameter `text` has an empty description"])
    assert parses["echo_plugin/shout_tools.py"] == 1


def test_packaging_is_imported_only_for_a_plugin_yaml_that_lists_python_dependencies(tmp_path):
    manifest = "name: echo\nversion: 1.0.0\ndescription: Echo text back.\nprovides_tools: [echo, shout]\n"
    root = write(tmp_path, {**PACKAGE, "echo_plugin/plugin.yaml": manifest})
    lines, _, _, imported, status = run_counting(root, "check", "--no-cache")
    assert (status, lines, "packaging" in imported) == (0, [], False)
    (root / "echo_plugin/plugin.yaml").write_text(manifest + "python_dependencies: []\n")
    assert "packaging" not in run_counting(root, "check", "--no-cache")[3]
    (root / "echo_plugin/plugin.yaml").write_text(manifest + "python_dependencies:\n  - httpx>=0.27\n")
    lines, _, _, imported, status = run_counting(root, "check", "--no-cache", "--select", "HRM807")
    assert (status, lines) == (1, [
        "echo_plugin/plugin.yaml:6:5: HRM807 python dependency `httpx>=0.27` has no upper bound: it accepts every "
        "future major release of httpx",
    ])
    assert "packaging" in imported


def test_importlib_metadata_is_imported_only_where_a_hermes_agent_may_be_installed(tmp_path):
    if hermes_installed_here():
        pytest.skip("a hermes-agent is installed in the environment running the tests")
    root = write(tmp_path / "project", PACKAGE)
    assert run_counting(root, "check", "--no-cache")[3] == []
    site = write(tmp_path / "site-packages", {"hermes_agent-9.9.9.dist-info/METADATA": "Name: hermes-agent\n"})
    assert run_counting(root, "check", "--no-cache", path=site)[3] == ["importlib.metadata"]


@pytest.mark.parametrize("entry", [
    "hermes_agent-0.19.0.dist-info", "Hermes_Agent-0.19.0.dist-info", "hermes.agent-1.dist-info",
    "hermes-agent-1.dist-info", "hermes__agent.egg-info", "hermes_agent.egg-info",
    "hermes_agent_tools-1.0.dist-info", "hermesagent-1.dist-info", "hermes_agent-1.0.dist-infos",
    "hermes_agent-1.0", "other-1.0.dist-info",
])
def test_the_installed_hermes_prefilter_agrees_with_importlib_metadata(tmp_path, entry):
    from importlib import metadata

    site = write(tmp_path, {f"{entry}/METADATA": "Metadata-Version: 2.1\nName: hermes-agent\nVersion: 1\n"})
    found = any(True for _ in metadata.distributions(name="hermes-agent", path=[str(site)]))
    assert _may_hold_distribution([str(site)]) is found


def test_a_path_entry_that_is_no_directory_is_left_to_importlib_metadata(tmp_path):
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("other-1.0.dist-info/METADATA", "Name: other\n")
    assert _may_hold_distribution([str(archive)]) is True
    assert _may_hold_distribution([str(tmp_path / "missing")]) is False
    assert _may_hold_distribution([str(tmp_path / "Hermes_Agent-1.egg")]) is True


def test_a_parse_is_handed_over_once_and_only_for_the_same_bytes(tmp_path):
    root = write(tmp_path, {"pkg/tools.py": "NAME = 'echo'\n"})
    modules = ProjectModules(str(root))
    tree = modules.parsed("pkg/tools.py")[2]
    assert modules.parsed_again("pkg/tools.py", b"NAME = 'shout'\n") is None  # other bytes: kept
    assert modules.parsed("pkg/tools.py")[2] is tree
    given = modules.parsed_again("pkg/tools.py", b"NAME = 'echo'\n")
    assert (given.path, given.text, given.tree, given.error) == ("pkg/tools.py", "NAME = 'echo'\n", tree, None)
    assert modules.parsed_again("pkg/tools.py", b"NAME = 'echo'\n") is None  # forgotten once handed over
    again = modules.parsed("pkg/tools.py")  # read again
    assert again[2] is not tree and again[1] == given.sha256


def test_an_editor_buffer_is_never_handed_over(tmp_path):
    modules = ProjectModules(str(tmp_path), files={"pkg/tools.py": b"NAME = 'echo'\n"})
    assert modules.parsed("pkg/tools.py") is not None
    assert modules.parsed_again("pkg/tools.py", b"NAME = 'echo'\n") is None


# Checks the plugin in this interpreter and compares the tree each module's rules run over,
# after its registrations were read, with a fresh parse of the same bytes.
RUN_COMPARING_TREES = """
import ast, json, sys
from hermes_lint.check import engine
from hermes_lint.cli import main
from hermes_lint.model.parsing import parse_module
as_parsed = {}
real_module_result = engine.module_result
def comparing(parsed, facts, ctx, config):
    fresh = parse_module(parsed.path, parsed.data)
    as_parsed[parsed.path] = ast.dump(parsed.tree, include_attributes=True) == ast.dump(fresh.tree, include_attributes=True)
    return real_module_result(parsed, facts, ctx, config)
engine.module_result = comparing
try:
    main(sys.argv[1:], prog_name="hermes-lint")
except SystemExit:
    pass
print(json.dumps(as_parsed), file=sys.stderr)
"""

COMPUTED_IN_REGISTER = """\
def _make_handler():
    return lambda args, **kwargs: "{}"


def register(ctx):
    handler = limit = None
    if ctx:
        handler, limit = _make_handler(), ctx.config.get("limit", 5)
    ctx.register_tool(
        name="echo",
        toolset="echo",
        schema={"name": "echo", "description": f"Echo up to {limit} texts.", "parameters": {"type": "object", "properties": {}}},
        handler=handler,
        check_fn=lambda: True,
    )
"""


def test_reading_register_leaves_the_tree_the_rules_run_over_as_parsed(tmp_path):
    # The reading gives a handler and a description computed in register a name of their own,
    # in its own copy of the call: the rules see the module as it is written.
    root = write(tmp_path, {**PACKAGE, "echo_plugin/plugin.py": COMPUTED_IN_REGISTER})
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    completed = subprocess.run([sys.executable, "-c", RUN_COMPARING_TREES, "check", "--no-cache"], cwd=root,
                               capture_output=True, text=True, env=environ, timeout=120)
    as_parsed = json.loads(completed.stderr.splitlines()[-1])
    assert as_parsed == {"echo_plugin/plugin.py": True}, completed.stderr
