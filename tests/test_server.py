"""``hermes-lint server`` and the flake8 plugin asking it: the same diagnostics as the plugin in
process, and a silent fallback to the plugin in process whenever the server cannot answer.

The server runs for real (a subprocess, stopped by the fixture); the plugin runs in this process
as flake8 drives it. "Via the server" makes checking in process fail, so an answer is the
server's; "in process" is the plugin with no server to ask, without the cache.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hermes_lint import flake8_plugin, server_client
from hermes_lint.flake8_plugin import HermesLintChecker

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bench_flake8_plugin import make_project  # noqa: E402

slow = pytest.mark.slow  # runs the real server (and flake8) in subprocesses

SOCKET = Path(".hermes_lint_cache") / "server.sock"  # relative to the project, the tests' cwd
RETURNS_JSON = 'return json.dumps({"items": items, "count": len(items)})'


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "p"
    make_project(root, 4)  # tools/lookup_000_tool.py ... lookup_003, clean
    monkeypatch.chdir(root)  # socket paths stay short; flake8 runs from the project in an editor
    flake8_plugin.clear_caches()
    yield root.resolve()
    flake8_plugin.clear_caches()


@pytest.fixture
def servers():
    """``start(root, *options)``: a ``hermes-lint server`` in ``root``, serving once it returns
    (unless ``wait=False``); every one still running is stopped at the end of the test."""
    started = []

    def start(root: Path, *options: str, wait: bool = True) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, "-m", "hermes_lint", "server", *options],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        started.append(process)
        if wait:
            wait_until_serving(process, root / SOCKET)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        process.stderr.close()


def wait_until_serving(process: subprocess.Popen, path: Path) -> None:
    give_up = time.monotonic() + 60  # against a hang only: not a timed assertion
    while True:
        if process.poll() is not None:
            pytest.fail(f"the server stopped: {process.stderr.read().decode(errors='replace')}")
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect(str(path))
                return
            except OSError:
                if time.monotonic() > give_up:
                    pytest.fail("the server did not start")
                time.sleep(0.02)


def stop(process: subprocess.Popen) -> str:
    """SIGTERM, as a service manager stops it; its stderr."""
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    return process.stderr.read().decode()


def plugin_rows(relative: str, text: str) -> list:
    """A new flake8 run of the plugin on one file (``parse_options`` starts a run)."""
    flake8_plugin.new_run()
    return list(HermesLintChecker(None, relative, text.splitlines(keepends=True)).run())


def via_server(monkeypatch, relative: str, text: str) -> list:
    def checked_here(*args, **kwargs):
        raise AssertionError("checked in process: the server did not answer")

    with monkeypatch.context() as patched:
        patched.setattr(flake8_plugin, "_checked", checked_here)
        return plugin_rows(relative, text)


def in_process(monkeypatch, relative: str, text: str) -> list:
    with monkeypatch.context() as patched:
        patched.setattr(server_client, "serving", lambda root: False)
        patched.setattr(HermesLintChecker, "use_cache", False)
        return plugin_rows(relative, text)


def edit(path: Path, old: str, new: str) -> str:
    text = path.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text


def codes(rows: list) -> list:
    return [message.split()[0] for _, _, message, _ in rows]


@slow
def test_saved_files_duplicates_other_files_edits_and_noqa_get_the_in_process_answer(project, servers, monkeypatch):
    servers(project)
    one, two = "tools/lookup_001_tool.py", "tools/lookup_002_tool.py"
    assert via_server(monkeypatch, one, (project / one).read_text(encoding="utf-8")) == []

    # A tool file just saved with a finding.
    text = edit(project / one, RETURNS_JSON, "return len(items)")
    answer = via_server(monkeypatch, one, text)
    assert (27, 4, "HRM101 handler `_handle_lookup_001` can return a number, not a JSON string", HermesLintChecker) in answer
    assert answer == in_process(monkeypatch, one, text)

    # Another file of the project edited between two requests: it now registers lookup_001's
    # name too (HRM401 in both files, each naming the other).
    other = edit(project / two, 'name="lookup_002"', 'name="lookup_001"')
    answer = via_server(monkeypatch, one, text)
    assert "HRM401" in codes(answer)
    assert answer == in_process(monkeypatch, one, text)
    answer = via_server(monkeypatch, two, other)
    assert "HRM401" in codes(answer) and "tools/lookup_001_tool.py" in str(answer)
    assert answer == in_process(monkeypatch, two, other)

    # Undone on disk: the next request sees it.
    edit(project / two, 'name="lookup_001"', 'name="lookup_002"')
    answer = via_server(monkeypatch, one, text)
    assert "HRM401" not in codes(answer)
    assert answer == in_process(monkeypatch, one, text)

    # `# noqa` is flake8's to apply: the finding is reported, HRM900 never.
    text = edit(project / one, "return len(items)", "return len(items)  # noqa: HRM101")
    answer = via_server(monkeypatch, one, text)
    assert codes(answer) == ["HRM101"]
    assert answer == in_process(monkeypatch, one, text)

    # The configuration changed between two requests: the server reads it again.
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\nignore = ["HRM101"]\n', encoding="utf-8")
    assert via_server(monkeypatch, one, text) == [] == in_process(monkeypatch, one, text)


@slow
def test_an_editor_buffer_that_duplicates_a_name_on_disk_gets_the_in_process_answer(project, servers, monkeypatch):
    servers(project)
    relative = "tools/lookup_003_tool.py"
    buffer = (project / relative).read_text(encoding="utf-8").replace('name="lookup_003"', 'name="lookup_000"')
    answer = via_server(monkeypatch, relative, buffer)  # not saved: the server checks the text sent
    assert "HRM401" in codes(answer)
    assert answer == in_process(monkeypatch, relative, buffer)
    toolsets = (project / "toolsets.py").read_text(encoding="utf-8").replace('"lookup_000",', '"lookup_000", "ghost",')
    answer = via_server(monkeypatch, "toolsets.py", toolsets)
    assert answer and answer == in_process(monkeypatch, "toolsets.py", toolsets)


@slow
def test_flake8_asks_the_server_and_imports_no_checker(project, servers):
    servers(project)
    relative = "tools/lookup_001_tool.py"
    edit(project / relative, RETURNS_JSON, "return len(items)")
    command = [sys.executable, "-X", "importtime", "-m", "flake8", "--isolated", "--select", "HRM", relative]
    served = subprocess.run(command, cwd=project, capture_output=True, timeout=120)
    imported = [line.rsplit("|", 1)[-1].strip() for line in served.stderr.decode().splitlines() if "|" in line]
    assert "hermes_lint.server_client" in imported
    assert not [name for name in imported if name.startswith(("hermes_lint.check.engine", "hermes_lint.model", "hermes_lint.rules"))]
    alone = subprocess.run(command[:1] + command[3:] + ["--hermes-lint-no-cache"], cwd=project, capture_output=True,
                           timeout=120)
    assert served.stdout.decode().splitlines() == alone.stdout.decode().splitlines() == [
        "tools/lookup_001_tool.py:27:5: HRM101 handler `_handle_lookup_001` can return a number, not a JSON string"
    ]
    # A run of many files: the first from the server, the rest checked in process; the same lines.
    edit(project / "tools/lookup_002_tool.py", 'name="lookup_002"', 'name="lookup_001"')
    whole = ["--isolated", "--select", "HRM", "tools", "toolsets.py"]
    served = subprocess.run([sys.executable, "-m", "flake8", *whole], cwd=project, capture_output=True, timeout=120)
    alone = subprocess.run([sys.executable, "-m", "flake8", *whole, "--hermes-lint-no-cache"], cwd=project,
                           capture_output=True, timeout=120)
    assert not served.stderr and not alone.stderr
    assert sorted(served.stdout.decode().splitlines()) == sorted(alone.stdout.decode().splitlines())
    found = {line.split()[1] for line in served.stdout.decode().splitlines()}
    assert found == {"HRM101", "HRM303", "HRM401", "HRM403"}  # schema name, toolsets.py's lookup_002 gone


def test_a_run_asks_the_server_for_its_first_file_only(project, monkeypatch):
    asked = []
    monkeypatch.setattr(server_client, "serving", lambda root: True)
    monkeypatch.setattr(server_client, "ask", lambda *args: asked.append(args[1]) or [(1, 1, "HRM999", "served")])
    flake8_plugin.new_run()
    first, second = "tools/lookup_000_tool.py", "tools/lookup_001_tool.py"
    rows = [list(HermesLintChecker(None, path, (project / path).read_text(encoding="utf-8").splitlines(True)).run())
            for path in (first, second)]
    assert asked == [first]
    assert rows == [[(1, 0, "HRM999 served", HermesLintChecker)], []]


@slow
def test_a_killed_server_leaves_a_socket_nobody_answers_and_the_plugin_checks_in_process(project, servers, monkeypatch):
    server = servers(project)
    server.kill()
    server.wait(timeout=30)
    assert SOCKET.is_socket()  # left behind
    relative = "tools/lookup_001_tool.py"
    text = edit(project / relative, RETURNS_JSON, "return len(items)")
    key = flake8_plugin._key_text(project)
    assert server_client.ask(str(project), relative, text, key, "run") is None  # refused
    assert plugin_rows(relative, text) == in_process(monkeypatch, relative, text)
    assert codes(plugin_rows(relative, text)) == ["HRM101"]
    # The next server replaces the stale socket and answers.
    servers(project)
    assert via_server(monkeypatch, relative, text) == in_process(monkeypatch, relative, text)


@slow
def test_a_server_of_another_toolkit_answers_mismatch_and_stops(project, servers, monkeypatch):
    server = servers(project)
    relative = "tools/lookup_001_tool.py"
    text = edit(project / relative, RETURNS_JSON, "return len(items)")
    key = flake8_plugin._key_text(project)
    version, config, toolkit = key.split("\n", 2)

    # Another configuration only (read between two edits of pyproject.toml): the server stays.
    other_config = "\n".join([version, config + " ", toolkit])
    assert server_client.ask(str(project), relative, text, other_config, "run") is None
    assert server.poll() is None

    # The client's hermes-lint files differ from those the server imported: it stops, and the
    # plugin checks in process with the same result.
    edited_toolkit = "\n".join([version, config, toolkit.replace(":", ";", 1)])
    monkeypatch.setattr(flake8_plugin, "_key_text", lambda root: edited_toolkit)
    assert plugin_rows(relative, text) == in_process(monkeypatch, relative, text)
    assert codes(plugin_rows(relative, text)) == ["HRM101"]
    assert server.wait(timeout=30) == 0
    assert "stopped: the client runs another hermes-lint (version or files)" in server.stderr.read().decode()
    assert not SOCKET.exists()


@pytest.mark.parametrize(
    "reply",
    [b"", b"garbage", b'{"status": "ok"}', b'{"status": "ok", "diagnostics": [[1, 1, "HRM101"]]}',
     b'{"status": "ok", "diagnostics": [["1", 1, "HRM101", "x"]]}', b'[1, 2]', b'{"status": "mismatch"}'],
)
def test_a_reply_that_is_not_an_answer_is_ignored_and_the_plugin_checks_in_process(project, monkeypatch, reply):
    # A fake server (a fault injected): it reads the request and replies with ``reply``.
    SOCKET.parent.mkdir()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(SOCKET))
    listener.listen(1)

    received = []

    def answer_once():
        connection, _ = listener.accept()
        with connection:
            received.append(json.loads(server_client.receive_all(connection)))
            connection.sendall(reply)

    fake = threading.Thread(target=answer_once, daemon=True)
    fake.start()
    relative = "tools/lookup_001_tool.py"
    text = edit(project / relative, RETURNS_JSON, "return len(items)")
    try:
        found = plugin_rows(relative, text)
    finally:
        fake.join(timeout=30)
        listener.close()
    assert [(request["path"], request["text"]) for request in received] == [(relative, text)]  # it was asked
    assert found == in_process(monkeypatch, relative, text)
    assert codes(found) == ["HRM101"]


@slow
def test_a_second_server_for_the_same_project_refuses_to_start(project, servers, monkeypatch):
    first = servers(project)
    second = servers(project, wait=False)
    assert second.wait(timeout=60) == 2
    assert second.stderr.read().decode() == (
        f"hermes-lint: error: a hermes-lint server is already running for {project} (pid {first.pid}); "
        f"it listens on {project / SOCKET}\n"
    )
    relative = "tools/lookup_000_tool.py"
    assert via_server(monkeypatch, relative, (project / relative).read_text(encoding="utf-8")) == []


@slow
def test_a_stale_socket_file_is_replaced(project, servers, monkeypatch):
    SOCKET.parent.mkdir()
    with socket.socket(socket.AF_UNIX) as dead:  # bound, then closed: nobody listens there
        dead.bind(str(SOCKET))
    servers(project)
    assert (os.stat(SOCKET).st_mode & 0o777) == 0o600
    relative = "tools/lookup_000_tool.py"
    assert via_server(monkeypatch, relative, (project / relative).read_text(encoding="utf-8")) == []


@slow
def test_the_server_answers_bad_requests_with_an_error_and_keeps_serving(project, servers, monkeypatch):
    servers(project)
    key = flake8_plugin._key_text(project)
    request = {"protocol": 1, "key": key, "run": "r", "root": str(project), "path": "tools/lookup_000_tool.py", "text": ""}

    def ask(payload: bytes) -> dict:
        with socket.socket(socket.AF_UNIX) as connection:
            connection.connect(str(SOCKET))
            connection.sendall(payload)
            connection.shutdown(socket.SHUT_WR)
            return json.loads(server_client.receive_all(connection))

    assert ask(b"{not json") == {"status": "error", "message": "the request is not JSON"}
    assert ask(b"[]") == {"status": "error", "message": "the request is not a JSON object"}
    assert ask(json.dumps({**request, "text": None, "run": 3}).encode()) == {
        "status": "error", "message": "the request's run, text must be text"
    }
    assert ask(json.dumps({**request, "path": "../elsewhere/x_tool.py"}).encode()) == {
        "status": "error", "message": "'../elsewhere/x_tool.py' is not a path inside the project"
    }
    assert ask(json.dumps({**request, "root": "/elsewhere"}).encode()) == {
        "status": "mismatch", "reason": f"this server checks {project}, not /elsewhere"
    }
    broken = "from tools.registry import registry\nregistry.register(\n"
    reply = ask(json.dumps({**request, "text": broken}).encode())
    expected = flake8_plugin.check_buffer("tools/lookup_000_tool.py", [broken], use_cache=False)
    assert [d.code for d in expected] == ["HRM001"]
    assert reply == {"status": "ok", "diagnostics": [[d.line, d.col, d.code, d.message] for d in expected]}
    relative = "tools/lookup_000_tool.py"
    assert via_server(monkeypatch, relative, (project / relative).read_text(encoding="utf-8")) == []


@slow
def test_the_server_stops_when_idle_or_terminated_and_removes_its_socket(project, servers):
    idle = servers(project, "--idle-timeout", "0.5")
    assert idle.wait(timeout=60) == 0
    assert idle.stderr.read().decode().splitlines()[-1] == "hermes-lint server: stopped: idle for 0.5 s"
    assert not SOCKET.exists()
    assert "stopped: SIGTERM" in stop(servers(project))
    assert not SOCKET.exists()


def test_outside_a_project_the_server_says_so(tmp_path):
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "server"], cwd=tmp_path, capture_output=True,
                               timeout=60)
    assert completed.returncode == 2
    assert completed.stderr.decode().startswith("hermes-lint: error: no project found")
    assert not (tmp_path / ".hermes_lint_cache").exists()


def test_a_socket_path_too_long_for_an_address_is_reached_relative_to_the_current_directory(tmp_path, monkeypatch):
    longest = "/" + "a" * 102  # 103 bytes: with its NUL, what every platform's sun_path holds
    assert server_client.address(longest) == longest
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert server_client.address(str(deep / "x")) == "x"
    assert server_client.address("/" + "a" * 103) is None  # relative to here it is longer still


def test_without_unix_sockets_there_is_no_server_and_the_plugin_checks_in_process(project, monkeypatch):
    from hermes_lint.server import ServerError, run_server

    monkeypatch.setattr(server_client, "supported", lambda: False)  # as on Windows
    SOCKET.parent.mkdir()
    with socket.socket(socket.AF_UNIX) as dead:  # a socket file there is not even looked at
        dead.bind(str(SOCKET))
    with pytest.raises(ServerError, match=r"needs Unix domain sockets \(POSIX\); here the flake8 plugin checks in process"):
        run_server(project)
    assert not server_client.serving(str(project))
    relative = "tools/lookup_001_tool.py"
    text = edit(project / relative, RETURNS_JSON, "return len(items)")
    assert codes(plugin_rows(relative, text)) == ["HRM101"]


def test_a_server_keys_its_results_on_the_toolkit_it_imported_not_on_files_edited_since(monkeypatch):
    from hermes_lint.check import cache, cache_identity

    monkeypatch.setattr(cache_identity, "_pinned", "")
    pinned = cache_identity.pin_toolkit_fingerprint()
    assert pinned == cache_identity.toolkit_fingerprint() and "check/cache.py:" in pinned
    monkeypatch.setattr(cache_identity.os, "walk", lambda top: iter([(top, [], ["edited.py"])]))  # files changed
    assert cache_identity.toolkit_fingerprint() == pinned
    assert cache.ResultCache(Path("."), "config").key_text.endswith("\n" + pinned)
    monkeypatch.setattr(cache_identity, "_pinned", "")  # a process that pinned nothing sees the edit
    assert cache_identity.toolkit_fingerprint() != pinned


SHARED_PROPERTIES = '''\
CLIP_PROPERTIES = {
    "clips": {"type": "array", "items": {"type": "string"}, "description": "Clips to join."},
}
'''

TOOL_WITH_SHARED_PROPERTIES = '''\
import json

from tools.registry import registry
from tools.shared_properties import CLIP_PROPERTIES


def check_join() -> bool:
    return True


def _handle_join(args, **kwargs):
    return json.dumps({"clips": args.get("clips", [])})


registry.register(
    name="clip_join",
    toolset="set_0",
    schema={
        "name": "clip_join",
        "description": "Join clips.",
        "parameters": {"type": "object", "properties": CLIP_PROPERTIES},
    },
    handler=_handle_join,
    check_fn=check_join,
)
'''


@slow
def test_a_module_the_file_imports_from_edited_between_requests_gets_the_in_process_answer(project, servers, monkeypatch):
    """The server outlives edits to the project modules a tool module reads values from: an
    answer for the same bytes of the tool module follows them, created or edited."""
    relative = "tools/clip_join_tool.py"
    (project / relative).write_text(TOOL_WITH_SHARED_PROPERTIES, encoding="utf-8")
    edit(project / "toolsets.py", '"lookup_000",', '"lookup_000", "clip_join",')
    servers(project)
    before = via_server(monkeypatch, relative, TOOL_WITH_SHARED_PROPERTIES)  # the module is missing
    assert before == in_process(monkeypatch, relative, TOOL_WITH_SHARED_PROPERTIES)

    shared = project / "tools" / "shared_properties.py"
    shared.write_text(SHARED_PROPERTIES, encoding="utf-8")  # created
    assert via_server(monkeypatch, relative, TOOL_WITH_SHARED_PROPERTIES) == []
    assert in_process(monkeypatch, relative, TOOL_WITH_SHARED_PROPERTIES) == []

    edit(shared, '"items": {"type": "string"}, ', "")  # edited: the array loses its items
    # reported where the key is written: in the shared module, not in the tool module
    assert via_server(monkeypatch, relative, TOOL_WITH_SHARED_PROPERTIES) == []
    shared_relative, shared_text = "tools/shared_properties.py", shared.read_text(encoding="utf-8")
    answer = via_server(monkeypatch, shared_relative, shared_text)
    assert codes(answer) == ["HRM309"]
    assert answer == in_process(monkeypatch, shared_relative, shared_text)


def test_a_stop_signal_while_reading_the_project_or_answering_is_not_swallowed(project, monkeypatch):
    """SIGTERM raises where the server is: reading the project at start, or checking a file for
    a request, both of which catch every error of their own."""
    from hermes_lint import server as server_module
    from hermes_lint import project_check
    from hermes_lint.check.cache_identity import key_text

    def stopped(*args, **kwargs):
        raise server_module._Stop("SIGTERM")

    server = server_module.Server(project)
    monkeypatch.setattr(project_check, "run_project", stopped)
    with pytest.raises(server_module._Stop):
        server.warm_up()

    monkeypatch.setattr(flake8_plugin, "check_buffer", stopped)
    key = key_text(flake8_plugin.project_config(project).fingerprint(), server.toolkit)
    request = {"protocol": server_client.PROTOCOL, "key": key, "run": "r", "root": str(project),
               "path": "tools/lookup_001_tool.py", "text": "x = 1\n"}
    with pytest.raises(server_module._Stop):
        server.answer(json.dumps(request).encode())


@slow
def test_a_server_kept_through_edits_answers_what_a_fresh_plugin_process_does(tmp_path):
    """``benchmarks/cache_differential.py --server``, a short seeded sequence: after each edit
    (a helper module a tool reads created, broken and mended, a name duplicated, the registry
    and the configuration changed), the running server answers for the edited files, saved or
    as an editor buffer, what the plugin checks in a fresh process without the cache."""
    import random

    import cache_differential as diff

    root = diff.setup("gen", tmp_path, 7, modules=6)
    project = diff.Project(root, random.Random(7))
    diff.run(diff.hermes("check", "-q", "-j", "1"), root)
    server = diff.start_server(root)
    try:
        done = []
        for edit in (diff.import_helper, diff.vary_helper, diff.break_helper, diff.reset_helper,
                     diff.duplicate_name_across_modules, diff.edit_registry, diff.change_config):
            described = edit(project)
            assert described is not None, f"{edit.__name__} found nothing to edit"
            done.append(described)
            mismatches = diff.compare_server(project)
            assert server.poll() is None, (root.parent / "server.log").read_text()
            assert [m.what for m in mismatches] == [], "after: " + "; ".join(done) + f"\n{mismatches}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_second_stop_signal_while_the_server_cleans_up_does_not_interrupt_the_clean_up(project, monkeypatch, capsys):
    """A service manager or a user may send SIGTERM twice (or SIGTERM then SIGHUP): the second
    must not cut the clean-up short with a traceback and leave the socket behind."""
    from hermes_lint import server as server_module

    def signalled_while_serving(self):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
        raise AssertionError("SIGTERM did not stop the server")

    real_close = server_module.Server.close

    def signalled_again_while_closing(self):
        os.kill(os.getpid(), signal.SIGHUP)
        os.kill(os.getpid(), signal.SIGTERM)
        real_close(self)

    monkeypatch.setattr(server_module.Server, "warm_up", lambda self: None)
    monkeypatch.setattr(server_module.Server, "serve", signalled_while_serving)
    monkeypatch.setattr(server_module.Server, "close", signalled_again_while_closing)
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}

    server_module.run_server(project)

    assert not (project / SOCKET).exists()
    assert capsys.readouterr().err.splitlines()[-1] == "hermes-lint server: stopped: SIGTERM"
    assert {signum: signal.getsignal(signum) for signum in before} == before


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_socket_another_user_owns_is_never_asked(project):
    """Anyone who can write the project's cache directory could put a socket there that answers
    anything: only one owned by the user running flake8 is asked."""
    (project / SOCKET).parent.mkdir(exist_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(SOCKET))
        listener.listen(1)
        assert server_client.serving(str(project))
        os.chown(SOCKET, os.getuid() + 4242, -1)
        assert not server_client.serving(str(project))


def test_a_configuration_edit_its_stat_hid_from_the_server_is_read_again_when_a_client_differs(project, monkeypatch):
    """The server keeps the configuration while pyproject.toml's stat is unchanged; two saves
    within one timestamp tick at the same size leave it unchanged. A client that read another
    configuration makes the server read it again, rather than answer "mismatch" until the
    next edit of the file."""
    from hermes_lint import server as server_module
    from hermes_lint.check.cache_identity import key_text
    from hermes_lint.project_config import load_config

    monkeypatch.setattr(flake8_plugin, "_stat_key", lambda path: (1, 2, 3))  # one tick, one size
    server = server_module.Server(project)
    relative = "tools/lookup_001_tool.py"
    text = (project / relative).read_text(encoding="utf-8").replace("registry.register(", "registry.register(\n(", 1)

    def ask() -> dict:
        key = key_text(load_config(project).fingerprint(), server.toolkit)  # the client: a new process
        request = {"protocol": server_client.PROTOCOL, "key": key, "run": os.urandom(4).hex(),
                   "root": str(project), "path": relative, "text": text}
        reply, stop = server.answer(json.dumps(request).encode())
        assert stop is None
        return reply

    assert [row[2] for row in ask()["diagnostics"]] == ["HRM001"]
    (project / "pyproject.toml").write_text('[tool.hermes-lint]\nignore = ["HRM001"]\n', encoding="utf-8")
    assert ask() == {"status": "ok", "diagnostics": []}
