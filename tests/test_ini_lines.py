"""``ini_lines.config_sections`` finds the sections, keys and value rows configparser reads (it
gives their lines; the values stay configparser's)."""

from __future__ import annotations

import configparser

import pytest

from hermes_lint.project.ini_lines import config_sections

TEXTS = [
    "[metadata]\nname = n\nlong_description =\n    line one\n\n    [not.a.section]\n    a = b\n[options.entry_points]\n"
    "hermes_agent.plugins = notes = notes_plugin\nconsole_scripts =\n  # a comment\n  ; another\n    x = y:main\n",
    "  [indented]\n  key: value\n    more\n  other=1\n[s]\nk =\n",
    "[a]\nk = v\n# comment at column 0 inside the value\n  continued\n[b] trailing\nz = 1\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_keys_and_rows_are_configparsers(text):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment, method-assign]
    parser.read_string(text)
    expected = {
        section: {key: [row for row in value.split("\n") if row] for key, value in parser.items(section, raw=True)}
        for section in parser.sections()
    }
    found = {s.name: {k.name: [row for _, row in k.rows] for k in s.keys} for s in config_sections(text)}
    assert found == expected


def test_each_key_and_row_has_its_line():
    (metadata, entry_points) = config_sections(TEXTS[0])
    assert [(k.name, k.line, k.rows) for k in entry_points.keys] == [
        ("hermes_agent.plugins", 9, [(9, "notes = notes_plugin")]),
        ("console_scripts", 10, [(13, "x = y:main")]),
    ]
    assert (metadata.line, entry_points.line) == (1, 8)
