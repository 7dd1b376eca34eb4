from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import locate


class SchemaNameMismatch(Rule):
    """``schema["name"]`` must be the name the tool is registered under.

    The runtime dispatches by the registered name and ``get_definitions`` overwrites the
    schema's ``name`` with it, so the schema's own name is never what the model sees: a
    different one is a leftover from a copy/paste or a rename, and anything reading the schema
    alone (docs, tests, the manifest's readers) gets the wrong tool.

    Not reported: a schema without ``name`` (the runtime fills it in, so omitting it is a
    legitimate style), and names that are not both known strings (HRM003/HRM301 speak then).
    """

    code = "HRM303"
    summary = 'schema["name"] differs from the registered name'
    fix_applicability = "unsafe"
    fix_title = "set the schema's `name` to the registered name (unsafe: callers may use the schema's)"

    valid = [
        # the name from one shared constant
        """
        from tools.registry import registry

        TOOL_NAME = "weather"
        SCHEMA = {"name": TOOL_NAME, "description": "Weather.", "parameters": {"type": "object", "properties": {}}}
        registry.register(name=TOOL_NAME, toolset="weather", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merge of a shared base, name added by the tool
        """
        from tools.registry import registry

        _BASE = {"description": "Browser action.", "parameters": {"type": "object", "properties": {}}}
        registry.register(name="browser_back", toolset="browser", schema={**_BASE, "name": "browser_back"},
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper that takes the name; and a schema without a name (the runtime fills it in)
        """
        from tools.registry import registry

        def _build_schema(name, description):
            return {"name": name, "description": description,
                    "parameters": {"type": "object", "properties": {}}}

        registry.register(name="kanban_list", toolset="kanban", schema=_build_schema("kanban_list", "List."),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        registry.register(name="kanban_show", toolset="kanban",
                          schema={"description": "Show.", "parameters": {"type": "object", "properties": {}}},
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "wether",
                "description": "Get the weather.",
                "parameters": {"type": "object", "properties": {}},
            }
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=5,
            message="schema name 'wether' differs from the registered name 'weather'",
            fix=(('"name": "wether"', '"name": "weather"'),),
            autofixed="""
            from tools.registry import registry

            SCHEMA = {
                "name": "weather",
                "description": "Get the weather.",
                "parameters": {"type": "object", "properties": {}},
            }
            registry.register(name="weather", toolset="weather", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
        ),
        Invalid(
            """
            from tools.registry import registry

            def _build_schema(name):
                return {"name": name, "description": "Read.", "parameters": {"type": "object", "properties": {}}}

            registry.register(name="read_file", toolset="file", schema=_build_schema("file_read"),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """Only where the finding is at a ``"name": "<literal>"`` entry of a dict literal (not a
        schema built from a parameter, as in the second example)."""
        import libcst as cst

        from hermes_lint.edit.literals import string_value
        from hermes_lint.edit.fix.transforms import replace_string

        registered = diagnostic.fix_value("name")
        key = source.node_at(diagnostic.path, diagnostic.line, diagnostic.col, cst.SimpleString)
        element = source.parent(diagnostic.path, key) if key is not None else None
        if registered is None or not isinstance(element, cst.DictElement) or element.key is not key:
            return None
        if string_value(key) != "name" or string_value(element.value) is None:
            return None
        edit = replace_string(source, diagnostic.path, element.value, registered)
        return [edit] if edit is not None else None

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            schema, registered = registration.schema, registration.name
            if not isinstance(schema, dict) or not isinstance(registered, str):
                continue
            declared = schema.get("name")
            if isinstance(declared, str) and declared != registered:
                yield Finding(
                    locate(registration, ("name",), ctx),
                    f"schema name {declared!r} differs from the registered name {registered!r}",
                    fix_data=(("name", registered),),
                )
