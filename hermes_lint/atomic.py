"""Atomic file writes: a reader sees the old file or the new one, never half of either.

Both helpers write a temporary file in the target's directory (same filesystem, so the final
step is a rename or a link, not a copy), flush it to disk, and only then make it visible:

- ``write_atomic`` replaces the target (``os.replace``), keeping the old file's permission bits;
- ``write_new`` refuses to overwrite: the temporary file is hard-linked to the target name, and
  ``link`` fails when that name exists, so two writers racing for one path cannot both win.

Standard library only.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path
from typing import Optional, Union

PathLike = Union[str, "os.PathLike[str]"]

# Modes for new files: umask applies, as for any file an editor would create.
_NEW_FILE_MODE = 0o666
# link() is unsupported on some filesystems (FAT, some network mounts): then fall back to an
# O_EXCL create, which still never overwrites but is not atomic for concurrent readers.
_LINK_UNSUPPORTED = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EXDEV}


def write_atomic(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path``, replacing any existing regular file in one step.

    Anything else at ``path`` (a device, a FIFO, a directory: ``os.replace`` would put a regular
    file in place of ``/dev/null``) raises ``OSError`` and is left as it is."""
    target = Path(path)
    try:
        status = os.stat(target)
    except FileNotFoundError:
        mode: Optional[int] = None
    else:
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EEXIST, "not a regular file; it is never replaced", str(target))
        mode = stat.S_IMODE(status.st_mode)
    temp = _write_temp(target, data, mode)
    try:
        os.replace(temp, target)
    except BaseException:
        _unlink_quietly(temp)
        raise
    _fsync_directory(target.parent)


def write_new(path: PathLike, data: bytes) -> None:
    """Create ``path`` holding ``data``; ``FileExistsError`` if it exists (it is never touched)."""
    target = Path(path)
    if os.path.lexists(target):  # fail before writing anything; link() re-checks atomically
        raise FileExistsError(errno.EEXIST, "File exists", str(target))
    temp = _write_temp(target, data, None)
    try:
        os.link(temp, target)
    except OSError as exc:
        if exc.errno not in _LINK_UNSUPPORTED:
            raise
        _create_exclusive(target, data)
    finally:
        _unlink_quietly(temp)
    _fsync_directory(target.parent)


def _write_temp(target: Path, data: bytes, mode: Optional[int]) -> Path:
    """A fully written, fsynced temporary file next to ``target``."""
    for _ in range(100):
        temp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _NEW_FILE_MODE)
        except FileExistsError:
            continue
        break
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(target.parent))
    _fill(fd, temp, data, mode)
    return temp


def _create_exclusive(target: Path, data: bytes) -> None:
    _fill(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _NEW_FILE_MODE), target, data, None)


def _fill(fd: int, path: Path, data: bytes, mode: Optional[int]) -> None:
    """Write ``data`` to the file just created at ``path`` (open as ``fd``), fsync it and set
    its ``mode``; on any failure the file is removed."""
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(path, mode)
    except BaseException:
        _unlink_quietly(path)
        raise


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable. Not possible on every platform (Windows): best effort.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
