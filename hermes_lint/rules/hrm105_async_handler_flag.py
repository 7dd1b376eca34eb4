from __future__ import annotations

import ast
from typing import Iterator, Optional

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.handlers import analyses
from hermes_lint.analysis.local_handlers import LocalHandlers
from hermes_lint.model import Unresolved
from hermes_lint.project.registry_contract import BUILTIN
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.shared_examples import USUAL_HANDLERS


def _registry(is_async_default: str, entry_flag: str, awaits: str) -> str:
    """A project's ``tools/registry.py`` for the examples."""
    return f"""
        import asyncio
        import inspect

        class ToolRegistry:
            def __init__(self):
                self._tools = {{}}

            def register(self, name, toolset, schema, handler, check_fn=None, requires_env=None,
                         is_async={is_async_default}, description="", emoji=""):
                self._tools[name] = dict(handler=handler, is_async={entry_flag})

            def dispatch(self, name, args, **kwargs):
                entry = self._tools[name]
                result = entry["handler"](args, **kwargs)
                if {awaits}:
                    result = asyncio.run(result)
                return result

        registry = ToolRegistry()
        """


# A fork's registry: `register` turns the flag on for every handler, `dispatch` awaits any
# awaitable result.
FORK_REGISTRY = _registry("False", "True", "inspect.isawaitable(result)")
ASYNC_DEFAULT_REGISTRY = _registry("True", "is_async", 'entry["is_async"]')
PLAIN_REGISTRY = _registry("False", "is_async", 'entry["is_async"]')


class AsyncHandlerFlag(Rule):
    """``is_async=True`` must match the handler: set exactly when calling it returns an awaitable.

    Without the flag, an ``async def`` handler (or a lambda calling one) gives dispatch an
    un-awaited coroutine, which the registry rejects as a non-string result; with the flag on a
    plain function that returns a string, the registry tries to await the string and fails.
    Reported: an ``async def`` handler, or a handler that returns the call of a module
    ``async def`` (a lambda ``lambda args, **kw: fetch(...)``), registered without
    ``is_async=True``; ``is_async=True`` on a plain ``def`` or lambda whose every return is known
    and none is awaitable.

    The contract is the project's own ``register``, read from its registry module (the module
    ``registry`` is imported from): its default for ``is_async`` counts as the flag when the call
    does not pass one. Nothing is reported when that registry runs coroutines itself — its
    ``register`` sets ``is_async`` (``is_async = is_async or inspect.iscoroutinefunction(handler)``
    or ``is_async=True`` into the entry), or its ``dispatch`` tests what a handler returned
    (``inspect.isawaitable``) or is ``async def`` and awaits it: there every handler works either
    way.

    A plugin's handler defined inside the function that registers it (a closure of
    ``register(ctx)`` or of a helper it calls) is reported when the name it is registered under
    is, in that function's scope, exactly one undecorated ``async def``.

    Not reported: an ``is_async`` value that cannot be evaluated, handlers from other modules or
    attributes, a function-local name bound otherwise (a parameter, an assignment, a decorated or
    second def), and any return whose value is unknown (it may be a task or a future).
    """

    code = "HRM105"
    summary = "async handler without is_async=True, or is_async=True on a handler returning no awaitable"
    fix_applicability = "safe"
    fix_title = "an awaitable handler without `is_async=True` gets it (`is_async=False` becomes `True`)"

    valid = [
        USUAL_HANDLERS,
        # a lambda calling an async module function, with is_async=True
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
    valid += [
        # a fork's registry that awaits whatever a handler returns and forces the flag
        Valid(
            """
            from tools.registry import registry

            async def _handle(args, **kw):
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            files={"tools/registry.py": FORK_REGISTRY},
        ),
        # a registry whose `is_async` defaults to True
        Valid(
            """
            from tools.registry import registry

            async def _handle(args, **kw):
                return "ok"

            def _sync(args, **kw):
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            registry.register(name="u", toolset="s", schema={}, handler=_sync)
            """,
            files={"tools/registry.py": ASYNC_DEFAULT_REGISTRY},
        ),
        # plugin handlers defined in register: flagged, plain, or a name bound more than once
        """
        import json

        def register(ctx):
            async def handle_recall(args, **kw):
                return json.dumps({"q": args.get("q")})

            def handle_status(args, **kw):
                return json.dumps({"ok": True})

            async def handle_other(args, **kw):
                return "{}"

            handle_other = handle_status
            ctx.register_tool(name="recall", toolset="m", schema={}, handler=handle_recall, is_async=True)
            ctx.register_tool(name="status", toolset="m", schema={}, handler=handle_status)
            ctx.register_tool(name="other", toolset="m", schema={}, handler=handle_other)
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
            files={"tools/registry.py": PLAIN_REGISTRY},
            line=6,
            col=61,
            message="handler `_handle` is `async def` but is registered without `is_async=True`; "
            "dispatch would get an un-awaited coroutine",
            autofixed="""
            from tools.registry import registry

            async def _handle(args, **kw):
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle, is_async=True)
            """,
        ),
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
            autofixed="""
            from tools.registry import registry

            async def _handle(args, **kw):
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle, is_async=True)
            """,
        ),
        # one argument per line, with a trailing comma: the new one follows that layout
        Invalid(
            """
            from tools.registry import registry

            async def _handle(args, **kw):
                return "ok"

            registry.register(
                name="t",
                toolset="s",
                schema={},
                handler=_handle,  # the entry point
            )
            """,
            line=10,
            col=13,
            autofixed="""
            from tools.registry import registry

            async def _handle(args, **kw):
                return "ok"

            registry.register(
                name="t",
                toolset="s",
                schema={},
                handler=_handle,  # the entry point
                is_async=True,
            )
            """,
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
            autofixed="""
            from tools.registry import registry

            async def fetch(url):
                return url

            registry.register(name="t", toolset="s", schema={},
                              handler=lambda args, **kw: fetch(args.get("url")), is_async=True)
            """,
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
        # a plugin's handler defined inside the register function (a closure over its locals)
        Invalid(
            """
            import json

            def register(ctx):
                client = ctx.memory_client()

                async def handle_recall(args, **kw):
                    return json.dumps(await client.recall(args.get("q")))

                ctx.register_tool(name="recall", toolset="m", schema={}, handler=handle_recall)
            """,
            line=9,
            col=70,
            message="handler `handle_recall` is `async def` but is registered without `is_async=True`; "
            "dispatch would get an un-awaited coroutine",
            fix=(('handler=handle_recall)', 'handler=handle_recall, is_async=True)'),),
            autofixed="""
            import json

            def register(ctx):
                client = ctx.memory_client()

                async def handle_recall(args, **kw):
                    return json.dumps(await client.recall(args.get("q")))

                ctx.register_tool(name="recall", toolset="m", schema={}, handler=handle_recall, is_async=True)
            """,
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """At a literal ``is_async=False``: make it ``True``; at the handler of a call without
        ``is_async``: add ``is_async=True``. The other finding (``is_async=True`` on a handler
        returning no awaitable) has no fix: which of the two is wrong is not known."""
        import libcst as cst

        from hermes_lint.edit.fix.source import add_keyword, call_keyword

        path = diagnostic.path
        arg = source.node_at(path, diagnostic.line, diagnostic.col, cst.Arg)
        if arg is not None and arg.keyword is not None and arg.keyword.value == "is_async":
            if isinstance(arg.value, cst.Name) and arg.value.value == "False":
                return [source.replace(path, arg.value, "True")]
            return None
        handler = source.node_at(path, diagnostic.line, diagnostic.col, cst.BaseExpression)
        arg = source.parent(path, handler) if handler is not None else None
        call = source.parent(path, arg) if isinstance(arg, cst.Arg) else None
        if (
            not isinstance(call, cst.Call)
            or not isinstance(arg, cst.Arg)  # it is, when call is
            or arg.keyword is None
            or arg.keyword.value != "handler"
        ):
            return None
        if call_keyword(call, "is_async") is not None or any(a.star for a in call.args):
            return None
        return [add_keyword(source, path, call, "is_async=True")]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        contract = ctx.contract or BUILTIN
        if contract.runs_coroutines or contract.is_async_default is None:
            return  # the project's registry decides for itself, or its flag is not ours to read
        for (registration, call), analysis in zip(ctx.registration_calls(), analyses(ctx)):
            flag = registration.value("is_async", contract.is_async_default)
            if not analysis.known and flag is False:
                yield from _local_async_handler(ctx, registration, call)
                continue
            if (
                not analysis.known
                or registration.handler is None  # never, when the analysis is known
                or isinstance(flag, Unresolved)
                or not isinstance(flag, bool)
            ):
                continue
            if flag and registration.keyword("is_async") is None and not analysis.entry_is_async:
                continue  # True by the registry's default, not by this call: nothing written to fix
            problem = _problem(analysis, flag)
            if problem:
                keyword = registration.keyword("is_async")
                yield Finding(keyword.location if keyword else registration.handler.location, problem)


def _local_async_handler(ctx: ModuleContext, registration, call) -> Iterator[Finding]:
    """A handler defined as ``async def`` inside the function that registers it."""
    ref = registration.handler
    if ref is None or ref.kind not in ("other", "undefined") or not ref.text.isidentifier():
        return
    definition = LocalHandlers.of(ctx).definition(call)
    if isinstance(definition, ast.AsyncFunctionDef):
        keyword = registration.keyword("is_async")
        yield Finding(
            keyword.location if keyword else ref.location,
            f"handler `{definition.name}` is `async def` {_MISSING_FLAG}",
        )


_MISSING_FLAG = "but is registered without `is_async=True`; dispatch would get an un-awaited coroutine"


def _problem(analysis, is_async: bool) -> Optional[str]:
    label = analysis.entry_label
    missing = _MISSING_FLAG
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
