"""``ToolRegistry.dispatch``: calling a tool's handler, running an async handler's awaitable,
and replacing a result of the wrong type.

Kept out of ``tools.registry``, which every start compiles (often without a ``.pyc``); imported
by the first dispatch.
"""

from __future__ import annotations

from tools.registry import RESULT_CONTRACT_ERROR_TYPE, _logger

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Awaitable, Coroutine
    from typing import Any, TypeGuard

    from tools.registry import ToolRegistry


def dispatch(registry: ToolRegistry, name: str, args: dict[str, Any],
             kwargs: dict[str, Any]) -> str | dict[str, Any]:
    """See ``ToolRegistry.dispatch``."""
    import json

    entry = registry.get_entry(name)
    if entry is None:
        return json.dumps({"error": f"Unknown tool: {name}"})
    try:
        # Any: whatever the handler returns is checked below, at run time.
        result: Any = entry.handler(args, **kwargs)
        if entry.is_async:
            result = run_awaitable(result, name)
    except Exception as exc:
        _logger().exception("Tool '%s' raised", name)
        return json.dumps({"error": f"Tool execution failed: {type(exc).__name__}: {exc}"})
    if isinstance(result, str):
        return result
    return result_within_contract(name, result)


def run_awaitable(awaitable: Awaitable[object], tool_name: str) -> object:
    """Run an async handler's awaitable to completion from synchronous code.

    With no event loop running in this thread, a fresh one (``asyncio.run``). With one running
    (dispatch called from async code), ``asyncio.run`` would refuse and waiting on that loop
    would deadlock it, so the coroutine gets a fresh loop in a worker thread; the caller's loop
    is blocked meanwhile, as with any synchronous call.
    """
    import asyncio

    coroutine = _as_coroutine(awaitable)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    return _run_in_worker_thread(coroutine, tool_name)


async def _as_coroutine(awaitable: Awaitable[object]) -> object:
    # asyncio.run() accepts only coroutines; a handler may return any awaitable (a Future,
    # an object with __await__).
    return await awaitable


def _run_in_worker_thread(coroutine: Coroutine[object, object, object], tool_name: str) -> object:
    import asyncio
    import threading

    outcome: dict[str, object] = {}
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller's thread below
            failure.append(exc)

    worker = threading.Thread(target=run, name=f"hermes-tool-{tool_name}", daemon=True)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome["value"]


def _is_multimodal_envelope(result: object) -> TypeGuard[dict[str, Any]]:
    return (
        isinstance(result, dict)
        and result.get("_multimodal") is True
        and isinstance(result.get("content"), list)
    )


def result_within_contract(name: str, result: object) -> str | dict[str, Any]:
    """``result`` when it is a string or the multimodal envelope, else the contract error."""
    if isinstance(result, str) or _is_multimodal_envelope(result):
        return result
    import json

    _close_if_coroutine(result)
    type_name = type(result).__name__
    _logger().error("Tool '%s' returned %s, expected a JSON string%s", name, type_name,
                    " (an async handler needs is_async=True)" if type_name == "coroutine" else "")
    return json.dumps({
        "error": f"Tool handler returned unsupported result type: {type_name}",
        "error_type": RESULT_CONTRACT_ERROR_TYPE,
        "tool": name,
        "result_type": type_name,
    }, ensure_ascii=False)


def _close_if_coroutine(result: object) -> None:
    # An un-awaited coroutine would otherwise emit "coroutine ... was never awaited" later,
    # far from the cause.
    import types

    if isinstance(result, types.CoroutineType):
        result.close()
