from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, Mapping, Optional, Tuple

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.functions import FunctionFacts, ReturnFact
from hermes_lint.analysis.handlers import HandlerAnalyzer, unique_primaries
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
                found = _error_shape(ret, analyzer, primary.facts)
                if found is not None:
                    node, description = found
                    yield Finding(ctx.loc(node), f"{primary.who} returns an error {description}")


_ERROR_STRING = re.compile(r"^\s*error\b", re.IGNORECASE)
_OTHER_ERROR_KEYS = ("error_message", "error_msg", "errmsg", "errorMessage", "err")
_FAILURE_FLAGS = {"success": False, "ok": False, "status": "error"}
# Keys that may stand beside ``err`` in an error payload. ``err`` next to anything else is often
# a command's stderr in a successful result (``{"out": ..., "err": ..., "code": 0}``).
_STATUS_KEYS = frozenset({"err", "success", "ok", "status", "details", "detail", "hint", "type", "error_type"})


def _error_shape(ret: ReturnFact, analyzer: HandlerAnalyzer, fn: FunctionFacts) -> Optional[Tuple[ast.AST, str]]:
    """(node, how) when ``ret`` returns an error in another shape than ``{"error": ...}``.

    ``how`` completes "returns an error ...": "under `err`; ...", "as a plain string (...); ...".
    """
    value = ret.value
    if value is None:
        return None
    text = _leading_text(value)
    if text is not None and _ERROR_STRING.match(text):
        shown = text.strip()[:30]
        return value, (f"as a plain string (`{shown}...`); return `{{\"error\": ...}}` "
                       "as JSON (e.g. `tool_error(...)`)")
    payload = _returned_dict(value, analyzer, fn)
    if payload is None:
        return None
    keys = {k.value: k for k in payload.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if "error" in keys:
        return None
    for key in _OTHER_ERROR_KEYS:
        if key in keys and (key != "err" or set(keys) <= _STATUS_KEYS):
            return keys[key], (
                f"under `{key}`; the runtime and the model expect `{{\"error\": ...}}` (e.g. `tool_error(...)`)"
            )
    if ret.in_except and "message" in keys and _looks_like_failure(payload, keys, ret.except_names):
        return keys["message"], ("under `message` in an `except` block; return "
                                 "`{\"error\": ...}` (e.g. `tool_error(...)`)")
    flag = _failure_flag(payload, keys) if ret.in_except else None
    if flag is not None:
        return keys[flag], (f"flagged only by `{flag}: {_FAILURE_TEXT[flag]}` in an `except` block, "
                            "with no `error` key; return `{\"error\": ...}` (e.g. `tool_error(...)`)")
    return None


def _leading_text(value: ast.AST) -> Optional[str]:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, ast.JoinedStr) and value.values and isinstance(value.values[0], ast.Constant):
        return str(value.values[0].value)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "format":
        return _leading_text(value.func.value)
    return None


def _returned_dict(value: ast.AST, analyzer: HandlerAnalyzer, fn: FunctionFacts) -> Optional[ast.Dict]:
    if isinstance(value, ast.Dict):
        return value
    if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Dict):
        func = value.func
        if analyzer.is_import(func, fn, "json.dumps") or analyzer.is_registry_helper(func, fn, "tool_result"):
            return value.args[0]
    return None


_FAILURE_TEXT = {"success": "False", "ok": "False", "status": '"error"'}


def _failure_flag(payload: ast.Dict, keys: Mapping[str, ast.expr]) -> Optional[str]:
    """The key of a literal failure flag (``"status": "error"``, ``"success": False``...), if any."""
    for key, expected in _FAILURE_FLAGS.items():
        if key in keys:
            value = payload.values[payload.keys.index(keys[key])]
            if isinstance(value, ast.Constant) and type(value.value) is type(expected) and value.value == expected:
                return key
    return None


def _looks_like_failure(payload: ast.Dict, keys: Mapping[str, ast.expr], except_names: Tuple[str, ...]) -> bool:
    """A ``message`` that reports the caught exception, or a payload flagged as a failure."""
    if _failure_flag(payload, keys) is not None:
        return True
    message = payload.values[payload.keys.index(keys["message"])]
    return any(isinstance(n, ast.Name) and n.id in except_names for n in ast.walk(message))
