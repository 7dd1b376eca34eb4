from __future__ import annotations

import ast
from typing import Iterator, Optional

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.functions import FunctionFacts
from hermes_lint.analysis.handlers import unique_primaries
from hermes_lint.analysis.raises import raised_name
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.shared_examples import USUAL_HANDLERS


class HandlerRaises(Rule):
    """A handler reports failure by returning ``{"error": ...}`` (``tool_error(...)``); it does
    not raise.

    The model reads the returned error and can correct its call; an exception only reaches it as
    the registry's generic wrapper (and is logged as a crash). Reported: a ``raise`` in the handler
    function itself (or in the module function a handler lambda calls) that no enclosing ``try``
    of the same function certainly catches — ``except Exception``, a bare ``except`` or a matching
    class catch it; a bare ``raise`` or ``raise ... from`` inside an ``except`` block does not.

    Not reported: raises in helpers the handler calls (whether the handler catches them is
    another question), in nested functions, inside a ``with`` whose context manager may swallow
    exceptions (``suppress(...)``), or where the handler catches a class that might be a base of
    the raised one (a class from this or another module); and re-raising a cancellation — a bare
    ``raise`` (or ``raise exc`` of the caught name) in an ``except`` that catches only
    ``asyncio.CancelledError``, ``KeyboardInterrupt`` or ``SystemExit`` (or a tuple of them).
    Cancellation must propagate: the caller that cancelled the task, or the user who pressed
    Ctrl-C, is waiting for it, and turning it into an ``{"error": ...}`` result would keep a
    cancelled tool call running as if it had failed.
    """

    code = "HRM102"
    summary = "handler raises instead of returning {\"error\": ...}"

    valid = [
        USUAL_HANDLERS,
        # exceptions become {"error": ...}; the helper's raise is not the handler's
        """
        import json
        from tools.registry import registry, tool_error

        def _fetch(city):
            if not city:
                raise ValueError("no city")
            return {"city": city}

        def _handle_weather(args, **kw):
            task_id = kw.get("task_id")
            try:
                if args.get("strict"):
                    raise KeyError("strict")
                return json.dumps(_fetch(args.get("location", "")))
            except Exception as e:
                return json.dumps({"error": str(e)})

        registry.register(name="weather", toolset="weather", schema={}, handler=_handle_weather)
        """,
        # a matching class, a possible base class, a nested def, contextlib.suppress
        """
        import contextlib
        from tools.registry import registry, tool_error
        from tools.errors import ToolFailure

        def _handle(args, **kw):
            def later():
                raise RuntimeError("not the handler's")
            try:
                raise FileNotFoundError(args.get("path"))
            except OSError as exc:
                return tool_error(str(exc))
            try:
                raise ToolFailure("x")
            except ToolFailure.Base:
                return tool_error("x")
            with contextlib.suppress(ValueError):
                raise ValueError("ignored")
            return tool_error("done")

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
        # cancellation re-raised, then every other failure returned as an error
        """
        import asyncio
        import json
        from asyncio import CancelledError
        from tools.registry import registry, tool_error

        async def _send(args, **kw):
            try:
                await asyncio.sleep(float(args.get("delay", 0)))
            except asyncio.CancelledError:
                await asyncio.sleep(0)  # let the transport close first
                raise
            except (KeyboardInterrupt, SystemExit) as stop:
                raise stop
            except CancelledError:
                raise
            except Exception as exc:
                return tool_error(str(exc))
            return json.dumps({"sent": True})

        registry.register(name="send", toolset="s", schema={}, handler=_send, is_async=True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            def _handle(args, **kw):
                if "path" not in args:
                    raise ValueError("path is required")
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=5,
            col=9,
            message="handler `_handle` raises `ValueError` instead of returning `{\"error\": ...}` "
            "(e.g. `tool_error(...)`)",
            fix=(('from tools.registry import registry', 'import json\nfrom tools.registry import registry'), ('raise ValueError("path is required")', 'return json.dumps({"error": "path is required"})')),
        ),
        Invalid(
            """
            import json
            from tools.registry import registry

            def weather_tool(location):
                try:
                    return json.dumps({"location": location.upper()})
                except AttributeError:
                    raise
                except KeyError:
                    raise TypeError("bad")

            registry.register(name="t", toolset="s", schema={},
                              handler=lambda args, **kw: weather_tool(args.get("location")))
            """,
            line=8,
            col=9,
            message="handler `weather_tool` (via lambda) re-raises the exception instead of returning "
            "`{\"error\": ...}` (e.g. `tool_error(...)`)",
            also=((10, 9),),
        ),
        # a handler that catches cancellation among ordinary errors re-raises those too; a new
        # exception raised while handling cancellation is not a re-raise
        Invalid(
            """
            import asyncio
            from tools.registry import registry

            async def _handle(args, **kw):
                try:
                    await asyncio.sleep(1)
                except (asyncio.CancelledError, ValueError):
                    raise
                except KeyboardInterrupt:
                    raise RuntimeError("interrupted")
                return "done"

            registry.register(name="t", toolset="s", schema={}, handler=_handle, is_async=True)
            """,
            line=8,
            col=9,
            message="handler `_handle` re-raises the exception instead of returning `{\"error\": ...}` "
            "(e.g. `tool_error(...)`)",
            also=((10, 9),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for primary in unique_primaries(ctx):
            if isinstance(primary.facts.node, ast.Lambda):
                continue
            for node in primary.facts.uncaught_raises:
                if _reraises_cancellation(node, primary.facts):
                    continue
                yield Finding(
                    ctx.loc(node),
                    f"{primary.who} {_raise_description(node)} instead of returning `{{\"error\": ...}}` "
                    "(e.g. `tool_error(...)`)",
                )


# Exceptions that mean "stop", not "failed": they derive from BaseException so that an
# ``except Exception`` lets them through, and a handler must let them through too.
_CANCELLATION = frozenset({"CancelledError", "KeyboardInterrupt", "SystemExit"})


def _reraises_cancellation(node: ast.Raise, facts: FunctionFacts) -> bool:
    """A bare ``raise`` (or ``raise name`` of the caught exception) in an ``except`` clause that
    catches only cancellation classes."""
    handler = _enclosing_handler(node, facts)
    if handler is None or handler.type is None:
        return False
    if node.exc is not None and not (
        node.cause is None and isinstance(node.exc, ast.Name) and handler.name == node.exc.id
    ):
        return False
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return all(_class_name(t) in _CANCELLATION for t in caught)


def _enclosing_handler(node: ast.AST, facts: FunctionFacts) -> Optional[ast.ExceptHandler]:
    """The innermost ``except`` clause around ``node`` within the function (what a bare ``raise``
    re-raises)."""
    while id(node) in facts.parents:
        node = facts.parents[id(node)]
        if isinstance(node, ast.ExceptHandler):
            return node
    return None


def _class_name(node: ast.AST) -> Optional[str]:
    """``CancelledError`` for ``CancelledError``, ``asyncio.CancelledError``,
    ``asyncio.exceptions.CancelledError``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _raise_description(node: ast.Raise) -> str:
    if node.exc is None:
        return "re-raises the exception"
    name = raised_name(node)
    return f"raises `{name}`" if name else f"raises `{ast.unparse(node.exc)}`"
