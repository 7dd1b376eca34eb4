"""Toolset reachability as the project's runtime computes it (HRM404, HRM406, the manifest)."""

from __future__ import annotations

from hermes_lint.project_config import load_config
from hermes_lint.manifest.generate import generate_for_root
from tests.test_cli import GOOD_TOOL, make_project, run

# `echo` is registered under "demo"; no list names it.
STATIC = '''\
TOOLSETS = {
    "demo": {"description": "Demo tools", "tools": [], "includes": []},
    "all": {"description": "Everything", "tools": ["other"], "includes": ["demo"]},
}
'''
# The same data with Hermes's resolution: registered tools join their defined toolset.
MERGING = STATIC + '''

def get_toolset(name):
    from tools.registry import registry
    toolset = TOOLSETS.get(name)
    if toolset is None:
        return None
    return {**toolset, "tools": sorted(set(toolset["tools"]) | set(registry.get_tool_names_for_toolset(name)))}
'''
# ... and registry-only toolsets offered under their own name.
EXPOSING = MERGING + '''

def get_toolset_names():
    from tools.registry import registry
    return sorted(set(TOOLSETS) | set(registry.get_registered_toolset_names()))
'''


def test_a_tool_merged_into_its_defined_toolset_is_reachable(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=MERGING)
    result = run(["check", "--no-cache", "--select", "HRM404,HRM406"], tmp_path)
    assert (result.stdout, result.exit_code) == ("", 0)


def test_without_the_merge_the_message_says_why_it_is_unreachable(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=STATIC)
    result = run(["check", "--no-cache", "--select", "HRM404,HRM406"], tmp_path)
    assert result.stdout == (
        "tools/echo_tool.py:26:10: HRM404 [*] tool `echo` is registered, but no toolset in toolsets.py lists it, "
        "and toolsets.py does not add registered tools to their toolset 'demo': no agent is offered it\n"
    )


def test_an_undefined_toolset_is_reported_once_unless_the_runtime_offers_it(tmp_path):
    tool = GOOD_TOOL.replace('toolset="demo"', 'toolset="echoes"')
    make_project(tmp_path, {"echo_tool.py": tool}, toolsets=MERGING)
    result = run(["check", "--no-cache", "--select", "HRM404,HRM406"], tmp_path)
    assert result.stdout == (
        "tools/echo_tool.py:27:13: HRM406 tool `echo` is registered under toolset 'echoes', which toolsets.py "
        "does not define\n"
    )
    make_project(tmp_path, {"echo_tool.py": tool}, toolsets=EXPOSING)
    result = run(["check", "--no-cache", "--select", "HRM404,HRM406"], tmp_path)
    assert (result.stdout, result.exit_code) == ("", 0)


def test_the_manifest_resolves_toolsets_as_the_runtime_does(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=MERGING)
    merged = generate_for_root(tmp_path, load_config(tmp_path)).data["toolsets"]
    assert merged == {"demo": ["echo"], "all": ["other", "echo"]}
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=STATIC)
    static = generate_for_root(tmp_path, load_config(tmp_path)).data["toolsets"]
    assert static == {"demo": [], "all": ["other"]}
