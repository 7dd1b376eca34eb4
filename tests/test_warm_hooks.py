"""The commit hooks warm (``check --changed FILES`` and ``manifest --check`` with the caches of
earlier runs): what they report, and what they import and read to report it. Each run is a new
process, as pre-commit starts them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.test_cli import GOOD_TOOL, make_project

REPO_ROOT = Path(__file__).resolve().parents[1]
# a second tool with a module finding (HRM306), and a toolset with a project finding (HRM405);
# neither has a fix (a fixable finding's report works its fix out, with every rule)
SHOUT = GOOD_TOOL.replace('"echo"', '"shout"').replace('"description": "Text to repeat."', '"minLength": 1')
TOOLSETS = """\
TOOLSETS = {
    "demo": {"description": "Demo tools", "tools": ["echo", "shout"], "includes": ["extras"]},
}
"""
HRM306 = "tools/shout_tool.py:20:24: HRM306 parameter `text` has no description"
HRM405 = "toolsets.py:2:84: HRM405 toolset 'demo' includes unknown toolset 'extras'"

# Runs the command line in this process, then prints its exit status, the hermes_lint modules
# of ``WATCHED`` it imported and the rule modules it imported.
SCRIPT = """
import json, sys
from hermes_lint.cli import main
WATCHED = ('hermes_lint.check.engine', 'hermes_lint.project.plugin_register', 'hermes_lint.rules')
try:
    main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
loaded = sorted(m for m in sys.modules if m in WATCHED)
rules = sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('hermes_lint.rules.hrm'))
print(json.dumps([code, loaded, rules]), file=sys.stderr)
"""


def run(root: Path, *args: str):
    """(exit status, stdout, modules of WATCHED loaded, rule modules loaded)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = str(REPO_ROOT)
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args], cwd=root, capture_output=True, text=True,
                          timeout=120, env=environment)
    assert "Traceback" not in done.stderr, done.stderr
    code, loaded, rules = json.loads(done.stderr.strip().splitlines()[-1])
    return code, done.stdout, loaded, rules


def settle(root: Path) -> None:
    """Every file and directory an hour old: past the racy window (``regular_files.settled``)."""
    past = os.stat(root).st_mtime - 3600
    for path in sorted([*root.rglob("*"), root], key=lambda p: len(p.parts), reverse=True):
        if ".hermes_lint_cache" not in path.parts:
            os.utime(path, (past, past))


def warm_project(tmp_path: Path) -> Path:
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL, "shout_tool.py": SHOUT}, TOOLSETS)
    settle(root)
    run(root, "check")  # the caches a developer has
    return root


def test_warm_check_changed_reports_the_project_findings_and_imports_only_their_rules(tmp_path):
    root = warm_project(tmp_path)
    assert run(root, "check", "--no-cache")[:2] == (1, f"{HRM306}\n{HRM405}\n")
    # nothing passed: the project rules' findings only, wherever they are
    # (the rules of the findings are imported to tell which are project rules: those alone)
    catalogue, rules = ["hermes_lint.rules"], ["hrm306_missing_description", "hrm405_toolset_includes"]
    assert run(root, "check", "--changed") == (1, f"{HRM405}\n", catalogue, rules)
    # a file without findings passed: the same
    assert run(root, "check", "--changed", "tools/echo_tool.py") == (1, f"{HRM405}\n", catalogue, rules)
    # the file with the module finding passed: both
    assert run(root, "check", "--changed", "tools/shout_tool.py") == (1, f"{HRM306}\n{HRM405}\n", catalogue, rules)


def test_warm_check_changed_on_a_clean_project_imports_no_rule(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    settle(root)
    run(root, "check")
    assert run(root, "check", "--changed", "tools/echo_tool.py") == (0, "", [], [])


def test_warm_manifest_check_imports_neither_the_engine_nor_plugin_following(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    settle(root)
    assert run(root, "manifest")[0] == 0
    settle(root)
    run(root, "manifest", "--check")  # records the manifest up to date with settled stats
    assert run(root, "manifest", "--check") == (0, "", [], [])


def test_a_project_without_plugins_keeps_no_plugin_sites_record_and_a_plugin_added_later_is_checked(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    settle(root)
    run(root, "check")
    (root / "tools" / "echo_tool.py").write_text(GOOD_TOOL + "\n", encoding="utf-8")
    settle(root)
    code, output, loaded, _ = run(root, "check")
    assert (code, output) == (0, "") and "hermes_lint.check.engine" in loaded  # a module checked
    assert not (root / ".hermes_lint_cache" / "plugin-sites-v1.json").exists()
    plugin = root / "plugins" / "shouting"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: shouting\nversion: '1'\ndescription: d\n", encoding="utf-8")
    (plugin / "__init__.py").write_text(
        SHOUT.replace("from tools.registry import registry\n", "")
        .replace("registry.register(", "def register(ctx):\n    ctx.register_tool(")
        .replace("\n    name=", "\n        name=").replace("\n    toolset=", "\n        toolset=")
        .replace("\n    schema=", "\n        schema=").replace("\n    handler=", "\n        handler=")
        .replace("\n    check_fn=check_echo,\n)", "\n        check_fn=check_echo,\n    )"),
        encoding="utf-8",
    )
    settle(root)
    cold = run(root, "check", "--no-cache", "-j", "1")[:2]
    assert "shout" in cold[1], cold
    assert run(root, "check", "-j", "1")[:2] == cold
    assert (root / ".hermes_lint_cache" / "plugin-sites-v1.json").is_file()  # plugins now: recorded
    assert run(root, "check", "-j", "1")[:2] == cold


NOTES_PLUGIN = {
    "pyproject.toml": '[project]\nname = "hermes-notes"\nversion = "1.0"\n\n'
    '[project.entry-points."hermes_agent.plugins"]\nnotes = "notes_plugin"\n',
    "notes_plugin/__init__.py": 'SCHEMA = {"name": "notes_add", "description": "Add a note.", '
    '"parameters": {"type": "object", "properties": {}}}\n\n\ndef register(ctx):\n'
    "    ctx.register_tool(name='notes_add', toolset='notes', schema=SCHEMA, handler=lambda a, **k: '{}', check_fn=bool)\n",
}


def test_the_run_that_creates_the_cache_directory_records_what_the_next_run_reuses(tmp_path):
    # A plugin package: its project phase reads through the root (pyproject.toml, the modules),
    # so its record holds the root directory's stat, which creating the cache directory changes.
    root = tmp_path / "notes"
    for path, text in NOTES_PLUGIN.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    settle(root)
    assert not (root / ".hermes_lint_cache").exists()
    assert run(root, "check", "-j", "1")[:2] == (0, "")
    cache = root / ".hermes_lint_cache"
    assert sorted(p.name for p in cache.iterdir() if p.is_file()) == [
        ".gitignore", "CACHEDIR.TAG", "plugin-sites-v1.json", "project-v2.json", "results-v4.json",
    ]
    # the second run reuses both records: it neither discovers the plugin nor checks a module
    assert run(root, "check", "-j", "1") == (0, "", [], [])
    # and an edit after them is seen
    (root / "notes_plugin" / "__init__.py").write_text(NOTES_PLUGIN["notes_plugin/__init__.py"].replace(", check_fn=bool", ""))
    settle(root)
    code, output, loaded, _ = run(root, "check", "-j", "1")
    assert (code, output.split(": HRM")[0]) == (1, "notes_plugin/__init__.py:5:5") and "hermes_lint.check.engine" in loaded
