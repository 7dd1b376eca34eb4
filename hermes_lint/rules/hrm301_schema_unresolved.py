from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.model import Unresolved
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.model.schema_walk import argument_location


class SchemaUnresolved(Rule):
    """The ``schema=`` value must be computable from the module's own source.

    A schema whose *structure* static analysis cannot evaluate (loaded from a file, imported from
    an installed package, built by a function call the evaluator cannot follow) cannot be
    validated — HRM302–HRM309 and the provider rules stay silent on it — and the manifest cannot
    freeze it, so the runtime imports the module for that tool's definition. The evaluator
    follows what real tool files do: module constants, ``+``, f-strings, ``**`` merges, dict
    comprehensions over known lists, calls to helper functions, and names imported from other
    modules of the project (read from their files, never imported).

    Structure is the schema itself, ``parameters``, each subschema, ``type``, ``required``,
    ``properties`` and ``items``. An unknown *leaf* (a description naming the home directory, an
    enum listed by an installed package, a bound read from the environment) is a hole, not this
    finding: the rules that read that leaf stay silent and all others still run.

    Not reported: a call that spreads ``*args``/``**kwargs`` (HRM003 reports the whole call) and
    a call without a schema argument (HRM004).
    """

    code = "HRM301"
    summary = "schema cannot be evaluated statically, so it cannot be validated or frozen"

    valid = [
        # a literal built from module constants
        """
        from tools.registry import registry

        UNITS = ["metric", "imperial"]
        WEATHER_SCHEMA = {
            "name": "weather",
            "description": "Get the current weather for a location.",
            "parameters": {
                "type": "object",
                "properties": {
                    "units": {"type": "string", "enum": UNITS, "description": "Units."},
                },
                "required": [],
            },
        }
        registry.register(name="weather", toolset="weather", schema=WEATHER_SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merge of a shared base dict
        """
        from tools.registry import registry

        _BASE = {"type": "object", "properties": {}, "required": []}
        SCHEMA = {
            "name": "ping",
            "description": "Check that the agent is alive.",
            "parameters": {**_BASE},
        }
        registry.register(name="ping", toolset="util", schema=SCHEMA,
                          handler=lambda args, **kw: "pong", check_fn=lambda: True)
        """,
        # a module helper building the schema
        """
        from tools.registry import registry

        def _build_schema(name, description):
            return {
                "name": name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string", "description": "File path."}},
                    "required": ["path"],
                },
            }

        registry.register(name="read", toolset="file", schema=_build_schema("read", "Read a file."),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # spread arguments are HRM003's, not this rule's
        """
        from tools.registry import registry
        from tools.specs import SPEC
        registry.register(**SPEC)
        """,
        # a handler that mutates its own arguments mutates no constant (it runs later, if ever)
        """
        from tools.registry import registry

        SCHEMA = {
            "name": "t",
            "description": "Do t.",
            "parameters": {"type": "object", "properties": {"x": {"type": "string", "description": "x"}}},
        }


        def _handle(args, **kw):
            args.setdefault("x", "")
            return "ok"


        registry.register(name="t", toolset="s", schema=SCHEMA, handler=_handle, check_fn=lambda: True)
        """,
        # a str constant passed to a helper that mutates its other argument: a str cannot change
        """
        from tools.registry import registry

        DEFAULT_RATIO = "square"
        SCHEMA = {
            "name": "t",
            "description": "Do t.",
            "parameters": {"type": "object", "properties": {
                "ratio": {"type": "string", "description": "r", "default": DEFAULT_RATIO}}},
        }


        def _remember(value, seen):
            seen.append(value)
            return str(value)


        def _handle(args, **kw):
            ratio = args.get("ratio", DEFAULT_RATIO)
            return _remember(ratio, [])


        registry.register(name="t", toolset="s", schema=SCHEMA, handler=_handle, check_fn=lambda: True)
        """,
        # dynamic_schema_overrides that changes only its own copies of the schema's dicts
        """
        from tools.registry import registry

        SCHEMA = {
            "name": "t",
            "description": "Placeholder, rebuilt per call.",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer", "description": "n"}}},
        }


        def _overrides():
            params = {**SCHEMA["parameters"]}
            params["properties"] = {k: dict(v) for k, v in SCHEMA["parameters"]["properties"].items()}
            params["properties"]["n"]["description"] = "n, at most 5"
            return {"parameters": params}


        registry.register(name="t", toolset="s", schema=SCHEMA, handler=lambda args, **kw: "ok",
                          check_fn=lambda: True, dynamic_schema_overrides=_overrides)
        """,
        # a self-test under `if __name__ == "__main__":` never runs on import
        """
        from tools.registry import registry

        SCHEMA = {"name": "t", "description": "Do t.", "parameters": {"type": "object", "properties": {}}}
        registry.register(name="t", toolset="s", schema=SCHEMA, handler=lambda args, **kw: "ok",
                          check_fn=lambda: True)

        if __name__ == "__main__":
            SCHEMA["description"] += " (debug)"
            print(SCHEMA)
        """,
        # a schema and an enum defined in other modules of the project
        Valid(
            """
            from tools.registry import registry
            from tools.shared.video_schema import VIDEO_SCHEMA

            registry.register(name="video", toolset="video", schema=VIDEO_SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            files={
                "tools/shared/video_schema.py": """
                    from agent.video_options import RATIOS

                    VIDEO_SCHEMA = {
                        "name": "video",
                        "description": "Make a video.",
                        "parameters": {"type": "object", "properties": {
                            "ratio": {"type": "string", "enum": RATIOS, "description": "Ratio."},
                        }},
                    }
                """,
                "agent/video_options.py": 'RATIOS = ["16:9", "9:16"]',
            },
        ),
        # a description that names the user's home directory: a hole in a leaf
        """
        from pathlib import Path
        from tools.registry import registry

        SCHEMA = {
            "name": "notes",
            "description": f"Notes are kept under {Path.home()}/notes.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string", "description": "Text."}}},
        }
        registry.register(name="notes", toolset="notes", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        # the type of a property comes from an installed package
        Invalid(
            """
            from tools.registry import registry
            from vendor_sdk import MODE_TYPE

            SCHEMA = {
                "name": "mode",
                "description": "Set the mode.",
                "parameters": {"type": "object", "properties": {
                    "mode": {"type": MODE_TYPE, "description": "Mode."},
                }},
            }
            registry.register(name="mode", toolset="m", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=11,
            col=52,
            message="schema cannot be evaluated statically: imported name MODE_TYPE (vendor_sdk.MODE_TYPE) "
            "(at `parameters.properties.mode.type`)",
        ),
        Invalid(
            """
            import json
            from tools.registry import registry

            registry.register(name="weather", toolset="weather", schema=json.load(open("weather.json")),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=61,
            message="schema cannot be evaluated statically: call to imported function json.load",
            fix=(('registry.register(', 'SCHEMA = {"name": "weather", "description": "Get the weather.",\n          "parameters": {"type": "object", "properties": {}}}\nregistry.register('), ('schema=json.load(open("weather.json"))', 'schema=SCHEMA')),
        ),
        Invalid(
            """
            from tools.registry import registry
            from tools.shared_schemas import WEATHER_SCHEMA

            registry.register(
                name="weather",
                toolset="weather",
                schema=WEATHER_SCHEMA,
                handler=lambda args, **kw: "",
                check_fn=lambda: True,
            )
            """,
            line=7,
            col=12,
            message="schema cannot be evaluated statically: imported name WEATHER_SCHEMA "
            "(tools.shared_schemas.WEATHER_SCHEMA)",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            schema = registration.schema
            if registration.has_star_args or not isinstance(schema, Unresolved):
                continue
            where = argument_location(ctx, registration, "schema")
            if where is None:
                continue  # no schema argument at all: HRM004
            yield Finding(where, f"schema cannot be evaluated statically: {schema.reason}")
