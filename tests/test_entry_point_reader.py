"""One reader of a package's entry points, of every group, with where each is declared; what the
plugin discovery (``hermes_agent.plugins``) and HRM812 (a misnamed group) take from it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hermes_lint.project.entry_point_groups import MisnamedGroup, misnamed_groups
from hermes_lint.project.entry_point_reader import (
    DeclaredEntryPoint,
    UnreadableDeclaration,
    declared_entry_points,
)
from hermes_lint.project.plugins import EntryPoint, entry_points


def write(root: Path, files: dict) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def read(root: Path):
    return [(f.declared_in, f.entries, f.unreadable) for f in declared_entry_points(root)]


def test_every_group_of_every_file_is_read_with_its_lines(tmp_path):
    root = write(tmp_path, {
        "pyproject.toml": '[project]\nname = "n"\n\n[project.entry-points."hermes_agent.plugins"]\nnotes = "notes_plugin"\n'
        '\n[project.entry-points]\nconsole = { run = "notes_plugin.cli:main" }\n',
        "setup.cfg": "[options.entry_points]\nhermes.plugins =\n    notes = notes_plugin\n",
        "notes.egg-info/entry_points.txt": "[console_scripts]\nnotes = notes_plugin.cli:main\n",
    })
    assert read(root) == [
        ("pyproject.toml", (
            DeclaredEntryPoint("hermes_agent.plugins", "notes", "notes_plugin", "pyproject.toml", 5, 4),
            DeclaredEntryPoint("console", "run", "notes_plugin.cli:main", "pyproject.toml", 8, 8),
        ), ()),
        ("setup.cfg", (DeclaredEntryPoint("hermes.plugins", "notes", "notes_plugin", "setup.cfg", 3, 2),), ()),
        ("notes.egg-info/entry_points.txt", (
            DeclaredEntryPoint("console_scripts", "notes", "notes_plugin.cli:main", "notes.egg-info/entry_points.txt", 2, 1),
        ), ()),
    ]
    # each question takes the first file declaring its groups
    assert entry_points(root) == [EntryPoint("notes", "notes_plugin", "pyproject.toml", 5)]
    assert misnamed_groups(root) == [MisnamedGroup("hermes.plugins", "setup.cfg", 2, ("notes",))]


SETUP_TWO_CALLS = '''import sys
from setuptools import setup

EPS = {"hermes_agent.plugins": ["notes = notes_plugin"]}

if sys.version_info >= (3, 11):
    setup(name="notes", entry_points=EPS)
else:
    setup(
        name="notes",
        entry_points={
            "hermes_agent.plugins": ["notes = notes_plugin", "extra = notes_plugin.extra"],
            **OTHER,
        },
    )
'''


def test_every_setup_call_is_read_and_a_row_declared_twice_counts_once(tmp_path):
    root = write(tmp_path, {"setup.py": SETUP_TWO_CALLS})
    assert read(root) == [("setup.py", (
        DeclaredEntryPoint("hermes_agent.plugins", "notes", "notes_plugin", "setup.py", 4, 4),
        DeclaredEntryPoint("hermes_agent.plugins", "extra", "notes_plugin.extra", "setup.py", 12, 12),
    ), (UnreadableDeclaration("setup.py", 13, 15, "`**OTHER` in `entry_points=` is not a literal"),))]
    assert [e.name for e in entry_points(root)] == ["notes", "extra"]


def test_what_setup_py_does_not_spell_out_is_unreadable_at_its_place(tmp_path):
    cases = {
        "setup(entry_points=_eps())\n": UnreadableDeclaration("setup.py", 1, 20, "`entry_points=_eps()` is not a literal"),
        "EPS = {}\nEPS = {'hermes_agent.plugins': ['a = b']}\nsetup(entry_points=EPS)\n":
            UnreadableDeclaration("setup.py", 3, 20, "`entry_points=EPS`: `EPS` is bound more than once"),
        "def main():\n    setup(entry_points=EPS)\n":
            UnreadableDeclaration("setup.py", 2, 24, "`entry_points=EPS`: `EPS` is not bound at module level"),
        "setup(entry_points={'hermes_agent.plugins': [f'{NAME} = pkg']})\n":
            UnreadableDeclaration("setup.py", 1, 46, "the entry point `f'{NAME} = pkg'` of `hermes_agent.plugins` is not a literal"),
        "setup(entry_points={GROUP: ['a = pkg']})\n":
            UnreadableDeclaration("setup.py", 1, 21, "the group `GROUP` in `entry_points=` is not a literal"),
    }
    for number, (text, unreadable) in enumerate(cases.items()):
        root = write(tmp_path / str(number), {"setup.py": text})
        assert read(root) == [("setup.py", (), (unreadable,))], text
        assert entry_points(root) == []
    # declaring none is not unreadable
    root = write(tmp_path / "none", {"setup.py": "setup(name='x', entry_points=None)\n"})
    assert read(root) == []


def test_dynamic_entry_points_are_read_from_setup_files_else_unreadable_at_dynamic(tmp_path):
    pyproject = '[project]\nname = "notes"\nversion = "1"\ndynamic = ["entry-points"]\n'
    alone = write(tmp_path / "alone", {"pyproject.toml": pyproject})
    reason = ("pyproject.toml lists `entry-points` in `dynamic` (the build backend computes them) and neither "
              "setup.cfg nor setup.py declares them")
    assert read(alone) == [("pyproject.toml", (), (UnreadableDeclaration("pyproject.toml", 4, 1, reason),))]
    with_cfg = write(tmp_path / "cfg", {
        "pyproject.toml": pyproject,
        "setup.cfg": "[options.entry_points]\nhermes_agent.plugins =\n    notes = notes_plugin\n",
    })
    assert read(with_cfg) == [
        ("setup.cfg", (DeclaredEntryPoint("hermes_agent.plugins", "notes", "notes_plugin", "setup.cfg", 3, 2),), ()),
    ]
    assert entry_points(with_cfg) == [EntryPoint("notes", "notes_plugin", "setup.cfg", 3)]
    # a static dynamic list without entry-points: nothing to say
    assert read(write(tmp_path / "scripts", {"pyproject.toml": pyproject.replace("entry-points", "scripts")})) == []


# --- through the CLI -----------------------------------------------------------------------

REGISTER = (
    'SCHEMA = {"name": "notes_add", "description": "Add a note.", "parameters": {"type": "object", "properties": {}}}\n'
    "\n\ndef register(ctx):\n"
    "    ctx.register_tool(name='notes_add', toolset='notes', schema=SCHEMA, handler=lambda a, **k: '{}', check_fn=bool)\n"
)


def check(cwd: Path, *args: str):
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", *args],
        cwd=cwd, capture_output=True, text=True, env=environ, timeout=120,
    )
    return completed.returncode, completed.stdout.splitlines(), completed.stderr


def test_a_computed_setup_entry_point_is_cannot_verify_not_nothing_found(tmp_path):
    root = write(tmp_path / "notes", {
        "setup.py": "from setuptools import setup\n\nNAME = 'notes'\n"
        "setup(name='hermes-notes', entry_points={'hermes_agent.plugins': [f'{NAME} = notes_plugin']})\n",
        "notes_plugin/__init__.py": REGISTER,
    })
    assert check(root) == (1, [
        "setup.py:4:67: HRM813 cannot verify this package's entry points: the entry point `f'{NAME} = notes_plugin'` "
        "of `hermes_agent.plugins` is not a literal: whether Hermes loads a plugin from it (a `hermes_agent.plugins` "
        "entry point) is not checked",
    ], "Found 1 diagnostic in 1 file (0 tools)\n")
    # spelt out, the plugin is found and its tool checked
    (root / "setup.py").write_text(
        "from setuptools import setup\n\nsetup(name='hermes-notes', entry_points={'hermes_agent.plugins': "
        "['notes = notes_plugin']})\n"
    )
    assert check(root) == (0, [], "All checks passed (1 tool in 1 plugin)\n")
