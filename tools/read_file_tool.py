"""Read File Tool -- read a window of lines from a text file inside the workspace.

The workspace root is the process's current directory at call time. Paths are resolved (``..``
and symlinks included) before the containment check, so a link pointing outside the workspace
is refused like any other outside path. Binary files are refused: their bytes would only waste
the model's context.
"""

import json
import logging
from itertools import islice
from pathlib import Path
from typing import Any

from tools.registry import registry, tool_error
from tools.workspace_paths import resolve_in_workspace, workspace_relative

logger = logging.getLogger(__name__)

DEFAULT_OFFSET = 1
DEFAULT_LIMIT = 500
MAX_LIMIT = 2000
# A NUL byte in the first block is the same heuristic git and grep use to call a file binary.
BINARY_SNIFF_BYTES = 8192


# --- Availability check ---


def check_read_file_requirements() -> bool:
    """Always available: only the standard library is needed."""
    return True


# --- Helpers ---


def _looks_binary(target: Path) -> bool:
    with target.open("rb") as stream:
        return b"\0" in stream.read(BINARY_SNIFF_BYTES)


def _is_positive_int(value: object) -> bool:
    # bool is an int subclass; `true` from a model is not a line number.
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _read_line_window(target: Path, offset: int, limit: int) -> dict[str, Any]:
    """Lines ``offset .. offset+limit-1`` (1-based) plus the file's total line count.

    Streams the file so memory stays bounded by the window, not by the file size.
    ``newline=""`` keeps the file's own line endings in the returned text.
    """
    with target.open("r", encoding="utf-8", errors="replace", newline="") as stream:
        skipped = sum(1 for _ in islice(stream, offset - 1))
        window = list(islice(stream, limit))
        remaining = sum(1 for _ in stream)
    total_lines = skipped + len(window) + remaining
    has_more = remaining > 0
    return {
        "path": workspace_relative(target),
        "offset": offset,
        "lines_returned": len(window),
        "total_lines": total_lines,
        "next_offset": offset + len(window) if has_more else None,
        "content": "".join(window),
    }


# --- Handler ---


def _handle_read_file(args: dict[str, Any], **kwargs: Any) -> str:
    path_text = args.get("path")
    offset = args.get("offset", DEFAULT_OFFSET)
    limit = args.get("limit", DEFAULT_LIMIT)
    if not isinstance(path_text, str) or not path_text:
        return tool_error("path must be a non-empty string")
    if not _is_positive_int(offset):
        return tool_error("offset must be an integer >= 1")
    if not _is_positive_int(limit) or limit > MAX_LIMIT:
        return tool_error(f"limit must be an integer between 1 and {MAX_LIMIT}")
    try:
        target = resolve_in_workspace(path_text)
        if target is None:
            return tool_error(f"path is outside the workspace root: {path_text}")
        if not target.exists():
            return tool_error(f"file not found: {path_text}")
        if not target.is_file():
            return tool_error(f"not a regular file: {path_text}")
        if _looks_binary(target):
            return tool_error(f"refusing to read binary file: {path_text}")
        return json.dumps(_read_line_window(target, offset, limit), ensure_ascii=False)
    except Exception as exc:  # a failed read is a result for the model, never a crash
        logger.debug("read_file failed for %s", path_text, exc_info=True)
        return tool_error(f"cannot read {path_text}: {exc}")


# --- Schema ---

READ_FILE_SCHEMA = {
    "name": "read_file",
    "description": (
        "Read a text file inside the workspace (the current directory), a window of lines at "
        "a time. Returns the lines verbatim with the total line count and the offset to "
        "continue from. Binary files and paths outside the workspace are refused."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "File path, relative to the workspace or absolute inside it.",
            },
            "offset": {
                "type": "integer",
                "description": "1-based line number to start reading from.",
                "minimum": 1,
                "default": DEFAULT_OFFSET,
            },
            "limit": {
                "type": "integer",
                "description": "Maximum number of lines to return.",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
            },
        },
        "required": ["path"],
    },
}

# --- Registration ---

registry.register(
    name="read_file",
    toolset="file",
    schema=READ_FILE_SCHEMA,
    handler=_handle_read_file,
    check_fn=check_read_file_requirements,
    emoji="📖",
    max_result_size_chars=100_000,
)
