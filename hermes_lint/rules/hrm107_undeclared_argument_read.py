from __future__ import annotations

from typing import Any, Iterator, List, Optional, Set, Tuple

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.argument_reads import ArgRead
from hermes_lint.analysis.handlers import HandlerAnalysis, analyses
from hermes_lint.analysis.schema_properties import declared_properties, offered_properties
from hermes_lint.model import Registration
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.shared_examples import USUAL_HANDLERS


class UndeclaredArgumentRead(Rule):
    """A handler reads an argument the schema does not declare: the model is never told about
    it, so it never sends it, and the read is always the default (usually a typo or a renamed
    property).

    Reads are ``args.get("k")``, ``args.get("k", default)``, ``args["k"]``, ``"k" in args``,
    ``args.pop``/``setdefault`` with a constant key, in the handler, in the lambda's call
    arguments, and in module functions that ``args`` is passed to whole.

    A ``dynamic_schema_overrides`` function that rebuilds ``parameters`` from the static schema
    (rewriting descriptions, dropping properties) offers no other names: the static properties
    are compared. Not reported: a schema that is not fully resolved, has other overrides of
    ``parameters``, allows
    other keys (``additionalProperties`` not false, ``patternProperties``, ``anyOf``...); handler
    code shared by several registrations reading a key any of their schemas declares; handlers
    that rebind ``args``; keys that are not constants; an alias fallback
    (``args.get("filename") or args.get("title")``) where a key of the ``or`` is declared.
    """

    code = "HRM107"
    summary = "handler reads an argument key that the schema does not declare"

    valid = [
        # testing for a key the schema deliberately leaves out, to reject it
        """
        import json
        from tools.registry import registry

        SCHEMA = {"name": "clip", "description": "Make a clip.", "parameters": {
            "type": "object", "properties": {"prompt": {"type": "string", "description": "What to show."}}}}

        def clip(args, **kw):
            if "operation" in args or "source_url" in args:
                return json.dumps({"error": "editing clips is not supported here"})
            return json.dumps({"prompt": args.get("prompt", "")})

        registry.register(name="clip", toolset="video", schema=SCHEMA, handler=clip, check_fn=lambda: True)
        """,
        USUAL_HANDLERS,
        # one dispatcher shared by two tools; a schema built at run time; open-ended schema
        """
        from tools.registry import registry
        from tools.common import build_schema

        def _dispatch(action, args):
            if action == "read":
                return str(args.get("path"))
            return str(args.get("content"))

        registry.register(name="read", toolset="f", handler=lambda args, **kw: _dispatch("read", args),
            schema={"name": "read", "parameters": {"type": "object", "properties": {"path": {}}}})
        registry.register(name="write", toolset="f", handler=lambda args, **kw: _dispatch("write", args),
            schema={"name": "write", "parameters": {"type": "object", "properties": {"content": {}}}})
        registry.register(name="x", toolset="f", schema=build_schema(),
            handler=lambda args, **kw: str(args.get("anything")))
        registry.register(name="y", toolset="f", handler=lambda args, **kw: str(args.get("extra")),
            schema={"name": "y", "parameters": {"type": "object", "properties": {},
                                                "additionalProperties": True}})
        """,
        # real Hermes (kanban_attach_url, kanban_create): a near-synonym tolerated as a fallback
        """
        import json
        from tools.registry import registry

        S = {"name": "attach", "description": "Attach a URL.", "parameters": {"type": "object", "properties": {
            "url": {"type": "string", "description": "URL"},
            "filename": {"type": "string", "description": "Name to store it under"}}, "required": ["url"]}}

        def _handle(args, **kw):
            name = args.get("filename") or args.get("title") or "download"
            legacy = args.get("name") or args["url"]
            return json.dumps({"url": args.get("url"), "name": name, "legacy": legacy})

        registry.register(name="attach", toolset="s", schema=S, handler=_handle)
        """,
        # overrides that add a property under a computed name: the model may send anything
        """
        from tools.registry import registry

        PARAMS = {"type": "object", "properties": {"city": {"type": "string", "description": "City."}}}

        def _forecast_overrides():
            params = {**PARAMS, "properties": {**PARAMS["properties"]}}
            params["properties"][extra_field_name()] = {"type": "string", "description": "Extra."}
            return {"parameters": params}

        registry.register(name="forecast", toolset="weather", schema={"name": "forecast",
                          "description": "Forecast.", "parameters": PARAMS},
                          handler=lambda args, **kw: args.get("city", "") + args.get("units", ""),
                          dynamic_schema_overrides=_forecast_overrides)
        """,
    ]
    invalid = [
        # overrides that keep or drop the static properties never add `days`
        Invalid(
            """
            from tools.registry import registry

            PARAMS = {"type": "object", "properties": {"city": {"type": "string", "description": "City."},
                                                       "units": {"type": "string", "description": "Units."}}}

            def _forecast_overrides():
                params = {**PARAMS, "properties": {**PARAMS["properties"]}}
                if metric_only():
                    del params["properties"]["units"]
                return {"description": describe_forecast(), "parameters": params}

            registry.register(name="forecast", toolset="weather", schema={"name": "forecast",
                              "description": "Forecast.", "parameters": PARAMS},
                              handler=lambda args, **kw: args.get("city", "") + str(args.get("days", 3)),
                              dynamic_schema_overrides=_forecast_overrides)
            """,
            line=14,
            col=73,
            message="handler lambda reads argument `days`, which the schema of tool `forecast` does not declare",
        ),
        # a key read through an alias of args
        Invalid(
            """
            import json
            from tools.registry import registry

            SCHEMA = {"name": "note", "description": "Save a note.", "parameters": {
                "type": "object", "properties": {"text": {"type": "string", "description": "The note."}}}}

            def note(args, **kw):
                params = args
                return json.dumps({"text": params.get("text"), "tag": params.get("tags")})

            registry.register(name="note", toolset="notes", schema=SCHEMA, handler=note, check_fn=lambda: True)
            """,
            line=9,
            col=59,
            message="handler `note` reads argument `tags`, which the schema of tool `note` does not declare",
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"name": "weather", "description": "d", "parameters": {"type": "object",
                "properties": {"location": {"type": "string"}}}}

            def _handle(args, **kw):
                return str(args.get("locaton"))

            registry.register(name="weather", toolset="w", schema=SCHEMA, handler=_handle)
            """,
            line=7,
            col=16,
            message="handler `_handle` reads argument `locaton`, which the schema of tool `weather` does "
            "not declare (did you mean `location`?)",
            fix=(('args.get("locaton")', 'args.get("location")'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            def _run(params):
                if "timeout" in params:
                    return str(params["timeout"])
                return "none"

            registry.register(name="t", toolset="w", handler=lambda args, **kw: _run(args),
                schema={"name": "t", "parameters": {"type": "object", "properties": {"command": {}}}})
            """,
            line=5,
            col=20,
            message="`_run` (given `args` by handler lambda) reads argument `timeout`, which the schema "
            "of tool `t` does not declare",
        ),
        # code shared by two tools: the read is about both, and the hint may come from either schema
        Invalid(
            """
            from tools.registry import registry

            def _dispatch(action, args):
                if action == "read":
                    return str(args.get("path"))
                return str(args.get("contnt"))

            registry.register(name="read", toolset="f", handler=lambda args, **kw: _dispatch("read", args),
                schema={"name": "read", "parameters": {"type": "object", "properties": {"path": {}}}})
            registry.register(name="write", toolset="f", handler=lambda args, **kw: _dispatch("write", args),
                schema={"name": "write", "parameters": {"type": "object", "properties": {"content": {}}}})
            """,
            line=6,
            col=16,
            message="`_dispatch` (given `args` by handler lambda) reads argument `contnt`, which the schemas of tools "
            "`read` and `write` do not declare (did you mean `content`?)",
        ),
        # a read in one tool's own lambda is about that tool alone, its hint from that schema alone
        Invalid(
            """
            from tools.registry import registry

            def _dispatch(action, args):
                return str(args.get("path") or args.get("content"))

            registry.register(name="read", toolset="f", handler=lambda args, **kw: _dispatch("read", args) + args["contnt"],
                schema={"name": "read", "parameters": {"type": "object", "properties": {"path": {}}}})
            registry.register(name="write", toolset="f", handler=lambda args, **kw: _dispatch("write", args),
                schema={"name": "write", "parameters": {"type": "object", "properties": {"content": {}}}})
            """,
            line=6,
            col=98,
            message="handler lambda reads argument `contnt`, which the schema of tool `read` does not declare",
        ),
        # an `or` of keys none of which is declared: no alias of a declared key
        Invalid(
            """
            from tools.registry import registry

            S = {"name": "attach", "description": "d", "parameters": {"type": "object",
                "properties": {"filename": {"type": "string"}}}}

            def _handle(args, **kw):
                return str(args.get("title") or args.get("label"))

            registry.register(name="attach", toolset="s", schema=S, handler=_handle)
            """,
            line=7,
            col=16,
            message="handler `_handle` reads argument `title`, which the schema of tool `attach` does not declare",
            also=((7, 37),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        seen = set()
        for analysis in analyses(ctx):
            if not analysis.args.reads:
                continue
            sharing = _schemas_sharing_the_code(ctx, analysis)
            if sharing is None:
                continue
            declared = set().union(*(properties for _, properties in sharing))
            for read in analysis.args.reads:
                if read.key in declared or id(read.node) in seen or read.membership:
                    continue  # `"legacy" in args`: a guard (often rejecting the key), not a use
                if any(alias in declared for alias in read.alternates):
                    continue  # ``args.get("filename") or args.get("title")``: a tolerated synonym
                seen.add(id(read.node))
                # the tools whose handlers make this very read: those the finding is about
                readers = [(other.registration.name, properties) for other, properties in sharing
                           if any(r.node is read.node for r in other.args.reads)]
                import difflib  # a suggestion, only for a finding
                close = difflib.get_close_matches(read.key, sorted(set().union(*(p for _, p in readers))), n=1)
                hint = f" (did you mean `{close[0]}`?)" if close else ""
                yield Finding(
                    ctx.loc(read.node),
                    f"{_reader_label(analysis, read)} reads argument `{read.key}`, which "
                    f"{_schemas_label([name for name, _ in readers])} declare{hint}",
                )


def _undeclared_keys_allowed(registration: Registration) -> bool:
    """The schema lets the model send keys beyond ``properties`` (or combines sub-schemas)."""
    parameters = registration.schema["parameters"]
    extra = parameters.get("additionalProperties")
    if extra is not None and extra is not False:
        return True
    return any(k in parameters for k in ("patternProperties", "anyOf", "oneOf", "allOf", "$ref", "if"))


def _schemas_label(tools: List[Any]) -> str:
    """Whose schemas do not declare the key, as the message's subject (names, or ``Unresolved``)."""
    named = list(dict.fromkeys(name for name in tools if isinstance(name, str)))
    if len(tools) == 1:
        return f"the schema of tool `{named[0]}` does not" if named else "the schema does not"
    if len(named) == 1 and len(tools) == sum(name == named[0] for name in tools):
        return f"the schema of tool `{named[0]}` does not"  # one tool registered twice
    if len(named) < len(tools):
        return f"the schemas of the {len(tools)} tools sharing this code do not"
    quoted = [f"`{name}`" for name in named]
    return f"the schemas of tools {', '.join(quoted[:-1])} and {quoted[-1]} do not"


def _schemas_sharing_the_code(ctx, analysis: HandlerAnalysis) -> Optional[List[Tuple[HandlerAnalysis, Set[str]]]]:
    """Each registration whose handler shares code with this one (this one first), with every
    property name its schema offers: what a read in the shared code may legitimately refer to.

    Handler code shared by several registrations (one ``_dispatch(action, args)`` behind several
    lambdas, one ``def`` registered twice) reads the keys of all their schemas: the union. None
    when one of those schemas is unknown, may change at run time, or admits undeclared keys.
    """
    sharing: List[Tuple[HandlerAnalysis, Set[str]]] = []
    for other in analyses(ctx):
        if other is not analysis and not (other.args.functions & analysis.args.functions):
            continue
        registration = other.registration
        properties = declared_properties(registration)
        if properties is not None:
            properties = offered_properties(registration, properties, every_path=False)
        if properties is None or _undeclared_keys_allowed(registration):
            return None
        entry = (other, set(properties))
        if other is analysis:
            sharing.insert(0, entry)
        else:
            sharing.append(entry)
    return sharing


def _reader_label(analysis: HandlerAnalysis, read: ArgRead) -> str:
    """Who performs ``read``: the handler itself, or a module function ``args`` was passed to."""
    entry_name = getattr(analysis.entry, "name", "")
    if read.function == entry_name or not read.function:
        return analysis.entry_label
    return f"`{read.function}` (given `args` by {analysis.entry_label})"
