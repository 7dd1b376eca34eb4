"""``hermes-lint lsp`` publishes what ``hermes-lint check`` reports: every rule's INVALID
examples (tests/test_rule_examples.py's cases) written out as projects, checked by the CLI and
opened in one running server, each project a workspace folder of its own (several folders, each
with its own ``[tool.hermes-lint]``)."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from pathlib import Path

import pytest
import pytest_lsp
from click.testing import CliRunner
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from hermes_lint.cli import main
from hermes_lint.rules import all_rules
from hermes_lint.rules.base import EXAMPLE_PATH
from tests.test_lsp import WAIT_SECONDS, record_publications

pytestmark = pytest.mark.slow


def _cases():
    for rule in all_rules():
        if rule.examples_run_by is not None:  # reported by a command (HRM501: manifest --check)
            continue
        for number, example in enumerate(rule.invalid):
            yield f"{rule.code}-INVALID-{number}", rule, example


CASES = list(_cases())


def _toml_value(value) -> str:
    return json.dumps(value)  # lists of strings, numbers and strings: the same text in TOML


def write_project(root: Path, rule, example) -> dict:
    """The example as a project under ``root``; its files (relative path -> text)."""
    table = {"select": [rule.code], **example.options}
    files = {EXAMPLE_PATH: example.code, **example.files}
    root.mkdir(parents=True)
    lines = ["[tool.hermes-lint]"] + [f"{key} = {_toml_value(value)}" for key, value in table.items()]
    (root / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    written = {}
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        written[relative] = inspect.cleandoc(text) + "\n"
        path.write_text(written[relative], encoding="utf-8")
    return written


def check_reports(root: Path) -> list:
    result = CliRunner().invoke(main, ["check", "--root", str(root), "--no-cache", "--format", "json"], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    # ``path`` is relative to where check runs; ``filename`` is absolute: the project's own path
    return sorted(
        (Path(d["filename"]).relative_to(root.resolve()).as_posix(), d["line"], d["col"], d["code"], d["message"])
        for d in json.loads(result.stdout)
    )


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    base = tmp_path_factory.mktemp("examples")
    return {case: (base / case, write_project(base / case, rule, example)) for case, rule, example in CASES}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "hermes_lint", "lsp"]))
async def client(lsp_client: LanguageClient, projects):
    record_publications(lsp_client)
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    folders = [types.WorkspaceFolder(uri=root.as_uri(), name=case) for case, (root, _) in projects.items()]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("neovim"), workspace_folders=folders,
        initialization_options={"debounce": 0},
    ))
    yield lsp_client
    await lsp_client.shutdown_session()


def _characters(line_text: str, utf16: int) -> int:
    return len(line_text.encode("utf-16-le")[: utf16 * 2].decode("utf-16-le"))


@pytest.mark.asyncio
async def test_every_invalid_example_is_published_as_check_reports_it(client, projects):
    uris = {}
    for case, (root, files) in projects.items():
        for relative, text in files.items():
            uri = (root / relative).as_uri()
            uris[uri] = (case, relative, text)
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            ))

    async def all_published():
        while not set(uris) <= {uri for uri, _, _ in client.published.received}:
            client.published.arrived.clear()
            await client.published.arrived.wait()

    await asyncio.wait_for(all_published(), WAIT_SECONDS * 4)
    published = {case: [] for case in projects}
    for uri, (case, relative, text) in uris.items():
        lines = text.split("\n")
        for d in client.diagnostics[uri]:
            line = d.range.start.line
            published[case].append(
                (relative, line + 1, _characters(lines[line], d.range.start.character) + 1, d.code, d.message)
            )
    differences = {}
    for case, (root, _) in projects.items():
        expected = check_reports(root)
        if sorted(published[case]) != expected:
            differences[case] = {"check": expected, "lsp": sorted(published[case])}
    assert differences == {}
    assert sum(len(found) for found in published.values()) >= len(CASES)  # every example reports
