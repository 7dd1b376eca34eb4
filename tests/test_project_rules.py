"""Project rules (HRM401–HRM406) and the check_fn/environment rules (HRM201–HRM203) over
multi-file fixture projects in ``tests/fixtures/projects/<name>/``, through the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_lint.project import index as project_index
from hermes_lint.config import Config
from hermes_lint.check.engine import check_sources, collect_sources
from hermes_lint.model import Diagnostic

PROJECTS = Path(__file__).parent / "fixtures" / "projects"
CODES = ("HRM201", "HRM202", "HRM203", "HRM401", "HRM402", "HRM403", "HRM404", "HRM405", "HRM406")


def lint(name: str, **settings) -> list:
    config = Config(select=CODES, **settings)
    root = PROJECTS / name
    return [(d.path, d.line, d.col, d.code, d.message) for d in check_sources(collect_sources(root, config), config)]


def test_clean_project_has_no_finding():
    # Two tools sharing a check, a weather tool as Hermes's guide to adding tools writes it, a check imported from another module,
    # includes, and a toolset listing _HERMES_CORE_TOOLS by name.
    assert lint("clean") == []


def test_conflicting_project_reports_each_problem_once():
    # A duplicate is reported at both registrations, each naming the other (an editor shows one file).
    assert lint("conflicts") == [
        (
            "tools/a_tool.py", 8, 24, "HRM401",
            "tool `search` is also registered in toolset 'browser' at tools/b_tool.py:8: "
            "the registry rejects that registration",
        ),
        (
            "tools/a_tool.py", 9, 24, "HRM402",
            "tool `fetch` is registered again in toolset 'web' at tools/b_tool.py:9, "
            "which silently replaces this registration",
        ),
        (
            "tools/b_tool.py", 8, 24, "HRM401",
            "tool `search` is also registered in toolset 'web' at tools/a_tool.py:8: "
            "the registry rejects this registration",
        ),
        (
            "tools/b_tool.py", 9, 24, "HRM402",
            "tool `fetch` is registered again in toolset 'web' (first at tools/a_tool.py:9): "
            "this registration silently replaces it",
        ),
        # `orphan`'s toolset is not defined: HRM406 says so, HRM404 does not say it again
        # image_generate is registered under 'images' too, but _HERMES_CORE_TOOLS lists it: no HRM406
        (
            "tools/b_tool.py", 11, 42, "HRM406",
            "tool `orphan` is registered under toolset 'images', which toolsets.py does not define",
        ),
        (
            "toolsets.py", 4, 5, "HRM403",
            "tool `delegate_task` is listed in _HERMES_CORE_TOOLS but no tool module registers it",
        ),
        (
            "toolsets.py", 13, 13, "HRM403",
            "tool `clarify` is listed in toolset 'web' but no tool module registers it",
        ),
        (
            "toolsets.py", 29, 13, "HRM405",
            "toolset 'research' includes unknown toolset 'browsr' (did you mean 'browser'?)",
        ),
        ("toolsets.py", 43, 13, "HRM405", "toolset include cycle: loop_a -> loop_b -> loop_a"),
    ]


def test_known_dynamic_tools_are_not_reported_as_unregistered():
    found = lint("conflicts", known_dynamic_tools=("delegate_task", "clarify"))
    assert [f for f in found if f[3] == "HRM403"] == []


def test_unparsable_module_silences_unregistered_listed_tool():
    # write_tool.py cannot be parsed: it may well register write_file, so HRM403 says nothing;
    # HRM404 still speaks about what was read.
    assert lint("unreadable_module") == [
        (
            "tools/read_tool.py", 4, 24, "HRM404",
            "tool `unlisted` is registered, but no toolset in toolsets.py lists it, and toolsets.py does not "
            "add registered tools to their toolset 'file': no agent is offered it",
        ),
    ]


def test_listed_tools_registered_outside_tools_by_plugins_gateway_or_agent_loop_are_not_reported():
    # spotify_* come from plugins/spotify (ctx.register_tool), send_message from gateway/, todo and
    # memory from the agent loop in run_agent.py; image_generate is only in a comment and in
    # tests/ (tests name tools without providing them), web_serach is a typo.
    assert lint("plugin_tools") == [
        (
            "toolsets.py", 4, 59, "HRM403",
            "tool `web_serach` is listed in toolset 'web' but no tool module registers it (did you mean `web_search`?)",
        ),
        (
            "toolsets.py", 7, 51, "HRM403",
            "tool `image_generate` is listed in toolset 'images' but no tool module registers it",
        ),
    ]


def test_a_search_for_listed_names_that_is_cut_short_reports_nothing(monkeypatch):
    monkeypatch.setattr(project_index, "MAX_SEARCHED_FILES", 1)
    assert lint("plugin_tools") == []


def test_names_quoted_elsewhere_skips_what_is_not_the_project_s_own_code(tmp_path):
    files = {
        "plugins/a/__init__.py": "ctx.register_tool(name='found_single')\n",
        "gateway/b.py": 'NAMES = ["found_double"]\n',
        "tools/web_tool.py": '"in_read_module"\n',
        "notes.md": '"in_markdown"\n',
        "plain.py": "# unquoted_name in a comment\n",
        ".hidden/x.py": '"in_hidden"\n',
        "env/pyvenv.cfg": "home = /usr/bin\n",
        "env/lib/x.py": '"in_venv"\n',
        "lib/site-packages/x.py": '"in_site_packages"\n',
        "web/node_modules/x.py": '"in_node_modules"\n',
        "build/x.py": '"in_build"\n',
        "dist/x.py": '"in_dist"\n',
        "pkg/__pycache__/x.py": '"in_pycache"\n',
        "tests/x.py": '"in_tests"\n',
        "test/x.py": '"in_test"\n',
        "pkg/test_x.py": '"in_test_file"\n',
        "pkg/x_test.py": '"in_test_file_2"\n',
        "conftest.py": '"in_conftest"\n',
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    names = {"found_single", "found_double", "unquoted_name", "missing"} | {
        text.strip().strip('"') for text in files.values() if text.startswith('"')
    }
    search = project_index.names_quoted_elsewhere(tmp_path, names, ["tools/web_tool.py"])
    assert search == project_index.NameSearch({"found_single", "found_double"}, True)


def test_names_quoted_elsewhere_stops_once_every_name_is_found_and_is_bounded(tmp_path, monkeypatch):
    for index in range(5):
        (tmp_path / f"m{index}.py").write_text(f'"name{index}"\n')
    monkeypatch.setattr(project_index, "MAX_SEARCHED_FILES", 2)
    assert project_index.names_quoted_elsewhere(tmp_path, {"name0", "name1"}, ()) == (
        project_index.NameSearch({"name0", "name1"}, True)
    )
    assert project_index.names_quoted_elsewhere(tmp_path, {"name0", "name4"}, ()) == (
        project_index.NameSearch({"name0"}, False)
    )


def test_undiscovered_register_call_silences_unregistered_listed_tool():
    # compose_tool.py only registers inside an `if` (HRM002): the name it registers is unknown.
    assert lint("undiscovered_registration") == []


def test_conditional_register_call_in_a_discovered_module_silences_unregistered_listed_tool():
    assert lint("conditional_registration") == []


def test_toolsets_that_cannot_be_read_silence_the_toolset_rules():
    # TOOLSETS is loaded from JSON at run time: HRM003 reports that; HRM403-HRM406 stay silent.
    assert lint("dynamic_toolsets") == []


def test_without_toolsets_file_only_registration_conflicts_are_reported():
    assert lint("no_toolsets") == [
        (
            "tools/a_tool.py", 3, 24, "HRM401",
            "tool `patch` is also registered in toolset 'edit' at tools/b_tool.py:3: "
            "the registry rejects that registration",
        ),
        (
            "tools/b_tool.py", 3, 24, "HRM401",
            "tool `patch` is also registered in toolset 'file' at tools/a_tool.py:3: "
            "the registry rejects this registration",
        ),
    ]


def test_environment_findings_across_modules():
    assert lint("environment") == [
        (
            "tools/news_tool.py", 13, 58, "HRM203",
            "handler of tool `news` needs `NEWS_REGION` (`os.environ[...]` raises KeyError when it is "
            "unset) but `requires_env` does not list it",
        ),
        (
            "tools/search_tool.py", 10, 17, "HRM203",
            "`SEARCH_KEY` is required by check_fn `check_search` but not listed in `requires_env` of "
            "tool `search_images`",
        ),
        (
            "tools/search_tool.py", 23, 33, "HRM203",
            "`SEARCH_SECRET` is listed in `requires_env` of tool `search` but never checked: nothing in "
            "this module reads it",
        ),
        (
            "tools/search_tool.py", 34, 1, "HRM201",
            "tool `search_news` has no `check_fn`: it is offered to the model even where it cannot run; "
            "if it needs nothing, say so with a named check that returns True "
            "(`def check_search_requirements(): return True`) or the project's shared one",
        ),
    ]


@pytest.mark.parametrize("code", ["HRM401", "HRM402", "HRM403", "HRM404", "HRM405", "HRM406"])
def test_project_rules_honour_noqa_and_selection(code):
    # Each project rule is selectable alone and finds exactly its own diagnostics.
    config = Config(select=(code,))
    root = PROJECTS / "conflicts"
    alone = [d for d in check_sources(collect_sources(root, config), config)]
    together = [d for d in lint("conflicts") if d[3] == code]
    assert [(d.path, d.line, d.col, d.code, d.message) for d in alone] == together


def test_findings_are_plain_diagnostics():
    config = Config(select=("HRM401",))
    found = check_sources(collect_sources(PROJECTS / "no_toolsets", config), config)
    assert all(isinstance(d, Diagnostic) for d in found)
    assert found[1].as_text().startswith("tools/b_tool.py:3:24: HRM401 ")
