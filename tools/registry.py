"""The tool registry: one table of every tool the agent can call, and the dispatch into it.

Built-in tools register themselves: ``discover_builtin_tools()`` imports each ``tools/*.py`` whose
module body calls ``registry.register(...)`` at top level, and that import fills the module-level
``registry`` singleton. MCP servers and plugins write into the same table at run time, so every
mutation happens under one ``RLock`` and readers work on a snapshot taken under it.

Standard library only, and lean at import time: the runtime imports this module on every start,
so ``ast``, ``asyncio``, ``importlib``, ``json`` and ``hermes_lint.discovery`` are imported only
by the functions that need them (an ``import`` of a loaded module is a dict lookup).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

# A check_fn result is reused for this long, so that building the definitions every agent round
# does not re-run probes such as "is Docker up?".
CHECK_FN_TTL_SECONDS = 30.0
# Docker/playwright probes flap. For this long after the last successful probe a failing probe
# still reports the tool as available, so a sub-agent does not see a tool vanish mid-task.
CHECK_FN_GRACE_SECONDS = 60.0

# Toolsets of MCP servers. A server that re-lists its tools (notifications/tools/list_changed)
# registers them again under a fresh toolset, so MCP replacing MCP is a refresh, not a conflict.
MCP_TOOLSET_PREFIX = "mcp-"


def discover_builtin_tools(tools_dir=None) -> list[str]:
    """Import every tool module of ``tools_dir`` (default: this package) and return their names.

    A tool module is a ``*.py`` file that ``hermes_lint.discovery`` recognises (top-level
    ``registry.register(...)``; ``__init__.py``, ``registry.py`` and ``mcp_tool.py`` never are).
    Modules are imported as ``tools.<stem>`` in sorted file order. A module that fails to import
    is logged as a warning and skipped: one broken tool must not take the agent down.
    """
    import importlib
    from pathlib import Path

    from hermes_lint.discovery import candidate_tool_paths, module_registers_tools

    tools_path = Path(tools_dir) if tools_dir is not None else Path(__file__).resolve().parent
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
            logger.warning("Could not import tool module %s: %s", module_name, exc)
            continue
        imported.append(module_name)
    return imported


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
        self._lock = threading.RLock()
        self._tools: dict[str, ToolEntry] = {}
        self._generation = 0
        self._toolset_aliases: dict[str, str] = {}
        self._override_policies: dict[str, bool] = {}
        # Separate from _lock and never held while a probe runs: probes may be slow.
        self._check_lock = threading.Lock()
        self._check_states: dict[str, _CheckState] = {}

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
            logger.warning(
                "Tool '%s' (toolset '%s') overrides the same name in toolset '%s'",
                entry.name, entry.toolset, existing.toolset,
            )
            return True
        logger.error(
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
        import copy

        tools = self._snapshot()
        definitions = []
        seen: set[str] = set()
        for name in tool_names:
            entry = tools.get(name)
            if entry is None or name in seen or not self._check_fn_cached(entry):
                continue
            seen.add(name)
            function = copy.deepcopy(entry.schema)
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
            logger.debug("check_fn of tool '%s' failed; still available (grace window)",
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
            logger.exception("Tool '%s' raised", name)
            return tool_error(f"{type(exc).__name__}: {exc}")
        return _result_within_contract(name, result)


# --------------------------------------------------------------------- helpers


def _check_schema_shape(name: str, schema: object) -> None:
    if not isinstance(schema, dict):
        raise TypeError(f"Tool '{name}': schema must be a dict, got {type(schema).__name__}")
    parameters = schema.get("parameters")
    if "parameters" in schema and not isinstance(parameters, dict):
        raise TypeError(
            f"Tool '{name}': schema['parameters'] must be a dict, got {type(parameters).__name__}"
        )


def _handler_module(handler: Callable[..., object]) -> str:
    # functools.partial and some callables carry no __module__: they match no policy.
    return getattr(handler, "__module__", None) or ""


def _probe(entry: ToolEntry) -> bool:
    try:
        return bool(entry.check_fn())
    except Exception as exc:
        logger.warning("check_fn of tool '%s' raised %s: %s; treating the tool as unavailable",
                       entry.name, type(exc).__name__, exc)
        return False


def _dynamic_overrides(entry: ToolEntry) -> dict:
    if entry.dynamic_schema_overrides is None:
        return {}
    try:
        overrides = entry.dynamic_schema_overrides()
    except Exception as exc:
        logger.warning("dynamic_schema_overrides of tool '%s' raised %s: %s; using the static "
                       "schema", entry.name, type(exc).__name__, exc)
        return {}
    if not isinstance(overrides, dict):
        logger.warning("dynamic_schema_overrides of tool '%s' returned %s, expected a dict; "
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
    logger.error("Tool '%s' returned %s, expected a JSON string%s", name, type_name,
                 " (an async handler needs is_async=True)" if type_name == "coroutine" else "")
    return tool_error(f"Tool '{name}' returned {type_name}, expected a JSON string")


def _close_if_coroutine(result: object) -> None:
    # An un-awaited coroutine would otherwise emit "coroutine ... was never awaited" later,
    # far from the cause.
    import types

    if isinstance(result, types.CoroutineType):
        result.close()


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
