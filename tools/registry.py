"""The tool registry: one table of every tool the agent can call, and the dispatch into it.

Built-in tools register themselves: ``discover_builtin_tools()`` imports each ``tools/*.py`` whose
module body calls ``registry.register(...)`` at top level, and that import fills the module-level
``registry`` singleton. MCP servers and plugins write into the same table at run time, so every
mutation happens under one ``RLock`` and readers work on a snapshot taken under it. A drop-in for
upstream Hermes's ``tools.registry``: the same public methods, signatures and result shapes (the
README's parity table lists each and the few deliberate differences).

Standard library only, and lean at start-up: every start compiles this module, often with no
``.pyc``. It holds the table; each other job is a module imported by the first call that needs
it (``RUNTIME_MODULES``; docs/runtime.md says which does what), and so are ``ast``, ``asyncio``,
``copy``, ``importlib``, ``json``, ``logging``, ``threading`` and ``hermes_lint.discovery``.
``logger`` and ``importlib`` are module attributes made on first access
(``tools.registry_names``), so that callers can patch them as upstream's.
"""

from __future__ import annotations

import _thread  # threading's own lock types, without importing threading
import os
import time as time  # the check cache's clock; callers patch tools.registry.time

from tools.tool_entry import ToolEntry as ToolEntry
from tools.tool_entry import check_schema_shape

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    import logging
    from collections.abc import Callable, Iterable
    from types import ModuleType
    from typing import Any

    from tools.manifest_loader import ManifestLoad
    from tools.tool_results import tool_error as tool_error
    from tools.tool_results import tool_result as tool_result

__all__ = [
    "CHECK_FN_GRACE_SECONDS", "CHECK_FN_TTL_SECONDS", "DEFAULT_EMOJI", "DEFAULT_RESULT_SIZE_CHARS",
    "MANIFEST_ENV_VAR", "MANIFEST_FILE_NAME", "MCP_TOOLSET_PREFIX", "PLUGIN_PACKAGE_PREFIX",
    "RESULT_CONTRACT_ERROR_TYPE", "RUNTIME_MODULES", "ToolEntry", "ToolRegistry",
    "discover_builtin_tools", "invalidate_check_fn_cache", "registry", "tool_error", "tool_result",
]

# A check_fn result is reused for this long, so that building the definitions every agent round
# does not re-run probes such as "is Docker up?". One probe per check *function*: tools sharing a
# check_fn share its result.
CHECK_FN_TTL_SECONDS = 30.0
# Docker/playwright probes flap. For this long after the last successful probe a failing probe
# still reports the tool as available (and is not cached: the next request probes again), so a
# sub-agent does not see a tool vanish mid-task.
CHECK_FN_GRACE_SECONDS = 60.0
# Upstream's names for the two windows; the cache reads these, so patching them works as there.
_CHECK_FN_TTL_SECONDS = CHECK_FN_TTL_SECONDS
_CHECK_FN_FAILURE_GRACE_SECONDS = CHECK_FN_GRACE_SECONDS

DEFAULT_EMOJI = "⚡"
# get_max_result_size's answer for a tool without its own limit and no default given.
DEFAULT_RESULT_SIZE_CHARS = 100_000
# error_type of the result that replaces a handler's value of the wrong type.
RESULT_CONTRACT_ERROR_TYPE = "tool_result_contract"

# Toolsets of MCP servers. A server that re-lists its tools (notifications/tools/list_changed)
# registers them again under a fresh toolset, so MCP replacing MCP is a refresh, not a conflict.
MCP_TOOLSET_PREFIX = "mcp-"
# Plugins are loaded as hermes_plugins.<plugin>[.<module>]: code there is plugin code even before
# the plugin's override policy is recorded.
PLUGIN_PACKAGE_PREFIX = "hermes_plugins."

# The frozen manifest (``hermes-lint manifest``): its file in the tools directory, and the
# variable whose value "0" makes discover_builtin_tools ignore it and import every tool module.
MANIFEST_FILE_NAME = "manifest.json"
MANIFEST_ENV_VAR = "HERMES_TOOLS_MANIFEST"

# The runtime's own modules: never tool modules, never "the caller" of a registry method.
_PACKAGE = __name__.rpartition(".")[0] or "tools"
RUNTIME_MODULES = frozenset(
    f"{_PACKAGE}.{stem}" for stem in (
        "registry", "registry_names", "tool_entry", "check_cache", "tool_definitions",
        "manifest_loader", "manifest_plan", "lazy_tools", "manifest_templates", "manifest_holes",
        "manifest_template_checks", "manifest_checks", "manifest_schema", "manifest_imports",
        "import_discovery", "plugin_policy", "toolset_queries", "dispatch_results", "tool_results",
    )
)

def _logger() -> logging.Logger:
    """The ``tools.registry`` logger, created when something is first logged: importing
    ``logging`` costs ~10 ms at start-up, and a healthy start logs nothing."""
    logger: logging.Logger | None = globals().get("logger")
    if logger is None:
        import logging

        logger = globals()["logger"] = logging.getLogger(__name__)
    return logger


def _importlib() -> ModuleType:
    """The ``importlib`` this module imports with (a module attribute callers may patch)."""
    module: ModuleType | None = globals().get("importlib")
    if module is None:
        import importlib

        module = globals()["importlib"] = importlib
    return module


def __getattr__(name: str) -> object:
    # Made on first use (``logger``, ``importlib``) or kept importable from here while they live
    # in other runtime modules: tools.registry_names, compiled only by such a lookup. Not for
    # what the import system asks every module (``from tools.registry import x`` asks __path__).
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from tools.registry_names import module_attribute

    return module_attribute(name)


# --------------------------------------------------------------------- discovery


def discover_builtin_tools(tools_dir: str | os.PathLike[str] | None = None, *,
                           use_manifest: bool | None = None) -> list[str]:
    """Import every tool module of ``tools_dir`` (default: this package) and return their names.

    Tool modules are those ``hermes_lint.discovery`` recognises, imported as ``tools.<stem>`` in
    sorted file order (see ``tools.import_discovery``; one that fails to import is logged and
    skipped). When ``tools_dir`` holds a ``manifest.json`` (``hermes-lint manifest``), the
    module-level ``registry`` is filled from it instead (``load_manifest`` with
    ``fallback=True``): no module is imported before it is needed, and the names returned are
    the tool modules whose tools are registered. ``use_manifest=False``, or the environment
    variable ``HERMES_TOOLS_MANIFEST=0``, turns the manifest off.
    """
    tools_path = _tools_dir_path(tools_dir)
    if use_manifest is None:
        use_manifest = os.environ.get(MANIFEST_ENV_VAR, "1") != "0"
    manifest_path = os.path.join(tools_path, MANIFEST_FILE_NAME)
    if use_manifest and os.path.isfile(manifest_path):
        # Looked up at call time: tests (and embedders) may swap the singleton.
        return registry.load_manifest(manifest_path, tools_dir=tools_path, fallback=True).modules

    from tools.import_discovery import import_tool_modules

    return import_tool_modules(tools_path)


def _tools_dir_path(tools_dir: str | os.PathLike[str] | None) -> str:
    """``tools_dir`` as a path string; None is this package's directory."""
    if tools_dir is None:
        return os.path.dirname(os.path.realpath(__file__))
    return os.fspath(tools_dir)


# --------------------------------------------------------------------- the registry


class ToolRegistry:
    """Name → ``ToolEntry`` table shared by built-in tools, MCP servers and plugins.

    ``allow_tool_override`` is the operator's consent for *plugin* code that has no override
    policy of its own (see ``register_plugin_override_policy``) to replace or remove a tool it
    does not own. ``clock`` (seconds, monotonic; default ``time.monotonic``, looked up at each
    call) drives the check_fn cache; tests inject a fake one.
    """

    def __init__(self, *, allow_tool_override: bool = False,
                 clock: Callable[[], float] | None = None) -> None:
        self.allow_tool_override = allow_tool_override
        self._clock = clock
        # Re-entrant: a plugin's registration hook may register further tools.
        self._lock = _thread.RLock()
        self._tools: dict[str, ToolEntry] = {}
        self._generation = 0
        self._toolset_aliases: dict[str, str] = {}
        # The first check_fn registered per toolset (get_toolset_requirements reports it).
        self._toolset_checks: dict[str, Callable[[], object]] = {}
        self._plugin_override_policy: dict[str, bool] = {}
        # Separate from _lock and never held while a probe runs: probes may be slow.
        self._check_lock = _thread.allocate_lock()
        # Per check function: (probed at, answer, the function — kept alive for id keys).
        self._check_results: dict[object, tuple[float, bool, object]] = {}
        self._check_last_good: dict[object, float] = {}
        # Serialises the import of a manifest tool's module (see tools.manifest_loader); re-entrant
        # because the import registers into this registry.
        self._materialize_lock = _thread.RLock()

    # ----------------------------------------------------------------- mutation

    def register(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., object],
        check_fn: Callable[[], object] | None = None,
        requires_env: list[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        max_result_size_chars: int | float | None = None,
        dynamic_schema_overrides: Callable[[], dict[str, Any]] | None = None,
        override: bool = False,
    ) -> None:
        """Add a tool, or replace it when the rules allow.

        - same name, same toolset: replaced (a module reloaded, a tool re-registered);
        - same name, another toolset: rejected with an error log, the first one stays; except
          when both toolsets start with ``mcp-`` (an MCP refresh replaces it), or with
          ``override=True``: replaced (logged) unless the handler is plugin code without
          permission (see ``register_plugin_override_policy``), which is ``PermissionError``.

        ``TypeError`` when ``schema`` is not a dict or its ``parameters`` is not a dict.
        ``description`` defaults to the schema's own description.
        """
        check_schema_shape(name, schema)
        if isinstance(requires_env, str):
            raise TypeError(
                f"Tool '{name}': requires_env must be a list of variable names, "
                f"got the string {requires_env!r}"
            )
        entry = ToolEntry(
            name=name,
            toolset=toolset,
            schema=schema,
            handler=handler,
            check_fn=check_fn,
            requires_env=requires_env,
            is_async=is_async,
            description=description or schema.get("description", ""),
            emoji=emoji,
            max_result_size_chars=max_result_size_chars,
            dynamic_schema_overrides=dynamic_schema_overrides,
        )
        self._add_entry(entry, override=override)

    def deregister(self, name: str) -> bool:
        """Remove a tool; False when no tool has that name.

        The toolset's recorded check and the aliases pointing at it go with its last tool.
        Plugin code (the calling module, see ``register_plugin_override_policy``) may remove
        only its own tools and MCP tools unless permitted, else ``PermissionError``: removing a
        built-in tool and registering its own under the name would otherwise bypass the
        override rule.
        """
        with self._lock:
            entry = self._tools.get(name)
            if entry is None:
                return False
            if not entry.toolset.startswith(MCP_TOOLSET_PREFIX):
                from tools.plugin_policy import check_may_remove

                check_may_remove(self, entry)
            del self._tools[name]
            if not any(other.toolset == entry.toolset for other in self._tools.values()):
                self._toolset_checks.pop(entry.toolset, None)
                self._toolset_aliases = {
                    alias: target
                    for alias, target in self._toolset_aliases.items()
                    if target != entry.toolset
                }
            self._generation += 1
        return True

    def register_toolset_alias(self, alias: str, toolset: str) -> None:
        """Let ``alias`` stand for ``toolset`` (e.g. ``"foo"`` for ``"mcp-foo"``) in lookups."""
        with self._lock:
            existing = self._toolset_aliases.get(alias)
            if existing and existing != toolset:
                _logger().warning("Toolset alias collision: '%s' (%s) overwritten by %s",
                                  alias, existing, toolset)
            self._toolset_aliases[alias] = toolset
            self._generation += 1

    def register_plugin_override_policy(self, module_namespace: str, allowed: bool) -> None:
        """Record the operator's decision for the plugin whose code lives in ``module_namespace``:
        may its code replace (``override=True``) or remove a tool it does not own? Durable: a
        policy is never cleared. What plugin code is, and the rules: ``tools.plugin_policy``.
        """
        with self._lock:
            self._plugin_override_policy[module_namespace] = bool(allowed)

    @staticmethod
    def _caller_module() -> str:
        """The module whose code called the registry method that asks: the first frame outside
        the runtime's own modules. ``deregister`` authorises plugin code by it (it has no
        handler to bind to); upstream's hook of the same name, which callers may patch."""
        from tools.plugin_policy import caller_module

        return caller_module()

    def _add_entry(self, entry: ToolEntry, *, override: bool) -> bool:
        """Store ``entry`` under the conflict rules of ``register``; True when stored."""
        with self._lock:
            existing = self._tools.get(entry.name)
            if existing is not None and existing.toolset != entry.toolset:
                from tools.plugin_policy import may_replace

                if not may_replace(self, existing, entry, override):
                    return False
            self._tools[entry.name] = entry
            if entry.check_fn is not None and entry.toolset not in self._toolset_checks:
                self._toolset_checks[entry.toolset] = entry.check_fn
            self._generation += 1
        return True

    # ----------------------------------------------------------------- lookup

    @property
    def generation(self) -> int:
        """Bumped on every change of the table; lets callers memoize what they built from it."""
        return self._generation

    def get_entry(self, name: str) -> ToolEntry | None:
        """The entry registered as ``name``, or None."""
        with self._lock:
            return self._tools.get(name)

    def get_all_tool_names(self) -> list[str]:
        """Every registered name, sorted."""
        return sorted(entry.name for entry in self._snapshot_entries())

    def get_registered_toolset_names(self) -> list[str]:
        """Every toolset that has a registered tool, sorted."""
        return sorted({entry.toolset for entry in self._snapshot_entries()})

    def get_tool_names_for_toolset(self, toolset: str) -> list[str]:
        """Sorted names registered under ``toolset`` or under the toolset it is an alias of."""
        with self._lock:
            canonical = self._toolset_aliases.get(toolset, toolset)
            entries = list(self._tools.values())
        return sorted(entry.name for entry in entries if entry.toolset == canonical)

    def get_registered_toolset_aliases(self) -> dict[str, str]:
        """``{alias: toolset}``, a copy."""
        with self._lock:
            return dict(self._toolset_aliases)

    def get_toolset_alias_target(self, alias: str) -> str | None:
        """The toolset ``alias`` stands for, or None."""
        with self._lock:
            return self._toolset_aliases.get(alias)

    def get_schema(self, name: str) -> dict[str, Any] | None:
        """The tool's schema as registered (not a copy; availability not checked), or None."""
        entry = self.get_entry(name)
        if entry is None:
            return None
        from tools.tool_definitions import definition_schema

        return definition_schema(entry)

    def get_toolset_for_tool(self, name: str) -> str | None:
        entry = self.get_entry(name)
        return entry.toolset if entry is not None else None

    def get_tool_to_toolset_map(self) -> dict[str, str]:
        """``{tool name: toolset}`` of every registered tool."""
        return {entry.name: entry.toolset for entry in self._snapshot_entries()}

    def get_emoji(self, name: str, default: str = DEFAULT_EMOJI) -> str:
        """The tool's emoji; ``default`` for an unknown tool or an empty emoji."""
        entry = self.get_entry(name)
        return entry.emoji if entry is not None and entry.emoji else default

    def get_max_result_size(self, name: str, default: int | float | None = None) -> int | float:
        """The tool's ``max_result_size_chars``; else ``default``; else
        ``DEFAULT_RESULT_SIZE_CHARS``."""
        entry = self.get_entry(name)
        if entry is not None and entry.max_result_size_chars is not None:
            return entry.max_result_size_chars
        return default if default is not None else DEFAULT_RESULT_SIZE_CHARS

    def get_definitions(self, tool_names: Iterable[str],
                        quiet: bool = False) -> list[dict[str, Any]]:
        """Provider-ready definitions of the available tools among ``tool_names``, sorted by
        name, each once (see ``tools.tool_definitions``)."""
        from tools.tool_definitions import definitions

        return definitions(self, tool_names, quiet)

    def _snapshot_state(self) -> tuple[list[ToolEntry], dict[str, Callable[[], object]]]:
        """The entries and the toolsets' recorded checks, copied under one lock hold: MCP
        refreshes may mutate the table from another thread at any moment."""
        with self._lock:
            return list(self._tools.values()), dict(self._toolset_checks)

    def _snapshot_entries(self) -> list[ToolEntry]:
        return self._snapshot_state()[0]

    # ----------------------------------------------------------------- availability

    def _check_fn_cached(self, fn: Callable[[], object]) -> bool:
        """``bool(fn())``, probed at most once per TTL per check function (see
        ``tools.check_cache``)."""
        from tools.check_cache import check_fn_cached

        return check_fn_cached(self, fn)

    def invalidate_check_fn_cache(self) -> None:
        """Forget every cached check result and last success (after a configuration change)."""
        with self._check_lock:
            self._check_results.clear()
            self._check_last_good.clear()

    # The reports by toolset live in tools.toolset_queries: a start does not need them.

    def is_toolset_available(self, toolset: str) -> bool:
        """True when at least one tool of ``toolset`` is available (a raising check is False)."""
        from tools.toolset_queries import is_toolset_available

        return is_toolset_available(self, toolset)

    def check_toolset_requirements(self) -> dict[str, bool]:
        """``{toolset: available}`` for every registered toolset, sorted by name."""
        from tools.toolset_queries import check_toolset_requirements

        return check_toolset_requirements(self)

    def get_available_toolsets(self) -> dict[str, dict[str, Any]]:
        """Per toolset, in registration order: ``{"available", "tools", "description": "",
        "requirements"}`` (requirements: the tools' ``requires_env`` names, first seen first)."""
        from tools.toolset_queries import get_available_toolsets

        return get_available_toolsets(self)

    def get_toolset_requirements(self) -> dict[str, dict[str, Any]]:
        """Per toolset: ``{"name", "env_vars", "check_fn", "setup_url": None, "tools"}``;
        ``check_fn`` is the first one registered in the toolset (reported, never called)."""
        from tools.toolset_queries import get_toolset_requirements

        return get_toolset_requirements(self)

    def check_tool_availability(
        self, quiet: bool = False
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """``(available toolsets, unavailable)``, both sorted by toolset; each unavailable one is
        ``{"name", "env_vars" (its first tool's requires_env), "tools"}``."""
        from tools.toolset_queries import check_tool_availability

        return check_tool_availability(self)

    # ----------------------------------------------------------------- dispatch

    def dispatch(self, name: str, args: dict[str, Any], **kwargs: Any) -> str | dict[str, Any]:
        """Run tool ``name`` as ``handler(args, **kwargs)`` and return its result.

        Always returns a JSON string, except the multimodal envelope
        ``{"_multimodal": True, "content": [...]}``, which passes through as the dict it is.
        An unknown tool is ``{"error": "Unknown tool: NAME"}``; an exception (logged with its
        traceback) is ``{"error": "Tool execution failed: TYPE: MESSAGE"}``; a result of
        another type is ``{"error": ..., "error_type": "tool_result_contract", "tool": NAME,
        "result_type": TYPE}``. ``is_async`` handlers return an awaitable that the registry runs
        (handlers never call ``asyncio.run`` themselves).
        """
        from tools.dispatch_results import dispatch

        return dispatch(self, name, args, kwargs)

    # ----------------------------------------------------------------- manifest

    def load_manifest(self, path: str | os.PathLike[str], *,
                      tools_dir: str | os.PathLike[str] | None = None,
                      fallback: bool = False) -> ManifestLoad:
        """Fill the table from a manifest written by ``hermes-lint manifest``, importing no
        tool module: see ``tools.manifest_loader.load_manifest``."""
        from tools.manifest_loader import load_manifest

        return load_manifest(self, path, tools_dir=tools_dir, fallback=fallback)


def invalidate_check_fn_cache() -> None:
    """Forget the module-level registry's cached check results (upstream's function)."""
    registry.invalidate_check_fn_cache()


def _check_fn_cached(fn: Callable[[], object]) -> bool:
    """``bool(fn())`` through the module-level registry's check cache (upstream's function)."""
    return registry._check_fn_cached(fn)


# --------------------------------------------------------------------- internals


def _handler_module(handler: Callable[..., object]) -> str:
    # functools.partial and some callables carry no __module__: they match no policy.
    return getattr(handler, "__module__", None) or ""


registry = ToolRegistry()
