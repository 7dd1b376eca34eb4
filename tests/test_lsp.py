"""``hermes-lint lsp`` driven as an editor drives it: the real server in a subprocess, a real
LSP client (pytest-lsp) over its standard streams.

The project is tests/fixtures/integrations (a clean tool, a tool whose ``check_func=`` is
HRM004 after a non-ASCII character on its line, a helper module, a script outside tools/).
Every wait is bounded (``wait``); nothing is timed.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

FIXTURE = Path(__file__).parent / "fixtures" / "integrations"
WAIT_SECONDS = 60  # a bound, never an expectation: a check takes milliseconds

pytestmark = pytest.mark.slow  # a server process per test


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(".hermes_lint_cache", "__pycache__"))
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "hermes_lint", "lsp"]))
async def client(lsp_client: LanguageClient, project):
    capabilities = client_capabilities("visual-studio-code")
    record_publications(lsp_client)
    # the server registers its file watchers; the editor accepts
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="project")],
            initialization_options={"debounce": 0},
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def wait(awaitable):
    return await asyncio.wait_for(awaitable, WAIT_SECONDS)


class Published:
    """Every publishDiagnostics the client received, in order, and a way to wait for the next."""

    def __init__(self):
        self.received = []  # (uri, version, diagnostics)
        self.arrived = asyncio.Event()

    def __call__(self, client, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        self.received.append((params.uri, params.version, params.diagnostics))
        self.arrived.set()

    async def next_for(self, uri: str, after: int) -> list:
        while True:
            for received_uri, _, diagnostics in self.received[after:]:
                if received_uri == uri:
                    return diagnostics
            after = len(self.received)
            self.arrived.clear()
            await self.arrived.wait()


def record_publications(client: LanguageClient) -> Published:
    published = Published()
    # the client's own handler stores the last diagnostics per URI; this one also keeps them all
    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = lambda params: published(client, params)
    client.published = published
    return published


async def diagnostics_after(client: LanguageClient, uri: str, send) -> list:
    """Send something, then wait for the next diagnostics published for ``uri``."""
    after = len(client.published.received)
    send()
    return await wait(client.published.next_for(uri, after))


def open_document(client: LanguageClient, path: Path, text: str = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=path.read_text(encoding="utf-8") if text is None else text
            )
        )
    )
    return uri


def change_document(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def codes(diagnostics) -> list:
    return sorted((d.range.start.line, d.code) for d in diagnostics)


def summary(diagnostics) -> list:
    return [(d.range.start.line, d.range.start.character, d.code, d.message) for d in diagnostics]


HRM004 = "unknown keyword `check_func=` (did you mean `check_fn=`?)"


def check_json(root: Path) -> list:
    """``hermes-lint check --format json`` on the project, as (path, line, col, code, message)."""
    import json
    import subprocess

    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", "--format", "json"],
        cwd=root, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode in (0, 1), completed.stderr
    return [(d["path"], d["line"], d["col"], d["code"], d["message"]) for d in json.loads(completed.stdout)]


def apply_text_edits(text: str, edits) -> str:
    """``text`` with LSP edits (UTF-16 positions) applied, as an editor applies them."""
    lines = text.split("\n")

    def offset(position: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: position.line])
        units = lines[position.line].encode("utf-16-le")[: position.character * 2]
        return before + len(units.decode("utf-16-le"))

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


def utf16_col(line_text: str, col: int) -> int:
    """A 1-based column in characters as a 0-based LSP character (UTF-16 code units)."""
    return len(line_text[: col - 1].encode("utf-16-le")) // 2


@pytest.mark.asyncio
async def test_open_publishes_what_check_reports_with_utf16_columns(client, project):
    path = project / "tools" / "broken_tool.py"
    uri = path.as_uri()
    found = await diagnostics_after(client, uri, lambda: open_document(client, path))
    lines = path.read_text(encoding="utf-8").split("\n")
    expected = [
        (line - 1, utf16_col(lines[line - 1], col), code, message)
        for file, line, col, code, message in check_json(project)
        if file == "tools/broken_tool.py"
    ]
    assert sorted(summary(found)) == sorted(expected)
    # check says 30:16 (characters); the line holds "🔧", two UTF-16 code units
    (d,) = [d for d in found if d.code == "HRM004"]
    assert (d.range.start, d.range.end) == (types.Position(29, 16), types.Position(29, 26))  # `check_func`
    assert d.message == HRM004 and d.source == "hermes-lint"
    assert d.severity == types.DiagnosticSeverity.Warning
    href = d.code_description.href
    assert href.startswith("file://") and href.endswith("/docs/rules/HRM004.md")
    assert Path(href[len("file://"):]).is_file()


@pytest.mark.asyncio
async def test_change_publishes_the_unsaved_buffer_and_the_file_is_untouched(client, project):
    path = project / "tools" / "broken_tool.py"
    on_disk = path.read_bytes()
    uri = await _opened(client, path)
    fixed = path.read_text(encoding="utf-8").replace("check_func=", "check_fn=")
    found = await diagnostics_after(client, uri, lambda: change_document(client, uri, fixed, 2))
    assert codes(found) == [(25, "HRM404")]  # HRM004 and HRM201 gone with the buffer's fix
    broken_again = fixed.replace('"Repeat the given text."', '""')
    found = await diagnostics_after(client, uri, lambda: change_document(client, uri, broken_again, 3))
    assert codes(found) == [(16, "HRM306"), (25, "HRM404")]
    assert path.read_bytes() == on_disk


async def _opened(client, path, text=None):
    uri = path.as_uri()
    await diagnostics_after(client, uri, lambda: open_document(client, path, text))
    return uri


@pytest.mark.asyncio
async def test_a_noqa_in_the_buffer_suppresses_and_an_unused_one_is_hrm900(client, project):
    path = project / "tools" / "broken_tool.py"
    uri = await _opened(client, path)
    text = path.read_text(encoding="utf-8")
    suppressed = text.replace("check_func=check_broken,", "check_func=check_broken,  # noqa: HRM004")
    found = await diagnostics_after(client, uri, lambda: change_document(client, uri, suppressed, 2))
    assert codes(found) == [(24, "HRM201"), (25, "HRM404")]
    unused = suppressed.replace("import json\n", "import json  # noqa: HRM101\n")
    found = await diagnostics_after(client, uri, lambda: change_document(client, uri, unused, 3))
    assert codes(found) == [(1, "HRM900"), (24, "HRM201"), (25, "HRM404")]
    (unused_noqa,) = [d for d in found if d.code == "HRM900"]
    assert unused_noqa.message == "unused `# noqa` for HRM101: it suppresses nothing"
    assert list(unused_noqa.tags) == [types.DiagnosticTag.Unnecessary]


@pytest.mark.asyncio
async def test_a_file_that_is_not_a_tool_module_gets_no_diagnostics(client, project):
    path = project / "scripts" / "not_a_tool.py"  # the same mistake as broken_tool.py, outside tools/
    found = await diagnostics_after(client, path.as_uri(), lambda: open_document(client, path))
    assert list(found) == []


@pytest.mark.asyncio
async def test_code_actions_fix_noqa_and_file_exemption(client, project):
    path = project / "tools" / "broken_tool.py"
    uri = await _opened(client, path)
    actions = await wait(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(29, 0), types.Position(29, 0)),
        context=types.CodeActionContext(diagnostics=[]),
    )))
    from hermes_lint.rules import rule_by_code

    title = rule_by_code("HRM004").fix_title
    assert [(a.title, a.kind) for a in actions] == [
        (f"{title[0].upper()}{title[1:]} (HRM004)", types.CodeActionKind.QuickFix),
        ("Add `# noqa: HRM004` on this line", types.CodeActionKind.QuickFix),
        ("Disable HRM004 for this file (`# hermes-lint: noqa: HRM004`)", types.CodeActionKind.QuickFix),
        ("Fix all safe hermes-lint findings", "source.fixAll.hermes-lint"),
    ]
    fix, noqa, exempt, _ = actions
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    (edits,) = fix.edit.changes.values()
    assert [(e.range.start.line, e.range.start.character, e.range.end.character, e.new_text) for e in edits] == [
        (29, 16, 26, "check_fn")
    ]
    (noqa_edits,) = noqa.edit.changes.values()
    assert noqa_edits[0].new_text == '    emoji="🔧", check_func=check_broken,  # noqa: HRM004'
    (exempt_edits,) = exempt.edit.changes.values()
    assert (exempt_edits[0].range.start, exempt_edits[0].new_text) == (types.Position(0, 0), "# hermes-lint: noqa: HRM004\n")


@pytest.mark.asyncio
async def test_fix_all_through_execute_command_and_apply_edit(client, project):
    path = project / "tools" / "broken_tool.py"
    uri = await _opened(client, path)
    text = path.read_text(encoding="utf-8")
    applied = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams):
        applied.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    result = await wait(client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="hermes-lint.applyAutofix", arguments=[{"uri": uri}])
    ))
    assert result == {"applied": True}  # the client's answer to workspace/applyEdit, passed on
    (edit,) = applied
    toolsets = project / "toolsets.py"
    assert sorted(edit.changes) == sorted([uri, toolsets.as_uri()])  # HRM404's fix lists the tool
    fixed = apply_text_edits(text, edit.changes[uri])
    assert "check_fn=check_broken" in fixed and "check_func" not in fixed
    toolsets.write_text(apply_text_edits(toolsets.read_text(encoding="utf-8"), edit.changes[toolsets.as_uri()]))
    found = await diagnostics_after(client, uri, lambda: client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=toolsets.as_uri(), type=types.FileChangeType.Changed)])
    ))
    assert codes(found) == [(24, "HRM201"), (29, "HRM004")]  # toolsets.py read again: HRM404 gone
    found = await diagnostics_after(client, uri, lambda: change_document(client, uri, fixed, 2))
    assert list(found) == []
    (project / "tools" / "broken_tool.py").write_text(fixed, encoding="utf-8")
    assert check_json(project) == []  # what the editor now shows is what check says
    fix_all = await wait(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]),
    )))
    assert list(fix_all) == []  # nothing left to fix


@pytest.mark.asyncio
async def test_hover_on_a_finding_shows_the_rules_page(client, project):
    from hermes_lint.report.rule_docs import render_rule_page
    from hermes_lint.rules import rule_by_code

    path = project / "tools" / "broken_tool.py"
    uri = await _opened(client, path)
    hover = await wait(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(29, 20)
    )))
    assert hover is not None
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == render_rule_page(rule_by_code("HRM004"))
    elsewhere = await wait(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 3)
    )))
    assert elsewhere is None


@pytest.mark.asyncio
async def test_a_duplicate_name_in_an_unsaved_buffer_shows_in_the_other_open_file(client, project):
    echo = project / "tools" / "echo_tool.py"
    broken = project / "tools" / "broken_tool.py"
    echo_uri = await _opened(client, echo)
    broken_uri = await _opened(client, broken)
    echo_name = _registered_name(echo.read_text(encoding="utf-8"))
    duplicate = broken.read_text(encoding="utf-8").replace('name="broken"', f'name="{echo_name}"')
    found = await diagnostics_after(client, echo_uri, lambda: change_document(client, broken_uri, duplicate, 2))
    assert "HRM401" in [d.code for d in found] or "HRM402" in [d.code for d in found]


def _registered_name(text: str) -> str:
    import re

    return re.search(r'name="([^"]+)"', text.split("registry.register(")[1]).group(1)


@pytest.mark.asyncio
async def test_a_changed_pyproject_is_read_again(client, project):
    path = project / "tools" / "broken_tool.py"
    uri = await _opened(client, path)
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[tool.hermes-lint]\nignore = ["HRM004"]\n', encoding="utf-8")
    found = await diagnostics_after(client, uri, lambda: client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Created)])
    ))
    assert codes(found) == [(24, "HRM201"), (25, "HRM404")]


SHARED_SCHEMA = '''\
"""A schema shared by tools (registers nothing itself)."""

LOOKUP_SCHEMA = {
    "name": "lookup",
    "description": "Look a word up.",
    "parameters": {
        "type": "object",
        "properties": {"word": {"type": "string", "description": "The word."}},
        "required": ["word"],
    },
}
'''

LOOKUP_TOOL = '''\
"""A tool whose schema comes from another module."""
import json

from tools.registry import registry
from tools.shared_schema import LOOKUP_SCHEMA


def check_lookup() -> bool:
    return True


def _handle_lookup(args, **kwargs):
    return json.dumps({"word": args.get("word", "")})


registry.register(
    name="lookup",
    toolset="demo",
    schema=LOOKUP_SCHEMA,
    handler=_handle_lookup,
    check_fn=check_lookup,
)
'''


@pytest.mark.asyncio
async def test_an_unsaved_edit_to_an_imported_schema_shows_at_the_key_it_empties(client, project):
    shared = project / "tools" / "shared_schema.py"
    shared.write_text(SHARED_SCHEMA, encoding="utf-8")
    tool = project / "tools" / "lookup_tool.py"
    tool.write_text(LOOKUP_TOOL, encoding="utf-8")
    tool_uri = await _opened(client, tool)
    before = client.diagnostics[tool_uri]
    assert "HRM306" not in [d.code for d in before]
    shared_uri = await _opened(client, shared)
    assert list(client.diagnostics[shared_uri]) == []  # not a tool module: nothing of its own
    emptied = SHARED_SCHEMA.replace('"Look a word up."', '""')
    found = await diagnostics_after(client, shared_uri, lambda: change_document(client, shared_uri, emptied, 2))
    # reported at the emptied key, in the module that writes it, from the unsaved text
    assert [(d.range.start.line, d.code) for d in found] == [(4, "HRM306")]
    assert "lookup" in found[0].message
    found = await diagnostics_after(client, shared_uri, lambda: change_document(client, shared_uri, SHARED_SCHEMA, 3))
    assert list(found) == []
    assert sorted(d.code for d in client.diagnostics[tool_uri]) == sorted(d.code for d in before)


@pytest.mark.asyncio
async def test_a_plugin_module_gets_what_check_reports(client, project):
    from tests.test_plugin_tools import DEMO_PLUGIN

    plugin = project / "plugins" / "demo" / "__init__.py"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(DEMO_PLUGIN, encoding="utf-8")
    found = await diagnostics_after(client, plugin.as_uri(), lambda: open_document(client, plugin))
    expected = [(line - 1, col - 1, code, message) for path, line, col, code, message in check_json(project)
                if path == "plugins/demo/__init__.py"]
    assert expected and sorted(summary(found)) == sorted(expected)


@pytest.mark.asyncio
async def test_a_save_reads_the_files_changed_on_disk(client, project):
    broken = project / "tools" / "broken_tool.py"
    uri = await _opened(client, broken)
    assert "HRM401" not in [d.code for d in client.diagnostics[uri]]
    echo = project / "tools" / "echo_tool.py"  # not open: changed on disk, as by `git checkout`
    echo.write_text(echo.read_text(encoding="utf-8").replace(f'name="{_registered_name(echo.read_text())}"', 'name="broken"'))
    found = await diagnostics_after(client, uri, lambda: client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    ))
    assert [(path, code) for path, _, _, code, _ in check_json(project) if code in ("HRM401", "HRM402")]
    expected = sorted((line - 1, code) for path, line, _, code, _ in check_json(project) if path == "tools/broken_tool.py")
    assert codes(found) == expected
    assert {"HRM401", "HRM402"} & {d.code for d in found}


@pytest.mark.asyncio
async def test_an_incremental_change_in_utf16_units_is_applied_where_the_editor_meant(client, project):
    path = project / "tools" / "broken_tool.py"
    uri = await _opened(client, path)
    assert "HRM004" in [d.code for d in client.diagnostics[uri]]
    # `check_func` spans UTF-16 columns 16-26 of line 29 (after "🔧", two code units)
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(29, 16), types.Position(29, 26)), text="check_fn"
    )
    found = await diagnostics_after(client, uri, lambda: client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2), content_changes=[change],
    )))
    assert codes(found) == [(25, "HRM404")]


@pytest.mark.asyncio
async def test_hover_on_a_code_in_a_noqa_comment_shows_its_page(client, project):
    from hermes_lint.report.rule_docs import render_rule_page
    from hermes_lint.rules import rule_by_code

    path = project / "tools" / "broken_tool.py"
    text = path.read_text(encoding="utf-8").replace("import json\n", "import json  # noqa: HRM101\n")
    uri = await _opened(client, path, text)
    column = text.split("\n")[1].index("HRM101") + 2
    hover = await wait(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(1, column)
    )))
    assert hover is not None and hover.contents.value.startswith(render_rule_page(rule_by_code("HRM101")))


@pytest.mark.asyncio
async def test_a_broken_configuration_is_said_once_and_its_project_gets_no_diagnostics(client, project):
    path = project / "tools" / "broken_tool.py"
    uri = await _opened(client, path)
    assert "HRM004" in [d.code for d in client.diagnostics[uri]]
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[tool.hermes-lint]\ningore = ["HRM004"]\n', encoding="utf-8")
    found = await diagnostics_after(client, uri, lambda: client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Created)])
    ))
    assert list(found) == []  # as `check` reports nothing but the error (exit 2)
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert len(errors) == 1 and errors[0].startswith("hermes-lint: ") and "ingore" in errors[0]
    pyproject.write_text('[tool.hermes-lint]\n', encoding="utf-8")  # fixed: checked again
    found = await diagnostics_after(client, uri, lambda: client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Changed)])
    ))
    assert "HRM004" in [d.code for d in found]
