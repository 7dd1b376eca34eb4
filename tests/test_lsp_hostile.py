"""``hermes-lint lsp`` against a client that sends what it should not: a lying Content-Length,
bytes that are not JSON-RPC, a header line without end, a closed pipe. The server ignores what it
cannot frame or decode and goes on answering, or ends within seconds when nothing after the
message can be framed; never a traceback, never memory in proportion to what it was sent.

The client here is raw bytes over the real process's stdin/stdout; every wait is bounded."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from typing import Optional

import pytest

pytestmark = pytest.mark.slow

WAIT_SECONDS = 30  # bounds: the server answers or stops in milliseconds
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}}


def frame(message) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class RawClient:
    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hermes_lint", "lsp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.messages: "queue.Queue[Optional[dict]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            self.messages.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answer_to(self, request_id) -> dict:
        while True:
            message = self.messages.get(timeout=WAIT_SECONDS)
            assert message is not None, "the server stopped"
            if message.get("id") == request_id and "method" not in message:
                return message

    def peak_memory_kb(self) -> int:
        with open(f"/proc/{self.process.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

    def stop(self) -> tuple:
        """Close stdin; (exit code, stderr) once the server ended."""
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        code = self.process.wait(timeout=WAIT_SECONDS)
        return code, self.process.stderr.read().decode("utf-8", "replace")


def test_a_closed_pipe_ends_the_server_without_a_traceback():
    client = RawClient()
    client.send(frame(INITIALIZE))
    assert "capabilities" in client.answer_to(1)["result"]
    code, stderr = client.stop()
    assert code in (0, 1)
    assert "Traceback" not in stderr


def test_an_announced_message_over_the_limit_ends_the_server_at_once():
    client = RawClient()
    client.send(b"Content-Length: 99999999999999\r\n\r\n{")
    code = client.process.wait(timeout=WAIT_SECONDS)  # ends by itself: stdin still open
    stderr = client.process.stderr.read().decode()
    assert code in (0, 1)
    assert "Traceback" not in stderr
    assert "hermes-lint lsp: stopping: a message of 99999999999999 bytes announced" in stderr


def test_garbage_and_a_body_that_is_not_json_are_ignored_and_the_next_request_answered():
    client = RawClient()
    client.send(b"\x00\xffnot a header at all\r\n\r\nmore garbage\n")
    client.send(b"Content-Length: 12\r\n\r\n{not json!!}")
    client.send(frame(INITIALIZE))
    assert "capabilities" in client.answer_to(1)["result"]
    code, stderr = client.stop()
    assert "Traceback" not in stderr
    assert code in (0, 1)


def test_a_content_length_shorter_than_its_body_loses_that_message_only():
    client = RawClient()
    body = json.dumps({**INITIALIZE, "id": 7}).encode()
    client.send(b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(body) // 2, body))
    client.send(frame(INITIALIZE))
    answer = client.answer_to(1)
    assert "capabilities" in answer["result"]
    code, stderr = client.stop()
    assert "Traceback" not in stderr


def test_an_endless_header_line_does_not_grow_the_servers_memory():
    client = RawClient()
    client.send(frame(INITIALIZE))
    client.answer_to(1)
    before = client.peak_memory_kb()
    chunk = b"x" * (1024 * 1024)
    for _ in range(128):  # 128 MB without a line break
        client.send(chunk)
    client.send(b"\r\n" + frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    assert client.answer_to(2)["result"] is None
    grown_kb = client.peak_memory_kb() - before
    code, stderr = client.stop()
    assert grown_kb < 32 * 1024, f"the peak grew by {grown_kb} KB reading a 128 MB line"
    assert "Traceback" not in stderr


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak memory from /proc")
def test_the_memory_test_can_see_growth():
    """The measurement above is real: a process that holds 64 MB shows it in VmHWM."""
    script = "import sys; data = bytearray(64 * 1024 * 1024); sys.stdout.write('x'); sys.stdout.flush(); sys.stdin.read()"
    process = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdout.read(1) == b"x"
        with open(f"/proc/{process.pid}/status") as status:
            peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        assert peak > 64 * 1024
    finally:
        process.stdin.close()
        process.wait(timeout=WAIT_SECONDS)


def test_shutdown_then_exit_ends_the_server_with_status_0():
    client = RawClient()
    client.send(frame(INITIALIZE))
    client.answer_to(1)
    client.send(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    assert client.answer_to(2)["result"] is None
    client.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    code = client.process.wait(timeout=WAIT_SECONDS)  # by itself: stdin still open
    assert code == 0
    assert "Traceback" not in client.process.stderr.read().decode()
