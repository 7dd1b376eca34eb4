"""The tool registry: one table of every tool the agent can call, and the dispatch into it.

Built-in tools register themselves: ``discover_builtin_tools()`` imports each ``tools/*.py`` whose
module body calls ``registry.register(...)`` at top level, and that import fills the module-level
``registry`` singleton. MCP servers and plugins write into the same table at run time, so every
mutation happens under one ``RLock`` and readers work on a snapshot taken under it.

Standard library only, and lean at start-up: the runtime imports this module on every start,
often with no ``.pyc`` to load, so ``ast``, ``asyncio``, ``copy``, ``importlib``, ``json``,
``logging``, ``pathlib``, ``threading`` and ``hermes_lint.discovery`` are imported only by the
functions that need them (an ``import`` of a loaded module is a dict lookup). Loading a fresh
manifest and building the definitions imports only ``json`` and ``hermes_lint.discovery``
(tests/runtime/test_load_manifest.py checks it).
"""

from __future__ import annotations

import _thread  # threading's own lock types, without importing threading
import os
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

# A check_fn result is reused for this long, so that building the definitions every agent round
# does not re-run probes such as "is Docker up?".
CHECK_FN_TTL_SECONDS = 30.0
# Docker/playwright probes flap. For this long after the last successful probe a failing probe
# still reports the tool as available, so a sub-agent does not see a tool vanish mid-task.
CHECK_FN_GRACE_SECONDS = 60.0

# Toolsets of MCP servers. A server that re-lists its tools (notifications/tools/list_changed)
# registers them again under a fresh toolset, so MCP replacing MCP is a refresh, not a conflict.
MCP_TOOLSET_PREFIX = "mcp-"

# The frozen manifest (``hermes-lint manifest``; format in hermes_lint/data/manifest.schema.json).
MANIFEST_FORMAT = "hermes-tool-manifest"
MANIFEST_FORMAT_VERSION = 1
MANIFEST_FILE_NAME = "manifest.json"
# "0" makes discover_builtin_tools ignore the manifest and import every tool module.
MANIFEST_ENV_VAR = "HERMES_TOOLS_MANIFEST"


def _logger():
    """The ``tools.registry`` logger, created when something is first logged: importing
    ``logging`` costs ~10 ms at start-up, and a healthy start logs nothing."""
    logger = globals().get("logger")
    if logger is None:
        import logging

        logger = globals()["logger"] = logging.getLogger(__name__)
    return logger


def __getattr__(name: str) -> object:
    # ``tools.registry.logger`` stays importable; it is made on first use (see ``_logger``).
    if name == "logger":
        return _logger()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def discover_builtin_tools(tools_dir=None, *, use_manifest: bool | None = None) -> list[str]:
    """Import every tool module of ``tools_dir`` (default: this package) and return their names.

    A tool module is a ``*.py`` file that ``hermes_lint.discovery`` recognises (top-level
    ``registry.register(...)``; ``__init__.py``, ``registry.py`` and ``mcp_tool.py`` never are).
    Modules are imported as ``tools.<stem>`` in sorted file order. A module that fails to import
    is logged as a warning and skipped: one broken tool must not take the agent down.

    When ``tools_dir`` holds a ``manifest.json`` (``hermes-lint manifest``), the module-level
    ``registry`` is filled from it instead (``ToolRegistry.load_manifest`` with
    ``fallback=True``): no module is imported before its first dispatch, stale modules are
    imported as here, and an unusable manifest falls back to this import discovery with a
    warning. The returned names are then the tool modules whose tools are registered, imported
    or not. ``use_manifest=False``, or the environment variable ``HERMES_TOOLS_MANIFEST=0``,
    turns the manifest off.
    """
    import importlib

    tools_path = _tools_dir_path(tools_dir)
    if use_manifest is None:
        use_manifest = os.environ.get(MANIFEST_ENV_VAR, "1") != "0"
    manifest_path = os.path.join(tools_path, MANIFEST_FILE_NAME)
    if use_manifest and os.path.isfile(manifest_path):
        # Looked up at call time: tests (and embedders) may swap the singleton.
        return registry.load_manifest(manifest_path, tools_dir=tools_path, fallback=True).modules

    from hermes_lint.discovery import candidate_tool_paths, module_registers_tools

    module_names = [
        f"tools.{path.stem}"
        for path in candidate_tool_paths(tools_path)
        if module_registers_tools(path)
    ]
    imported: list[str] = []
    for module_name in module_names:
        try:
            importlib.import_module(module_name)
        except Exception as exc:
            _logger().warning("Could not import tool module %s: %s", module_name, exc)
            continue
        imported.append(module_name)
    return imported


def _tools_dir_path(tools_dir) -> str:
    """``tools_dir`` as a path string; None is this package's directory."""
    if tools_dir is None:
        return os.path.dirname(os.path.realpath(__file__))
    return os.fspath(tools_dir)


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
        *,
        name: str,
        toolset: str,
        schema: dict,
        handler: Callable[..., object],
        check_fn: Callable[[], object] | None = None,
        requires_env: list[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        max_result_size_chars: int | None = None,
        dynamic_schema_overrides: Callable[[], dict] | None = None,
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


class _CheckState:
    """The cached outcome of one entry's check_fn (see ``ToolRegistry._check_fn_cached``)."""

    __slots__ = ("entry", "checked_at", "available", "last_success_at")

    def __init__(self, entry: ToolEntry, checked_at: float, available: bool,
                 last_success_at: float | None) -> None:
        # The entry itself, not its name: a re-registered tool must not inherit the old probe.
        self.entry = entry
        self.checked_at = checked_at
        self.available = available
        self.last_success_at = last_success_at


class ToolRegistry:
    """Name → ``ToolEntry`` table shared by built-in tools, MCP servers and plugins.

    ``allow_tool_override`` is the operator's consent for ``register(..., override=True)`` to
    replace a tool of another toolset. ``clock`` (seconds, monotonic) drives the check_fn cache;
    tests inject a fake one.

    Manifest loading (``load_manifest(path)``, DESIGN §2) is a later addition: it builds entries
    and stores them through ``_add_entry`` so that the same conflict rules apply.
    """

    def __init__(self, *, allow_tool_override: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.allow_tool_override = allow_tool_override
        self._clock = clock
        # Re-entrant: a plugin's registration hook may register further tools.
        self._lock = _thread.RLock()
        self._tools: dict[str, ToolEntry] = {}
        self._generation = 0
        self._toolset_aliases: dict[str, str] = {}
        self._override_policies: dict[str, bool] = {}
        # Separate from _lock and never held while a probe runs: probes may be slow.
        self._check_lock = _thread.allocate_lock()
        self._check_states: dict[str, _CheckState] = {}
        # Serialises the import of a manifest tool's module (see _materialize); re-entrant
        # because the import registers into this registry.
        self._materialize_lock = _thread.RLock()

    # ----------------------------------------------------------------- mutation

    def register(
        self,
        name: str,
        toolset: str,
        schema: dict,
        handler: Callable[..., object],
        check_fn: Callable[[], object] | None = None,
        requires_env: list[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        max_result_size_chars: int | None = None,
        dynamic_schema_overrides: Callable[[], dict] | None = None,
        override: bool = False,
    ) -> None:
        """Add a tool, or replace it when the rules allow.

        - same name, same toolset: replaced (a module reloaded, a tool re-registered);
        - same name, another toolset: rejected with an error log, the first one stays; except
          when both toolsets start with ``mcp-`` (an MCP refresh replaces it), or with
          ``override=True`` when permitted (see ``register_plugin_override_policy``), else
          ``PermissionError``.

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
        """Remove a tool; False when no tool has that name."""
        with self._lock:
            removed = self._tools.pop(name, None)
            if removed is None:
                return False
            self._generation += 1
        self._forget_check_state(name)
        return True

    def register_toolset_alias(self, alias: str, toolset: str) -> None:
        """Let ``alias`` stand for ``toolset`` (e.g. ``"foo"`` for ``"mcp-foo"``) in lookups."""
        with self._lock:
            self._toolset_aliases[alias] = toolset
            self._generation += 1

    def register_plugin_override_policy(self, module_namespace: str, allowed: bool) -> None:
        """Decide whether handlers from ``module_namespace`` may use ``override=True``.

        Semantics: the handler's ``__module__`` matches a namespace when it equals it or starts
        with it followed by a dot (``"plugins.acme"`` matches ``plugins.acme.tools`` but not
        ``plugins.acme_evil``). The most specific (longest) matching namespace decides, and its
        decision stands in both directions: ``allowed=True`` permits the override even when the
        operator's ``allow_tool_override`` is off, ``allowed=False`` forbids it even when that
        flag is on. With no matching policy, the operator's flag decides. Policies only matter
        for ``override=True``; without it a cross-toolset registration is always rejected.
        """
        with self._lock:
            self._override_policies[module_namespace] = bool(allowed)

    def _add_entry(self, entry: ToolEntry, *, override: bool) -> bool:
        """Store ``entry`` under the conflict rules of ``register``; True when stored."""
        with self._lock:
            existing = self._tools.get(entry.name)
            if existing is not None and existing.toolset != entry.toolset:
                if not self._may_replace(existing, entry, override):
                    return False
            self._tools[entry.name] = entry
            self._generation += 1
        self._forget_check_state(entry.name)
        return True

    def _may_replace(self, existing: ToolEntry, entry: ToolEntry, override: bool) -> bool:
        """Conflict between toolsets: True to replace, False to reject; may raise."""
        if existing.toolset.startswith(MCP_TOOLSET_PREFIX) and entry.toolset.startswith(
            MCP_TOOLSET_PREFIX
        ):
            return True
        if override:
            if not self._override_permitted(entry.handler):
                raise PermissionError(
                    f"Tool '{entry.name}' (toolset '{entry.toolset}') may not override the same "
                    f"name in toolset '{existing.toolset}': allow_tool_override is off and no "
                    f"plugin override policy allows module '{_handler_module(entry.handler)}'"
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

    def _override_permitted(self, handler: Callable[..., object]) -> bool:
        module = _handler_module(handler)
        matching = [
            namespace
            for namespace in self._override_policies
            if module == namespace or module.startswith(namespace + ".")
        ]
        if not matching:
            return self.allow_tool_override
        return self._override_policies[max(matching, key=len)]

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
        return sorted(self._snapshot())

    def get_tool_names_for_toolset(self, toolset: str) -> list[str]:
        """Sorted names registered under ``toolset`` or under the toolset it is an alias of."""
        with self._lock:
            canonical = self._toolset_aliases.get(toolset, toolset)
            entries = list(self._tools.values())
        return sorted(entry.name for entry in entries if entry.toolset == canonical)

    def get_definitions(self, tool_names) -> list[dict]:
        """Provider-ready definitions of the available tools among ``tool_names``.

        In the given order; unknown names, repeated names and tools whose check_fn fails are
        left out. Each definition is ``{"type": "function", "function": {...}}`` where the
        function dict is a deep copy of the schema, with ``dynamic_schema_overrides()`` merged
        over its top-level keys (an override that raises or returns a non-dict is logged and the
        static schema is used) and ``name`` always the registered name.
        """
        tools = self._snapshot()
        definitions = []
        seen: set[str] = set()
        for name in tool_names:
            entry = tools.get(name)
            if entry is None or name in seen or not self._check_fn_cached(entry):
                continue
            seen.add(name)
            function = _copy_schema(entry.schema)
            function.update(_dynamic_overrides(entry))
            function["name"] = entry.name
            definitions.append({"type": "function", "function": function})
        return definitions

    def _snapshot(self) -> dict[str, ToolEntry]:
        # Readers copy the table under the lock, then work without it: MCP refreshes may
        # mutate it from another thread at any moment.
        with self._lock:
            return dict(self._tools)

    # ----------------------------------------------------------------- availability

    def _check_fn_cached(self, entry: ToolEntry) -> bool:
        """Whether ``entry`` is available, probing its check_fn at most once per TTL.

        No check_fn: available. A check_fn that raises counts as False (logged). A failing
        probe within ``CHECK_FN_GRACE_SECONDS`` of the last successful one still answers True.
        """
        if entry.check_fn is None:
            return True
        now = self._clock()
        with self._check_lock:
            state = self._check_states.get(entry.name)
        if state is not None and state.entry is not entry:
            state = None
        if state is not None and now - state.checked_at < CHECK_FN_TTL_SECONDS:
            return state.available
        passed = _probe(entry)
        last_success_at = now if passed else (state.last_success_at if state else None)
        in_grace = last_success_at is not None and now - last_success_at < CHECK_FN_GRACE_SECONDS
        available = passed or in_grace
        if not passed and in_grace:
            _logger().debug("check_fn of tool '%s' failed; still available (grace window)",
                            entry.name)
        with self._check_lock:
            self._check_states[entry.name] = _CheckState(entry, now, available, last_success_at)
        return available

    def _forget_check_state(self, name: str) -> None:
        with self._check_lock:
            self._check_states.pop(name, None)

    # ----------------------------------------------------------------- dispatch

    def dispatch(self, name: str, args: dict, **kwargs) -> str | dict:
        """Run tool ``name`` as ``handler(args, **kwargs)`` and return its result.

        Always returns a JSON string, except the multimodal envelope
        ``{"_multimodal": True, "content": [...]}``, which passes through as the dict it is.
        Unknown tool, an exception (logged with its traceback) or a result of another type
        become ``{"error": ...}`` JSON. ``is_async`` handlers return an awaitable that the
        registry runs (handlers never call ``asyncio.run`` themselves).
        """
        entry = self.get_entry(name)
        if entry is None:
            return tool_error(f"Unknown tool: {name}")
        try:
            result = entry.handler(args, **kwargs)
            if entry.is_async:
                result = _run_awaitable(result, name)
        except Exception as exc:
            _logger().exception("Tool '%s' raised", name)
            return tool_error(f"{type(exc).__name__}: {exc}")
        return _result_within_contract(name, result)

    # ----------------------------------------------------------------- manifest

    def load_manifest(self, path, *, tools_dir=None, fallback: bool = False) -> "ManifestLoad":
        """Fill the table from a manifest written by ``hermes-lint manifest``, importing nothing.

        Every tool of a frozen module gets a lazy entry: schema, description and flags from the
        manifest; the handler imports the tool's module on the first ``dispatch`` (its own
        ``register`` call then replaces the lazy entry in the same toolset); a check recorded as
        ``always``/``env``/``module`` is evaluated here, one of kind ``import`` (or a tool with
        ``dynamic_schema_overrides``) imports the module when definitions are first requested.

        ``tools_dir`` (default: this package's directory) holds the tool modules. A module whose
        file changed, appeared or disappeared since the manifest was generated is stale: one
        warning names those files, and they are handled as ``discover_builtin_tools`` would
        (imported when they register tools) while the rest still comes from the manifest.
        Modules the manifest lists as ``import_only`` are imported too, in file order.

        ``ManifestError`` for a manifest that is missing, unreadable, corrupt, truncated, of
        another format or a newer version, or that names a module outside the tools package;
        the registry is then untouched. With ``fallback=True`` that is a warning instead, and
        every tool module is imported (``discover_builtin_tools(tools_dir, use_manifest=False)``).

        Imported modules register through the module-level ``registry``, as tool modules always
        do, so that is the registry to load a manifest into (``discover_builtin_tools`` does).
        Another registry still works: a lazy tool then adopts the module's entry, or rebuilds it
        from the manifest's handler reference.
        """
        tools_path = _tools_dir_path(tools_dir)
        try:
            plan = _ManifestPlan.read(path)
            files = plan.files_on_disk(tools_path)
        except ManifestError as exc:
            if not fallback:
                raise
            _logger().warning("%s; falling back to importing every tool module", exc)
            imported = discover_builtin_tools(tools_path, use_manifest=False)
            return ManifestLoad(str(path), imported, [], imported, [], fallback=True)
        return self._fill_from_plan(plan, files, str(path))

    def _fill_from_plan(self, plan: "_ManifestPlan", files, path: str) -> "ManifestLoad":
        from hermes_lint.discovery import module_registers_tools

        stale = plan.stale_files(files)
        if stale:
            _logger().warning(
                "Tool manifest %s is stale for %s; importing those modules instead "
                "(regenerate it with `hermes-lint manifest`)",
                path, ", ".join(f"{name} ({why})" for name, why in stale),
            )
        stale_names = {name for name, _ in stale}
        modules: list[str] = []
        loaded: list[str] = []
        imported: list[str] = []
        for file_path, recorded in files:
            module_name = f"{plan.package}.{os.path.basename(file_path)[:-3]}"
            if recorded in stale_names:
                if module_registers_tools(file_path) and _import_tool_module(module_name):
                    modules.append(module_name)
                    imported.append(module_name)
            elif module_name in plan.modules:
                added = self._add_manifest_module(plan, module_name)
                loaded.extend(added)
                modules.append(module_name)
            elif module_name in plan.import_only:
                if _import_tool_module(module_name):
                    modules.append(module_name)
                    imported.append(module_name)
        return ManifestLoad(path, modules, loaded, imported, [name for name, _ in stale])

    def _add_manifest_module(self, plan: "_ManifestPlan", module_name: str) -> list[str]:
        """Lazy entries for one frozen module, in registration order; like an import, a
        ``PermissionError`` (an override not allowed) stops the module's remaining tools."""
        added = []
        for tool in plan.module_tools(module_name):
            with self._lock:
                existing = self._tools.get(tool["name"])
            if (
                existing is not None
                and existing.toolset == tool["toolset"]
                and not isinstance(existing.handler, _LazyHandler)
                and _handler_module(existing.handler) == module_name
            ):
                added.append(tool["name"])
                continue  # the module is imported already: keep its real entry
            try:
                if self._add_entry(_lazy_entry(self, tool), override=tool["override"]):
                    added.append(tool["name"])
            except PermissionError as exc:
                _logger().warning("Could not import tool module %s: %s", module_name, exc)
                break
        return added

    def _materialize(self, lazy: "_LazyTool") -> ToolEntry:
        """Import a lazy tool's module and return the tool's real entry.

        The import runs the module's ``registry.register(...)``, which replaces the lazy entry
        (same toolset). When it registered elsewhere (this is not the module-level registry) or
        the module was imported before, the entry is adopted from the module-level registry,
        else rebuilt from the manifest's handler reference. ``ImportError`` and friends
        propagate: ``dispatch`` turns them into an ``{"error": ...}`` result.
        """
        import importlib

        with self._materialize_lock:
            current = self.get_entry(lazy.name)
            if current is not None and current.handler is not lazy.handler:
                return current
            module = importlib.import_module(lazy.module)
            current = self.get_entry(lazy.name)
            if current is not None and current.handler is not lazy.handler:
                return current
            real = _adopt_entry(self, lazy, module)
            if real is None:
                raise LookupError(
                    f"tool module {lazy.module} was imported but registered no tool "
                    f"'{lazy.name}' in toolset '{lazy.toolset}' (the tool manifest is out of date)"
                )
            if current is not None:
                self._add_entry(real, override=lazy.override)
            return real


# --------------------------------------------------------------------- helpers


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


def _copy_schema(schema: dict) -> dict:
    """A deep copy of ``schema``. JSON-shaped data (dicts, lists and scalars, as every manifest
    schema and nearly every registered one is) is copied directly, ~7× faster than
    ``copy.deepcopy``; anything else (a tuple, another object, a cycle) goes to ``deepcopy``."""
    try:
        return _copy_json(schema)
    except (_NotJSON, RecursionError):
        import copy

        return copy.deepcopy(schema)


def _copy_json(value: object) -> object:
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


def _probe(entry: ToolEntry) -> bool:
    try:
        return bool(entry.check_fn())
    except Exception as exc:
        _logger().warning("check_fn of tool '%s' raised %s: %s; treating the tool as unavailable",
                          entry.name, type(exc).__name__, exc)
        return False


def _dynamic_overrides(entry: ToolEntry) -> dict:
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


def _run_awaitable(awaitable: object, tool_name: str) -> object:
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


async def _as_coroutine(awaitable: object) -> object:
    # asyncio.run() accepts only coroutines; a handler may return any awaitable (a Future,
    # an object with __await__).
    return await awaitable


def _run_in_worker_thread(coroutine, tool_name: str) -> object:
    import asyncio
    import threading

    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller's thread below
            outcome["error"] = exc

    worker = threading.Thread(target=run, name=f"hermes-tool-{tool_name}", daemon=True)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _is_multimodal_envelope(result: object) -> bool:
    return (
        isinstance(result, dict)
        and result.get("_multimodal") is True
        and isinstance(result.get("content"), list)
    )


def _result_within_contract(name: str, result: object) -> str | dict:
    if isinstance(result, str) or _is_multimodal_envelope(result):
        return result
    _close_if_coroutine(result)
    type_name = type(result).__name__
    _logger().error("Tool '%s' returned %s, expected a JSON string%s", name, type_name,
                    " (an async handler needs is_async=True)" if type_name == "coroutine" else "")
    return tool_error(f"Tool '{name}' returned {type_name}, expected a JSON string")


def _close_if_coroutine(result: object) -> None:
    # An un-awaited coroutine would otherwise emit "coroutine ... was never awaited" later,
    # far from the cause.
    import types

    if isinstance(result, types.CoroutineType):
        result.close()


# --------------------------------------------------------------------- manifest


class ManifestError(Exception):
    """A tool manifest that cannot be used: missing, unreadable, corrupt, truncated, of another
    format or a newer version, or naming a module outside the tools package."""


class ManifestLoad:
    """What ``load_manifest`` did.

    ``modules``: the tool modules whose tools are now registered, in file order (what
    ``discover_builtin_tools`` returns); ``tools``: the names registered lazily from the
    manifest; ``imported``: modules imported while loading (stale, import-only, or all of them
    after a fallback); ``stale``: the files that did not match the manifest.
    """

    __slots__ = ("path", "modules", "tools", "imported", "stale", "fallback")

    def __init__(self, path: str, modules: list[str], tools: list[str], imported: list[str],
                 stale: list[str], fallback: bool = False) -> None:
        self.path = path
        self.modules = modules
        self.tools = tools
        self.imported = imported
        self.stale = stale
        self.fallback = fallback

    def __repr__(self) -> str:
        return (f"ManifestLoad(tools={len(self.tools)}, imported={self.imported!r}, "
                f"stale={self.stale!r}, fallback={self.fallback})")


# The package tool modules live in: the manifest may name modules of this package only.
_PACKAGE = __name__.rpartition(".")[0] or "tools"
_HEX = frozenset("0123456789abcdef")
_CHECK_KINDS = ("always", "env", "module", "import")


class _ManifestPlan:
    """A manifest read and fully validated before anything is registered.

    The manifest is data, never a way to import code: modules must be ``<package>.<stem>`` for a
    file ``<tools_dir>/<stem>.py`` that discovery could import (not ``os``, not ``../x``, not
    ``tools.x.y``, not ``tools.registry``); handler and check references are dotted attribute
    names looked up on such a module after it is imported; nothing else is ever imported
    except a ``module`` check's ``importlib.util.find_spec`` probe, which locates but does not
    import.
    """

    __slots__ = ("where", "package", "tools_dir", "sources", "modules", "import_only", "tools")

    @classmethod
    def read(cls, path) -> "_ManifestPlan":
        import json

        where = f"Tool manifest {path}"
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except OSError as exc:
            raise ManifestError(f"{where} cannot be read: {exc.strerror or exc}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ManifestError(f"{where} is corrupt: it is not UTF-8 text") from None
        try:
            data = json.loads(text)
        except RecursionError:
            raise ManifestError(f"{where} is corrupt: nested too deeply") from None
        except ValueError as exc:
            # A manifest is one JSON object: text that stops before its closing brace was cut.
            end = text.rstrip()
            truncated = getattr(exc, "msg", "") != "Extra data" and (  # trailing garbage: corrupt
                getattr(exc, "pos", 0) >= len(end) or not end.endswith("}")
            )
            state = "is truncated" if truncated else "is corrupt"
            detail = getattr(exc, "msg", str(exc))
            raise ManifestError(
                f"{where} {state}: not valid JSON ({detail} at line {getattr(exc, 'lineno', 1)} "
                f"column {getattr(exc, 'colno', 1)})"
            ) from None
        return cls(where, data)

    def __init__(self, where: str, data: object) -> None:
        self.where = where
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ManifestError(
                f"{where} is not a hermes tool manifest (format {found!r}, "
                f"expected {MANIFEST_FORMAT!r})"
            )
        version = data.get("format_version")
        if type(version) is not int or version < 1:
            self._corrupt(f"format_version {version!r} is not a positive integer")
        if version > MANIFEST_FORMAT_VERSION:
            raise ManifestError(
                f"{where} has format version {version}, newer than this runtime reads "
                f"({MANIFEST_FORMAT_VERSION}): upgrade the runtime, or regenerate the manifest "
                "with the matching `hermes-lint manifest`"
            )
        self.package = data.get("package")
        if self.package != _PACKAGE:
            self._refuse(f"it is for package {self.package!r}, not this runtime's {_PACKAGE!r}")
        self.tools_dir = self._relative_path(data.get("tools_dir"), "tools_dir")
        self.sources = self._mapping(data, "sources")
        for source, digest in self.sources.items():
            self._relative_path(source, "a sources path")
            if not (isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX):
                self._corrupt(f"sources[{source!r}] is not a sha256 hex digest")
        self.modules = self._mapping(data, "modules")
        self.import_only = self._mapping(data, "import_only")
        for key, records in (("modules", self.modules), ("import_only", self.import_only)):
            for module, record in records.items():
                self._check_module(module, record, key)
        both = set(self.modules) & set(self.import_only)
        if both:
            self._corrupt(f"module {sorted(both)[0]!r} is both frozen and import-only")
        self.tools = self._mapping(data, "tools")
        for name, tool in self.tools.items():
            self._check_tool(name, tool)
        for module, record in self.modules.items():
            names = record.get("tools")
            if not isinstance(names, list) or not all(
                isinstance(n, str) and self.tools.get(n, {}).get("module") == module for n in names
            ):
                self._corrupt(f"modules[{module!r}].tools does not list that module's tools")
        listed = {n for record in self.modules.values() for n in record["tools"]}
        unlisted = sorted(set(self.tools) - listed)
        if unlisted:
            self._corrupt(f"tool {unlisted[0]!r} is not listed by its module")

    # --- validation helpers ---------------------------------------------------------------

    def _corrupt(self, what: str) -> None:
        raise ManifestError(f"{self.where} is corrupt: {what}")

    def _refuse(self, what: str) -> None:
        raise ManifestError(f"{self.where} is refused: {what}")

    def _mapping(self, data: dict, key: str) -> dict:
        value = data.get(key)
        if not isinstance(value, dict):
            self._corrupt(f"{key!r} is missing or not an object")
        return value

    def _relative_path(self, value: object, what: str) -> str:
        parts = value.split("/") if isinstance(value, str) else []
        if not parts or any(p in ("", ".", "..") or "\\" in p or ":" in p for p in parts):
            self._refuse(f"{what} {value!r} is not a plain relative path inside the project")
        return value

    def _check_module(self, module: object, record: object, key: str) -> None:
        from hermes_lint.discovery import SKIPPED_FILE_NAMES

        prefix = self.package + "."
        stem = module[len(prefix):] if isinstance(module, str) and module.startswith(prefix) else ""
        if not stem.isidentifier() or f"{stem}.py" in SKIPPED_FILE_NAMES:
            self._refuse(
                f"it names module {module!r}, which is not a tool module of the "
                f"{self.package!r} package ({self.package}.<name> for {self.tools_dir}/<name>.py)"
            )
        if not isinstance(record, dict):
            self._corrupt(f"{key}[{module!r}] is not an object")
        expected = f"{self.tools_dir}/{stem}.py"
        if record.get("path") != expected:
            self._refuse(f"module {module!r} is recorded at {record.get('path')!r}, not {expected!r}")
        if expected not in self.sources:
            self._corrupt(f"module {module!r} has no source hash")

    def _check_tool(self, name: str, tool: object) -> None:
        if not isinstance(tool, dict) or tool.get("name") != name or not name:
            self._corrupt(f"tools[{name!r}] is not a tool of that name")
        fields = {
            "toolset": str, "module": str, "schema": dict, "requires_env": list,
            "override": bool, "dynamic_schema_overrides": bool, "check": dict,
        }
        for field, kind in fields.items():
            if not isinstance(tool.get(field), kind):
                self._corrupt(f"tools[{name!r}].{field} is missing or not a {kind.__name__}")
        for field in ("description", "emoji", "is_async", "max_result_size_chars"):
            if field not in tool:
                self._corrupt(f"tools[{name!r}].{field} is missing")
        if tool["module"] not in self.modules:
            self._corrupt(f"tools[{name!r}].module {tool['module']!r} is not a frozen module")
        if "parameters" in tool["schema"] and not isinstance(tool["schema"]["parameters"], dict):
            self._corrupt(f"tools[{name!r}].schema.parameters is not an object")
        handler = tool.get("handler")
        if handler != "via import":
            # A plain name only: a dotted path could reach another module through the tool
            # module's imports (`os.system`).
            if not isinstance(handler, dict) or handler.get("module") != tool["module"] or not _is_name(
                handler.get("qualname")
            ):
                self._refuse(f"tools[{name!r}].handler is not a function of module {tool['module']!r}")
        check = tool["check"]
        kind = check.get("kind")
        if kind not in _CHECK_KINDS:
            self._corrupt(f"tools[{name!r}].check has an unknown kind {kind!r}")
        if kind == "env":
            for key in ("all", "present"):
                names = check.get(key, [])
                if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                    self._corrupt(f"tools[{name!r}].check.{key} is not a list of variable names")
        elif kind == "module" and not _is_name(check.get("name")):
            # Top-level only: find_spec("a.b") would import `a`.
            self._refuse(f"tools[{name!r}].check.name {check.get('name')!r} is not a top-level module name")
        elif kind == "import" and "function" in check and not _is_name(check["function"]):
            self._refuse(f"tools[{name!r}].check.function {check['function']!r} is not a function name")

    # --- use ------------------------------------------------------------------------------

    def files_on_disk(self, tools_path: str) -> list[tuple[str, str]]:
        """``(path, manifest-relative name)`` of each candidate tool file, in discovery order."""
        from hermes_lint.discovery import candidate_tool_file_names

        prefix = self.tools_dir + "/"
        return [
            (os.path.join(tools_path, name), prefix + name)
            for name in candidate_tool_file_names(tools_path)
        ]

    def stale_files(self, files) -> list[tuple[str, str]]:
        """``(name, why)`` for each tool file that is not as the manifest recorded it."""
        prefix = self.tools_dir + "/"
        recorded = {
            name: digest
            for name, digest in self.sources.items()
            if name.startswith(prefix) and "/" not in name[len(prefix):]
        }
        stale: list[tuple[str, str]] = []
        contents: list[tuple[str, str, bytes]] = []
        for path, name in files:
            expected = recorded.pop(name, None)
            if expected is None:
                stale.append((name, "added"))
                continue
            try:
                contents.append((name, expected, _read_bytes(path)))
            except OSError:
                stale.append((name, "unreadable"))
        sha256 = _sha256_for(sum(len(data) for _, _, data in contents))
        stale.extend(
            (name, "changed") for name, expected, data in contents if sha256(data).hexdigest() != expected
        )
        stale.extend((name, "removed") for name in sorted(recorded))
        return stale

    def module_tools(self, module: str) -> list[dict]:
        return [self.tools[name] for name in self.modules[module]["tools"]]


def _read_bytes(path: str) -> bytes:
    """The file's contents; ``os.read`` on the descriptor is about twice as fast as ``open()``
    and its buffered reader for the many small files that every start-up hashes."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        chunks = [os.read(fd, os.fstat(fd).st_size + 1)]
        while chunks[-1]:  # a file that grew since fstat, or a short read
            chunks.append(os.read(fd, 1 << 16))
    finally:
        os.close(fd)
    return b"".join(chunks)


def _sha256_for(total_bytes: int):
    """A sha256 constructor. ``hashlib`` loads OpenSSL (~10 ms at start-up, cold); for the few
    hundred kilobytes of a typical tools directory the interpreter's built-in implementation is
    faster overall, for megabytes OpenSSL's speed wins."""
    import sys

    if "hashlib" not in sys.modules and total_bytes < 1_000_000:
        for builtin in ("_sha2", "_sha256"):  # _sha2 since Python 3.12
            try:
                return __import__(builtin).sha256
            except ImportError:
                continue
    import hashlib

    return hashlib.sha256


def _is_name(value: object) -> bool:
    return isinstance(value, str) and value.isidentifier()


class _LazyTool:
    """A manifest tool whose module is not imported yet: what its lazy callables share."""

    __slots__ = ("registry", "name", "toolset", "module", "qualname", "check", "override",
                 "dynamic", "handler", "entry", "check_fn")

    def __init__(self, registry: ToolRegistry, tool: dict) -> None:
        self.registry = registry
        self.name = tool["name"]
        self.toolset = tool["toolset"]
        self.module = tool["module"]
        handler = tool["handler"]
        self.qualname = handler["qualname"] if isinstance(handler, dict) else None
        self.check = tool["check"]
        self.override = tool["override"]
        self.dynamic = tool["dynamic_schema_overrides"]
        self.handler = _LazyHandler(self)
        self.entry: ToolEntry | None = None
        self.check_fn: Callable[[], object] | None = None


class _LazyHandler:
    """Imports the tool's module on the first call, then runs the real handler."""

    def __init__(self, lazy: _LazyTool) -> None:
        self._lazy = lazy
        # Plugin override policies match on the handler's module.
        self.__module__ = lazy.module
        self.__qualname__ = self.__name__ = lazy.qualname or f"<{lazy.name}>"

    def __call__(self, args, **kwargs):
        entry = self._lazy.registry._materialize(self._lazy)
        return entry.handler(args, **kwargs)

    def __repr__(self) -> str:
        return f"<lazy handler of tool '{self._lazy.name}' from {self._lazy.module}>"


class _ImportingCheck:
    """A check of kind ``import``: imports the module, then runs the real check_fn."""

    __slots__ = ("lazy",)

    def __init__(self, lazy: _LazyTool) -> None:
        self.lazy = lazy

    def __call__(self) -> object:
        entry = self.lazy.registry._materialize(self.lazy)
        return entry.check_fn() if entry.check_fn is not None else True


class _LazyOverrides:
    """``dynamic_schema_overrides`` of a manifest tool: only the imported module knows them."""

    __slots__ = ("lazy",)

    def __init__(self, lazy: _LazyTool) -> None:
        self.lazy = lazy

    def __call__(self) -> dict:
        entry = self.lazy.registry._materialize(self.lazy)
        overrides = entry.dynamic_schema_overrides
        return overrides() if overrides is not None else {}


def _always_available() -> bool:
    return True


class _EnvCheck:
    """``{"kind": "env"}``: every ``all`` variable set and non-empty (``bool(os.getenv(X))``),
    every ``present`` variable set (``X in os.environ``)."""

    __slots__ = ("nonempty", "present")

    def __init__(self, nonempty: list[str], present: list[str]) -> None:
        self.nonempty = tuple(nonempty)
        self.present = tuple(present)

    def __call__(self) -> bool:
        environ = os.environ
        return all(environ.get(name) for name in self.nonempty) and all(
            name in environ for name in self.present
        )


class _ModuleCheck:
    """``{"kind": "module"}``: ``importlib.util.find_spec(name) is not None``, as the check did."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self) -> bool:
        import importlib.util

        return importlib.util.find_spec(self.name) is not None


def _lazy_entry(registry: ToolRegistry, tool: dict) -> ToolEntry:
    lazy = _LazyTool(registry, tool)
    check = tool["check"]
    kind = check["kind"]
    if kind == "always":
        check_fn: Callable[[], object] = _always_available
    elif kind == "env":
        check_fn = _EnvCheck(check.get("all", []), check.get("present", []))
    elif kind == "module":
        check_fn = _ModuleCheck(check["name"])
    else:
        check_fn = _ImportingCheck(lazy)
    entry = ToolEntry(
        name=lazy.name,
        toolset=lazy.toolset,
        schema=tool["schema"],
        handler=lazy.handler,
        check_fn=check_fn,
        requires_env=tool["requires_env"],
        is_async=tool["is_async"],
        description=tool["description"],
        emoji=tool["emoji"],
        max_result_size_chars=tool["max_result_size_chars"],
        dynamic_schema_overrides=_LazyOverrides(lazy) if lazy.dynamic else None,
    )
    lazy.entry = entry
    lazy.check_fn = check_fn
    return entry


def _adopt_entry(reg: ToolRegistry, lazy: _LazyTool, module: object) -> ToolEntry | None:
    """The real entry of a lazy tool whose module's import did not register into ``reg``."""
    shared = globals().get("registry")
    if shared is not None and shared is not reg:
        entry = shared.get_entry(lazy.name)
        if (
            entry is not None
            and entry.toolset == lazy.toolset
            and not isinstance(entry.handler, _LazyHandler)
            and _handler_module(entry.handler) == lazy.module
        ):
            return ToolEntry(**{slot: getattr(entry, slot) for slot in ToolEntry.__slots__})
    if lazy.qualname is None or lazy.dynamic or lazy.entry is None:
        return None
    handler = _resolve_qualname(module, lazy.qualname)
    check_fn = lazy.check_fn
    if isinstance(check_fn, _ImportingCheck):
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
    target = getattr(module, qualname, None)
    if not callable(target) or getattr(target, "__module__", None) != getattr(module, "__name__", ""):
        return None
    return target


def _import_tool_module(module_name: str) -> bool:
    """Import one tool module as discovery does: a failure is a logged warning."""
    import importlib

    try:
        importlib.import_module(module_name)
    except Exception as exc:
        _logger().warning("Could not import tool module %s: %s", module_name, exc)
        return False
    return True


registry = ToolRegistry()


def tool_error(message: str, **extra: object) -> str:
    """The standard error result: ``{"error": message, **extra}`` as JSON."""
    import json

    return json.dumps({"error": message, **extra}, ensure_ascii=False)


def tool_result(data: object = None, **fields: object) -> str:
    """The standard success result, as JSON.

    ``data`` a dict: its keys merged with ``fields`` (``fields`` win on a clash);
    ``data`` None: just ``fields``; anything else: ``{"result": data, **fields}``.
    ``tool_result({"path": p}, bytes=n)`` → ``{"path": p, "bytes": n}``;
    ``tool_result(42)`` → ``{"result": 42}``.
    """
    import json

    if data is None:
        payload = dict(fields)
    elif isinstance(data, dict):
        payload = {**data, **fields}
    else:
        payload = {"result": data, **fields}
    return json.dumps(payload, ensure_ascii=False)
