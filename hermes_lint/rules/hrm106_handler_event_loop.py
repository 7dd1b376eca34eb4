from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.handlers import analyses
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.shared_examples import USUAL_HANDLERS


class HandlerRunsEventLoop(Rule):
    """A handler must not run its own event loop (``asyncio.run``, ``run_until_complete``,
    ``asyncio.new_event_loop``): the registry bridges async handlers itself.

    Dispatch may run inside a running loop (the gateway, an async agent loop): ``asyncio.run``
    then raises ``RuntimeError``, and a nested ``run_until_complete`` deadlocks or fails. Write
    the handler as ``async def`` and register it with ``is_async=True``; the registry runs it in
    the right place. Reported in the handler function and in the module functions it calls
    directly (a few calls deep).

    Loop-aware bridges are reported too: a sync function that checks ``loop.is_running()`` and
    then waits on a worker thread (or starts a loop only when none runs) still blocks the thread
    of the caller's running loop until the coroutine ends, and a coroutine that needs that loop
    (a client bound to it, a lock it holds) never ends: this deadlocked a real gateway. No sync
    bridge can run the coroutine on the caller's own loop and still return its result, so none is
    exempt.

    What is reported is the call that starts a loop. One place is certain to have no running
    loop: the ``except RuntimeError:`` block of a ``try`` whose only statement is
    ``asyncio.get_running_loop()`` (or ``loop = asyncio.get_running_loop()``) runs only when this
    thread has none, where running the coroutine to completion is what Hermes's own bridge for
    ``is_async=True`` handlers (``model_tools._run_async``) does too. A loop started there is not
    reported; one started after such a ``try``, or in a block that catches another exception or
    follows a ``try`` doing more than the probe, still is. The other branch of such a bridge, a
    callable handed to a worker thread, is not followed (below).

    Not reported: nested functions and callables passed by reference (``executor.submit(fn)``
    runs them in another thread, where a fresh loop is legitimate), helpers from other modules,
    and decorated functions.
    """

    code = "HRM106"
    summary = "handler runs its own event loop (asyncio.run)"

    valid = [
        USUAL_HANDLERS,
        # the registry runs the coroutine
        """
        import json
        from tools.registry import registry

        async def weather_tool_async(location):
            return json.dumps({"location": location})

        registry.register(name="weather", toolset="weather", schema={},
            handler=lambda args, **kw: weather_tool_async(args.get("location", "")), is_async=True)
        """,
        # a fresh loop in a worker thread (passed by reference), a helper from another module
        """
        import asyncio
        import concurrent.futures
        from tools.registry import registry
        from tools.common import run_sync

        async def _fetch(url):
            return url

        def _in_thread(url):
            return asyncio.run(_fetch(url))

        def _handle(args, **kw):
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                result = pool.submit(_in_thread, args.get("url")).result()
            return run_sync(_fetch(result))

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
        # a loop started only where this thread has none (the `except RuntimeError:` of the
        # probe); otherwise on a worker thread's own loop (a lambda passed by reference)
        """
        import asyncio
        import concurrent.futures
        import json

        async def _deliver(target, text):
            return {"target": target, "sent": text}

        def _drive(make):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return asyncio.run(make())
            with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
                return pool.submit(lambda: asyncio.run(make())).result(timeout=20)

        def handle_notify(args, **kw):
            result = _drive(lambda: _deliver(args.get("target"), args.get("text")))
            return json.dumps(result)

        def register(ctx):
            ctx.register_tool(name="notify", toolset="notify", schema={}, handler=handle_notify)
        """,
        # the probe bound to a name, a fresh loop run to completion in that block
        """
        import asyncio
        from tools.registry import registry

        async def _fetch(url):
            return url

        def _handle(args, **kw):
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                loop = asyncio.new_event_loop()
                try:
                    return loop.run_until_complete(_fetch(args.get("url")))
                finally:
                    loop.close()
            return running.run_in_executor(None, str)

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
    ]
    invalid = [
        # the same shape, but the block catches another exception: not the probe's
        Invalid(
            """
            import asyncio
            import json

            async def _deliver(text):
                return {"sent": text}

            def _drive(make):
                try:
                    asyncio.get_running_loop()
                except ValueError:
                    return asyncio.run(make())
                return None

            def handle_notify(args, **kw):
                return json.dumps(_drive(lambda: _deliver(args.get("text"))))

            def register(ctx):
                ctx.register_tool(name="notify", toolset="notify", schema={}, handler=handle_notify)
            """,
            line=11,
            col=16,
            message="`_drive`, called by handler `handle_notify`, runs its own event loop (`asyncio.run(...)`); "
            "make the handler `async def` with `is_async=True` and let the registry run it",
        ),
        # the loop started after the probe's try: reached with a loop running too
        Invalid(
            """
            import asyncio
            import json

            async def _deliver(text):
                return {"sent": text}

            def _drive(make):
                try:
                    asyncio.get_running_loop()
                except RuntimeError:
                    pass
                return asyncio.run(make())

            def handle_notify(args, **kw):
                return json.dumps(_drive(lambda: _deliver(args.get("text"))))

            def register(ctx):
                ctx.register_tool(name="notify", toolset="notify", schema={}, handler=handle_notify)
            """,
            line=12,
            col=12,
        ),
        # the try does more than probe: its RuntimeError may come from a running loop
        Invalid(
            """
            import asyncio
            from tools.registry import registry

            async def _fetch(url):
                return url

            def _handle(args, **kw):
                try:
                    asyncio.get_running_loop()
                    url = args["url"].strip()
                except RuntimeError:
                    return asyncio.run(_fetch(args.get("url")))
                return url

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=12,
            col=16,
        ),
        # a loop-aware bridge (starts a loop only when none runs, else blocks on a worker
        # thread) still blocks the caller: inside a gateway's running loop this deadlocked
        Invalid(
            """
            import asyncio
            import json
            from tools.registry import registry

            def _run_async(coro):
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:
                    loop = None
                if loop and loop.is_running():
                    import concurrent.futures
                    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
                        return pool.submit(asyncio.run, coro).result(timeout=30)
                return asyncio.run(coro)

            async def _fetch(q):
                return json.dumps({"q": q})

            def _handle(args, **kw):
                return _run_async(_fetch(args.get("q")))

            registry.register(name="ha", toolset="s", schema={}, handler=_handle)
            """,
            line=14,
            message="`_run_async`, called by handler `_handle`, runs its own event loop (`asyncio.run(...)`); "
            "make the handler `async def` with `is_async=True` and let the registry run it",
        ),
        Invalid(
            """
            import asyncio
            from tools.registry import registry

            async def _fetch(url):
                return url

            def _handle(args, **kw):
                return asyncio.run(_fetch(args.get("url")))

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=8,
            col=12,
            message="handler `_handle` runs its own event loop (`asyncio.run(...)`); make the handler "
            "`async def` with `is_async=True` and let the registry run it",
            fix=(('def _handle(args, **kw):\n    return asyncio.run(_fetch(args.get("url")))', 'async def _handle(args, **kw):\n    return await _fetch(args.get("url"))'), ('handler=_handle)', 'handler=_handle, is_async=True)')),
        ),
        Invalid(
            """
            import asyncio
            from tools.registry import registry

            async def _fetch(url):
                return url

            def _run(coro):
                loop = asyncio.get_event_loop()
                return loop.run_until_complete(coro)

            def search(url):
                return _run(_fetch(url))

            registry.register(name="t", toolset="s", schema={},
                              handler=lambda args, **kw: search(args.get("url")))
            """,
            line=9,
            col=12,
            message="`_run`, called by handler `search` (via lambda), runs its own event loop "
            "(`loop.run_until_complete(...)`); make the handler `async def` with `is_async=True` "
            "and let the registry run it",
        ),
        # get_event_loop() is no probe: inside a running loop it returns that loop, and
        # run_until_complete on it raises
        Invalid(
            """
            import asyncio
            from tools.registry import registry

            async def _fetch(url):
                return url

            def _handle(args, **kw):
                try:
                    loop = asyncio.get_event_loop()
                except RuntimeError:
                    loop = asyncio.new_event_loop()
                return loop.run_until_complete(_fetch(args.get("url")))

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=12,
            col=12,
            also=((11, 16),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        seen = set()
        for analysis in analyses(ctx):
            for call, text, who in analysis.event_loop_calls:
                if id(call) in seen:
                    continue
                seen.add(id(call))
                yield Finding(
                    ctx.loc(call),
                    f"{who} runs its own event loop (`{text}`); make the handler `async def` with "
                    "`is_async=True` and let the registry run it",
                )
