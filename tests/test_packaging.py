"""The built wheel: SPDX licence with its file, classifiers, project URLs, py.typed, the
console script and the flake8 entry point, every module of the package and the templates
under hermes_lint/ (never a top-level package of their own)."""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO_ROOT = Path(__file__).resolve().parents[1]
# what pyproject.toml builds the distribution from
SOURCE_ENTRIES = ("pyproject.toml", "README.md", "LICENSE", "hermes_lint", "templates", "tools", "docs")


def copy_source(destination: Path) -> Path:
    """The files the distribution is built from, copied to ``destination`` (no caches)."""
    destination.mkdir()
    for name in SOURCE_ENTRIES:
        if (REPO_ROOT / name).is_dir():
            shutil.copytree(REPO_ROOT / name, destination / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(REPO_ROOT / name, destination / name)
    return destination


def skip_when_the_index_is_unreachable(result: subprocess.CompletedProcess) -> None:
    if result.returncode != 0 and any(
        hint in result.stderr for hint in ("No matching distribution", "Failed to establish", "Network is unreachable")
    ):
        pytest.skip("building needs setuptools from the package index, which is unreachable")


def build_wheel(tmp_path: Path) -> Path:
    source = copy_source(tmp_path / "src")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    skip_when_the_index_is_unreachable(built)
    assert built.returncode == 0, built.stderr
    return next((tmp_path / "dist").glob("hermes_lint-*.whl"))


def listed_packages() -> list:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]


def test_every_python_package_of_the_source_is_listed_in_pyproject():
    # the packages are listed by hand (templates/ is mapped into hermes_lint): a new
    # subpackage left out of the list would be missing from the wheel
    on_disk = {
        ".".join(directory.relative_to(REPO_ROOT).parts)
        for directory in [REPO_ROOT / "hermes_lint", *(REPO_ROOT / "hermes_lint").rglob("*")]
        if directory.is_dir() and any(directory.glob("*.py"))
    }
    assert set(listed_packages()) == on_disk | {"hermes_lint.templates", "hermes_lint.runtime", "hermes_lint.rule_pages"}


@pytest.mark.slow
def test_wheel_metadata(tmp_path):
    wheel = zipfile.ZipFile(build_wheel(tmp_path))
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
    assert metadata.get_all("Project-URL") is None  # no address that leads nowhere
    # every rule page is installed, where diagnostics link to it
    pages = sorted(path.name for path in (REPO_ROOT / "docs" / "rules").glob("*.md"))
    assert pages and [name for name in pages if f"hermes_lint/rule_pages/{name}" not in names] == []
    assert "hermes_lint/py.typed" in names
    assert "tools/registry.py" not in names  # never a top-level `tools` package
    assert not any(name.startswith("templates/") for name in names)  # installed under hermes_lint/
    # the reference runtime `init` copies: every module RUNTIME_MODULES names, under hermes_lint/
    from hermes_lint.scaffold.reference_runtime import runtime_file_names

    runtime = runtime_file_names(REPO_ROOT / "tools")
    assert "registry.py" in runtime
    assert {f"hermes_lint/runtime/{name}" for name in runtime} - set(names) == set()
    assert not any(name.startswith("tools/") for name in names)
    modules = {path.relative_to(REPO_ROOT).as_posix() for path in (REPO_ROOT / "hermes_lint").rglob("*.py")}
    assert modules - set(names) == set()
    entry_points = wheel.read(f"{dist_info}/entry_points.txt").decode()
    assert "hermes-lint = hermes_lint.cli:main" in entry_points
    assert "HRM = hermes_lint.flake8_plugin:HermesLintChecker" in entry_points
