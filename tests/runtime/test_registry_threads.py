"""tools.registry under concurrent writers (MCP refreshes) and readers (agent rounds)."""

from __future__ import annotations

import json
import threading

from tools.registry import ToolRegistry

NAMES = [f"tool_{index}" for index in range(8)]
WRITER_ROUNDS = 300
READER_ROUNDS = 300
JOIN_TIMEOUT_SECONDS = 30


def versioned_schema(name: str, version: int) -> dict:
    # The description carries the name, so a reader can tell a definition built from a torn
    # entry (schema of one tool under the name of another) from a consistent one.
    return {
        "name": name,
        "description": f"{name} v{version}",
        "parameters": {"type": "object", "properties": {}},
    }


def echo_handler(name: str):
    def handler(args, **kwargs):
        return json.dumps({"tool": name, "round": args["round"]})

    return handler


def writer(reg: ToolRegistry, worker: int) -> None:
    for round_number in range(WRITER_ROUNDS):
        name = NAMES[(worker + round_number) % len(NAMES)]
        if round_number % 3 == 2:
            reg.deregister(name)
        else:
            reg.register(name, f"mcp-server{worker}", versioned_schema(name, round_number),
                         echo_handler(name), check_fn=lambda: True)


def reader(reg: ToolRegistry, worker: int) -> None:
    last_generation = -1
    for round_number in range(READER_ROUNDS):
        generation = reg.generation
        assert generation >= last_generation, "generation went backwards"
        last_generation = generation
        for definition in reg.get_definitions(NAMES):
            function = definition["function"]
            assert definition["type"] == "function"
            assert function["description"].startswith(function["name"] + " v"), function
        name = NAMES[(worker + round_number) % len(NAMES)]
        outcome = json.loads(reg.dispatch(name, {"round": round_number}))
        assert outcome in ({"tool": name, "round": round_number},
                           {"error": f"Unknown tool: {name}"}), outcome


def test_concurrent_registration_and_reads_stay_consistent():
    reg = ToolRegistry()
    failures: list[BaseException] = []

    def guarded(target, worker):
        def run():
            try:
                target(reg, worker)
            except BaseException as exc:  # reported by the main thread below
                failures.append(exc)

        return threading.Thread(target=run, name=f"{target.__name__}-{worker}", daemon=True)

    threads = [guarded(writer, w) for w in range(3)] + [guarded(reader, w) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOIN_TIMEOUT_SECONDS)

    assert [t.name for t in threads if t.is_alive()] == []
    assert failures == []
    # Every surviving entry is whole: its schema and handler belong to its own name.
    for name in reg.get_all_tool_names():
        entry = reg.get_entry(name)
        assert entry.schema["name"] == name
        assert json.loads(reg.dispatch(name, {"round": 0})) == {"tool": name, "round": 0}
    assert reg.generation > 0
