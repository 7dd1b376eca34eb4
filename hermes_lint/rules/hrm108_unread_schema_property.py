from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.handlers import analyses
from hermes_lint.analysis.schema_properties import declared_properties, offered_properties
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.shared_examples import USUAL_HANDLERS


class UnreadSchemaProperty(Rule):
    """The schema declares a property that the handler never reads: the model spends effort
    filling it in and the value is silently ignored (often a renamed or a forgotten parameter).

    Reported only when every use of ``args`` is visible: constant-key reads (``args.get("k")``,
    ``args["k"]``, ``"k" in args``) in the handler, in the lambda's call arguments, and in
    module functions ``args`` is passed to whole. Located at the property's key in the schema.

    Not reported when ``args`` escapes in any way the linter cannot follow: passed to a function
    of another module or to a dispatch table, iterated, spread (``**args``), ``.items()``,
    ``args.get(variable)``, stored, rebound; nor for schemas that are unresolved or have
    ``dynamic_schema_overrides`` that may offer other properties. Overrides that only keep or
    drop the static properties are followed: the properties every path keeps must be read.
    """

    code = "HRM108"
    summary = "schema declares a property that the handler never reads"

    valid = [
        # a helper reads the key it is given: _flag(args, "archived") reads args.get(name)
        """
        import json
        from tools.registry import registry

        SCHEMA = {"name": "tasks", "description": "List tasks.", "parameters": {
            "type": "object", "properties": {
                "archived": {"type": "boolean", "description": "Include archived tasks."},
                "owner": {"type": "string", "description": "Only this owner's tasks."},
            }}}

        def _flag(args, name):
            value = args.get(name)
            return value is True or value == "true"

        def tasks(args, **kw):
            return json.dumps({"archived": _flag(args, "archived"), "owner": args.get("owner")})

        registry.register(name="tasks", toolset="tasks", schema=SCHEMA, handler=tasks, check_fn=lambda: True)
        """,
        # "x" in args is a read
        """
        import json
        from tools.registry import registry

        SCHEMA = {"name": "reset", "description": "Reset a session.", "parameters": {
            "type": "object", "properties": {"hard": {"type": "boolean", "description": "Also clear memory."}}}}

        def reset(args, **kw):
            return json.dumps({"hard": "hard" in args})

        registry.register(name="reset", toolset="s", schema=SCHEMA, handler=reset, check_fn=lambda: True)
        """,
        # overrides that may replace the parameters: the properties the model gets are unknown
        """
        from tools.registry import registry

        SCHEMA = {"name": "render", "description": "Render an image.", "parameters": {
            "type": "object", "properties": {
                "prompt": {"type": "string", "description": "What to draw."},
                "size": {"type": "string", "description": "Image size."},
            }}}

        def _backend_schema():
            return {"parameters": backend_parameters()}

        def render(args, **kw):
            return args.get("prompt", "")

        registry.register(name="render", toolset="image", schema=SCHEMA, handler=render,
                          check_fn=lambda: True, dynamic_schema_overrides=_backend_schema)
        """,
        USUAL_HANDLERS,
        # args escapes: a dispatch dict, another module's helper, iteration, a variable key
        """
        from tools.registry import registry
        from tools.common import run

        S = {"name": "t", "parameters": {"type": "object", "properties": {"a": {}, "b": {}}}}
        _ACTIONS = {"x": run}

        def _dispatch(args, **kw):
            return _ACTIONS[args.get("action")](args)

        def _other(args, **kw):
            return run(args)

        def _loop(args, **kw):
            return ", ".join(f"{k}={v}" for k, v in args.items())

        def _var(args, **kw):
            return str([args.get(name) for name in ("a", "b")])

        registry.register(name="t1", toolset="s", schema=S, handler=_dispatch)
        registry.register(name="t2", toolset="s", schema=S, handler=_other)
        registry.register(name="t3", toolset="s", schema=S, handler=_loop)
        registry.register(name="t4", toolset="s", schema=S, handler=_var)
        """,
        # overrides that may drop `voice`: only what every path keeps must be read
        """
        from tools.registry import registry

        PARAMS = {"type": "object", "properties": {
            "text": {"type": "string", "description": "What to say."},
            "voice": {"type": "string", "description": "Which voice."},
        }}

        def _speech_overrides():
            params = {**PARAMS, "properties": dict(PARAMS["properties"])}
            if not voices_installed():
                params["properties"].pop("voice")
            return {"parameters": params}

        registry.register(name="say", toolset="tts", schema={"name": "say", "description": "Speak.",
                          "parameters": PARAMS}, handler=lambda args, **kw: args.get("text", ""),
                          dynamic_schema_overrides=_speech_overrides)
        """,
    ]
    invalid = [
        # overrides rebuilt from the static properties keep `speed` on every path
        Invalid(
            """
            from tools.registry import registry

            PARAMS = {"type": "object", "properties": {
                "text": {"type": "string", "description": "What to say."},
                "speed": {"type": "number", "description": "Words per minute."},
            }}

            def _speech_overrides():
                params = dict(PARAMS)
                params["properties"] = {name: dict(spec) for name, spec in PARAMS["properties"].items()}
                params["properties"]["text"]["description"] = describe_limits()
                return {"parameters": params}

            registry.register(name="say", toolset="tts", schema={"name": "say", "description": "Speak.",
                              "parameters": PARAMS}, handler=lambda args, **kw: args.get("text", ""),
                              dynamic_schema_overrides=_speech_overrides)
            """,
            line=5,
            message="schema property `speed` of tool `say` is never read by handler lambda",
        ),
        # the helper is given one key; the other declared property is never read
        Invalid(
            """
            import json
            from tools.registry import registry

            SCHEMA = {"name": "tasks", "description": "List tasks.", "parameters": {
                "type": "object", "properties": {
                    "archived": {"type": "boolean", "description": "Include archived tasks."},
                    "pinned": {"type": "boolean", "description": "Only pinned tasks."},
                }}}

            def _flag(args, name):
                return args.get(name) is True

            def tasks(args, **kw):
                return json.dumps({"archived": _flag(args, "archived")})

            registry.register(name="tasks", toolset="tasks", schema=SCHEMA, handler=tasks, check_fn=lambda: True)
            """,
            line=7,
            message="schema property `pinned` of tool `tasks` is never read by handler `tasks`",
        ),
        # overrides that only rewrite the description leave the properties as declared
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"name": "render", "description": "Render an image.", "parameters": {
                "type": "object", "properties": {
                    "prompt": {"type": "string", "description": "What to draw."},
                    "size": {"type": "string", "description": "Image size."},
                }}}

            def _describe_backend():
                if backend_ready():
                    return {"description": "Render an image with the configured backend."}
                return {"description": "No backend is configured."}

            def render(args, **kw):
                return args.get("prompt", "")

            registry.register(name="render", toolset="image", schema=SCHEMA, handler=render,
                              check_fn=lambda: True, dynamic_schema_overrides=_describe_backend)
            """,
            line=6,
            message="schema property `size` of tool `render` is never read by handler `render`",
        ),
        # a schema whose description calls a function of another package: its properties are known
        Invalid(
            """
            from tools.registry import registry
            from agent_home import home_text

            SCHEMA = {
                "name": "jobs",
                "description": "Manage scheduled jobs.",
                "parameters": {"type": "object", "properties": {
                    "action": {"type": "string", "description": "What to do."},
                    "script": {"type": "string", "description": f"A script under {home_text()}/scripts."},
                }},
            }

            def jobs(args, **kw):
                return args.get("action", "")

            registry.register(name="jobs", toolset="jobs", schema=SCHEMA, handler=jobs, check_fn=lambda: True)
            """,
            line=9,
            message="schema property `script` of tool `jobs` is never read by handler `jobs`",
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "search",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "limit": {"type": "integer"},
                    },
                },
            }

            def _search(query, limit=10):
                return f"{query}:{limit}"

            def _handle(args, **kw):
                return _search(args.get("query", ""))

            registry.register(name="search", toolset="s", schema=SCHEMA, handler=_handle)
            """,
            line=9,
            col=13,
            message="schema property `limit` of tool `search` is never read by handler `_handle`",
            fix=(('return _search(args.get("query", ""))', 'return _search(args.get("query", ""), args.get("limit", 10))'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _impl(params):
                return str(params.get("path"))

            registry.register(name="t", toolset="s", handler=lambda args, **kw: _impl(args),
                schema={"name": "t", "parameters": {"type": "object",
                                                    "properties": {"path": {}, "mode": {}}}})
            """,
            line=8,
            col=68,
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for analysis in analyses(ctx):
            registration = analysis.registration
            properties = declared_properties(registration)
            if properties is not None:
                properties = offered_properties(registration, properties, every_path=True)
            if not analysis.args.all_visible or properties is None:
                continue
            read = {r.key for r in analysis.args.reads}
            name = registration.name
            tool = f" of tool `{name}`" if isinstance(name, str) else ""
            schema_keyword = registration.keyword("schema")
            for prop in properties:
                if prop in read:
                    continue
                where = registration.schema_location(("parameters", "properties", prop))
                if where is None:
                    where = schema_keyword.value_location if schema_keyword else registration.location
                yield Finding(where, f"schema property `{prop}`{tool} is never read by {analysis.entry_label}")
