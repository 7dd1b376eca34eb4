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

# What the refusal must name: the field, then the offending value (the wording is the loader's).
WHY = {
    "stdlib module": ("modules", "'os'"),
    "relative path module": ("modules", "'../x'"),
    "nested module": ("modules", f"'{MODULE}.y'"),
    "the registry itself": ("module", "'tools.registry'"),
    "path outside the tools dir": (f"modules['{MODULE}']['path']", "'../evil.py'"),
    "tools dir escaping the root": ("tools_dir", "'../elsewhere'"),
    "absolute source path": ("sources", "'/etc/passwd'"),
    "another package": ("package", "'os'"),
    "handler of another module": (f"tools['{PREFIX}a']['handler']['module']", "'os'"),
    "handler through an attribute path": (f"tools['{PREFIX}a']['handler']['qualname']", "'os.system'"),
    "dotted module check": (f"tools['{PREFIX}a']['check']['name']", "'evil.sub'"),
    "import-only module outside": ("import_only", "'zzevil_payload'"),
}

EXTRA = {
    "source path through ..": (lambda d: d["sources"].update({"tools/../x.py": "0" * 64}), ("sources", "'tools/../x.py'")),
    "tools dir through ..": (lambda d: d.update(tools_dir="tools/.."), ("tools_dir", "'tools/..'")),
}


def test_every_foreign_case_has_its_reason():
    assert set(WHY) == set(FOREIGN)


@pytest.mark.parametrize("how", sorted(FOREIGN) + sorted(EXTRA))
def test_a_refused_manifest_says_why(loaded_project, how):  # noqa: F811
    change, why = EXTRA[how] if how in EXTRA else (FOREIGN[how], WHY[how])
    mutate(loaded_project.tools_dir / "manifest.json", change)

    with pytest.raises(ManifestError) as raised:
        loaded_project.load()

    field, value = why
    reason = str(raised.value).split("manifest.json ", 1)[1]
    assert reason.startswith(("is refused: ", "is corrupt: ")), reason
    assert field in reason and value in reason and reason.index(field) < reason.index(value), reason
    assert loaded_project.registry.get_all_tool_names() == []


def test_a_manifest_with_trailing_garbage_is_corrupt_not_truncated(loaded_project):  # noqa: F811
    path = loaded_project.tools_dir / "manifest.json"
    path.write_bytes(path.read_bytes() + b"garbage")

    with pytest.raises(ManifestError) as raised:
        loaded_project.load()

    assert "manifest.json is corrupt: not valid JSON (Extra data at line" in str(raised.value)
