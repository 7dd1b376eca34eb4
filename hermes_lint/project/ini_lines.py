"""Where the sections, keys and value rows of an ini-style file are written, read the way the
program that reads the file reads it, so that a row is located inside its own section and key:

- ``setup.cfg``, as setuptools reads it, with ``configparser`` (``[section]`` headers, ``name =
  value`` or ``name: value`` keys, lines indented deeper than their key continuing its value,
  ``#`` and ``;`` comment lines, which may sit inside a value); ``config_sections`` mirrors
  ``RawConfigParser._read`` with the default settings and gives only positions: the values are
  configparser's own;
- ``entry_points.txt`` of a built distribution, as Hermes's ``importlib.metadata`` reads it
  (``Sectioned``: every stripped line that is not blank and does not start with ``#`` is a
  ``[group]`` header or a ``name = value`` row of the group above; a row before any header is
  ignored; a row without ``=`` makes ``importlib.metadata`` raise ``ValueError``);
  ``metadata_entry_points`` is that reading, with each row's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

_SECTION = re.compile(r"\[(?P<header>.+)\]")  # configparser's SECTCRE
_OPTION = re.compile(r"(?P<option>.*?)\s*(?P<vi>=|:)\s*(?P<value>.*)$")  # its OPTCRE


@dataclass
class IniKey:
    name: str
    line: int  # 1-based
    rows: List[Tuple[int, str]] = field(default_factory=list)  # the value's non-blank lines, stripped


@dataclass
class IniSection:
    name: str
    line: int
    keys: List[IniKey] = field(default_factory=list)

    def key(self, name: str) -> Optional[IniKey]:
        return next((key for key in self.keys if key.name == name), None)


def config_sections(text: str) -> List[IniSection]:
    """The sections of ``text`` (which ``configparser`` parses), in order, with their keys and
    the lines of each key's value."""
    sections: List[IniSection] = []
    key: Optional[IniKey] = None
    indent = 0
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue  # a blank or comment line neither ends a value nor belongs to it
        current = len(line) - len(line.lstrip())
        if sections and key is not None and current > indent:
            key.rows.append((number, stripped))
            continue
        indent = current
        header = _SECTION.match(stripped)
        if header:
            sections.append(IniSection(header.group("header"), number))
            key = None
            continue
        option = _OPTION.match(stripped)
        if sections and option and option.group("option"):
            key = IniKey(option.group("option").rstrip(), number)
            if option.group("value").strip():
                key.rows.append((number, option.group("value").strip()))
            sections[-1].keys.append(key)
    return sections


@dataclass(frozen=True)
class MetadataRow:
    group: str
    name: str
    value: str
    line: int
    group_line: int


class NotARow(ValueError):
    def __init__(self, line: int, row: str) -> None:
        super().__init__(row)
        self.line, self.row = line, row


def metadata_entry_points(text: str) -> List[MetadataRow]:
    """The entry points of an ``entry_points.txt``, as ``importlib.metadata`` reads them, in
    order; raises ``NotARow`` at the first row without ``=`` (``importlib.metadata`` raises
    there, and reads nothing of the file)."""
    found: List[MetadataRow] = []
    group: Optional[Tuple[str, int]] = None
    pieces = ((number, piece) for number, line in enumerate(text.split("\n"), start=1) for piece in line.splitlines())
    for number, piece in pieces:  # importlib.metadata splits at every line boundary str.splitlines knows
        stripped = piece.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            group = (stripped.strip("[]"), number)
            continue
        if group is None:
            continue
        name, equals, value = stripped.partition("=")
        if not equals:
            raise NotARow(number, stripped)
        found.append(MetadataRow(group[0], name.strip(), value.strip(), number, group[1]))
    return found
