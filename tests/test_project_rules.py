"""Project rules (HRM401–HRM406) and the check_fn/environment rules (HRM201–HRM203) over
multi-file fixture projects in ``tests/fixtures/projects/<name>/``, through the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_lint.config import Config
from hermes_lint.engine import check_sources, collect_sources
from hermes_lint.model import Diagnostic

PROJECTS = Path(__file__).parent / "fixtures" / "projects"
CODES = ("HRM201", "HRM202", "HRM203", "HRM401", "HRM402", "HRM403", "HRM404", "HRM405", "HRM406")


def lint(name: str, **settings) -> list:
    config = Config(select=CODES, **settings)
    root = PROJECTS / name
    return [(d.path, d.line, d.col, d.code, d.message) for d in check_sources(collect_sources(root, config), config)]


def test_clean_project_has_no_finding():
    # Two tools sharing a check, the seed's weather tool, a check imported from another module,
    # includes, and a toolset listing _HERMES_CORE_TOOLS by name.
    assert lint("clean") == []


def test_conflicting_project_reports_each_problem_once():
    assert lint("conflicts") == [
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
        (
            "tools/b_tool.py", 11, 24, "HRM404",
            "tool `orphan` is registered but no toolset in toolsets.py lists it: no agent is offered it",
        ),
        (
            "tools/b_tool.py", 14, 13, "HRM406",
            "tool `image_generate` is registered under toolset 'images', which toolsets.py does not define",
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
            "tool `unlisted` is registered but no toolset in toolsets.py lists it: no agent is offered it",
        ),
    ]


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
            "tool `search_news` has no `check_fn`: it is offered to the model even where it cannot run",
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
    assert found[0].as_text().startswith("tools/b_tool.py:3:24: HRM401 ")
