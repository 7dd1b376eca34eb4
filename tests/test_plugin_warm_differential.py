"""A plugin package checked warm (the cache of earlier runs kept) prints what ``--no-cache``
prints after each edit that changes what plugin discovery finds: a module ``register`` follows
edited, a module it imports created, plugin.yaml edited, the entry point in pyproject.toml
changed. What an edit changed is moved past the racy window (``regular_files.settled``), so
that a cache keyed on stats trusts it; nothing else is touched. Each run is a new process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

PYPROJECT = (
    '[project]\nname = "demo-plugin"\nversion = "1.0"\n\n'
    '[project.entry-points."hermes_agent.plugins"]\ndemo = "demo_plugin"\n'
)
MANIFEST = "name: demo\nversion: '1'\ndescription: d\nprovides_tools: [alpha]\n"
REGISTER = (
    "from .alpha import register_tools as _alpha\n"
    "from .beta import register_tools as _beta\n\n\n"
    "def register(ctx):\n    _alpha(ctx)\n    _beta(ctx)\n"
)


def tool_module(name: str) -> str:
    return (
        "import json\n\n\n"
        "def handle(args, **kwargs):\n    return json.dumps({'ok': True})\n\n\n"
        f"SCHEMA = {{'name': '{name}', 'description': 'Look up {name}.', "
        "'parameters': {'type': 'object', 'properties': {}}}\n\n\n"
        f"def register_tools(ctx):\n    ctx.register_tool(name='{name}', toolset='demo', schema=SCHEMA, handler=handle)\n"
    )


def settle(root: Path, *only: Path) -> None:
    """Every file and directory (or those of ``only``) an hour old: past the racy window. (It
    moves their change time, which a stat key compares: a settled file counts as changed.)"""
    past = os.stat(root).st_mtime - 3600
    paths = [p for p in root.rglob("*") if ".hermes_lint_cache" not in p.parts] + [root]
    for path in sorted(only or paths, key=lambda p: len(p.parts), reverse=True):
        os.utime(path, (past, past))


def check(root: Path, *args: str) -> tuple:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = str(REPO_ROOT)
    done = subprocess.run([sys.executable, "-m", "hermes_lint", "check", "-j", "1", *args], cwd=root,
                          capture_output=True, text=True, timeout=120, env=environment)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


# Each edit rewrites a file in place (its directory's stat unchanged) or creates one (its
# directory's changes), and returns what it changed.
def edit_followed_module(root: Path) -> tuple:  # the context now handed on to a helper
    text = tool_module("alpha_two").replace("def register_tools(ctx):\n", "def register_tools(ctx):\n    _add(ctx)\n\n\ndef _add(ctx):\n")
    (root / "demo_plugin" / "alpha.py").write_text(text, encoding="utf-8")
    return (root / "demo_plugin" / "alpha.py",)


def create_imported_module(root: Path) -> tuple:
    (root / "demo_plugin" / "beta.py").write_text(tool_module("beta"), encoding="utf-8")
    return root / "demo_plugin" / "beta.py", root / "demo_plugin"


def edit_plugin_yaml(root: Path) -> tuple:
    (root / "demo_plugin" / "plugin.yaml").write_text(MANIFEST.replace("[alpha]", "[alpha_two, beta]"), encoding="utf-8")
    return (root / "demo_plugin" / "plugin.yaml",)


def change_entry_point(root: Path) -> tuple:
    (root / "pyproject.toml").write_text(PYPROJECT.replace('"demo_plugin"', '"demo_plugin.alpha"'), encoding="utf-8")
    return (root / "pyproject.toml",)


def test_after_each_discovery_edit_a_warm_check_prints_what_a_cold_one_does(tmp_path):
    root = tmp_path / "project"
    (root / "demo_plugin").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (root / "demo_plugin" / "plugin.yaml").write_text(MANIFEST, encoding="utf-8")
    (root / "demo_plugin" / "__init__.py").write_text(REGISTER, encoding="utf-8")
    (root / "demo_plugin" / "alpha.py").write_text(tool_module("alpha"), encoding="utf-8")
    settle(root)
    check(root)  # fills the cache
    check(root)  # a run that may trust the stats the first one recorded
    previous = check(root, "--no-cache")
    assert check(root) == previous
    # what the warm runs below trust when no input changed (``check.sites_record``)
    assert (root / ".hermes_lint_cache" / "plugin-sites-v1.json").is_file()
    for edit in (edit_followed_module, create_imported_module, edit_plugin_yaml, change_entry_point):
        settle(root, *edit(root))
        warm = check(root)
        cold = check(root, "--no-cache")
        assert cold[0] in (0, 1), cold
        assert cold != previous, f"{edit.__name__} changed nothing a check prints"
        assert warm == cold, edit.__name__
        assert check(root) == cold, edit.__name__  # the run after: what the warm one recorded
        previous = cold


def test_a_module_created_where_discovery_only_looked_for_it_is_seen_by_a_warm_check(tmp_path):
    """``src/demo_plugin/sub/beta.py`` is looked for (its stat taken) and its directory never
    listed nor a file in it opened: only the directory's stat says it appeared."""
    root = tmp_path / "project"
    package = root / "src" / "demo_plugin"
    (package / "sub").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (package / "__init__.py").write_text(
        "from .sub.beta import register_tools as _beta\n\n\ndef register(ctx):\n    _beta(ctx)\n", encoding="utf-8"
    )
    (package / "sub" / "__init__.py").write_text("", encoding="utf-8")
    settle(root)
    check(root)
    check(root)
    before = check(root, "--no-cache")
    assert check(root) == before
    assert (root / ".hermes_lint_cache" / "plugin-sites-v1.json").is_file()
    (package / "sub" / "beta.py").write_text(tool_module("beta"), encoding="utf-8")
    settle(root, package / "sub" / "beta.py", package / "sub")
    cold = check(root, "--no-cache")
    assert cold != before and "`beta`" in cold[1], cold
    assert check(root) == cold
