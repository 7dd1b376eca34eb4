"""Patch Tool -- replace one exact occurrence of a text in a workspace file.

The search text must occur exactly once: zero matches and several matches are both errors, so
an edit never lands in the wrong place. The workspace root is the process's current directory
at call time; the target's real path must stay inside it.
"""

import json
import logging
from pathlib import Path
from typing import Any

from tools.registry import registry, tool_error
from tools.workspace_paths import resolve_in_workspace, workspace_relative

logger = logging.getLogger(__name__)

BINARY_SNIFF_BYTES = 8192


# --- Availability check ---


def check_patch_requirements() -> bool:
    """Always available: only the standard library is needed."""
    return True


# --- Helpers ---


def _replace_once(target: Path, text: str, old_string: str, new_string: str) -> dict[str, Any]:
    """Write ``text`` with its single ``old_string`` replaced; report where it was."""
    start = text.index(old_string)
    target.write_bytes(text.replace(old_string, new_string, 1).encode("utf-8"))
    return {
        "path": workspace_relative(target),
        "replacements": 1,
        "line": text.count("\n", 0, start) + 1,
    }


# --- Handler ---


def _handle_patch(args: dict[str, Any], **kwargs: Any) -> str:
    path_text = args.get("path")
    old_string = args.get("old_string")
    new_string = args.get("new_string")
    if not isinstance(path_text, str) or not path_text:
        return tool_error("path must be a non-empty string")
    if not isinstance(old_string, str) or not old_string:
        return tool_error("old_string must be a non-empty string")
    if not isinstance(new_string, str):
        return tool_error("new_string must be a string")
    if old_string == new_string:
        return tool_error("old_string and new_string are identical; nothing to change")
    try:
        target = resolve_in_workspace(path_text)
        if target is None:
            return tool_error(f"path is outside the workspace root: {path_text}")
        if not target.is_file():
            return tool_error(f"file not found: {path_text}")
        data = target.read_bytes()
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            return tool_error(f"refusing to patch binary file: {path_text}")
        # Bytes in, bytes out: reading in text mode would rewrite the file's line endings.
        text = data.decode("utf-8")
        occurrences = text.count(old_string)
        if occurrences == 0:
            return tool_error(f"old_string not found in {path_text}")
        if occurrences > 1:
            return tool_error(
                f"old_string appears {occurrences} times in {path_text}; "
                "include more surrounding context so it matches exactly once"
            )
        return json.dumps(_replace_once(target, text, old_string, new_string), ensure_ascii=False)
    except UnicodeDecodeError:
        return tool_error(f"file is not valid UTF-8 text: {path_text}")
    except Exception as exc:  # a failed edit is a result for the model, never a crash
        logger.debug("patch failed for %s", path_text, exc_info=True)
        return tool_error(f"cannot patch {path_text}: {exc}")


# --- Schema ---

PATCH_SCHEMA = {
    "name": "patch",
    "description": (
        "Edit a text file inside the workspace by replacing one exact occurrence of old_string "
        "with new_string. old_string must match the file byte for byte, whitespace included, "
        "and occur exactly once; otherwise nothing is changed and an error explains why."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "File path, relative to the workspace or absolute inside it.",
            },
            "old_string": {
                "type": "string",
                "description": "Exact text to find; include enough context to be unique.",
            },
            "new_string": {
                "type": "string",
                "description": "Replacement text; may be empty to delete old_string.",
            },
        },
        "required": ["path", "old_string", "new_string"],
    },
}

# --- Registration ---

registry.register(
    name="patch",
    toolset="file",
    schema=PATCH_SCHEMA,
    handler=_handle_patch,
    check_fn=check_patch_requirements,
    emoji="🩹",
)
