"""Asking a running ``hermes-lint server`` (``server.py``) for one file's diagnostics.

The flake8 plugin's side, which runs in every editor save's new flake8 process: the standard
library's ``socket`` and ``json`` only, imported once a server's socket is there. Any failure
(no socket, nobody listening, a timeout, a reply that is not one, a server of another toolkit
or configuration) is None, and the plugin checks in process as it would without a server.

One request per connection: the client sends a JSON object and shuts its side down; the server
answers with one JSON object and closes. The request carries the cache's key text
(``check.cache_identity``): results are valid only between the same toolkit and configuration.
"""

from __future__ import annotations

import os
import stat
from typing import List, Optional, Tuple  # already imported by flake8 and the plugin

from hermes_lint.check.cache_identity import CACHE_DIR_NAME

Row = Tuple[int, int, str, str]  # line, column (1-based), code, message

PROTOCOL = 1
SOCKET_NAME = "server.sock"
# Long enough for a project's first check by a server started on a cold cache (the fallback
# would take as long); short enough that a stuck server does not hang the editor's linter.
TIMEOUT_SECONDS = 10.0
MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # far above any tool module's text or findings
# sockaddr_un.sun_path holds 108 bytes on Linux, 104 on macOS and the BSDs, NUL included.
_MAX_ADDRESS_BYTES = 103


def supported() -> bool:
    """Unix domain sockets (POSIX): elsewhere there is no server and the plugin checks in process."""
    return os.name == "posix"


def socket_path(root: str) -> str:
    return os.path.join(root, CACHE_DIR_NAME, SOCKET_NAME)


def address(path: str) -> Optional[str]:
    """The address to bind or connect ``path`` by: the path itself, or where it is too long for a
    socket address, the same path relative to the current directory (usually inside the
    project); None when neither fits."""
    if len(os.fsencode(path)) <= _MAX_ADDRESS_BYTES:
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return None
    return relative if len(os.fsencode(relative)) <= _MAX_ADDRESS_BYTES else None


def serving(root: str) -> bool:
    """Whether a server's socket is in the project's cache directory, owned by this user (a
    socket someone else made there could answer anything)."""
    if not supported():
        return False
    try:
        found = os.lstat(socket_path(root))
    except OSError:
        return False
    return stat.S_ISSOCK(found.st_mode) and found.st_uid == os.getuid()


def receive_all(connection, limit: int = MAX_MESSAGE_BYTES) -> bytes:
    """Everything the peer sends until it shuts its side down; ValueError beyond ``limit``."""
    chunks: List[bytes] = []
    size = 0
    while True:
        chunk = connection.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise ValueError(f"message longer than {limit} bytes")
        chunks.append(chunk)


def ask(root: str, relative: str, text: str, key: str, run: str) -> Optional[List[Row]]:
    """The server's diagnostics for the project file ``relative`` holding ``text``, as the
    plugin reports them; None when no server gives a valid answer. ``run``: the flake8 run
    asking (the server reads the project once per run, as the plugin does)."""
    where = address(socket_path(root))
    if where is None:
        return None
    import json
    import socket

    request = json.dumps(
        {"protocol": PROTOCOL, "key": key, "run": run, "root": root, "path": relative, "text": text}
    ).encode("utf-8")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(TIMEOUT_SECONDS)
            connection.connect(where)
            connection.sendall(request)
            connection.shutdown(socket.SHUT_WR)
            reply = json.loads(receive_all(connection))
    except (OSError, ValueError, RecursionError):  # no server, a timeout, not JSON
        return None
    return rows_of(reply)


def rows_of(reply: object) -> Optional[List[Row]]:
    """The rows of an ``ok`` reply, checked for shape; None for anything else."""
    if not (isinstance(reply, dict) and reply.get("status") == "ok" and isinstance(reply.get("diagnostics"), list)):
        return None
    rows = []
    for item in reply["diagnostics"]:
        if not (isinstance(item, list) and len(item) == 4):
            return None
        line, col, code, message = item
        if not (type(line) is int and type(col) is int and isinstance(code, str) and isinstance(message, str)):
            return None
        rows.append((line, col, code, message))
    return rows
