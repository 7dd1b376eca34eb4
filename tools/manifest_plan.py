"""Reading a frozen manifest and checking it before anything is registered: the plan a start
fills the registry from.

A file exactly as ``hermes-lint manifest`` wrote it (its first line, the digest, is the sha256 of
the rest) is used as it is; any other is validated whole by ``tools.manifest_checks``. JSON is
parsed with the C scanner ``json.loads`` uses, and hashed with the interpreter's built-in sha256
for small directories: a start compiles this module and runs all of it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, NoReturn, Protocol

    # A manifest's JSON objects: their shape is the shipped JSON Schema's, checked at load.
    JSONObject = dict[str, Any]
    # (path on disk, manifest-relative name) of a candidate tool file.
    ToolFile = tuple[str, str]

    class _Digest(Protocol):
        def hexdigest(self) -> str: ...

MANIFEST_FORMAT = "hermes-tool-manifest"
# The newest format this runtime reads, and every format it reads. Version 2 adds a tool's
# ``holes``: schema leaves resolved from templates at load, or by importing the module; version 3
# the ``digest`` that lets a file exactly as generated skip validation; version 4 makes every check
# evaluated without importing a template (the ``always``/``env``/``module`` forms of versions 1 to
# 3 are read by translating them to templates, ``tools.manifest_checks.translate_checks``).
MANIFEST_FORMAT_VERSION = 4
MANIFEST_FORMAT_VERSIONS = (1, 2, 3, 4)
# What a tool's check is in a manifest of the current version: no check_fn, a template evaluated
# without importing, or the module's own check_fn, imported.
CHECK_KINDS = ("none", "template", "import")


class ManifestError(Exception):
    """A tool manifest that cannot be used: missing, unreadable, corrupt, truncated, of another
    format or a newer version, or naming a module outside the tools package."""


# What a manifest of the wrong shape raises where the schema was not checked (a file with a
# digest recomputed over an edit): the schema is then checked, for its error.
_SHAPE_ERRORS = (KeyError, TypeError, AttributeError, ValueError, IndexError)


# The package tool modules live in: the manifest may name modules of this package only.
_PACKAGE = __name__.rpartition(".")[0] or "tools"


class ManifestPlan:
    """A manifest read and checked before anything is registered.

    The manifest is data, never a way to import code: modules must be ``<package>.<stem>`` for a
    file ``<tools_dir>/<stem>.py`` that discovery could import (not ``os``, not ``../x``, not
    ``tools.x.y``, not ``tools.registry``); handler and check references are plain names looked
    up on such a module after it is imported; nothing else is ever imported except a
    ``find_spec`` probe of a top-level name (a template's ``find_spec``),
    which locates but does not import, and the standard library's ``shutil``/``pathlib`` when a
    template asks ``which``/``path_exists``.

    A file exactly as generated (its digest matches) is used as it is; any other is validated
    in full by ``tools.manifest_checks``. The digest is no signature: whoever can write the
    manifest can write the tool modules beside it. Still, a digest recomputed over an edited
    file never gets code outside the tools package imported (``check_own_modules``).
    """

    __slots__ = ("where", "data", "version", "as_generated", "package", "tools_dir", "sources",
                 "modules", "import_only", "tools")

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> ManifestPlan:
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
        return cls(where, parse_json(where, text), verified_digest(raw))

    def __init__(self, where: str, data: object, digest: str | None = None) -> None:
        """``digest``: the digest on the file's first line, when it is the file's (see
        ``verified_digest``)."""
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
        self.as_generated = (digest is not None and version == MANIFEST_FORMAT_VERSION
                             and data.get("digest") == digest)
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
        entry imports, and modules are only those of files in the tools directory); a check is
        of a kind this version has. Whether a check's template is well formed is validation's
        (``tools.manifest_checks``): evaluating one never probes more than a top-level name, so
        a digest recomputed over a forged template at worst imports the tool's own module."""
        tools = self.tools
        for module, record in self.modules.items():
            for name in record["tools"]:
                tool = tools.get(name)
                if tool is None or tool["module"] != module or tool["name"] != name:
                    self._corrupt(f"modules[{module!r}].tools does not list that module's tools")
                check = tool["check"]
                if check["kind"] not in CHECK_KINDS:
                    self._corrupt(f"tools[{name!r}].check has the kind {check['kind']!r}, which "
                                  f"format version {MANIFEST_FORMAT_VERSION} does not have")

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
        sha256 = sha256_for(sum(len(data) for _, _, data in contents))
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


def parse_json(where: str, text: str) -> object:
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


def verified_digest(raw: bytes) -> str | None:
    """The digest on the manifest's first line, if it is the sha256 of the rest of the file."""
    if not raw.startswith(_DIGEST_START) or raw[_DIGEST_END:_DIGEST_END + 3] != b'",\n':
        return None
    digest = sha256_for(len(raw))(b"{\n" + raw[_DIGEST_END + 3:]).hexdigest()
    return digest if raw[len(_DIGEST_START):_DIGEST_END] == digest.encode() else None


def sha256_for(total_bytes: int) -> Callable[[bytes], _Digest]:
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
