from __future__ import annotations

from hermes_lint.rules.providers import ProviderProjectRule, rule_doc, rule_sources
from hermes_lint.rules.base import Invalid, Valid

OPENAI = {"providers": ["openai"]}


def _toolsets_py(names) -> str:
    listed = "".join(f'            "{name}",\n' for name in names)
    return (
        "TOOLSETS = {\n"
        '    "everything": {\n'
        '        "description": "Every tool at once",\n'
        '        "tools": [\n' + listed + "        ],\n"
        '        "includes": [],\n'
        "    },\n"
        "}\n"
    )


def _tools_module(names) -> str:
    lines = [
        "from tools.registry import registry",
        'SCHEMA = {"description": "Do one thing.", "parameters": {"type": "object", "properties": {}}}',
    ]
    lines += [
        f'registry.register(name="{name}", toolset="everything", schema=SCHEMA, '
        'handler=lambda args, **kw: "", check_fn=lambda: True)'
        for name in names
    ]
    return "\n".join(lines) + "\n"


_MANY = [f"tool_{i:03d}" for i in range(129)]


class OpenAIFunctionTools(ProviderProjectRule):
    __doc__ = rule_doc(
        """OpenAI (`providers = ["openai"]`, also implied by `"openai-strict"`): what the API
    rejects in function tools — a tool name outside ``^[a-zA-Z0-9_-]{1,64}$``, a ``parameters``
    root that is not ``"type": "object"`` or that carries ``oneOf``/``anyOf``/``allOf``/``enum``/
    ``not`` (strict mode or not: "either ``a`` or ``b`` is required" belongs in the description
    and the handler, and the same combinators one level down are accepted), and more than 128
    tools in one request.

    One invalid tool fails the whole request (HTTP 400), so every tool of the session is lost,
    not just that one. The request limit is checked per resolved toolset of ``toolsets.py``
    (includes expanded; only tools something registers are counted, so the count is a lower
    bound), or per ``toolset=`` when there is no readable ``toolsets.py``; it is reported at the
    toolset.

    Not repeated: the name and the root are what HRM308 and HRM304 (on by default) report, so
    HRM601 says them only while those rules are not selected for the file. Silent when no
    provider is selected, and for what is not known statically.
        """,
        "HRM601",
    )

    code = "HRM601"
    summary = "OpenAI: rejected by the API (name, tools per request, parameters root)"
    sources = rule_sources("HRM601")

    valid = [
        Valid(
            """
            from tools.registry import registry

            PREFIX = "browser"
            SCHEMA = {"description": "Go back.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name=f"{PREFIX}_back", toolset="browser", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=OPENAI,
        ),
        # no provider selected: HRM6xx stay silent
        """
        from tools.registry import registry

        SCHEMA = {"description": "Search.", "parameters": {"type": "object", "properties": {}}}
        registry.register(name="web search", toolset="web", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # HRM308 is selected and reports this name: HRM601 does not repeat it
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Search.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="web search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options={"providers": ["openai"], "select": ["HRM601", "HRM308"]},
        ),
        # a combinator below the root is accepted
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Wait for a job.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "job_id": {"type": "string", "description": "The job."},
                        "timeout": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "Seconds."},
                    },
                    "required": ["job_id"],
                },
            }
            registry.register(name="wait", toolset="jobs", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=OPENAI,
        ),
        # 128 tools fit in one request
        Valid(_tools_module(_MANY[:128]), files={"toolsets.py": _toolsets_py(_MANY[:128])}, options=OPENAI),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {"description": "Read a file.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="files.read", toolset="file", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=24,
            message="tool name 'files.read' does not match ^[a-zA-Z0-9_-]{1,64}$ (openai: rejected by the API)",
            options=OPENAI,
            fix=(('name="files.read"', 'name="files_read"'),),
        ),
        Invalid(
            _tools_module(_MANY),
            files={"toolsets.py": _toolsets_py(_MANY)},
            path="toolsets.py",
            line=2,
            col=5,
            message="toolset `everything` sends 129 tools in one request; the limit is 128 "
            "(openai: rejected by the API)",
            options=OPENAI,
        ),
        Invalid(
            """
            from tools.registry import registry

            def _build_schema(item_type):
                return {
                    "description": "Sum numbers.",
                    "parameters": {"type": "array", "items": {"type": item_type}},
                }

            registry.register(name="sum", toolset="math", schema=_build_schema("number"),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=6,
            col=24,
            message='`parameters` is not "type": "object" (openai: rejected by the API)',
            options={"providers": ["openai-strict"], "select": ["HRM601"]},
        ),
        # "one of these is required" written as a root anyOf: a 400 for the whole request
        Invalid(
            """
            from tools.registry import registry

            LOOKUP = {
                "description": "Find a contact by id or by email.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "Contact id."},
                        "email": {"type": "string", "description": "Contact email."},
                    },
                    "anyOf": [{"required": ["id"]}, {"required": ["email"]}],
                },
            }
            registry.register(name="find_contact", toolset="crm", schema=LOOKUP,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=11,
            col=9,
            message="keyword `anyOf` in `parameters` (openai: rejected by the API)",
            options=OPENAI,
        ),
    ]
