"""``hermes-lint new-tool``: rendering, byte-exact toolsets.py edits, refusals, atomic writes.

The end-to-end tests scaffold into a temporary project (the repo's ``tools/registry.py``, an
empty ``tools/__init__.py`` and a ``toolsets.py``), then lint it and load it with the real
runtime in a subprocess whose ``tools`` package is the temporary one.
"""

from __future__ import annotations

import ast
import difflib
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from hermes_lint import atomic

from hermes_lint.scaffold import tool as scaffold
from hermes_lint.atomic import write_atomic, write_new
from hermes_lint.scaffold.tool import ToolSpec, available_templates, load_template, render_template, render_tool
from hermes_lint.cli.new_tool import new_tool
from hermes_lint.edit.toolsets_edit import ToolsetsEditError, add_tool
from tests.test_packaging import build_wheel, copy_source, skip_when_the_index_is_unreachable

REPO_ROOT = Path(__file__).resolve().parents[1]
LAYOUTS = Path(__file__).resolve().parent / "fixtures" / "toolsets_layouts"

MINIMAL_TOOLSETS = '''\
"""Toolsets of the test project."""

_HERMES_CORE_TOOLS = [
]

TOOLSETS = {
    "hermes-cli": {
        "description": "Everything the interactive CLI agent gets",
        "tools": _HERMES_CORE_TOOLS,
        "includes": [],
    },
}
'''

# The scaffolded variants every end-to-end test runs: each template, with and without --env.
# variant -> (command-line options, the environment variables the tool then requires)
VARIANTS = {
    "basic": ([], []),
    "basic-env": (["--env", "WEATHER_API_KEY"], ["WEATHER_API_KEY"]),
    "async": (["--async"], []),
    "async-env-core": (
        ["--async", "--env", "WEATHER_API_KEY,WEATHER_REGION", "--core"],
        ["WEATHER_API_KEY", "WEATHER_REGION"],
    ),
}


# The runtime a project without a manifest runs on: the registry and the modules it imports
# for import discovery, dispatch, the plugin and toolset rules, and the names importable from
# tools.registry that live elsewhere (``from tools.registry import tool_error``).
RUNTIME_FILES = ("registry.py", "tool_entry.py", "import_discovery.py", "dispatch_results.py",
                 "plugin_policy.py", "toolset_queries.py", "tool_definitions.py", "check_cache.py",
                 "tool_results.py", "registry_names.py")


def make_project(root: Path, toolsets: str = MINIMAL_TOOLSETS) -> Path:
    (root / "tools").mkdir(parents=True)
    (root / "tools" / "__init__.py").write_text("")
    for name in RUNTIME_FILES:
        shutil.copy(REPO_ROOT / "tools" / name, root / "tools" / name)
    (root / "toolsets.py").write_text(toolsets)
    return root


def snapshot(root: Path) -> dict:
    """Every file under ``root`` with its bytes: "nothing written" means this does not change."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def new_tool_cli(root: Path, *args: str):
    return CliRunner().invoke(new_tool, [*args, "--root", str(root)], catch_exceptions=False)


def only_insertions(old: bytes, new: bytes) -> list:
    """The lines ``new`` adds to ``old``; fails if any line of ``old`` changed or went away."""
    old_lines = old.decode("utf-8").splitlines(keepends=True)
    new_lines = new.decode("utf-8").splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    inserted = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        assert tag in ("equal", "insert"), f"{tag}: {old_lines[i1:i2]} -> {new_lines[j1:j2]}"
        if tag == "insert":
            inserted.extend(new_lines[j1:j2])
    return inserted


def lint(root: Path):
    from hermes_lint.cli import main

    return CliRunner().invoke(main, ["check", "--root", str(root)], catch_exceptions=False)


# --------------------------------------------------------------------- the scaffolded file


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_scaffolded_tool_passes_check_with_zero_findings(tmp_path, variant):
    root = make_project(tmp_path)
    result = new_tool_cli(root, "weather", "--description", "Get the current weather.", *VARIANTS[variant][0])
    assert result.exit_code == 0, result.output
    checked = lint(root)
    assert (checked.exit_code, checked.stdout) == (0, "")


def test_scaffolded_tool_adds_no_findings_to_a_copy_of_this_repo(tmp_path):
    shutil.copytree(REPO_ROOT / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "toolsets.py", tmp_path / "toolsets.py")
    before = lint(tmp_path)
    result = new_tool_cli(tmp_path, "weather", "--env", "WEATHER_API_KEY", "--core")
    assert result.exit_code == 0, result.output
    after = lint(tmp_path)
    assert "weather" not in after.output
    assert after.exit_code == before.exit_code


SUBPROCESS_PROBE = textwrap.dedent(
    """
    import json, os, sys
    import tools
    from tools.registry import discover_builtin_tools, registry

    assert os.path.dirname(tools.__file__) == os.path.join(os.getcwd(), "tools"), tools.__file__
    report = {"imported": discover_builtin_tools()}
    entry = registry.get_entry("weather")
    report["entry"] = {
        "toolset": entry.toolset,
        "is_async": entry.is_async,
        "requires_env": entry.requires_env,
        "available": bool(entry.check_fn()),
    }
    report["definitions"] = registry.get_definitions(["weather"])
    report["ok"] = registry.dispatch("weather", {"input": "London"}, task_id="t1")
    report["bad_input"] = registry.dispatch("weather", {"input": 42})
    print(json.dumps(report))
    """
)


def probe_runtime(root: Path, env_values: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEATHER_")}
    env.update(env_values, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    completed = subprocess.run(
        [sys.executable, "-c", SUBPROCESS_PROBE],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_scaffolded_tool_is_discovered_and_answers_dispatch(tmp_path, variant):
    root = make_project(tmp_path)
    args, required_env = VARIANTS[variant]
    assert new_tool_cli(root, "weather", *args).exit_code == 0

    report = probe_runtime(root, {var: "set" for var in required_env})
    assert report["imported"] == ["tools.weather_tool"]
    assert report["entry"]["toolset"] == "weather"
    assert report["entry"]["is_async"] == ("--async" in args)
    assert report["entry"]["requires_env"] == required_env
    assert report["entry"]["available"] is True
    assert [d["function"]["name"] for d in report["definitions"]] == ["weather"]
    assert json.loads(report["ok"]) == {"input": "London"}
    assert json.loads(report["bad_input"]) == {"error": "input must be a non-empty string"}

    if required_env:  # one variable missing: the check fails, and so does a dispatch
        unconfigured = probe_runtime(root, {var: "set" for var in required_env[:-1]})
        assert unconfigured["entry"]["available"] is False
        assert unconfigured["definitions"] == []
        error = json.loads(unconfigured["ok"])["error"]
        assert error == "weather is not configured: set " + " and ".join(required_env)


def test_rendered_file_has_the_documented_shape():
    source = render_tool(
        ToolSpec("weather", "weather", "Get the weather.", env=("A_KEY", "B_KEY"), template="async")
    )
    tree = ast.parse(source)
    assert ast.get_docstring(tree).startswith("Weather Tool -- Get the weather.")
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert isinstance(functions["_handle_weather"], ast.AsyncFunctionDef)
    assert [a.arg for a in functions["_handle_weather"].args.args] == ["args"]
    assert functions["_handle_weather"].args.kwarg.arg == "kwargs"
    check = functions["check_weather_requirements"]
    assert ast.unparse(check.body[-1]) == (
        "return bool(os.getenv('A_KEY')) and bool(os.getenv('B_KEY'))"
    )
    register = tree.body[-1].value
    assert ast.unparse(register.func) == "registry.register"
    assert not register.args  # keyword arguments only
    keywords = {kw.arg: ast.unparse(kw.value) for kw in register.keywords}
    assert keywords == {
        "name": "'weather'",
        "toolset": "'weather'",
        "schema": "WEATHER_SCHEMA",
        "handler": "_handle_weather",
        "check_fn": "check_weather_requirements",
        "requires_env": "['A_KEY', 'B_KEY']",
        "is_async": "True",
    }
    assert not [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and ast.unparse(node) == "asyncio.run"
    ]
    schema_node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "WEATHER_SCHEMA")
    schema = ast.literal_eval(schema_node.value)
    assert schema["name"] == "weather"
    assert schema["parameters"]["required"] == ["input"]
    assert set(schema["parameters"]["properties"]) == {"input"}
    assert "args.get('input')" in ast.unparse(functions["_handle_weather"])


def test_basic_template_without_env_checks_nothing():
    source = render_tool(ToolSpec("echo_back", "demo", "Echo."))
    assert "def check_echo_back_requirements():\n    \"\"\"Always available" in source
    assert "    return True\n" in source
    assert "import os" not in source and "requires_env" not in source
    assert "is_async" not in source and "async def" not in source


def test_description_is_quoted_wrapped_and_kept_exactly():
    description = 'Say "hi" \\ to $name ' + "and carry on. " * 12
    source = render_tool(ToolSpec("greet", "demo", description.strip()))
    tree = ast.parse(source)
    schema = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "GREET_SCHEMA")
    assert ast.literal_eval(schema.value)["description"] == description.strip()
    assert max(len(line) for line in source.splitlines()) <= 99
    assert ast.get_docstring(tree).startswith('Greet Tool -- Say "hi" \\ to $name')


def test_templates_are_package_data():
    assert {"basic", "async"} <= set(available_templates())


def test_block_placeholders_take_the_line_indentation_or_vanish():
    text = "def f():\n    ${body}\n    ${empty}\n    return ${value}\n"
    rendered = render_template(text, {"body": "a = 1\nif a:\n    b = 2", "empty": "", "value": "$x"})
    assert rendered == "def f():\n    a = 1\n    if a:\n        b = 2\n    return $x\n"


TEMPLATE_PROBE = (  # run in a fresh process: where hermes_lint is, its templates, one rendered
    "import hermes_lint, hermes_lint.scaffold.tool as s; "
    "print(hermes_lint.__file__); print(s.available_templates()); "
    "print(len(s.render_tool(s.ToolSpec('w', 'w', 'W.', template='async'))))"
)


def assert_templates_found(python: str, tmp_path: Path, installed_at: Path, env=None) -> None:
    ran = subprocess.run(
        [python, "-c", TEMPLATE_PROBE], cwd=tmp_path, capture_output=True, text=True,
        env=env, timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    location, templates, size = ran.stdout.splitlines()
    assert location.startswith(str(installed_at))
    assert set(ast.literal_eval(templates)) == {"basic", "async"}
    assert int(size) > 0


def test_the_checkout_reads_the_top_level_templates():
    assert sorted(path.name for path in (REPO_ROOT / "templates").iterdir()) == ["async.py.tmpl", "basic.py.tmpl", "plugin"]
    assert not (REPO_ROOT / "hermes_lint" / "templates").exists()
    assert load_template("basic") == (REPO_ROOT / "templates" / "basic.py.tmpl").read_text(encoding="utf-8")


@pytest.mark.slow
def test_templates_are_found_when_installed_from_a_wheel(tmp_path):
    wheel = build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert "hermes_lint/templates/basic.py.tmpl" in names
    assert "hermes_lint/templates/async.py.tmpl" in names
    target = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:  # a wheel is installed by unpacking it
        archive.extractall(target)
    assert_templates_found(sys.executable, tmp_path, target, env={**os.environ, "PYTHONPATH": str(target)})


@pytest.mark.slow
def test_templates_are_found_from_an_editable_install(tmp_path):
    source = copy_source(tmp_path / "src")
    environment = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(environment)], check=True, timeout=120)
    python = str(environment / "bin" / "python")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", "-e", str(source)],
        capture_output=True, text=True, timeout=600,
    )
    skip_when_the_index_is_unreachable(installed)
    assert installed.returncode == 0, installed.stderr
    # the dependencies (click, libcst...) from this environment, after the editable install's own
    # path entries (.pth files are read in name order: "__editable__..." comes first)
    site_packages = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()
    (Path(site_packages) / "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    assert_templates_found(python, tmp_path, source, env=env)


# --------------------------------------------------------------------- toolsets.py edits


# (layout, toolset, --core, only lines inserted?)
LAYOUT_CASES = [
    ("one_line_list", "demo", False, False),  # the list's one line changes, nothing else
    ("one_per_line", "demo", False, True),
    ("no_trailing_comma", "demo", False, False),  # the last element gains its comma
    ("comments", "demo", False, True),
    ("empty_list", "demo", True, True),
    ("new_toolset", "weather", True, True),
    ("new_toolset_one_line", "weather", False, False),  # the last entry gains its comma
    ("core_reference", "hermes-cli", False, False),
    ("single_quotes", "weather", False, True),
]


@pytest.mark.parametrize("layout, toolset, core, insert_only", LAYOUT_CASES, ids=[c[0] for c in LAYOUT_CASES])
def test_toolsets_edit_is_byte_exact(layout, toolset, core, insert_only):
    before = (LAYOUTS / f"{layout}.before.py").read_bytes()
    expected = (LAYOUTS / f"{layout}.after.py").read_bytes()
    edit = add_tool(before, "weather", toolset, core=core, toolset_description="Weather tools")
    assert edit.source == expected
    if insert_only:
        only_insertions(before, edit.source)
    else:
        diff = difflib.ndiff(before.decode().splitlines(), edit.source.decode().splitlines())
        removed = [line for line in diff if line.startswith("- ")]
        assert len(removed) == 1, removed  # one line rewritten, the rest untouched


def test_toolsets_edit_of_this_repo_inserts_only_the_new_lines():
    before = (REPO_ROOT / "toolsets.py").read_bytes()
    edit = add_tool(before, "weather", "weather", core=True, toolset_description="Weather tools")
    inserted = only_insertions(before, edit.source)
    assert sorted(inserted) == sorted(
        [
            '    "weather",\n',
            '    "weather": {\n',
            '        "description": "Weather tools",\n',
            '        "tools": [\n',
            '            "weather",\n',
            '        ],\n',
            '        "includes": [],\n',
            '    },\n',
        ]
    )
    namespace: dict = {}
    exec(compile(edit.source, "toolsets.py", "exec"), namespace)
    assert namespace["resolve_toolset"]("weather") == ["weather"]
    assert namespace["resolve_toolset"]("hermes-cli")[-1] == "weather"
    assert namespace["validate_toolsets"]() == []


def test_toolsets_edit_keeps_crlf_line_endings():
    before = (
        b'TOOLSETS = {\r\n    "demo": {\r\n        "tools": [\r\n'
        b'            "echo",\r\n        ],\r\n    },\r\n}\r\n'
    )
    edit = add_tool(before, "weather", "demo")
    assert edit.source == before.replace(b'"echo",\r\n', b'"echo",\r\n            "weather",\r\n')


def test_toolsets_edit_leaves_an_already_listed_name_alone():
    before = (LAYOUTS / "one_per_line.before.py").read_bytes()
    edit = add_tool(before, "shout", "demo")
    assert edit.source == before
    assert edit.changes == ('"shout" is already listed in toolset "demo"',)


@pytest.mark.parametrize(
    "source, message",
    [
        ("TOOLSETS = {\n", "it cannot be parsed (line 1:"),
        ("X = 1\n", "no module-level `TOOLSETS = {...}` assignment"),
        ("TOOLSETS = dict(demo={})\n", "TOOLSETS is not a dict literal (it is `dict(demo={})`)"),
        ("TOOLSETS = {**BASE}\n", "it spreads `**BASE`"),
        ("TOOLSETS = {NAME: {}}\n", "a key that is not a string literal: `NAME`"),
        ('TOOLSETS = {"demo": make()}\n', 'toolset "demo" is not a dict literal'),
        ('TOOLSETS = {"demo": {"description": "d"}}\n', 'toolset "demo" has no "tools" key'),
        ('TOOLSETS = {"demo": {"tools": ("a",)}}\n', 'the "tools" of toolset "demo" is not a list literal'),
        ('TOOLSETS = {"demo": {"tools": sorted(A)}}\n', "is not a list literal (it is `sorted(A)`)"),
        ('TOOLSETS = {"demo": {"tools": OTHER}}\n', "`OTHER`, which is not a module-level list literal"),
    ],
)
def test_toolsets_edit_refuses_what_it_cannot_edit_literally(source, message):
    with pytest.raises(ToolsetsEditError) as caught:
        add_tool(source.encode(), "weather", "demo")
    assert message in str(caught.value)


def test_core_needs_a_core_list():
    with pytest.raises(ToolsetsEditError, match="no module-level `_HERMES_CORE_TOOLS = \\[...\\]`"):
        add_tool(b'TOOLSETS = {"demo": {"tools": []}}\n', "weather", "demo", core=True)


def test_core_list_must_be_a_list_literal():
    with pytest.raises(ToolsetsEditError) as caught:
        add_tool(b'TOOLSETS = {"demo": {"tools": []}}\n_HERMES_CORE_TOOLS = ("a",)\n', "weather", "demo", core=True)
    assert str(caught.value) == "_HERMES_CORE_TOOLS is not a list literal (it is `(\"a\",)`)"


# --------------------------------------------------------------------- the command


def test_new_tool_writes_the_file_and_the_exact_toolsets_edit(tmp_path):
    root = make_project(tmp_path)
    before = (root / "toolsets.py").read_bytes()
    result = new_tool_cli(root, "weather", "--toolset", "outdoors", "--core")
    assert result.exit_code == 0, result.output
    assert "created tools/weather_tool.py" in result.output
    assert 'toolsets.py: created toolset "outdoors" with tools ["weather"]' in result.output
    assert 'toolsets.py: added "weather" to _HERMES_CORE_TOOLS' in result.output
    assert (root / "tools" / "weather_tool.py").read_text() == render_tool(
        ToolSpec("weather", "outdoors", scaffold.default_description("weather"), core=True)
    )
    inserted = only_insertions(before, (root / "toolsets.py").read_bytes())
    assert "".join(inserted) == (
        '    "weather",\n'
        '    "outdoors": {\n'
        '        "description": "Outdoors tools",\n'
        '        "tools": [\n'
        '            "weather",\n'
        '        ],\n'
        '        "includes": [],\n'
        '    },\n'
    )
    assert sorted(p.name for p in root.iterdir()) == ["tools", "toolsets.py"]  # no temp files
    assert sorted(p.name for p in (root / "tools").iterdir()) == sorted(
        ["__init__.py", "weather_tool.py", *RUNTIME_FILES])


def test_dry_run_prints_the_file_and_the_diff_and_writes_nothing(tmp_path):
    root = make_project(tmp_path)
    before = snapshot(root)
    result = new_tool_cli(root, "weather", "--env", "WEATHER_API_KEY", "--dry-run")
    assert result.exit_code == 0, result.output
    assert snapshot(root) == before
    assert "# would create tools/weather_tool.py\n" in result.output
    assert 'requires_env=["WEATHER_API_KEY"],' in result.output
    assert "--- a/toolsets.py\n+++ b/toolsets.py\n" in result.output
    assert '+    "weather": {\n' in result.output
    assert result.output.endswith("# dry run: nothing was written\n")


def test_dry_run_still_shows_the_file_when_toolsets_cannot_be_edited(tmp_path):
    root = make_project(tmp_path, toolsets="TOOLSETS = build()\n")
    before = snapshot(root)
    result = new_tool_cli(root, "weather", "--dry-run")
    assert result.exit_code == 2
    assert snapshot(root) == before
    assert 'registry.register(\n    name="weather",' in result.stdout
    assert "TOOLSETS is not a dict literal" in result.stderr


def hermes_lint_cli(root: Path, *args: str):
    """The real ``hermes-lint`` command group, run in ``root``."""
    from hermes_lint.cli import main

    return CliRunner().invoke(main, [*args, "--root", str(root)], catch_exceptions=False)


def test_existing_manifest_is_regenerated_with_the_new_tool_and_is_fresh(tmp_path):
    root = make_project(tmp_path)
    new_tool_cli(root, "echo")
    assert hermes_lint_cli(root, "manifest").exit_code == 0
    result = new_tool_cli(root, "weather", "--env", "WEATHER_API_KEY")
    assert result.exit_code == 0, result.output
    assert "wrote tools/manifest.json (2 tools: 2 frozen, 0 resolved at import)" in result.stdout
    manifest = json.loads((root / "tools" / "manifest.json").read_text())
    assert sorted(manifest["tools"]) == ["echo", "weather"]
    assert manifest["tools"]["weather"]["check"] == {"kind": "template", "template": {"env": "WEATHER_API_KEY"},
                                                     "function": "check_weather_requirements"}
    check = hermes_lint_cli(root, "manifest", "--check")
    assert check.exit_code == 0, check.output
    assert "is up to date" in check.output


def test_manifest_that_cannot_be_regenerated_keeps_the_tool_and_says_what_to_fix(tmp_path):
    root = make_project(tmp_path)
    new_tool_cli(root, "echo")
    assert hermes_lint_cli(root, "manifest").exit_code == 0
    before = (root / "tools" / "manifest.json").read_bytes()
    # An unrelated module registering "echo" a second time: generation must refuse.
    (root / "tools" / "copy_tool.py").write_text((root / "tools" / "echo_tool.py").read_text())
    result = new_tool_cli(root, "weather")
    assert result.exit_code == 1, result.output
    assert (root / "tools" / "weather_tool.py").is_file()
    assert (root / "tools" / "manifest.json").read_bytes() == before
    assert "HRM401" in result.stdout or "HRM402" in result.stdout
    assert (
        "hermes-lint: tools/weather_tool.py was created, but tools/manifest.json was not "
        "regenerated: fix the errors above, then run `hermes-lint manifest`"
    ) in result.stderr


def test_no_manifest_none_is_created(tmp_path):
    root = make_project(tmp_path)
    result = new_tool_cli(root, "weather")
    assert result.exit_code == 0, result.output
    assert not (root / "tools" / "manifest.json").exists()
    assert "manifest" not in result.output


def test_command_attaches_to_a_click_group(tmp_path):
    group = click.Group("hermes-lint", commands=[new_tool])
    root = make_project(tmp_path)
    result = CliRunner().invoke(group, ["new-tool", "weather", "--root", str(root), "--dry-run"])
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------- refusals

OTHER_TOOL = '''\
"""Another tool."""
import json

from tools.registry import registry

TOOL_NAME = "weather"


def check_other():
    return True


def _handle_other(args, **kwargs):
    return json.dumps({})


registry.register(
    name=TOOL_NAME,
    toolset="misc",
    schema={"name": TOOL_NAME, "description": "d", "parameters": {"type": "object", "properties": {}}},
    handler=_handle_other,
    check_fn=check_other,
)
'''


def assert_refused(root: Path, args, message: str) -> None:
    before = snapshot(root)
    result = new_tool_cli(root, *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("hermes-lint: error: ")
    assert message in result.stderr
    assert snapshot(root) == before


@pytest.mark.parametrize(
    "name, message",
    [
        ("Weather", "invalid tool name 'Weather'"),
        ("1weather", "invalid tool name '1weather'"),
        ("_weather", "invalid tool name '_weather'"),
        ("web-search", "invalid tool name 'web-search'"),
        ("w" * 65, "invalid tool name"),
        ("", "invalid tool name ''"),
        ("weather tool", "invalid tool name"),
        ("wéather", "invalid tool name"),
        ("class", "it is a Python keyword"),
        ("import", "it is a Python keyword"),
        ("mcp", "runtime discovery never imports mcp_tool.py"),
    ],
)
def test_refuses_bad_names(tmp_path, name, message):
    assert_refused(make_project(tmp_path), [name], message)


def test_accepts_the_longest_name(tmp_path):
    root = make_project(tmp_path)
    assert new_tool_cli(root, "w" * 64).exit_code == 0


def test_refuses_a_name_registered_by_another_file(tmp_path):
    root = make_project(tmp_path)
    (root / "tools" / "other_tool.py").write_text(OTHER_TOOL)
    assert_refused(
        root,
        ["weather", "--toolset", "elsewhere"],
        "a tool named 'weather' is already registered in tools/other_tool.py",
    )


def test_refuses_an_existing_file(tmp_path):
    root = make_project(tmp_path)
    (root / "tools" / "weather_tool.py").write_text('"""Helpers, no registration."""\n')
    assert_refused(root, ["weather"], "tools/weather_tool.py already exists; new-tool never overwrites a file")


@pytest.mark.parametrize(
    "toolsets, message",
    [
        ("TOOLSETS = {\n", "cannot edit toolsets.py: it cannot be parsed (line 1:"),
        ("TOOLSETS = build()\n", "TOOLSETS is not a dict literal"),
        ('TOOLSETS = {"weather": {"tools": list(X)}}\n', 'the "tools" of toolset "weather" is not a list literal'),
    ],
)
def test_refuses_a_toolsets_file_it_cannot_edit_and_says_what_to_do(tmp_path, toolsets, message):
    root = make_project(tmp_path, toolsets=toolsets)
    assert_refused(root, ["weather"], message)
    assert_refused(root, ["weather"], 'add "weather" to the "tools" list of toolset "weather"')


@pytest.mark.parametrize(
    "args, message",
    [
        (["--toolset", "has space"], "invalid toolset name 'has space'"),
        (["--toolset", "mcp-github"], "belong to MCP servers"),
        (["--env", "NOT-A-VAR"], "invalid environment variable name 'NOT-A-VAR'"),
        (["--description", "   "], "the description is empty"),
        (["--description", "Safe\u202etxt"], "U+202E"),
        (["--description", "x" * 1025], "the limit is 1024"),
        (["--template", "nope"], "unknown template 'nope' (available: async, basic)"),
        (["--async", "--template", "basic"], "--async asks for the 'async' template"),
    ],
)
def test_refuses_bad_options(tmp_path, args, message):
    assert_refused(make_project(tmp_path), ["weather", *args], message)


def test_refuses_a_project_without_toolsets(tmp_path):
    root = make_project(tmp_path)
    (root / "toolsets.py").unlink()
    assert_refused(root, ["weather"], "no toolsets.py in")


def test_toolsets_write_failure_takes_the_new_file_back(tmp_path, monkeypatch):
    root = make_project(tmp_path)
    before = snapshot(root)

    def failing_write(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(scaffold, "write_atomic", failing_write)
    result = new_tool_cli(root, "weather")
    assert result.exit_code == 2
    assert "cannot write toolsets.py: No space left on device" in result.stderr
    assert "tools/weather_tool.py was removed again" in result.stderr
    assert snapshot(root) == before


def test_toolsets_changed_after_planning_is_not_overwritten(tmp_path, monkeypatch):
    root = make_project(tmp_path)
    real_write_new = scaffold.write_new

    def write_new_then_someone_edits(path, data):
        real_write_new(path, data)
        with open(root / "toolsets.py", "a") as handle:
            handle.write("# edited meanwhile\n")

    monkeypatch.setattr(scaffold, "write_new", write_new_then_someone_edits)
    result = new_tool_cli(root, "weather")
    assert result.exit_code == 2
    assert "toolsets.py changed while new-tool was running" in result.stderr
    assert not (root / "tools" / "weather_tool.py").exists()
    assert (root / "toolsets.py").read_text().endswith("# edited meanwhile\n")


# --------------------------------------------------------------------- atomic writes


def test_write_new_never_overwrites(tmp_path):
    target = tmp_path / "a.txt"
    target.write_bytes(b"old")
    with pytest.raises(FileExistsError):
        write_new(target, b"new")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["a.txt"]


def test_write_new_creates_with_the_umask_mode(tmp_path):
    target = tmp_path / "a.txt"
    write_new(target, b"data")
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_bytes() == b"data"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert os.listdir(tmp_path) == ["a.txt"]


def test_write_new_falls_back_where_links_are_unsupported(tmp_path, monkeypatch):
    def no_links(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(atomic.os, "link", no_links)
    target = tmp_path / "a.txt"
    write_new(target, b"data")
    assert target.read_bytes() == b"data"
    assert os.listdir(tmp_path) == ["a.txt"]
    with pytest.raises(FileExistsError):
        write_new(target, b"other")
    assert target.read_bytes() == b"data"


def test_write_atomic_replaces_and_keeps_the_mode(tmp_path):
    target = tmp_path / "a.txt"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["a.txt"]


def test_write_atomic_leaves_the_old_file_when_the_rename_fails(tmp_path, monkeypatch):
    target = tmp_path / "a.txt"
    target.write_bytes(b"old")

    def failing_replace(src, dst):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(atomic.os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["a.txt"]



@pytest.mark.parametrize("link_supported", [True, False], ids=["link", "exclusive-create fallback"])
def test_write_new_loses_to_a_writer_that_creates_the_file_after_its_existence_check(tmp_path, monkeypatch, link_supported):
    target = tmp_path / "a.txt"
    real_write_temp = atomic._write_temp

    def another_writer_gets_there_first(path, data, mode):
        temp = real_write_temp(path, data, mode)
        target.write_bytes(b"theirs")  # after write_new looked, before it makes its file visible
        return temp

    monkeypatch.setattr(atomic, "_write_temp", another_writer_gets_there_first)
    if not link_supported:
        def no_link(src, dst):
            raise OSError(errno.EPERM, "Operation not permitted")

        monkeypatch.setattr(atomic.os, "link", no_link)
    with pytest.raises(FileExistsError):
        write_new(target, b"ours")
    assert target.read_bytes() == b"theirs"
    assert os.listdir(tmp_path) == ["a.txt"]  # no temporary file left behind

def test_importing_the_command_does_not_load_libcst():
    # cli.py imports the command at its top: `hermes-lint check` must not pay for libcst.
    code = "import sys, hermes_lint.cli.new_tool; print('libcst' in sys.modules)"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == "False", ran.stderr


def test_command_template_names_match_the_scaffold():
    from hermes_lint.cli import new_tool as scaffold_cli

    assert (scaffold_cli.DEFAULT_TEMPLATE, scaffold_cli.ASYNC_TEMPLATE) == (
        scaffold.DEFAULT_TEMPLATE,
        scaffold.ASYNC_TEMPLATE,
    )
