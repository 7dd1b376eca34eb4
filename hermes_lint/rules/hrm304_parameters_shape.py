from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.model import Unresolved
from hermes_lint.model.envelope import is_openai_envelope
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import json_text, locate, overrides_may_change

_MISSING = object()
_SHAPE = '{"type": "object", "properties": {...}}'
_ENVELOPE = (
    'schema is a whole OpenAI tool definition ({"type": "function", "function": {...}}), which Hermes '
    'builds itself from `schema` ({"type": "function", "function": {**schema, "name": ...}}): the model '
    "would get a function with no description and no parameters; pass the inner `function` dict as `schema=`"
)


class ParametersShape(Rule):
    """A tool schema's ``parameters`` must be ``{"type": "object", "properties": {...}}``.

    Function calling passes arguments as one JSON object: providers reject a ``parameters``
    whose root is not ``"type": "object"`` (OpenAI, Anthropic, MCP), and some providers and
    strict modes require ``properties`` (``{}`` for a tool without arguments). The runtime raises
    ``TypeError`` at import when ``parameters`` (or the schema) is not a dict — discovery then
    logs a warning and the tool silently disappears.

    A schema that is a whole OpenAI tool definition (``{"type": "function", "function": {...}}``,
    another framework's habit) is reported once, as such: Hermes wraps ``schema`` in that envelope
    itself (``ToolRegistry.get_definitions``), so the function the model gets has neither the
    description nor the parameters written inside. The tool's missing description (HRM306) is not
    reported for such a schema: this finding says what to change.

    Not reported: a schema that cannot be evaluated (HRM301); a missing ``parameters`` when the
    call passes ``dynamic_schema_overrides=`` (it may supply it at run time); what is inside
    ``properties`` (HRM302 and the other schema rules).
    """

    code = "HRM304"
    summary = 'parameters missing, or not {"type": "object", "properties": {...}}'
    fix_applicability = "safe"
    fix_title = (
        'an OpenAI envelope written in place as `schema=` (`{"type": "function", "function": {...}}`, '
        "nothing else in it, no comment outside the inner dict) is replaced by its inner dict, re-indented"
    )

    valid = [
        # a tool without arguments, from constants
        """
        from tools.registry import registry

        NO_ARGS = {"type": "object", "properties": {}}
        SCHEMA = {"name": "clock", "description": "Current time.", "parameters": NO_ARGS}
        registry.register(name="clock", toolset="util", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merge of a shared base dict
        """
        from tools.registry import registry

        _OBJECT = {"type": "object", "additionalProperties": False}
        SCHEMA = {
            "name": "echo",
            "description": "Echo text.",
            "parameters": {**_OBJECT, "properties": {"text": {"type": "string", "description": "Text."}}},
        }
        registry.register(name="echo", toolset="util", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper; and parameters supplied at run time by dynamic_schema_overrides
        """
        from tools.registry import registry

        def _build_schema(name, properties):
            return {"name": name, "description": "A tool.",
                    "parameters": {"type": "object", "properties": properties, "required": []}}

        def _overrides():
            return {"parameters": {"type": "object", "properties": {}}}

        registry.register(name="a", toolset="s", schema=_build_schema("a", {}),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        registry.register(name="b", toolset="s", schema={"name": "b", "description": "B."},
                          handler=lambda args, **kw: "", check_fn=lambda: True,
                          dynamic_schema_overrides=_overrides)
        """,
        # an envelope's keys beside real parameters are another problem (not this shape)
        """
        from tools.registry import registry

        SCHEMA = {"name": "clock", "description": "Current time.", "type": "function",
                  "function": {}, "parameters": {"type": "object", "properties": {}}}
        registry.register(name="clock", toolset="util", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "tail",
                "description": "Tail a log.",
                "parameters": {
                    "type": "array",
                    "items": {"type": "string"},
                },
            }
            registry.register(name="tail", toolset="logs", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=7,
            col=9,
            message='`parameters` type must be "object", not "array"',
            also=((6, 5),),
            fix=(('"type": "array",\n        "items": {"type": "string"},', '"type": "object",\n        "properties": {"lines": {"type": "integer", "description": "Lines."}},'),),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"name": "clock", "description": "Current time."}
            registry.register(name="clock", toolset="util", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=56,
            message=f'schema has no `parameters`: expected {_SHAPE} (empty properties for no arguments)',
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "clock",
                "description": "Current time.",
                "parameters": {"properties": [{"name": "zone", "type": "string"}]},
            }
            registry.register(name="clock", toolset="util", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=6,
            col=5,
            message='`parameters` has no "type": "object"',
            also=((6, 20),),
        ),
        # a plugin passing the whole OpenAI tool definition: one finding, at the schema
        Invalid(
            """
            def register(ctx):
                ctx.register_tool(
                    name="clock",
                    toolset="util",
                    schema={
                        "type": "function",
                        "function": {
                            "name": "clock",
                            "description": "Current time.",
                            "parameters": {"type": "object", "properties": {}},
                        },
                    },
                    handler=lambda args, **kw: "",
                    check_fn=lambda: True,
                )
            """,
            line=5,
            col=16,
            message=_ENVELOPE,
            autofixed="""
            def register(ctx):
                ctx.register_tool(
                    name="clock",
                    toolset="util",
                    schema={
                        "name": "clock",
                        "description": "Current time.",
                        "parameters": {"type": "object", "properties": {}},
                    },
                    handler=lambda args, **kw: "",
                    check_fn=lambda: True,
                )
            """,
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """Unwrap an envelope written in place as the ``schema=`` argument: its inner dict's text,
        each line after the first moved left by the difference between the two dicts' key
        indentation. Nothing when the envelope is a constant (it may serve another API too),
        holds more than its two keys or a comment outside the inner dict, a multi-line string
        (whose text re-indenting would change), or a layout that re-indenting cannot keep."""
        import libcst as cst

        path = diagnostic.path
        outer = source.node_at(path, diagnostic.line, diagnostic.col, cst.Dict)
        arg = source.parent(path, outer) if outer is not None else None
        if not isinstance(arg, cst.Arg) or arg.keyword is None or arg.keyword.value != "schema":
            return None
        inner = _envelope_function(outer)
        if inner is None:
            return None
        text, around = _text_of(source, path, inner), _text_of(source, path, outer)
        if "#" in around.replace(text, "") or '"""' in text or "'''" in text or "\\\n" in text:
            return None
        lines = text.split("\n")
        if len(lines) > 1:
            outer_key = source.position(path, outer.elements[0]).start
            inner_key = source.position(path, inner.elements[0]).start if inner.elements else None
            if inner_key is None or outer_key.line == source.position(path, outer).start.line:
                return None
            shift = inner_key.column - outer_key.column
            if shift <= 0 or any(line.strip() and not line.startswith(" " * shift) for line in lines[1:]):
                return None
            text = "\n".join([lines[0]] + [line[shift:] for line in lines[1:]])
        return [source.replace(path, outer, text)]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            schema = registration.schema
            if isinstance(schema, Unresolved):
                continue  # HRM301
            if not isinstance(schema, dict):
                yield Finding(
                    locate(registration, (), ctx),
                    f"schema must be a dict with `parameters` {_SHAPE}, not {json_text(schema)}",
                )
                continue
            if is_openai_envelope(schema):
                yield Finding(locate(registration, (), ctx), _ENVELOPE)
                continue
            parameters = schema.get("parameters", _MISSING)
            if parameters is _MISSING:
                if not overrides_may_change(registration, "parameters"):
                    yield Finding(
                        locate(registration, (), ctx),
                        f"schema has no `parameters`: expected {_SHAPE} (empty properties for no arguments)",
                    )
                continue
            yield from self._check_parameters(registration, parameters, ctx)

    def _check_parameters(self, registration, parameters, ctx) -> Iterator[Finding]:
        if isinstance(parameters, Unresolved):
            return
        if not isinstance(parameters, dict):
            yield Finding(
                locate(registration, ("parameters",), ctx),
                f"`parameters` must be {_SHAPE}, not {json_text(parameters)}",
            )
            return
        root_type = parameters.get("type", _MISSING)
        if root_type is _MISSING:
            yield Finding(locate(registration, ("parameters",), ctx), '`parameters` has no "type": "object"')
        elif root_type != "object" and not isinstance(root_type, Unresolved):
            yield Finding(
                locate(registration, ("parameters", "type"), ctx),
                f'`parameters` type must be "object", not {json_text(root_type)}',
            )
        properties = parameters.get("properties", _MISSING)
        if properties is _MISSING:
            yield Finding(
                locate(registration, ("parameters",), ctx),
                "`parameters` has no `properties` (use {} for a tool without arguments)",
            )
        elif not isinstance(properties, (dict, Unresolved)):
            yield Finding(
                locate(registration, ("parameters", "properties"), ctx),
                f"`parameters.properties` must be a dict of name -> schema, not {json_text(properties)}",
            )


def _text_of(source, path, node) -> str:
    """``node``'s text as written in the file (libcst's own rendering of a node drops the
    indentation of the block it is in)."""
    where = source.position(path, node)
    lines = (source.text(path) or "").split("\n")[where.start.line - 1 : where.end.line]
    if len(lines) == 1:
        return lines[0][where.start.column : where.end.column]
    return "\n".join([lines[0][where.start.column :]] + lines[1:-1] + [lines[-1][: where.end.column]])


def _envelope_function(node):
    """The inner ``function`` dict of a dict display that is exactly ``{"type": "function",
    "function": {...}}`` (libcst), else None."""
    import libcst as cst

    keys = {}
    for element in node.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
            return None
        keys[element.key.evaluated_value] = element.value
    kind, function = keys.get("type"), keys.get("function")
    if (
        len(node.elements) != 2
        or set(keys) != {"type", "function"}
        or not isinstance(kind, cst.SimpleString)
        or kind.evaluated_value != "function"
        or not isinstance(function, cst.Dict)
    ):
        return None
    return function
