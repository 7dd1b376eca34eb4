from __future__ import annotations

from typing import Any, Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.model import Registration, Unresolved
from hermes_lint.model.envelope import is_openai_envelope
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.keyword_typos import misspelt_hint, misspelt_keyword
from hermes_lint.model.schema_walk import SubSchema, locate, overrides_may_change, schema_nodes

_MISSING = object()


class MissingDescription(Rule):
    """The tool and every parameter (at any depth) need a non-empty description.

    The description is all the model knows about when to call a tool and what to pass: a tool
    without one is called at random or never, a parameter without one gets guessed values.
    The tool's description may be ``schema["description"]`` or the register call's
    ``description=`` (the runtime takes either).

    Each place in the source is reported once: a property written once in a helper that builds
    every ``anyOf`` branch (``_op("create")``, ``_op("delete")``...) is one fix, not one per
    branch.

    Not reported: a parameter whose schema is a ``$ref`` (the referenced schema carries the
    text) or whose ``anyOf``/``oneOf``/``allOf`` branch describes it; a discriminator inside such
    a branch (a property with a ``const`` or a one-value ``enum``: its value says it all); a tool
    description that is missing when ``dynamic_schema_overrides=`` may supply it at run time; a
    description that is not known statically; a description that is not a string (HRM302 for
    parameters); the tool description of a schema that is a whole OpenAI tool definition
    (``{"type": "function", "function": {...}}``: HRM304 reports the envelope, whose inner
    description Hermes never reads).
    """

    code = "HRM306"
    summary = "missing or empty description (tool or parameter)"

    valid = [
        # an OpenAI envelope as the schema: HRM304's finding, not a missing description
        """
        def register(ctx):
            ctx.register_tool(name="clock", toolset="util", check_fn=lambda: True,
                              handler=lambda args, **kw: "",
                              schema={"type": "function", "function": {"name": "clock"}})
        """,
        # descriptions from constants, and the tool description given to register()
        """
        from tools.registry import registry

        PATH_HELP = "Absolute path of the file."
        SCHEMA = {
            "name": "read",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "description": PATH_HELP}},
            },
        }
        registry.register(name="read", toolset="file", schema=SCHEMA, description="Read a file.",
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merge of a shared parameter; a $ref parameter; a described anyOf branch
        """
        from tools.registry import registry

        _TASK = {"type": "string", "description": "Task id."}
        SCHEMA = {
            "name": "kanban_move",
            "description": "Move a task.",
            "parameters": {
                "type": "object",
                "$defs": {"column": {"type": "string", "description": "Column."}},
                "properties": {
                    "task": {**_TASK},
                    "to": {"$ref": "#/$defs/column"},
                    "after": {"anyOf": [{"type": "string", "description": "Task to follow."}, {"type": "null"}]},
                },
            },
        }
        registry.register(name="kanban_move", toolset="kanban", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper that builds descriptions with f-strings
        """
        from tools.registry import registry

        def _build_schema(noun):
            return {
                "name": f"{noun}_list",
                "description": f"List the {noun}s.",
                "parameters": {
                    "type": "object",
                    "properties": {"limit": {"type": "integer", "description": f"How many {noun}s."}},
                },
            }

        registry.register(name="video_list", toolset="video", schema=_build_schema("video"),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a description= that is not known statically, and one supplied by dynamic_schema_overrides
        """
        from tools.registry import registry
        from tools.texts import DELEGATE_HELP

        def _overrides():
            return {"description": "Delegate a task to a sub-agent."}

        SCHEMA = {"name": "delegate", "parameters": {"type": "object", "properties": {}}}
        registry.register(name="delegate", toolset="delegation", schema=SCHEMA, description=DELEGATE_HELP,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        registry.register(name="delegate_many", toolset="delegation", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True,
                          dynamic_schema_overrides=_overrides)
        """,
        # one-value enum / const discriminators of anyOf/oneOf branches need no description
        """
        from tools.registry import registry

        def _op(action, props):
            return {"type": "object", "properties": {"action": {"type": "string", "enum": [action]}, **props}}

        SCHEMA = {"name": "ops", "description": "Apply ops.", "parameters": {"type": "object", "properties": {
            "ops": {"type": "array", "description": "Ops to apply.", "items": {"anyOf": [
                _op("create", {"path": {"type": "string", "description": "Where."}}),
                _op("delete", {}),
            ]}},
            "mode": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "fast"}}, "description": "Fast."},
                {"type": "object", "properties": {"kind": {"const": "safe"}}, "description": "Safe."},
            ]},
        }}}
        registry.register(name="ops", toolset="s", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "weather",
                "description": "Get the weather.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "units": {"type": "string", "description": "  "},
                    },
                },
            }
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            col=13,
            message="parameter `city` has no description",
            also=((10, 41),),
            fix=(('"city": {"type": "string"}', '"city": {"type": "string", "description": "City name."}'), ('"description": "  "', '"description": "metric or imperial."')),
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "weather",
                "parameters": {"type": "object", "properties": {}},
            }
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=7,
            col=61,
            message="tool `weather` has no description (in the schema or register(description=...))",
        ),
        # a misspelt keyword: the description is written, under the wrong name (HRM004 too)
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"name": "weather", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True, descripton="Weather.")
            """,
            line=4,
            col=61,
            message="tool `weather` has no description: `descripton=` is not a parameter: did you mean `description=`?",
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "clarify",
                "description": "",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "questions": {
                            "type": "array",
                            "description": "Questions to ask.",
                            "items": {
                                "type": "object",
                                "properties": {"text": {"type": "string"}},
                            },
                        },
                    },
                },
            }
            registry.register(name="clarify", toolset="clarify", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=5,
            col=5,
            message="tool `clarify` has an empty description",
            also=((14, 36),),
        ),
        # one property built by a helper for every anyOf branch: one finding, not one per branch
        Invalid(
            """
            import json
            from tools.registry import registry

            _NAME = {"type": "string"}


            def _op(action, props):
                return {"type": "object", "properties": {"name": _NAME, "action": {"type": "string", "enum": [action]}, **props}}


            S = {"name": "ops", "description": "Apply ops.", "parameters": {"type": "object", "properties": {
                "ops": {"type": "array", "description": "Ops to apply.", "items": {"anyOf": [_op("create", {}), _op("delete", {}), _op("rename", {})]}}}}}

            registry.register(name="ops", toolset="s", schema=S, handler=lambda args, **kw: json.dumps(args), check_fn=lambda: True)
            """,
            line=8,
            col=46,
            message="parameter `ops[].anyOf[0].name` has no description",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        reported = set()  # one finding per place in the source (see _place)
        for registration in ctx.facts.registrations:
            if not isinstance(registration.schema, dict):
                continue  # unknown (HRM301) or not a schema (HRM304)
            yield from self._tool_description(registration, ctx)
            located = dict(registration.schema_locations)
            for node in schema_nodes(ctx, registration):
                if not node.is_property or _is_discriminator(node):
                    continue
                for finding in self._parameter_description(registration, node, ctx):
                    place = _place(finding, node.path, located)
                    if place not in reported:
                        reported.add(place)
                        yield finding

    def _tool_description(self, registration: Registration, ctx: ModuleContext) -> Iterator[Finding]:
        given = registration.value("description", _MISSING)
        if isinstance(given, Unresolved) or (isinstance(given, str) and given.strip()):
            return
        if is_openai_envelope(registration.schema):
            return  # HRM304 names the envelope, which is why the description is not where Hermes reads it
        name = f"tool `{registration.name}`" if isinstance(registration.name, str) else "the tool"
        text = registration.schema.get("description", _MISSING)
        if text is _MISSING or text is None:
            if not overrides_may_change(registration, "description"):
                misspelt = misspelt_keyword(registration, ctx.contract, "description")
                where = (f": {misspelt_hint(misspelt, 'description')}" if misspelt
                         else " (in the schema or register(description=...))")
                yield Finding(locate(registration, ("description",), ctx), f"{name} has no description{where}")
        elif isinstance(text, str) and not text.strip():
            yield Finding(locate(registration, ("description",), ctx), f"{name} has an empty description")

    def _parameter_description(self, registration: Registration, node: SubSchema, ctx) -> Iterator[Finding]:
        schema = node.schema
        if "$ref" in schema or "$dynamicRef" in schema:
            return
        text = schema.get("description", _MISSING)
        if text is _MISSING:
            if not _branch_described(schema):
                yield Finding(locate(registration, node.path, ctx), f"parameter `{node.name}` has no description")
        elif isinstance(text, str) and not text.strip():
            yield Finding(
                locate(registration, node.path + ("description",), ctx),
                f"parameter `{node.name}` has an empty description",
            )


_BRANCH_KEYWORDS = ("anyOf", "oneOf", "allOf")


def _is_discriminator(node: SubSchema) -> bool:
    """A ``const`` or one-value ``enum`` property of an object inside an anyOf/oneOf/allOf branch."""
    schema = node.schema
    enum = schema.get("enum")
    if "const" not in schema and not (isinstance(enum, (list, tuple)) and len(enum) == 1):
        return False
    ancestor = node.parent
    while ancestor is not None:
        if ancestor.via in _BRANCH_KEYWORDS:
            return True
        ancestor = ancestor.parent
    return False


def _place(finding: Finding, path: tuple, located: dict) -> tuple:
    """What makes two findings the same: the location when it is the key's own (helper code
    shared by branches), else the fallback location plus the path with branch positions left
    out (so distinct parameters reported at one fallback location stay distinct)."""
    if finding.location in (located.get(path), located.get(path + ("description",))):
        return (finding.location,)
    general = tuple(
        None if isinstance(part, int) and index and path[index - 1] in _BRANCH_KEYWORDS else part
        for index, part in enumerate(path)
    )
    return (finding.location, general)


def _branch_described(schema: Any) -> bool:
    for keyword in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(keyword)
        for branch in branches if isinstance(branches, list) else ():
            if isinstance(branch, dict) and ("$ref" in branch or _nonempty(branch.get("description"))):
                return True
    return False


def _nonempty(text: Any) -> bool:
    return isinstance(text, str) and bool(text.strip())
