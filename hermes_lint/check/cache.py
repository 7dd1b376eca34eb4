"""Per-file result cache: extracted facts and module diagnostics, reused while nothing changed.

One index file per project under ``.hermes_lint_cache/`` (tagged with ``CACHEDIR.TAG``, ignored by
git). An entry is reused when the file's stat (size, mtime, ctime, inode) matches, or, failing
that, when its content hash does; the whole cache is keyed on the toolkit version and the configuration.
Beside it, a small file holds the last run's final diagnostics with the stat of every input
(``runner.run_project``): when nothing changed they are reused as they are, without loading the
index (which grows with the project: ~5 KB per tool module).

Entries are JSON, decoded only into the toolkit's own data classes (an allow-list): a cache
directory that arrives with a repository is data, never code, so it is never unpickled. A
corrupt or tampered entry is dropped and the file is checked afresh. An entry keeps the
registrations' schemas (most of a module's facts) apart from the rest, so that the project phase
after an edit decodes only what its rules read (``Rule.needs_schemas``).

Encoding: a dataclass is ``{"$c": name, "f": [fields]}``, a tuple ``{"$t": [...]}`` (a tuple of
``(path, Location)`` pairs, as ``schema_locations``, ``{"$L": [[*path, line, col], ...]}``), a set
``{"$s": [...]}``, a dict with a non-string key or a tag key ``{"$d": [[k, v], ...]}``; any other
dict is a JSON object. Decoding is one ``json.loads`` with an ``object_hook``: the
tags are resolved while the C parser builds the objects, not by a second walk in Python.
"""

from __future__ import annotations

import dataclasses
import json
import os
import zlib
from pathlib import Path
from stat import S_ISDIR
from typing import Any, Dict, List, Optional, Tuple

from hermes_lint import __version__, model
from hermes_lint.regular_files import read_regular_file

CACHE_DIR_NAME = ".hermes_lint_cache"
INDEX_NAME = "results-v3.json"
_OLD_INDEX_NAMES = ("results-v2.json",)  # removed when the index is written
PROJECT_NAME = "project-v2.json"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by hermes-lint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)

# Only these classes may be rebuilt from a cache entry (filled on first use: ``_allow``).
_CLASSES: Dict[str, type] = {}


def _allow() -> None:
    if not _CLASSES:
        from hermes_lint.check.noqa import NoqaComment  # not needed by a warm run: imported here

        for cls in (
            model.Location,
            model.Unresolved,
            model.Hole,
            model.Diagnostic,
            model.CallableRef,
            model.Keyword,
            model.Registration,
            model.MisplacedRegisterCall,
            model.EnvRead,
            model.ModuleFacts,
            NoqaComment,
        ):
            _CLASSES[cls.__name__] = cls


_TAGS = frozenset({"$c", "$t", "$d", "$s", "$L"})


def encode(value: Any) -> Any:
    """Plain data -> JSON-able, keeping tuples, non-string dict keys and the model's classes."""
    _allow()
    return _encode(value)


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, tuple):
        if value and all(_is_located_path(item) for item in value):
            # ``Registration.schema_locations``: dozens per tool; one tag, not three per entry.
            return {"$L": [[*path, where.line, where.col] for path, where in value]}
        return {"$t": [_encode(item) for item in value]}
    if isinstance(value, dict):
        if all(type(key) is str for key in value) and _TAGS.isdisjoint(value):
            return {key: _encode(item) for key, item in value.items()}
        return {"$d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and _CLASSES.get(type(value).__name__) is type(value):
        return {"$c": type(value).__name__, "f": [_encode(getattr(value, f.name)) for f in dataclasses.fields(value)]}
    if isinstance(value, (set, frozenset)):
        return {"$s": [_encode(item) for item in value]}
    raise TypeError(f"cannot cache a {type(value).__name__}")


_SCALARS = (str, int, float, bool, type(None))  # what JSON gives back as it was


def _is_located_path(item: Any) -> bool:
    """``(path, Location)`` with a path of JSON scalars: encoded flat as ``[*path, line, col]``."""
    return (
        type(item) is tuple
        and len(item) == 2
        and type(item[0]) is tuple
        and type(item[1]) is model.Location
        and type(item[1].line) is int
        and type(item[1].col) is int
        and all(type(part) in _SCALARS for part in item[0])
    )


def _object_hook(obj: Dict[str, Any]) -> Any:
    # Called bottom-up by the JSON parser: the members are already decoded.
    if len(obj) <= 2:
        if "$c" in obj:
            return _CLASSES[obj["$c"]](*obj["f"])  # KeyError for anything not allowed
        if "$t" in obj:
            return tuple(obj["$t"])
        if "$L" in obj:
            location = model.Location
            return tuple((tuple(entry[:-2]), location(entry[-2], entry[-1])) for entry in obj["$L"])
        if "$d" in obj:
            return {key: value for key, value in obj["$d"]}
        if "$s" in obj:
            return frozenset(obj["$s"])
    return obj


def loads(text: str) -> Any:
    """``json.loads`` of an ``encode``d value, rebuilding tuples, dicts, sets and model classes."""
    _allow()
    return json.loads(text, object_hook=_object_hook)


def _sha256(data: bytes) -> str:
    import hashlib  # not on the warm path (loading OpenSSL costs more than the rest of a lookup)

    return hashlib.sha256(data).hexdigest()


def _toolkit_fingerprint() -> str:
    """Size and mtime of the toolkit's own modules: an edited rule must not reuse old results
    (the version alone does not change between a developer's edits)."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # hermes_lint/, not check/
    parts = []
    # os.walk, not Path.rglob: this runs on every warm run and every editor save (~4x faster).
    for directory, subdirectories, files in os.walk(package):
        subdirectories.sort()
        relative = os.path.relpath(directory, package)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            try:
                stat = os.stat(os.path.join(directory, name))
            except OSError:
                continue
            path = name if relative == "." else f"{relative}/{name}".replace(os.sep, "/")
            parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(sorted(parts))


# What a registration's ``schema`` is when its facts were decoded without schemas.
SCHEMA_NOT_LOADED = model.Unresolved("schema not loaded from the cache (the project rules run need none)")


def _split_schemas(facts: model.ModuleFacts) -> Tuple[model.ModuleFacts, Tuple]:
    """(the facts without each registration's schema and schema locations, those per registration).

    They are most of a module's facts and only some rules read them, so an entry keeps them
    apart: a project phase whose rules need no schema decodes the rest only."""
    if not facts.registrations:
        return facts, ()
    schemas = tuple((r.schema, r.schema_locations) for r in facts.registrations)
    slim = tuple(dataclasses.replace(r, schema=None, schema_locations=()) for r in facts.registrations)
    return dataclasses.replace(facts, registrations=slim), schemas


def _with_schemas(facts: model.ModuleFacts, schemas: Optional[Tuple]) -> model.ModuleFacts:
    """``_split_schemas`` undone; with ``schemas`` None, the schemas say ``SCHEMA_NOT_LOADED``."""
    if not facts.registrations:
        return facts
    if schemas is None:
        schemas = ((SCHEMA_NOT_LOADED, ()),) * len(facts.registrations)
    elif not isinstance(schemas, tuple) or len(schemas) != len(facts.registrations):
        raise ValueError("schemas do not match the registrations")
    registrations = tuple(
        dataclasses.replace(r, schema=schema, schema_locations=locations)
        for r, (schema, locations) in zip(facts.registrations, schemas)
    )
    return dataclasses.replace(facts, registrations=registrations)


class ResultCache:
    """Load once (on first use), look up per file, store once."""

    def __init__(self, root: Path, config_fingerprint: str):
        self.directory = root / CACHE_DIR_NAME
        # What every entry depends on, as text: compared as it is by the project file, hashed
        # into ``key`` for the index.
        self.key_text = f"{__version__}\n{config_fingerprint}\n{_toolkit_fingerprint()}"
        self._key: Optional[str] = None
        self._entries: Optional[Dict[str, Any]] = None
        self.changed = False
        self.root = root
        self._current_hashes: Dict[str, str] = {}  # project file -> sha256 now (read_modules)

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = _sha256(self.key_text.encode())
        return self._key

    @property
    def entries(self) -> Dict[str, Any]:
        if self._entries is None:
            self._entries = self._load()
        return self._entries

    def _load(self) -> Dict[str, Any]:
        try:
            data = json.loads(self._read(INDEX_NAME))
        except (OSError, ValueError, RecursionError):  # missing, corrupt, nested without end
            return {}
        if not isinstance(data, dict) or data.get("key") != self.key or not isinstance(data.get("files"), dict):
            return {}  # another version or configuration: start afresh
        return data["files"]

    def lookup(
        self, path: str, stat: Tuple[int, ...], read_bytes, *, schemas: bool = True
    ) -> Tuple[Optional[Any], Optional[bytes]]:
        """(cached ModuleResult or None, the file's bytes if they had to be read).

        ``schemas=False``: the facts come without their schemas (``SCHEMA_NOT_LOADED``)."""
        entry = self.entries.get(path)
        data = None
        if not isinstance(entry, dict):
            return None, None
        if entry.get("stat") != list(stat):
            data = read_bytes()
            if data is None or _sha256(data) != entry.get("sha256"):
                return None, data
        if not self._read_modules_unchanged(entry.get("read_modules", ())):
            return None, data
        try:
            from hermes_lint.check.engine import ModuleResult

            payload, schema_payload = entry["result"], entry["schemas"]
            if _sha256(f"{payload}\0{schema_payload}".encode()) != entry.get("check"):
                raise ValueError("checksum mismatch")
            facts, diagnostics, noqa = loads(payload)
            if not isinstance(facts, model.ModuleFacts):
                raise ValueError("not module facts")
            facts = _with_schemas(facts, loads(schema_payload) if schemas else None)
            result = ModuleResult(facts, tuple(diagnostics), tuple(noqa))
        except Exception:  # corrupt or tampered: discard, never trust
            self.entries.pop(path, None)
            self.changed = True
            return None, data
        if entry.get("stat") != list(stat):
            entry["stat"] = list(stat)  # same content, new mtime (e.g. `touch`)
            self.changed = True
        return result, data

    def _read_modules_unchanged(self, read_modules: Any) -> bool:
        """Whether every other project file an entry's values were read from still has the
        content it had (hashed once per run: a shared module is read by many tool modules)."""
        if not isinstance(read_modules, list):
            return False
        for item in read_modules:
            if not (isinstance(item, list) and len(item) == 2 and all(isinstance(part, str) for part in item)):
                return False
            path, sha256 = item
            if path.startswith("/") or ".." in path.split("/"):
                return False  # a tampered entry naming a file outside the project: a miss
            current = self._current_hashes.get(path)
            if current is None:
                try:
                    current = _sha256(read_regular_file(self.root / path))
                except (OSError, ValueError):
                    current = ""
                self._current_hashes[path] = current
            if current != sha256:
                return False
        return True

    def store(self, path: str, stat: Tuple[int, ...], result: Any) -> None:
        facts, schemas = _split_schemas(result.facts)
        payload = json.dumps(encode((facts, result.diagnostics, result.noqa)), separators=(",", ":"))
        schema_payload = json.dumps(encode(schemas), separators=(",", ":"))
        self.entries[path] = {
            "stat": list(stat),
            "sha256": result.facts.sha256,
            "check": _sha256(f"{payload}\0{schema_payload}".encode()),
            "result": payload,
            "schemas": schema_payload,
            "read_modules": [list(item) for item in result.facts.read_modules],
        }
        self.changed = True

    def prune(self, live_paths) -> None:
        for path in set(self.entries) - set(live_paths):
            del self.entries[path]
            self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        text = json.dumps({"key": self.key, "files": self.entries}, separators=(",", ":"))
        self._write(INDEX_NAME, text)
        for old in _OLD_INDEX_NAMES:  # an earlier version's index: megabytes nothing reads
            try:
                (self.directory / old).unlink()
            except OSError:
                pass

    # --- the whole project's diagnostics -------------------------------------------------

    def project_diagnostics(self, state: str) -> Optional[List[model.Diagnostic]]:
        """The final diagnostics of the last run if its inputs had exactly this ``state``."""
        try:
            data = json.loads(self._read(PROJECT_NAME))
            if not isinstance(data, dict) or data.get("key") != self.key_text or data.get("state") != state:
                return None
            if not self._read_modules_unchanged(data.get("read_modules", [])):
                return None
            payload = data["diagnostics"]
            # Against a damaged file (writes are atomic, so rarely); trust comes from decoding
            # into the allow-listed classes only, as for the index.
            if zlib.crc32(payload.encode()) != data.get("crc32"):
                return None
            diagnostics = loads(payload)
        except Exception:  # missing, corrupt or tampered: run normally
            return None
        if not isinstance(diagnostics, list) or not all(isinstance(d, model.Diagnostic) for d in diagnostics):
            return None
        return diagnostics

    def store_project_diagnostics(
        self, state: str, diagnostics: List[model.Diagnostic], read_modules: Tuple[Tuple[str, str], ...] = ()
    ) -> None:
        """``read_modules``: files outside ``state`` (not tool modules) whose content the
        diagnostics depend on, with their sha256."""
        payload = json.dumps(encode(list(diagnostics)), separators=(",", ":"))
        text = json.dumps(
            {
                "key": self.key_text,
                "state": state,
                "read_modules": [list(item) for item in read_modules],
                "crc32": zlib.crc32(payload.encode()),
                "diagnostics": payload,
            },
            separators=(",", ":"),
        )
        self._write(PROJECT_NAME, text)

    # --- the files ----------------------------------------------------------------------
    # The cache directory can arrive with a repository (git stores symbolic links): a link
    # there, to the directory or from a file in it, must never make a run read a device or
    # write outside the directory. A linked directory is not used at all; files are created
    # with O_EXCL | O_NOFOLLOW under fresh random names and renamed into place (a rename
    # replaces a link, never what it points to).

    def _usable(self) -> bool:
        """The cache directory is absent or a real directory (not a symbolic link to one)."""
        try:
            mode = os.lstat(self.directory).st_mode
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return S_ISDIR(mode)

    def _read(self, name: str) -> str:
        if not self._usable():
            raise OSError(f"{self.directory}: not a directory")
        return read_regular_file(self.directory / name, MAX_CACHE_BYTES).decode("utf-8")

    def _write(self, name: str, text: str) -> None:
        if not self._usable():
            return
        try:
            self.directory.mkdir(exist_ok=True)
            if not self._usable():  # replaced by a link since the check above
                return
            _create_if_missing(self.directory / "CACHEDIR.TAG", CACHEDIR_TAG)
            _create_if_missing(self.directory / ".gitignore", "*\n")
            temporary = self.directory / f".{name}.{os.urandom(8).hex()}.tmp"
            try:
                _create(temporary, text)
                os.replace(temporary, self.directory / name)
            except BaseException:
                _unlink_quietly(temporary)  # a full disk must not collect half-written files
                raise
            _remove_abandoned(self.directory, name)
        except OSError:
            pass  # a read-only checkout still gets its diagnostics; only the speed-up is lost


# Far above the index of any real project (~5 KB per tool module), so that a file that fills
# memory is a miss, never a hang.
MAX_CACHE_BYTES = 512 * 1024 * 1024
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def _create(path: Path, text: str) -> None:
    """A new file holding ``text``: ``FileExistsError`` when anything, a link included, is there."""
    fd = os.open(path, _CREATE_FLAGS, 0o666)
    with os.fdopen(fd, "wb") as handle:
        handle.write(text.encode("utf-8"))


def _create_if_missing(path: Path, text: str) -> None:
    if os.path.lexists(path):
        return  # whatever it is (a link included), it is left as it is
    try:
        _create(path, text)
    except FileExistsError:
        return
    except BaseException:
        _unlink_quietly(path)  # a tag or .gitignore cut short by a full disk: retried next run
        raise


# A temporary file older than this was left by a killed run (a live one renames it in seconds).
_ABANDONED_AFTER_SECONDS = 3600


def _remove_abandoned(directory: Path, name: str) -> None:
    import time

    cutoff = time.time() - _ABANDONED_AFTER_SECONDS
    for path in directory.glob(f".{name}.*.tmp"):
        try:
            if os.lstat(path).st_mtime < cutoff:
                os.unlink(path)
        except OSError:
            pass


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
