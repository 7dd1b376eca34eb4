from __future__ import annotations

from typing import Iterator

from hermes_lint.context import ModuleContext
from hermes_lint.handlers import HandlerAnalyzer, error_shape, unique_primaries
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.shared_examples import USUAL_HANDLERS


class ErrorResultShape(Rule):
    """Errors are returned as ``{"error": "message"}`` (``tool_error(...)``), nothing else.

    The agent loop, the registry and the model's instructions all look for the ``error`` key:
    an error under ``err`` or ``error_message``, a ``{"message": ...}`` built in an ``except``
    block, or a plain ``"Error: ..."`` string reads as a successful result. Reported in the
    handler's own returns: in a payload without an ``error`` key (a dict literal,
    ``json.dumps({...})`` or ``tool_result({...})`` written in the ``return``), an
    ``error_message``-like key, ``err`` with nothing but status flags beside it, or — in an
    ``except`` block — a ``message`` that carries the caught exception or sits beside a
    ``success: False`` / ``ok: False`` / ``status: "error"`` flag, or any payload whose only sign
    of failure is such a flag (``{"status": "error", "detail": str(exc)}``); and a string literal
    or f-string starting with "error".

    Not reported: helpers the handler calls (they may build payloads for other uses), payloads
    that also carry ``error``, a failure flag outside an ``except`` block (a result may report an
    expected "no" without failing), a ``message`` outside ``except`` or without a sign of failure (a
    friendly fallback result), ``err`` beside other data (a command's stderr), and dicts built
    elsewhere and returned through a variable.
    """

    code = "HRM103"
    summary = "error result under another shape than {\"error\": ...}"

    valid = [
        USUAL_HANDLERS,
        # {"error": ...} from json.dumps, tool_error, and a friendly message in an except block (a result)
        """
        import json
        from tools.registry import registry, tool_error

        def _handle(args, **kw):
            try:
                notes = open(args.get("path", "notes.txt")).read()
            except FileNotFoundError:
                return json.dumps({"message": "no notes yet", "notes": []})
            except OSError as e:
                return json.dumps({"error": str(e), "message": "cannot read notes"})
            if not notes:
                return tool_error("empty file")
            return json.dumps({"out": notes, "err": "", "code": 0})  # err: a stderr, not an error

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
        # a helper in another module and a helper of this module are not the handler's returns
        """
        import json
        from tools.registry import registry
        from tools.common import error_text

        def _payload(e):
            return json.dumps({"err": str(e)})

        def _handle(args, **kw):
            if not args.get("q"):
                return error_text("q is required")
            return "Errors found: none"

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
        # a failure flag beside `error`, and outside an except block; `status` of another value
        """
        import json
        from tools.registry import registry

        def _handle(args, **kw):
            try:
                job = json.loads(args.get("job", "{}"))
            except ValueError as exc:
                return json.dumps({"status": "error", "error": str(exc)})
            if not job:
                return json.dumps({"success": False, "reason": "nothing to schedule"})
            return json.dumps({"status": "queued", "detail": job})

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
    ]
    invalid = [
        Invalid(
            """
            import json
            from tools.registry import registry

            def _handle(args, **kw):
                if not args.get("city"):
                    return json.dumps({"err": "city is required"})
                return json.dumps({"city": args["city"]})

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=6,
            col=28,
            message="handler `_handle` returns an error under `err`; the runtime and the model expect "
            "`{\"error\": ...}` (e.g. `tool_error(...)`)",
            fix=(('{"err": "city is required"}', '{"error": "city is required"}'),),
        ),
        Invalid(
            """
            import json
            from tools.registry import registry

            def _handle(args, **kw):
                try:
                    return json.dumps({"rows": list(args)})
                except Exception as exc:
                    return json.dumps({"success": False, "message": str(exc)})

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=8,
            col=46,
            message="handler `_handle` returns an error under `message` in an `except` block; "
            "return `{\"error\": ...}` (e.g. `tool_error(...)`)",
        ),
        Invalid(
            """
            from tools.registry import registry

            def lookup(city):
                if not city:
                    return f"Error: no city given ({city!r})"
                return "sunny"

            registry.register(name="t", toolset="s", schema={},
                              handler=lambda args, **kw: lookup(args.get("city")))
            """,
            line=5,
            col=16,
            message="handler `lookup` (via lambda) returns an error as a plain string (`Error: no city "
            "given (...`); return `{\"error\": ...}` as JSON (e.g. `tool_error(...)`)",
        ),
        Invalid(
            """
            import json
            from tools.registry import registry

            def _handle(args, **kw):
                try:
                    rows = [int(x) for x in args.get("ids", [])]
                except (TypeError, ValueError) as exc:
                    return json.dumps({"status": "error", "detail": f"bad id: {exc}"})
                return json.dumps({"status": "ok", "rows": rows})

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=8,
            col=28,
            message="handler `_handle` returns an error flagged only by `status: \"error\"` in an `except` "
            "block, with no `error` key; return `{\"error\": ...}` (e.g. `tool_error(...)`)",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        analyzer = HandlerAnalyzer.of(ctx)
        for primary in unique_primaries(ctx):
            for ret in primary.facts.returns:
                found = error_shape(ret, analyzer, primary.facts)
                if found is not None:
                    node, description = found
                    yield Finding(ctx.loc(node), f"{primary.who} returns an error {description}")
