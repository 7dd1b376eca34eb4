from __future__ import annotations

from typing import Iterator, Optional

from hermes_lint.context import ModuleContext
from hermes_lint.handlers import analyses
from hermes_lint.model import Unresolved
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.hrm101_handler_returns_non_string import SEED_001_HANDLERS


class AsyncHandlerFlag(Rule):
    """``is_async=True`` must match the handler: set exactly when calling it returns an awaitable.

    Without the flag, an ``async def`` handler (or a lambda calling one) gives dispatch an
    un-awaited coroutine, which the registry rejects as a non-string result; with the flag on a
    plain function that returns a string, the registry tries to await the string and fails.
    Reported: an ``async def`` handler, or a handler that returns the call of a module
    ``async def`` (a lambda ``lambda args, **kw: fetch(...)``), registered without
    ``is_async=True``; ``is_async=True`` on a plain ``def`` or lambda whose every return is known
    and none is awaitable.

    Not reported: an ``is_async`` value that cannot be evaluated, handlers from other modules or
    attributes, and any return whose value is unknown (it may be a task or a future).
    """

    code = "HRM105"
    summary = "async handler without is_async=True, or is_async=True on a handler returning no awaitable"

    valid = [
        SEED_001_HANDLERS,
        # seed 001: a lambda calling an async module function, with is_async=True
        """
        import json
        from tools.registry import registry

        async def weather_tool_async(location: str) -> str:
            return json.dumps({"location": location})

        registry.register(name="weather", toolset="weather", schema={},
            handler=lambda args, **kw: weather_tool_async(args.get("location", "")),
            is_async=True)
        """,
        # unknown return (another module's coroutine), a sync handler, an unresolved flag
        """
        import os
        from tools.registry import registry
        from tools.net import fetch_async

        def _handle(args, **kw):
            return fetch_async(args.get("url"))

        def _sync(args, **kw):
            return "ok"

        registry.register(name="a", toolset="s", schema={}, handler=_handle, is_async=True)
        registry.register(name="b", toolset="s", schema={}, handler=_sync)
        registry.register(name="c", toolset="s", schema={}, handler=_sync, is_async=os.environ["X"] == "1")
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            async def _handle(args, **kw):
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=6,
            col=61,
            message="handler `_handle` is `async def` but is registered without `is_async=True`; "
            "dispatch would get an un-awaited coroutine",
            fix=(('handler=_handle)', 'handler=_handle, is_async=True)'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            async def fetch(url):
                return url

            registry.register(name="t", toolset="s", schema={},
                              handler=lambda args, **kw: fetch(args.get("url")), is_async=False)
            """,
            line=7,
            col=70,
            message="handler lambda returns the coroutine of `async def fetch` but is registered without "
            "`is_async=True`; dispatch would get an un-awaited coroutine",
        ),
        Invalid(
            """
            import json
            from tools.registry import registry

            def _handle(args, **kw):
                return json.dumps({"ok": True})

            registry.register(name="t", toolset="s", schema={}, handler=_handle, is_async=True)
            """,
            line=7,
            col=70,
            message="`is_async=True` but handler `_handle` returns no awaitable (it returns a string); "
            "the registry would try to await its result",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for analysis in analyses(ctx):
            registration = analysis.registration
            flag = registration.value("is_async", False)
            if not analysis.known or isinstance(flag, Unresolved) or not isinstance(flag, bool):
                continue
            problem = _problem(analysis, flag)
            if problem:
                keyword = registration.keyword("is_async")
                yield Finding(keyword.location if keyword else registration.handler.location, problem)


def _problem(analysis, is_async: bool) -> Optional[str]:
    label = analysis.entry_label
    missing = "but is registered without `is_async=True`; dispatch would get an un-awaited coroutine"
    if not is_async and analysis.entry_is_async:
        return f"{label} is `async def` {missing}"
    if not is_async and analysis.awaitable_callee:
        return f"{label} returns the coroutine of `async def {analysis.awaitable_callee}` {missing}"
    results = analysis.results
    if is_async and not analysis.entry_is_async and results and all(k.known_not_awaitable for k in results):
        whats = {"a string" if k.kind in ("string", "envelope") else k.what for k in results}
        returned = " or ".join(sorted(whats))
        return (f"`is_async=True` but {label} returns no awaitable (it returns {returned}); "
                "the registry would try to await its result")
    return None
