"""Memory Tool -- durable notes the agent keeps across sessions, stored in a JSON file.

The file lives at ``DEFAULT_MEMORY_PATH`` under the current directory unless the runtime passes
``memory_path`` to the handler. Its format::

    {"entries": [{"id": 1, "content": "..."}], "next_id": 2}

Ids are never reused, so an id the model saw earlier cannot silently point at another note.
Writes go to a temporary file that replaces the old one, so a crash never leaves half a file;
a file that is not in this format is reported, never overwritten. Concurrent calls within one
process are serialised by a lock; separate processes sharing one file are not coordinated.
"""

import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from tools.registry import registry, tool_error

logger = logging.getLogger(__name__)

DEFAULT_MEMORY_PATH = Path(".hermes") / "memory.json"
ACTIONS = ["add", "replace", "remove", "list"]
MAX_NOTE_CHARS = 2000

_FILE_LOCK = threading.Lock()


# --- Availability check ---


def check_memory_requirements() -> bool:
    """Always available: the notes are a local file."""
    return True


# --- Helpers ---


def _empty_notes() -> dict[str, Any]:
    return {"entries": [], "next_id": 1}


def _is_notes(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("entries"), list)
        and isinstance(value.get("next_id"), int)
        and all(
            isinstance(entry, dict) and "id" in entry and "content" in entry
            for entry in value["entries"]
        )
    )


def _load_notes(memory_file: Path) -> dict[str, Any] | None:
    """The notes in ``memory_file`` (empty when it does not exist), or None if it is foreign."""
    if not memory_file.exists():
        return _empty_notes()
    notes = json.loads(memory_file.read_text(encoding="utf-8"))
    return notes if _is_notes(notes) else None


def _save_notes(memory_file: Path, notes: dict[str, Any]) -> None:
    memory_file.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=memory_file.parent, prefix=memory_file.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            json.dump(notes, stream, ensure_ascii=False, indent=2)
            stream.write("\n")
        os.replace(temp_name, memory_file)
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)


def _find_entry(notes: dict[str, Any], entry_id: int) -> dict[str, Any] | None:
    return next((entry for entry in notes["entries"] if entry["id"] == entry_id), None)


def _content_problem(content: object) -> str | None:
    """Why ``content`` cannot be stored, or None."""
    if not isinstance(content, str) or not content.strip():
        return "content must be a non-empty string"
    if len(content) > MAX_NOTE_CHARS:
        return f"content is longer than {MAX_NOTE_CHARS} characters"
    return None


def _is_entry_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _argument_problem(action: object, content: object, entry_id: object) -> str | None:
    """Why this combination of arguments cannot be carried out, or None."""
    if action not in ACTIONS:
        return f"action must be one of: {', '.join(ACTIONS)}"
    if action in ("add", "replace"):
        problem = _content_problem(content)
        if problem:
            return problem
    if action in ("replace", "remove") and not _is_entry_id(entry_id):
        return f"{action} needs entry_id, an integer >= 1"
    return None


def _apply_action(notes: dict[str, Any], action: str, content: Any, entry_id: Any) -> str | None:
    """Change ``notes`` in place; the reason it cannot be done, or None."""
    if action == "add":
        duplicate = next((e for e in notes["entries"] if e["content"] == content), None)
        if duplicate is not None:
            return f"the same note is already stored as entry {duplicate['id']}"
        notes["entries"].append({"id": notes["next_id"], "content": content})
        notes["next_id"] += 1
        return None
    if action in ("replace", "remove"):
        entry = _find_entry(notes, entry_id)
        if entry is None:
            return f"no memory entry with id {entry_id}"
        if action == "replace":
            entry["content"] = content
        else:
            notes["entries"].remove(entry)
    return None


def _update_notes(memory_file: Path, action: str, content: Any, entry_id: Any,
                  ) -> tuple[list[dict[str, Any]] | None, str | None]:
    """Carry out ``action`` on the file: (entries after it, None) or (None, why not)."""
    with _FILE_LOCK:
        notes = _load_notes(memory_file)
        if notes is None:
            return None, f"{memory_file} is not a memory file; move it aside to start over"
        problem = _apply_action(notes, action, content, entry_id)
        if problem:
            return None, problem
        if action != "list":
            _save_notes(memory_file, notes)
        return notes["entries"], None


# --- Handler ---


def _handle_memory(args: dict[str, Any], **kwargs: Any) -> str:
    # As the model sent them: _argument_problem checks them before they are used.
    action: Any = args.get("action")
    content: Any = args.get("content")
    entry_id: Any = args.get("entry_id")
    memory_file = Path(kwargs.get("memory_path") or DEFAULT_MEMORY_PATH)
    problem = _argument_problem(action, content, entry_id)
    if problem:
        return tool_error(problem)
    try:
        entries, problem = _update_notes(memory_file, action, content, entry_id)
    except Exception as exc:  # unreadable or unwritable file: a result for the model
        logger.debug("memory %s failed on %s", action, memory_file, exc_info=True)
        return tool_error(f"cannot use memory file {memory_file}: {exc}")
    if problem:
        return tool_error(problem)
    return json.dumps({"entries": entries}, ensure_ascii=False)


# --- Schema ---

MEMORY_SCHEMA = {
    "name": "memory",
    "description": (
        "Durable notes that persist across sessions: facts about the user, the project or "
        "decisions worth remembering. add stores a note, replace rewrites one, remove deletes "
        "one, list shows them all. Every call returns all notes with their ids."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "description": "What to do with the notes.",
                "enum": ACTIONS,
            },
            "content": {
                "type": "string",
                "description": "Text of the note (for add and replace), at most 2000 characters.",
            },
            "entry_id": {
                "type": "integer",
                "description": "Id of the note to replace or remove, as listed.",
                "minimum": 1,
            },
        },
        "required": ["action"],
    },
}

# --- Registration ---

registry.register(
    name="memory",
    toolset="memory",
    schema=MEMORY_SCHEMA,
    handler=_handle_memory,
    check_fn=check_memory_requirements,
    emoji="🧠",
)
