"""The edits behind the editor's code actions, as ``Edit``s (1-based lines, columns in
characters, as diagnostics have them): a rule's fix (``check --fix``'s own, ``edit.fix``), every
safe fix of a file at once (``check --fix`` on that file), a ``# noqa: CODE`` on the line
(``check --add-noqa``'s edit) and a file-level ``# hermes-lint: noqa: CODE``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from hermes_lint.config import Config
from hermes_lint.edit.fix.edits import Edit, Fix, TextIndex, edit_between
from hermes_lint.model import Diagnostic

UNUSED_NOQA = "HRM900"
# A file-level exemption: a comment line of its own (``hermes_lint.noqa``'s form).
_FILE_NOQA = re.compile(r"^[ \t\f]*#[ \t]*hermes-lint:[ \t]*noqa(?::[ \t]?(?P<codes>[A-Z]+[0-9]+(?:[, \t]+[A-Z]+[0-9]+)*))?[ \t]*$")
# Lines a comment may not go before: a shebang, a coding cookie (PEP 263: on line 1 or 2).
_HEADER = re.compile(r"^#!|^[ \t\f]*#.*coding[:=][ \t]*[-\w.]+")


def rule_fixes(root: Path, config: Config, diagnostics: Sequence[Diagnostic], buffers: Dict[str, bytes]) -> Dict[Diagnostic, Fix]:
    """Each diagnostic's fix (safe and unsafe), computed on the buffers (relative path ->
    bytes) in place of their files: ``check --format json``'s fixes."""
    from hermes_lint.autofix.command import fixes_on_disk

    return fixes_on_disk(root, config, diagnostics, sources=buffers)


def fix_all(root: Path, config: Config, relative: str, buffers: Dict[str, bytes]) -> List[Edit]:
    """Every safe fix of the findings in ``relative``, applied until none applies (``check
    --fix`` on that file, the other buffers in place of their files): one edit per changed file."""
    from dataclasses import replace

    from hermes_lint.check.engine import SourceFile, collect_sources
    from hermes_lint.autofix.run import fix_sources

    sources = collect_sources(root, config)

    def buffered(file: SourceFile) -> SourceFile:
        return SourceFile(file.path, buffers[file.path]) if file.path in buffers else file

    tool_files = [buffered(file) for file in sources.tool_files]
    listed = {file.path for file in tool_files}
    tool_files += [SourceFile(path, data) for path, data in sorted(buffers.items())
                   if path not in listed and path != config.toolsets_file]
    toolsets = sources.toolsets
    if config.toolsets_file in buffers:
        toolsets = SourceFile(config.toolsets_file, buffers[config.toolsets_file])
    sources = replace(sources, tool_files=tool_files, toolsets=toolsets)
    originals = {file.path: file.data for file in [*tool_files, *([toolsets] if toolsets else [])]}
    outcome = fix_sources(sources, config, unsafe=False, wanted=lambda d: d.path == relative)
    edits = []
    for path, new in sorted(outcome.texts.items()):
        old = originals.get(path)
        if old is None:
            continue
        edit = edit_between(path, old.decode("utf-8"), new.decode("utf-8"))
        if edit is not None:
            edits.append(edit)
    return edits


def noqa_edit(relative: str, text: str, line: int, code: str) -> Optional[Edit]:
    """``# noqa: CODE`` added to line ``line`` (merged into its noqa comment), or None where a
    comment cannot go (inside a multi-line string, after a backslash) or it is there already."""
    from hermes_lint.autofix.command import _lines_without_comment_room
    from hermes_lint.edit.fix.noqa_edit import add_codes

    if code == UNUSED_NOQA:
        return None  # a noqa cannot silence itself; the fix removes the unused code
    try:
        closed = _lines_without_comment_room(text)
    except (SyntaxError, ValueError):  # tokenize's errors on a file being typed
        return None
    index = TextIndex(text)
    if line in closed or not 1 <= line <= len(index.starts):
        return None
    new = add_codes(text, line, [code])
    if new is None:
        return None
    old = index.line_text(line)
    return Edit(relative, (line, 1), (line, len(old) + 1), new)


def file_noqa_edit(relative: str, text: str, code: str) -> Optional[Edit]:
    """``code`` added to the file's ``# hermes-lint: noqa: ...`` line, or that line inserted
    before the first line that is not a shebang or coding cookie; None when the file is
    exempt from ``code`` already."""
    index = TextIndex(text)
    newline = "\r\n" if "\r\n" in text[: index.starts[1] if len(index.starts) > 1 else len(text)] else "\n"
    for number in range(1, len(index.starts) + 1):
        line_text = index.line_text(number)
        match = _FILE_NOQA.match(line_text)
        if match is None:
            continue
        if match.group("codes") is None:
            return None  # exempt from every code
        codes = [c for c in re.split(r"[, \t]+", match.group("codes")) if c]
        if code in codes:
            return None
        start = match.start("codes")
        merged = ", ".join(codes + [code])
        return Edit(relative, (number, start + 1), (number, match.end("codes") + 1), merged)
    first = 1
    while first <= min(2, len(index.starts)) and _HEADER.match(index.line_text(first)):
        first += 1
    comment = f"# hermes-lint: noqa: {code}"
    if first > len(index.starts):  # the file is its header lines, the last one without a break
        end = (len(index.starts), len(index.line_text(len(index.starts))) + 1)
        return Edit(relative, end, end, newline + comment)
    return Edit(relative, (first, 1), (first, 1), comment + newline)


def safe_rule(code: str) -> bool:
    from hermes_lint.edit.fix.edits import SAFE
    from hermes_lint.autofix.run import fixable_rules

    rule = fixable_rules().get(code)
    return rule is not None and rule.fix_applicability == SAFE
