"""Differential check of ``hermes-lint lsp`` against ``hermes-lint check`` on a real project:
every tool module, every file ``check`` reports on and toolsets.py opened in one server (their
text as on disk, UTF-32 positions negotiated), then the published diagnostics compared with
``check --format json``'s. Prints the counts and, when they differ, the first differences.

    python benchmarks/lsp_differential.py PROJECT_ROOT

Run it on a copy of a release: the server keeps its cache in the project's
``.hermes_lint_cache/``, as ``check`` does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Dict, List

from bench_lsp import frame, read_message

WAIT_SECONDS = 600


def main() -> int:
    root = Path(sys.argv[1]).resolve()
    checked = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--root", str(root), "--no-cache", "--format", "json"],
        capture_output=True, text=True, cwd=root,  # JSON paths are relative to where check runs: the root's
    )
    if checked.returncode not in (0, 1):
        print(checked.stderr, file=sys.stderr)
        return 2
    expected = json.loads(checked.stdout)
    files = {d["path"] for d in expected} | {p.relative_to(root).as_posix() for p in (root / "tools").glob("*.py")}
    if (root / "toolsets.py").is_file():
        files.add("toolsets.py")
    server = subprocess.Popen([sys.executable, "-m", "hermes_lint", "lsp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    published: Dict[str, List[dict]] = {}
    arrived = threading.Condition()

    def read() -> None:
        while True:
            message = read_message(server.stdout)
            if message is None:
                return
            if message.get("method") == "textDocument/publishDiagnostics":
                with arrived:
                    published[message["params"]["uri"]] = message["params"]["diagnostics"]
                    arrived.notify_all()

    def send(message: dict) -> None:
        server.stdin.write(frame(message))
        server.stdin.flush()

    threading.Thread(target=read, daemon=True).start()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": root.as_uri(), "initializationOptions": {"debounce": 0},
        "capabilities": {"general": {"positionEncodings": ["utf-32"]}}}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    uris = {}
    for relative in sorted(files):
        path = root / relative
        uris[path.as_uri()] = relative
        text = path.read_bytes().decode("utf-8", "replace")
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}}})
    # The buffers are the files as saved: each document's first diagnostics are its last.
    with arrived:
        if not arrived.wait_for(lambda: set(uris) <= set(published), timeout=WAIT_SECONDS):
            print("the server did not publish for every file", file=sys.stderr)
            return 2
        lsp = sorted(
            (uris[uri], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"], d["message"])
            for uri, found in published.items() if uri in uris for d in found
        )
    send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    send({"jsonrpc": "2.0", "method": "exit"})
    server.wait(60)
    check = sorted((d["path"], d["line"], d["col"], d["code"], d["message"]) for d in expected if d["path"] in files)
    print(f"{len(files)} files opened; check: {len(check)} findings; lsp: {len(lsp)}; identical: {lsp == check}")
    if lsp != check:
        print("only check:", [d for d in check if d not in lsp][:10])
        print("only lsp:", [d for d in lsp if d not in check][:10])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
