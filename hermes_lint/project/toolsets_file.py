"""Static reading of a project's ``toolsets.py``: its ``TOOLSETS`` and ``_HERMES_CORE_TOOLS``.

Nothing is imported: the file is parsed and its two constants are computed by the same bounded
evaluator the tool modules get (``hermes_lint.evaluate``), so helper functions such as
``_ts(description, tools, includes)`` and lists built from ``_HERMES_CORE_TOOLS`` are understood.
Every listed tool keeps the location of its string in the source, wherever it was written (inside
``_HERMES_CORE_TOOLS`` for a toolset whose ``"tools"`` is that list).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple, Union

from hermes_lint.evaluate import ModuleEvaluator, split_source_lines
from hermes_lint.model.parsing import parse_module
from hermes_lint.model import Location, Unresolved, is_unresolved

TOOLSETS_NAME = "TOOLSETS"
CORE_TOOLS_NAME = "_HERMES_CORE_TOOLS"
# toolsets.py is one file per project and may build every entry through helper calls: it gets a
# larger budget than a tool module's schema.
STEP_BUDGET = 200_000

Listing = Tuple[Tuple[str, Location], ...]


@dataclass(frozen=True)
class ToolsetDef:
    """One entry of ``TOOLSETS``: located at its key; tools and includes at their strings."""

    name: str
    location: Location
    tools: Listing
    includes: Listing
    description: Any  # as written (usually a str); None when the entry has none


@dataclass(frozen=True)
class ToolsetsFacts:
    """What ``toolsets.py`` defines, as far as it can be read statically."""

    path: str  # relative path as given
    toolsets: Optional[Tuple[ToolsetDef, ...]] = None  # None when TOOLSETS cannot be read
    core_tools: Optional[Listing] = None  # _HERMES_CORE_TOOLS; None when absent or unreadable
    problem: Optional[Unresolved] = None  # why TOOLSETS could not be read, None when fine
    parse_error: Optional[Tuple[int, int, str]] = None  # (line, col, message)
    # How the file's own resolution treats the registry (Hermes's ``get_toolset``): it adds the
    # tools registered under a defined toolset to it (``registry.get_tool_names_for_toolset``),
    # and offers toolsets only the registry knows under their own name
    # (``registry.get_registered_toolset_names``).
    merges_registry: bool = False
    exposes_registry_toolsets: bool = False

    def toolset(self, name: str) -> Optional[ToolsetDef]:
        return self._by_name.get(name)

    @cached_property
    def _by_name(self) -> Dict[str, ToolsetDef]:
        # Asked once per registration by the project rules: a lookup, not a scan per tool.
        by_name: Dict[str, ToolsetDef] = {}
        for toolset in self.toolsets or ():
            by_name.setdefault(toolset.name, toolset)  # the first of a repeated name, as a scan finds
        return by_name

    def all_listed_tools(self) -> Tuple[Tuple[str, Optional[str], Location], ...]:
        """(tool, toolset, location) for every tool listed anywhere, in source order of toolsets.

        A toolset whose tools come from ``_HERMES_CORE_TOOLS`` lists them at their location in that
        list, so one string can appear under several toolsets (deduplicate by location to report
        it once). Core tools that no toolset lists come last with toolset ``None``. Empty when
        ``TOOLSETS`` cannot be read.
        """
        if self.toolsets is None:
            return ()
        listed: List[Tuple[str, Optional[str], Location]] = [
            (tool, toolset.name, where) for toolset in self.toolsets for tool, where in toolset.tools
        ]
        seen = {(tool, where) for tool, _, where in listed}
        listed.extend((tool, None, where) for tool, where in self.core_tools or () if (tool, where) not in seen)
        return tuple(listed)


def read_toolsets(source: Union[str, bytes], path: str = "toolsets.py") -> ToolsetsFacts:
    """Read ``toolsets.py`` from its text (or bytes); never raises for bad input."""
    text, tree, error = _parse(source, path)
    if tree is None:
        return ToolsetsFacts(path, parse_error=error)
    evaluator = ModuleEvaluator(tree, split_source_lines(text), step_budget=STEP_BUDGET)
    core_tools = _read_core_tools(evaluator, tree)
    toolsets, problem = _read_toolsets(evaluator, tree)
    called = _called_attributes(tree)
    return ToolsetsFacts(
        path,
        toolsets,
        core_tools,
        problem,
        merges_registry=MERGES_REGISTRY in called,
        exposes_registry_toolsets=EXPOSES_REGISTRY_TOOLSETS in called,
    )


MERGES_REGISTRY = "get_tool_names_for_toolset"
EXPOSES_REGISTRY_TOOLSETS = "get_registered_toolset_names"


def _called_attributes(tree: ast.Module) -> set:
    """Names of the methods called anywhere in the file (``registry.x(...)`` gives ``x``)."""
    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }


def _parse(source: Union[str, bytes], path: str):
    """(text, tree, None), or (text, None, (line, col, message)) when it cannot be parsed."""
    if isinstance(source, bytes):  # decoded exactly as tool modules are (HRM001 wording too)
        parsed = parse_module(path, source)
        return parsed.text, parsed.tree, parsed.error
    if "\x00" in source:  # worded as parse_module words it for tool modules
        offset = source.index("\x00")
        line = source.count("\n", 0, offset) + 1
        return source, None, (line, offset - (source.rfind("\n", 0, offset) + 1) + 1, "file contains a NUL byte")
    try:
        return source, ast.parse(source, filename=path), None
    except SyntaxError as exc:
        return source, None, (exc.lineno or 1, exc.offset or 1, f"syntax error: {exc.msg}")
    except (RecursionError, MemoryError):
        return source, None, (1, 1, "file is too deeply nested to parse")
    except ValueError as exc:
        return source, None, (1, 1, f"cannot be parsed: {exc}")


def _read_core_tools(evaluator: ModuleEvaluator, tree: ast.Module) -> Optional[Listing]:
    if not evaluator.is_bound(CORE_TOOLS_NAME):
        return None
    value = evaluator.constant(CORE_TOOLS_NAME)
    if is_unresolved(value) or not _is_name_list(value):
        return None
    return _located_names(value, evaluator.locations_of(value), (), _assignment_location(tree, CORE_TOOLS_NAME))


def _read_toolsets(evaluator: ModuleEvaluator, tree: ast.Module):
    """(toolsets, None) or (None, problem)."""
    if not evaluator.is_bound(TOOLSETS_NAME):
        return None, Unresolved("toolsets.py defines no TOOLSETS", Location(1, 1))
    value = evaluator.constant(TOOLSETS_NAME)
    if is_unresolved(value):
        return None, value
    statement = _assignment_location(tree, TOOLSETS_NAME)
    if value.__class__ is not dict:
        return None, Unresolved(f"TOOLSETS is a {type(value).__name__}, not a dict", statement)
    locations = evaluator.locations_of(value)
    toolsets = []
    for name, entry in value.items():
        where = locations.get((name,), statement)
        if name.__class__ is not str:
            return None, Unresolved(f"TOOLSETS has a key that is not a string: {name!r}", where)
        if entry.__class__ is not dict:
            return None, Unresolved(f"toolset {name!r} is a {type(entry).__name__}, not a dict", where)
        listings = {}
        for field in ("tools", "includes"):
            names = entry.get(field, ())
            if not _is_name_list(names):
                field_where = locations.get((name, field), where)
                return None, Unresolved(f"toolset {name!r}: {field!r} is not a list of strings", field_where)
            field_where = locations.get((name, field), where)
            listings[field] = _located_names(names, locations, (name, field), field_where)
        toolsets.append(ToolsetDef(name, where, listings["tools"], listings["includes"], entry.get("description")))
    return tuple(toolsets), None


def _is_name_list(value: Any) -> bool:
    return value.__class__ in (list, tuple) and all(item.__class__ is str for item in value)


def _located_names(names, locations, prefix: tuple, fallback: Location) -> Listing:
    """Each name with the location of its string (or ``fallback`` when it was computed)."""
    return tuple((item, locations.get(prefix + (position,), fallback)) for position, item in enumerate(names))


def _assignment_location(tree: ast.Module, name: str) -> Location:
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return Location(stmt.lineno, stmt.col_offset + 1)
    return Location(1, 1)
