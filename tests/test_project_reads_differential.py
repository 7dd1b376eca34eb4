"""A warm ``check`` reuses the last run's whole result when nothing the project phase read
changed, although project rules read files through the project root; after an edit of any file
they read it prints what ``--no-cache`` prints.

The files: a plugin's plugin.yaml, pyproject.toml (its entry points, its dependencies), the
module an entry point names, the installed Hermes's tools (outside the project, found through
``importlib.metadata``), and the project's other files HRM403 searches for a listed tool's name
(one edited, one created in a new directory). Each edit is moved past the racy window
(``regular_files.settled``), as are the directories it changed; each run is a new process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

PYPROJECT = (
    '[project]\nname = "demo-plugin"\nversion = "1.0"\n\n'
    '[project.entry-points."hermes_agent.plugins"]\ndemo = "demo_plugin"\n'
)
MANIFEST = "name: demo\nversion: '1'\ndescription: d\nprovides_tools: [alpha, web_fetch]\n"
REGISTER = (
    "from .alpha import register_tools as _alpha\n\n\n"
    "def register(ctx):\n    _alpha(ctx)\n"
)


def tool_module(*names: str) -> str:
    calls = "".join(f"    ctx.register_tool(name='{n}', toolset='demo', schema=schema('{n}'), handler=handle, "
                    "check_fn=check_demo)\n" for n in names)
    return (
        "import json\n\n\n"
        "def check_demo():\n    return True\n\n\n"
        "def handle(args, **kwargs):\n    return json.dumps({'ok': True})\n\n\n"
        "def schema(name):\n"
        "    return {'name': name, 'description': 'Look it up.', 'parameters': {'type': 'object', 'properties': {}}}\n\n\n"
        f"def register_tools(ctx):\n{calls}"
    )


# An installed hermes-agent, as importlib.metadata finds it on sys.path: its recorded files.
INSTALLED = {
    "hermes_agent-0.19.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: hermes-agent\nVersion: 0.19.0\n",
    "hermes_agent-0.19.0.dist-info/RECORD": "tools/registry.py,,\ntools/web_tools.py,,\nhermes_cli/plugins.py,,\n",
    "tools/registry.py": "class ToolRegistry:\n    def register(self, name, toolset, schema, handler, **kwargs):\n        pass\n\n\n"
                         "registry = ToolRegistry()\n",
    "tools/web_tools.py": "from tools.registry import registry\n\n"
                          "registry.register(name='web_search', toolset='web', schema={}, handler=lambda a, **k: '')\n",
    "hermes_cli/plugins.py": "VALID_HOOKS = {'pre_tool_call', 'post_tool_call'}\n",
}

def run(root: Path, site: Path, *args: str):
    """(exit status, stdout) of ``check -j 1`` with ``site`` on the interpreter's path."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), str(site)])
    done = subprocess.run([sys.executable, "-m", "hermes_lint", "check", "-j", "1", *args], cwd=root,
                          capture_output=True, text=True, timeout=120, env=environment)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def run_warm(root: Path, site: Path):
    """(exit status, stdout, whether the last run's whole result was reused: a run that computes
    it stores it anew, replacing the cache's project file)."""
    project_file = root / ".hermes_lint_cache" / "project-v2.json"
    before = os.stat(project_file)
    result = run(root, site)
    after = os.stat(project_file)
    return (*result, (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns))


def settle(*paths: Path) -> None:
    """Each path, and everything under each directory among them, an hour old."""
    past = min(os.stat(p).st_mtime for p in paths) - 3600
    every = [p for given in paths for p in [given, *(given.rglob("*") if given.is_dir() else [])]]
    for path in sorted(every, key=lambda p: len(p.parts), reverse=True):
        if ".hermes_lint_cache" not in path.parts:
            os.utime(path, (past, past))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def assert_warm_follows_cold(root: Path, site: Path, edits) -> None:
    run(root, site)  # fills the cache (and creates its directory: the root changed during the run)
    run(root, site)  # a run whose reads were all settled when it started: recorded
    previous = run(root, site, "--no-cache")
    assert run_warm(root, site) == (*previous, True), "nothing changed: the last result, as it was"
    for edit in edits:
        changed = edit(root, site)
        settle(*changed)
        cold = run(root, site, "--no-cache")
        assert cold[0] in (0, 1), cold
        assert cold != previous, f"{edit.__name__} changed nothing a check prints"
        assert run_warm(root, site) == (*cold, False), edit.__name__
        assert run_warm(root, site) == (*cold, True), edit.__name__  # the run after: what that one kept
        previous = cold


@pytest.fixture
def plugin_project(tmp_path):
    root, site = tmp_path / "project", tmp_path / "site"
    write(root / "pyproject.toml", PYPROJECT)
    write(root / "demo_plugin" / "plugin.yaml", MANIFEST)
    write(root / "demo_plugin" / "__init__.py", REGISTER)
    write(root / "demo_plugin" / "alpha.py", tool_module("alpha", "web_fetch"))
    for name, text in INSTALLED.items():
        write(site / name, text)
    settle(root, site)
    return root, site


def edit_plugin_yaml(root: Path, site: Path) -> tuple:  # HRM808: declares a tool nothing registers
    write(root / "demo_plugin" / "plugin.yaml", MANIFEST.replace("web_fetch]", "web_fetch, gamma]"))
    return (root / "demo_plugin" / "plugin.yaml",)


def edit_dependencies(root: Path, site: Path) -> tuple:  # HRM807: a dependency without an upper bound
    write(root / "demo_plugin" / "plugin.yaml", MANIFEST + "python_dependencies:\n  - httpx>=0.27\n")
    return (root / "demo_plugin" / "plugin.yaml",)


def edit_entry_point_group(root: Path, site: Path) -> tuple:  # HRM812: a group Hermes does not read
    write(root / "pyproject.toml", PYPROJECT.replace('"hermes_agent.plugins"', '"hermes.plugins"'))
    return (root / "pyproject.toml",)


def edit_register_signature(root: Path, site: Path) -> tuple:  # HRM802: register takes two arguments
    write(root / "demo_plugin" / "__init__.py", REGISTER.replace("def register(ctx):", "def register(ctx, extra):"))
    return (root / "demo_plugin" / "__init__.py",)


def edit_installed_hermes(root: Path, site: Path) -> tuple:  # HRM810: web_fetch is now a built-in
    text = INSTALLED["tools/web_tools.py"] + "registry.register(name='web_fetch', toolset='web', schema={}, handler=lambda a, **k: '')\n"
    write(site / "tools" / "web_tools.py", text)
    return (site / "tools" / "web_tools.py",)


def test_a_plugin_package_warm_follows_every_file_the_plugin_rules_read(plugin_project):
    root, site = plugin_project
    assert_warm_follows_cold(root, site, [
        edit_plugin_yaml, edit_dependencies, edit_entry_point_group, edit_register_signature, edit_installed_hermes,
    ])


def test_the_installed_hermes_found_in_another_environment_is_read_again(plugin_project, tmp_path):
    """The same project checked by an interpreter whose ``sys.path`` holds another Hermes."""
    root, site = plugin_project
    other = tmp_path / "other_site"
    for name, text in INSTALLED.items():
        write(other / name, text)
    write(other / "tools" / "web_tools.py", INSTALLED["tools/web_tools.py"].replace("web_search", "web_fetch"))
    settle(other)
    run(root, site)
    run(root, site)
    assert run_warm(root, site)[2]  # reused
    here = run(root, other, "--no-cache")
    assert "HRM810" in here[1] and "HRM810" not in run(root, site)[1]
    assert run(root, other) == here


TOOLSETS = 'TOOLSETS = {\n    "demo": {"description": "Demo", "tools": ["echo", "todo"], "includes": []},\n}\n'
ECHO = (
    "import json\n\nfrom tools.registry import registry\n\n\n"
    "def handle(args, **kwargs):\n    return json.dumps({'text': args.get('text', '')})\n\n\n"
    "registry.register(name='echo', toolset='demo', handler=handle, check_fn=lambda: True, schema={\n"
    "    'name': 'echo', 'description': 'Repeat the text.',\n"
    "    'parameters': {'type': 'object', 'properties': {'text': {'type': 'string', 'description': 'Text.'}}},\n"
    "})\n"
)
AGENT_LOOP = "def answer(name):\n    return name == 'todo'  # the agent loop answers it itself\n"


def test_a_tools_tree_warm_follows_the_files_hrm403_searches(tmp_path):
    root, site = tmp_path / "project", tmp_path / "site"
    write(root / "toolsets.py", TOOLSETS)
    write(root / "tools" / "echo_tool.py", ECHO)
    write(root / "agent" / "loop.py", AGENT_LOOP)
    site.mkdir()
    settle(root, site)

    def drop_the_name(root: Path, site: Path) -> tuple:  # HRM403: `todo` found nowhere now
        write(root / "agent" / "loop.py", AGENT_LOOP.replace("'todo'", "'tasks'"))
        return (root / "agent" / "loop.py",)

    def name_it_in_a_new_directory(root: Path, site: Path) -> tuple:  # found again, in a new file
        write(root / "gateway" / "commands" / "todo.py", "NAME = 'todo'\n")
        return root / "gateway", root

    assert_warm_follows_cold(root, site, [drop_the_name, name_it_in_a_new_directory])


def test_a_warm_plugin_run_that_reuses_its_result_imports_no_plugin_following(plugin_project):
    root, site = plugin_project
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), str(site)])
    script = (
        "import sys\nfrom hermes_lint.cli import main\n"
        "try:\n    main(['check', '-j', '1'])\nexcept SystemExit as exit:\n"
        "    watched = ('hermes_lint.check.engine', 'hermes_lint.evaluate', 'hermes_lint.project.plugin_names')\n"
        "    print(exit.code, sorted(set(watched) & set(sys.modules)))\n"
    )
    # the first run fills the cache, the second records what it read (all of it settled), the third reuses it
    runs = [subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120,
                           env=environment).stdout for _ in range(3)]
    first = "0 ['hermes_lint.check.engine', 'hermes_lint.evaluate', 'hermes_lint.project.plugin_names']"
    assert runs[0].splitlines()[-1] == first
    assert runs[2].splitlines()[-1] == "0 []"
