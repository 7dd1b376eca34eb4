"""Environment readers through the command line: a project function that reads the variable its
argument names is optional, required or has a default as its paths say, across modules, as far
as imports and calls are followed (the import depth and the call depth, and one past each)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_lint.evaluate.project import MAX_IMPORT_DEPTH
from hermes_lint.model.semantic import CALL_DEPTH

TOOLSETS = 'TOOLSETS = {"home": {"description": "d", "tools": ["lights", "unlock"], "includes": []}}\n'

CHECK_TOOL = """
    from tools.registry import registry
    from agent.secrets import get_secret

    def check_lights():
        return bool(get_secret("HASS_TOKEN"))

    registry.register(name="lights", toolset="home", schema={}, handler=lambda a, **k: "",
                      check_fn=check_lights)
"""
CHECK_FINDING = (
    "tools/lights_tool.py:5:17: HRM203 `HASS_TOKEN` is required by check_fn `check_lights` but not "
    "listed in `requires_env` of tool `lights`"
)

HANDLER_TOOL = """
    import json
    from tools.registry import registry
    from agent.secrets import get_secret

    def _unlock(args, **kw):
        key = get_secret("DOOR_KEY")
        return json.dumps({"door": args.get("door", ""), "key": key})

    registry.register(name="unlock", toolset="home", schema={}, handler=_unlock, check_fn=lambda: True)
"""
HANDLER_FINDING = (
    "tools/unlock_tool.py:6:11: HRM203 handler of tool `unlock` needs `DOOR_KEY` (`get_secret(...)` "
    "raises an exception when it is unset) but `requires_env` does not list it"
)


def check(root: Path, files: dict) -> list:
    root.mkdir(parents=True, exist_ok=True)
    (root / "toolsets.py").write_text(TOOLSETS)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip())
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", "-q", "--select", "HRM203"],
        cwd=root, capture_output=True, text=True,
    )
    assert completed.stderr == ""
    return completed.stdout.splitlines()


def both_tools(root: Path, reader: str, **more: str) -> list:
    files = {"tools/lights_tool.py": CHECK_TOOL, "tools/unlock_tool.py": HANDLER_TOOL, "agent/secrets.py": reader}
    files.update({path.replace("__", "/") + ".py": text for path, text in more.items()})
    return check(root, files)


def test_profile_scope_global_fallback_and_fail_closed_paths_make_an_optional_reader(tmp_path):
    reader = """
        import os

        def get_secret(name, default=None):
            profile = os.getenv("HERMES_PROFILE")
            if profile:
                os.environ.setdefault("HERMES_PROFILE_LOADED", profile)
                return os.environ.get(name, default)
            if os.getenv("HERMES_FAIL_CLOSED"):
                return os.getenv(name)
            return os.getenv(name, default)
    """
    # The check fails without the variable; the handler runs with None (optional).
    assert both_tools(tmp_path, reader) == [CHECK_FINDING]


def test_os_environ_of_the_argument_on_every_path_makes_a_required_reader(tmp_path):
    reader = """
        import os

        def get_secret(name):
            if os.getenv("HERMES_PROFILE"):
                return os.environ[name].strip()
            return os.environ[name]
    """
    assert both_tools(tmp_path, reader) == [CHECK_FINDING, HANDLER_FINDING]


def test_a_constant_default_on_every_path_requires_nothing(tmp_path):
    reader = """
        import os

        def get_secret(name):
            if os.getenv("HERMES_PROFILE"):
                return os.environ.get(name, "anonymous")
            return os.getenv(name) or "anonymous"
    """
    assert both_tools(tmp_path, reader) == []


def test_a_default_on_one_path_and_none_on_another_is_not_known_to_be_falsy(tmp_path):
    reader = """
        import os

        def get_secret(name):
            if os.getenv("HERMES_PROFILE"):
                return os.environ.get(name, "anonymous")
            return os.getenv(name)
    """
    assert both_tools(tmp_path, reader) == []


def test_a_caller_default_is_what_the_call_passes(tmp_path):
    reader = """
        import os

        def get_secret(name, default=None):
            return os.environ.get(name) or default
    """
    tool = CHECK_TOOL.replace('get_secret("HASS_TOKEN")', 'get_secret("HASS_TOKEN", "guest")')
    assert check(tmp_path, {"tools/lights_tool.py": tool, "agent/secrets.py": reader}) == []
    tool = CHECK_TOOL.replace('get_secret("HASS_TOKEN")', 'get_secret("HASS_TOKEN", default="")')
    assert check(tmp_path, {"tools/lights_tool.py": tool, "agent/secrets.py": reader}) == [CHECK_FINDING]


def test_a_str_method_of_the_read_applies_to_the_default(tmp_path):
    reader = """
        import os

        def get_secret(name, default=""):
            return os.environ.get(name, default).strip()
    """
    assert both_tools(tmp_path, reader) == [CHECK_FINDING]
    tool = CHECK_TOOL.replace('get_secret("HASS_TOKEN")', 'get_secret("HASS_TOKEN", " guest ")')
    assert check(tmp_path, {"tools/lights_tool.py": tool, "agent/secrets.py": reader}) == []


def test_a_value_another_function_computes_from_the_read_is_not_known(tmp_path):
    reader = """
        import os
        from agent.truth import is_truthy

        def get_secret(name, default=""):
            return is_truthy(os.getenv(name, default))
    """
    assert both_tools(tmp_path, reader) == []


def test_paths_that_raise_and_paths_that_return_none_fail_the_check_but_do_not_raise_always(tmp_path):
    reader = """
        import os

        def get_secret(name, default=None):
            if os.getenv("HERMES_STRICT"):
                return os.environ[name]
            return os.environ.get(name, default)
    """
    assert both_tools(tmp_path, reader) == [CHECK_FINDING]


def test_a_reader_that_catches_its_key_error_or_may_fall_off_its_end_does_not_raise_always(tmp_path):
    caught = """
        import os

        def get_secret(name):
            try:
                return os.environ[name]
            except KeyError:
                return None
    """
    assert both_tools(tmp_path, caught) == [CHECK_FINDING]
    falls_off = """
        import os

        def get_secret(name):
            if os.getenv("HERMES_PROFILE"):
                return os.environ[name]
    """
    assert both_tools(tmp_path, falls_off) == [CHECK_FINDING]


def test_one_path_that_does_not_read_the_variable_makes_it_no_reader(tmp_path):
    reader = """
        import os
        from agent.store import STORE

        def get_secret(name):
            if os.getenv("HERMES_PROFILE"):
                return STORE.get(name)
            return os.environ[name]
    """
    assert both_tools(tmp_path, reader) == []


def delegating(functions: int) -> str:
    """A module whose ``get_secret`` hands the name down a chain of ``functions`` readers, the
    last of which reads ``os.environ[name]``."""
    names = ["get_secret"] + [f"_level{n}" for n in range(2, functions + 1)]
    lines = ["import os", ""]
    for caller, callee in zip(names, names[1:]):
        lines += [f"def {caller}(name):", f"    return {callee}(name)", ""]
    lines += [f"def {names[-1]}(name):", "    return os.environ[name]", ""]
    return "\n".join(lines)


def test_delegation_is_followed_as_deep_as_calls_are(tmp_path):
    assert CALL_DEPTH == 4
    at_limit = both_tools(tmp_path, delegating(CALL_DEPTH))
    assert at_limit == [CHECK_FINDING, HANDLER_FINDING]
    assert both_tools(tmp_path, delegating(CALL_DEPTH + 1)) == []


def reexported(modules: int) -> dict:
    """``agent/secrets.py`` re-exports ``get_secret``, defined ``modules`` modules away."""
    files = {"agent/secrets.py": "from agent.hop1 import get_secret\n"}
    for hop in range(1, modules):
        files[f"agent/hop{hop}.py"] = f"from agent.hop{hop + 1} import get_secret\n"
    files[f"agent/hop{modules}.py"] = "import os\n\ndef get_secret(name):\n    return os.environ[name]\n"
    return files


def test_readers_of_other_modules_are_found_as_far_as_imports_are_followed(tmp_path):
    assert MAX_IMPORT_DEPTH == 4
    tools = {"tools/lights_tool.py": CHECK_TOOL, "tools/unlock_tool.py": HANDLER_TOOL}
    # agent/secrets.py is one module away from the tools; the definition MAX_IMPORT_DEPTH away
    at_limit = check(tmp_path / "limit", {**tools, **reexported(MAX_IMPORT_DEPTH - 1)})
    assert at_limit == [CHECK_FINDING, HANDLER_FINDING]
    assert check(tmp_path / "past", {**tools, **reexported(MAX_IMPORT_DEPTH)}) == []



# A block holding a reader's only read of the variable, one kind each.
READ_IN_BLOCK = {
    "match case": """
        match os.getenv("HERMES_PROFILE"):
            case "work":
                return os.environ.get(name)""",
    "with": """
        with open(os.devnull):
            return os.environ.get(name)""",
    "else of for": """
        for _attempt in range(2):
            pass
        else:
            return os.environ.get(name)""",
    "else of if": """
        if os.getenv("HERMES_PROFILE"):
            pass
        else:
            return os.environ.get(name)""",
    "except handler": """
        try:
            open(os.devnull).close()
        except OSError:
            return os.environ.get(name)""",
    "else of try": """
        try:
            open(os.devnull).close()
        except OSError:
            pass
        else:
            return os.environ.get(name)""",
    "finally": """
        try:
            open(os.devnull).close()
        finally:
            return os.environ.get(name)""",
}


@pytest.mark.parametrize("block", sorted(READ_IN_BLOCK))
def test_a_reader_of_the_tool_module_is_found_whatever_block_its_read_is_in(tmp_path, block):
    body = textwrap.indent(textwrap.dedent(READ_IN_BLOCK[block]).strip(), " " * 12)
    tool = f"""
        import os
        from tools.registry import registry

        def _secret(name):
{body}
            return None

        def check_door():
            return bool(_secret("DOOR_KEY"))

        registry.register(name="unlock", toolset="home", schema={{}}, handler=lambda a, **k: "",
                          check_fn=check_door)
    """
    line = 9 + body.count("\n")
    assert check(tmp_path, {"tools/unlock_tool.py": tool}) == [
        f"tools/unlock_tool.py:{line}:17: HRM203 `DOOR_KEY` is required by check_fn `check_door` but not "
        "listed in `requires_env` of tool `unlock`"
    ]
    # A return that gives something other than the variable (here, beside the read) makes it
    # no reader: the check reads nothing known.
    other = tool.replace("return None", "return os.devnull")
    assert check(tmp_path, {"tools/unlock_tool.py": other}) == []


def test_a_reader_module_that_appears_later_is_read_by_the_next_cached_run(tmp_path):
    """The imported module is no file of the project at first (an installed package, say):
    the facts depend on its absence, and the cache must not outlive it."""
    tool = HANDLER_TOOL.replace("from agent.secrets import get_secret", "from helpers import get_secret")
    files = {"tools/unlock_tool.py": tool}
    check(tmp_path, files)
    command = [sys.executable, "-m", "hermes_lint", "check", "-q", "--select", "HRM203"]
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert (first.returncode, first.stdout) == (0, "")
    (tmp_path / "helpers.py").write_text("import os\n\n\ndef get_secret(name):\n    return os.environ[name]\n")
    second = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert second.stdout.splitlines() == [HANDLER_FINDING]
