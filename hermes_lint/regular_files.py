"""Reading a project's files: regular files only, and no more than ``MAX_FILE_BYTES`` of one.

A repository is data it cannot be trusted with: a FIFO named ``tools/x_tool.py`` blocks a plain
``open()`` for ever, and a symlink to ``/dev/zero`` fills memory. So a file is opened without
blocking (``O_NONBLOCK``: opening a FIFO returns at once), checked on the open descriptor (no
race between a check and the read), and read up to the cap.

Standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Optional, Tuple

# Far above any real tool module, toolsets.py or manifest (the largest Hermes tool module is
# ~0.2 MB; a manifest of 20,000 tools ~20 MB), far below what would exhaust memory.
MAX_FILE_BYTES = 64 * 1024 * 1024

# A file modified within one timestamp tick of the moment its stat was taken may be written again
# in that same tick at the same size: its stat would then match and hide the new content. Such a
# stat pins nothing (git's "racily clean" entries): whoever keeps it must compare the content
# again next time. The tick: up to 2 s where timestamps are whole seconds (FAT, HFS+, ext3, some
# network mounts); a kernel clock tick (at most 10 ms) or less where they have a fraction.
RACY_NS = 2_000_000_000
FINE_RACY_NS = 50_000_000

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a directory."""


class FileTooLarge(OSError):
    """The file holds more than the cap."""


def read_regular_file(path, limit: Optional[int] = None) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``limit`` of them
    (default ``MAX_FILE_BYTES``); ``NotRegularFile`` or ``FileTooLarge`` (both ``OSError``)
    instead of blocking or reading without end."""
    if limit is None:
        limit = MAX_FILE_BYTES
    fd = os.open(path, _FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            reason = "it is a directory, not a file" if stat.S_ISDIR(mode) else "not a regular file"
            raise NotRegularFile(errno.EINVAL, reason, os.fspath(path))
        chunks = []
        remaining = limit + 1  # one byte more than allowed tells "too large" from "exactly at it"
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        if remaining <= 0:
            raise FileTooLarge(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


StatKey = Tuple[int, int, int, int]  # size, mtime, ctime (ns), inode: ``stat_key``


def stat_key(info: os.stat_result) -> StatKey:
    """What says a file is unchanged without reading it. Size and mtime alone are not enough:
    ``cp -p``, ``rsync -t``, ``tar x`` and ``touch -r`` give new contents an old mtime. The
    change time cannot be set that way (any write or ``utime`` moves it to now), and the inode
    changes when a file is replaced: git's choice too. Within one timestamp tick of a write it
    says nothing (``settled``)."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def settled(mtime_ns: int, stat_taken_ns: int) -> bool:
    """Whether a stat taken at ``stat_taken_ns`` of a file last modified at ``mtime_ns`` pins its
    content (``RACY_NS``). As git judges it, by the modification time alone: a rewrite that keeps
    an old one (``cp -p``) moves the change time, which a stat key compares too."""
    window = RACY_NS if mtime_ns % 1_000_000_000 == 0 else FINE_RACY_NS
    return mtime_ns < stat_taken_ns - window
