"""What a package's packaging files declare that cannot be read is reported where it is
(HRM813), never read as "no entry point"; entry points are located at their own line. Through
the real CLI, at the root of a fresh plugin package."""

from __future__ import annotations

from pathlib import Path
from tests.project_files import check_lines as check

REGISTER = (
    'SCHEMA = {"name": "notes_add", "description": "Add a note.", "parameters": {"type": "object", "properties": {}}}\n'
    "\n\ndef register(ctx):\n"
    "    ctx.register_tool(name='notes_add', toolset='notes', schema=SCHEMA, handler=lambda a, **k: '{}', check_fn=bool)\n"
)
TAIL = ": whether Hermes loads a plugin from it (a `hermes_agent.plugins` entry point) is not checked"
FOUND_PLUGIN = "All checks passed (1 tool in 1 plugin)\n"


def package(root: Path, files: dict) -> Path:
    for path, text in {"notes_plugin/__init__.py": REGISTER, **files}.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
    return root


def cannot_verify(where: str, reason: str) -> str:
    return f"{where}: HRM813 cannot verify this package's entry points: {reason}{TAIL}"


ONE_FINDING = "Found 1 diagnostic in 1 file (0 tools)\n"


# --- a packaging file that does not parse ------------------------------------------------------


def test_a_setup_py_that_does_not_parse_is_cannot_verify_at_the_syntax_error(tmp_path):
    root = package(tmp_path / "notes", {
        "setup.py": "from setuptools import setup\n\n"
        "setup(name='hermes-notes', entry_points={'hermes_agent.plugins': ['notes = notes_plugin']}\n",
    })
    assert check(root) == (1, [cannot_verify("setup.py:3:6", "setup.py does not parse: '(' was never closed")],
                           ONE_FINDING)


def test_a_setup_cfg_with_a_broken_header_is_cannot_verify_at_that_line(tmp_path):
    root = package(tmp_path / "notes", {
        "setup.cfg": "[metadata]\nname = hermes-notes\n\n[options.entry_points\n"
        "hermes_agent.plugins =\n    notes = notes_plugin\n",
    })
    assert check(root) == (1, [cannot_verify(
        "setup.cfg:4:1",
        "setup.cfg does not parse: `[options.entry_points` is neither a `[section]` header nor a `name = value` row",
    )], ONE_FINDING)


def test_a_pyproject_toml_that_does_not_parse_is_cannot_verify_at_the_toml_error(tmp_path):
    # the project's own settings come from --config: pyproject.toml is only packaging here
    root = package(tmp_path / "notes", {
        "pyproject.toml": '[project]\nname = "hermes-notes"\n\n[project.entry-points."hermes_agent.plugins"]\n'
        'notes = "notes_plugin\n',
        "lint.toml": 'select = ["HRM"]\n',
    })
    assert check(root, "--config", "lint.toml") == (1, [cannot_verify(
        "pyproject.toml:5:22", "pyproject.toml does not parse: Illegal character '\\n'",
    )], ONE_FINDING)


def test_a_broken_packaging_file_about_a_misspelt_group_is_kept_and_one_about_none_is_not(tmp_path):
    setup = "from setuptools import setup\n\nsetup(name='hermes-notes', entry_points={'{group}': ['notes = notes_plugin']}\n"
    root = package(tmp_path / "notes", {"setup.py": setup.replace("{group}", "hermes.plugins")})
    assert check(root, "--root", ".") == (1, [cannot_verify("setup.py:3:6", "setup.py does not parse: '(' was never closed")],
                                          ONE_FINDING)
    (root / "setup.py").write_text(setup.replace("{group}", "console_scripts"))
    code, out, err = check(root, "--root", ".")
    assert (code, out) == (0, [])
    assert err.startswith("Nothing checked: no tool registration found")


def test_a_pyproject_with_bare_cr_line_endings_is_read_like_the_settings_read_it(tmp_path):
    root = package(tmp_path / "notes", {
        "pyproject.toml": '[project]\rname = "hermes-notes"\r\r[project.entry-points."hermes_agent.plugins"]\r'
        'notes = "notes_plugin"\r\r[tool.hermes-lint]\rstrict = false\r',
    })
    assert check(root) == (0, [], FOUND_PLUGIN)


# --- setup.py: a name the module changes after binding it ---------------------------------------

SETUP_EPS = "from setuptools import setup\n\nEPS = {'console_scripts': ['notes = notes_plugin:main']}\n{change}\n" \
    "setup(name='hermes-notes', packages=['notes_plugin'], entry_points=EPS)\n"


def test_entry_points_a_module_changes_after_binding_them_are_cannot_verify(tmp_path):
    changes = [
        "EPS['hermes_agent.plugins'] = ['notes = notes_plugin']",
        "EPS.update({'hermes_agent.plugins': ['notes = notes_plugin']})",
        "EPS.setdefault('hermes_agent.plugins', []).append('notes = notes_plugin')",
        "EPS['console_scripts'].append('notes = notes_plugin')",
        "EPS |= {'hermes_agent.plugins': ['notes = notes_plugin']}",
    ]
    for number, change in enumerate(changes):
        root = package(tmp_path / f"notes{number}", {"setup.py": SETUP_EPS.replace("{change}", change)})
        assert check(root, "--root", ".") == (1, [cannot_verify(
            "setup.py:5:68", "`entry_points=EPS`: `EPS` is changed at line 4",
        )], ONE_FINDING), change


def test_a_name_only_read_after_binding_it_is_its_literal(tmp_path):
    setup = SETUP_EPS.replace("{change}", "GROUPS = list(EPS.keys()) + [EPS.get('x')]").replace(
        "'console_scripts': ['notes = notes_plugin:main']", "'hermes_agent.plugins': ['notes = notes_plugin']")
    assert check(package(tmp_path / "notes", {"setup.py": setup})) == (0, [], FOUND_PLUGIN)


# --- setup.py: setup(**kwargs) ------------------------------------------------------------------


def test_setup_given_its_arguments_by_a_double_star_is_cannot_verify_at_the_merged_value(tmp_path):
    root = package(tmp_path / "notes", {
        "setup.py": "from setuptools import setup\n\n"
        "kw = dict(name='hermes-notes', entry_points={'hermes_agent.plugins': ['notes = notes_plugin']})\n"
        "setup(**kw)\n",
    })
    assert check(root) == (1, [cannot_verify("setup.py:4:9", "`setup(**kw)` may pass `entry_points=`")], ONE_FINDING)


def test_an_explicit_entry_points_beside_a_double_star_is_read(tmp_path):
    root = package(tmp_path / "notes", {
        "setup.py": "from setuptools import setup\n\nkw = dict(name='hermes-notes')\n"
        "setup(entry_points={'hermes_agent.plugins': ['notes = notes_plugin']}, **kw)\n",
    })
    assert check(root) == (0, [], FOUND_PLUGIN)


def test_a_double_star_of_a_dict_display_is_read_for_its_entry_points_key(tmp_path):
    root = package(tmp_path / "notes", {
        "setup.py": "from setuptools import setup\n\n"
        "KW = {'name': 'hermes-notes', 'entry_points': {'hermes_agent.plugins': ['notes = notes_plugin']}}\n"
        "setup(**KW)\n",
    })
    assert check(root) == (0, [], FOUND_PLUGIN)


# --- setup.py: only setuptools' setup() -----------------------------------------------------------


def test_another_objects_setup_method_declares_nothing_beside_setuptools_setup(tmp_path):
    root = package(tmp_path / "notes", {
        "setup.py": "import setuptools\nfrom docs_kit import app\n\napp.setup(entry_points=make_hooks())\n"
        "setuptools.setup(name='hermes-notes', entry_points={'console_scripts': ['notes = notes_plugin:main']})\n",
    })
    code, out, err = check(root, "--root", ".")
    assert (code, out) == (0, [])
    assert err.startswith("Nothing checked: no tool registration found")
    # the same computed value given to setuptools' setup is what cannot be verified
    (root / "setup.py").write_text("import setuptools\n\nsetuptools.setup(name='hermes-notes', entry_points=make_hooks())\n")
    assert check(root, "--root", ".") == (1, [cannot_verify(
        "setup.py:3:52", "`entry_points=make_hooks()` is not a literal")], ONE_FINDING)


def test_setup_is_read_however_setuptools_or_distutils_binds_it(tmp_path):
    entry_points = "entry_points={'hermes_agent.plugins': ['notes = notes_plugin']}"
    for number, (imports, call) in enumerate([
        ("from setuptools import setup", "setup"),
        ("from setuptools import setup as build", "build"),
        ("from setuptools import *", "setup"),
        ("import setuptools as st", "st.setup"),
        ("from distutils.core import setup", "setup"),
        ("import distutils.core", "distutils.core.setup"),
        ("from distutils import core", "core.setup"),
    ]):
        root = package(tmp_path / f"notes{number}", {"setup.py": f"{imports}\n\n{call}(name='hermes-notes', {entry_points})\n"})
        assert check(root) == (0, [], FOUND_PLUGIN), imports
    # a setup() nothing imported from setuptools is not setuptools'
    root = package(tmp_path / "other", {"setup.py": f"from docs_kit import setup\n\nsetup(name='hermes-notes', {entry_points})\n"})
    code, out, err = check(root, "--root", ".")
    assert (code, out) == (0, [])
    assert err.startswith("Nothing checked: no tool registration found")


# --- pyproject.toml: entry points as inline tables and dotted keys --------------------------------

MISNAMED = ("HRM812 entry point group `hermes.plugins` (`{name}`) is not the one Hermes reads: its plugin loader lists "
            "only `hermes_agent.plugins` entry points, so a pip install of this package loads no plugin; name the "
            "group `hermes_agent.plugins`")
MISSING = ('HRM801 entry point `{entry}` names module `missing`, which is not in this project: ep.load() raises '
           'ModuleNotFoundError unless another installed distribution provides it, and Hermes logs "Failed to load plugin"')
PROJECT = '[project]\nname = "hermes-notes"\nversion = "1.0"\n'


def test_a_group_written_inside_the_project_table_is_located_at_its_own_key(tmp_path):
    for number, (declaration, name) in enumerate([
        ('entry-points = { "hermes.plugins" = { name = "notes_plugin" } }\n', "name"),
        ('entry-points."hermes.plugins".notes = "notes_plugin"\n', "notes"),
        ('entry-points.hermes.plugins = { notes = "notes_plugin" }\n', None),  # the group `hermes` of key `plugins`
    ]):
        root = package(tmp_path / f"notes{number}", {"pyproject.toml": PROJECT + declaration})
        code, out, err = check(root, "--root", ".")
        if name is None:
            assert (code, out) == (0, []) and err.startswith("Nothing checked"), declaration
            continue
        assert (code, out) == (1, ["pyproject.toml:4:1: " + MISNAMED.format(name=name)]), declaration
        assert err == ("Found 1 diagnostic in 1 file (1 tool in 1 plugin; Hermes does not load it: entry point group "
                       "`hermes.plugins` is not `hermes_agent.plugins`)\n")


def test_an_entry_point_is_located_within_its_own_table_never_at_a_same_named_key_elsewhere(tmp_path):
    root = package(tmp_path / "notes", {"pyproject.toml": PROJECT
        + 'entry-points."hermes_agent.plugins".name = "missing"\n\n[tool.other]\nname = "x"\n'})
    assert check(root)[:2] == (1, ["pyproject.toml:4:1: " + MISSING.format(entry='name = "missing"')])
    root = package(tmp_path / "inline", {"pyproject.toml": PROJECT
        + '\n[project.entry-points]\n"hermes_agent.plugins" = { notes = "missing" }\n\n[tool.other]\nnotes = "x"\n'})
    assert check(root)[:2] == (1, ["pyproject.toml:6:1: " + MISSING.format(entry='notes = "missing"')])
    root = package(tmp_path / "table", {"pyproject.toml": PROJECT
        + '\n[project.entry-points."hermes_agent.plugins"]\n# the plugin\nnotes = "missing"\n'})
    assert check(root)[:2] == (1, ["pyproject.toml:7:1: " + MISSING.format(entry='notes = "missing"')])


# --- setup.py: how a name is bound, and what a value is -------------------------------------------

ROWS = "{'hermes_agent.plugins': ['notes = notes_plugin']}"


def test_an_annotated_module_constant_is_its_literal(tmp_path):
    root = package(tmp_path / "notes", {"setup.py": f"from setuptools import setup\n\nEPS: dict = {ROWS}\n"
                                        "setup(name='hermes-notes', entry_points=EPS)\n"})
    assert check(root) == (0, [], FOUND_PLUGIN)


def test_a_name_bound_in_both_branches_of_an_if_is_bound_more_than_once(tmp_path):
    root = package(tmp_path / "notes", {"setup.py": "import sys\nfrom setuptools import setup\n\n"
                                        f"if sys.platform == 'win32':\n    EPS = {ROWS}\nelse:\n    EPS = {ROWS}\n"
                                        "setup(name='hermes-notes', entry_points=EPS)\n"})
    assert check(root) == (1, [cannot_verify("setup.py:8:41", "`entry_points=EPS`: `EPS` is bound more than once")],
                           ONE_FINDING)


def test_a_name_bound_once_but_not_to_a_literal_says_how(tmp_path):
    for number, (binding, why) in enumerate([
        (f"if sys.platform == 'win32':\n    EPS = {ROWS}", "`EPS` is bound conditionally at line 5"),
        ("from notes_plugin.meta import EPS", "`EPS` is bound by an import at line 4"),
        (f"EPS, OTHER = {ROWS}, None", "`EPS` is bound by unpacking at line 4"),
    ]):
        root = package(tmp_path / f"notes{number}", {"setup.py": f"import sys\nfrom setuptools import setup\n\n{binding}\n"
                                                     "setup(name='hermes-notes', entry_points=EPS)\n"})
        line = 4 + binding.count("\n") + 1
        assert check(root, "--root", ".") == (
            1, [cannot_verify(f"setup.py:{line}:41", f"`entry_points=EPS`: {why}")], ONE_FINDING), binding


def test_a_literal_of_another_type_is_not_a_dict_or_ini_text_and_a_call_is_not_a_literal(tmp_path):
    for number, (value, why) in enumerate([
        ("1", "`entry_points=1` is not a dict or ini-style text"),
        ("['notes = notes_plugin']", "`entry_points=['notes = notes_plugin']` is not a dict or ini-style text"),
        ("dict(EPS)", "`entry_points=dict(EPS)` is not a literal"),
    ]):
        root = package(tmp_path / f"notes{number}", {"setup.py": "from setuptools import setup\n\n"
                                                     f"setup(name='hermes-notes', entry_points={value})\n"})
        assert check(root, "--root", ".") == (1, [cannot_verify("setup.py:3:41", why)], ONE_FINDING), value
