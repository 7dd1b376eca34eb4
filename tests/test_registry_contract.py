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
    result = run(["check", "--no-cache", "--debug", "-q"], tmp_path)
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
        "tools/echo_tool.py:29:13: HRM105 [*] handler `_handle_echo` is `async def` but is registered without "
        "`is_async=True`; dispatch would get an un-awaited coroutine\n"
    )


def test_without_a_registry_module_the_builtin_contract_is_used_and_said(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL.replace("check_fn=check_echo,", "check_fn=check_echo, timeout=3,")})
    result = run(["check", "--no-cache", "--debug", "-q", "--select", "HRM004"], tmp_path)
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


def _contract(registry_text: str, importer: str = "from tools.registry import registry\n"):
    """The contract a tool module importing ``registry`` as ``importer`` says gets."""
    from hermes_lint.model.context import ModuleIndex
    from hermes_lint.evaluate.project import ProjectModules
    from hermes_lint.project.registry_contract import contract_for

    project = ProjectModules("", {"tools/registry.py": textwrap.dedent(registry_text).encode()})
    index = ModuleIndex(__import__("ast").parse(importer))
    return contract_for(index.imports, "tools.x_tool", False, project)


def test_keywords_required_ones_and_defaults_come_from_the_signature():
    contract = _contract('''
        class Registry:
            def register(self, name, toolset, schema, handler, *, check_fn, is_async=True, **extra):
                pass

        registry = Registry()
        ''')
    assert contract.source == "tools/registry.py"
    assert contract.positional == ("name", "toolset", "schema", "handler")
    assert contract.parameters == ("name", "toolset", "schema", "handler", "check_fn", "is_async")
    assert contract.required == ("name", "toolset", "schema", "handler", "check_fn")
    assert (contract.any_keyword, contract.is_async_default, contract.runs_coroutines) == (True, True, None)


def test_a_relative_import_finds_the_same_module():
    text = "class R:\n    def register(self, name, toolset, schema, handler):\n        pass\nregistry = R()\n"
    assert _contract(text, "from .registry import registry\n").source == "tools/registry.py"


def test_an_unreadable_register_falls_back_to_the_builtin_contract_and_says_why():
    star = _contract("class R:\n    def register(self, *args, **kwargs):\n        pass\nregistry = R()\n")
    assert (star.source, star.describe()) == (None, "built-in contract (`register` in tools/registry.py takes *args)")
    two = _contract(
        "class A:\n    def register(self, name):\n        pass\n"
        "class B:\n    def register(self, name):\n        pass\n"
    )
    assert two.describe() == "built-in contract (tools/registry.py defines no class of `registry` with a `register` method)"
    assert _contract("", "from elsewhere import registry\n").describe() == (
        "built-in contract (`elsewhere.registry` is not a module of the project)"
    )


def test_which_registries_run_coroutines_themselves():
    plain = '''
        class R:
            def register(self, name, toolset, schema, handler, is_async=False):
                self.entry = (handler, is_async)

            def dispatch(self, name, args, **kw):
                return self._call(args)

            def _call(self, args):
                return self.entry[0](args)

        registry = R()
        '''
    assert _contract(plain).runs_coroutines is None
    derived = plain.replace("self.entry = (handler, is_async)",
                            "is_async = is_async or inspect.iscoroutinefunction(handler)")
    assert _contract(derived).runs_coroutines == "`register` sets `is_async` itself (line 4)"
    tested = plain.replace("return self.entry[0](args)", "return run(r) if inspect.isawaitable(r := self.entry[0](args)) else r")
    assert _contract(tested).runs_coroutines == "`dispatch` tests handlers itself with `inspect.isawaitable` (line 10)"
    awaited = plain.replace("def dispatch", "async def dispatch").replace("return self._call(args)", "return await self._call(args)")
    assert _contract(awaited).runs_coroutines == "`dispatch` is `async def` and awaits handlers (line 6)"
    # a coroutine test elsewhere (a check_fn helper) says nothing about handlers
    elsewhere = plain.replace(
        "        registry = R()",
        "            def check(self, fn):\n                return inspect.iscoroutinefunction(fn)\n\n        registry = R()",
    )
    assert "inspect.iscoroutinefunction" in elsewhere
    assert _contract(elsewhere).runs_coroutines is None


def test_cached_findings_of_the_builtin_contract_go_stale_when_a_registry_module_appears(tmp_path):
    import subprocess
    import sys

    def check() -> str:  # a new process per run, as a user's: nothing remembered but the cache
        done = subprocess.run(
            [sys.executable, "-m", "hermes_lint", "check", "--root", str(tmp_path), "--select", "HRM105", "-q"],
            capture_output=True,
            text=True,
        )
        return done.stdout

    make_project(tmp_path, {"echo_tool.py": ASYNC_TOOL})
    assert "HRM105" in check()  # the built-in contract: no registry module in the project
    _write_registry(tmp_path, FORK_REGISTRY)  # the tool module itself is unchanged
    assert check() == ""
    (tmp_path / "tools" / "registry.py").write_text("def broken(:\n")  # unreadable: built-in again
    assert "HRM105" in check()
