"""The tool registry: one table of every tool the agent can call, and the dispatch into it.

Built-in tools register themselves: ``discover_builtin_tools()`` imports each ``tools/*.py`` whose
module body calls ``registry.register(...)`` at top level, and that import fills the module-level
``registry`` singleton. MCP servers and plugins write into the same table at run time, so every
mutation happens under one ``RLock`` and readers work on a snapshot taken under it.

A drop-in for upstream Hermes's ``tools.registry``: the same public methods, signatures and
result shapes (the README's parity table lists each and the few deliberate differences).
Loading a frozen manifest lives in ``tools.manifest_loader``; ``ToolRegistry.load_manifest``
and ``discover_builtin_tools`` call into it.

Standard library only, and lean at start-up: the runtime imports this module on every start,
often with no ``.pyc`` to load, so ``ast``, ``asyncio``, ``copy``, ``importlib``, ``json``,
``logging``, ``threading`` and ``hermes_lint.discovery`` are imported only by the functions that
need them (an ``import`` of a loaded module is a dict lookup). ``logger`` and ``importlib`` are
still module attributes, made on first access, so that callers can patch them as upstream's.
"""

from __future__ import annotations

import _thread  # threading's own lock types, without importing threading
import os
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    import logging
    from collections.abc import Awaitable, Callable, Coroutine, Iterable
    from pathlib import Path
    from types import FrameType, ModuleType
    from typing import Any, TypeGuard

    from tools.manifest_loader import ManifestLoad

__all__ = [
    "CHECK_FN_GRACE_SECONDS",
    "CHECK_FN_TTL_SECONDS",
    "DEFAULT_EMOJI",
    "DEFAULT_RESULT_SIZE_CHARS",
    "MANIFEST_ENV_VAR",
    "MANIFEST_FILE_NAME",
    "MCP_TOOLSET_PREFIX",
    "PLUGIN_PACKAGE_PREFIX",
    "RESULT_CONTRACT_ERROR_TYPE",
    "RUNTIME_MODULES",
    "ToolEntry",
    "ToolRegistry",
    "discover_builtin_tools",
    "invalidate_check_fn_cache",
    "registry",
    "tool_error",
    "tool_result",
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
    f"{_PACKAGE}.{stem}" for stem in ("registry", "manifest_loader", "manifest_schema",
                                      "manifest_templates")
)

# Names kept importable from here that live in tools.manifest_loader (imported on first use).
_LOADER_NAMES = frozenset({
    "ManifestError", "ManifestLoad", "MANIFEST_FORMAT", "MANIFEST_FORMAT_VERSION",
    "MANIFEST_FORMAT_VERSIONS",
})


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
    # Module attributes made on first use (see _logger, _importlib), and the loader's names.
    if name == "logger":
        return _logger()
    if name == "importlib":
        return _importlib()
    if name in _LOADER_NAMES:
        from tools import manifest_loader

        return getattr(manifest_loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------- discovery


def _is_registry_register_call(node: object) -> bool:
    """True for a statement ``registry.register(...)`` (an expression statement), as upstream."""
    import ast

    from hermes_lint.discovery import is_registry_register_call

    return isinstance(node, ast.Expr) and is_registry_register_call(node.value)


def _module_registers_tools(module_path: str | Path) -> bool:
    """True when the file is a tool module: a top-level ``registry.register(...)`` statement.
    The one predicate of ``hermes_lint.discovery``, under upstream's name."""
    from hermes_lint.discovery import module_registers_tools

    return module_registers_tools(module_path)


def discover_builtin_tools(tools_dir: str | os.PathLike[str] | None = None, *,
                           use_manifest: bool | None = None) -> list[str]:
    """Import every tool module of ``tools_dir`` (default: this package) and return their names.

    A tool module is a ``*.py`` file that ``hermes_lint.discovery`` recognises (top-level
    ``registry.register(...)``; ``__init__.py``, ``registry.py`` and ``mcp_tool.py`` never are).
    Modules are imported as ``tools.<stem>`` in sorted file order. A module that fails to import
    is logged as a warning and skipped: one broken tool must not take the agent down. A
    ``*.py`` entry that is not a regular file (a FIFO, a link to a device) is skipped with a
    warning without being opened.

    When ``tools_dir`` holds a ``manifest.json`` (``hermes-lint manifest``), the module-level
    ``registry`` is filled from it instead (``ToolRegistry.load_manifest`` with
    ``fallback=True``): no module is imported before its first dispatch, stale modules are
    imported as here, and an unusable manifest falls back to this import discovery with a
    warning. The returned names are then the tool modules whose tools are registered, imported
    or not. ``use_manifest=False``, or the environment variable ``HERMES_TOOLS_MANIFEST=0``,
    turns the manifest off.
    """
    tools_path = _tools_dir_path(tools_dir)
    if use_manifest is None:
        use_manifest = os.environ.get(MANIFEST_ENV_VAR, "1") != "0"
    manifest_path = os.path.join(tools_path, MANIFEST_FILE_NAME)
    if use_manifest and os.path.isfile(manifest_path):
        # Looked up at call time: tests (and embedders) may swap the singleton.
        return registry.load_manifest(manifest_path, tools_dir=tools_path, fallback=True).modules

    from hermes_lint.discovery import candidate_tool_paths

    module_names = [
        f"tools.{path.stem}"
        for path in candidate_tool_paths(tools_path)
        if _regular_tool_file(path) and _module_registers_tools(path)
    ]
    imported: list[str] = []
    for module_name in module_names:
        if _import_tool_module(module_name):
            imported.append(module_name)
    return imported


def _regular_tool_file(path: str | Path) -> bool:
    """False, with a warning, for a candidate that is not a regular file: reading a FIFO blocks
    forever and a link to /dev/zero never ends."""
    from hermes_lint.discovery import is_regular_file

    if is_regular_file(path):
        return True
    _logger().warning("Skipping tool module %s: not a regular file", path)
    return False


def _import_tool_module(module_name: str) -> bool:
    """Import one tool module as discovery does: a failure is a logged warning."""
    try:
        _importlib().import_module(module_name)
    except Exception as exc:
        _logger().warning("Could not import tool module %s: %s", module_name, exc)
        return False
    return True


def _tools_dir_path(tools_dir: str | os.PathLike[str] | None) -> str:
    """``tools_dir`` as a path string; None is this package's directory."""
    if tools_dir is None:
        return os.path.dirname(os.path.realpath(__file__))
    return os.fspath(tools_dir)


# --------------------------------------------------------------------- entries


class ToolEntry:
    """One registered tool. ``__slots__`` keeps ~100 entries small and their fields fixed."""

    __slots__ = (
        "name",
        "toolset",
        "schema",
        "handler",
        "check_fn",
        "requires_env",
        "is_async",
        "description",
        "emoji",
        "max_result_size_chars",
        "dynamic_schema_overrides",
    )

    def __init__(
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
    ) -> None:
        self.name = name
        self.toolset = toolset
        self.schema = schema
        self.handler = handler
        self.check_fn = check_fn
        self.requires_env = list(requires_env or ())
        self.is_async = is_async
        self.description = description
        self.emoji = emoji
        self.max_result_size_chars = max_result_size_chars
        self.dynamic_schema_overrides = dynamic_schema_overrides

    def __repr__(self) -> str:
        return f"ToolEntry(name={self.name!r}, toolset={self.toolset!r})"


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
        _check_schema_shape(name, schema)
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
        caller = _caller_module()
        with self._lock:
            entry = self._tools.get(name)
            if entry is None:
                return False
            if not entry.toolset.startswith(MCP_TOOLSET_PREFIX):
                self._check_plugin_may_remove(caller, entry)
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
        """Record the operator's decision for the plugin whose code lives in ``module_namespace``.

        Plugin code is code defined in a module that equals a recorded namespace or starts with
        it followed by a dot (``"plugins.acme"`` covers ``plugins.acme.tools`` but not
        ``plugins.acme_evil``; the longest recorded namespace is the owner), or any module under
        ``hermes_plugins.`` (owner ``hermes_plugins.<plugin>``). A handler belongs to the module
        that defined it (its ``__globals__``, else ``__module__``); ``deregister`` asks for the
        calling module. For plugin code, replacing (``override=True``) or removing a tool it
        does not own needs ``allowed=True``; with no recorded decision, the registry's
        ``allow_tool_override`` decides. Other code keeps upstream's rule: ``override=True``
        is its opt-in. Durable: a policy is never cleared.
        """
        with self._lock:
            self._plugin_override_policy[module_namespace] = bool(allowed)

    def _add_entry(self, entry: ToolEntry, *, override: bool) -> bool:
        """Store ``entry`` under the conflict rules of ``register``; True when stored."""
        with self._lock:
            existing = self._tools.get(entry.name)
            if existing is not None and existing.toolset != entry.toolset:
                if not self._may_replace(existing, entry, override):
                    return False
            self._tools[entry.name] = entry
            if entry.check_fn is not None and entry.toolset not in self._toolset_checks:
                self._toolset_checks[entry.toolset] = entry.check_fn
            self._generation += 1
        return True

    def _may_replace(self, existing: ToolEntry, entry: ToolEntry, override: bool) -> bool:
        """Conflict between toolsets: True to replace, False to reject; may raise."""
        if existing.toolset.startswith(MCP_TOOLSET_PREFIX) and entry.toolset.startswith(
            MCP_TOOLSET_PREFIX
        ):
            return True
        if override:
            owner = self._plugin_owner_of(entry.handler)
            if owner is not None and not self._plugin_permitted(owner):
                _logger().error(
                    "Tool registration REJECTED: plugin %r may not override tool '%s' "
                    "(toolset '%s') without the operator's opt-in", owner, entry.name,
                    existing.toolset,
                )
                raise PermissionError(
                    f"Plugin module {owner!r} cannot override tool {entry.name!r} (toolset "
                    f"{existing.toolset!r}) without operator opt-in (allow_tool_override)"
                )
            _logger().warning(
                "Tool '%s' (toolset '%s') overrides the same name in toolset '%s'",
                entry.name, entry.toolset, existing.toolset,
            )
            return True
        _logger().error(
            "Tool registration REJECTED: '%s' (toolset '%s') would shadow the same name in "
            "toolset '%s'",
            entry.name, entry.toolset, existing.toolset,
        )
        return False

    def _plugin_namespace(self, module: str) -> str | None:
        """The plugin that owns code of ``module``, or None for code that is no plugin's."""
        matching = [
            namespace
            for namespace in self._plugin_override_policy
            if module == namespace or module.startswith(namespace + ".")
        ]
        if matching:
            return max(matching, key=len)
        if module.startswith(PLUGIN_PACKAGE_PREFIX):
            return ".".join(module.split(".")[:2])
        return None

    def _plugin_owner_of(self, handler: Callable[..., object]) -> str | None:
        """The plugin that defined ``handler``, or None (built-in, MCP, embedder code)."""
        return self._plugin_namespace(_defining_module(handler))

    def _plugin_permitted(self, plugin: str) -> bool:
        policy = self._plugin_override_policy.get(plugin)
        return self.allow_tool_override if policy is None else policy

    def _check_plugin_may_remove(self, caller: str, entry: ToolEntry) -> None:
        plugin = self._plugin_namespace(caller)
        if plugin is None or plugin == self._plugin_owner_of(entry.handler):
            return
        if self._plugin_permitted(plugin):
            return
        _logger().error(
            "Tool deregistration REJECTED: plugin %r may not remove tool '%s' (toolset '%s') "
            "without the operator's opt-in", plugin, entry.name, entry.toolset,
        )
        raise PermissionError(
            f"Plugin module {caller!r} cannot deregister tool {entry.name!r} (toolset "
            f"{entry.toolset!r}) without operator opt-in (allow_tool_override)"
        )

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
        return _definition_schema(entry) if entry is not None else None

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
        """Provider-ready definitions of the available tools among ``tool_names``.

        Sorted by name, each once; unknown names and tools whose check_fn fails are left out
        (a debug log each unless ``quiet``). Each definition is
        ``{"type": "function", "function": {...}}`` where the function dict is a deep copy of
        the schema, with ``dynamic_schema_overrides()`` merged over its top-level keys (an
        override that raises or returns a non-dict is logged and the static schema is used)
        and ``name`` always the registered name.
        """
        entries = {entry.name: entry for entry in self._snapshot_entries()}
        checked: dict[int, bool] = {}
        definitions = []
        for name in sorted(set(tool_names)):
            entry = entries.get(name)
            if entry is None:
                continue
            if not self._available(entry, checked):
                if not quiet and "logging" in sys.modules:
                    # Without logging imported no handler exists to show a debug record:
                    # skipping it keeps logging's import out of a healthy start-up.
                    _logger().debug("Tool %s unavailable (check failed)", name)
                continue
            schema = _definition_schema(entry)
            if schema is None:
                continue
            function = _copy_schema(schema)
            function.update(_dynamic_overrides(entry))
            function["name"] = entry.name
            definitions.append({"type": "function", "function": function})
        return definitions

    def _snapshot_state(self) -> tuple[list[ToolEntry], dict[str, Callable[[], object]]]:
        """The entries and the toolsets' recorded checks, copied under one lock hold: MCP
        refreshes may mutate the table from another thread at any moment."""
        with self._lock:
            return list(self._tools.values()), dict(self._toolset_checks)

    def _snapshot_entries(self) -> list[ToolEntry]:
        return self._snapshot_state()[0]

    # ----------------------------------------------------------------- availability

    def _available(self, entry: ToolEntry, checked: dict[int, bool] | None = None) -> bool:
        """``entry``'s check, probed through the cache; ``checked`` memoizes one pass (a
        failure in the grace window is not cached, and one pass must not probe it twice)."""
        fn = entry.check_fn
        if fn is None:
            return True
        if checked is None:
            return self._check_fn_cached(fn)
        key = id(fn)
        if key not in checked:
            checked[key] = self._check_fn_cached(fn)
        return checked[key]

    def _check_fn_cached(self, fn: Callable[[], object]) -> bool:
        """``bool(fn())``, probed at most once per TTL per check function.

        A probe that raises counts as False (logged). A failing probe within the grace window
        after the function's last success answers True and is not cached (the next request
        probes again); past it, the failure is cached like a success.
        """
        now = self._clock() if self._clock is not None else time.monotonic()
        key = _check_key(fn)
        with self._check_lock:
            cached = self._check_results.get(key)
        if cached is not None and now - cached[0] < _CHECK_FN_TTL_SECONDS:
            return cached[1]
        passed, failure = _probe(fn)
        with self._check_lock:
            if passed:
                self._check_last_good[key] = now
                self._check_results[key] = (now, True, fn)
                return True
            last_good = self._check_last_good.get(key)
            in_grace = last_good is not None and now - last_good < _CHECK_FN_FAILURE_GRACE_SECONDS
            if not in_grace:
                self._check_results[key] = (now, False, fn)
        if in_grace:
            _logger().warning("check_fn %s %s within %.0f s of its last success; its tools stay "
                              "available", _callable_name(fn), failure,
                              _CHECK_FN_FAILURE_GRACE_SECONDS)
        elif failure is not _RETURNED_FALSE:
            # A plain False (a key not configured) is the everyday case, and logging costs
            # start-up time: only a check that raised is worth a warning.
            _logger().warning("check_fn %s %s; its tools are unavailable", _callable_name(fn),
                              failure)
        return in_grace

    def invalidate_check_fn_cache(self) -> None:
        """Forget every cached check result and last success (after a configuration change)."""
        with self._check_lock:
            self._check_results.clear()
            self._check_last_good.clear()

    def _toolset_has_exposable_tools(self, toolset: str, entries: list[ToolEntry],
                                     checked: dict[int, bool] | None = None) -> bool:
        """Whether ``get_definitions`` would expose at least one tool of ``toolset``: every
        tool's own check counts, not the first one registered."""
        if checked is None:
            checked = {}
        return any(
            self._available(entry, checked) for entry in entries if entry.toolset == toolset
        )

    def is_toolset_available(self, toolset: str) -> bool:
        """True when at least one tool of ``toolset`` is available (a raising check is False)."""
        entries, _ = self._snapshot_state()
        return self._toolset_has_exposable_tools(toolset, entries)

    def check_toolset_requirements(self) -> dict[str, bool]:
        """``{toolset: available}`` for every registered toolset, sorted by name."""
        entries, _ = self._snapshot_state()
        checked: dict[int, bool] = {}
        return {
            toolset: self._toolset_has_exposable_tools(toolset, entries, checked)
            for toolset in sorted({entry.toolset for entry in entries})
        }

    def get_available_toolsets(self) -> dict[str, dict[str, Any]]:
        """Per toolset, in registration order: ``{"available", "tools", "description": "",
        "requirements"}`` (requirements: the tools' ``requires_env`` names, first seen first)."""
        entries, _ = self._snapshot_state()
        checked: dict[int, bool] = {}
        toolsets: dict[str, dict[str, Any]] = {}
        for entry in entries:
            info = toolsets.get(entry.toolset)
            if info is None:
                info = toolsets[entry.toolset] = {
                    "available": self._toolset_has_exposable_tools(entry.toolset, entries, checked),
                    "tools": [],
                    "description": "",
                    "requirements": [],
                }
            info["tools"].append(entry.name)
            for variable in entry.requires_env:
                if variable not in info["requirements"]:
                    info["requirements"].append(variable)
        return toolsets

    def get_toolset_requirements(self) -> dict[str, dict[str, Any]]:
        """Per toolset: ``{"name", "env_vars", "check_fn", "setup_url": None, "tools"}``;
        ``check_fn`` is the first one registered in the toolset (reported, never called)."""
        entries, toolset_checks = self._snapshot_state()
        result: dict[str, dict[str, Any]] = {}
        for entry in entries:
            info = result.get(entry.toolset)
            if info is None:
                info = result[entry.toolset] = {
                    "name": entry.toolset,
                    "env_vars": [],
                    "check_fn": toolset_checks.get(entry.toolset),
                    "setup_url": None,
                    "tools": [],
                }
            if entry.name not in info["tools"]:
                info["tools"].append(entry.name)
            for variable in entry.requires_env:
                if variable not in info["env_vars"]:
                    info["env_vars"].append(variable)
        return result

    def check_tool_availability(
        self, quiet: bool = False
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """``(available toolsets, unavailable)``, both sorted by toolset; each unavailable one is
        ``{"name", "env_vars" (its first tool's requires_env), "tools"}``."""
        entries, _ = self._snapshot_state()
        checked: dict[int, bool] = {}
        available: list[str] = []
        unavailable: list[dict[str, Any]] = []
        for toolset in sorted({entry.toolset for entry in entries}):
            members = [entry for entry in entries if entry.toolset == toolset]
            if self._toolset_has_exposable_tools(toolset, members, checked):
                available.append(toolset)
            else:
                unavailable.append({
                    "name": toolset,
                    "env_vars": list(members[0].requires_env),
                    "tools": [entry.name for entry in members],
                })
        return available, unavailable

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
        import json

        entry = self.get_entry(name)
        if entry is None:
            return json.dumps({"error": f"Unknown tool: {name}"})
        try:
            # Any: whatever the handler returns is checked below, at run time.
            result: Any = entry.handler(args, **kwargs)
            if entry.is_async:
                result = _run_awaitable(result, name)
        except Exception as exc:
            _logger().exception("Tool '%s' raised", name)
            return json.dumps({"error": f"Tool execution failed: {type(exc).__name__}: {exc}"})
        return _result_within_contract(name, result)

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


# --------------------------------------------------------------------- helpers


def _caller_module() -> str:
    """The module of the code that called into the registry: the first frame outside the
    runtime's own modules (a subclass or the loader calling ``deregister`` is not the caller)."""
    frame: FrameType | None
    try:
        frame = sys._getframe(2)
    except ValueError:
        return ""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module not in RUNTIME_MODULES:
            return module if isinstance(module, str) else ""
        frame = frame.f_back
    return ""




def _defining_module(handler: object) -> str:
    """The module that defined ``handler``: its globals' ``__name__`` (a closure or lambda
    belongs to the module it was written in, whatever ``__module__`` says), else
    ``__module__``; a ``functools.partial`` is its function's."""
    while True:
        inner = getattr(handler, "func", None)
        if inner is None or not callable(inner) or type(handler).__name__ != "partial":
            break
        handler = inner
    namespace = getattr(handler, "__globals__", None)
    if isinstance(namespace, dict):
        module = namespace.get("__name__")
    else:
        module = getattr(handler, "__module__", None)
    return module if isinstance(module, str) else ""


def _definition_schema(entry: ToolEntry) -> dict[str, Any] | None:
    """The schema a definition starts from. A manifest entry may know it only once its module
    is imported (a hole in the frozen schema): its lazy handler says (None: the import failed,
    so the tool has no definition, as with import discovery)."""
    # Looked up on the type: a mock handler answers every attribute.
    from_manifest = getattr(type(entry.handler), "_manifest_schema", None)
    if from_manifest is None:
        return entry.schema
    schema: dict[str, Any] | None = from_manifest(entry.handler)
    return schema


def _check_key(fn: object) -> object:
    """The cache key of a check function: itself, or its id when it is not hashable."""
    try:
        hash(fn)
    except TypeError:
        return ("unhashable", id(fn))
    return fn


def _callable_name(fn: object) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


# --------------------------------------------------------------------- internals


def _check_schema_shape(name: str, schema: object) -> None:
    if not isinstance(schema, dict):
        raise TypeError(f"Tool '{name}': schema must be a dict, got {type(schema).__name__}")
    parameters = schema.get("parameters")
    if "parameters" in schema and not isinstance(parameters, dict):
        raise TypeError(
            f"Tool '{name}': schema['parameters'] must be a dict, got {type(parameters).__name__}"
        )


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


def _handler_module(handler: Callable[..., object]) -> str:
    # functools.partial and some callables carry no __module__: they match no policy.
    return getattr(handler, "__module__", None) or ""


_RETURNED_FALSE = "returned False"


def _probe(fn: Callable[[], object]) -> tuple[bool, str]:
    """``(bool(fn()), what went wrong)``; an exception is a failure, never raised."""
    try:
        return bool(fn()), _RETURNED_FALSE
    except Exception as exc:
        return False, f"raised {type(exc).__name__}: {exc}"


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


def _run_awaitable(awaitable: Awaitable[object], tool_name: str) -> object:
    """Run an async handler's awaitable to completion from synchronous code.

    With no event loop running in this thread, a fresh one (``asyncio.run``). With one running
    (dispatch called from async code), ``asyncio.run`` would refuse and waiting on that loop
    would deadlock it, so the coroutine gets a fresh loop in a worker thread; the caller's loop
    is blocked meanwhile, as with any synchronous call.
    """
    import asyncio

    coroutine = _as_coroutine(awaitable)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    return _run_in_worker_thread(coroutine, tool_name)


async def _as_coroutine(awaitable: Awaitable[object]) -> object:
    # asyncio.run() accepts only coroutines; a handler may return any awaitable (a Future,
    # an object with __await__).
    return await awaitable


def _run_in_worker_thread(coroutine: Coroutine[object, object, object], tool_name: str) -> object:
    import asyncio
    import threading

    outcome: dict[str, object] = {}
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller's thread below
            failure.append(exc)

    worker = threading.Thread(target=run, name=f"hermes-tool-{tool_name}", daemon=True)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome["value"]


def _is_multimodal_envelope(result: object) -> TypeGuard[dict[str, Any]]:
    return (
        isinstance(result, dict)
        and result.get("_multimodal") is True
        and isinstance(result.get("content"), list)
    )


def _result_within_contract(name: str, result: object) -> str | dict[str, Any]:
    if isinstance(result, str) or _is_multimodal_envelope(result):
        return result
    import json

    _close_if_coroutine(result)
    type_name = type(result).__name__
    _logger().error("Tool '%s' returned %s, expected a JSON string%s", name, type_name,
                    " (an async handler needs is_async=True)" if type_name == "coroutine" else "")
    return json.dumps({
        "error": f"Tool handler returned unsupported result type: {type_name}",
        "error_type": RESULT_CONTRACT_ERROR_TYPE,
        "tool": name,
        "result_type": type_name,
    }, ensure_ascii=False)


def _close_if_coroutine(result: object) -> None:
    # An un-awaited coroutine would otherwise emit "coroutine ... was never awaited" later,
    # far from the cause.
    import types

    if isinstance(result, types.CoroutineType):
        result.close()


registry = ToolRegistry()


def tool_error(message: object, **extra: object) -> str:
    """The standard error result: ``{"error": str(message), **extra}`` as JSON."""
    import json

    return json.dumps({"error": str(message), **extra}, ensure_ascii=False)


def tool_result(data: object = None, **fields: object) -> str:
    """The standard success result, as JSON.

    ``data`` None: just ``fields``; a dict: its keys merged with ``fields`` (``fields`` win on
    a clash); anything else: ``data`` itself, or ``{"result": data, **fields}`` when there are
    fields. ``tool_result({"path": p}, bytes=n)`` → ``{"path": p, "bytes": n}``;
    ``tool_result(42)`` → ``42``. (Upstream drops ``fields`` whenever ``data`` is given; here
    they are kept.)
    """
    import json

    payload: object
    if data is None:
        payload = dict(fields)
    elif isinstance(data, dict):
        payload = {**data, **fields}
    elif fields:
        payload = {"result": data, **fields}
    else:
        payload = data
    return json.dumps(payload, ensure_ascii=False)
