"""plugin.yaml is read as Hermes reads it (the safe loader), within bounds, keeping positions."""

from __future__ import annotations

import os

import pytest

from hermes_lint.model import Location
from hermes_lint.project import plugin_yaml
from hermes_lint.project.plugin_yaml import (
    MAX_EXPANDED_NODES,
    MAX_MANIFEST_BYTES,
    ManifestDocument,
    ManifestReadError,
    parse_plugin_yaml,
    read_plugin_yaml,
)

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and device links are POSIX")


def test_data_and_the_positions_of_keys_items_and_values():
    text = b"name: demo\nprovides_tools:\n  - one\n  - two\nrequires_env: [A_KEY, {name: B_KEY}]\n"
    document = parse_plugin_yaml("plugin.yaml", text)
    assert isinstance(document, ManifestDocument)
    assert document.data == {"name": "demo", "provides_tools": ["one", "two"], "requires_env": ["A_KEY", {"name": "B_KEY"}]}
    assert document.location("name") == Location(1, 1)
    assert document.value_location("name") == Location(1, 7)
    assert document.location("provides_tools", 1) == Location(4, 5)
    assert document.location("requires_env", 1, "name") == Location(5, 24)
    # a path that is not written falls back to its nearest ancestor
    assert document.location("requires_env", 7) == Location(5, 1)


def test_a_key_written_twice_is_located_where_safe_load_takes_its_value():
    document = parse_plugin_yaml("plugin.yaml", b"name: a\nversion: '1'\nname: b\n")
    assert document.data["name"] == "b" and document.location("name") == Location(3, 1)


def test_an_empty_file_is_none_as_safe_load_gives_it():
    document = parse_plugin_yaml("plugin.yaml", b"")
    assert isinstance(document, ManifestDocument) and document.data is None


def _alias_bomb(levels: int) -> bytes:
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        refs = ",".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return ("\n".join(lines) + "\n").encode()


def test_an_alias_bomb_is_refused_before_anything_walks_it():
    found = parse_plugin_yaml("plugin.yaml", _alias_bomb(9))  # 9**9 strings once expanded
    assert isinstance(found, ManifestReadError)
    assert found.message == f"holds more than {MAX_EXPANDED_NODES} values through its aliases (an alias bomb?): not read"


def test_aliases_below_the_bound_are_read(monkeypatch):
    # expanded: 10 nodes at l0, 91 at l1, 820 at l2, 7,381 at l3: about 8,300 in all
    found = parse_plugin_yaml("plugin.yaml", _alias_bomb(4))
    assert isinstance(found, ManifestDocument)
    assert len(found.data["l3"]) == 9 and found.data["l3"][0][0][0][0] == "lol"
    monkeypatch.setattr(plugin_yaml, "MAX_EXPANDED_NODES", 1000)
    assert isinstance(parse_plugin_yaml("plugin.yaml", _alias_bomb(4)), ManifestReadError)


def test_an_alias_inside_itself_is_refused():
    found = parse_plugin_yaml("plugin.yaml", b"tools: &t [a, *t]\n")
    assert isinstance(found, ManifestReadError) and "contains itself" in found.message


@pytest.mark.parametrize(
    "text, message, location",
    [
        (b"name: caf\xe9\n", "is not valid UTF-8 (byte 9), and Hermes reads it as UTF-8", Location(1, 10)),
        # the parser's own words (libyaml's and PyYAML's differ): the place is what is pinned
        (b"name: [one\n", "is not valid YAML: ", Location(2, 1)),
        (b"a: 1\n---\nb: 2\n", "is not valid YAML: ", Location(2, 1)),
        (b"[" * 5000, "is not valid YAML: ", None),
    ],
)
def test_unreadable_documents_are_errors_with_a_place(text, message, location):
    found = parse_plugin_yaml("plugin.yaml", text)
    assert isinstance(found, ManifestReadError)
    assert found.message.startswith(message) and (message.endswith(": ") or found.message == message), found.message
    if location is not None:
        assert found.location == location


def test_the_size_limit_and_its_neighbour(tmp_path):
    padding = b"name: demo\n#"
    (tmp_path / "at.yaml").write_bytes(padding + b"x" * (MAX_MANIFEST_BYTES - len(padding)))
    (tmp_path / "over.yaml").write_bytes(padding + b"x" * (MAX_MANIFEST_BYTES - len(padding) + 1))
    assert isinstance(read_plugin_yaml(tmp_path, "at.yaml"), ManifestDocument)
    over = read_plugin_yaml(tmp_path, "over.yaml")
    assert isinstance(over, ManifestReadError)
    assert over.message == f"cannot be read: larger than {MAX_MANIFEST_BYTES} bytes"


@posix_only
def test_a_fifo_a_device_and_a_link_outside_are_not_read(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    os.mkfifo(project / "fifo.yaml")
    (project / "zero.yaml").symlink_to("/dev/zero")
    (tmp_path / "secret.yaml").write_text("name: secret\n")
    (project / "outside.yaml").symlink_to(tmp_path / "secret.yaml")
    (project / "inside.yaml").symlink_to(project / "real.yaml")
    (project / "real.yaml").write_text("name: real\n")
    assert read_plugin_yaml(project, "fifo.yaml") == ManifestReadError("fifo.yaml", "cannot be read: not a regular file")
    outside_zero = read_plugin_yaml(project, "zero.yaml")
    assert isinstance(outside_zero, ManifestReadError) and "outside the project" in outside_zero.message
    outside = read_plugin_yaml(project, "outside.yaml")
    assert outside == ManifestReadError(
        "outside.yaml", f"is a link to {os.path.realpath(tmp_path / 'secret.yaml')}, outside the project: not read"
    )
    assert read_plugin_yaml(project, "inside.yaml").data == {"name": "real"}
