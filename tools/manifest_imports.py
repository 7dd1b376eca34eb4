"""Importing a manifest tool's module on first use, and taking over the entry it registers.

The lazy entries of ``tools.manifest_loader`` come here on a tool's first dispatch, or when a
definition or check needs the module (a check of kind ``import``, ``dynamic_schema_overrides``,
a schema hole only the module can fill). Kept out of the loader, which every start compiles
(often without a ``.pyc``) while a start imports no tool module.
"""

from __future__ import annotations

from tools import registry as _registry_module
from tools.lazy_tools import LazyHandler
from tools.registry import ToolEntry, _logger

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from tools.lazy_tools import LazyTool
    from tools.manifest_plan import JSONObject
    from tools.registry import ToolRegistry


def schema_from_module(lazy: LazyTool) -> JSONObject | None:
    """The schema the imported module registered for a tool whose frozen schema has a hole only
    the module can fill (None: the import failed, and as with import discovery the tool has no
    definition)."""
    try:
        return materialize(lazy).schema
    except Exception as exc:
        _logger().warning("Tool '%s' has no definition: importing %s failed: %s",
                          lazy.name, lazy.module, exc)
        return None


class ImportingCheck:
    """A check of kind ``import``: imports the module, then asks the registry's cache about the
    real check_fn (tools sharing it share one probe)."""

    __slots__ = ("lazy",)

    def __init__(self, lazy: LazyTool) -> None:
        self.lazy = lazy

    def __call__(self) -> object:
        entry = materialize(self.lazy)
        if entry.check_fn is None:
            return True
        return self.lazy.registry._check_fn_cached(entry.check_fn)


class LazyOverrides:
    """``dynamic_schema_overrides`` of a manifest tool: only the imported module knows them."""

    __slots__ = ("lazy",)

    def __init__(self, lazy: LazyTool) -> None:
        self.lazy = lazy

    def __call__(self) -> dict[str, Any]:
        entry = materialize(self.lazy)
        overrides = entry.dynamic_schema_overrides
        return overrides() if overrides is not None else {}


def materialize(lazy: LazyTool) -> ToolEntry:
    """Import a lazy tool's module and return the tool's real entry.

    The import runs the module's ``registry.register(...)``, which replaces the lazy entry
    (same toolset). When it registered elsewhere (this is not the module-level registry) or
    the module was imported before, the entry is adopted from the module-level registry,
    else rebuilt from the manifest's handler reference. An import that fails after registering
    the tool leaves it registered, as import discovery does; other failures (``ImportError``
    and friends) propagate: ``dispatch`` turns them into an ``{"error": ...}`` result.
    """
    registry = lazy.registry
    with registry._materialize_lock:
        current = registry.get_entry(lazy.name)
        if current is not None and current.handler is not lazy.handler:
            return current
        try:
            module = _registry_module._importlib().import_module(lazy.module)
        except Exception:
            # As under import discovery, what the module registered before its import failed
            # stands: a refused override (``PermissionError``) stops the tools after it, not
            # this one, registered first.
            current = registry.get_entry(lazy.name)
            if current is not None and current.handler is not lazy.handler:
                return current
            raise
        current = registry.get_entry(lazy.name)
        if current is not None and current.handler is not lazy.handler:
            return current
        real = _adopt_entry(registry, lazy, module)
        if real is None:
            raise LookupError(
                f"tool module {lazy.module} was imported but registered no tool "
                f"'{lazy.name}' in toolset '{lazy.toolset}' (the tool manifest is out of date)"
            )
        if current is not None:
            registry._add_entry(real, override=lazy.override)
        return real


def _adopt_entry(reg: ToolRegistry, lazy: LazyTool, module: object) -> ToolEntry | None:
    """The real entry of a lazy tool whose module's import did not register into ``reg``."""
    shared = getattr(_registry_module, "registry", None)
    if shared is not None and shared is not reg:
        entry = shared.get_entry(lazy.name)
        if (
            entry is not None
            and entry.toolset == lazy.toolset
            and not isinstance(entry.handler, LazyHandler)
            and _registry_module._handler_module(entry.handler) == lazy.module
        ):
            return ToolEntry(**{slot: getattr(entry, slot) for slot in ToolEntry.__slots__})
    if lazy.qualname is None or lazy.dynamic or lazy.schema_needs_import or lazy.entry is None:
        return None
    handler = _resolve_qualname(module, lazy.qualname)
    check_fn = lazy.check_fn
    if isinstance(check_fn, ImportingCheck):
        function = lazy.check.get("function")
        check_fn = _resolve_qualname(module, function) if function else None
        if check_fn is None:
            return None
    if handler is None:
        return None
    base = lazy.entry
    return ToolEntry(
        name=base.name, toolset=base.toolset, schema=base.schema, handler=handler,
        check_fn=check_fn, requires_env=base.requires_env, is_async=base.is_async,
        description=base.description, emoji=base.emoji,
        max_result_size_chars=base.max_result_size_chars,
    )


def _resolve_qualname(module: object, qualname: str) -> Callable[..., object] | None:
    """The module's own function ``qualname``: defined there, not imported into it."""
    target: object = getattr(module, qualname, None)
    if not callable(target) or getattr(target, "__module__", None) != getattr(module, "__name__", ""):
        return None
    return target
