"""hermes-lint manifest: generation from extracted facts, check forms, refusals, the command."""

from __future__ import annotations

import importlib.resources
import importlib.util
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from hermes_lint.config import Config
from hermes_lint.project_config import load_config
from hermes_lint.manifest.generate import check_manifest, generate_for_root, import_lines, render, resolve_toolset, summary
from hermes_lint.cli.manifest import manifest as manifest_command
from hermes_lint.rule_examples import run_example
from hermes_lint.rules import rule_by_code

REPO_ROOT = Path(__file__).resolve().parents[1]

TOOLSETS = """
TOOLSETS = {
    "probe": {"description": "Probes", "tools": ["probe"], "includes": []},
}
"""

HEADER = """
import importlib.util
import os
from os import environ, getenv
from tools.registry import registry

SCHEMA = {"name": "probe", "description": "A probe.", "parameters": {"type": "object", "properties": {}}}

def handle(args, **kwargs):
    return "{}"
"""


def make_project(root: Path, modules: dict, toolsets: str = TOOLSETS) -> Path:
    (root / "tools").mkdir(parents=True, exist_ok=True)
    for stem, source in modules.items():
        (root / "tools" / f"{stem}.py").write_text(inspect.cleandoc(source) + "\n", encoding="utf-8")
    if toolsets is not None:
        (root / "toolsets.py").write_text(inspect.cleandoc(toolsets) + "\n", encoding="utf-8")
    return root


def generate(root: Path):
    return generate_for_root(root, Config())


def manifest_schema() -> dict:
    text = importlib.resources.files("hermes_lint").joinpath("data/manifest.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def assert_valid_manifest(data: dict) -> None:
    jsonschema.Draft202012Validator(manifest_schema(), format_checker=None).validate(data)


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_tools", REPO_ROOT / "benchmarks" / "gen_tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ============================================================== check forms


def template_check(template: dict, function: str | None = "check") -> dict:
    check = {"kind": "template", "template": template}
    return {**check, "function": function} if function else check


def is_set(template: dict) -> dict:
    return {"not": {"is_none": template}}


# The simple forms, each the template whose truth is the check's.
CHECKS = {
    # no check
    "no check_fn": ("", {"kind": "none"}),
    "None": ("check_fn=None,", {"kind": "none"}),
    # true
    "return True": ("def check():\n    return True", template_check({"const": True})),
    "docstring": ('def check():\n    """Always."""\n    return True', template_check({"const": True})),
    "lambda True": ("check = lambda: True", template_check({"const": True}, None)),
    # environment
    "bool(getenv)": ('def check():\n    return bool(os.getenv("A"))', template_check({"env": "A"})),
    "environ.get": ('def check():\n    return os.environ.get("A")', template_check({"env": "A"})),
    "getenv default empty": ('def check():\n    return os.getenv("A", "")', template_check({"env": "A"})),
    "from os import getenv": ('def check():\n    return bool(getenv("A"))', template_check({"env": "A"})),
    "in environ": ('def check():\n    return "A" in os.environ', template_check(is_set({"env": "A"}))),
    "from os import environ": ('def check():\n    return "A" in environ', template_check(is_set({"env": "A"}))),
    "is not None": ('def check():\n    return os.getenv("A") is not None', template_check(is_set({"env": "A"}))),
    "and": ('def check():\n    return bool(os.getenv("B") and os.getenv("A") and "C" in os.environ)',
            template_check({"and": [{"env": "A"}, {"env": "B"}, is_set({"env": "C"})]})),
    "set and non-empty": ('def check():\n    return bool(os.getenv("A") and "A" in os.environ)',
                          template_check({"env": "A"})),
    "constant name": ('KEY = "A"\ndef check():\n    return bool(os.getenv(KEY))', template_check({"env": "A"})),
    "lambda env": ('check = lambda: bool(os.getenv("A"))', template_check({"env": "A"}, None)),
    "calls a check": ('def _impl():\n    return bool(os.getenv("A"))\ndef check():\n    return _impl()',
                      template_check({"env": "A"})),
    # installed package
    "find_spec": ('def check():\n    return importlib.util.find_spec("yaml") is not None',
                  template_check(is_set({"find_spec": "yaml"}))),
    "bool(find_spec)": ('from importlib.util import find_spec\ndef check():\n    return bool(find_spec("yaml"))',
                        template_check(is_set({"find_spec": "yaml"}))),
}

NOT_DECLARATIVE = {
    # (source, the start of the reason the manifest gives)
    "not in": ('def check():\n    return "A" not in os.environ',
               "check_fn must run: it reads the environment other than by os.getenv"),
    "async": ('async def check():\n    return True', "check_fn is async"),
    "decorated": ('import functools\n@functools.lru_cache()\ndef check():\n    return True',
                  "check_fn is decorated"),
    "os rebound": ('os = object()\ndef check():\n    return bool(os.getenv("A"))',
                   "check_fn must run: os is bound by an import and rebound in the module"),
    "name not constant": ('def check():\n    return bool(os.getenv(os.getenv("WHICH")))',
                          "check_fn must run: it reads the environment other than by os.getenv"),
    "dotted find_spec": ('def check():\n    return importlib.util.find_spec("a.b") is not None',
                         "check_fn must run: the manifest cannot evaluate it (find_spec of a name "
                         "that is not a constant top-level module"),
    "imported check": ("from tools.helpers import check",
                       "check_fn must run: it calls check, which is not a function of a project module"),
    "subscript": ('def check():\n    return bool(os.environ["A"])',
                  "check_fn must run: it reads the environment other than by os.getenv"),
    "local import of a project module": (
        'def check():\n    from tools.helpers import configured\n    return configured()',
        "check_fn must run: check imports a module inside the function, which only running it can do"),
    "reads a file": ('def check():\n    return open("/etc/hostname").read() != ""',
                     "check_fn must run: the manifest cannot evaluate it (call to builtin open"),
}

ENV_A = {"if": {"is_none": {"env": "A"}}, "then": {"const": ""}, "else": {"env": "A"}}
# Checks whose every path a template states: what the manifest records.
TEMPLATE_CHECKS = {
    "shutil.which": ('import shutil\ndef check():\n    return shutil.which("docker") is not None',
                     {"not": {"is_none": {"which": {"const": "docker"}}}}),
    "or": ('def check():\n    return bool(os.getenv("A") or os.getenv("B"))',
           {"call": "bool", "args": [{"or": [{"env": "A"}, {"env": "B"}]}]}),
    "not": ('def check():\n    return not os.getenv("A")', {"not": {"env": "A"}}),
    "truthy default": ('def check():\n    return os.getenv("A", "1")',
                       {"if": {"is_none": {"env": "A"}}, "then": {"const": "1"}, "else": {"env": "A"}}),
    "two statements": ('def check():\n    key = os.getenv("A")\n    return bool(key)',
                       {"call": "bool", "args": [{"env": "A"}]}),
    "parameters with defaults": ('def check(strict=False):\n    return True', {"const": True}),
    "returns False": ('def check():\n    return False', {"const": False}),
    "env and module": ('def check():\n    return os.getenv("A") and importlib.util.find_spec("yaml") is not None',
                       {"and": [{"env": "A"}, {"not": {"is_none": {"find_spec": "yaml"}}}]}),
    "if chain over a truthy set": (
        'TRUTHY = frozenset({"1", "true", "on"})\n'
        'def enabled(name):\n    value = os.getenv(name, "")\n'
        '    if not value:\n        return False\n'
        '    return value.strip().lower() in TRUTHY\n'
        'def check():\n    return enabled("A")',
        {"if": {"not": ENV_A}, "then": {"const": False},
         "else": {"in": {"method": "lower", "of": {"method": "strip", "of": ENV_A}},
                  "values": ["1", "on", "true"]}}),
    "find_spec after a local import, in a try": (
        'def check():\n    import importlib.util\n    try:\n'
        '        return importlib.util.find_spec("yaml") is not None\n'
        '    except (ImportError, ValueError):\n        return False',
        {"try": {"not": {"is_none": {"find_spec": "yaml"}}}, "except": ["ImportError", "ValueError"],
         "fallback": {"const": False}}),
    "platform": ('import sys\ndef check():\n    return sys.platform == "darwin"',
                 {"eq": [{"platform": None}, {"const": "darwin"}]}),
    "path exists": ('from pathlib import Path\ndef check():\n    return Path("~/.probe").expanduser().exists()',
                    {"path_exists": {"const": "~/.probe"}, "expanduser": True}),
    "which of a variable": ('import shutil\ndef check():\n    return bool(shutil.which(os.getenv("PROBE_BIN", "probe")))',
                            {"call": "bool", "args": [{"which": {"if": {"is_none": {"env": "PROBE_BIN"}},
                                                                 "then": {"const": "probe"},
                                                                 "else": {"env": "PROBE_BIN"}}}]}),
}


def tool_module(check_source: str) -> str:
    """A tool module whose check is ``check_source``: a ``check_fn=`` keyword (or nothing), else
    code defining ``check``."""
    keyword_only = check_source == "" or check_source.startswith("check_fn=")
    check_keyword = check_source if keyword_only else "check_fn=check,"
    definition = "" if keyword_only else check_source
    return (
        inspect.cleandoc(HEADER) + "\n" + definition + "\n"
        + f"registry.register(name='probe', toolset='probe', schema=SCHEMA, handler=handle, {check_keyword})\n"
    )


@pytest.mark.parametrize("case", list(CHECKS))
def test_declarative_check_forms(tmp_path, case):
    source, expected = CHECKS[case]
    make_project(tmp_path, {"probe_tool": tool_module(source)})
    generated = generate(tmp_path)
    assert generated.ok, generated.problems
    assert generated.data["tools"]["probe"]["check"] == expected
    assert generated.data["tools"]["probe"]["import_for_definitions"] is False


@pytest.mark.parametrize("case", list(NOT_DECLARATIVE))
def test_other_checks_need_the_import(tmp_path, case):
    source, reason = NOT_DECLARATIVE[case]
    make_project(tmp_path, {"probe_tool": tool_module(source)})
    generated = generate(tmp_path)
    assert generated.ok, generated.problems
    check = generated.data["tools"]["probe"]["check"]
    assert check["kind"] == "import" and check["reason"].startswith(reason), check
    assert generated.data["tools"]["probe"]["import_for_definitions"] is True


BACKEND_MODULE = """
import os
import shutil

PROGRAM = os.environ.get("PROBE_PROGRAM", "probe-program")


def program_available():
    return bool(shutil.which(PROGRAM))
"""
HELPER_MODULE = """
import sys


def check():
    if sys.platform not in ("darwin", "linux"):
        return False
    from tools.backend import program_available
    return program_available()
"""


@pytest.mark.parametrize("import_line", ["from tools.helpers import check",
                                         "import tools.helpers\ncheck = tools.helpers.check"])
def test_a_check_of_another_project_module_is_followed(tmp_path, import_line):
    """Imported from a project module, with a local import of another function there."""
    make_project(tmp_path, {"probe_tool": tool_module(import_line), "helpers": HELPER_MODULE,
                            "backend": BACKEND_MODULE})
    generated = generate(tmp_path)
    assert generated.ok, generated.problems
    program = {"if": {"is_none": {"env": "PROBE_PROGRAM"}}, "then": {"const": "probe-program"},
               "else": {"env": "PROBE_PROGRAM"}}
    check = generated.data["tools"]["probe"]["check"]
    assert check == {"kind": "template", "template": {
        "if": {"not": {"in": {"platform": None}, "values": ["darwin", "linux"]}},
        "then": {"const": False},
        "else": {"call": "bool", "args": [{"which": program}]}}}
    assert generated.data["modules"]["tools.probe_tool"]["reads"] == ["tools/backend.py", "tools/helpers.py"]


@pytest.mark.parametrize("case", list(TEMPLATE_CHECKS))
def test_checks_a_template_states(tmp_path, case):
    source, template = TEMPLATE_CHECKS[case]
    make_project(tmp_path, {"probe_tool": tool_module(source)})
    generated = generate(tmp_path)
    assert generated.ok, generated.problems
    assert generated.data["tools"]["probe"]["check"] == {"kind": "template", "template": template,
                                                        "function": "check"}
    assert generated.data["tools"]["probe"]["import_for_definitions"] is False


# ============================================================== content


def test_this_repos_manifest_content():
    generated = generate(REPO_ROOT)
    assert generated.ok, generated.problems
    data = generated.data
    assert data["format"] == "hermes-tool-manifest" and data["format_version"] == 4
    assert data["generator"].startswith("hermes-lint ")
    assert data["import_only"] == {}
    assert sorted(data["tools"]) == sorted(t for m in data["modules"].values() for t in m["tools"])
    web = data["tools"]["web_search"]
    assert web["module"] == "tools.web_search_tool" and web["toolset"] == "web"
    assert web["handler"] == {"module": "tools.web_search_tool", "qualname": "_handle_web_search"}
    assert web["check"] == template_check({"env": "WEB_SEARCH_API_KEY"}, "check_web_search_requirements")
    assert web["requires_env"] == ["WEB_SEARCH_API_KEY"]
    assert web["schema"]["parameters"]["properties"]["max_results"]["maximum"] == 20
    for path, digest in data["sources"].items():
        assert digest == __import__("hashlib").sha256((REPO_ROOT / path).read_bytes()).hexdigest()
    assert "toolsets.py" in data["sources"]
    assert_valid_manifest(data)


def test_resolved_toolsets_match_the_runtime_resolution():
    import toolsets

    data = generate(REPO_ROOT).data
    assert data["toolsets"] == {name: toolsets.resolve_toolset(name) for name in toolsets.TOOLSETS}


def test_handler_references(tmp_path):
    source = inspect.cleandoc(HEADER) + "\n" + inspect.cleandoc("""

        from tools.helpers import shared_handler

        registry.register(name="fn", toolset="probe", schema=SCHEMA, handler=handle)
        registry.register(name="lam", toolset="probe", schema=SCHEMA, handler=lambda args, **kw: handle(args))
        registry.register(name="imp", toolset="probe", schema=SCHEMA, handler=shared_handler)
        """) + "\n"
    make_project(tmp_path, {"probe_tool": source}, toolsets=None)
    tools = generate(tmp_path).data["tools"]
    assert tools["fn"]["handler"] == {"module": "tools.probe_tool", "qualname": "handle"}
    assert tools["lam"]["handler"] == "via import"
    assert tools["imp"]["handler"] == "via import"
    assert tools["fn"]["line"] == 12


def test_registration_values_and_defaults(tmp_path):
    source = inspect.cleandoc(HEADER) + "\n" + inspect.cleandoc("""

        def overrides():
            return {}

        registry.register(name="full", toolset="probe", schema=SCHEMA, handler=handle,
                          requires_env=["A"], is_async=True, description="Own words.", emoji="*",
                          max_result_size_chars=10, dynamic_schema_overrides=overrides)
        registry.register("bare", "probe", SCHEMA, handle)
        """) + "\n"
    make_project(tmp_path, {"probe_tool": source}, toolsets=None)
    tools = generate(tmp_path).data["tools"]
    full, bare = tools["full"], tools["bare"]
    assert (full["requires_env"], full["is_async"], full["description"], full["emoji"],
            full["max_result_size_chars"]) == (["A"], True, "Own words.", "*", 10)
    assert full["dynamic_schema_overrides"] is True and full["import_for_definitions"] is True
    assert (bare["requires_env"], bare["is_async"], bare["description"], bare["emoji"],
            bare["max_result_size_chars"], bare["override"]) == ([], False, "A probe.", "", None, False)
    assert generate(tmp_path).data["toolsets"] == {}


IMPORT_ONLY = {
    "name from the environment": "registry.register(name=os.environ['T'], toolset='p', schema=SCHEMA, handler=handle)",
    "spread keywords": "OPTIONS = dict(name='t', toolset='p', schema=SCHEMA, handler=handle)\nregistry.register(**OPTIONS)",
    "unknown keyword": "registry.register(name='t', toolset='p', schema=SCHEMA, handler=handle, check_func=None)",
    "missing handler": "registry.register(name='t', toolset='p', schema=SCHEMA)",
    "description at run time": "registry.register(name='t', toolset='p', schema=SCHEMA, handler=handle, description=os.getenv('D'))",
    "requires_env as a string": "registry.register(name='t', toolset='p', schema=SCHEMA, handler=handle, requires_env='A')",
    "undefined handler": "registry.register(name='t', toolset='p', schema=SCHEMA, handler=nowhere)",
    "tuple in the schema": "registry.register(name='t', toolset='p', schema={'name': 't', 'enum': ('a', 'b')}, handler=handle)",
    "a float JSON cannot carry": "registry.register(name='t', toolset='p', schema={'name': 't', 'maximum': 1e400}, handler=handle)",
    "NaN in the schema": "registry.register(name='t', toolset='p', schema={'name': 't', 'maximum': float('nan')}, handler=handle)",
    # register() raises TypeError: import discovery loses the tool, and so does the import
    "parameters not a dict": "registry.register(name='t', toolset='p', handler=handle, schema={'name': 't', 'parameters': []})",
}


@pytest.mark.parametrize("case", list(IMPORT_ONLY))
def test_registrations_that_cannot_be_frozen_make_their_module_import_only(tmp_path, case):
    source = inspect.cleandoc(HEADER) + "\n" + IMPORT_ONLY[case] + "\n"
    frozen = inspect.cleandoc(HEADER) + "\nregistry.register(name='ok', toolset='p', schema=SCHEMA, handler=handle)\n"
    make_project(tmp_path, {"odd_tool": source, "ok_tool": frozen}, toolsets=None)
    generated = generate(tmp_path)
    assert generated.ok, generated.problems
    (reason,) = generated.data["import_only"]["tools.odd_tool"]["reasons"]
    assert reason.startswith("line ")
    assert list(generated.data["modules"]) == ["tools.ok_tool"]
    assert list(generated.data["tools"]) == ["ok"]
    assert_valid_manifest(generated.data)



def test_a_float_json_cannot_carry_makes_its_module_import_only_and_the_manifest_is_written(tmp_path):
    source = inspect.cleandoc(HEADER) + "\nregistry.register(name='t', toolset='p', schema={'name': 't', 'maximum': 1e400}, handler=handle)\n"
    make_project(tmp_path, {"odd_tool": source}, toolsets=None)
    result = CliRunner().invoke(manifest_command, ["--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "tools" / "manifest.json").read_text(encoding="utf-8"))
    assert data["import_only"]["tools.odd_tool"]["reasons"] == [
        "line 10: the schema holds values JSON cannot carry exactly (a tuple, a non-string key, NaN or an infinite "
        "float such as 1e400)"
    ]
    assert data["tools"] == {}

REFUSED = {
    "invalid schema": (
        "registry.register(name='t', toolset='p', handler=handle, schema={'name': 't', 'parameters': "
        "{'type': 'object', 'properties': {'n': {'type': 'str'}}}})", "HRM302"),
    "duplicate in another toolset": (
        "registry.register(name='t', toolset='p', schema=SCHEMA, handler=handle)\n"
        "registry.register(name='t', toolset='q', schema=SCHEMA, handler=handle)", "HRM401"),
    "duplicate in the same toolset": (
        "registry.register(name='t', toolset='p', schema=SCHEMA, handler=handle)\n"
        "registry.register(name='t', toolset='p', schema=SCHEMA, handler=handle)", "HRM402"),
}


def test_a_schema_built_at_run_time_is_frozen_as_unknown_and_imported_for_its_definition(tmp_path):
    registration = "registry.register(name='t', toolset='p', schema=load_schema('t.json'), handler=handle)"
    make_project(tmp_path, {"late_tool": inspect.cleandoc(HEADER) + "\n" + registration + "\n"}, toolsets=None)
    generated = generate(tmp_path)
    assert generated.problems == []
    tool = generated.data["tools"]["t"]
    assert tool["schema"] == {}
    assert tool["import_for_definitions"] is True
    assert tool["holes"] == [{"path": [], "reason": "call to undefined function load_schema (line 10)"}]
    assert generated.data["format_version"] == 4
    assert generated.data["import_only"] == {}  # never imported at start-up


def test_a_description_hole_keeps_the_structure_and_only_that_tool_is_imported_for_definitions(tmp_path):
    source = """
    from pathlib import Path
    from tools.registry import registry

    SCHEMA = {
        "name": "notes",
        "description": f"Notes live in {Path.home()}/notes.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "Text."}}},
    }

    def handle(args, **kwargs):
        return args.get("text", "")

    registry.register(name="notes", toolset="p", schema=SCHEMA, handler=handle, check_fn=lambda: True)
    """
    make_project(tmp_path, {"notes_tool": source}, toolsets=None)
    generated = generate(tmp_path)
    assert generated.problems == []
    tool = generated.data["tools"]["notes"]
    assert tool["schema"] == {
        "name": "notes",
        "description": None,
        "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "Text."}}},
    }
    assert tool["holes"] == [{"path": ["description"], "reason": "call to imported function Path.home (line 6)"}]
    assert tool["import_for_definitions"] is True
    assert summary(generated.data) == "1 tool: 0 frozen, 1 resolved at import"
    assert import_lines(generated.data) == [
        "tools.notes_tool: tool `notes` is resolved at import: call to imported function Path.home (line 6)"
    ]


def test_an_environment_default_in_a_description_is_a_template_the_runtime_fills(tmp_path):
    source = """
    import os
    from tools.registry import registry

    LIMIT = int(os.getenv("NOTES_LIMIT", "600"))
    SCHEMA = {
        "name": "notes",
        "description": "Take notes.",
        "parameters": {"type": "object", "properties": {
            "text": {"type": "string", "description": f"At most {LIMIT} characters."},
        }},
    }

    def handle(args, **kwargs):
        return args.get("text", "")

    registry.register(name="notes", toolset="p", schema=SCHEMA, handler=handle, check_fn=lambda: True)
    """
    make_project(tmp_path, {"notes_tool": source}, toolsets=None)
    generated = generate(tmp_path)
    tool = generated.data["tools"]["notes"]
    read = {"env": "NOTES_LIMIT"}
    assert tool["holes"] == [{
        "path": ["parameters", "properties", "text", "description"],
        "template": {"concat": [
            {"const": "At most "},
            {"format": {"call": "int", "args": [{"if": {"is_none": read}, "then": {"const": "600"}, "else": read}]},
             "spec": "", "conversion": ""},
            {"const": " characters."},
        ]},
    }]
    assert tool["import_for_definitions"] is False
    assert summary(generated.data) == "1 tool: 1 frozen, 0 resolved at import"


@pytest.mark.parametrize("case", list(REFUSED))
def test_errors_that_would_make_the_manifest_wrong_refuse_generation(tmp_path, case):
    registration, code = REFUSED[case]
    make_project(tmp_path, {"bad_tool": inspect.cleandoc(HEADER) + "\n" + registration + "\n"}, toolsets=None)
    generated = generate(tmp_path)
    assert generated.text is None
    assert {d.code for d in generated.problems} == {code}  # a duplicate: at both registrations
    assert generated.problems[0].path == "tools/bad_tool.py"
    assert generated.problems[0].line >= 10


def test_produced_gives_the_manifest_written_and_refuses_with_the_problems_when_there_is_none(tmp_path):
    module = inspect.cleandoc(HEADER) + "\nregistry.register(name='probe', toolset='probe', schema=SCHEMA, handler=handle)\n"
    generated = generate(make_project(tmp_path / "good", {"probe_tool": module}))
    assert generated.produced() == (generated.data, render(generated.data))

    make_project(tmp_path / "bad", {"my-tool": module}, toolsets=None)
    refused = generate(tmp_path / "bad")
    with pytest.raises(ValueError, match=r"no manifest was generated: .*rename the file"):
        refused.produced()


def test_a_module_file_name_that_is_no_identifier_refuses_generation(tmp_path):
    module = inspect.cleandoc(HEADER) + "\nregistry.register(name='t', toolset='p', schema=SCHEMA, handler=handle)\n"
    make_project(tmp_path, {"my-tool": module}, toolsets=None)
    (problem,) = generate(tmp_path).problems
    assert (problem.path, problem.code) == ("tools/my-tool.py", "HRM003")
    assert "rename the file" in problem.message


def test_a_toolset_cycle_refuses_generation(tmp_path):
    toolsets = """
    TOOLSETS = {
        "a": {"tools": [], "includes": ["b"]},
        "b": {"tools": [], "includes": ["a"]},
    }
    """
    make_project(tmp_path, {}, toolsets=toolsets)
    generated = generate(tmp_path)
    # check's own finding, once (the manifest keeps no second copy of the toolset checks)
    assert [d.as_text() for d in generated.problems] == ["toolsets.py:3:37: HRM405 toolset include cycle: a -> b -> a"]


def test_resolve_toolset_matches_the_runtime_on_includes():
    import toolsets

    table = {
        "base": {"tools": ["x", "y"], "includes": []},
        "more": {"tools": ["z", "x"], "includes": ["base", "other"]},
        "other": {"tools": ["w"], "includes": ["base"]},
    }
    for name in table:
        assert resolve_toolset(name, table) == toolsets.resolve_toolset(name, table)


def test_generation_never_imports_or_runs_tool_code(tmp_path):
    marker = tmp_path / "ran"
    source = inspect.cleandoc(HEADER) + f"\nopen({str(marker)!r}, 'w').close()\n" \
        "registry.register(name='t', toolset='p', schema=SCHEMA, handler=handle)\n"
    make_project(tmp_path, {"side_effect_tool": source}, toolsets=None)
    assert generate(tmp_path).ok
    assert not marker.exists()
    assert "tools.side_effect_tool" not in sys.modules


# ============================================================== determinism and schema


def test_bytes_are_canonical_and_carry_no_absolute_path():
    generated = generate(REPO_ROOT)
    text = generated.text.decode("utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert str(REPO_ROOT) not in text and "/tmp" not in text
    assert render(generated.data) == generated.text


def test_the_first_key_is_the_sha256_of_the_file_without_its_line():
    import hashlib

    generated = generate(REPO_ROOT)
    lines = generated.text.splitlines(keepends=True)
    digest = hashlib.sha256(b"".join(lines[:1] + lines[2:])).hexdigest()
    assert lines[:2] == [b"{\n", f'  "digest": "{digest}",\n'.encode()]
    assert generated.data["digest"] == digest
    # The digest in the data is the output's, never an input: a stale one is replaced.
    assert render({**generated.data, "digest": "0" * 64}) == generated.text
    edited = {**generated.data, "generator": "hermes-lint 9"}
    assert render(edited).splitlines()[1] != lines[1].rstrip(b"\n")


def test_two_runs_and_two_checkouts_give_identical_bytes(tmp_path):
    import shutil

    first = generate(REPO_ROOT).text
    assert generate(REPO_ROOT).text == first
    copy = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(REPO_ROOT / "tools", copy / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "toolsets.py", copy / "toolsets.py")
    shutil.copy(REPO_ROOT / "pyproject.toml", copy / "pyproject.toml")
    assert generate_for_root(copy, load_config(copy)).text == first


def test_identical_bytes_across_processes_with_different_hash_seeds(tmp_path):
    load_generator().generate_corpus(tmp_path, 25, import_fraction=0.2, variety=True)
    outputs = []
    for seed in ("1", "2"):
        script = (
            "import sys; from pathlib import Path; from hermes_lint.config import Config; "
            "from hermes_lint.manifest.generate import generate_for_root; "
            f"sys.stdout.buffer.write(generate_for_root(Path({str(tmp_path)!r}), Config()).text)"
        )
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outputs.append(subprocess.run([sys.executable, "-c", script], capture_output=True, env=env,
                                      check=True, timeout=120).stdout)
    assert outputs[0] == outputs[1] and outputs[0]


def test_generated_corpus_manifests_validate_against_the_shipped_schema(tmp_path):
    load_generator().generate_corpus(tmp_path, 40, import_fraction=0.1, variety=True)
    generated = generate(tmp_path)
    assert generated.ok, generated.problems
    assert_valid_manifest(generated.data)
    kinds = {tool["check"]["kind"] for tool in generated.data["tools"].values()}
    assert kinds == {"template", "import"}  # every generated tool has a check_fn


def test_the_schema_rejects_what_the_runtime_refuses():
    data = generate(REPO_ROOT).data
    validator = jsonschema.Draft202012Validator(manifest_schema())
    bad = json.loads(json.dumps(data))
    bad["modules"]["os"] = bad["modules"].pop("tools.web_search_tool")
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(data))
    bad["tools"]["web_search"]["check"] = {"kind": "module", "name": "a.b"}
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(data))
    bad["format_version"] = 5
    assert not validator.is_valid(bad)


def test_this_repos_committed_manifest_is_fresh():
    """CI fails when tools/manifest.json is stale: run `hermes-lint manifest` and commit it."""
    config = load_config(REPO_ROOT)
    assert check_manifest(REPO_ROOT, config, REPO_ROOT / config.manifest) == []


# ============================================================== the command


def runner() -> CliRunner:
    try:  # click < 8.2 mixes stderr into stdout unless told not to; 8.2 removed the option
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


def run(*args):
    """The command run from the project (``--root``): its diagnostics name files from there."""
    old = os.getcwd()
    roots = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--root"]
    if roots and os.path.isdir(roots[0]):
        os.chdir(roots[0])
    try:
        return runner().invoke(manifest_command, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def project(tmp_path):
    module = inspect.cleandoc(HEADER) + "\nregistry.register(name='probe', toolset='probe', schema=SCHEMA, handler=handle)\n"
    return make_project(tmp_path / "project", {"probe_tool": module})


def test_writes_then_reports_up_to_date_without_rewriting(project):
    result = run("--root", str(project))
    assert result.exit_code == 0, result.stderr
    target = project / "tools" / "manifest.json"
    assert "wrote tools/manifest.json (1 tool: 1 frozen, 0 resolved at import)" in result.stderr
    first = target.read_bytes()
    mtime = target.stat().st_mtime_ns

    result = run("--root", str(project))
    assert result.exit_code == 0 and "is up to date" in result.stderr
    assert target.read_bytes() == first and target.stat().st_mtime_ns == mtime
    assert run("--root", str(project), "--check").exit_code == 0


def test_check_reports_hrm501_on_a_stale_or_missing_manifest(project):
    result = run("--root", str(project), "--check")
    assert result.exit_code == 1
    assert result.stdout == "tools/manifest.json:1:1: HRM501 manifest is out of date, run `hermes-lint manifest`\n"

    run("--root", str(project))
    module = project / "tools" / "probe_tool.py"
    module.write_text(module.read_text().replace("A probe.", "A better probe."))
    before = (project / "tools" / "manifest.json").read_bytes()
    result = run("--root", str(project), "--check")
    assert result.exit_code == 1 and "HRM501" in result.stdout
    assert (project / "tools" / "manifest.json").read_bytes() == before


def test_diff_shows_the_difference_and_writes_nothing(project):
    run("--root", str(project))
    module = project / "tools" / "probe_tool.py"
    module.write_text(module.read_text().replace("A probe.", "A better probe."))
    before = (project / "tools" / "manifest.json").read_bytes()

    result = run("--root", str(project), "--diff")

    assert result.exit_code == 1
    assert "--- tools/manifest.json (on disk)" in result.stdout
    assert '-      "description": "A probe.",' in result.stdout
    assert '+      "description": "A better probe.",' in result.stdout
    assert "HRM501" not in result.stdout
    assert "from tools/manifest.json (on disk) to the generated manifest" in result.stdout
    assert (project / "tools" / "manifest.json").read_bytes() == before
    both = run("--root", str(project), "--check", "--diff")
    assert both.exit_code == 1 and "HRM501" in both.stdout and "+++ " in both.stdout


def test_output_option(project, tmp_path):
    target = tmp_path / "out.json"
    assert run("--root", str(project), "--output", str(target)).exit_code == 0
    assert target.read_bytes() == generate(project).text
    assert run("--root", str(project), "--output", str(target), "--check").exit_code == 0
    missing_dir = run("--root", str(project), "--output", str(tmp_path / "nope" / "m.json"))
    assert missing_dir.exit_code == 2 and "does not exist" in missing_dir.stderr


def test_refuses_to_write_and_says_which_errors(project):
    run("--root", str(project))
    before = (project / "tools" / "manifest.json").read_bytes()
    (project / "tools" / "bad_tool.py").write_text(
        inspect.cleandoc(HEADER) + "\nregistry.register(name='probe', toolset='other', schema=SCHEMA, handler=handle)\n"
    )

    result = run("--root", str(project))

    assert result.exit_code == 1
    # the messages of `check` (the generator runs the validator), at both registrations
    assert result.stdout.splitlines() == [
        "tools/bad_tool.py:10:24: HRM401 tool `probe` is also registered in toolset 'probe' at "
        "tools/probe_tool.py:10: the registry rejects that registration",
        "tools/probe_tool.py:10:24: HRM401 tool `probe` is also registered in toolset 'other' at "
        "tools/bad_tool.py:10: the registry rejects this registration",
    ]
    assert "not written: 2 errors above would make it wrong" in result.stderr
    assert (project / "tools" / "manifest.json").read_bytes() == before
    assert run("--root", str(project), "--check").exit_code == 1


def test_an_interrupted_write_leaves_the_old_file_whole(project, monkeypatch):
    import hermes_lint.atomic as atomic

    run("--root", str(project))
    target = project / "tools" / "manifest.json"
    before = target.read_bytes()
    module = project / "tools" / "probe_tool.py"
    module.write_text(module.read_text().replace("A probe.", "A better probe."))

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", interrupted)
    result = runner().invoke(manifest_command, ["--root", str(project)])  # click: "Aborted!"
    monkeypatch.undo()

    assert result.exit_code != 0

    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["manifest.json", "probe_tool.py"]


def test_usage_errors_exit_2(tmp_path):
    result = run("--root", str(tmp_path / "missing"))
    assert result.exit_code == 2 and "not a directory" in result.stderr


# ============================================================== HRM501's examples


def hrm501_cases():
    rule = rule_by_code("HRM501")
    for number, example in enumerate(rule.valid_examples()):
        yield pytest.param(rule, example, [], id=f"HRM501-VALID-{number}")
    for number, example in enumerate(rule.invalid):
        expected = [(example.path, example.line, example.col)]
        yield pytest.param(rule, example, expected, id=f"HRM501-INVALID-{number}")


@pytest.mark.parametrize("rule, example, expected", list(hrm501_cases()))
def test_hrm501_examples_through_manifest_check(rule, example, expected):
    found = run_example(rule, example)
    assert [(d.path, d.line, d.col) for d in found] == expected
    if found and example.message:
        assert found[0].message == example.message


def test_an_environment_helper_that_branches_and_falls_back_is_a_template(tmp_path):
    # the real-world shape: a helper that returns the default when the variable is unset or
    # empty, converts it otherwise, and logs and falls back when the conversion fails
    source = """
    import logging
    import os
    from tools.registry import registry

    logger = logging.getLogger(__name__)

    def _env_number(name, default, converter):
        raw = os.getenv(name)
        if raw is None or raw == "":
            return default
        try:
            return converter(raw)
        except (TypeError, ValueError):
            logger.warning("bad %s: %r", name, raw)
            return default

    LIMIT = _env_number("NOTES_LIMIT", 600, int)
    SCHEMA = {"name": "notes", "description": f"Notes of up to {LIMIT} characters.",
              "parameters": {"type": "object", "properties": {}}}

    registry.register(name="notes", toolset="p", schema=SCHEMA, handler=lambda args, **kw: "", check_fn=lambda: True)
    """
    make_project(tmp_path, {"notes_tool": source}, toolsets=None)
    tool = generate(tmp_path).data["tools"]["notes"]
    read = {"env": "NOTES_LIMIT"}
    assert tool["holes"] == [{"path": ["description"], "template": {"concat": [
        {"const": "Notes of up to "},
        {"format": {
            "if": {"or": [{"is_none": read}, {"eq": [read, {"const": ""}]}]},
            "then": {"const": 600},
            "else": {"try": {"call": "int", "args": [read]}, "except": ["TypeError", "ValueError"],
                     "fallback": {"const": 600}},
        }, "spec": "", "conversion": ""},
        {"const": " characters."},
    ]}}]
    assert tool["import_for_definitions"] is False


def test_a_helper_that_branches_on_the_environment_with_shared_state_is_not_a_template(tmp_path):
    # the two ways of the `if` would see each other's list: no template, the tool is imported
    source = """
    import os
    from tools.registry import registry

    def _choices(name):
        found = []
        if os.getenv(name):
            found.append("remote")
        found.append("local")
        return ", ".join(found)

    SCHEMA = {"name": "notes", "description": f"Where: {_choices('NOTES_REMOTE')}.",
              "parameters": {"type": "object", "properties": {}}}

    registry.register(name="notes", toolset="p", schema=SCHEMA, handler=lambda args, **kw: "", check_fn=lambda: True)
    """
    make_project(tmp_path, {"notes_tool": source}, toolsets=None)
    tool = generate(tmp_path).data["tools"]["notes"]
    assert tool["holes"] == [{"path": ["description"], "reason": "environment variable NOTES_REMOTE (in _choices) (line 6)"}]
    assert tool["import_for_definitions"] is True


def test_a_handler_made_by_a_module_factory_is_frozen_via_import(tmp_path):
    source = """
    import json
    from tools.registry import registry

    SCHEMA = {"name": "chat", "description": "Chat.", "parameters": {"type": "object", "properties": {}}}

    def _make_handler(action):
        def handle(args, **kw):
            return json.dumps({"action": action})
        return handle

    registry.register(name="chat", toolset="p", schema=SCHEMA, handler=_make_handler("send"), check_fn=lambda: True)
    """
    make_project(tmp_path, {"chat_tool": source}, toolsets=None)
    generated = generate(tmp_path)
    assert generated.data["import_only"] == {}
    assert generated.data["tools"]["chat"]["handler"] == "via import"


def test_a_tool_module_with_a_syntax_error_is_left_out_and_the_writer_says_so(project):
    (project / "tools" / "broken_tool.py").write_text(
        "from tools.registry import registry\nregistry.register(name='b', toolset='p', schema={}, handler=\n"
    )
    result = run("--root", str(project))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0].startswith("tools/broken_tool.py: left out: HRM001 syntax error")
    assert result.stderr.splitlines()[0].endswith("(runtime discovery skips it too)")
    data = json.loads((project / "tools" / "manifest.json").read_text())
    assert "b" not in data["tools"] and "tools/broken_tool.py" in data["sources"]
