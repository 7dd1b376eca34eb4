"""Static reading of toolsets.py: toolsets, their tools and includes at exact locations, the core
tool list, and the problems that stop the reading."""

import pickle
import textwrap

from hermes_lint.model import Location, Unresolved
from hermes_lint.project.toolsets_file import ToolsetDef, read_toolsets

# The shape of a real ~100-tool agent's toolsets.py: helper functions build every entry, some
# toolsets list _HERMES_CORE_TOOLS itself, some filter or slice it.
REALISTIC = textwrap.dedent(
    '''\
    """Toolset definitions."""
    from typing import Any, Dict

    _HERMES_CORE_TOOLS = [
        "web_search", "web_extract",
        "terminal",
        "kanban_show",
        "browser_click",
    ]
    _HA_TOOLS = ["ha_get", "ha_call"]


    def _ts(description, tools=(), includes=(), **extra):
        """One TOOLSETS entry."""
        return {"description": description, "tools": list(tools), "includes": list(includes), **extra}


    def _bundle(description, extras=()):
        return _ts(description, _HERMES_CORE_TOOLS + list(extras))


    def _core_without(*excluded, kanban=True):
        return [t for t in _HERMES_CORE_TOOLS if t not in excluded and (kanban or not t.startswith("kanban_"))]


    TOOLSETS: Dict[str, Dict[str, Any]] = {
        "web": _ts("Web tools", ["web_search", "web_extract"]),
        "browser": _ts("Browser", [t for t in _HERMES_CORE_TOOLS if t.startswith("browser_")]),
        "ha": _ts("Home", _HA_TOOLS[1:]),
        "coding": _ts("Coding", _core_without("terminal", *_HA_TOOLS, kanban=False), posture=True),
        "hermes-cli": _bundle("CLI", ["clarify"]),
        "hermes-yuanbao": {"description": "元宝 工具集", "tools": _HERMES_CORE_TOOLS, "includes": []},
        "gateway": _ts("Everything", [], includes=["hermes-cli", "web"]),
    }


    def create_custom_toolset(name, description):
        TOOLSETS[name] = _ts(description)  # at run time only: TOOLSETS stays a constant
    '''
)

CORE = (
    ("web_search", Location(5, 5)),
    ("web_extract", Location(5, 19)),
    ("terminal", Location(6, 5)),
    ("kanban_show", Location(7, 5)),
    ("browser_click", Location(8, 5)),
)


def test_realistic_toolsets_file_is_read_completely():
    facts = read_toolsets(REALISTIC)
    assert facts.problem is None and facts.parse_error is None
    assert facts.path == "toolsets.py"
    assert facts.core_tools == CORE
    assert facts.toolsets == (
        ToolsetDef("web", Location(27, 5), (("web_search", Location(27, 30)), ("web_extract", Location(27, 44))), (), "Web tools"),
        ToolsetDef("browser", Location(28, 5), (("browser_click", Location(8, 5)),), (), "Browser"),
        ToolsetDef("ha", Location(29, 5), (("ha_call", Location(10, 24)),), (), "Home"),
        ToolsetDef(
            "coding",
            Location(30, 5),
            (("web_search", Location(5, 5)), ("web_extract", Location(5, 19)), ("browser_click", Location(8, 5))),
            (),
            "Coding",
        ),
        ToolsetDef("hermes-cli", Location(31, 5), CORE + (("clarify", Location(31, 35)),), (), "CLI"),
        ToolsetDef("hermes-yuanbao", Location(32, 5), CORE, (), "元宝 工具集"),
        ToolsetDef(
            "gateway", Location(33, 5), (), (("hermes-cli", Location(33, 48)), ("web", Location(33, 62))), "Everything"
        ),
    )


def test_toolset_lookup_by_name():
    facts = read_toolsets(REALISTIC)
    assert facts.toolset("ha").tools == (("ha_call", Location(10, 24)),)
    assert facts.toolset("missing") is None


def test_all_listed_tools_names_each_toolset_and_lists_core_tools_once_more_only_if_unlisted():
    source = textwrap.dedent(
        """\
        _HERMES_CORE_TOOLS = ["a", "b"]
        TOOLSETS = {
            "one": {"tools": ["x", "a"], "includes": []},
            "core": {"tools": _HERMES_CORE_TOOLS[:1]},
        }
        """
    )
    assert read_toolsets(source).all_listed_tools() == (
        ("x", "one", Location(3, 23)),
        ("a", "one", Location(3, 28)),
        ("a", "core", Location(1, 23)),
        ("b", None, Location(1, 28)),
    )


def test_non_ascii_text_before_a_tool_name_counts_in_characters():
    source = 'TOOLSETS = {"météo": {"description": "Prévisions", "tools": ["météo_now", "ß"]}}\n'
    toolset = read_toolsets(source).toolset("météo")
    assert toolset.location == Location(1, 13)
    assert toolset.tools == (("météo_now", Location(1, 62)), ("ß", Location(1, 75)))
    assert toolset.description == "Prévisions"
    assert toolset.includes == ()


def test_bytes_are_decoded_like_tool_modules():
    facts = read_toolsets(REALISTIC.encode("utf-8"), "project/toolsets.py")
    assert facts.path == "project/toolsets.py"
    assert facts.toolset("hermes-yuanbao").description == "元宝 工具集"
    latin1 = '# -*- coding: latin-1 -*-\nTOOLSETS = {"café": {"tools": ["t"]}}\n'.encode("latin-1")
    assert read_toolsets(latin1).toolset("café").tools == (("t", Location(2, 32)),)


def test_missing_toolsets_is_a_problem():
    facts = read_toolsets('_HERMES_CORE_TOOLS = ["a"]\n')
    assert facts.toolsets is None
    assert facts.problem == Unresolved("toolsets.py defines no TOOLSETS", Location(1, 1))
    assert facts.core_tools == (("a", Location(1, 23)),)
    assert facts.all_listed_tools() == ()


def test_toolsets_that_cannot_be_computed_say_why_and_where():
    assert read_toolsets("TOOLSETS = load_toolsets()\n").problem == Unresolved(
        "call to undefined function load_toolsets", Location(1, 12)
    )
    from_file = "import json\nTOOLSETS = json.load(open('toolsets.json'))\n"
    assert read_toolsets(from_file).problem == Unresolved("call to imported function json.load", Location(2, 12))
    mutated = "TOOLSETS = {}\ndef _add():\n    TOOLSETS['web'] = {'tools': []}\n_add()\n"
    assert read_toolsets(mutated).problem == Unresolved("TOOLSETS is mutated at line 4 (by _add())", Location(4, 1))
    built = "TOOLSETS = {}\nTOOLSETS['web'] = {'tools': ['web_search']}\n"  # applied in order: known
    facts = read_toolsets(built)
    assert facts.problem is None
    assert [(t.name, t.location, [name for name, _ in t.tools]) for t in facts.toolsets] == [
        ("web", Location(2, 10), ["web_search"])
    ]
    env = "import os\nTOOLSETS = {'web': {'tools': [os.environ['TOOL']]}}\n"
    assert read_toolsets(env).problem == Unresolved("environment read", Location(2, 31))


def test_the_demo_block_under_a_main_guard_does_not_stop_the_reading():
    # upstream Hermes' toolsets.py ends with a demo that calls create_custom_toolset() and
    # get_all_toolsets(); it never runs on import, so TOOLSETS is what the literal says
    source = textwrap.dedent(
        """\
        _HERMES_CORE_TOOLS = ["web_search", "terminal"]
        TOOLSETS = {"web": {"description": "d", "tools": ["web_search"], "includes": []}}


        def create_custom_toolset(name, description, tools=None, includes=None):
            TOOLSETS[name] = {"description": description, "tools": tools or [], "includes": includes or []}


        def get_all_toolsets():
            result = dict(TOOLSETS)
            result["extra"] = {"tools": []}
            return result


        if __name__ == "__main__":
            create_custom_toolset(name="demo", description="demo", tools=["web_search"])
            _HERMES_CORE_TOOLS.append("demo_tool")
            for name, toolset in get_all_toolsets().items():
                print(name, toolset)
        """
    )
    facts = read_toolsets(source)
    assert facts.problem is None
    assert facts.toolsets == (ToolsetDef("web", Location(2, 13), (("web_search", Location(2, 51)),), (), "d"),)
    assert facts.core_tools == (("web_search", Location(1, 23)), ("terminal", Location(1, 37)))


def test_malformed_toolsets_are_problems():
    cases = {
        "TOOLSETS = ['web']\n": Unresolved("TOOLSETS is a list, not a dict", Location(1, 1)),
        "TOOLSETS = {'web': ['a']}\n": Unresolved("toolset 'web' is a list, not a dict", Location(1, 13)),
        "TOOLSETS = {'web': {'tools': 'a'}}\n": Unresolved("toolset 'web': 'tools' is not a list of strings", Location(1, 21)),
        "TOOLSETS = {'web': {'includes': [1]}}\n": Unresolved(
            "toolset 'web': 'includes' is not a list of strings", Location(1, 21)
        ),
        "TOOLSETS = {1: {}}\n": Unresolved("TOOLSETS has a key that is not a string: 1", Location(1, 13)),
    }
    for source, problem in cases.items():
        facts = read_toolsets(source)
        assert (facts.toolsets, facts.problem) == (None, problem), source


def test_core_tools_are_none_when_absent_or_unreadable_without_blocking_toolsets():
    assert read_toolsets("TOOLSETS = {}\n").core_tools is None
    facts = read_toolsets("import os\n_HERMES_CORE_TOOLS = os.environ['X'].split()\nTOOLSETS = {}\n")
    assert facts.core_tools is None
    assert facts.toolsets == () and facts.problem is None


def test_a_toolset_built_from_computed_names_falls_back_to_the_nearest_location():
    source = 'TOOLSETS = {"web": {"tools": sorted({"b", "a"})}}\n'
    assert read_toolsets(source).toolset("web").tools == (("a", Location(1, 21)), ("b", Location(1, 21)))


def test_syntax_and_decoding_errors_are_reported_not_raised():
    facts = read_toolsets("TOOLSETS = {\n")
    assert (facts.toolsets, facts.problem) == (None, None)
    assert facts.parse_error == (1, 12, "syntax error: '{' was never closed")
    assert read_toolsets(b"TOOLSETS = {}\n\xff\n").parse_error == (2, 1, "file is not valid UTF-8: invalid start byte")
    assert read_toolsets("X = 1\x00\n").parse_error == (1, 6, "file contains a NUL byte")


def test_facts_are_picklable_for_the_parallel_checker():
    facts = read_toolsets(REALISTIC)
    assert pickle.loads(pickle.dumps(facts)) == facts
