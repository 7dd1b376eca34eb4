"""Write File Tool -- create or overwrite a text file inside the workspace.

The workspace root is the process's current directory at call time; the target's real path
(``..`` and symlinks resolved) must stay inside it. Missing parent directories are created.
The content is written as UTF-8 bytes exactly as given: no newline translation.
"""

import json
import logging
from pathlib import Path
from typing import Any

from tools.registry import registry, tool_error
from tools.workspace_paths import resolve_in_workspace, workspace_relative

logger = logging.getLogger(__name__)


# --- Availability check ---


def check_write_file_requirements() -> bool:
    """Always available: only the standard library is needed."""
    return True


# --- Helpers ---


def _write_text(target: Path, content: str) -> dict[str, Any]:
    """Write ``content`` and describe what happened."""
    created = not target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    target.write_bytes(data)
    return {
        "path": workspace_relative(target),
        "bytes_written": len(data),
        "created": created,
    }


# --- Handler ---


def _handle_write_file(args: dict[str, Any], **kwargs: Any) -> str:
    path_text = args.get("path")
    content = args.get("content")
    if not isinstance(path_text, str) or not path_text:
        return tool_error("path must be a non-empty string")
    if not isinstance(content, str):
        return tool_error("content must be a string")
    try:
        target = resolve_in_workspace(path_text)
        if target is None:
            return tool_error(f"path is outside the workspace root: {path_text}")
        if target.is_dir():
            return tool_error(f"path is a directory: {path_text}")
        return json.dumps(_write_text(target, content), ensure_ascii=False)
    except Exception as exc:  # a failed write is a result for the model, never a crash
        logger.debug("write_file failed for %s", path_text, exc_info=True)
        return tool_error(f"cannot write {path_text}: {exc}")


# --- Schema ---

WRITE_FILE_SCHEMA = {
    "name": "write_file",
    "description": (
        "Create or overwrite a text file inside the workspace (the current directory) with "
        "the given content, creating missing parent directories. Paths outside the workspace "
        "are refused."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "File path, relative to the workspace or absolute inside it.",
            },
            "content": {
                "type": "string",
                "description": "The complete new content of the file.",
            },
        },
        "required": ["path", "content"],
    },
}

# --- Registration ---

registry.register(
    name="write_file",
    toolset="file",
    schema=WRITE_FILE_SCHEMA,
    handler=_handle_write_file,
    check_fn=check_write_file_requirements,
    emoji="📝",
)
