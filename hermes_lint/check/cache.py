"""Per-file result cache: extracted facts and module diagnostics, reused while nothing changed.

One index file per project under ``.hermes_lint_cache/`` (tagged with ``CACHEDIR.TAG``, ignored by
git). An entry is reused when the file's stat (size, mtime, ctime, inode) matches, or, failing
that, when its content hash does; a stat taken within one timestamp tick of the file's last
change is not recorded (``regular_files.settled``), since a rewrite within that tick would keep
it. The whole cache is keyed on the toolkit version and the configuration.
Beside it, a small file holds the last run's final diagnostics with the stat of every input
(``runner.check_project``): when nothing changed they are reused as they are, without loading the
index.

An index entry holds what the project phase reads of the module (``project_view``: its
registrations' names, toolsets, locations and the few other facts project rules use, without
schemas, handlers or environment reads) with its module diagnostics and ``# noqa`` comments:
~0.6 KB with the entry's stat and hashes. The full facts (~3-5 KB, schemas included) are in a
file of their own under ``modules/``, named by the hash of its content, read only by what needs
them (the manifest, the flake8 plugin's snapshot, a project rule that reads schemas). So after
one file is edited, ``check`` rewrites the small index and writes one module file, and its
project phase decodes the compact entries.

Entries are JSON, decoded only into the toolkit's own data classes (an allow-list): a cache
directory that arrives with a repository is data, never code, so it is never unpickled. A
corrupt or tampered entry is dropped and the file is checked afresh.

The encoding is ``cache_codec``'s; an index entry's compact part is ``project_records``'.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from stat import S_ISDIR
from typing import Any, Dict, List, Optional, Tuple

from hermes_lint import model
from hermes_lint.check.cache_codec import DECODER, allow_classes, allow_model_classes, encode, loads, sha256_hex
from hermes_lint.check.project_records import from_project_record, project_record
from hermes_lint.regular_files import read_regular_file
from hermes_lint.config import leaves_root
from hermes_lint.check.cache_identity import CACHE_DIR_NAME
from hermes_lint.check.cache_identity import key_text as _key_text
from hermes_lint.check.cache_identity import toolkit_fingerprint as _toolkit_fingerprint

INDEX_NAME = "results-v4.json"
_OLD_INDEX_NAMES = ("results-v2.json", "results-v3.json")  # removed when the index is written
MODULES_DIR_NAME = "modules"  # the full facts of each module: ``ResultCache.lookup(full=True)``
PROJECT_NAME = "project-v2.json"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by hermes-lint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)



class ResultCache:
    """Load once (on first use), look up per file, store once."""

    def __init__(self, root: Path, config_fingerprint: str):
        self.directory = root / CACHE_DIR_NAME
        # What every entry depends on, as text: compared as it is by the project file, hashed
        # into ``key`` for the index.
        self.key_text = _key_text(config_fingerprint, _toolkit_fingerprint())
        self._key: Optional[str] = None
        self._entries: Optional[Dict[str, Any]] = None
        self.changed = False
        self.root = root
        self.checked: Tuple[int, int] = (0, 0)  # of the diagnostics ``project_diagnostics`` gave back
        self._current_hashes: Dict[str, str] = {}  # project file -> sha256 now (read_modules)
        self._new_modules: Dict[str, str] = {}  # module files to write: name -> text
        self._toolsets: Optional[Dict[str, Any]] = None  # toolsets.py's sha256 and facts
        # What the project file reused by ``project_diagnostics`` says each module read, and
        # what its project phase read (``project_reads``; None: nothing through the root).
        self.project_module_reads: Optional[Dict[str, Tuple[str, ...]]] = None
        self.project_reads: Optional[Dict[str, Any]] = None

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = sha256_hex(self.key_text.encode())
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
        if isinstance(data.get("toolsets"), dict):
            self._toolsets = data["toolsets"]
        return data["files"]

    def toolsets_facts(self, data: bytes, read):
        """``read(data)``'s result (the ``ToolsetsFacts`` of toolsets.py's bytes), from the index
        while the bytes are those it was computed from."""
        from hermes_lint.project.toolsets_file import ToolsetDef, ToolsetsFacts

        allow_classes(ToolsetDef=ToolsetDef, ToolsetsFacts=ToolsetsFacts)  # only here: they import the evaluator
        sha256 = sha256_hex(data)
        if self._entries is None:  # the index holds the last toolsets.py's facts too
            self._entries = self._load()
        entry = self._toolsets
        if isinstance(entry, dict) and entry.get("sha256") == sha256 and isinstance(entry.get("facts"), str):
            try:
                facts = DECODER.decode(entry["facts"])
                if type(facts) is ToolsetsFacts:
                    return facts
            except Exception:  # corrupt or tampered: read the file again
                pass
        facts = read(data)
        try:
            text = json.dumps(encode(facts), separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):  # a value the cache does not keep
            self._toolsets = None
        else:
            self._toolsets = {"sha256": sha256, "facts": text}
        if entry != self._toolsets:
            self.changed = True
        return facts

    def lookup(
        self, path: str, stat: Tuple[int, ...], read_bytes, *, full: bool = True, settled: bool = True
    ) -> Tuple[Optional[Any], Optional[bytes]]:
        """(cached ModuleResult or None, the file's bytes if they had to be read).

        ``full=False``: the facts are the module's ``project_view``, read from the index alone.
        ``settled=False``: ``stat`` is too recent to pin the content (``regular_files.settled``):
        it is not recorded, so the next run compares the content hash again."""
        entry = self.entries.get(path)
        data = None
        if not isinstance(entry, dict):
            return None, None
        if entry.get("stat") != list(stat):
            data = read_bytes()
            if data is None or sha256_hex(data) != entry.get("sha256"):
                return None, data
        if not self._read_modules_unchanged(entry.get("read_modules", ())):
            return None, data
        try:
            from hermes_lint.check.engine import ModuleResult

            allow_model_classes()
            record, name, sha256 = entry["project"], entry["full"], entry["sha256"]
            if not (isinstance(record, str) and isinstance(name, str) and isinstance(sha256, str)):
                raise ValueError("not an entry")
            if zlib.crc32(f"{record}\0{name}".encode()) != entry.get("check"):
                raise ValueError("checksum mismatch")
            if full:
                facts, diagnostics, noqa = DECODER.decode(self._read_module(name))
            else:
                read_modules = tuple(tuple(item) for item in entry.get("read_modules", ()))
                facts, diagnostics, noqa = from_project_record(record, path, sha256, read_modules)
            if not isinstance(facts, model.ModuleFacts) or facts.path != path:
                raise ValueError("not this module's facts")
            result = ModuleResult(facts, tuple(diagnostics), tuple(noqa))
        except Exception:  # missing, corrupt or tampered: discard, never trust
            self.entries.pop(path, None)
            self.changed = True
            return None, data
        recorded = list(stat) if settled else []  # same content, new mtime (e.g. `touch`)
        if entry.get("stat") != recorded:
            entry["stat"] = recorded
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
            current = self._current_hashes.get(path)  # only paths that passed the test below
            if current is None:
                if not path or leaves_root(path):
                    return False  # a tampered entry naming a file outside the project: a miss
                try:
                    current = sha256_hex(read_regular_file(self.root / path))
                except (OSError, ValueError):
                    current = ""
                self._current_hashes[path] = current
            if current != sha256:
                return False
        return True

    def store(self, path: str, stat: Optional[Tuple[int, ...]], result: Any) -> None:
        """``stat`` None: one too recent to pin the content (``regular_files.settled``), not recorded."""
        allow_model_classes()
        record = project_record(result.facts, result.diagnostics, result.noqa)
        text = json.dumps(encode((result.facts, result.diagnostics, result.noqa)), separators=(",", ":"))
        name = sha256_hex(text.encode())
        self._new_modules[name] = text
        self.entries[path] = {
            "stat": list(stat) if stat is not None else [],
            "sha256": result.facts.sha256,
            "check": zlib.crc32(f"{record}\0{name}".encode()),
            "project": record,
            "full": name,
            "read_modules": [list(item) for item in result.facts.read_modules],
        }
        self.changed = True

    def prune(self, live_paths) -> None:
        for path in set(self.entries) - set(live_paths):
            del self.entries[path]
            self.changed = True

    def save(self) -> None:
        """The new module files, then the index naming them; then module files no entry names."""
        if not self.changed:
            return
        live = {entry.get("full") for entry in self.entries.values() if isinstance(entry, dict)}
        new = [(name, text) for name, text in self._new_modules.items() if name in live]
        directory = self._modules_directory() if new else None
        if directory is not None:
            for name, text in new:
                self._write_module(directory, name, text)
        self._new_modules.clear()
        index = {"key": self.key, "files": self.entries}
        if self._toolsets is not None:
            index["toolsets"] = self._toolsets
        text = json.dumps(index, separators=(",", ":"))
        self._write(INDEX_NAME, text)
        for old in _OLD_INDEX_NAMES:  # an earlier version's index: megabytes nothing reads
            try:
                (self.directory / old).unlink()
            except OSError:
                pass
        self._remove_unnamed_modules(live)

    def _remove_unnamed_modules(self, live) -> None:
        """Module files that no entry of the index names any more (an edited or removed tool
        module's earlier facts). One written in the last minute is left: another run's index,
        about to be written, may name it."""
        import time

        directory = self.directory / MODULES_DIR_NAME
        if not self._usable(directory):
            return
        cutoff = time.time() - 60
        try:
            with os.scandir(directory) as found:
                for item in found:
                    if item.name.endswith(".json") and item.name[:-5] not in live:
                        old = cutoff
                    elif item.name.endswith(".tmp"):  # left by a killed run
                        old = cutoff - _ABANDONED_AFTER_SECONDS
                    else:
                        continue
                    try:
                        if item.is_symlink() or item.stat(follow_symlinks=False).st_mtime < old:
                            os.unlink(item.path)
                    except OSError:
                        pass
        except OSError:
            pass

    # --- the whole project's diagnostics -------------------------------------------------

    def project_diagnostics(self, state: str) -> Optional[List[model.Diagnostic]]:
        """The final diagnostics of the last run if its inputs had exactly this ``state``; the
        caller checks ``project_reads`` too, when they are not None."""
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
        checked = data.get("checked")
        if not (isinstance(checked, list) and len(checked) == 2 and all(type(n) is int for n in checked)):
            return None
        self.checked = (checked[0], checked[1])
        self.project_reads = data.get("project_reads")
        reads = data.get("module_reads")
        self.project_module_reads = (
            {module: tuple(paths) for module, paths in reads.items()}
            if isinstance(reads, dict) and all(isinstance(p, list) and all(isinstance(x, str) for x in p) for p in reads.values())
            else None
        )
        return diagnostics

    def store_project_diagnostics(
        self,
        state: str,
        diagnostics: List[model.Diagnostic],
        read_modules: Tuple[Tuple[str, str], ...] = (),
        module_reads: Optional[Dict[str, Tuple[str, ...]]] = None,
        checked: Tuple[int, int] = (0, 0),
        project_reads: Optional[Dict[str, Any]] = None,
    ) -> None:
        """``read_modules``: files outside ``state`` (not tool modules) whose content the
        diagnostics depend on, with their sha256; ``module_reads``: each tool module that read
        values from other files -> those files (``affected.module_reads``), which a reuse of
        these diagnostics for ``check PATHS`` needs (``project_module_reads``); ``checked``:
        (registrations read, register calls not read), for the summary line (``checked`` after
        ``project_diagnostics``); ``project_reads``: what the project phase read through the
        project root (``project_reads``), when it did."""
        payload = json.dumps(encode(list(diagnostics)), separators=(",", ":"))
        text = json.dumps(
            {
                "key": self.key_text,
                "state": state,
                "read_modules": [list(item) for item in read_modules],
                "module_reads": {module: list(paths) for module, paths in (module_reads or {}).items() if paths},
                "crc32": zlib.crc32(payload.encode()),
                "diagnostics": payload,
                "checked": list(checked),
                "project_reads": project_reads,
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

    def _usable(self, directory: Optional[Path] = None) -> bool:
        """The cache directory (or ``directory`` in it) is absent or a real directory (not a
        symbolic link to one)."""
        try:
            mode = os.lstat(self.directory if directory is None else directory).st_mode
        except FileNotFoundError:
            return True
        except OSError:
            return False
        return S_ISDIR(mode)

    def _read(self, name: str) -> str:
        if not self._usable():
            raise OSError(f"{self.directory}: not a directory")
        return read_regular_file(self.directory / name, MAX_CACHE_BYTES).decode("utf-8")

    def _read_module(self, name: str) -> str:
        """The text of the module file ``name`` (the sha256 of that text, checked)."""
        if len(name) != 64 or not all(c in "0123456789abcdef" for c in name):
            raise ValueError("not a module file name")
        directory = self.directory / MODULES_DIR_NAME
        if not (self._usable() and self._usable(directory)):
            raise OSError(f"{directory}: not a directory")
        text = read_regular_file(directory / f"{name}.json", MAX_CACHE_BYTES).decode("utf-8")
        if sha256_hex(text.encode()) != name:
            raise ValueError("module file damaged")
        return text

    def _modules_directory(self) -> Optional[Path]:
        """The directory of module files, made if missing; None when it cannot be used."""
        directory = self.directory / MODULES_DIR_NAME
        try:
            if not (self.prepare_directory() and self._usable(directory)):
                return None
            directory.mkdir(exist_ok=True)
        except OSError:
            return None
        return directory if self._usable(directory) else None  # not replaced by a link meanwhile

    def _write_module(self, directory: Path, name: str, text: str) -> None:
        """The module file ``name`` (the sha256 of ``text``), created as the index is."""
        temporary = directory / f".{name}.{os.urandom(8).hex()}.tmp"
        try:
            try:
                _create(temporary, text)
                os.replace(temporary, directory / f"{name}.json")
            except BaseException:
                _unlink_quietly(temporary)  # a full disk must not collect half-written files
                raise
        except OSError:
            pass

    def prepare_directory(self) -> bool:
        """The cache directory, tagged and ignored by git: False when it is not usable."""
        if not self._usable():
            return False
        self.directory.mkdir(exist_ok=True)
        if not self._usable():  # replaced by a link since the check above
            return False
        _create_if_missing(self.directory / "CACHEDIR.TAG", CACHEDIR_TAG)
        _create_if_missing(self.directory / ".gitignore", "*\n")
        return True

    def write_file(self, name: str, text: str) -> None:
        """``text`` as the cache directory's file ``name``, written as the index is (atomically,
        never through a link); nothing when the directory cannot be used."""
        self._write(name, text)

    def _write(self, name: str, text: str) -> None:
        try:
            if not self.prepare_directory():
                return
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


# Far above the index of any real project (~0.6 KB per tool module), so that a file that fills
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
