"""Per-file result cache: extracted facts and module diagnostics, reused while nothing changed.

One index file per project under ``.hermes_lint_cache/`` (tagged with ``CACHEDIR.TAG``, ignored by
git). An entry is reused when the file's stat (size, mtime) matches, or, failing that, when its
content hash does; the whole cache is keyed on the toolkit version and the configuration.

Entries are JSON, decoded only into the toolkit's own data classes (an allow-list): a cache
directory that arrives with a repository is data, never code, so it is never unpickled. A
corrupt or tampered entry is dropped and the file is checked afresh.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from hermes_lint import __version__, model
from hermes_lint.noqa import NoqaComment

CACHE_DIR_NAME = ".hermes_lint_cache"
INDEX_NAME = "results-v1.json"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by hermes-lint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)

# Only these classes may be rebuilt from a cache entry.
_CLASSES = {
    cls.__name__: cls
    for cls in (
        model.Location,
        model.Unresolved,
        model.Diagnostic,
        model.CallableRef,
        model.Keyword,
        model.Registration,
        model.MisplacedRegisterCall,
        model.EnvRead,
        model.ModuleFacts,
        NoqaComment,
    )
}


def encode(value: Any) -> Any:
    """Plain data -> JSON-able, keeping tuples, non-string dict keys and the model's classes."""
    if dataclasses.is_dataclass(value) and type(value).__name__ in _CLASSES:
        return {"$c": type(value).__name__, "f": [encode(getattr(value, f.name)) for f in dataclasses.fields(value)]}
    if isinstance(value, tuple):
        return {"$t": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {"$d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"$s": [encode(item) for item in value]}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if "$c" in value:
            cls = _CLASSES[value["$c"]]  # KeyError for anything not allowed
            return cls(*[decode(item) for item in value["f"]])
        if "$t" in value:
            return tuple(decode(item) for item in value["$t"])
        if "$d" in value:
            return {decode(k): decode(v) for k, v in value["$d"]}
        if "$s" in value:
            return frozenset(decode(item) for item in value["$s"])
        raise ValueError("unknown cache object")
    return value


def _toolkit_fingerprint() -> str:
    """Size and mtime of the toolkit's own modules: an edited rule must not reuse old results
    (the version alone does not change between a developer's edits)."""
    package = Path(__file__).resolve().parent
    parts = []
    for path in sorted(package.rglob("*.py")):
        try:
            stat = path.stat()
        except OSError:
            continue
        parts.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class ResultCache:
    """Load once, look up per file, store once."""

    def __init__(self, root: Path, config_fingerprint: str):
        self.directory = root / CACHE_DIR_NAME
        self.key = hashlib.sha256(
            f"{__version__}\n{_toolkit_fingerprint()}\n{config_fingerprint}".encode()
        ).hexdigest()
        self.entries: Dict[str, Any] = {}
        self.changed = False
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads((self.directory / INDEX_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("key") != self.key or not isinstance(data.get("files"), dict):
            return  # another version or configuration: start afresh
        self.entries = data["files"]

    def lookup(self, path: str, stat: Tuple[int, int], read_bytes) -> Tuple[Optional[Any], Optional[bytes]]:
        """(cached ModuleResult or None, the file's bytes if they had to be read)."""
        entry = self.entries.get(path)
        data = None
        if not isinstance(entry, dict):
            return None, None
        if entry.get("stat") != list(stat):
            data = read_bytes()
            if data is None or hashlib.sha256(data).hexdigest() != entry.get("sha256"):
                return None, data
        try:
            from hermes_lint.engine import ModuleResult

            payload = entry["result"]
            if hashlib.sha256(payload.encode()).hexdigest() != entry.get("check"):
                raise ValueError("checksum mismatch")
            facts, diagnostics, noqa = decode(json.loads(payload))
            result = ModuleResult(facts, tuple(diagnostics), tuple(noqa))
            if not isinstance(result.facts, model.ModuleFacts):
                raise ValueError("not module facts")
        except Exception:  # corrupt or tampered: discard, never trust
            self.entries.pop(path, None)
            self.changed = True
            return None, data
        if entry.get("stat") != list(stat):
            entry["stat"] = list(stat)  # same content, new mtime (e.g. `touch`)
            self.changed = True
        return result, data

    def store(self, path: str, stat: Tuple[int, int], result: Any) -> None:
        payload = json.dumps(encode((result.facts, result.diagnostics, result.noqa)), separators=(",", ":"))
        self.entries[path] = {
            "stat": list(stat),
            "sha256": result.facts.sha256,
            "check": hashlib.sha256(payload.encode()).hexdigest(),
            "result": payload,
        }
        self.changed = True

    def prune(self, live_paths) -> None:
        for path in set(self.entries) - set(live_paths):
            del self.entries[path]
            self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        try:
            self.directory.mkdir(exist_ok=True)
            tag = self.directory / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text(CACHEDIR_TAG, encoding="utf-8")
                (self.directory / ".gitignore").write_text("*\n", encoding="utf-8")
            text = json.dumps({"key": self.key, "files": self.entries}, separators=(",", ":"))
            temporary = self.directory / f".{INDEX_NAME}.{os.getpid()}.tmp"
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, self.directory / INDEX_NAME)
        except OSError:
            pass  # a read-only checkout still gets its diagnostics; only the speed-up is lost
