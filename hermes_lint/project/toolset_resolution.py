"""Toolsets as the project's runtime resolves them: one resolver for the rules, the manifest and
the provider budgets.

A toolset's tools are its own ``tools`` list, then each of its ``includes`` depth-first, each
name once at its first position (``toolsets.resolve_toolset``). Hermes's ``get_toolset`` also
merges into a toolset every tool registered under that toolset's name, and offers a toolset
that only the registry knows (a plugin's) under its own name; whether a project's runtime does
either is read from its ``toolsets.py`` (``ToolsetsFacts.merges_registry`` and
``exposes_registry_toolsets``), never assumed.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Mapping, Optional, Tuple


class ToolsetCycle(ValueError):
    """A toolset includes an unknown toolset, or its includes form a cycle."""


def toolsets_table(facts) -> Optional[Dict[str, dict]]:
    """``{name: {"tools": [...], "includes": [...]}}`` from the static reading of toolsets.py
    (``hermes_lint.project.toolsets_file``), or None when it could not be read statically (HRM003)."""
    if facts is None or facts.problem is not None or facts.toolsets is None:
        return None
    return {
        toolset.name: {
            "tools": [tool for tool, _ in toolset.tools],
            "includes": [included for included, _ in toolset.includes],
        }
        for toolset in facts.toolsets
    }


def registered_by_toolset(pairs: Iterable[Tuple[str, str]]) -> Dict[str, List[str]]:
    """``{toolset: sorted tool names}`` from (tool, toolset) pairs."""
    found: Dict[str, set] = {}
    for tool, toolset in pairs:
        found.setdefault(toolset, set()).add(tool)
    return {toolset: sorted(names) for toolset, names in found.items()}


def resolve_toolset(name: str, table: Mapping[str, dict], registered: Optional[Mapping[str, List[str]]] = None) -> List[str]:
    """The tool names of toolset ``name``: own tools first (then, with ``registered`` — the
    runtime merges the registry — the tools registered under it), then each include
    depth-first, each name once at its first position. Raises ``ToolsetCycle`` for an unknown
    toolset or a cycle."""
    names: List[str] = []
    seen: set = set()

    def collect(current: str, path: Tuple[str, ...]) -> None:
        if current in path:
            raise ToolsetCycle("toolset cycle: " + " -> ".join(path + (current,)))
        if current not in table:
            via = f" (included from '{path[-1]}')" if path else ""
            raise ToolsetCycle(f"unknown toolset '{current}'{via}")
        own = list(table[current]["tools"])
        if registered is not None:
            own += registered.get(current, ())
        for tool in own:
            if tool not in seen:
                seen.add(tool)
                names.append(tool)
        for included in table[current]["includes"]:
            collect(included, path + (current,))

    collect(name, ())
    return names


def unreachable_reason(tool: str, toolset: str, facts, listed: Iterable[str]) -> Optional[str]:
    """Why no agent can be offered ``tool`` registered under ``toolset``, or None when the
    runtime offers it: some toolset (or ``_HERMES_CORE_TOOLS``) lists it, its toolset is defined
    and the runtime merges registered tools into it, or the runtime offers registry-only
    toolsets under their own name. ``facts``: a readable ``ToolsetsFacts``."""
    if tool in (listed if isinstance(listed, (set, frozenset)) else set(listed)):  # asked per registration
        return None
    if facts.toolset(toolset) is not None:
        if facts.merges_registry:
            return None
        return (f"no toolset in {facts.path} lists it, and {facts.path} does not add registered tools to "
                f"their toolset '{toolset}'")
    if facts.exposes_registry_toolsets:
        return None
    return f"no toolset in {facts.path} lists it, and its toolset '{toolset}' is not defined there"
