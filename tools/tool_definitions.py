"""Provider-ready definitions of registered tools: ``ToolRegistry.get_definitions``.

A definition is ``{"type": "function", "function": {...}}``: a deep copy of the tool's schema
(JSON-shaped data copied directly, anything else through ``copy.deepcopy``), the tool's
``dynamic_schema_overrides()`` merged over it, and ``name`` always the registered name. A start
builds them once, so this module is imported by the first ``get_definitions``.
"""

from __future__ import annotations

import sys

from tools.check_cache import available
from tools.registry import _logger

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable
    from typing import Any

    from tools.registry import ToolEntry, ToolRegistry


def definitions(registry: ToolRegistry, tool_names: Iterable[str],
                quiet: bool) -> list[dict[str, Any]]:
    """``ToolRegistry.get_definitions``: definitions of the available tools in ``tool_names``.

    Sorted by name, each once; unknown names and tools whose check_fn fails are left out
    (a debug log each unless ``quiet``). Each definition is
    ``{"type": "function", "function": {...}}`` where the function dict is a deep copy of
    the schema, with ``dynamic_schema_overrides()`` merged over its top-level keys (an
    override that raises or returns a non-dict is logged and the static schema is used)
    and ``name`` always the registered name.
    """
    entries = {entry.name: entry for entry in registry._snapshot_entries()}
    checked: dict[int, bool] = {}
    definitions = []
    for name in sorted(set(tool_names)):
        entry = entries.get(name)
        if entry is None:
            continue
        if not available(registry, entry, checked):
            if not quiet and "logging" in sys.modules:
                # Without logging imported no handler exists to show a debug record:
                # skipping it keeps logging's import out of a healthy start-up.
                _logger().debug("Tool %s unavailable (check failed)", name)
            continue
        schema = definition_schema(entry)
        if schema is None:
            continue
        function = _copy_schema(schema)
        function.update(_dynamic_overrides(entry))
        function["name"] = entry.name
        definitions.append({"type": "function", "function": function})
    return definitions


def definition_schema(entry: ToolEntry) -> dict[str, Any] | None:
    """The schema a definition starts from. A manifest entry may know it only once its module
    is imported (a hole in the frozen schema): its lazy handler says (None: the import failed,
    so the tool has no definition, as with import discovery)."""
    # Looked up on the type: a mock handler answers every attribute.
    from_manifest = getattr(type(entry.handler), "_manifest_schema", None)
    if from_manifest is None:
        return entry.schema
    schema: dict[str, Any] | None = from_manifest(entry.handler)
    return schema


# Types a schema copy shares rather than copies: immutable JSON scalars.
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


class _NotJSON(Exception):
    pass


def _copy_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``schema``. JSON-shaped data (dicts, lists and scalars, as every manifest
    schema and nearly every registered one is) is copied directly, ~7× faster than
    ``copy.deepcopy``; anything else (a tuple, another object, a cycle) goes to ``deepcopy``."""
    try:
        copied: dict[str, Any] = _copy_json(schema)
        return copied
    except (_NotJSON, RecursionError):
        import copy

        return copy.deepcopy(schema)


def _copy_json(value: Any) -> Any:
    # Any: the branches dispatch on the exact type() (a dict subclass goes to deepcopy), which
    # mypy cannot narrow through ``kind``.
    kind = type(value)
    if kind is dict:
        copied = {}
        for key, item in value.items():
            if type(key) not in _JSON_SCALARS:
                raise _NotJSON
            copied[key] = item if type(item) in _JSON_SCALARS else _copy_json(item)
        return copied
    if kind is list:
        return [item if type(item) in _JSON_SCALARS else _copy_json(item) for item in value]
    if kind in _JSON_SCALARS:
        return value
    raise _NotJSON


def _dynamic_overrides(entry: ToolEntry) -> dict[str, Any]:
    if entry.dynamic_schema_overrides is None:
        return {}
    try:
        overrides = entry.dynamic_schema_overrides()
    except Exception as exc:
        _logger().warning("dynamic_schema_overrides of tool '%s' raised %s: %s; using the static "
                          "schema", entry.name, type(exc).__name__, exc)
        return {}
    if not isinstance(overrides, dict):
        _logger().warning("dynamic_schema_overrides of tool '%s' returned %s, expected a dict; "
                          "using the static schema", entry.name, type(overrides).__name__)
        return {}
    return overrides
