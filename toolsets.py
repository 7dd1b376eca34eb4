"""Toolsets: named groups of tool names, and their resolution into flat lists of names.

``TOOLSETS`` is data that tools read without importing this module (the linter parses it with
``ast``, the scaffolder edits it with libcst), so it stays a literal dict: one tool per line,
trailing commas, and no computed values except the ``_HERMES_CORE_TOOLS`` name reference.
Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping
    from typing import Any

# The tools every platform (CLI and messaging) gets. web_search is listed although it needs an
# API key: its check_fn hides it when the key is missing, so listing it costs nothing and a key
# set later makes it appear without editing this file.
_HERMES_CORE_TOOLS = [
    "read_file",
    "write_file",
    "patch",
    "search_files",
    "terminal",
    "todo",
    "memory",
    "clarify",
    "web_search",
    "execute_code",
]

TOOLSETS = {
    "file": {
        "description": "Read, write, patch and search files",
        "tools": [
            "read_file",
            "write_file",
            "patch",
            "search_files",
        ],
        "includes": [],
    },
    "terminal": {
        "description": "Run shell commands",
        "tools": [
            "terminal",
        ],
        "includes": [],
    },
    "todo": {
        "description": "Keep a task list for the current session",
        "tools": [
            "todo",
        ],
        "includes": [],
    },
    "memory": {
        "description": "Remember facts across sessions",
        "tools": [
            "memory",
        ],
        "includes": [],
    },
    "clarify": {
        "description": "Ask the user a clarifying question",
        "tools": [
            "clarify",
        ],
        "includes": [],
    },
    "web": {
        "description": "Search the web",
        "tools": [
            "web_search",
        ],
        "includes": [],
    },
    "code_execution": {
        "description": "Run Python code in a sandbox",
        "tools": [
            "execute_code",
        ],
        "includes": [],
    },
    "hermes-cli": {
        "description": "Everything the interactive CLI agent gets",
        "tools": _HERMES_CORE_TOOLS,
        "includes": [],
    },
}


class ToolsetError(ValueError):
    """A toolset that cannot be resolved: unknown, or part of an include cycle."""


def resolve_toolset(name: str,
                    toolsets: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """The tool names of toolset ``name`` with its includes, depth-first, without duplicates.

    A toolset's own tools come first, then each include in order, recursively; a name seen
    before keeps its first position. ``toolsets`` defaults to ``TOOLSETS``.
    Raises ``ToolsetError`` for an unknown toolset (``unknown toolset 'x'``, or
    ``unknown toolset 'x' (included from 'a')`` with ``via a -> b`` when the include is deeper)
    and for a cycle (``toolset cycle: a -> b -> a``).
    """
    if toolsets is None:
        toolsets = TOOLSETS
    names: list[str] = []
    _collect(name, toolsets, path=[], names=names, seen=set())
    return names


def _collect(name: str, toolsets: Mapping[str, Mapping[str, Any]], path: list[str],
             names: list[str], seen: set[str]) -> None:
    if name in path:
        raise ToolsetError("toolset cycle: " + " -> ".join([*path, name]))
    if name not in toolsets:
        raise ToolsetError(_unknown_toolset_message(name, path))
    for tool in toolsets[name].get("tools", ()):
        if tool not in seen:
            seen.add(tool)
            names.append(tool)
    for included in toolsets[name].get("includes", ()):
        _collect(included, toolsets, [*path, name], names, seen)


def _unknown_toolset_message(name: str, path: list[str]) -> str:
    if not path:
        return f"unknown toolset '{name}'"
    message = f"unknown toolset '{name}' (included from '{path[-1]}'"
    if len(path) > 1:
        message += " via " + " -> ".join(path)
    return message + ")"


def validate_toolsets(toolsets: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """Resolve every toolset; return the problems found (empty when all resolve).

    Returns rather than raises so that a caller sees every broken toolset at once: one message
    per failing toolset (the first problem met while resolving it), each message once, in the
    order of the toolsets.
    """
    if toolsets is None:
        toolsets = TOOLSETS
    problems: list[str] = []
    for name in toolsets:
        try:
            resolve_toolset(name, toolsets)
        except ToolsetError as exc:
            if str(exc) not in problems:
                problems.append(str(exc))
    return problems
