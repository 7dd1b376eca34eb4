"""The built-in tools, called the way the agent calls them: ``registry.dispatch(name, args, ...)``.

Every test runs in its own empty workspace (``tmp_path`` as the cwd) against a fresh
``ToolRegistry`` that the tool modules' own ``registry.register(...)`` calls filled, so the
registrations themselves are under test and no state (todo lists, check_fn cache) leaks
between tests. Nothing here touches the network beyond loopback.
"""

import importlib
import importlib.util
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import tools.registry
from tools.registry import ToolRegistry

TOOLSET_BY_TOOL = {
    "read_file": "file",
    "write_file": "file",
    "patch": "file",
    "search_files": "file",
    "terminal": "terminal",
    "todo": "todo",
    "memory": "memory",
    "clarify": "clarify",
    "web_search": "web",
    "execute_code": "code_execution",
}
TOOL_MODULES = [f"tools.{name}_tool" for name in TOOLSET_BY_TOOL]
# A loopback port nothing listens on (discard): connecting fails at once, no traffic leaves.
CLOSED_LOOPBACK_URL = "http://127.0.0.1:9/"


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """An empty directory as the cwd, i.e. the tools' workspace root."""
    root = tmp_path / "workspace"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def run_private_copy(module_name):
    """Execute a module's source as a new module object that ``sys.modules`` never sees.

    Unlike ``importlib.reload`` this leaves the shared modules (and what the singleton
    registry holds) exactly as other tests expect them, whatever order the tests run in.
    """
    spec = importlib.util.find_spec(module_name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tool_registry(workspace, monkeypatch):
    """A fresh registry holding the built-in tools, registered by their own modules."""
    fresh = ToolRegistry()
    # The modules bind `registry` when they run; with the singleton swapped out their
    # register calls land here, and each test gets fresh module state (todo lists).
    monkeypatch.setattr(tools.registry, "registry", fresh)
    for module_name in TOOL_MODULES:
        run_private_copy(module_name)
    return fresh


def call(registry, name, args, **kwargs):
    """Dispatch like the agent loop and decode the JSON string every tool must return."""
    result = registry.dispatch(name, args, **kwargs)
    assert isinstance(result, str)
    return json.loads(result)


# --------------------------------------------------------------------------- registration


def test_each_tool_is_registered_in_its_toolset(tool_registry):
    for name, toolset in TOOLSET_BY_TOOL.items():
        entry = tool_registry.get_entry(name)
        assert (entry.name, entry.toolset, entry.schema["name"]) == (name, toolset, name)


def test_only_web_search_requires_an_environment_variable(tool_registry):
    required = {
        name: tool_registry.get_entry(name).requires_env
        for name in TOOLSET_BY_TOOL
        if tool_registry.get_entry(name).requires_env
    }
    assert required == {"web_search": ["WEB_SEARCH_API_KEY"]}


# --------------------------------------------------------------------------- read_file


def test_read_file_returns_the_requested_line_window(tool_registry, workspace):
    (workspace / "notes.txt").write_text("one\ntwo\nthree\nfour\n")
    result = call(tool_registry, "read_file", {"path": "notes.txt", "offset": 2, "limit": 2})
    assert result == {
        "path": "notes.txt",
        "offset": 2,
        "lines_returned": 2,
        "total_lines": 4,
        "next_offset": 4,
        "content": "two\nthree\n",
    }


def test_read_file_defaults_to_the_whole_small_file(tool_registry, workspace):
    (workspace / "notes.txt").write_bytes(b"a\r\nb")
    result = call(tool_registry, "read_file", {"path": "notes.txt"})
    assert result == {
        "path": "notes.txt",
        "offset": 1,
        "lines_returned": 2,
        "total_lines": 2,
        "next_offset": None,
        "content": "a\r\nb",
    }


def test_read_file_refuses_binary_files(tool_registry, workspace):
    (workspace / "blob.bin").write_bytes(b"PK\x03\x04\x00\x00data")
    result = call(tool_registry, "read_file", {"path": "blob.bin"})
    assert result == {"error": "refusing to read binary file: blob.bin"}


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_read_file_refuses_paths_outside_the_workspace(tool_registry, workspace, how):
    secret = workspace.parent / "secret.txt"
    secret.write_text("top secret\n")
    (workspace / "link.txt").symlink_to(secret)
    path = {"dotdot": "../secret.txt", "absolute": str(secret), "symlink": "link.txt"}[how]
    result = call(tool_registry, "read_file", {"path": path})
    assert result == {"error": f"path is outside the workspace root: {path}"}


def test_read_file_reports_a_missing_file(tool_registry):
    result = call(tool_registry, "read_file", {"path": "nope.txt"})
    assert result == {"error": "file not found: nope.txt"}


# --------------------------------------------------------------------------- write_file


def test_write_file_creates_parents_and_round_trips_through_read_file(tool_registry):
    content = "héllo\nworld\n"
    written = call(tool_registry, "write_file", {"path": "a/b/hello.txt", "content": content})
    assert written == {"path": "a/b/hello.txt", "bytes_written": 13, "created": True}
    read = call(tool_registry, "read_file", {"path": "a/b/hello.txt"})
    assert read["content"] == content


def test_write_file_overwrites_an_existing_file(tool_registry, workspace):
    (workspace / "f.txt").write_text("old")
    written = call(tool_registry, "write_file", {"path": "f.txt", "content": "new"})
    assert written == {"path": "f.txt", "bytes_written": 3, "created": False}
    assert (workspace / "f.txt").read_text() == "new"


def test_write_file_refuses_paths_outside_the_workspace(tool_registry, workspace):
    result = call(tool_registry, "write_file", {"path": "../escape.txt", "content": "x"})
    assert result == {"error": "path is outside the workspace root: ../escape.txt"}
    assert not (workspace.parent / "escape.txt").exists()


# --------------------------------------------------------------------------- patch


def test_patch_replaces_the_single_occurrence(tool_registry, workspace):
    (workspace / "code.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    args = {"path": "code.py", "old_string": "y = 2", "new_string": "y = 3"}
    assert call(tool_registry, "patch", args) == {"path": "code.py", "replacements": 1, "line": 2}
    # Untouched line endings: the edit changes only the matched text.
    assert (workspace / "code.py").read_bytes() == b"x = 1\r\ny = 3\r\n"


def test_patch_reports_text_that_is_not_found(tool_registry, workspace):
    (workspace / "code.py").write_text("x = 1\n")
    args = {"path": "code.py", "old_string": "z = 9", "new_string": "z = 0"}
    assert call(tool_registry, "patch", args) == {"error": "old_string not found in code.py"}
    assert (workspace / "code.py").read_text() == "x = 1\n"


def test_patch_refuses_an_ambiguous_match(tool_registry, workspace):
    (workspace / "code.py").write_text("x = 1\nx = 1\n")
    args = {"path": "code.py", "old_string": "x = 1", "new_string": "x = 2"}
    assert call(tool_registry, "patch", args) == {
        "error": "old_string appears 2 times in code.py; "
        "include more surrounding context so it matches exactly once"
    }
    assert (workspace / "code.py").read_text() == "x = 1\nx = 1\n"


# --------------------------------------------------------------------------- search_files


@pytest.fixture
def small_tree(workspace):
    files = {
        "a.py": "def alpha():\n    pass  # TODO\n",
        "b.txt": "TODO: write docs\n",
        "sub/c.py": "def gamma():\n    return 1\n",
        ".git/d.py": "def hidden(): pass\n",
    }
    for relative, text in files.items():
        path = workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (workspace / "image.png").write_bytes(b"\x89PNG\x00TODO")
    return workspace


def test_search_files_by_name_glob(tool_registry, small_tree):
    result = call(tool_registry, "search_files", {"name_glob": "*.py"})
    assert result == {
        "matches": [{"path": "a.py"}, {"path": "sub/c.py"}],
        "count": 2,
        "truncated": False,
    }


def test_search_files_by_content_regex_skips_binary_files(tool_registry, small_tree):
    result = call(tool_registry, "search_files", {"content_regex": r"TODO"})
    assert result == {
        "matches": [
            {"path": "a.py", "line": 2, "text": "    pass  # TODO"},
            {"path": "b.txt", "line": 1, "text": "TODO: write docs"},
        ],
        "count": 2,
        "truncated": False,
    }


def test_search_files_combines_glob_regex_and_path(tool_registry, small_tree):
    args = {"name_glob": "*.py", "content_regex": r"^def \w+", "path": "sub"}
    assert call(tool_registry, "search_files", args) == {
        "matches": [{"path": "sub/c.py", "line": 1, "text": "def gamma():"}],
        "count": 1,
        "truncated": False,
    }


def test_search_files_stops_at_max_results(tool_registry, workspace):
    for index in range(5):
        (workspace / f"f{index}.txt").write_text("hit\n")
    result = call(tool_registry, "search_files", {"content_regex": "hit", "max_results": 3})
    assert [match["path"] for match in result["matches"]] == ["f0.txt", "f1.txt", "f2.txt"]
    assert (result["count"], result["truncated"]) == (3, True)


def test_search_files_reports_bad_input(tool_registry):
    assert call(tool_registry, "search_files", {}) == {
        "error": "give name_glob, content_regex or both"
    }
    invalid = call(tool_registry, "search_files", {"content_regex": "("})
    assert invalid["error"].startswith("invalid content_regex: ")


# --------------------------------------------------------------------------- terminal


def test_terminal_reports_exit_status_and_both_streams(tool_registry):
    command = "echo out; echo err >&2; exit 3"
    assert call(tool_registry, "terminal", {"command": command}) == {
        "exit_code": 3,
        "timed_out": False,
        "stdout": "out\n",
        "stderr": "err\n",
        "truncated": False,
    }


def test_terminal_runs_in_the_workspace(tool_registry, workspace):
    (workspace / "marker.txt").write_text("here")
    assert call(tool_registry, "terminal", {"command": "cat marker.txt"})["stdout"] == "here"


def test_terminal_reports_a_timeout_as_data(tool_registry):
    started = time.monotonic()
    result = call(tool_registry, "terminal", {"command": "echo before; sleep 30", "timeout": 1})
    assert time.monotonic() - started < 10
    assert result == {
        "exit_code": None,
        "timed_out": True,
        "stdout": "before\n",
        "stderr": "",
        "truncated": False,
    }


@pytest.mark.parametrize(
    "tool, arguments, maximum",
    [("terminal", {"command": "true"}, 600), ("execute_code", {"code": "pass"}, 300)],
)
def test_a_timeout_is_seconds_from_1_to_the_tools_maximum(tool_registry, tool, arguments, maximum):
    refused = {"error": f"timeout must be between 1 and {maximum} seconds"}
    for timeout in (0, 0.5, maximum + 1, True, "5", None):
        assert call(tool_registry, tool, {**arguments, "timeout": timeout}) == refused
    for timeout in (1, maximum):
        assert call(tool_registry, tool, {**arguments, "timeout": timeout})["exit_code"] == 0


def test_terminal_caps_long_output_keeping_head_and_tail(tool_registry):
    command = "printf 'START'; head -c 100000 /dev/zero | tr '\\0' x; printf 'END'"
    result = call(tool_registry, "terminal", {"command": command})
    assert result["truncated"] is True
    assert result["stdout"].startswith("START") and result["stdout"].endswith("END")
    assert "bytes omitted" in result["stdout"]
    assert len(result["stdout"]) < 25_000


# --------------------------------------------------------------------------- todo


def test_todo_keeps_one_list_per_task(tool_registry):
    call(tool_registry, "todo", {"action": "add", "text": "write tests"}, task_id="A")
    call(tool_registry, "todo", {"action": "add", "text": "ship"}, task_id="A")
    call(tool_registry, "todo", {"action": "add", "text": "other task"}, task_id="B")

    completed = call(tool_registry, "todo", {"action": "complete", "item_id": 1}, task_id="A")
    assert completed == {
        "todos": [
            {"id": 1, "text": "write tests", "done": True},
            {"id": 2, "text": "ship", "done": False},
        ],
        "pending": 1,
    }
    assert call(tool_registry, "todo", {"action": "list"}, task_id="B") == {
        "todos": [{"id": 1, "text": "other task", "done": False}],
        "pending": 1,
    }


def test_todo_remove_and_unknown_ids(tool_registry):
    call(tool_registry, "todo", {"action": "add", "text": "temporary"}, task_id="T")
    removed = call(tool_registry, "todo", {"action": "remove", "item_id": 1}, task_id="T")
    assert removed == {"todos": [], "pending": 0}
    missing = call(tool_registry, "todo", {"action": "complete", "item_id": 1}, task_id="T")
    assert missing == {"error": "no todo item with id 1"}


# --------------------------------------------------------------------------- memory


def test_memory_add_replace_remove_persist_in_the_file(tool_registry, tmp_path):
    memory_file = tmp_path / "state" / "memory.json"

    def memory(args):
        return call(tool_registry, "memory", args, memory_path=str(memory_file))

    def stored():
        return json.loads(memory_file.read_text())

    memory({"action": "add", "content": "user prefers tabs"})
    memory({"action": "add", "content": "project uses pytest"})
    assert stored()["entries"] == [
        {"id": 1, "content": "user prefers tabs"},
        {"id": 2, "content": "project uses pytest"},
    ]
    memory({"action": "replace", "entry_id": 1, "content": "user prefers spaces"})
    assert stored()["entries"][0] == {"id": 1, "content": "user prefers spaces"}
    assert memory({"action": "remove", "entry_id": 2}) == {
        "entries": [{"id": 1, "content": "user prefers spaces"}]
    }
    # A fresh read of the file, not process state: the notes survive a restart.
    assert stored() == {"entries": [{"id": 1, "content": "user prefers spaces"}], "next_id": 3}
    assert memory({"action": "list"}) == {"entries": [{"id": 1, "content": "user prefers spaces"}]}


def test_memory_defaults_to_a_file_under_the_workspace(tool_registry, workspace):
    call(tool_registry, "memory", {"action": "add", "content": "remember me"})
    stored = json.loads((workspace / ".hermes" / "memory.json").read_text())
    assert stored["entries"] == [{"id": 1, "content": "remember me"}]


def test_memory_never_overwrites_a_foreign_file(tool_registry, tmp_path):
    memory_file = tmp_path / "memory.json"
    memory_file.write_text('{"something": "else"}')
    result = call(tool_registry, "memory", {"action": "add", "content": "x"},
                  memory_path=str(memory_file))
    assert result == {
        "error": f"{memory_file} is not a memory file; move it aside to start over"
    }
    assert memory_file.read_text() == '{"something": "else"}'


# --------------------------------------------------------------------------- clarify

QUESTIONS = [
    {"question": "Which colour?", "choices": ["red", "blue"], "multi_select": False},
    {"question": "Which platforms?", "choices": ["linux", "mac", "windows"],
     "multi_select": True},
    {"question": "Anything else?"},
]


def test_clarify_without_a_chat_surface_is_undelivered(tool_registry):
    result = call(tool_registry, "clarify", {"questions": QUESTIONS})
    assert result == {
        "responses": [
            {"question": "Which colour?", "choices_offered": ["red", "blue"],
             "status": "unanswered", "user_response": None},
            {"question": "Which platforms?", "choices_offered": ["linux", "mac", "windows"],
             "status": "unanswered", "user_response": None},
            {"question": "Anything else?", "choices_offered": [],
             "status": "unanswered", "user_response": None},
        ],
        "outcome": "undelivered",
        "notice": "[clarify prompt could not be delivered: no chat surface]",
    }


def test_clarify_asks_each_question_through_the_callback(tool_registry):
    asked = []
    answers = iter(["blue", ["linux", "mac"], None])

    def clarify_callback(question, choices, multi_select):
        asked.append((question, choices, multi_select))
        return next(answers)

    result = call(tool_registry, "clarify", {"questions": QUESTIONS},
                  clarify_callback=clarify_callback)
    assert asked == [
        ("Which colour?", ["red", "blue"], False),
        ("Which platforms?", ["linux", "mac", "windows"], True),
        ("Anything else?", [], False),
    ]
    assert result == {
        "responses": [
            {"question": "Which colour?", "choices_offered": ["red", "blue"],
             "status": "answered", "user_response": "blue"},
            {"question": "Which platforms?", "choices_offered": ["linux", "mac", "windows"],
             "status": "answered", "user_response": ["linux", "mac"]},
            {"question": "Anything else?", "choices_offered": [],
             "status": "skipped", "user_response": None},
        ],
        "outcome": "submitted",
    }


def test_clarify_keeps_answers_given_before_a_timeout(tool_registry):
    def clarify_callback(question, choices, multi_select):
        if question == "Which colour?":
            return "red"
        raise TimeoutError

    result = call(tool_registry, "clarify", {"questions": QUESTIONS},
                  clarify_callback=clarify_callback)
    statuses = [response["status"] for response in result["responses"]]
    assert statuses == ["answered", "unanswered", "unanswered"]
    assert (result["outcome"], result["notice"]) == ("timed_out", "[user did not respond in time]")


def test_clarify_rejects_more_than_five_questions(tool_registry):
    result = call(tool_registry, "clarify", {"questions": [{"question": "q?"}] * 6})
    assert result == {"error": "questions must be an array of 1 to 5 items"}


# --------------------------------------------------------------------------- web_search


@pytest.fixture
def no_proxy(monkeypatch):
    """Loopback requests must go straight to the socket even if the host sets a proxy."""
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("NO_PROXY", "*")


def definition_names(registry, names):
    return [definition["function"]["name"] for definition in registry.get_definitions(names)]


def test_web_search_is_hidden_without_its_api_key(tool_registry, monkeypatch):
    monkeypatch.delenv("WEB_SEARCH_API_KEY", raising=False)
    assert definition_names(tool_registry, ["read_file", "web_search"]) == ["read_file"]


def test_web_search_is_offered_with_its_api_key(tool_registry, monkeypatch):
    monkeypatch.setenv("WEB_SEARCH_API_KEY", "test-key")
    assert definition_names(tool_registry, ["read_file", "web_search"]) == [
        "read_file",
        "web_search",
    ]


def test_web_search_reports_an_unreachable_service(tool_registry, monkeypatch, no_proxy):
    monkeypatch.setenv("WEB_SEARCH_API_KEY", "test-key")
    monkeypatch.setenv("WEB_SEARCH_ENDPOINT", CLOSED_LOOPBACK_URL)
    result = call(tool_registry, "web_search", {"query": "hermes"})
    assert list(result) == ["error"]
    # The reason after the colon is the OS's wording ("[Errno 111] Connection refused").
    assert result["error"].startswith(f"web search service unreachable at {CLOSED_LOOPBACK_URL}: ")


class FakeSearchService(BaseHTTPRequestHandler):
    """Answers like the search API and remembers what it was sent."""

    status = 200
    received = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.received.append((self.headers["Authorization"], body))
        answer = json.dumps({"results": [
            {"title": "Hermes", "url": "https://example.org/hermes", "content": "Messenger."},
            {"title": "Second", "url": "https://example.org/2", "snippet": "More."},
        ]}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass  # keep test output clean


@pytest.fixture
def search_service(monkeypatch, no_proxy):
    """A loopback search service; its URL is the configured endpoint."""
    handler = type("Service", (FakeSearchService,), {"received": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    monkeypatch.setenv("WEB_SEARCH_API_KEY", "test-key")
    monkeypatch.setenv("WEB_SEARCH_ENDPOINT", f"http://127.0.0.1:{server.server_port}/search")
    yield handler
    server.shutdown()
    server.server_close()


def test_web_search_returns_the_services_results(tool_registry, search_service):
    result = call(tool_registry, "web_search", {"query": "hermes", "max_results": 2})
    assert result == {
        "query": "hermes",
        "results": [
            {"title": "Hermes", "url": "https://example.org/hermes", "snippet": "Messenger."},
            {"title": "Second", "url": "https://example.org/2", "snippet": "More."},
        ],
    }
    assert search_service.received == [
        ("Bearer test-key", {"query": "hermes", "max_results": 2})
    ]


def test_web_search_reports_an_http_error(tool_registry, search_service):
    search_service.status = 401
    result = call(tool_registry, "web_search", {"query": "hermes"})
    assert result["error"].startswith("web search service at http://127.0.0.1:")
    assert result["error"].endswith("answered HTTP 401 Unauthorized")


# --------------------------------------------------------------------------- execute_code


def test_execute_code_reports_output_and_exit_status(tool_registry):
    code = "import sys\nprint(6 * 7)\nprint('careful', file=sys.stderr)\nsys.exit(2)\n"
    assert call(tool_registry, "execute_code", {"code": code}) == {
        "exit_code": 2,
        "timed_out": False,
        "stdout": "42\n",
        "stderr": "careful\n",
        "truncated": False,
    }


def test_execute_code_runs_in_the_workspace(tool_registry, workspace):
    (workspace / "data.txt").write_text("from the workspace")
    result = call(tool_registry, "execute_code", {"code": "print(open('data.txt').read())"})
    assert result["stdout"] == "from the workspace\n"


def test_execute_code_reports_a_timeout_and_keeps_earlier_output(tool_registry):
    code = "import time\nprint('started')\ntime.sleep(30)\n"
    started = time.monotonic()
    result = call(tool_registry, "execute_code", {"code": code, "timeout": 1})
    assert time.monotonic() - started < 10
    assert result == {
        "exit_code": None,
        "timed_out": True,
        "stdout": "started\n",
        "stderr": "",
        "truncated": False,
    }


def test_execute_code_reports_an_exception_as_data(tool_registry):
    result = call(tool_registry, "execute_code", {"code": "1 / 0"})
    assert (result["exit_code"], result["timed_out"]) == (1, False)
    assert result["stderr"].rstrip().endswith("ZeroDivisionError: division by zero")
