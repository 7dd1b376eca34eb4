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
from tools.registry import ToolEntry, _logger, _tools_dir_path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, NoReturn, Protocol

    from tools.registry import ToolRegistry

    # A manifest's JSON objects: their shape is the shipped JSON Schema's, checked at load.
    JSONObject = dict[str, Any]
    # (path on disk, manifest-relative name) of a candidate tool file.
    ToolFile = tuple[str, str]

    class _Digest(Protocol):
        def hexdigest(self) -> str: ...

__all__ = [
    "MANIFEST_FORMAT",
    "MANIFEST_FORMAT_VERSION",
    "MANIFEST_FORMAT_VERSIONS",
    "ManifestError",
    "ManifestLoad",
    "load_manifest",
]

MANIFEST_FORMAT = "hermes-tool-manifest"
# The newest format this runtime reads, and every format it reads. Version 2 adds a tool's
# ``holes``: schema leaves resolved from templates at load, or by importing the module; version 3
# the ``digest`` that lets a file exactly as generated skip validation.
MANIFEST_FORMAT_VERSION = 3
MANIFEST_FORMAT_VERSIONS = (1, 2, 3)


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
        plan = _ManifestPlan.read(path)
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


# What a manifest of the wrong shape raises where the schema was not checked (a file with a
# digest recomputed over an edit): the schema is then checked, for its error.
_SHAPE_ERRORS = (KeyError, TypeError, AttributeError, ValueError, IndexError)


def _prepared_entries(registry: ToolRegistry, plan: _ManifestPlan, files: list[ToolFile],
                      stale_names: set[str]) -> dict[str, list[_LazyTool]]:
    """The lazy entries of each frozen module that is not stale, built before anything is
    registered: a manifest they cannot be built from leaves the registry untouched."""
    entries: dict[str, list[_LazyTool]] = {}
    for file_path, recorded in files:
        module_name = f"{plan.package}.{os.path.basename(file_path)[:-3]}"
        if module_name in plan.modules and recorded not in stale_names:
            entries[module_name] = _module_entries(registry, plan, module_name)
    return entries


def _fill(registry: ToolRegistry, plan: _ManifestPlan, files: list[ToolFile],
          stale: list[tuple[str, str]], path: str,
          entries: dict[str, list[_LazyTool]]) -> ManifestLoad:
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


def _module_entries(registry: ToolRegistry, plan: _ManifestPlan, module_name: str) -> list[_LazyTool]:
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
    return [_lazy_entry(registry, tool, tool["schema"], False) for tool in tools]


def _add_module(registry: ToolRegistry, module_name: str, lazies: list[_LazyTool]) -> list[str]:
    """Register one frozen module's lazy entries; like an import, a ``PermissionError`` (an
    override not allowed) stops the module's remaining tools."""
    tools = [lazy.tool for lazy in lazies]
    if any("holes" in tool for tool in tools):
        from tools.manifest_templates import resolve_holes

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
            and not isinstance(existing.handler, _LazyHandler)
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


# --------------------------------------------------------------------- the plan


# The package tool modules live in: the manifest may name modules of this package only.
_PACKAGE = __name__.rpartition(".")[0] or "tools"


class _ManifestPlan:
    """A manifest read and checked before anything is registered.

    The manifest is data, never a way to import code: modules must be ``<package>.<stem>`` for a
    file ``<tools_dir>/<stem>.py`` that discovery could import (not ``os``, not ``../x``, not
    ``tools.x.y``, not ``tools.registry``); handler and check references are plain names looked
    up on such a module after it is imported; nothing else is ever imported except a
    ``module`` check's ``importlib.util.find_spec`` probe, which locates but does not import.

    A file exactly as generated (its digest matches) is used as it is; any other is validated
    in full by ``tools.manifest_checks``. The digest is no signature: whoever can write the
    manifest can write the tool modules beside it. Still, a digest recomputed over an edited
    file never gets code outside the tools package imported (``check_own_modules``).
    """

    __slots__ = ("where", "data", "version", "as_generated", "package", "tools_dir", "sources",
                 "modules", "import_only", "tools")

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> _ManifestPlan:
        from hermes_lint.discovery import read_regular_file

        where = f"Tool manifest {path}"
        try:
            raw = read_regular_file(path)
        except OSError as exc:
            raise ManifestError(f"{where} cannot be read: {exc.strerror or exc}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ManifestError(f"{where} is corrupt: it is not UTF-8 text") from None
        return cls(where, _parse_json(where, text), _verified_digest(raw))

    def __init__(self, where: str, data: object, digest: str | None = None) -> None:
        """``digest``: the digest on the file's first line, when it is the file's (see
        ``_verified_digest``)."""
        self.where = where
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ManifestError(
                f"{where} is not a hermes tool manifest (format {found!r}, "
                f"expected {MANIFEST_FORMAT!r})"
            )
        version = data.get("format_version")
        if type(version) is int and version > MANIFEST_FORMAT_VERSION:
            raise ManifestError(
                f"{where} has format version {version}, newer than this runtime reads "
                f"({MANIFEST_FORMAT_VERSION}): upgrade the runtime, or regenerate the manifest "
                "with the matching `hermes-lint manifest`"
            )
        self.data = data
        self.version = version
        self.as_generated = digest is not None and version == 3 and data.get("digest") == digest
        if not self.as_generated:
            self.validate()
            return
        try:
            self._take(data)
            self.check_own_modules()
        except _SHAPE_ERRORS:
            self.validate()  # the digest is no proof of shape: the schema's error, if any
            raise

    def _take(self, data: JSONObject) -> None:
        self.package: str = data["package"]
        if self.package != _PACKAGE:
            self._refuse(f"it is for package {self.package!r}, not this runtime's {_PACKAGE!r}")
        self.tools_dir: str = data["tools_dir"]
        self.sources: dict[str, str] = data["sources"]
        self.modules: dict[str, JSONObject] = data["modules"]
        self.import_only: dict[str, JSONObject] = data["import_only"]
        self.tools: dict[str, JSONObject] = data["tools"]

    def validate(self) -> None:
        """``ManifestError`` unless the manifest passes the shipped JSON Schema and the
        cross-references it cannot state (what a file not exactly as generated must pass)."""
        from tools.manifest_checks import check_format, check_references

        check_format(self, self.data, self.version)
        self._take(self.data)
        check_references(self)

    def check_own_modules(self) -> None:
        """Each module lists only tools of its own (a tool's module is the only one its lazy
        entry imports, and modules are only those of files in the tools directory); a module
        check probes a top-level name (``find_spec`` of a dotted name imports its parent)."""
        tools = self.tools
        for module, record in self.modules.items():
            for name in record["tools"]:
                tool = tools.get(name)
                if tool is None or tool["module"] != module or tool["name"] != name:
                    self._corrupt(f"modules[{module!r}].tools does not list that module's tools")
                check = tool["check"]
                if check["kind"] == "module" and not check["name"].isidentifier():
                    self._refuse(f"tools[{name!r}].check probes {check['name']!r}, "
                                 "not a top-level module")

    def _corrupt(self, what: str) -> NoReturn:
        raise ManifestError(f"{self.where} is corrupt: {what}")

    def _refuse(self, what: str) -> NoReturn:
        raise ManifestError(f"{self.where} is refused: {what}")

    # --- use ------------------------------------------------------------------------------

    def files_on_disk(self, tools_path: str) -> list[ToolFile]:
        """``(path, manifest-relative name)`` of each candidate tool file, in discovery order."""
        from hermes_lint.discovery import candidate_tool_file_names

        prefix = self.tools_dir + "/"
        return [
            (os.path.join(tools_path, name), prefix + name)
            for name in candidate_tool_file_names(tools_path)
        ]

    def stale_files(self, files: list[ToolFile]) -> tuple[list[tuple[str, str]], dict[str, bytes]]:
        """``(name, why)`` for each tool file that is not as the manifest recorded it, and the
        contents of the others by name."""
        from hermes_lint.discovery import read_regular_file

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
                contents.append((name, expected, read_regular_file(path)))
            except OSError:
                stale.append((name, "unreadable"))
        sha256 = _sha256_for(sum(len(data) for _, _, data in contents))
        fresh: dict[str, bytes] = {}
        for name, expected, data in contents:
            if sha256(data).hexdigest() == expected:
                fresh[name] = data
            else:
                stale.append((name, "changed"))
        stale.extend((name, "removed") for name in sorted(recorded))
        if any("reads" in record for record in self.modules.values()):
            from tools.manifest_checks import stale_reads

            stale.extend(stale_reads(self, files, {name for name, _ in stale}, sha256))
        return stale, fresh

    def module_tools(self, module: str) -> list[JSONObject]:
        return [self.tools[name] for name in self.modules[module]["tools"]]


class _NonFinite(ValueError):
    pass


def _refuse_constant(name: str) -> object:
    raise _NonFinite(name)  # NaN, Infinity, -Infinity: not JSON, and never a tool's value


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf (1e400 overflows to it); NaN cannot be spelled here
        raise _NonFinite(text)
    return value


class _JSONSettings:
    """What the json module's C scanner reads from its decoder: ``json.loads``'s defaults, with
    non-finite numbers refused."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_int = int
    parse_float = staticmethod(_finite_float)
    parse_constant = staticmethod(_refuse_constant)


_JSON_SPACE = " \t\n\r"


def _parse_json(where: str, text: str) -> object:
    """``json.loads(text)`` for a well-formed manifest, through the C scanner ``json.loads``
    itself uses: importing ``json`` compiles its regular expressions, a tenth of a start. Any
    text the scanner does not take whole goes to ``json.loads``, for its exact error."""
    try:
        from _json import make_scanner

        start = len(text) - len(text.lstrip(_JSON_SPACE))
        # typeshed types the decoder as the scanner itself; the C code reads only the settings.
        data, end = make_scanner(_JSONSettings)(text, start)  # type: ignore[arg-type]
        if not text[end:].strip(_JSON_SPACE):
            return data
    except Exception:  # no C scanner, or the text is broken: json.loads says how
        pass
    from tools.manifest_checks import decode_json

    return decode_json(where, text)


# How every manifest the generator writes starts: its digest, the sha256 of the file without
# that line (the generator's ``render``).
_DIGEST_START = b'{\n  "digest": "'
_DIGEST_END = len(_DIGEST_START) + 64


def _verified_digest(raw: bytes) -> str | None:
    """The digest on the manifest's first line, if it is the sha256 of the rest of the file."""
    if not raw.startswith(_DIGEST_START) or raw[_DIGEST_END:_DIGEST_END + 3] != b'",\n':
        return None
    digest = _sha256_for(len(raw))(b"{\n" + raw[_DIGEST_END + 3:]).hexdigest()
    return digest if raw[len(_DIGEST_START):_DIGEST_END] == digest.encode() else None


def _sha256_for(total_bytes: int) -> Callable[[bytes], _Digest]:
    """A sha256 constructor. ``hashlib`` loads OpenSSL (~10 ms at start-up, cold); for the few
    hundred kilobytes of a typical tools directory the interpreter's built-in implementation is
    faster overall, for megabytes OpenSSL's speed wins."""
    import sys

    if "hashlib" not in sys.modules and total_bytes < 1_000_000:
        try:  # the built-in module: _sha2 since Python 3.12
            builtin = __import__("_sha2" if sys.version_info >= (3, 12) else "_sha256")
            sha256: Callable[[bytes], _Digest] = builtin.sha256
            return sha256
        except ImportError:
            pass
    import hashlib

    return hashlib.sha256


# --------------------------------------------------------------------- lazy entries


class _LazyTool:
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


def _lazy_entry(registry: ToolRegistry, tool: JSONObject, schema: JSONObject,
                schema_needs_import: bool) -> _LazyTool:
    lazy = _LazyTool(registry, tool, schema_needs_import)
    check = tool["check"]
    kind = check["kind"]
    check_fn: Callable[[], object] | None
    if kind == "always":
        # Mostly "no check_fn": then upstream records no toolset check either.
        check_fn = None
    elif kind == "env":
        check_fn = _EnvCheck(check.get("all", []), check.get("present", []))
    elif kind == "module":
        check_fn = _ModuleCheck(check["name"])
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
