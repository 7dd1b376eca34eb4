"""Latency of ``hermes-lint lsp``: from a ``didChange`` of a real-sized tool file (the one of
``gen_real_sized``'s corpus nearest to 1,000 lines) to the ``publishDiagnostics`` for that
version, against checking the same edited text in this process, measured in the same run.

The in-process baseline is the flake8 plugin's ``check_buffer`` on the project already read
(what a long-lived process pays for one edit: that file's per-file phase and the project rules),
and ``check_module`` alone (the file's per-file phase). Every edit changes a description, so no
result is reused. The server is measured with its default debounce (what an editor gets) and
with none (``initializationOptions.debounce = 0``: the server's own overhead).

    python benchmarks/bench_lsp.py [--tools 20] [--repeat 25] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_corpus import generate  # noqa: E402


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def read_message(out) -> Optional[dict]:
    """The next JSON-RPC message the server writes on ``out``; None once it closed the stream."""
    length = 0
    while True:
        line = out.readline()
        if not line:
            return None
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        if line == b"\r\n":
            break
    return json.loads(out.read(length))


class Server:
    """``hermes-lint lsp`` in a subprocess, and the time each diagnostics message arrived."""

    def __init__(self, root: Path, debounce_ms: Optional[float]):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hermes_lint", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, cwd=root,
        )
        self.published: Dict[int, float] = {}  # version -> when its diagnostics arrived
        self.answered = threading.Event()
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        options = {} if debounce_ms is None else {"debounce": debounce_ms}
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": root.as_uri(), "capabilities": {}, "initializationOptions": options,
        }})
        if not self.answered.wait(60):
            raise RuntimeError("the server did not answer initialize")
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def _read(self) -> None:
        while True:
            message = read_message(self.process.stdout)
            if message is None:
                return
            now = time.perf_counter()
            if message.get("id") == 1:
                self.answered.set()
            if message.get("method") == "textDocument/publishDiagnostics":
                with self.arrived:
                    self.published[message["params"].get("version")] = now
                    self.arrived.notify_all()

    def send(self, message: dict) -> None:
        self.process.stdin.write(frame(message))
        self.process.stdin.flush()

    def wait_for(self, version: int) -> float:
        with self.arrived:
            if not self.arrived.wait_for(lambda: version in self.published, timeout=60):
                raise RuntimeError(f"no diagnostics for version {version}")
            return self.published[version]

    def stop(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.process.stdin.close()
        self.process.wait(30)


def edited(text: str, number: int) -> str:
    """The text with one description changed (every edit distinct: nothing is reused)."""
    changed = text.replace('"description": "', f'"description": "Edit {number}. ', 1)
    if changed == text:
        raise SystemExit("the file has no description to edit")
    return changed


class Session:
    """One document open in one server, edited a version at a time."""

    def __init__(self, root: Path, path: Path, text: str, debounce_ms: Optional[float]):
        self.server = Server(root, debounce_ms)
        self.uri, self.text, self.version = path.as_uri(), text, 0
        self.server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": self.uri, "languageId": "python", "version": 0, "text": text}}})
        self.server.wait_for(0)

    def edit(self, number: int) -> float:
        """Seconds from sending the edit to its diagnostics' arrival."""
        self.version += 1
        started = time.perf_counter()
        self.server.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [{"text": edited(self.text, number)}]}})
        return self.server.wait_for(self.version) - started


def in_process(root: Path, path: Path):
    """Callables timing one edit checked in this process: check_buffer, check_module."""
    from hermes_lint import flake8_plugin
    from hermes_lint.check.engine import SourceFile, check_module

    config = flake8_plugin.project_config(root)
    relative = path.relative_to(root).as_posix()

    def whole(text: str) -> float:
        started = time.perf_counter()
        flake8_plugin.check_buffer(str(path), [text], str(root))
        return time.perf_counter() - started

    def module(text: str) -> float:
        data = text.encode("utf-8")
        started = time.perf_counter()
        check_module(SourceFile(relative, data), config)
        return time.perf_counter() - started

    return whole, module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=20, help="real-sized tool modules in the project")
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        written = generate(args.tools, root, seed=args.seed, real_sized=True)
        path = min(written, key=lambda p: abs(len(p.read_text(encoding="utf-8").splitlines()) - 1000))
        text = path.read_text(encoding="utf-8")
        subprocess.run([sys.executable, "-m", "hermes_lint", "check", "--root", str(root), "-q"],
                       capture_output=True, check=False)  # the cache the server starts from
        whole, module = in_process(root, path)
        whole(text)  # the project read, as the server has it once a document is open
        sessions = {"lsp": Session(root, path, text, None), "lsp_no_debounce": Session(root, path, text, 0)}
        times: Dict[str, list] = {"check_buffer": [], "check_module": [], "lsp": [], "lsp_no_debounce": []}
        # Interleaved, one edit of each per round: the machine's load weighs on all alike.
        for number in range(1, args.repeat + 1):
            times["check_buffer"].append(whole(edited(text, 10_000 + number)))
            times["check_module"].append(module(edited(text, 20_000 + number)))
            for name, session in sessions.items():
                times[name].append(session.edit(number))
        for session in sessions.values():
            session.server.stop()
    median_ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
    lines = len(text.splitlines())
    print(f"{path.name}: {lines} lines, project of {args.tools} real-sized tool modules; medians of {args.repeat} edits")
    print(f"  in process, check_module (the file alone):        {median_ms['check_module']:7.1f} ms")
    print(f"  in process, check_buffer (file + project rules):  {median_ms['check_buffer']:7.1f} ms  (baseline)")
    for name, label in (("lsp", "lsp, didChange -> publishDiagnostics (default debounce)"),
                        ("lsp_no_debounce", "lsp, same, debounce 0")):
        extra = median_ms[name] - median_ms["check_buffer"]
        ratio = median_ms[name] / median_ms["check_buffer"]
        print(f"  {label}: {median_ms[name]:7.1f} ms  ({ratio:.2f}x the baseline, {extra:+.1f} ms)")


if __name__ == "__main__":
    main()
