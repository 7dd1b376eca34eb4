"""Checking what an editor has open: the diagnostics ``hermes-lint check`` would report on the
project with every open buffer in place of its file.

This is the flake8 plugin's in-process path (``flake8_plugin``), which ``hermes-lint server``
answers with too: the project as on disk is read once per run and kept in memory
(``project_snapshot``: each file's per-file phase, from the shared cache where unchanged), a
buffer's per-file phase is remembered by its bytes (``module_result``), and the project rules
run over the snapshot with the buffers' results in place (``ProjectSnapshot.diagnostics_with``).
So a keystroke costs the check of that one file plus the project rules. Two things are added
for an editor, which holds several buffers and applies no ``# noqa`` itself:

- the modules whose values were read from a changed buffer (a schema imported from it) are
  checked again with the buffers in place of the files (``ProjectModules`` given their text),
  so that an edit to a shared schema shows in the tools that import it before it is saved;
- ``# noqa`` comments, the file-level form among them, and HRM900 are applied to each buffer as
  ``check`` applies them (``engine.apply_suppressions``).

A run of the flake8 plugin is a "look at the disk again": ``refresh`` starts one when files may
have changed on disk (a save, a file watcher's event, a configuration change).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from hermes_lint import flake8_plugin
from hermes_lint.config import Config
from hermes_lint.project_config import find_root
from hermes_lint.discovery import text_may_register_tools

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.check.engine import ModuleResult, SourceFile
    from hermes_lint.model import Diagnostic


@dataclass(frozen=True)
class Located:
    """Where an open document belongs: its project and its '/'-separated path in it."""

    root: Path
    relative: str


def locate(path: str) -> Optional[Located]:
    """The project and path of a file hermes-lint checks (a tool module, a plugin package's
    ``__init__.py``, the toolsets file), else None."""
    found = flake8_plugin.locate(path)
    if found is not None:
        return Located(found[0], found[1])
    absolute = Path(os.path.abspath(path))
    root = find_root(absolute.parent)
    if root is None or absolute.name != "__init__.py":
        return None
    try:
        relative = PurePosixPath(absolute.resolve().relative_to(root).as_posix())
    except ValueError:
        return None
    config = flake8_plugin.project_config(root)
    for directory in config.plugin_dirs:
        # <dir>/<plugin>/__init__.py or <dir>/<category>/<plugin>/__init__.py (``plugin_paths``)
        inside = relative.parent.parts[len(PurePosixPath(directory).parts):]
        if relative.is_relative_to(directory) and 1 <= len(inside) <= 2:
            return Located(root, str(relative))
    return None


def refresh() -> None:
    """Files may have changed on disk: the next check reads the project again (each file's
    stat, the cache, toolsets.py, the configuration)."""
    flake8_plugin.new_run()


def project_config(root: Path, again: bool = False) -> Config:
    return flake8_plugin.project_config(root, again)


def data_of(root: Path, relative: str, text: str) -> bytes:
    """The bytes ``check`` would read for this buffer: the file's own when the buffer is the
    file as saved (its line breaks and encoding exactly), else the text encoded as its coding
    cookie says."""
    on_disk = _read(root, relative)
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    if on_disk is not None and flake8_plugin.as_flake8_reads(on_disk) == normalized:
        return on_disk
    return flake8_plugin.encode_like_source(text)


def _read(root: Path, relative: str) -> Optional[bytes]:
    from hermes_lint.regular_files import read_regular_file

    try:
        return read_regular_file(os.path.join(root, relative))
    except OSError:
        return None


def check_documents(root: Path, texts: Dict[str, str]) -> Dict[str, List[Diagnostic]]:
    """Each open document's diagnostics (``texts``: relative path -> buffer text), as
    ``hermes-lint check`` reports them for the project with those texts saved."""
    from hermes_lint.check.engine import UNUSED_NOQA, SourceFile, apply_suppressions, check_module
    from hermes_lint.noqa import NoqaComment, find_noqa_comments

    snapshot = flake8_plugin.project_snapshot(root)
    config = snapshot.config
    results: Dict[str, ModuleResult] = dict(snapshot.results)
    toolsets: Optional[SourceFile] = snapshot.toolsets
    datas = {relative: data_of(root, relative, text) for relative, text in texts.items()}
    changed: Dict[str, bytes] = {}
    for relative, data in datas.items():
        if relative == config.toolsets_file:
            if toolsets is None or toolsets.data != data:
                toolsets = SourceFile(relative, data)
            continue
        known = results.get(relative)
        if known is None or known.facts.sha256 != sha256(data).hexdigest():
            changed[relative] = data
    if changed:
        results = _with_changed(root, config, snapshot.fingerprint, results, changed, check_module)
    diagnostics = snapshot.diagnostics_with(results, toolsets)
    by_path: Dict[str, List[Diagnostic]] = {relative: [] for relative in texts}
    for diagnostic in diagnostics:
        if diagnostic.path in by_path and diagnostic.code != UNUSED_NOQA:
            by_path[diagnostic.path].append(diagnostic)
    # The noqa comments as ``engine.finish`` reads them: a module's from its result (found with
    # its syntax tree), the toolsets file's from its text.
    noqa_by_path: Dict[str, Dict[int, NoqaComment]] = {}
    for relative in texts:
        if relative in results:
            noqa_by_path[relative] = {comment.line: comment for comment in results[relative].noqa}
        elif relative == config.toolsets_file:
            noqa_by_path[relative] = find_noqa_comments(datas[relative].decode("utf-8", "replace"))
    return {
        relative: apply_suppressions(found, {relative: noqa_by_path.get(relative, {})}, config)
        for relative, found in by_path.items()
    }


def _with_changed(root: Path, config: Config, fingerprint: str, results: Dict[str, ModuleResult],
                  changed: Dict[str, bytes], check_module) -> Dict[str, ModuleResult]:
    """``results`` with the changed buffers' per-file phase, and that of every module that read
    a value from one of them (checked again with the buffers in place of their files)."""
    from hermes_lint.check.engine import SourceFile, read_source
    from hermes_lint.evaluate.project import ProjectModules

    results = dict(results)
    readers = sorted(
        path for path, result in results.items()
        if path not in changed and any(read in changed for read, _ in result.facts.read_modules)
    )
    # One changed buffer read by no other module: the flake8 plugin's path exactly (its result
    # memoised by bytes, imported modules read through the process's shared parse cache).
    overlay = ProjectModules(config.project_root, changed, config.src) if (readers or len(changed) > 1) else None
    for relative, data in changed.items():
        if not _checked_by_check(relative, data, config):
            results.pop(relative, None)  # `check` would not check it either: it registers nothing
            continue
        source = SourceFile(relative, data)
        if overlay is None:
            results[relative] = flake8_plugin.module_result(source, config, fingerprint)
        else:
            results[relative] = check_module(source, config, overlay)
    for relative in readers:
        results[relative] = check_module(read_source(root, relative), config, overlay)
    return dict(sorted(results.items()))


def _checked_by_check(relative: str, data: bytes, config: Config) -> bool:
    """Whether ``check`` takes this file for a module that registers tools, by the tests its
    discovery applies to the text (``discovery``, ``plugin_tools.plugin_paths``)."""
    from hermes_lint.project.plugin_tools import PLUGIN_METHOD

    if PurePosixPath(relative).parent == PurePosixPath(config.tools_dir):
        return text_may_register_tools(data)
    return PLUGIN_METHOD.encode() in data


def known_paths(root: Path) -> Tuple[str, ...]:
    """The project's checked files as last read (tool and plugin modules)."""
    return tuple(flake8_plugin.project_snapshot(root).results)
