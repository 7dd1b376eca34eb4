"""The built wheel: SPDX licence with its file, classifiers, project URLs, py.typed, the
console script and the flake8 entry point."""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_metadata(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO_ROOT / name, source / name)
    shutil.copytree(REPO_ROOT / "hermes_lint", source / "hermes_lint", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    if built.returncode != 0 and any(
        hint in built.stderr for hint in ("No matching distribution", "Failed to establish", "Network is unreachable")
    ):
        pytest.skip("building a wheel needs setuptools from the package index, which is unreachable")
    assert built.returncode == 0, built.stderr
    wheel = zipfile.ZipFile(next((tmp_path / "dist").glob("hermes_lint-*.whl")))
    names = wheel.namelist()
    (metadata_name,) = [name for name in names if name.endswith(".dist-info/METADATA")]
    dist_info = metadata_name.rsplit("/", 1)[0]
    metadata = email.message_from_bytes(wheel.read(metadata_name))
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert wheel.read(f"{dist_info}/licenses/LICENSE") == (REPO_ROOT / "LICENSE").read_bytes()
    assert b"MIT License" in (REPO_ROOT / "LICENSE").read_bytes()
    classifiers = metadata.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and "Framework :: Flake8" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the SPDX expression says it
    urls = dict(value.split(", ", 1) for value in metadata.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Documentation", "Source", "Issues"}
    assert "hermes_lint/py.typed" in names
    assert "tools/registry.py" not in names  # never a top-level `tools` package
    entry_points = wheel.read(f"{dist_info}/entry_points.txt").decode()
    assert "hermes-lint = hermes_lint.cli:main" in entry_points
    assert "HRM = hermes_lint.flake8_plugin:HermesLintChecker" in entry_points
