"""Where a report's paths are relative to, per format.

Diagnostics carry paths relative to the project root. What the user reads names files as the
place the report is read from needs them:

- text and JSON: relative to the current directory, as ruff and flake8 print them (``..``
  when the file lies above it); JSON also gives the absolute ``filename`` (ruff's key);
- GitHub annotations: relative to the repository root (the nearest parent holding ``.git``),
  which is what the runner resolves ``file=`` against, so a project in a monorepo
  subdirectory annotates the right file;
- SARIF: relative to the repository root too, under ``uriBaseId`` ``%SRCROOT%``, which the run's
  ``originalUriBaseIds`` defines as that directory's absolute ``file:`` URI (SARIF 2.1.0
  §3.14.14): code scanning resolves the relative URI against the checkout, other viewers
  against the absolute base.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional


def from_current_directory(root: Path, path: str, cwd: Optional[Path] = None) -> str:
    """``path`` (root-relative) as seen from ``cwd`` (default: the current directory)."""
    here = cwd if cwd is not None else _cwd()
    if here is None:
        return (root / path).as_posix()
    return Path(os.path.relpath(root / path, here)).as_posix()


def _cwd() -> Optional[Path]:
    try:
        return Path.cwd()
    except OSError:  # the current directory was removed
        return None


def repository_root(root: Path) -> Path:
    """The nearest directory at or above ``root`` holding ``.git`` (a directory, or the file of a
    worktree or submodule); ``root`` itself outside a repository."""
    for candidate in (root, *root.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return root


def from_repository_root(root: Path, path: str, repository: Path) -> str:
    return Path(os.path.relpath(root / path, repository)).as_posix()
