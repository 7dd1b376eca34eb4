"""``hermes-lint lsp``: a Language Server Protocol server over stdio (pygls, lsprotocol).

The editor starts it and talks to it on its standard streams. Diagnostics are published when a
document is opened, changed (the unsaved buffer, after ``debounce`` seconds without a further
change; changes that arrive while a check runs are checked together once it ends) and saved, for
the open tool modules, plugin modules and toolsets files of every project the documents belong
to (each document's project is found as ``check`` finds it, so several workspace folders, or
projects inside one, each keep their own configuration). What is published is what
``hermes-lint check`` reports on the project with the open buffers in place of their files
(``documents.check_documents``).

Code actions: each finding's fix (``check --fix``'s), every safe fix of the file as
``source.fixAll.hermes-lint`` (also the command ``hermes-lint.applyAutofix``, which sends the edit
with ``workspace/applyEdit``), "add ``# noqa: CODE``" and "disable CODE for this file" (a
``# hermes-lint: noqa: CODE`` line). Hover over a finding shows its rule's page, the text of
``hermes-lint explain``; ``codeDescription`` gives the page's address where one is known.

Files changed on disk (``workspace/didChangeWatchedFiles``, a save) make the next check read the
project again; a changed ``pyproject.toml`` is read again at once and every open document is
checked anew.

Checking happens under one lock, ``_checking`` (the flake8 plugin's per-process state is not
made for two threads at once): diagnostics on one worker thread, so that messages are read and
answered meanwhile, code actions in the handler that asks for them. Files changed on disk are
read again by whichever checks next (``disk_changed``). What the worker publishes is sent from
the event loop's thread.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace.position_codec import ServerTextPosition

from hermes_lint import __version__
from hermes_lint.config import Config, ConfigError
from hermes_lint.edit.fix.edits import SAFE, Edit, Fix
from hermes_lint.lsp import actions, documents, rule_pages
from hermes_lint.model import Diagnostic

SOURCE = "hermes-lint"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.hermes-lint"
APPLY_AUTOFIX = "hermes-lint.applyAutofix"
DEFAULT_DEBOUNCE_SECONDS = 0.02
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_WORD = re.compile(r"[\w.]+")
_NOQA_CODE = re.compile(r"\b[A-Z]+[0-9]+\b")


class HermesLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("hermes-lint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.debounce = DEFAULT_DEBOUNCE_SECONDS
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self._checking = threading.Lock()
        self._wake = threading.Condition()
        self._due: Dict[str, float] = {}  # uri -> when to check it
        self.published: Dict[str, Tuple[Optional[int], List[Diagnostic]]] = {}  # uri -> (version, diagnostics)
        self._told: set = set()  # configuration errors already shown
        # Files changed on disk: the worker reads the project again before its next check (the
        # flake8 plugin's state is the worker's alone); the pyproject.toml files to read again.
        self._stale = False
        self._stale_configs: set = set()
        self._worker = threading.Thread(target=self._work, name="hermes-lint-check", daemon=True)

    # --- documents ------------------------------------------------------------------------

    def open_documents(self, root: Path) -> Dict[str, Tuple[str, str, Optional[int]]]:
        """relative path -> (uri, text, version) of the open documents of the project ``root``."""
        found = {}
        for uri, document in list(self.workspace.text_documents.items()):
            located = self.located(uri)
            if located is not None and located.root == root:
                found[located.relative] = (uri, document.source, document.version)
        return found

    def located(self, uri: str) -> Optional[documents.Located]:
        path = to_fs_path(uri)
        if path is None:
            return None
        try:
            return documents.locate(path)
        except ConfigError as exc:
            self.tell_once(str(exc))
            return None

    def buffers(self, root: Path) -> Dict[str, bytes]:
        return {rel: documents.data_of(root, rel, text) for rel, (_, text, _) in self.open_documents(root).items()}

    # --- scheduling -----------------------------------------------------------------------

    def schedule(self, uri: str, delay: float = 0.0) -> None:
        if not self._worker.is_alive():
            self._worker.start()
        with self._wake:
            self._due[uri] = time.monotonic() + delay
            self._wake.notify()

    def schedule_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.schedule(uri)

    def _work(self) -> None:
        while True:
            with self._wake:
                while True:
                    now = time.monotonic()
                    due = [uri for uri, when in self._due.items() if when <= now]
                    if due:
                        for uri in due:
                            del self._due[uri]
                        break
                    self._wake.wait(min(self._due.values()) - now if self._due else None)
            roots: Dict[Path, List[str]] = {}
            for uri in due:
                located = self.located(uri)
                if located is None:
                    self._publish(uri, None, [])
                else:
                    roots.setdefault(located.root, []).append(uri)
            for root, uris in roots.items():
                self._check_project(root, set(uris))

    def _check_project(self, root: Path, asked: set) -> None:
        """Check every open document of ``root``; publish those asked for and those whose
        diagnostics changed (a project rule's finding follows an edit to another file)."""
        with self._checking:
            self.read_again()
            opened = self.open_documents(root)
            try:
                found = documents.check_documents(root, {rel: text for rel, (_, text, _) in opened.items()})
            except ConfigError as exc:
                self.tell_once(str(exc))
                found = {rel: [] for rel in opened}
            except Exception as exc:  # one bad document must not take the server down
                documents.refresh()
                self.tell_once(f"internal error while checking {root}: {type(exc).__name__}: {exc}")
                return
        for relative, diagnostics in found.items():
            uri, _, version = opened[relative]
            if uri in asked or self.published.get(uri, (None, None))[1] != diagnostics:
                self._publish(uri, version, diagnostics)

    def disk_changed(self, pyproject_dirs=()) -> None:
        """Files changed on disk (and these directories' pyproject.toml): read them again
        before the next check."""
        with self._wake:
            self._stale = True
            self._stale_configs.update(pyproject_dirs)

    def read_again(self) -> None:
        """(On the worker, holding ``_checking``.) Apply ``disk_changed``."""
        with self._wake:
            stale, configs = self._stale, set(self._stale_configs)
            self._stale = False
            self._stale_configs.clear()
        if stale:
            documents.refresh()
        for directory in configs:
            try:
                documents.project_config(directory, again=True)
            except ConfigError as exc:
                self.tell_once(str(exc))

    def _publish(self, uri: str, version: Optional[int], diagnostics: List[Diagnostic]) -> None:
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return  # closed while it was being checked: its diagnostics were cleared then
        self.published[uri] = (version, diagnostics)
        text = document.source
        config = self._config_of(uri)
        params = types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=[self.lsp_diagnostic(d, text, config) for d in diagnostics]
        )
        self.from_worker(self.text_document_publish_diagnostics, params)

    def from_worker(self, send, *args: Any) -> None:
        """Send from the event loop's thread (pygls writes are not thread-safe)."""

        def sending() -> None:
            try:
                send(*args)
            except (OSError, ValueError):  # the client went away: the read loop ends the server
                pass

        if self.loop is not None and not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(sending)
            except RuntimeError:  # the loop closed meanwhile: the server is stopping
                pass

    def tell_once(self, message: str) -> None:
        if message in self._told:
            return
        self._told.add(message)
        params = types.ShowMessageParams(type=types.MessageType.Error, message=f"hermes-lint: {message}")
        self.from_worker(self.window_show_message, params)

    def _config_of(self, uri: str) -> Optional[Config]:
        located = self.located(uri)
        if located is None:
            return None
        try:
            return documents.project_config(located.root)
        except ConfigError:
            return None

    # --- conversions ----------------------------------------------------------------------

    def client_position(self, text: str, line: int, col: int) -> types.Position:
        """A 1-based (line, column in characters) as the client counts (UTF-16 by default)."""
        lines = _lines(text)
        return self.workspace.position_codec.position_to_client_units(lines, ServerTextPosition(line - 1, col - 1))

    def lsp_diagnostic(self, d: Diagnostic, text: str, config: Optional[Config]) -> types.Diagnostic:
        end_col = span_end(_lines(text), d)
        href = rule_pages.rule_page_uri(d.code, config) if config is not None else None
        return types.Diagnostic(
            range=types.Range(self.client_position(text, d.line, d.col), self.client_position(text, d.line, max(end_col, d.col))),
            message=d.message,
            severity=types.DiagnosticSeverity.Error if d.code == "HRM001" else types.DiagnosticSeverity.Warning,
            code=d.code,
            code_description=types.CodeDescription(href=href) if href else None,
            source=SOURCE,
            tags=[types.DiagnosticTag.Unnecessary] if d.code == actions.UNUSED_NOQA else None,
        )

    def workspace_edit(self, root: Path, edits: Sequence[Edit]) -> types.WorkspaceEdit:
        changes: Dict[str, List[types.TextEdit]] = {}
        opened = self.open_documents(root)
        for edit in edits:
            if edit.path in opened:
                uri, text, _ = opened[edit.path]
            else:
                path = root / edit.path
                uri = from_fs_path(str(path)) or path.as_uri()
                try:
                    text = path.read_bytes().decode("utf-8")
                except (OSError, UnicodeError):
                    continue
            start = self.client_position(text, *edit.start)
            end = self.client_position(text, *edit.end)
            changes.setdefault(uri, []).append(types.TextEdit(range=types.Range(start, end), new_text=edit.content))
        return types.WorkspaceEdit(changes=changes)


def span_end(lines: Sequence[str], d: Diagnostic) -> int:
    """The 1-based column after the name or word a diagnostic's column starts (one character
    where none starts there): the range an editor underlines."""
    line_text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    word = _WORD.match(line_text, d.col - 1) if d.col - 1 < len(line_text) else None
    if word is not None and word.end() > d.col - 1:
        return word.end() + 1
    return min(d.col + 1, len(line_text) + 1)


def _lines(text: str) -> List[str]:
    """The lines as Python (and the diagnostics) count them: only \\r\\n, \\r and \\n break."""
    parts = _LINE_BREAK.split(text)
    return parts if parts else [""]


server = HermesLintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: HermesLintServer, params: types.InitializeParams) -> None:
    ls.loop = asyncio.get_running_loop()
    options = params.initialization_options
    if isinstance(options, dict) and isinstance(options.get("debounce"), (int, float)) and options["debounce"] >= 0:
        ls.debounce = min(float(options["debounce"]) / 1000, 10.0)  # milliseconds, as editors give them


@server.feature(types.INITIALIZED)
def initialized(ls: HermesLintServer, params: types.InitializedParams) -> None:
    capabilities = ls.client_capabilities.workspace
    watched = capabilities.did_change_watched_files if capabilities is not None else None
    if watched is not None and watched.dynamic_registration:
        watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in ("**/pyproject.toml", "**/*.py")]
        registration = types.Registration(
            id="hermes-lint-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        ls.client_register_capability(types.RegistrationParams(registrations=[registration]))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HermesLintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HermesLintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, ls.debounce)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: HermesLintServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.disk_changed()  # the file on disk changed: the project is read again
    ls.schedule_all()


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: HermesLintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.published.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    ls.schedule_all()  # findings elsewhere may have come from its unsaved text


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: HermesLintServer, params: types.DidChangeWatchedFilesParams) -> None:
    configs = set()
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path is not None and Path(path).name == "pyproject.toml":
            configs.add(Path(path).parent.resolve())
    if configs:
        ls._told.clear()  # a fixed configuration's error may come back: say it again then
    ls.disk_changed(configs)
    ls.schedule_all()


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False),
)
def code_action(ls: HermesLintServer, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
    from hermes_lint.lsp.code_actions import code_actions

    return code_actions(ls, params)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: HermesLintServer, params: types.HoverParams) -> Optional[types.Hover]:
    uri = params.text_document.uri
    document = ls.workspace.text_documents.get(uri)
    if document is None:
        return None
    lines = _lines(document.source)
    if params.position.line >= len(lines):
        return None
    at = ls.workspace.position_codec.position_from_client_units(lines, params.position)
    line, col = at.line + 1, at.character + 1
    codes = []
    for d in ls.published.get(uri, (None, []))[1]:
        if d.line == line and d.col <= col <= span_end(lines, d):
            codes.append(d.code)
    for match in _NOQA_CODE.finditer(lines[at.line]):  # a code written in a `# noqa` comment
        if match.start() <= at.character <= match.end() and "noqa" in lines[at.line][: match.start()]:
            codes.append(match.group())
    pages = [page for page in dict.fromkeys(rule_pages.rule_page(code) for code in codes) if page]
    if not pages:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n---\n\n".join(pages)))


@server.command(APPLY_AUTOFIX)
async def apply_autofix(ls: HermesLintServer, *arguments: Any) -> Optional[types.ApplyWorkspaceEditResult]:
    """Every safe fix of the document named by the first argument (its URI, or ``{"uri": ...}``)."""
    from hermes_lint.lsp.code_actions import fix_all_edit

    target = arguments[0] if arguments else None
    uri = target.get("uri") if isinstance(target, dict) else target
    if not isinstance(uri, str):
        return None
    edit = fix_all_edit(ls, uri)
    if edit is None:
        return None
    return await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="hermes-lint: fix all"))


def run_stdio() -> None:
    """Serve on the standard streams until the client says exit or the input ends."""
    import sys

    from hermes_lint.lsp.stdio import BoundedInput, log_to_stderr

    log_to_stderr()
    server.start_io(BoundedInput(sys.stdin.buffer), sys.stdout.buffer)  # type: ignore[arg-type]
