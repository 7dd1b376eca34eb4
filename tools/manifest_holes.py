"""Template holes of a manifest tool's schema: the places a frozen schema leaves to a template
(``tools.manifest_templates``) evaluated at load, or to the tool's module.

Compiled only when a manifest tool has holes: a start whose schemas are all frozen does not
need it.
"""

from __future__ import annotations

from tools.manifest_templates import TemplateFailed, evaluate

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["hole_target_problem", "put", "resolve_holes"]


def hole_target_problem(schema: dict[str, Any], path: list[object],
                        template: bool = True) -> str | None:
    """None when ``path`` leads to an existing place in ``schema`` (the placeholder). An empty
    path (the whole schema unknown, frozen as ``{}``) is for a hole only the module can fill."""
    if not path:
        return "path is empty" if template or schema != {} else None
    node: object = schema
    for key in path:
        if isinstance(node, dict) and isinstance(key, str) and key in node:
            node = node[key]
        elif isinstance(node, list) and type(key) is int and 0 <= key < len(node):
            node = node[key]
        else:
            return f"path {path!r} does not lead into the frozen schema"
    return None


def put(schema: dict[str, Any], path: list[Any], value: object) -> dict[str, Any]:
    """``schema`` with ``value`` at ``path``, copying only the containers on the path."""
    root = dict(schema)
    # Any: a dict or a list along the path, each indexed by its key (hole_target_problem
    # checked that the path leads into the schema).
    node: Any = root
    for key in path[:-1]:
        child = node[key]
        child = dict(child) if isinstance(child, dict) else list(child)
        node[key] = child
        node = child
    node[path[-1]] = value
    return root


def resolve_holes(tools: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[bool]]:
    """The schemas of one module's manifest tools with their template holes filled from the
    environment, and per tool whether its definition needs the module imported: a hole with a
    ``reason``, or any template of the module that raises (the module's own code raises on
    import there, and then none of its tools exists)."""
    schemas: list[dict[str, Any]] = []
    for tool in tools:
        holes = [hole for hole in tool.get("holes", ()) if "template" in hole]
        schema = tool["schema"]
        try:
            values = [evaluate(hole["template"]) for hole in holes]
        except TemplateFailed as exc:
            from tools.registry import _logger

            _logger().debug("Template of tool '%s' raised %s; its module is imported for "
                            "definitions", tool["name"], exc)
            return [tool["schema"] for tool in tools], [True] * len(tools)
        for hole, value in zip(holes, values):
            schema = put(schema, hole["path"], value)
        schemas.append(schema)
    return schemas, [any("reason" in hole for hole in tool.get("holes", ())) for tool in tools]
