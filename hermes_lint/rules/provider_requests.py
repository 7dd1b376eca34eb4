"""What one model request carries (``ToolRequest``: the tools of a resolved toolset) and the
per-request provider checks (``REQUEST_CHECKS``: limits over those tools)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Sequence, Tuple

from hermes_lint.model import Location, ModuleFacts, Registration
from hermes_lint.model.schema_walk import SubSchema, is_json, parameters_of, schema_nodes

class ToolRequest(NamedTuple):
    """The tools one model request carries: a resolved toolset (or, without a readable
    toolsets.py, the registrations sharing a ``toolset=``), located where it is defined."""

    label: str
    path: str
    location: Location
    registrations: Tuple[Registration, ...]


def tool_requests(ctx: Any) -> List[ToolRequest]:
    if ctx.tool_requests_cache is not None:
        return ctx.tool_requests_cache
    from hermes_lint.project.index import readable_toolsets, toolsets_path

    by_name: Dict[str, Tuple[ModuleFacts, Registration]] = {}
    for module, registration in ctx.registrations():
        if isinstance(registration.name, str):
            by_name.setdefault(registration.name, (module, registration))
    requests: List[ToolRequest] = []
    toolsets = readable_toolsets(ctx)
    if toolsets is not None:
        from hermes_lint.project.toolset_resolution import (
            ToolsetCycle, registered_by_toolset, resolve_toolset, toolsets_table,
        )

        table = toolsets_table(toolsets)
        assert table is not None  # readable_toolsets: toolsets.py was read statically
        registered = None
        if toolsets.merges_registry:
            registered = registered_by_toolset(
                (name, reg.toolset) for name, (_, reg) in by_name.items() if isinstance(reg.toolset, str)
            )
        for toolset in toolsets.toolsets:
            try:
                names = resolve_toolset(toolset.name, table, registered)
            except ToolsetCycle:
                continue  # HRM405
            # Only registered tools are sent: the count is a lower bound, never a guess.
            regs = tuple(by_name[n][1] for n in names if n in by_name)
            requests.append(ToolRequest(f"toolset `{toolset.name}`", toolsets_path(ctx), toolset.location, regs))
    else:
        groups: Dict[str, List[Tuple[ModuleFacts, Registration]]] = {}
        for module, registration in by_name.values():
            if isinstance(registration.toolset, str):
                groups.setdefault(registration.toolset, []).append((module, registration))
        for name, members in groups.items():
            module, first = members[0]
            requests.append(
                ToolRequest(f"toolset `{name}`", module.path, first.location, tuple(r for _, r in members))
            )
    ctx.tool_requests_cache = requests
    return requests


def _property_nodes(registration: Registration, ctx: Any) -> Sequence[SubSchema]:
    if parameters_of(registration.schema) is None:
        return ()
    return [node for node in schema_nodes(ctx, registration) if node.is_property]


def optional_parameter_count(registration: Registration, ctx: Any) -> int:
    """Properties, at any depth, that their object does not list in ``required``."""
    count = 0
    for node in _property_nodes(registration, ctx):
        assert node.parent is not None  # a property is in an object
        required = node.parent.schema.get("required", [])
        if isinstance(required, list) and is_json(required) and node.path[-1] not in required:
            count += 1
    return count


def union_parameter_count(registration: Registration, ctx: Any) -> int:
    """Properties, at any depth, typed by ``anyOf`` or a list of types."""
    return sum(
        1
        for node in _property_nodes(registration, ctx)
        if "anyOf" in node.schema or isinstance(node.schema.get("type"), list)
    )


def _request_tools(request, constraint, ctx):
    count = len(request.registrations)
    if count > constraint.arg:
        return f"sends {count} tools in one request; the limit is {constraint.arg}"
    return None


def _request_sum(counter: Callable, what: str):
    def check(request, constraint, ctx):
        total = sum(counter(registration, ctx) for registration in request.registrations)
        if total > constraint.arg:
            tools = len(request.registrations)
            return f"has {total} {what} across its {tools} tools; the limit is {constraint.arg} per request"
        return None

    return check


REQUEST_CHECKS: Dict[str, Callable] = {
    "tools_per_request": _request_tools,
    "strict_tools": _request_tools,
    "optional_parameters": _request_sum(optional_parameter_count, "optional parameters"),
    "union_parameters": _request_sum(union_parameter_count, "parameters with anyOf or a type list"),
}
