"""Search Files Tool -- find workspace files by name glob and/or lines by content regex.

With only ``name_glob`` the matches are file paths; with ``content_regex`` they are matching
lines (in files whose names match ``name_glob`` when both are given). The walk is sorted so the
same tree always gives the same answer, it skips VCS and cache directories, binary files and
very large files, never leaves the workspace (symlinks included), and stops at ``max_results``.
"""

import fnmatch
import json
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tools.registry import registry, tool_error
from tools.workspace_paths import resolve_in_workspace

logger = logging.getLogger(__name__)

DEFAULT_MAX_RESULTS = 50
MAX_RESULTS_LIMIT = 500
MAX_LINE_CHARS = 300
# Larger files are almost always data or build output; scanning them would stall the search.
MAX_CONTENT_FILE_BYTES = 2_000_000
BINARY_SNIFF_BYTES = 8192
SKIPPED_DIR_NAMES = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv"})


# --- Availability check ---


def check_search_files_requirements() -> bool:
    """Always available: only the standard library is needed."""
    return True


# --- Helpers ---


def _walk_files(base: Path, root: Path) -> Iterator[Path]:
    """Files under ``base`` in sorted order, each a real path inside ``root``."""
    if base.is_file():
        yield base
        return
    for dir_path, dir_names, file_names in os.walk(base):
        dir_names[:] = sorted(name for name in dir_names if name not in SKIPPED_DIR_NAMES)
        for file_name in sorted(file_names):
            path = Path(dir_path) / file_name
            # os.walk does not follow directory links, but a file link may point anywhere.
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                continue
            if path.is_file():
                yield path


def _name_matches(path: Path, root: Path, name_glob: str) -> bool:
    # A glob with a slash is matched against the workspace-relative path, else the file name.
    if "/" in name_glob:
        return fnmatch.fnmatch(path.relative_to(root).as_posix(), name_glob)
    return fnmatch.fnmatch(path.name, name_glob)


def _matching_lines(path: Path, regex: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    """(line number, line text) for each line matching ``regex``; nothing for binary files."""
    try:
        if path.stat().st_size > MAX_CONTENT_FILE_BYTES:
            return
        data = path.read_bytes()
    except OSError:
        return  # unreadable files are skipped like binary ones, the search goes on
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return
    text = data.decode("utf-8", errors="replace")
    for line_number, line in enumerate(text.splitlines(), start=1):
        if regex.search(line):
            yield line_number, line[:MAX_LINE_CHARS]


def _iter_matches(base: Path, root: Path, name_glob: str | None,
                  regex: re.Pattern[str] | None) -> Iterator[dict[str, Any]]:
    for path in _walk_files(base, root):
        if name_glob and not _name_matches(path, root, name_glob):
            continue
        relative = path.relative_to(root).as_posix()
        if regex is None:
            yield {"path": relative}
            continue
        for line_number, text in _matching_lines(path, regex):
            yield {"path": relative, "line": line_number, "text": text}


def _search(base: Path, root: Path, name_glob: str | None, regex: re.Pattern[str] | None,
            max_results: int) -> dict[str, Any]:
    """At most ``max_results`` matches; ``truncated`` says whether more were left."""
    matches: list[dict[str, Any]] = []
    for match in _iter_matches(base, root, name_glob, regex):
        if len(matches) == max_results:
            return {"matches": matches, "count": len(matches), "truncated": True}
        matches.append(match)
    return {"matches": matches, "count": len(matches), "truncated": False}


def _is_optional_text(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_count(value: object) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 1 <= value <= MAX_RESULTS_LIMIT
    )


# --- Handler ---


def _handle_search_files(args: dict[str, Any], **kwargs: Any) -> str:
    name_glob = args.get("name_glob")
    content_regex = args.get("content_regex")
    path_text = args.get("path", ".")
    max_results = args.get("max_results", DEFAULT_MAX_RESULTS)
    if not (_is_optional_text(name_glob) and _is_optional_text(content_regex)):
        return tool_error("name_glob and content_regex must be strings")
    if not name_glob and not content_regex:
        return tool_error("give name_glob, content_regex or both")
    if not isinstance(path_text, str) or not path_text:
        return tool_error("path must be a non-empty string")
    if not _is_count(max_results):
        return tool_error(f"max_results must be an integer between 1 and {MAX_RESULTS_LIMIT}")
    try:
        regex = re.compile(content_regex) if content_regex else None
    except re.error as exc:
        return tool_error(f"invalid content_regex: {exc}")
    try:
        root = Path.cwd().resolve()
        base = resolve_in_workspace(path_text)
        if base is None:
            return tool_error(f"path is outside the workspace root: {path_text}")
        if not base.exists():
            return tool_error(f"path not found: {path_text}")
        return json.dumps(_search(base, root, name_glob, regex, max_results), ensure_ascii=False)
    except Exception as exc:  # a failed search is a result for the model, never a crash
        logger.debug("search_files failed under %s", path_text, exc_info=True)
        return tool_error(f"cannot search {path_text}: {exc}")


# --- Schema ---

SEARCH_FILES_SCHEMA = {
    "name": "search_files",
    "description": (
        "Search the workspace (the current directory) for files whose names match a glob "
        "and/or lines whose text matches a regular expression. Give name_glob alone to list "
        "files, content_regex alone to search every text file, or both to search only the "
        "named files. Results are capped at max_results; truncated tells whether more exist."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "name_glob": {
                "type": "string",
                "description": (
                    "Shell-style pattern for file names, e.g. '*.py'. A pattern containing '/' "
                    "is matched against the workspace-relative path."
                ),
            },
            "content_regex": {
                "type": "string",
                "description": "Python regular expression searched for in each line.",
            },
            "path": {
                "type": "string",
                "description": "Directory or file to search, relative to the workspace.",
                "default": ".",
            },
            "max_results": {
                "type": "integer",
                "description": "Maximum number of matches to return.",
                "minimum": 1,
                "maximum": MAX_RESULTS_LIMIT,
                "default": DEFAULT_MAX_RESULTS,
            },
        },
        "required": [],
    },
}

# --- Registration ---

registry.register(
    name="search_files",
    toolset="file",
    schema=SEARCH_FILES_SCHEMA,
    handler=_handle_search_files,
    check_fn=check_search_files_requirements,
    emoji="🔎",
    max_result_size_chars=60_000,
)
