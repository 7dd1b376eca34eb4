"""Todo Tool -- a per-task checklist the agent keeps while it works.

Each agent task (the ``task_id`` the runtime passes to the handler) has its own list, so
parallel sub-agents never see each other's items. Lists live in memory for the life of the
process: a todo list is working state, not a record (``memory`` is the persistent tool).
Every call answers with the whole list after the action, so the model never works from a
stale copy.
"""

import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from tools.registry import registry, tool_error

logger = logging.getLogger(__name__)

ACTIONS = ["add", "list", "complete", "remove"]
# Calls without a task_id (a bare CLI session) share one list under this key.
DEFAULT_TASK_KEY = "default"
MAX_ITEM_CHARS = 500


@dataclass
class TodoList:
    """One task's items, in insertion order; ids are never reused within a list."""

    items: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 1


# Handlers may run on several threads at once (parallel tool calls); one lock guards all lists.
_LISTS_LOCK = threading.Lock()
_LISTS_BY_TASK: dict[str, TodoList] = {}


# --- Availability check ---


def check_todo_requirements() -> bool:
    """Always available: the lists live in memory."""
    return True


# --- Helpers ---


def _find_item(todo_list: TodoList, item_id: int) -> dict[str, Any] | None:
    return next((item for item in todo_list.items if item["id"] == item_id), None)


def _snapshot(todo_list: TodoList) -> dict[str, Any]:
    return {
        "todos": [dict(item) for item in todo_list.items],
        "pending": sum(1 for item in todo_list.items if not item["done"]),
    }


def _is_item_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _argument_problem(action: object, text: Any, item_id: object) -> str | None:
    """Why this combination of arguments cannot be carried out, or None."""
    if action not in ACTIONS:
        return f"action must be one of: {', '.join(ACTIONS)}"
    if action == "add" and (not isinstance(text, str) or not text.strip()):
        return "add needs a non-empty text"
    if action == "add" and len(text) > MAX_ITEM_CHARS:
        return f"text is longer than {MAX_ITEM_CHARS} characters"
    if action in ("complete", "remove") and not _is_item_id(item_id):
        return f"{action} needs item_id, an integer >= 1"
    return None


def _apply_action(todo_list: TodoList, action: str, text: str, item_id: int) -> str | None:
    """Change ``todo_list`` in place; the reason it cannot be done, or None."""
    if action == "add":
        todo_list.items.append({"id": todo_list.next_id, "text": text.strip(), "done": False})
        todo_list.next_id += 1
        return None
    if action in ("complete", "remove"):
        item = _find_item(todo_list, item_id)
        if item is None:
            return f"no todo item with id {item_id}"
        if action == "complete":
            item["done"] = True
        else:
            todo_list.items.remove(item)
    return None


# --- Handler ---


def _handle_todo(args: dict[str, Any], **kwargs: Any) -> str:
    # As the model sent them: _argument_problem checks them before they are used.
    action: Any = args.get("action")
    text: Any = args.get("text")
    item_id: Any = args.get("item_id")
    task_key = kwargs.get("task_id") or DEFAULT_TASK_KEY
    problem = _argument_problem(action, text, item_id)
    if problem:
        return tool_error(problem)
    with _LISTS_LOCK:
        todo_list = _LISTS_BY_TASK.setdefault(task_key, TodoList())
        problem = _apply_action(todo_list, action, text, item_id)
        snapshot = _snapshot(todo_list)
    if problem:
        return tool_error(problem)
    return json.dumps(snapshot, ensure_ascii=False)


# --- Schema ---

TODO_SCHEMA = {
    "name": "todo",
    "description": (
        "Keep a checklist for the current task: add an item, list the items, mark one "
        "complete or remove one. Every call returns the whole list with item ids. Use it to "
        "plan multi-step work and to track what is left."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "description": "What to do with the list.",
                "enum": ACTIONS,
            },
            "text": {
                "type": "string",
                "description": "The item to add (for add).",
            },
            "item_id": {
                "type": "integer",
                "description": "Id of the item to complete or remove, as listed.",
                "minimum": 1,
            },
        },
        "required": ["action"],
    },
}

# --- Registration ---

registry.register(
    name="todo",
    toolset="todo",
    schema=TODO_SCHEMA,
    handler=_handle_todo,
    check_fn=check_todo_requirements,
    emoji="📋",
)
