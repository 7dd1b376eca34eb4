"""``textDocument/codeAction`` for ``hermes-lint lsp``: the edits of ``actions`` as LSP code
actions, for the findings in the requested range (checked afresh on the buffers, so that an
edit's positions are those of the text the editor has now)."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from lsprotocol import types

from hermes_lint.config import ConfigError
from hermes_lint.edit.fix.edits import SAFE
from hermes_lint.lsp import actions, documents
from hermes_lint.model import Diagnostic

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.lsp.server import HermesLintServer

QUICK_FIX = types.CodeActionKind.QuickFix.value


def _wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether a client that asked for ``only`` these kinds wants ``kind`` (a kind includes
    its sub-kinds: ``source.fixAll`` asks for ``source.fixAll.hermes-lint``)."""
    if only is None:
        return True
    return any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _current(ls: HermesLintServer, uri: str):
    """(located, configuration, buffers, this document's diagnostics now), or None."""
    located = ls.located(uri)
    if located is None or uri not in ls.workspace.text_documents:
        return None
    with ls._checking:
        ls.read_again()
        buffers = ls.buffers(located.root)
        opened = ls.open_documents(located.root)
        found = documents.check_documents(located.root, {rel: text for rel, (_, text, _) in opened.items()})
        config = documents.project_config(located.root)
    return located, config, buffers, found.get(located.relative, [])


def code_actions(ls: HermesLintServer, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
    from hermes_lint.lsp.server import FIX_ALL_KIND, _lines

    uri = params.text_document.uri
    try:
        current = _current(ls, uri)
    except ConfigError:
        return None
    if current is None:
        return None
    located, config, buffers, diagnostics = current
    document = ls.workspace.text_documents[uri]
    text = document.source
    lines = _lines(text)
    wanted_range = ls.workspace.position_codec.range_from_client_units(lines, params.range)
    first, last = wanted_range.start.line + 1, wanted_range.end.line + 1
    only = params.context.only
    found: List[types.CodeAction] = []
    in_range = [d for d in diagnostics if first <= d.line <= last]
    if _wanted(QUICK_FIX, only) and in_range:
        lsp = {d: ls.lsp_diagnostic(d, text, config) for d in in_range}
        with ls._checking:
            fixes = actions.rule_fixes(located.root, config, in_range, buffers)
        for d in in_range:
            fix = fixes.get(d)
            if fix is not None:
                title = fix.message[:1].upper() + fix.message[1:]
                found.append(types.CodeAction(
                    title=f"{title} ({d.code})" if fix.applicability == SAFE else f"{title} ({d.code}, unsafe)",
                    kind=QUICK_FIX,
                    diagnostics=[lsp[d]],
                    edit=ls.workspace_edit(located.root, fix.edits),
                    is_preferred=fix.applicability == SAFE,
                ))
        for d in _one_per_code_and_line(in_range):
            edit = actions.noqa_edit(located.relative, text, d.line, d.code)
            if edit is not None:
                found.append(types.CodeAction(
                    title=f"Add `# noqa: {d.code}` on this line",
                    kind=QUICK_FIX,
                    diagnostics=[lsp[d]],
                    edit=ls.workspace_edit(located.root, [edit]),
                ))
        for code in sorted({d.code for d in in_range} - {actions.UNUSED_NOQA}):
            edit = actions.file_noqa_edit(located.relative, text, code)
            if edit is not None:
                found.append(types.CodeAction(
                    title=f"Disable {code} for this file (`# hermes-lint: noqa: {code}`)",
                    kind=QUICK_FIX,
                    diagnostics=[lsp[d] for d in in_range if d.code == code],
                    edit=ls.workspace_edit(located.root, [edit]),
                ))
    if _wanted(FIX_ALL_KIND, only) and any(actions.safe_rule(d.code) for d in diagnostics):
        everything = fix_all_edit(ls, uri)
        if everything is not None:
            found.append(types.CodeAction(title="Fix all safe hermes-lint findings", kind=FIX_ALL_KIND, edit=everything))
    return found


def _one_per_code_and_line(diagnostics: Sequence[Diagnostic]) -> List[Diagnostic]:
    seen = set()
    kept = []
    for d in diagnostics:
        if (d.line, d.code) not in seen:
            seen.add((d.line, d.code))
            kept.append(d)
    return kept


def fix_all_edit(ls: HermesLintServer, uri: str) -> Optional[types.WorkspaceEdit]:
    """The edit applying every safe fix of the document's findings, or None when none applies."""
    located = ls.located(uri)
    if located is None or uri not in ls.workspace.text_documents:
        return None
    with ls._checking:
        ls.read_again()
        try:
            config = documents.project_config(located.root)
            buffers = ls.buffers(located.root)
            edits = actions.fix_all(located.root, config, located.relative, buffers)
        except ConfigError:
            return None
    if not edits:
        return None
    return ls.workspace_edit(located.root, edits)
