"""Each refusal of a manifest that names code or paths outside the tools package says why: a
test that accepts any refusal passes when the check meant for the case is gone and a later one
happens to refuse it (a `..` path check removed was such a case)."""

from __future__ import annotations

import pytest

from tests.runtime.test_load_manifest import (  # noqa: F401 - fixtures
    FOREIGN,
    PREFIX,
    ManifestError,
    loaded_project,
    mutate,
    project,
)

MODULE = f"tools.{PREFIX}a"
NOT_A_TOOL_MODULE = "which is not a tool module of the 'tools' package (tools.<name> for tools/<name>.py)"
NOT_RELATIVE = "is not a plain relative path inside the project"

WHY = {
    "stdlib module": f"it names module 'os', {NOT_A_TOOL_MODULE}",
    "relative path module": f"it names module '../x', {NOT_A_TOOL_MODULE}",
    "nested module": f"it names module '{MODULE}.y', {NOT_A_TOOL_MODULE}",
    "the registry itself": f"it names module 'tools.registry', {NOT_A_TOOL_MODULE}",
    "path outside the tools dir": f"module '{MODULE}' is recorded at '../evil.py', not 'tools/{PREFIX}a.py'",
    "tools dir escaping the root": f"tools_dir '../elsewhere' {NOT_RELATIVE}",
    "absolute source path": f"a sources path '/etc/passwd' {NOT_RELATIVE}",
    "another package": "it is for package 'os', not this runtime's 'tools'",
    "handler of another module": f"tools['{PREFIX}a'].handler is not a function of module '{MODULE}'",
    "handler through an attribute path": f"tools['{PREFIX}a'].handler is not a function of module '{MODULE}'",
    "dotted module check": f"tools['{PREFIX}a'].check.name 'evil.sub' is not a top-level module name",
    "import-only module outside": f"it names module 'zzevil_payload', {NOT_A_TOOL_MODULE}",
}

EXTRA = {
    "source path through ..": (
        lambda d: d["sources"].update({"tools/../x.py": "0" * 64}),
        f"a sources path 'tools/../x.py' {NOT_RELATIVE}",
    ),
    "tools dir through ..": (lambda d: d.update(tools_dir="tools/.."), f"tools_dir 'tools/..' {NOT_RELATIVE}"),
}


def test_every_foreign_case_has_its_reason():
    assert set(WHY) == set(FOREIGN)


@pytest.mark.parametrize("how", sorted(FOREIGN) + sorted(EXTRA))
def test_a_refused_manifest_says_why(loaded_project, how):  # noqa: F811
    change, why = EXTRA[how] if how in EXTRA else (FOREIGN[how], WHY[how])
    mutate(loaded_project.tools_dir / "manifest.json", change)

    with pytest.raises(ManifestError) as raised:
        loaded_project.load()

    assert str(raised.value).endswith(f"manifest.json is refused: {why}")
    assert loaded_project.registry.get_all_tool_names() == []


def test_a_manifest_with_trailing_garbage_is_corrupt_not_truncated(loaded_project):  # noqa: F811
    path = loaded_project.tools_dir / "manifest.json"
    path.write_bytes(path.read_bytes() + b"garbage")

    with pytest.raises(ManifestError) as raised:
        loaded_project.load()

    assert "manifest.json is corrupt: not valid JSON (Extra data at line" in str(raised.value)
