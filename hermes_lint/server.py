"""``hermes-lint server``: a long-lived process that answers the flake8 plugin (the model of
eslint_d and dmypy).

An editor runs a new flake8 process on every save; when the saved file changed since the last
run, that process would import the checker and read the project, which costs more than flake8's
own work on the file. The server does both once, then answers "the diagnostics of this file with
this text" over a Unix domain socket in the project's ``.hermes_lint_cache/``
(``server_client``), with ``flake8_plugin.check_buffer``: the very function the plugin runs in
process, so the answer is the same. Each new flake8 run makes it read the project again as the
plugin does (every file's stat, the cache, toolsets.py, the configuration), so files changed
between requests are seen.

Every request carries the cache's key text (version, configuration, toolkit files), as the
client computes it now. A server whose toolkit differs (another install, or its files edited or
upgraded since it started: the server still runs the code it imported then) answers "mismatch"
and stops, rather than answer with old rules for ever; a configuration that differs only between
the two is answered "mismatch" and the server stays. Either way the client checks in process.

One server per project: it holds an exclusive lock on ``server.lock`` beside its socket while it
runs; a second one refuses to start, and a socket file that no running server holds (left by a
killed one) is replaced. The socket is created with mode 0600, and removed on exit: after
``idle_timeout`` seconds without a request, on SIGTERM, SIGHUP or Ctrl-C.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from pathlib import Path, PurePosixPath
from typing import Any, Dict, Optional, Tuple

from hermes_lint import flake8_plugin, server_client
from hermes_lint.check.cache_identity import key_parts, key_text, pin_toolkit_fingerprint
from hermes_lint.config import ConfigError

LOCK_NAME = "server.lock"
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
# How often an idle server looks whether its socket is still its own (the cache directory
# deleted, or another server started after it): it then stops, unreachable anyway.
_POLL_SECONDS = 30.0


_UNSUPPORTED = "hermes-lint server needs Unix domain sockets (POSIX); here the flake8 plugin checks in process"


class ServerError(Exception):
    """The server cannot start here; one line for the user."""


class _Stop(BaseException):
    """SIGTERM or SIGHUP: leave the loop and clean up. Not an ``Exception``: the handler raises
    it wherever the server is (reading the project, answering), and those places catch every
    ``Exception`` so that one bad request cannot take the server down."""


class Server:
    def __init__(self, root: Path, idle_timeout: float = DEFAULT_IDLE_TIMEOUT):
        self.root = root
        self.idle_timeout = idle_timeout
        self.path = server_client.socket_path(str(root))
        self.toolkit = pin_toolkit_fingerprint()  # the code this process runs, as at its start
        self.listener: Optional[socket.socket] = None
        self._lock_fd: Optional[int] = None
        self._identity: Optional[Tuple[int, int]] = None  # (device, inode) of our socket file
        self._run: Optional[str] = None  # the flake8 run the project was last read for

    # --- starting and stopping ----------------------------------------------------------

    def start(self) -> None:
        """Take the project's server lock and listen; ServerError when that cannot be done."""
        if not server_client.supported():
            raise ServerError(_UNSUPPORTED)
        where = server_client.address(self.path)
        if where is None:
            raise ServerError(
                f"{self.path}: too long for a socket address; start the server from the project directory"
            )
        self._lock()
        try:
            self._listen(where)
        except BaseException:
            self.close()
            raise

    def _lock(self) -> None:
        import fcntl

        from hermes_lint.check.cache import ResultCache

        cache = ResultCache(self.root, "")  # the directory only: created, tagged, ignored by git
        try:
            usable = cache.prepare_directory()
        except OSError as exc:
            raise ServerError(f"{cache.directory}: cannot create it: {exc.strerror or exc}") from None
        if not usable:
            raise ServerError(f"{cache.directory}: not a directory (a symbolic link is not used)")
        lock_path = os.path.join(cache.directory, LOCK_NAME)
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:
            raise ServerError(f"{lock_path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            raise ServerError(
                f"a hermes-lint server is already running for {self.root}"
                + (f" (pid {holder})" if holder else "")
                + f"; it listens on {self.path}"
            ) from None
        except OSError as exc:
            os.close(fd)
            raise ServerError(f"{lock_path}: cannot lock it: {exc.strerror or exc}") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _listen(self, where: str) -> None:
        # Holding the lock, no other server uses the socket file: whatever is there was left
        # by one that was killed.
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise ServerError(f"{self.path}: cannot replace it: {exc.strerror or exc}") from None
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = os.umask(0o177)  # created 0600: only this user may ask (or be answered)
        try:
            listener.bind(where)
        except OSError as exc:
            listener.close()
            raise ServerError(f"{self.path}: cannot listen there: {exc.strerror or exc}") from None
        finally:
            os.umask(previous)
        found = os.lstat(self.path)
        self._identity = (found.st_dev, found.st_ino)
        listener.listen(16)
        self.listener = listener

    def close(self) -> None:
        """Stop listening and remove the socket, if it is still ours; release the lock."""
        if self.listener is not None:
            self.listener.close()
            self.listener = None
            if self._owns_socket():
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
            self._identity = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the lock; the file stays (removing it would race)
            self._lock_fd = None

    def _owns_socket(self) -> bool:
        try:
            found = os.lstat(self.path)
        except OSError:
            return False
        return self._identity == (found.st_dev, found.st_ino)

    # --- serving ------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Import the checker and bring the project's cache up to date (what ``hermes-lint
        check`` does), so that the first request costs what the others do. Requests arriving
        meanwhile wait in the socket's queue."""
        from hermes_lint.project_check import run_project

        try:
            run_project(self.root, flake8_plugin.project_config(self.root), use_cache=True)
        except Exception as exc:  # a request will say what is wrong, or the client checks in process
            _log(f"reading the project failed: {type(exc).__name__}: {exc}")

    def serve(self) -> str:
        """Answer requests until idle, signalled or stale; why it stopped."""
        assert self.listener is not None, "start() first"
        deadline = time.monotonic() + self.idle_timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return f"idle for {_duration(self.idle_timeout)}"
            self.listener.settimeout(min(remaining, _POLL_SECONDS))
            try:
                connection, _ = self.listener.accept()
            except socket.timeout:
                if not self._owns_socket():
                    return f"{self.path} was removed or replaced"
                continue
            except ConnectionAbortedError:  # a client that gave up while queued: the next one
                continue
            with connection:
                stop = self._handle(connection)
            deadline = time.monotonic() + self.idle_timeout
            if stop is not None:
                return stop

    def _handle(self, connection: socket.socket) -> Optional[str]:
        connection.settimeout(server_client.TIMEOUT_SECONDS)
        try:
            data = server_client.receive_all(connection)
        except (OSError, ValueError):  # a client that went away, or sent too much
            return None
        reply, stop = self.answer(data)
        try:
            connection.sendall(json.dumps(reply).encode("utf-8"))
        except OSError:  # the client gave up waiting
            pass
        return stop

    def answer(self, data: bytes) -> Tuple[Dict[str, Any], Optional[str]]:
        """(the reply to one request, why the server must stop after it, or None)."""
        try:
            request = json.loads(data)
        except (ValueError, RecursionError):
            return _error("the request is not JSON"), None
        if not isinstance(request, dict):
            return _error("the request is not a JSON object"), None
        if request.get("protocol") != server_client.PROTOCOL:
            reason = f"the client speaks protocol {request.get('protocol')!r}, this server {server_client.PROTOCOL}"
            return _mismatch(reason), f"a client of another hermes-lint asked ({reason})"
        names = ("key", "run", "root", "path", "text")
        wrong = [name for name in names if not isinstance(request.get(name), str)]
        if wrong:
            return _error(f"the request's {', '.join(wrong)} must be text"), None
        fields: Dict[str, str] = {name: request[name] for name in names}
        if fields["root"] != str(self.root):
            return _mismatch(f"this server checks {self.root}, not {fields['root']}"), None
        relative = PurePosixPath(fields["path"])
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            return _error(f"{fields['path']!r} is not a path inside the project"), None
        try:
            ours = key_text(flake8_plugin.project_config(self.root).fingerprint(), self.toolkit)
            if fields["key"] != ours:  # read it again: its stat may hide an edit the client saw
                ours = key_text(flake8_plugin.project_config(self.root, again=True).fingerprint(), self.toolkit)
            if fields["key"] != ours:
                version, _, toolkit = key_parts(fields["key"])
                if (version, toolkit) != (key_parts(ours)[0], self.toolkit):
                    reason = "the client runs another hermes-lint (version or files)"
                    return _mismatch(reason), reason
                return _mismatch("the client read another configuration"), None
            if fields["run"] != self._run:
                flake8_plugin.new_run()  # a new flake8 run: the project is read again
                self._run = fields["run"]
            found = flake8_plugin.check_buffer(
                os.path.join(self.root, *relative.parts), [fields["text"]], str(self.root), use_cache=True
            )
        except ConfigError as exc:  # the client checks in process and reports it as it does
            return _error(f"configuration: {exc}"), None
        except Exception as exc:  # one bad request must not take the server down
            _log(f"internal error on {fields['path']}: {type(exc).__name__}: {exc}")
            return _error(f"internal error: {type(exc).__name__}: {exc}"), None
        return {"status": "ok", "diagnostics": [[d.line, d.col, d.code, d.message] for d in found]}, None


def _error(message: str) -> Dict[str, Any]:
    return {"status": "error", "message": message}


def _mismatch(reason: str) -> Dict[str, Any]:
    return {"status": "mismatch", "reason": reason}


def _read_pid(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return text if text.isdigit() else ""


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"


def _log(message: str) -> None:
    sys.stderr.write(f"hermes-lint server: {message}\n")
    sys.stderr.flush()


def run_server(root: Path, idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> None:
    """Serve the project at ``root`` in the foreground until idle, stale or signalled."""
    if not server_client.supported():  # before anything POSIX-only (SIGHUP, fcntl) is touched
        raise ServerError(_UNSUPPORTED)
    server = Server(root, idle_timeout)

    def stop(signum: int, frame: Any) -> None:
        for other in stopping:  # stopping already: a second signal must not cut the clean-up short
            signal.signal(other, signal.SIG_IGN)
        raise _Stop(signal.Signals(signum).name)

    stopping = (signal.SIGTERM, signal.SIGHUP)
    previous = {signum: signal.signal(signum, stop) for signum in stopping}
    try:
        server.start()
        _log(f"listening on {server.path} for {root} (stops after {_duration(idle_timeout)} idle)")
        server.warm_up()
        reason = server.serve()
    except _Stop as exc:
        reason = f"{exc}"
    except KeyboardInterrupt:
        reason = "interrupted"
    finally:
        for signum in stopping:  # however it stopped: the clean-up runs to its end
            signal.signal(signum, signal.SIG_IGN)
        server.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    _log(f"stopped: {reason}")
