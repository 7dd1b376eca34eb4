from __future__ import annotations

from typing import Any, Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.enum_dispatch import dispatch_coverage
from hermes_lint.analysis.handlers import HandlerAnalyzer, analyses, unique_primaries
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.shared_examples import USUAL_HANDLERS
from hermes_lint.model.schema_walk import parameters_of


class HandlerReturnsNonString(Rule):
    """A handler must return a JSON string (``json.dumps(...)``, ``tool_result(...)``,
    ``tool_error(...)``); the only other accepted result is the multimodal envelope
    ``{"_multimodal": True, "content": [...]}``.

    The registry turns any other result into an error for the model, so a handler that returns
    a raw dict, a list, a number or None — or falls off its end, which returns None — fails every
    time that path runs. Reported: a return whose value is certainly not a string (a literal, a
    variable assigned only such literals, a module function that certainly returns one), and an
    end of the function that is certainly reachable. Followed: a lambda into the module function
    it calls, and ``return helper(...)`` into module functions, a few calls deep. An if/elif
    that returns for every value a local can have is no way off the end: every value of the
    schema's ``enum``, or every member of a set the test before it confines the local to
    (``elif action in VALID - {"list"}:``, the set a literal or a constant of the module).

    Not reported: anything whose type cannot be known — calls into other modules, attributes,
    parameters, a variable assigned both a dict and its ``json.dumps``, decorated functions (the
    decorator may serialise), and an end that is reachable only past a call that may never return.
    Nor a None that a test has ruled out: ``err = _guard(); if err: return err`` (also
    ``is not None``, and past ``if x is None: return tool_error(...)``), or a helper's
    ``None if error is None else ...`` when the call passes a literal ``error``.
    """

    code = "HRM101"
    summary = "handler can return something other than a string"
    fix_applicability = "unsafe"
    fix_title = "wrap a returned dict or list literal in `json.dumps(...)`, importing `json` when needed (unsafe: a value JSON cannot encode now raises)"

    valid = [
        # an if/elif over every value of the schema's enum cannot fall off its end
        """
        import json
        from tools.registry import registry

        SCHEMA = {"name": "notes", "description": "Manage notes.", "parameters": {
            "type": "object", "properties": {
                "action": {"type": "string", "enum": ["list", "add", "remove"], "description": "What to do."},
                "text": {"type": "string", "description": "The note."},
            }, "required": ["action"]}}

        def notes(args, **kw):
            action = args.get("action")
            if action == "list":
                return json.dumps({"notes": []})
            elif action in ("add", "remove"):
                return json.dumps({"done": action, "text": args.get("text", "")})

        registry.register(name="notes", toolset="notes", schema=SCHEMA, handler=notes, check_fn=lambda: True)
        """,
        USUAL_HANDLERS,
        # tool_error / tool_result from the registry, a string variable, the multimodal envelope
        """
        from tools.registry import registry, tool_error, tool_result

        def _handle(args, **kw):
            if not args.get("q"):
                return tool_error("q is required")
            if args.get("image"):
                return {"_multimodal": True, "content": [{"type": "text", "text": "x"}]}
            text = f"found {args['q']}"
            return tool_result({"text": text})

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
        # a helper from another module and a dispatch dict: unknown, silent
        """
        from tools.registry import registry
        from tools.common import run_search

        _ACTIONS = {"list": run_search}

        def _handle(args, **kw):
            if args.get("action") == "search":
                return run_search(args)
            return _ACTIONS[args.get("action")](args, **kw)

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
        # the end is reached only past a call that may never return; a dict replaced by its JSON
        """
        import json
        from tools.registry import registry
        from tools.common import fail

        def _handle(args, **kw):
            result = {"n": 1}
            if args.get("pretty"):
                result = json.dumps(result, indent=2)
                return result
            fail("bad request")

        registry.register(name="t", toolset="s", schema={}, handler=_handle)
        """,
        # while True without break, a decorated handler (the decorator may serialise)
        Valid(
            """
            import json
            from tools.registry import registry
            from tools.common import returns_json

            def _poll(args, **kw):
                while True:
                    if args.get("x"):
                        return json.dumps({"ok": True})

            @returns_json
            def _handle(args, **kw):
                return {"ok": True}

            registry.register(name="a", toolset="s", schema={}, handler=_poll)
            registry.register(name="b", toolset="s", schema={}, handler=_handle)
            """
        ),
        # real Hermes (kanban, browser, memory, file tools): a guard returning `str | None`, and the
        # result tested before it is returned. No None reaches those returns.
        """
        import json
        from tools.registry import registry, tool_error

        def _guard(task_id):
            if task_id != "mine":
                return tool_error("not your task")
            return None

        def _lookup(key):
            if key == "x":
                return json.dumps({"v": 1})
            return None

        def _truthy(args, **kw):
            err = _guard(args.get("task_id"))
            if err:
                return err
            return json.dumps({"ok": True})

        def _not_none(args, **kw):
            gate = _guard(args.get("task_id"))
            if gate is not None:
                return gate
            found = _lookup(args.get("k"))
            if found is None:
                return tool_error("not found")
            return found

        def _falsy_exit(args, **kw):
            found = _lookup(args.get("k"))
            if not found:
                return tool_error("not found")
            return found

        def _walrus(args, **kw):
            if (err := _guard(args.get("task_id"))):
                return err
            return "ok"

        registry.register(name="a", toolset="s", schema={}, handler=_truthy)
        registry.register(name="b", toolset="s", schema={}, handler=_not_none)
        registry.register(name="c", toolset="s", schema={}, handler=_falsy_exit)
        registry.register(name="d", toolset="s", schema={}, handler=_walrus)
        """,
        # real Hermes (web_tools `_finish_debug`): None only when `error` is None; this call passes one
        """
        import json
        from tools.registry import registry, tool_error

        def _finish(name, error=None):
            return None if error is None else tool_error(error)

        def _handle(args, **kw):
            try:
                return json.dumps({"q": args.get("q")})
            except Exception as e:
                return _finish("b", f"failed: {e}")

        registry.register(name="b", toolset="s", schema={}, handler=_handle)
        """,
        # a handler some function rebinds through `global`: which one runs is decided at run time
        """
        import json
        from tools.registry import registry

        def handle(args, **kw):
            return {"draft": True}

        def enable():
            global handle
            handle = lambda args, **kw: json.dumps({"ok": True})

        registry.register(name="c", toolset="s", schema={}, handler=handle)
        """,
        # past `mode in MODES - {"show"}` the mode is one of the rest, and each returns
        """
        import json
        from tools.registry import registry, tool_error

        MODES = frozenset({"show", "pause", "resume"})

        def _player(args, **kw):
            mode = args.get("mode")
            if mode == "show":
                return json.dumps({"playing": True})
            elif mode in MODES - {"show"}:
                if mode == "pause":
                    return json.dumps({"paused": True})
                elif mode == "resume":
                    return json.dumps({"paused": False})
            else:
                return tool_error(f"unknown mode {mode!r}")

        registry.register(name="player", toolset="media", schema={}, handler=_player)
        """,
    ]
    invalid = [
        # the set allows a value the inner if/elif has no branch for
        Invalid(
            """
            import json
            from tools.registry import registry, tool_error

            def _player(args, **kw):
                modes = ["show", "pause", "resume", "stop"]
                mode = args.get("mode")
                if mode in modes:
                    if mode in ("show", "stop"):
                        return json.dumps({"mode": mode})
                    elif mode == "pause":
                        return json.dumps({"paused": True})
                else:
                    return tool_error(f"unknown mode {mode!r}")

            registry.register(name="player", toolset="media", schema={}, handler=_player)
            """,
            line=4,
            col=1,
            message="handler `_player` can return None (falls off the end at line 13)",
        ),
        # one enum value has no branch: the message names it
        Invalid(
            """
            import json
            from tools.registry import registry

            SCHEMA = {"name": "notes", "description": "Manage notes.", "parameters": {
                "type": "object", "properties": {
                    "action": {"type": "string", "enum": ["list", "add", "remove"], "description": "What to do."},
                }, "required": ["action"]}}

            def notes(args, **kw):
                if args.get("action") == "list":
                    return json.dumps({"notes": []})
                if args.get("action") == "add":
                    return json.dumps({"done": "add"})

            registry.register(name="notes", toolset="notes", schema=SCHEMA, handler=notes, check_fn=lambda: True)
            """,
            line=9,
            col=1,
            message="handler `notes` can return None (falls off the end at line 13 when `action` is `remove`)",
        ),
        Invalid(
            """
            from tools.registry import registry

            def _handle(args, **kw):
                if not args.get("city"):
                    return {"error": "city is required"}
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=5,
            col=9,
            message="handler `_handle` can return a dict, not a JSON string",
            fix=(('from tools.registry import registry', 'import json\nfrom tools.registry import registry'), ('return {"error": "city is required"}', 'return json.dumps({"error": "city is required"})')),
            autofixed="""
            import json
            from tools.registry import registry

            def _handle(args, **kw):
                if not args.get("city"):
                    return json.dumps({"error": "city is required"})
                return "ok"

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
        ),
        Invalid(
            """
            import json
            from tools.registry import registry

            def _handle(args, **kw):
                try:
                    return json.dumps({"n": len(args)})
                except Exception:
                    print("failed")

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=4,
            col=1,
            message="handler `_handle` can return None (falls off the end at line 8)",
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda args, **kw: {"x": 1})
            """,
            line=2,
            col=80,
            message="handler lambda can return a dict, not a JSON string",
            autofixed="""
            import json
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda args, **kw: json.dumps({"x": 1}))
            """,
        ),
        Invalid(
            """
            from tools.registry import registry

            def _lookup(city):
                rows = [city]
                return rows

            def _handle(args, **kw):
                return _lookup(args.get("city"))

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=8,
            col=5,
            message="handler `_handle` can return a list, not a JSON string (`_lookup` returns it at line 5)",
        ),
        Invalid(
            """
            from tools.registry import registry

            def search(query):
                if not query:
                    return None
                return f"results for {query}"

            registry.register(name="t", toolset="s", schema={},
                              handler=lambda args, **kw: search(args.get("query")))
            """,
            line=5,
            col=9,
            message="handler `search` (via lambda) can return None, not a JSON string",
        ),
        # a test that does not stop the None (the branch goes on), a call that does not pass `error`
        Invalid(
            """
            from tools.registry import registry, tool_error

            def _lookup(key):
                if key == "x":
                    return tool_error("x")
                return None

            def _finish(name, error=None):
                return None if error is None else tool_error(error)

            def _handle(args, **kw):
                found = _lookup(args.get("k"))
                if found is None:
                    print("not found")
                if args.get("verbose"):
                    return _finish("k")
                return found

            registry.register(name="t", toolset="s", schema={}, handler=_handle)
            """,
            line=17,
            col=5,
            message="handler `_handle` can return None, not a JSON string (`_lookup` returns it at line 6)",
            also=((16, 9),),
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """Only a dict or list written in the ``return`` (or as the lambda's body): a value
        returned from elsewhere (a variable, another function) has no fix."""
        import libcst as cst

        from hermes_lint.edit.fix.transforms import module_import

        path = diagnostic.path
        literal_kinds = (cst.Dict, cst.List, cst.DictComp, cst.ListComp)
        returned = source.node_at(path, diagnostic.line, diagnostic.col, cst.Return)
        value = returned.value if returned is not None else None
        if value is None:
            value = source.node_at(path, diagnostic.line, diagnostic.col, cst.BaseExpression)
            if not isinstance(source.parent(path, value), cst.Lambda):
                return None
        if not isinstance(value, literal_kinds):
            return None
        name, import_edits = module_import(source, path, "json")
        if name is None:
            return None
        return [*import_edits, source.replace(path, value, f"{name}.dumps({source.code(path, value)})")]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        analyzer = HandlerAnalyzer.of(ctx)
        registrations: dict = {}  # id(primary function node) -> the registrations it serves
        for analysis in analyses(ctx):
            for primary in analysis.primary:
                registrations.setdefault(id(primary.facts.node), []).append(analysis.registration)
        for primary in unique_primaries(ctx):
            fn = primary.facts
            for ret, kind in analyzer.return_kinds(fn):
                if kind.kind == "other":
                    detail = f" ({kind.detail})" if kind.detail else ""
                    message = f"{primary.who} can return {kind.what}, not a JSON string{detail}"
                    yield Finding(ctx.loc(ret.node), message)
            if fn.falls_off_line is not None:
                uncovered = _uncovered_enum_values(fn, registrations.get(id(fn.node), []))
                if uncovered == []:
                    continue  # an if/elif over every value the schema's enum allows
                when = ""
                if uncovered:
                    key, values = uncovered
                    when = f" when `{key}` is " + " or ".join(f"`{value}`" for value in values)
                yield Finding(
                    ctx.loc(fn.node),
                    f"{primary.who} can return None (falls off the end at line {fn.falls_off_line}{when})",
                )


def _uncovered_enum_values(fn, registrations) -> Any:
    """[] when the function dispatches over every value of its argument's ``enum`` in every
    schema it serves; ``(key, values)`` naming the values no branch returns for; None when that
    is not known (no such dispatch, no literal enum of strings)."""
    coverage = dispatch_coverage(fn)
    if coverage is None or not registrations:
        return None
    key, covered = coverage
    missing: list = []
    for registration in registrations:
        enum = _literal_enum(registration, key)
        if enum is None:
            return None
        missing.extend(value for value in enum if value not in covered and value not in missing)
    return (key, missing) if missing else []


def _literal_enum(registration, key: str):
    parameters = parameters_of(registration.schema)
    prop = parameters.get("properties", {}).get(key) if parameters is not None else None
    enum = prop.get("enum") if isinstance(prop, dict) else None
    if not isinstance(enum, list) or not enum or not all(type(value) is str for value in enum):
        return None  # absent, unknown (a hole) or not all strings
    if registration.overrides_may_change("parameters"):
        return None
    return enum
