"""The manifest's digest: a file exactly as generated is used without validating it against the
schema; any other file (edited by hand, an older format) is validated in full. The digest is not
a signature: one recomputed over an edited file passes, but never lets the manifest import code
outside the tools package."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hermes_lint.manifest.generate import render
from tests.runtime.test_load_manifest import (  # noqa: F401 - fixtures
    FOREIGN,
    PREFIX,
    ManifestError,
    loaded_project,
    mutate,
    project,
)

TOOL = f"{PREFIX}a"


def edit_in_place(path: Path, change) -> None:
    """A hand edit: the file re-rendered as the generator renders it, its digest line kept."""
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    text = json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")


def forge(path: Path, change) -> None:
    """An edit whose digest is recomputed, as the generator would have written it."""
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_bytes(render(data))


def set_line(value):
    return lambda data: data["tools"][TOOL].update(line=value)


def test_the_file_as_generated_is_not_validated_and_an_edited_one_is(loaded_project):  # noqa: F811
    manifest = loaded_project.tools_dir / "manifest.json"
    original = manifest.read_bytes()
    # line 0 breaks the schema (minimum 1) and nothing else: only the schema can notice it.
    forge(manifest, set_line(0))
    assert manifest.read_bytes().splitlines()[1] != original.splitlines()[1]

    assert loaded_project.load().tools == [TOOL]

    loaded_project.registry.deregister(TOOL)
    manifest.write_bytes(original)
    edit_in_place(manifest, set_line(0))
    assert manifest.read_bytes().splitlines()[1] == original.splitlines()[1]  # the old digest

    with pytest.raises(ManifestError, match=r"is corrupt: tools\['zzman_a'\]\['line'\]: 0 is less than 1"):
        loaded_project.load()


def test_a_valid_hand_edit_is_validated_and_used(loaded_project):  # noqa: F811
    manifest = loaded_project.tools_dir / "manifest.json"
    edit_in_place(manifest, lambda data: data["tools"][TOOL].update(description="Edited by hand."))

    loaded = loaded_project.load()

    assert loaded.tools == [TOOL] and loaded.stale == []
    assert loaded_project.registry.get_entry(TOOL).description == "Edited by hand."


def test_a_version_3_file_without_its_digest_line_is_validated_and_used(loaded_project):  # noqa: F811
    manifest = loaded_project.tools_dir / "manifest.json"
    lines = manifest.read_bytes().splitlines(keepends=True)
    assert lines[1].startswith(b'  "digest": "')
    manifest.write_bytes(b"".join(lines[:1] + lines[2:]))

    assert loaded_project.load().tools == [TOOL]

    loaded_project.registry.deregister(TOOL)
    edit_in_place(manifest, set_line(0))
    with pytest.raises(ManifestError, match="0 is less than 1"):
        loaded_project.load()


@pytest.mark.parametrize("version", [1, 2])
def test_a_digest_in_an_older_format_is_corrupt(loaded_project, version):  # noqa: F811
    mutate(loaded_project.tools_dir / "manifest.json", lambda data: data.update(format_version=version))

    with pytest.raises(ManifestError, match=f"is corrupt: format version {version} has no digest"):
        loaded_project.load()
    assert loaded_project.registry.get_all_tool_names() == []


def test_a_digest_that_does_not_match_its_line_is_not_trusted(loaded_project):  # noqa: F811
    manifest = loaded_project.tools_dir / "manifest.json"
    forge(manifest, set_line(0))
    text = manifest.read_bytes()
    digest = text.splitlines()[1].split(b'"')[3]
    # One hex digit changed: the line is well formed, the digest no longer the file's.
    manifest.write_bytes(text.replace(digest, digest[:-1] + (b"0" if digest[-1:] != b"0" else b"1"), 1))

    with pytest.raises(ManifestError, match="0 is less than 1"):
        loaded_project.load()


# A forger can point the manifest at the payload directly, not only at other names.
AT_THE_PAYLOAD = {
    "dotted probe of the payload": lambda d: d["tools"][TOOL].update(
        check={"kind": "template", "template": {"find_spec": "zzevil_payload.sub"}}),
    "dotted probe in a check form of format version 3": lambda d: d["tools"][TOOL].update(
        check={"kind": "module", "name": "zzevil_payload.sub"}),
    "handler in the payload": lambda d: d["tools"][TOOL].update(
        handler={"module": "zzevil_payload", "qualname": "run"}),
    "tool of the payload module": lambda d: d["tools"][TOOL].update(module="zzevil_payload"),
    "the payload as a frozen module": lambda d: d["modules"].update(
        {"zzevil_payload": {"path": "zzevil_payload.py", "tools": [TOOL]}}),
}


@pytest.mark.parametrize("how", sorted(FOREIGN) + sorted(AT_THE_PAYLOAD))
def test_a_recomputed_digest_never_makes_the_manifest_import_code_outside_the_tools_package(
        loaded_project, tmp_path, monkeypatch, how):  # noqa: F811
    payload_dir = tmp_path / "payload"
    payload_dir.mkdir()
    (payload_dir / "zzevil_payload.py").write_text("raise SystemExit('imported!')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(payload_dir))
    forge(loaded_project.tools_dir / "manifest.json", {**FOREIGN, **AT_THE_PAYLOAD}[how])

    try:
        loaded_project.load()
    except ManifestError as exc:
        assert "is refused" in str(exc) or "is corrupt" in str(exc)
    else:  # whatever was registered: its definitions built and every tool run
        registry = loaded_project.registry
        names = registry.get_all_tool_names()
        registry.get_definitions(names)
        for name in names:
            registry.dispatch(name, {})

    assert "zzevil_payload" not in sys.modules


# Shapes a schema refuses: a file with a recomputed digest skips the schema, and must still get
# the error the schema gives (not a KeyError or TypeError from deep in the loader, which
# ``fallback=True`` would not catch), before anything is registered.
MALFORMED = {
    "no tools_dir": lambda d: d.pop("tools_dir"),
    "no sources": lambda d: d.pop("sources"),
    "sources a number": lambda d: d.update(sources=-1),
    "module without its tool list": lambda d: d["modules"][f"tools.{TOOL}"].pop("tools"),
    "module record not an object": lambda d: d["modules"].update({f"tools.{TOOL}": True}),
    "tool without a module": lambda d: d["tools"][TOOL].pop("module"),
    "tool record not an object": lambda d: d["tools"].update({TOOL: True}),
    "tool without a schema": lambda d: d["tools"][TOOL].pop("schema"),
    "schema not an object": lambda d: d["tools"][TOOL].update(schema=True),
    "toolset not a string": lambda d: d["tools"][TOOL].update(toolset={"kind": "x"}),
    "tool without override": lambda d: d["tools"][TOOL].pop("override"),
    "tool without is_async": lambda d: d["tools"][TOOL].pop("is_async"),
    "check without kind": lambda d: d["tools"][TOOL]["check"].pop("kind"),
    "requires_env a number": lambda d: d["tools"][TOOL].update(requires_env=-1),
    "name not the tool's key": lambda d: d["tools"][TOOL].update(name=None),
}


@pytest.mark.parametrize("how", list(MALFORMED))
def test_a_recomputed_digest_over_a_malformed_file_gets_the_schemas_error_and_registers_nothing(
        loaded_project, how):  # noqa: F811
    forge(loaded_project.tools_dir / "manifest.json", MALFORMED[how])

    with pytest.raises(ManifestError, match=r"^Tool manifest .* is corrupt: "):
        loaded_project.load()
    assert loaded_project.registry.get_all_tool_names() == []


def test_with_fallback_a_recomputed_digest_over_a_malformed_file_falls_back_to_importing(
        loaded_project, caplog):  # noqa: F811
    forge(loaded_project.tools_dir / "manifest.json", MALFORMED["tool without override"])

    loaded = loaded_project.load(fallback=True)

    assert loaded.fallback and TOOL in loaded.tools + loaded_project.registry.get_all_tool_names()
    assert "is corrupt" in caplog.text and "falling back" in caplog.text
