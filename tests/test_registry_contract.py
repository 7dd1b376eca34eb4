"""The project's own registry contract (HRM004, HRM105), end to end through the command line."""

from __future__ import annotations

import textwrap

from hermes_lint.rules.hrm105_async_handler_flag import FORK_REGISTRY, PLAIN_REGISTRY
from tests.test_cli import GOOD_TOOL, make_project, run

ASYNC_TOOL = GOOD_TOOL.replace("def _handle_echo(args, **kwargs):", "async def _handle_echo(args, **kwargs):")


def _write_registry(root, text: str) -> None:
    (root / "tools" / "registry.py").write_text(textwrap.dedent(text))


def test_a_fork_registry_that_runs_coroutines_keeps_hrm105_silent_and_debug_says_so(tmp_path):
    make_project(tmp_path, {"echo_tool.py": ASYNC_TOOL})
    _write_registry(tmp_path, FORK_REGISTRY)
    result = run(["check", "--no-cache", "--debug"], tmp_path)
    assert result.stdout == ""
    assert result.exit_code == 0
    assert result.stderr == (
        "hermes-lint: registry contract for 1 module(s): tools/registry.py: register(name, toolset, schema, "
        "handler, check_fn, requires_env, is_async, description, emoji); is_async defaults to False; "
        "`register` forces `is_async=True` (line 11)\n"
    )


def test_the_same_tool_with_a_plain_registry_is_reported(tmp_path):
    make_project(tmp_path, {"echo_tool.py": ASYNC_TOOL})
    _write_registry(tmp_path, PLAIN_REGISTRY)
    result = run(["check", "--no-cache", "--select", "HRM105"], tmp_path)
    assert result.stdout == (
        "tools/echo_tool.py:29:13: HRM105 handler `_handle_echo` is `async def` but is registered without "
        "`is_async=True`; dispatch would get an un-awaited coroutine\n"
    )


def test_without_a_registry_module_the_builtin_contract_is_used_and_said(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL.replace("check_fn=check_echo,", "check_fn=check_echo, timeout=3,")})
    result = run(["check", "--no-cache", "--debug", "--select", "HRM004"], tmp_path)
    assert result.stdout == "tools/echo_tool.py:30:26: HRM004 unknown keyword `timeout=`\n"
    assert result.stderr == (
        "hermes-lint: registry contract for 1 module(s): built-in contract "
        "(`tools.registry.registry` is not a module of the project)\n"
    )


def test_cached_findings_follow_an_edit_of_the_registry_module(tmp_path):
    make_project(tmp_path, {"echo_tool.py": ASYNC_TOOL})
    _write_registry(tmp_path, FORK_REGISTRY)
    assert run(["check", "--select", "HRM105"], tmp_path).stdout == ""
    _write_registry(tmp_path, PLAIN_REGISTRY)  # the tool module itself is unchanged
    assert "HRM105" in run(["check", "--select", "HRM105"], tmp_path).stdout
    _write_registry(tmp_path, FORK_REGISTRY)
    assert run(["check", "--select", "HRM105"], tmp_path).stdout == ""
