"""HRM203 through the command line, over projects whose modules decide together: a variable the
project sets itself, a reader of another module with branches, a handler that fails without a
variable, and a check that only tests a file."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOOLSETS = 'TOOLSETS = {"demo": {"description": "d", "tools": ["crew_post", "lights", "issues", "jira"], "includes": []}}\n'


def check(root: Path, files: dict, select: str = "HRM203") -> list:
    (root / "toolsets.py").write_text(TOOLSETS)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip())
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", "-q", "--select", select],
        cwd=root, capture_output=True, text=True,
    )
    assert completed.stderr == ""
    return completed.stdout.splitlines()


CREW_TOOL = """
    import os
    from tools.registry import registry
    from tools.crew import CREW_ENV

    registry.register(name="crew_post", toolset="demo", schema={}, handler=lambda a, **k: "",
                      check_fn=lambda: bool(os.environ.get(CREW_ENV, "").strip()))
"""


def test_a_variable_the_project_passes_to_its_own_processes_is_not_required(tmp_path):
    crew = """
        import os, subprocess
        CREW_ENV = "CREW_MEMBER_ID"

        def start(member_id, argv):
            return subprocess.Popen(argv, env={**os.environ, CREW_ENV: member_id})
    """
    assert check(tmp_path, {"tools/crew_tool.py": CREW_TOOL, "tools/crew.py": crew}) == []


def test_a_variable_the_project_only_reads_is_still_required(tmp_path):
    crew = """
        import os
        CREW_ENV = "CREW_MEMBER_ID"
        os.environ["CREW_ROLE"] = "member"
    """
    assert check(tmp_path, {"tools/crew_tool.py": CREW_TOOL, "tools/crew.py": crew}) == [
        "tools/crew_tool.py:6:41: HRM203 `CREW_MEMBER_ID` is required by the check_fn but not listed "
        "in `requires_env` of tool `crew_post`"
    ]


def test_os_environ_assignment_in_the_project_silences_it_too(tmp_path):
    crew = """
        import os
        CREW_ENV = "CREW_MEMBER_ID"

        def become_member(member_id):
            os.environ[CREW_ENV] = member_id
    """
    assert check(tmp_path, {"tools/crew_tool.py": CREW_TOOL, "tools/crew.py": crew}) == []


READER_TOOL = """
    from tools.registry import registry
    from agent.scoped import scoped_secret

    registry.register(name="lights", toolset="demo", schema={}, handler=lambda a, **k: "",
                      check_fn=lambda: scoped_secret("HOME_TOKEN") is not None)
"""


def test_a_reader_with_branches_in_another_module_makes_the_check_require_its_variable(tmp_path):
    reader = """
        import os

        def scoped_secret(name, fallback=None):
            if os.getenv("HOME_PROFILE"):
                return os.environ.get(name) or fallback
            return os.getenv(name, fallback)
    """
    assert check(tmp_path, {"tools/lights_tool.py": READER_TOOL, "agent/scoped.py": reader}) == [
        "tools/lights_tool.py:5:36: HRM203 `HOME_TOKEN` is required by the check_fn but not listed "
        "in `requires_env` of tool `lights`"
    ]


def test_a_branch_returning_something_else_is_no_reader(tmp_path):
    reader = """
        import os

        def scoped_secret(name, fallback=None):
            if os.getenv("HOME_PROFILE"):
                return False
            return os.getenv(name, fallback)
    """
    assert check(tmp_path, {"tools/lights_tool.py": READER_TOOL, "agent/scoped.py": reader}) == []


OWN_READER_TOOL = """
    import os
    from tools.registry import registry

    READER

    registry.register(name="lights", toolset="demo", schema={}, handler=lambda a, **k: "",
                      check_fn=lambda: _secret("HOME_TOKEN") is not None)
"""


@pytest.mark.parametrize(
    ("reader", "line"),
    [
        ("def _secret(name): return os.getenv(name)", 7),  # the read on the def line, which is the last
        ("def _secret(name):\n        return os.getenv(name)", 8),  # the read on the function's last line
        ("def _secret(name):\n        return os.getenv(\n            name,\n        )", 10),  # it starts before
    ],
)
def test_a_reader_of_the_tool_module_itself_makes_the_check_require_its_variable(tmp_path, reader, line):
    files = {"tools/lights_tool.py": OWN_READER_TOOL.replace("READER", reader)}
    assert check(tmp_path, files) == [
        f"tools/lights_tool.py:{line}:36: HRM203 `HOME_TOKEN` is required by the check_fn but not listed "
        "in `requires_env` of tool `lights`"
    ]


@pytest.mark.parametrize(
    "reader",
    [
        "def _secret(prefix, name): return os.getenv(name)",  # reads its second parameter
        "def _secret(name):\n        def inner():\n            return os.getenv(name)\n        return inner()",
    ],
)
def test_a_function_reading_another_parameter_or_later_is_no_reader(tmp_path, reader):
    files = {"tools/lights_tool.py": OWN_READER_TOOL.replace("READER", reader)}
    assert check(tmp_path, files) == []


HANDLER_TOOL = """
    import json, os
    from tools.registry import registry, tool_error

    def _issues(args, **kw):
        token = os.getenv("TRACKER_TOKEN")
        if not token:
            return tool_error("set TRACKER_TOKEN")
        with open(args.get("path", "issues.txt")) as handle:
            return json.dumps({"issues": handle.read()})

    registry.register(name="issues", toolset="demo", schema={}, handler=_issues, check_fn=CHECK)
"""


def test_a_handler_that_fails_without_its_variable_needs_it(tmp_path):
    files = {"tools/issues_tool.py": HANDLER_TOOL.replace("CHECK", "lambda: True")}
    assert check(tmp_path, files) == [
        "tools/issues_tool.py:5:13: HRM203 handler of tool `issues` needs `TRACKER_TOKEN` (it returns an "
        "error on every path where it is unset) but `requires_env` does not list it and the check_fn "
        "does not test it"
    ]


def test_a_check_that_tests_the_variable_takes_the_finding(tmp_path):
    files = {"tools/issues_tool.py": HANDLER_TOOL.replace("CHECK", 'lambda: bool(os.getenv("TRACKER_TOKEN"))')}
    assert check(tmp_path, files) == [
        "tools/issues_tool.py:11:100: HRM203 `TRACKER_TOKEN` is required by the check_fn but not listed "
        "in `requires_env` of tool `issues`"
    ]


JIRA_TOOL = """
    import subprocess
    from pathlib import Path
    from tools.registry import registry

    CREDENTIALS = Path.home() / ".jira" / "credentials.json"

    def check_jira():
        return CHECK

    registry.register(name="jira", toolset="demo", schema={}, handler=lambda a, **k: "",
                      check_fn=check_jira, requires_env=["JIRA_TOKEN"])
"""


def test_a_listed_variable_that_a_pathlib_check_cannot_read_is_never_checked(tmp_path):
    files = {"tools/jira_tool.py": JIRA_TOOL.replace("CHECK", "CREDENTIALS.exists()")}
    assert check(tmp_path, files) == [
        "tools/jira_tool.py:11:54: HRM203 `JIRA_TOKEN` is listed in `requires_env` of tool `jira` but "
        "never checked: nothing in this module reads it"
    ]


def test_a_check_that_starts_a_process_may_test_any_variable(tmp_path):
    files = {"tools/jira_tool.py": JIRA_TOOL.replace("CHECK", 'subprocess.run(["jira", "me"]).returncode == 0')}
    assert check(tmp_path, files) == []


def repeated_helper_check(calls: int) -> str:
    """A check that calls the same helper ``calls`` times (the same argument each time), then
    tests its variable: the helper's steps count towards the interpreter's budget every time."""
    work = "\n".join(f"    x{n} = n + {n}" for n in range(20))
    lines = "\n".join("    _work(1)" for _ in range(calls))
    return (
        "import os\nfrom tools.registry import registry\n\n"
        f"def _work(n):\n{work}\n    return n\n\n"
        f"def _check():\n{lines}\n    return bool(os.getenv(\"LIGHTS_TOKEN\"))\n\n"
        'registry.register(name="lights", toolset="demo", schema={}, handler=lambda a, **k: "",\n'
        "                  check_fn=_check)\n"
    )


def test_a_helper_called_again_costs_its_steps_again(tmp_path):
    from hermes_lint.model.env_interpreter import MAX_STEPS

    assert MAX_STEPS == 4000  # 10 calls stay far under it, 100 calls far over
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "lights_tool.py").write_text(repeated_helper_check(10))
    assert check(tmp_path, {}) == [
        "tools/lights_tool.py:38:17: HRM203 `LIGHTS_TOKEN` is required by check_fn `_check` but not listed "
        "in `requires_env` of tool `lights`"
    ]
    # Past the budget the interpreter gives up: nothing is proved.
    (tmp_path / "tools" / "lights_tool.py").write_text(repeated_helper_check(100))
    assert check(tmp_path, {}) == []
