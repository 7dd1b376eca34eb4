"""Who may replace or remove a tool: the plugin override policy of ``tools.registry``.

Consulted only when a registration conflicts with another toolset's tool, or when a tool is
removed; kept out of ``tools.registry``, which every start compiles (often without a ``.pyc``).
Plugin code is code defined in a module that equals a namespace recorded by
``register_plugin_override_policy`` or starts with it followed by a dot (``"plugins.acme"``
covers ``plugins.acme.tools`` but not ``plugins.acme_evil``; the longest recorded namespace is
the owner), or any module under ``hermes_plugins.`` (owner ``hermes_plugins.<plugin>``). A
handler belongs to the module that defined it (its ``__globals__``, else ``__module__``);
``deregister`` asks ``ToolRegistry._caller_module()`` for the calling module. For plugin code,
replacing (``override=True``) or removing a tool it does not own needs its policy's
``allowed=True``; with no recorded decision, the registry's ``allow_tool_override`` decides.
Other code keeps upstream's rule: ``override=True`` is its opt-in.
"""

from __future__ import annotations

import sys

from tools.registry import MCP_TOOLSET_PREFIX, PLUGIN_PACKAGE_PREFIX, RUNTIME_MODULES, _logger

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from types import FrameType

    from tools.registry import ToolEntry, ToolRegistry


def may_replace(registry: ToolRegistry, existing: ToolEntry, entry: ToolEntry, override: bool) -> bool:
    """Conflict between toolsets: True to replace, False to reject; may raise."""
    if existing.toolset.startswith(MCP_TOOLSET_PREFIX) and entry.toolset.startswith(
        MCP_TOOLSET_PREFIX
    ):
        return True
    if override:
        owner = plugin_owner_of(registry, entry.handler)
        if owner is not None and not plugin_permitted(registry, owner):
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


def check_may_remove(registry: ToolRegistry, entry: ToolEntry) -> None:
    """``PermissionError`` when the calling code is a plugin that may not remove ``entry``."""
    caller = registry._caller_module()
    plugin = plugin_namespace(registry, caller)
    if plugin is None or plugin == plugin_owner_of(registry, entry.handler):
        return
    if plugin_permitted(registry, plugin):
        return
    _logger().error(
        "Tool deregistration REJECTED: plugin %r may not remove tool '%s' (toolset '%s') "
        "without the operator's opt-in", plugin, entry.name, entry.toolset,
    )
    raise PermissionError(
        f"Plugin module {caller!r} cannot deregister tool {entry.name!r} (toolset "
        f"{entry.toolset!r}) without operator opt-in (allow_tool_override)"
    )


def plugin_namespace(registry: ToolRegistry, module: str) -> str | None:
    """The plugin that owns code of ``module``, or None for code that is no plugin's."""
    matching = [
        namespace
        for namespace in registry._plugin_override_policy
        if module == namespace or module.startswith(namespace + ".")
    ]
    if matching:
        return max(matching, key=len)
    if module.startswith(PLUGIN_PACKAGE_PREFIX):
        return ".".join(module.split(".")[:2])
    return None


def plugin_owner_of(registry: ToolRegistry, handler: Callable[..., object]) -> str | None:
    """The plugin that defined ``handler``, or None (built-in, MCP, embedder code)."""
    return plugin_namespace(registry, defining_module(handler))


def plugin_permitted(registry: ToolRegistry, plugin: str) -> bool:
    policy = registry._plugin_override_policy.get(plugin)
    return registry.allow_tool_override if policy is None else policy


def caller_module() -> str:
    """The module of the code that called into the registry: the first frame outside the
    runtime's own modules (a subclass or the loader calling ``deregister`` is not the caller)."""
    frame: FrameType | None
    try:
        frame = sys._getframe(1)
    except ValueError:
        return ""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module not in RUNTIME_MODULES:
            return module if isinstance(module, str) else ""
        frame = frame.f_back
    return ""


def defining_module(handler: object) -> str:
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
