"""The project as the toolset rules (HRM401–HRM406) see it: which tool names are registered where,
and which names ``toolsets.py`` lists. Facts only, no syntax, so these rules can run from cache.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Tuple

from hermes_lint.context import ProjectContext
from hermes_lint.model import Location, ModuleFacts, Registration

CORE_TOOLS = "_HERMES_CORE_TOOLS"


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
    """A tool name written in ``toolsets.py``; ``where`` is "toolset 'x'" or _HERMES_CORE_TOOLS."""

    name: str
    location: Location
    where: str


def is_mcp(toolset: Any) -> bool:
    """MCP toolsets (``mcp-<server>``) are filled at run time from MCP servers."""
    return isinstance(toolset, str) and toolset.startswith("mcp-")


def argument_location(registration: Registration, keyword: str) -> Location:
    found = registration.keyword(keyword)
    return found.value_location if found is not None else registration.location


def registered(ctx: ProjectContext) -> List[Registered]:
    """Registrations with a constant name, in path then source order (the runtime's order)."""
    if "registered" not in ctx.memo:
        found = [
            Registered(module, reg, reg.name, argument_location(reg, "name"))
            for module, reg in ctx.registrations()
            if isinstance(reg.name, str)
        ]
        ctx.memo["registered"] = sorted(found, key=lambda r: (r.module.path, r.location))
    return ctx.memo["registered"]


def every_registration_known(ctx: ProjectContext) -> bool:
    """True when every tool the project registers has a name we know.

    A module that cannot be parsed, a name computed at run time, a spread ``**kwargs`` or a
    register call that is not a top-level statement may register any name.
    """
    for module in ctx.modules:
        if module.parse_error is not None or module.misplaced_calls or module.unread_register_calls:
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


def listed_tools(toolsets: Any) -> List[Listed]:
    """Every tool name written in toolsets.py, once per place it is written."""
    found: List[Listed] = []
    seen = set()
    entries: List[Tuple[str, Tuple]] = [(CORE_TOOLS, tuple(getattr(toolsets, "core_tools", None) or ()))]
    entries += [(f"toolset '{t.name}'", tuple(t.tools)) for t in toolsets.toolsets]
    for where, tools in entries:
        for name, location in tools:
            # A toolset written as `"tools": _HERMES_CORE_TOOLS` lists the same strings again.
            if (name, location) not in seen:
                seen.add((name, location))
                found.append(Listed(name, location, where))
    return found


def toolsets_path(ctx: ProjectContext) -> str:
    return getattr(ctx.toolsets, "path", None) or ctx.config.toolsets_file
