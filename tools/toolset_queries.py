"""The registry's reports by toolset: which are available, what they require.

The bodies of ``ToolRegistry.is_toolset_available``, ``check_toolset_requirements``,
``get_available_toolsets``, ``get_toolset_requirements`` and ``check_tool_availability`` (see
their docstrings), kept out of ``tools.registry``, which every start compiles (often without a
``.pyc``) while these reports are asked for later, if at all.
"""

from __future__ import annotations

from tools.check_cache import available

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from tools.registry import ToolEntry, ToolRegistry


def has_exposable_tools(registry: ToolRegistry, toolset: str, entries: list[ToolEntry],
                        checked: dict[int, bool] | None = None) -> bool:
    """Whether ``get_definitions`` would expose at least one tool of ``toolset``: every
    tool's own check counts, not the first one registered."""
    if checked is None:
        checked = {}
    return any(available(registry, entry, checked) for entry in entries if entry.toolset == toolset)


def is_toolset_available(registry: ToolRegistry, toolset: str) -> bool:
    entries, _ = registry._snapshot_state()
    return has_exposable_tools(registry, toolset, entries)


def check_toolset_requirements(registry: ToolRegistry) -> dict[str, bool]:
    entries, _ = registry._snapshot_state()
    checked: dict[int, bool] = {}
    return {
        toolset: has_exposable_tools(registry, toolset, entries, checked)
        for toolset in sorted({entry.toolset for entry in entries})
    }


def get_available_toolsets(registry: ToolRegistry) -> dict[str, dict[str, Any]]:
    entries, _ = registry._snapshot_state()
    checked: dict[int, bool] = {}
    toolsets: dict[str, dict[str, Any]] = {}
    for entry in entries:
        info = toolsets.get(entry.toolset)
        if info is None:
            info = toolsets[entry.toolset] = {
                "available": has_exposable_tools(registry, entry.toolset, entries, checked),
                "tools": [],
                "description": "",
                "requirements": [],
            }
        info["tools"].append(entry.name)
        for variable in entry.requires_env:
            if variable not in info["requirements"]:
                info["requirements"].append(variable)
    return toolsets


def get_toolset_requirements(registry: ToolRegistry) -> dict[str, dict[str, Any]]:
    entries, toolset_checks = registry._snapshot_state()
    result: dict[str, dict[str, Any]] = {}
    for entry in entries:
        info = result.get(entry.toolset)
        if info is None:
            info = result[entry.toolset] = {
                "name": entry.toolset,
                "env_vars": [],
                "check_fn": toolset_checks.get(entry.toolset),
                "setup_url": None,
                "tools": [],
            }
        if entry.name not in info["tools"]:
            info["tools"].append(entry.name)
        for variable in entry.requires_env:
            if variable not in info["env_vars"]:
                info["env_vars"].append(variable)
    return result


def check_tool_availability(registry: ToolRegistry) -> tuple[list[str], list[dict[str, Any]]]:
    entries, _ = registry._snapshot_state()
    checked: dict[int, bool] = {}
    available: list[str] = []
    unavailable: list[dict[str, Any]] = []
    for toolset in sorted({entry.toolset for entry in entries}):
        members = [entry for entry in entries if entry.toolset == toolset]
        if has_exposable_tools(registry, toolset, members, checked):
            available.append(toolset)
        else:
            unavailable.append({
                "name": toolset,
                "env_vars": list(members[0].requires_env),
                "tools": [entry.name for entry in members],
            })
    return available, unavailable
