"""The lazy entries a manifest start registers: a tool's record from the manifest, a handler
that imports the tool's module on its first call, and the check evaluated without importing.

Every start builds one per manifest tool; what a first dispatch or an ``import`` check does
lives in ``tools.manifest_imports``.
"""

from __future__ import annotations

from tools.tool_entry import ToolEntry

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from tools.manifest_plan import JSONObject
    from tools.registry import ToolRegistry


class LazyTool:
    """A manifest tool whose module is not imported yet: what its lazy callables share."""

    __slots__ = ("registry", "name", "toolset", "module", "qualname", "check", "override",
                 "dynamic", "schema_needs_import", "handler", "entry", "check_fn", "tool")

    def __init__(self, registry: ToolRegistry, tool: JSONObject,
                 schema_needs_import: bool) -> None:
        self.registry = registry
        self.tool = tool  # its manifest record
        self.name: str = tool["name"]
        self.toolset: str = tool["toolset"]
        self.module: str = tool["module"]
        handler = tool["handler"]
        self.qualname: str | None = handler["qualname"] if isinstance(handler, dict) else None
        self.check: JSONObject = tool["check"]
        self.override: bool = tool["override"]
        self.dynamic: bool = tool["dynamic_schema_overrides"]
        self.schema_needs_import = schema_needs_import
        self.handler = LazyHandler(self)
        self.entry: ToolEntry | None = None
        self.check_fn: Callable[[], object] | None = None


class LazyHandler:
    """Imports the tool's module on the first call, then runs the real handler."""

    def __init__(self, lazy: LazyTool) -> None:
        self._lazy = lazy
        # Plugin override policies match on the handler's module.
        self.__module__ = lazy.module
        self.__qualname__ = self.__name__ = lazy.qualname or f"<{lazy.name}>"

    def __call__(self, args: dict[str, Any], **kwargs: Any) -> object:
        from tools.manifest_imports import materialize

        return materialize(self._lazy).handler(args, **kwargs)

    def _manifest_schema(self) -> JSONObject | None:
        """The schema a definition starts from: the manifest's, or — when a hole in it only the
        module can fill — the one the imported module registered (None: the import failed,
        and as with import discovery the tool has no definition)."""
        lazy = self._lazy
        if not lazy.schema_needs_import:
            assert lazy.entry is not None  # set by _lazy_entry, before the handler is reachable
            return lazy.entry.schema
        from tools.manifest_imports import schema_from_module

        return schema_from_module(lazy)

    def __repr__(self) -> str:
        return f"<lazy handler of tool '{self._lazy.name}' from {self._lazy.module}>"


class TemplateCheck:
    """``{"kind": "template"}``: ``bool`` of the template's value (``tools.manifest_templates``),
    computed at each probe the registry's cache lets through. A template that raises is where
    the check's own code raises or depends on what the template cannot know: the module is
    then imported and its real check asked, as for a check of kind ``import``."""

    __slots__ = ("lazy", "template")

    def __init__(self, lazy: LazyTool, template: JSONObject) -> None:
        self.lazy = lazy
        self.template = template

    def __call__(self) -> object:
        from tools.manifest_templates import TemplateFailed, evaluate

        try:
            return bool(evaluate(self.template))
        except TemplateFailed:
            from tools.manifest_imports import ImportingCheck

            return ImportingCheck(self.lazy)()


def lazy_entry(registry: ToolRegistry, tool: JSONObject, schema: JSONObject,
                schema_needs_import: bool) -> LazyTool:
    lazy = LazyTool(registry, tool, schema_needs_import)
    check = tool["check"]
    kind = check["kind"]  # one of manifest_plan.CHECK_KINDS (older forms are translated)
    check_fn: Callable[[], object] | None
    if kind == "none":
        # No check_fn: then upstream records no toolset check either.
        check_fn = None
    elif kind == "template":
        check_fn = TemplateCheck(lazy, check["template"])
    else:
        from tools.manifest_imports import ImportingCheck

        check_fn = ImportingCheck(lazy)
    overrides: Callable[[], dict[str, Any]] | None = None
    if lazy.dynamic:
        from tools.manifest_imports import LazyOverrides

        overrides = LazyOverrides(lazy)
    entry = ToolEntry(
        name=lazy.name,
        toolset=lazy.toolset,
        schema=schema,
        handler=lazy.handler,
        check_fn=check_fn,
        requires_env=tool["requires_env"],
        is_async=tool["is_async"],
        description=tool["description"],
        emoji=tool["emoji"],
        max_result_size_chars=tool["max_result_size_chars"],
        dynamic_schema_overrides=overrides,
    )
    lazy.entry = entry
    lazy.check_fn = check_fn
    return lazy
