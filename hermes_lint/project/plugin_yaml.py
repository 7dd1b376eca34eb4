"""Reading a plugin's ``plugin.yaml`` without trusting it.

Hermes reads the file with ``yaml.safe_load`` (``hermes_cli/plugins.py``: ``_parse_manifest``), so
this does too, through PyYAML's safe loader, but first bounds what a repository can make it do:

- the file is read through ``regular_files.read_regular_file`` capped at ``MAX_MANIFEST_BYTES``
  (a FIFO, a device such as a link to ``/dev/zero``, a directory are refused), and a link that
  leads outside the project is not followed at all;
- the document is *composed* (a graph of nodes; an alias is one more reference to a node already
  built, so composing an alias bomb is cheap) and the size it would have with every alias
  expanded is counted, shared nodes once per reference, before anything walks it: past
  ``MAX_EXPANDED_NODES``, or with an alias that contains itself, the file is refused;
- bad UTF-8, a YAML syntax error, several documents in one file and nesting deeper than the
  parser can follow are each a ``ManifestReadError`` with a location, never an exception.

The result keeps the position of every mapping key and sequence item (the composed nodes'
marks), so that a rule about ``provides_tools[2]`` points at that item's line and column.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from hermes_lint.model import Location
from hermes_lint.regular_files import read_regular_file

if TYPE_CHECKING:  # pragma: no cover - imported only where a plugin.yaml is parsed: a project without plugins never pays for it
    import yaml

MANIFEST_NAME = "plugin.yaml"
# Real manifests are a few hundred bytes to a few kilobytes; composing this much takes well under
# a second.
MAX_MANIFEST_BYTES = 256 * 1024
# Nodes the document would have with every alias expanded: far above any real manifest (tens of
# nodes), far below what makes walking it slow.
MAX_EXPANDED_NODES = 100_000

Path_ = Tuple[Union[str, int], ...]  # ("provides_tools", 2), ("config_schema", "timeout", "type")


@dataclass(frozen=True)
class ManifestReadError:
    """Why a ``plugin.yaml`` could not be read or parsed, and where (line 1, column 1 when the
    problem is the file as a whole)."""

    path: str
    message: str
    location: Location = Location(1, 1)


@dataclass(frozen=True)
class ManifestDocument:
    """A parsed ``plugin.yaml``: the data ``yaml.safe_load`` gives (None for an empty file) and
    where each key and item is written."""

    path: str
    data: Any
    # A mapping key's path -> where the key is written; a sequence item's path -> where the item
    # starts; () -> where the document starts.
    positions: Mapping[Path_, Location] = field(default_factory=dict, compare=False)
    # A mapping key's path -> where its value starts.
    value_positions: Mapping[Path_, Location] = field(default_factory=dict, compare=False)

    def location(self, *path: Union[str, int]) -> Location:
        """Where ``path`` is written, else its nearest written ancestor, else line 1."""
        key: Path_ = tuple(path)
        while key:
            found = self.positions.get(key)
            if found is not None:
                return found
            key = key[:-1]
        return self.positions.get((), Location(1, 1))

    def value_location(self, *path: Union[str, int]) -> Location:
        """Where the value at ``path`` starts (a key's value, not the key)."""
        return self.value_positions.get(tuple(path)) or self.location(*path)


ManifestReading = Union[ManifestDocument, ManifestReadError]


def read_plugin_yaml(root: Path, relative: str) -> ManifestReading:
    """The ``plugin.yaml`` at ``root/relative`` (``relative`` '/'-separated), parsed, or why not."""
    data = _manifest_bytes(root, relative)
    return data if isinstance(data, ManifestReadError) else parse_plugin_yaml(relative, data)


def _manifest_bytes(root: Path, relative: str) -> Union[bytes, ManifestReadError]:
    real_root = os.path.realpath(root)
    real = os.path.realpath(Path(root, relative))
    if os.path.commonpath([real_root, real]) != real_root:
        return ManifestReadError(relative, f"is a link to {real}, outside the project: not read")
    try:
        return read_regular_file(real, MAX_MANIFEST_BYTES)
    except OSError as exc:
        return ManifestReadError(relative, f"cannot be read: {exc.strerror or exc}")


def manifest_of_module(root: Path, module_path: str) -> Tuple[Optional[ManifestDocument], Dict[str, str]]:
    """The ``plugin.yaml`` of the plugin package holding ``module_path`` (the nearest one in its
    directory or above, within ``root``), parsed (None: none, or unreadable), and every
    ``plugin.yaml`` path looked at -> the sha256 of its bytes ("" when absent or unreadable), for a
    cache to see when the answer changes."""
    import hashlib

    looked: Dict[str, str] = {}
    directory = Path(module_path).parent
    while True:
        relative = (directory / MANIFEST_NAME).as_posix()
        if not os.path.lexists(Path(root, relative)):
            looked[relative] = ""
        else:
            data = _manifest_bytes(root, relative)
            if isinstance(data, ManifestReadError):
                looked[relative] = ""
                return None, looked
            looked[relative] = hashlib.sha256(data).hexdigest()
            document = parse_plugin_yaml(relative, data)
            return (document if isinstance(document, ManifestDocument) else None), looked
        if directory == directory.parent or not directory.parts:
            return None, looked
        directory = directory.parent


def required_env_names(document: ManifestDocument) -> Tuple[str, ...]:
    """The variable names of ``requires_env`` as Hermes reads them: strings, and the ``name`` of
    mappings (other entries are skipped, as Hermes skips them)."""
    entries = document.data.get("requires_env") if isinstance(document.data, dict) else None
    if not isinstance(entries, list):
        return ()
    names = [entry.get("name") if isinstance(entry, dict) else entry for entry in entries]
    return tuple(name for name in names if isinstance(name, str) and name)


def parse_plugin_yaml(relative: str, data: bytes) -> ManifestReading:
    """``data`` (the bytes of ``relative``) parsed as Hermes parses it, within the bounds above."""
    import yaml

    if len(data) > MAX_MANIFEST_BYTES:
        return ManifestReadError(relative, f"cannot be read: larger than {MAX_MANIFEST_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ManifestReadError(
            relative, f"is not valid UTF-8 (byte {exc.start}), and Hermes reads it as UTF-8", _byte_location(data, exc.start)
        )
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return ManifestDocument(relative, None, {})
            problem = _expansion_problem(node)
            if problem is not None:
                return ManifestReadError(relative, problem, _mark(node.start_mark))
            value = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(part for part in (exc.context, exc.problem) if part) or "invalid YAML"
        return ManifestReadError(relative, f"is not valid YAML: {what}", _mark(mark) if mark else Location(1, 1))
    except yaml.YAMLError as exc:
        return ManifestReadError(relative, f"is not valid YAML: {exc}")
    except RecursionError:
        return ManifestReadError(relative, "is nested too deeply to be read")
    positions: Dict[Path_, Location] = {(): _mark(node.start_mark)}
    value_positions: Dict[Path_, Location] = {}
    _record_positions(node, positions, value_positions)
    return ManifestDocument(relative, value, positions, value_positions)


def _mark(mark: Any) -> Location:
    return Location(mark.line + 1, mark.column + 1)


def _byte_location(data: bytes, offset: int) -> Location:
    before = data[:offset]
    line_start = before.rfind(b"\n") + 1
    return Location(before.count(b"\n") + 1, len(before[line_start:].decode("utf-8", "replace")) + 1)


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value


def _expansion_problem(root: yaml.Node) -> Optional[str]:
    """Why the composed document must not be walked: an alias inside itself, or more than
    ``MAX_EXPANDED_NODES`` nodes once every alias is expanded. Each distinct node is visited once
    (its expanded size remembered), so this costs the size of the file, not of the expansion."""
    import yaml

    sizes: Dict[int, int] = {}
    # Depth-first with an explicit stack (deep nesting cannot exhaust Python's): a node is
    # pushed once to enter it and once more to total its children when they are done.
    stack: List[Tuple[yaml.Node, bool]] = [(root, True)]
    open_nodes = set()
    recursive = "holds an alias that contains itself: Hermes's loader would build a recursive value"
    while stack:
        node, entering = stack.pop()
        key = id(node)
        if not entering:
            open_nodes.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > MAX_EXPANDED_NODES:
                aliased = " through its aliases (an alias bomb?)" if len(sizes) < MAX_EXPANDED_NODES else ""
                return f"holds more than {MAX_EXPANDED_NODES} values{aliased}: not read"
            sizes[key] = total
        elif key not in sizes:
            open_nodes.add(key)
            stack.append((node, False))
            for child in _children(node):
                if id(child) in open_nodes:
                    return recursive
                if id(child) not in sizes:
                    stack.append((child, True))
    return None


def _record_positions(node: yaml.Node, positions: Dict[Path_, Location], value_positions: Dict[Path_, Location]) -> None:
    """Positions of the keys and items under ``node`` (bounded: the expansion was counted). A key
    written twice is where it is written last: its value is the one ``safe_load`` keeps."""
    import yaml

    pending: List[Tuple[yaml.Node, Path_]] = [(node, ())]
    while pending:
        current, where = pending.pop()
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    continue
                child = where + (key_node.value,)
                positions[child] = _mark(key_node.start_mark)
                value_positions[child] = _mark(value_node.start_mark)
                pending.append((value_node, child))
        elif isinstance(current, yaml.SequenceNode):
            for number, item in enumerate(current.value):
                child = where + (number,)
                positions[child] = _mark(item.start_mark)
                pending.append((item, child))
