"""The module attributes of ``tools.registry`` that are not in its namespace until asked for:
``logger`` and ``importlib`` (made on first use, so that callers can patch them as upstream's),
and the names callers import from ``tools.registry`` that live in other runtime modules.

``tools.registry.__getattr__`` comes here for a name its module does not hold, which a start
from a fresh manifest never asks for.
"""

from __future__ import annotations

from tools import registry as _registry

# Names kept importable from tools.registry, by the module that holds them.
_LOADER_NAMES = frozenset({
    "ManifestError", "ManifestLoad", "MANIFEST_FORMAT", "MANIFEST_FORMAT_VERSION",
    "MANIFEST_FORMAT_VERSIONS",
})
_DISCOVERY_NAMES = {  # upstream's private helpers, still used by some callers
    "_is_registry_register_call": "is_registry_register_call",
    "_module_registers_tools": "module_registers_tools",
}


def module_attribute(name: str) -> object:
    """The value of ``tools.registry.<name>``; ``AttributeError`` for a name it does not have."""
    if name == "logger":
        return _registry._logger()
    if name == "importlib":
        return _registry._importlib()
    if name in _LOADER_NAMES:
        from tools import manifest_loader

        return getattr(manifest_loader, name)
    if name in ("tool_error", "tool_result"):
        from tools import tool_results

        return getattr(tool_results, name)
    if name in _DISCOVERY_NAMES:
        from tools import import_discovery

        return getattr(import_discovery, _DISCOVERY_NAMES[name])
    raise AttributeError(f"module {_registry.__name__!r} has no attribute {name!r}")
