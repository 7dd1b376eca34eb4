"""The project as the toolset rules (HRM401–HRM406) see it: which tool names are registered where,
and which names ``toolsets.py`` lists. Facts only, no syntax, so these rules can run from cache.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Collection, Iterable, List, NamedTuple, Optional, Set, Tuple

from hermes_lint.model.context import ProjectContext
from hermes_lint.model import Location, ModuleFacts, Registration

CORE_TOOLS = "_HERMES_CORE_TOOLS"
# Toolsets an MCP server fills at run time; the runtime treats them as MCP servers' (a
# re-registration there replaces silently). The runtime's registry has the same constant.
MCP_TOOLSET_PREFIX = "mcp-"


class Registered(NamedTuple):
    """A registration whose tool name is a constant, with where that name is written."""

    module: ModuleFacts
    registration: Registration
    name: str
    location: Location  # of the name argument (the call when it is positional)

    @property
    def toolset(self) -> Any:  # str | Unresolved
        return self.registration.toolset

    def place(self) -> str:
        return f"{self.module.path}:{self.location.line}"


class Listed(NamedTuple):
    """A tool name written in ``toolsets.py``; ``where`` is "toolset 'x'" or _HERMES_CORE_TOOLS,
    ``toolset`` the toolset's name (None in _HERMES_CORE_TOOLS)."""

    name: str
    location: Location
    where: str
    toolset: Optional[str] = None


def is_mcp(toolset: Any) -> bool:
    """MCP toolsets (``mcp-<server>``) are filled at run time from MCP servers."""
    return isinstance(toolset, str) and toolset.startswith(MCP_TOOLSET_PREFIX)


def keyword_value_location(registration: Registration, keyword: str) -> Location:
    """Where ``keyword=``'s value is written, else the register call (project rules have no
    syntax tree to find a positional argument in: ``schema_walk.argument_location`` can)."""
    found = registration.keyword(keyword)
    return found.value_location if found is not None else registration.location


def registered(ctx: ProjectContext) -> List[Registered]:
    """Registrations with a constant name in the runtime's order: tool modules in path then
    source order, then plugins."""
    if ctx.registered_cache is None:
        found = [
            Registered(module, reg, reg.name, keyword_value_location(reg, "name"))
            for module, reg in ctx.registrations()
            if isinstance(reg.name, str)
        ]
        # Plugins are loaded after the built-in tools are discovered: their registrations come later.
        ctx.registered_cache = sorted(found, key=lambda r: (r.registration.plugin, r.module.path, r.location))
    return ctx.registered_cache


def every_registration_known(ctx: ProjectContext) -> bool:
    """True when every tool the project registers has a name we know.

    A module that cannot be parsed, a name computed at run time, a spread ``**kwargs`` or a
    register call that is not a top-level statement may register any name.
    """
    for module in ctx.modules:
        if (module.parse_error is not None or module.misplaced_calls or module.unread_register_calls
                or module.unread_plugin_calls):
            return False
        for registration in module.registrations:
            if registration.has_star_args or not isinstance(registration.name, str):
                return False
    return True


def readable_toolsets(ctx: ProjectContext) -> Optional[Any]:
    """``ToolsetsFacts`` when toolsets.py exists and was read completely, else None.

    A ``TOOLSETS`` that cannot be read statically is reported once under HRM003; the toolset
    rules then stay silent rather than reason from a partial picture.
    """
    facts = ctx.toolsets
    if facts is None or getattr(facts, "parse_error", None) is not None:
        return None
    if getattr(facts, "problem", None) is not None or getattr(facts, "toolsets", None) is None:
        return None
    return facts


_last_listed: List[Any] = [None, None]  # (toolsets, listed_tools(toolsets)): asked by several rules


def listed_tools(toolsets: Any) -> List[Listed]:
    """Every tool name written in toolsets.py, once per place it is written (do not modify)."""
    if _last_listed[0] is not toolsets:
        _last_listed[:] = [toolsets, _listed_tools(toolsets)]
    return _last_listed[1]


def _listed_tools(toolsets: Any) -> List[Listed]:
    found: List[Listed] = []
    seen = set()
    entries: List[Tuple[str, Optional[str], Tuple]] = [
        (CORE_TOOLS, None, tuple(getattr(toolsets, "core_tools", None) or ()))
    ]
    entries += [(f"toolset '{t.name}'", t.name, tuple(t.tools)) for t in toolsets.toolsets]
    for where, toolset, tools in entries:
        for name, location in tools:
            # A toolset written as `"tools": _HERMES_CORE_TOOLS` lists the same strings again.
            if (name, location) not in seen:
                seen.add((name, location))
                found.append(Listed(name, location, where, toolset))
    return found


def toolsets_path(ctx: ProjectContext) -> str:
    return getattr(ctx.toolsets, "path", None) or ctx.config.toolsets_file


# Searching the project's other Python files for a tool name (HRM403): what is never looked at,
# and how far the search goes before it gives up.
_UNSEARCHED_DIRECTORIES = frozenset(
    {"node_modules", "site-packages", "build", "dist", "__pycache__", "tests", "test"}
)
MAX_SEARCHED_FILES = 20_000  # .py files read
MAX_SEEN_ENTRIES = 200_000  # directory entries looked at, .py or not
MAX_FILE_BYTES = 4_000_000  # of each file


class NameSearch(NamedTuple):
    """Which names a search found, and whether it looked everywhere it meant to."""

    found: Set[str]
    complete: bool  # False: cut short (too many files, an unreadable file); others may be anywhere


def _searched_files(root: Path, skipped: Set[str]) -> Iterable[Optional[Path]]:
    """The project's .py files outside hidden directories, virtual environments (a directory with
    ``pyvenv.cfg``), installed packages, build output and tests; ``None`` when the walk stops
    at its bounds."""
    seen = 0
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            d for d in subdirectories
            if not d.startswith(".")
            and d not in _UNSEARCHED_DIRECTORIES
            and not os.path.exists(os.path.join(directory, d, "pyvenv.cfg"))
        )
        seen += len(files) + len(subdirectories)
        if seen > MAX_SEEN_ENTRIES:
            yield None
            return
        for name in sorted(files):
            if not name.endswith(".py") or _is_test_file(name):
                continue
            path = Path(directory, name)
            if path.relative_to(root).as_posix() not in skipped and path.is_file():
                yield path


def _is_test_file(name: str) -> bool:
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


def names_quoted_elsewhere(root: Path, names: Collection[str], skipped: Collection[str]) -> NameSearch:
    """The names among ``names`` written as a string literal (``"name"`` or ``'name'``) in a .py
    file of the project at ``root``, other than the ``skipped`` ones (paths relative to ``root``,
    '/'-separated). Stops as soon as every name is found; bounded (see ``MAX_*``)."""
    wanted = {name: ((f'"{name}"').encode(), (f"'{name}'").encode()) for name in names}
    found: Set[str] = set()
    read = 0
    for path in _searched_files(Path(os.path.abspath(root)), set(skipped)):
        if len(found) == len(wanted):
            break
        read += 1
        if path is None or read > MAX_SEARCHED_FILES:
            return NameSearch(found, False)
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES)
        except OSError:
            return NameSearch(found, False)
        for name, spellings in wanted.items():
            if name not in found and (spellings[0] in data or spellings[1] in data):
                found.add(name)
    return NameSearch(found, True)
