from __future__ import annotations

from hermes_lint.rules.providers import ProviderModuleRule, rule_doc, rule_sources
from hermes_lint.rules.base import Invalid, Valid

LLAMACPP = {"providers": ["llamacpp"]}


class FreeFormObject(ProviderModuleRule):
    __doc__ = rule_doc(
        """Servers that refuse a free-form object (`providers = ["llamacpp"]` for local
        llama.cpp-based servers, `["perplexity"]`): an object parameter below the root with
        no ``properties`` — ``{"type": "object", "description": "Extra options."}``.

        llama.cpp builds a grammar from every tool schema to constrain the model's output, and
        its converter cannot constrain an object whose keys are unknown: the whole request fails
        with HTTP 400, every tool lost. Perplexity's API refuses the same shape. Hermes's own
        schema sanitizer works around the first by adding ``properties: {}`` on every backend —
        which tells every model that the object takes no keys, so models send ``{}`` for it and
        the argument never arrives. Models that call tools in XML or plain text have been seen
        retrying such a parameter in a loop. Declare the keys the handler reads
        (``"properties": {...}``), or type a map's values (``"additionalProperties": {"type":
        "string"}``), or take the value as a JSON string.

        Off by default, like every provider rule: free-form objects are valid JSON Schema and
        OpenAI, Anthropic and Gemini accept them. Reported at the object's ``type``. Not
        reported: the ``parameters`` root (HRM304's), an object with ``properties`` (even
        empty: a deliberate "no keys"), a typed map, and schemas or types not known statically.
        """,
        "HRM607",
    )

    code = "HRM607"
    summary = "llama.cpp, Perplexity: an object parameter without properties (a free-form object)"
    sources = rule_sources("HRM607")

    valid = [
        # declared keys, a typed map, an object at the root, an untyped value
        Valid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Send an HTTP request.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "headers": {"type": "object", "description": "Header values.",
                                    "additionalProperties": {"type": "string"}},
                        "auth": {"type": "object", "description": "Credentials.",
                                 "properties": {"user": {"type": "string", "description": "User."}}},
                        "body": {"description": "Any JSON body."},
                    },
                },
            }
            registry.register(name="http", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            options=LLAMACPP,
        ),
        # the target is not selected: silent (the default)
        """
        from tools.registry import registry

        SCHEMA = {
            "description": "Delegate a task.",
            "parameters": {
                "type": "object",
                "properties": {"output_schema": {"type": "object", "description": "JSON Schema of the result."}},
            },
        }
        registry.register(name="delegate", toolset="agents", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Delegate a task to a sub-agent.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "goal": {"type": "string", "description": "What to do."},
                        "output_schema": {"type": "object", "description": "JSON Schema the result must follow."},
                    },
                },
            }
            registry.register(name="delegate", toolset="agents", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            col=31,
            message="object `output_schema` has no `properties` (a free-form object) (llamacpp: rejected by the API)",
            options=LLAMACPP,
            fix=(('{"type": "object", "description": "JSON Schema the result must follow."}',
                  '{"type": "string", "description": "JSON Schema the result must follow, as JSON text."}'),),
        ),
        # array items, and a nullable object, under both targets' rows
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Write rows.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "rows": {"type": "array", "description": "Rows.", "items": {"type": "object"}},
                        "meta": {"type": ["object", "null"], "description": "Metadata."},
                    },
                },
            }
            registry.register(name="write_rows", toolset="db", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=8,
            col=73,
            message="object `rows[]` has no `properties` (a free-form object) (perplexity: rejected by the API)",
            also=((9, 22),),
            options={"providers": ["perplexity"]},
        ),
    ]
