"""Writing a small project into a temporary directory, editing it, and running the real
``hermes-lint check`` on it in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def write(root: Path, files: dict) -> Path:
    """Each ``relative path: text`` of ``files`` under ``root`` (directories made); ``root``."""
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def check_lines(cwd: Path, *args: str):
    """(exit status, stdout's lines, stderr) of ``hermes-lint check --no-cache`` run in ``cwd``,
    without the colour settings of the environment running the tests."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", *args],
        cwd=cwd, capture_output=True, text=True, env=environ, timeout=120,
    )
    return completed.returncode, completed.stdout.splitlines(), completed.stderr


def rewrite(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new`` in the file ``path``."""
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def unread(location: str, loop: str) -> str:
    """The HRM003 line of a registration loop over ``loop`` that cannot be unrolled."""
    return (
        f"{location}: HRM003 cannot verify: this register_tool call cannot be read (the loop over "
        f"`{loop}` cannot be unrolled statically): its tool is not checked\n"
    )
