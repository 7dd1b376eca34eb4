"""Loading the frozen manifest (``hermes-lint manifest``) into a ``ToolRegistry``, importing no
tool module.

``load_manifest(registry, path)`` reads the manifest and checks it before registering anything:
a file exactly as ``hermes-lint manifest`` wrote it (its first line, the digest, is the sha256
of the rest) is used as it is; any other is validated whole by ``tools.manifest_checks``
against the JSON Schema shipped as ``hermes_lint/data/manifest.schema.json`` (the one source of
the format, interpreted by ``tools.manifest_schema``) and the cross-references a schema cannot
state. Every tool gets a lazy entry: schema, description and flags from the manifest; the
handler imports the tool's module on the first ``dispatch`` (``tools.manifest_imports``); a
declarative check is evaluated without importing.

Every start compiles this module, often without a ``.pyc``: it holds only what a start from a
fresh manifest runs. This module registers no tool at import (discovery's predicate does not
take it for a tool module). Standard library plus ``hermes_lint.discovery`` only, imported on
first need.
"""

from __future__ import annotations

import os

from tools import registry as _registry_module
from tools.registry import _logger, _tools_dir_path

from tools.lazy_tools import LazyHandler, LazyTool, lazy_entry
from tools.manifest_plan import _PACKAGE as _PACKAGE
from tools.manifest_plan import _SHAPE_ERRORS
from tools.manifest_plan import MANIFEST_FORMAT as MANIFEST_FORMAT
from tools.manifest_plan import MANIFEST_FORMAT_VERSION as MANIFEST_FORMAT_VERSION
from tools.manifest_plan import MANIFEST_FORMAT_VERSIONS as MANIFEST_FORMAT_VERSIONS
from tools.manifest_plan import ManifestError as ManifestError
from tools.manifest_plan import ManifestPlan

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from tools.manifest_plan import ToolFile
    from tools.registry import ToolRegistry

__all__ = [
    "MANIFEST_FORMAT",
    "MANIFEST_FORMAT_VERSION",
    "MANIFEST_FORMAT_VERSIONS",
    "ManifestError",
    "ManifestLoad",
    "load_manifest",
]

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


def load_manifest(registry: ToolRegistry, path: str | os.PathLike[str], *,
                  tools_dir: str | os.PathLike[str] | None = None,
                  fallback: bool = False) -> ManifestLoad:
    """Fill ``registry`` from the manifest at ``path``, importing no tool module.

    Every tool of a frozen module gets a lazy entry: schema, description and flags from the
    manifest; the handler imports the tool's module on the first ``dispatch`` (its own
    ``register`` call then replaces the lazy entry in the same toolset); a check recorded as
    ``always``/``env``/``module`` is evaluated here, one of kind ``import`` (or a tool with
    ``dynamic_schema_overrides``, or a schema hole only the module knows) imports the module
    when that tool's definition is first requested. Template holes are resolved now, from the
    environment; a template that raises sends its module's tools to the import as well.

    ``tools_dir`` (default: the tools package's directory) holds the tool modules. A module
    whose file changed, appeared or disappeared since the manifest was generated is stale: one
    warning names those files, and they are handled as ``discover_builtin_tools`` would
    (imported when they register tools) while the rest still comes from the manifest. Modules
    the manifest lists as ``import_only`` are imported too, in file order; each must be a tool
    module by discovery's predicate.

    ``ManifestError`` for a manifest that is missing, unreadable, corrupt, truncated, of another
    format or a newer version, or that names a module outside the tools package; the registry
    is then untouched. With ``fallback=True`` that is a warning instead, and every tool module
    is imported (``discover_builtin_tools(tools_dir, use_manifest=False)``).

    Imported modules register through the module-level ``registry``, as tool modules always
    do, so that is the registry to load a manifest into (``discover_builtin_tools`` does).
    Another registry still works: a lazy tool then adopts the module's entry, or rebuilds it
    from the manifest's handler reference.
    """
    tools_path = _tools_dir_path(tools_dir)
    try:
        plan = ManifestPlan.read(path)
        try:
            files = plan.files_on_disk(tools_path)
            stale, contents = plan.stale_files(files)
            if plan.import_only:
                from tools.manifest_checks import check_import_only

                check_import_only(plan, files, contents, {name for name, _ in stale})
            entries = _prepared_entries(registry, plan, files, {name for name, _ in stale})
        except _SHAPE_ERRORS:
            if plan.as_generated:
                plan.validate()  # the digest is no proof of shape: the schema's error, if any
            raise
    except ManifestError as exc:
        if not fallback:
            raise
        _logger().warning("%s; falling back to importing every tool module", exc)
        from tools.import_discovery import import_tool_modules

        imported = import_tool_modules(tools_path)
        return ManifestLoad(str(path), imported, [], imported, [], fallback=True)
    return _fill(registry, plan, files, stale, str(path), entries)


def _prepared_entries(registry: ToolRegistry, plan: ManifestPlan, files: list[ToolFile],
                      stale_names: set[str]) -> dict[str, list[LazyTool]]:
    """The lazy entries of each frozen module that is not stale, built before anything is
    registered: a manifest they cannot be built from leaves the registry untouched."""
    entries: dict[str, list[LazyTool]] = {}
    for file_path, recorded in files:
        module_name = f"{plan.package}.{os.path.basename(file_path)[:-3]}"
        if module_name in plan.modules and recorded not in stale_names:
            entries[module_name] = _module_entries(registry, plan, module_name)
    return entries


def _fill(registry: ToolRegistry, plan: ManifestPlan, files: list[ToolFile],
          stale: list[tuple[str, str]], path: str,
          entries: dict[str, list[LazyTool]]) -> ManifestLoad:
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
        if module_name in plan.modules and recorded not in stale_names:
            loaded.extend(_add_module(registry, module_name, entries[module_name]))
            modules.append(module_name)
        elif recorded in stale_names or module_name in plan.import_only:
            from tools.import_discovery import import_tool_module, module_registers_tools, regular_tool_file

            if recorded in stale_names and not (regular_tool_file(file_path)
                                                and module_registers_tools(file_path)):
                continue
            if import_tool_module(module_name):
                modules.append(module_name)
                imported.append(module_name)
    return ManifestLoad(path, modules, loaded, imported, [name for name, _ in stale])


def _module_entries(registry: ToolRegistry, plan: ManifestPlan, module_name: str) -> list[LazyTool]:
    """The lazy tools of one frozen module, in registration order, their schemas as frozen
    (template holes are filled when they are registered, as the module's import would)."""
    tools = plan.module_tools(module_name)
    if plan.as_generated and any("holes" in tool for tool in tools):
        from tools.manifest_checks import check_holes

        try:  # templates are evaluated and put into the schema: checked first, as in validation
            for tool in tools:
                check_holes(plan, tool["name"], tool)
        except ManifestError:
            plan.validate()  # the schema's error, if it has one
            raise
    # What the registry keys and copies once asked, not when it registers: the shape it needs.
    if not all(type(tool["schema"]) is dict and type(tool["toolset"]) is str for tool in tools):
        raise TypeError("a tool's schema is not an object, or its toolset not a string")
    return [lazy_entry(registry, tool, tool["schema"], False) for tool in tools]


def _add_module(registry: ToolRegistry, module_name: str, lazies: list[LazyTool]) -> list[str]:
    """Register one frozen module's lazy entries; like an import, a ``PermissionError`` (an
    override not allowed) stops the module's remaining tools."""
    tools = [lazy.tool for lazy in lazies]
    if any("holes" in tool for tool in tools):
        from tools.manifest_holes import resolve_holes

        schemas, needs_import = resolve_holes(tools)
        for lazy, schema, schema_needs_import in zip(lazies, schemas, needs_import):
            assert lazy.entry is not None  # set by _lazy_entry
            lazy.entry.schema = schema
            lazy.schema_needs_import = schema_needs_import
    added: list[str] = []
    for lazy in lazies:
        tool, entry = lazy.tool, lazy.entry
        assert entry is not None
        existing = registry.get_entry(tool["name"])
        if (
            existing is not None
            and existing.toolset == tool["toolset"]
            and not isinstance(existing.handler, LazyHandler)
            and _registry_module._handler_module(existing.handler) == module_name
        ):
            added.append(tool["name"])
            continue  # the module is imported already: keep its real entry
        try:
            if registry._add_entry(entry, override=tool["override"]):
                added.append(tool["name"])
        except PermissionError as exc:
            _logger().warning("Could not import tool module %s: %s", module_name, exc)
            break
    return added


