"""A built distribution's ``entry_points.txt`` is read once, as ``importlib.metadata`` reads it
(Hermes lists installed plugins with it), and every entry point is located at its own row inside
its own section or key, never at a same-looking line elsewhere: through the real CLI, at the root
of an unpacked wheel or of a package, with the exact code, line and message a user sees."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from hermes_lint.project.entry_point_reader import declared_entry_points
from tests.project_files import check_lines as check

REGISTER = (
    'SCHEMA = {"name": "echo", "description": "Echo.", "parameters": {"type": "object", "properties": {}}}\n'
    "\n\ndef register(ctx):\n"
    "    ctx.register_tool(name='echo', toolset='echo', schema=SCHEMA, handler=lambda a, **k: '{}', check_fn=bool)\n"
)
MANIFEST = 'name: echo\nversion: "1"\ndescription: Echo.\n'
MISSING = ('HRM801 entry point `notes = "missing"` names module `missing`, which is not in this project: ep.load() raises '
           'ModuleNotFoundError unless another installed distribution provides it, and Hermes logs "Failed to load plugin"')
NO_REGISTER = ('HRM801 module `{path}` defines no `register`: Hermes logs "Plugin \'{name}\' has no register() '
               'function" and the plugin registers nothing')


def tree(root: Path, files: dict) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def wheel(root: Path, entry_points_txt: str, base: str = "", metadata: str = "hermes_echo-1.dist-info") -> Path:
    """An unpacked wheel (or, under src/, a built sdist) of a plugin whose package also holds a
    directory with a plugin.yaml that is no plugin of its own (no ``register``)."""
    return tree(root, {
        f"{base}hermes_echo/__init__.py": REGISTER,
        f"{base}hermes_echo/manifest/plugin.yaml": MANIFEST,
        f"{base}hermes_echo/manifest/__init__.py": '"""The manifest."""\n',
        f"{base}{metadata}/entry_points.txt": entry_points_txt,
    })


LOADED = "[hermes_agent.plugins]\necho = hermes_echo\n"
ALL_PASSED = "All checks passed (1 tool in 2 plugins)\n"


def test_an_unpacked_wheels_plugin_directory_is_not_reported_as_a_plugin_without_register(tmp_path):
    assert check(wheel(tmp_path / "flat", LOADED)) == (0, [], ALL_PASSED)


def test_a_built_sdists_metadata_under_src_is_a_built_distribution_too(tmp_path):
    # the metadata under src/ is where setuptools writes it for a src/ layout; another top-level
    # directory of the distribution with a plugin.yaml is found by the plugins-directory scan
    root = tree(tmp_path / "sdist", {
        "src/hermes_echo/__init__.py": REGISTER,
        "src/hermes_echo.egg-info/entry_points.txt": LOADED,
        "src/echo_manifest/plugin.yaml": MANIFEST,
        "src/echo_manifest/__init__.py": '"""The manifest."""\n',
    })
    assert check(root) == (0, [], ALL_PASSED)


def test_a_row_declared_twice_is_read_as_importlib_metadata_reads_it_not_dropped(tmp_path):
    # configparser refuses a duplicate key; importlib.metadata (what Hermes runs) reads both rows
    assert check(wheel(tmp_path / "twice", LOADED + "echo = hermes_echo\n")) == (0, [], ALL_PASSED)


def test_the_group_named_in_a_comment_or_another_group_declares_no_hermes_plugin(tmp_path):
    root = wheel(tmp_path / "console", "# hermes_agent.plugins: none\n[console_scripts]\necho = hermes_echo:main\n")
    assert check(root) == (1, [
        "hermes_echo/manifest/__init__.py:1:1: " + NO_REGISTER.format(path="hermes_echo/manifest/__init__.py", name="manifest"),
    ], "Found 1 diagnostic in 1 file (0 tools in 1 plugin)\n")


def test_a_row_importlib_metadata_cannot_read_is_cannot_verify_at_that_row(tmp_path):
    root = wheel(tmp_path / "broken", "[console_scripts]\necho = hermes_echo:main\n\n[hermes_agent.plugins]\necho hermes_echo\n")
    assert check(root) == (1, [
        "hermes_echo-1.dist-info/entry_points.txt:5:1: HRM813 cannot verify this package's entry points: "
        "hermes_echo-1.dist-info/entry_points.txt does not parse: `echo hermes_echo` is not a `name = value` row "
        "(importlib.metadata raises ValueError reading it): whether Hermes loads a plugin from it (a "
        "`hermes_agent.plugins` entry point) is not checked",
    ], "Found 1 diagnostic in 1 file (0 tools in 1 plugin)\n")


@pytest.mark.parametrize("text", [
    LOADED,
    "[console_scripts]\necho = hermes_echo:main\n[hermes_agent.plugins]\necho = hermes_echo\necho = hermes_echo\n",
    "stray = before_any_group\n[hermes_agent.plugins]\n  # a comment\n; semi = colon_row\n\n  echo=hermes_echo [extra]\n",
    "[hermes_agent.plugins]\necho = hermes_echo\n[hermes_agent.plugins]\nother = hermes_echo.other\n",
    "[ hermes_agent.plugins ]\necho = a=b\n",
])
def test_the_metadata_reader_reads_what_importlib_metadata_reads(tmp_path, text):
    root = tree(tmp_path, {"pkg-1.dist-info/entry_points.txt": text})
    expected = [(ep.group, ep.name, ep.value) for ep in importlib.metadata.Distribution.at(root / "pkg-1.dist-info").entry_points]
    (file,) = declared_entry_points(root)
    read = [(entry.group, entry.name, entry.value) for entry in file.entries]
    assert read == list(dict.fromkeys(expected))  # a row declared identically twice counts once


# --- every row at its own line ---------------------------------------------------------------


def notes(root: Path, files: dict) -> Path:
    return tree(root, {"notes_plugin/__init__.py": "def register(ctx):\n    pass\n", **files})


def test_a_setup_cfg_row_on_its_groups_own_line_is_located_there_not_at_a_same_named_row_below(tmp_path):
    root = notes(tmp_path / "notes", {"setup.cfg": "[metadata]\nname = hermes-notes\n\n[options.entry_points]\n"
                                      "hermes_agent.plugins = notes = missing\nconsole_scripts =\n"
                                      "    notes = notes_plugin.cli:main\n"})
    assert check(root)[:2] == (1, ["setup.cfg:5:1: " + MISSING])


def test_a_setup_cfg_row_is_located_in_its_own_section_not_in_a_value_that_quotes_it(tmp_path):
    root = notes(tmp_path / "notes", {"setup.cfg": "[metadata]\nname = hermes-notes\nlong_description =\n"
                                      "    Declare it so:\n    [options.entry_points]\n    hermes_agent.plugins =\n"
                                      "        notes = missing\n\n[options.entry_points]\n# the plugin\n"
                                      "hermes_agent.plugins =\n    ; was: notes = old\n    notes = missing\n"})
    assert check(root)[:2] == (1, ["setup.cfg:13:1: " + MISSING])


def test_each_of_two_same_named_rows_of_a_setup_cfg_group_is_located_at_its_own_line(tmp_path):
    # two rows named alike in one group: both read, each at its line (the second at the second)
    root = notes(tmp_path / "notes", {"setup.cfg": "[options.entry_points]\nhermes_agent.plugins =\n"
                                      "    notes = missing\n    notes = missing.two\n"})
    out = check(root)[1]
    assert [line.split(": HRM")[0] for line in out] == ["setup.cfg:3:1", "setup.cfg:4:1"]


def test_an_entry_points_txt_row_is_located_in_its_own_section(tmp_path):
    root = notes(tmp_path / "notes", {"x-1.dist-info/entry_points.txt": "[console_scripts]\nnotes = notes_plugin.cli:main\n"
                                      "[hermes_agent.plugins]\n# notes = notes_plugin\nnotes = missing\n"})
    assert check(root)[:2] == (1, ["x-1.dist-info/entry_points.txt:5:1: " + MISSING])


def test_a_setup_py_ini_text_row_is_located_in_its_own_section_of_the_literal(tmp_path):
    root = notes(tmp_path / "notes", {"setup.py": 'from setuptools import setup\n\nsetup(\n    name="hermes-notes",\n'
                                      '    entry_points="""\n[console_scripts]\nnotes = notes_plugin.cli:main\n'
                                      '[hermes_agent.plugins]\nnotes = missing\n""",\n)\n'})
    assert check(root)[:2] == (1, ["setup.py:9:1: " + MISSING])


# --- pyproject.toml: a key inside a multi-line string or array is no key ------------------------

PYPROJECT_HEAD = '[project]\nname = "hermes-notes"\nversion = "1.0"\n'


@pytest.mark.parametrize("before, line", [
    # a multi-line basic string quoting the table and the key
    ('description = """\n[project.entry-points."hermes_agent.plugins"]\nnotes = "notes_plugin"\n"""\n', 10),
    # a multi-line literal string, closed by four quotes (the last three close it)
    ("[tool.docs]\nexample = '''\n[project.entry-points.\"hermes_agent.plugins\"]\nnotes = 'x''''\n", 10),
    # an escaped quote before the closing quotes, and a string that opens and closes on one line
    ('[tool.docs]\nsame_line = """notes = 1"""\nexample = """\\"""\n[project.entry-points."hermes_agent.plugins"]\n'
     'notes = "x"\n\\""""\n', 12),
    # a multi-line array whose row looks like a table header, and a key after it
    ('[tool.matrix]\nrows = [\n  ["project"],\n]\nentry-points = { "hermes_agent.plugins" = { notes = "x" } }\n', 11),
])
def test_a_pyproject_entry_point_is_located_at_its_key_not_at_the_same_text_in_a_string_or_array(tmp_path, before, line):
    toml = PYPROJECT_HEAD + before + '\n[project.entry-points."hermes_agent.plugins"]\nnotes = "missing"\n'
    root = notes(tmp_path / "notes", {"pyproject.toml": toml})
    assert toml.split("\n")[line - 1] == 'notes = "missing"'
    assert check(root)[:2] == (1, [f"pyproject.toml:{line}:1: " + MISSING])


# --- a pyproject.toml that is not TOML: where, and why ----------------------------------------


def test_a_broken_pyproject_of_a_plugin_package_is_an_error_at_its_line_with_the_parsers_reason(tmp_path):
    root = notes(tmp_path / "notes", {"pyproject.toml": PYPROJECT_HEAD
                                      + '\n[project.entry-points."hermes_agent.plugins"]\nnotes = "notes_plugin\n'})
    expected = (2, [], f"hermes-lint: error: {root.resolve() / 'pyproject.toml'}:6:22: not valid TOML: Illegal character '\\n'\n")
    assert check(root) == expected
    assert check(root / "notes_plugin") == expected  # from inside the package, the same
    # the end of the file is where an unclosed value stops the parser
    (root / "pyproject.toml").write_text(PYPROJECT_HEAD + '[tool.hermes-lint]\nselect = ["HRM"\n')
    assert check(root) == (2, [], f"hermes-lint: error: {root.resolve() / 'pyproject.toml'}: not valid TOML: "
                           "Unclosed array (at the end of the file)\n")


def test_a_broken_pyproject_of_a_hermes_tree_is_an_error_at_its_line(tmp_path):
    root = tree(tmp_path / "hermes", {"toolsets.py": "TOOLSETS = {}\n", "tools/__init__.py": "",
                                      "pyproject.toml": "[tool.hermes-lint\nselect = []\n"})
    assert check(root) == (2, [], f"hermes-lint: error: {root.resolve() / 'pyproject.toml'}:1:18: not valid TOML: "
                           "Expected ']' at the end of a table declaration\n")


def test_a_packaging_pyproject_unclosed_at_its_end_is_cannot_verify_at_its_last_line(tmp_path):
    # the settings come from --config: pyproject.toml is only packaging here (HRM813)
    root = notes(tmp_path / "notes", {"pyproject.toml": PYPROJECT_HEAD + '\n[project.entry-points."hermes_agent.plugins"]\n'
                                      'notes = ["notes_plugin"\n\n', "lint.toml": 'select = ["HRM"]\n'})
    assert check(root, "--config", "lint.toml")[:2] == (1, [
        "pyproject.toml:6:1: HRM813 cannot verify this package's entry points: pyproject.toml does not parse: Unclosed "
        "array (at the end of the file): whether Hermes loads a plugin from it (a `hermes_agent.plugins` entry point) "
        "is not checked",
    ])
