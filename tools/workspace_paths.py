"""Paths inside the workspace: shared by the file tools (read_file, write_file, patch, search_files).

Not a tool module (it registers nothing). The workspace root is the process's current directory
at call time. Paths are resolved (``..`` and symlinks included) before the containment check, so
a link pointing outside the workspace is refused like any other outside path.
"""

from pathlib import Path


def resolve_in_workspace(path_text: str) -> Path | None:
    """The real path of ``path_text`` under the cwd, or None when it escapes the cwd."""
    root = Path.cwd().resolve()
    candidate = (root / path_text).resolve()
    return candidate if candidate.is_relative_to(root) else None


def workspace_relative(target: Path) -> str:
    """``target`` (inside the workspace) as a '/'-separated path relative to it."""
    return target.relative_to(Path.cwd().resolve()).as_posix()
