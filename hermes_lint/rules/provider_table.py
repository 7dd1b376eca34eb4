"""Provider compatibility (HRM601–HRM606) as data: what each provider's API rejects, or what
Hermes's own provider adapter silently rewrites, one ``Constraint`` row per fact with its source
— and one small engine that applies the rows of a rule to a registration.

A row names a *check* (a small generic predicate in ``NODE_CHECKS`` / ``TOOL_CHECKS`` /
``REQUEST_CHECKS``: "a keyword out of this set", "an object whose `additionalProperties` is not
false", "more than N tools in one request"...) and its argument (the keyword set, the limit,
the allowed formats). Adding what a provider refuses is adding a row, not writing a rule.

Targets are opt-in (``[tool.hermes-lint] providers = [...]`` or ``check --provider``); with none
selected every HRM6xx rule is silent. A strict target implies its base one: ``openai-strict``
also checks ``openai``'s rows (strict mode is the same API with more rules).

Where a default-on rule already reports the very same fact (HRM308 for the shared tool-name
regex, HRM304 for a `parameters` root that is not an object, HRM313 for an untyped property),
the row says so (``defer_to``) and the finding is dropped while that rule is selected for the
file: one fact, one diagnostic. The provider rule still speaks when the user turned the
default-on rule off.

Every source was read on ``READ_ON``. Error texts that no vendor page states are marked as such
(they were found quoted verbatim in public bug reports); what could not be verified is left out.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, FrozenSet, List, NamedTuple, Optional, Tuple

from hermes_lint.model.schema_walk import JsonPath

READ_ON = "2026-11-30"

# What happens to a violation. Rule docs group the rows by it.
REJECTED = "rejected by the API"
DROPPED = "silently dropped by Hermes's Gemini adapter"
REWRITTEN = "silently rewritten by Hermes's Gemini adapter"
KIMI = "rejected by the Moonshot API; Hermes's Kimi adapter silently rewrites it"
ADVISED = "a SHOULD of the spec: clients may refuse it"
VIOLATES_MUST = "breaks a MUST of the spec: conforming clients refuse it"

# Targets that imply another one's rows.
_IMPLIES = {"openai-strict": ("openai",), "anthropic-strict": ("anthropic",)}


@dataclass(frozen=True)
class Source:
    title: str
    url: str = ""  # empty: no vendor page states it (an error text quoted in public reports)

    def cite(self) -> str:
        where = self.url or "no vendor page: error text quoted verbatim in public bug reports"
        return f"{self.title} — {where} (read {READ_ON})"


@dataclass(frozen=True)
class Constraint:
    """One thing one provider target refuses or rewrites, reported under ``code``."""

    code: str
    target: str
    check: str  # key of NODE_CHECKS, TOOL_CHECKS or REQUEST_CHECKS
    effect: str
    says: str  # the requirement, for the rule's documentation
    sources: Tuple[Source, ...]
    arg: Any = None
    reach: Optional[FrozenSet[str]] = None  # node checks: only nodes reached through these keywords
    defer_to: Optional[str] = None  # a default-on rule that reports the same fact


class Violation(NamedTuple):
    constraint: Constraint
    path: Optional[JsonPath]  # schema path of the offending key; None: the tool's name argument
    text: str
    deferred: bool = False

    def message(self) -> str:
        return f"{self.text} ({self.constraint.target}: {self.constraint.effect})"


# --------------------------------------------------------------------------- sources

OPENAI_CHAT = Source(
    "OpenAI API reference, Create chat completion: `tools` (\"A max of 128 functions are supported\"), "
    "`function.name` (\"Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length "
    "of 64\"); the same text is in openai/openai-openapi openapi.yaml",
    "https://platform.openai.com/docs/api-reference/chat/create",
)
OPENAI_STRUCTURED = Source(
    "OpenAI, Structured Outputs guide, \"Supported schemas\": all fields must be required (optional as "
    "a union with null), `additionalProperties: false` must always be set in objects, the root must be "
    "an object and not anyOf, supported string formats, unsupported allOf/not/dependentRequired/"
    "dependentSchemas/if/then/else; \"call the API with an unsupported JSON Schema, you will receive an error\"",
    "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
)
OPENAI_ROOT_ERROR = Source(
    "OpenAI API error text \"Invalid schema for function 'x': schema must be a JSON Schema of "
    "'type: \\\"object\\\"', got 'type: \\\"None\\\"'\""
)
OPENAI_ROOT_COMBINATOR = Source(
    "OpenAI API error text \"Invalid schema for function 'x': schema must have type 'object' and not have "
    "'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level\" (code `invalid_function_parameters`, without "
    "strict mode)"
)
OPENAI_STRICT_ERRORS = Source(
    "OpenAI API error texts \"'additionalProperties' is required to be supplied and to be false\", "
    "\"'required' is required to be supplied and to be an array including every key in properties\", "
    "\"In context=('properties', 'x'), 'default' is not permitted\" (one report found `default` accepted)"
)
ANTHROPIC_TOOLS = Source(
    "Anthropic, Define tools: tool `name` \"Must match the regex ^[a-zA-Z0-9_-]{1,64}$\"",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools",
)
ANTHROPIC_SDK = Source(
    "anthropics/anthropic-sdk-python, types/tool_param.py (generated from the API's OpenAPI spec): "
    "`InputSchema.type: Required[Literal[\"object\"]]`",
    "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/types/tool_param.py",
)
ANTHROPIC_TOP_LEVEL = Source(
    "Anthropic API error text \"input_schema does not support oneOf, allOf, or anyOf at the top level\""
)
ANTHROPIC_STRUCTURED = Source(
    "Anthropic, Structured outputs: \"JSON Schema limitations\" (not supported: numerical constraints such "
    "as minimum, maximum, multipleOf; minLength/maxLength; array constraints beyond minItems 0 or 1; "
    "additionalProperties other than false; recursive schemas; external $ref; complex types in enums; "
    "allOf with $ref; listed string formats) \"If you use an unsupported feature, you'll receive a 400 "
    "error\"; \"Schema complexity limits\": 20 strict tools, 24 optional parameters, 16 parameters with "
    "union types per request",
    "https://platform.claude.com/docs/en/build-with-claude/structured-outputs",
)
ANTHROPIC_STRICT = Source(
    "Anthropic, Strict tool use (`strict: true` shares the structured-outputs limitations)",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use",
)
GEMINI_FUNCTION = Source(
    "Vertex AI API reference, FunctionDeclaration: `name` \"Must start with a letter or an underscore. "
    "Must be a-z, A-Z, 0-9, or contain underscores, dots and dashes, with a maximum length of 64\"",
    "https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration",
)
GEMINI_SCHEMA = Source(
    "Gemini API reference, Schema: \"a select subset of an OpenAPI 3.0 schema object\"; `type` is one "
    "enum value; `enum[]` holds strings",
    "https://ai.google.dev/api/rest/v1beta/Schema",
)
GEMINI_ERRORS = Source(
    "Gemini API error texts: a type list fails with \"Proto field is not repeating, cannot start list\"; "
    "a non-string enum value fails as TYPE_STRING"
)
GEMINI_FORMATS = Source(
    "google/adk-python tools/_gemini_schema_util.py, quoting the API: \"only 'enum' and 'date-time' are "
    "supported for STRING type\"",
    "https://github.com/google/adk-python/blob/main/src/google/adk/tools/_gemini_schema_util.py",
)
HERMES_GEMINI = Source(
    "NousResearch/hermes-agent agent/gemini_schema.py, sanitize_gemini_schema: keeps an allow-list of "
    "keys, recurses into properties/items/anyOf only, stringifies the enum of an integer/number/boolean",
    "https://github.com/NousResearch/hermes-agent/blob/1287318728e293e67d6a48442e1cecc099c2470f/agent/gemini_schema.py",
)
HERMES_MOONSHOT = Source(
    "NousResearch/hermes-agent agent/moonshot_schema.py (\"tools.function.parameters is not a valid "
    "moonshot flavored json schema\"; every property carries a type, with anyOf the type belongs on "
    "the children), applied by agent/transports/chat_completions.py when is_moonshot_model(model)",
    "https://github.com/NousResearch/hermes-agent/blob/2161a477150497a0d2f27f414fe904f55fbd773c/agent/moonshot_schema.py",
)
MOONSHOT_ERRORS = Source(
    "Moonshot API error texts \"At path 'properties.x': when using anyOf, type should be defined in anyOf "
    "items instead of the parent schema\" and \"At path '...': type is not defined\" (no Moonshot "
    "documentation page states these rules)"
)
MCP_TOOLS = Source(
    "Model Context Protocol specification 2025-11-25, Server / Tools: \"Tool names SHOULD be between 1 "
    "and 128 characters\", only A-Z a-z 0-9 _ - . ; inputSchema \"MUST be a valid JSON Schema object\"",
    "https://modelcontextprotocol.io/specification/2025-11-25/server/tools",
)
MCP_SCHEMA = Source(
    "Model Context Protocol schema 2025-11-25, schema.ts: `Tool.inputSchema: { $schema?: string; "
    "type: \"object\"; properties?: ...; required?: string[] }`",
    "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2025-11-25/schema.ts",
)

LLAMACPP_ERROR = Source(
    "llama.cpp server error text \"HTTP 400: Unable to generate parser for this template. Automatic parser "
    "generation failed: JSON schema conversion failed: Unrecognized schema: \\\"object\\\"\" for an "
    "`\"type\": \"object\"` node with no `properties`, quoted by NousResearch/hermes-agent "
    "tools/schema_sanitizer.py (which injects `properties: {}` into such nodes before every request)"
)
HERMES_FREE_OBJECT = Source(
    "NousResearch/hermes-agent bug report #96734: with `properties: {}` injected into a free-form object "
    "parameter, models reliably send `{}` for it"
)
PERPLEXITY_ERROR = Source(
    "Perplexity Chat Completions: \"any object-typed parameter that omits `properties` is rejected with "
    "HTTP 400\" (verified against the live API in NousResearch/hermes-agent pull request #81308; no vendor "
    "page states it)"
)

# --------------------------------------------------------------------------- the table

# Keys sanitize_gemini_schema keeps (verbatim from the source above); everything else is dropped.
GEMINI_KEPT_KEYS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
    "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf",
    "propertyOrdering", "default", "items", "minimum", "maximum",
})
# sanitize_gemini_schema recurses into these only: what sits under other keys vanishes with them.
GEMINI_REACH = frozenset({"parameters", "properties", "items", "anyOf"})
OPENAI_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
ANTHROPIC_STRICT_FORMATS = OPENAI_STRICT_FORMATS | {"uri"}
ANTHROPIC_STRICT_UNSUPPORTED = frozenset({
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "maxItems", "uniqueItems", "contains", "minContains", "maxContains",
})
# What OpenAI refuses at the `parameters` root, strict mode or not.
OPENAI_ROOT_REJECTED = frozenset({"oneOf", "anyOf", "allOf", "enum", "not"})
TOOL_NAME = r"[a-zA-Z0-9_-]{1,64}"  # HRM308's pattern
MCP_NAME = r"[A-Za-z0-9_.-]{1,128}"

_C = Constraint
CONSTRAINTS: Tuple[Constraint, ...] = (
    # OpenAI (chat completions / responses function tools)
    _C("HRM601", "openai", "name_pattern", REJECTED, "tool names match ^[a-zA-Z0-9_-]{1,64}$",
       (OPENAI_CHAT,), arg=TOOL_NAME, defer_to="HRM308"),
    _C("HRM601", "openai", "root_type", REJECTED, 'the `parameters` root is "type": "object"',
       (OPENAI_ROOT_ERROR,), defer_to="HRM304"),
    _C("HRM601", "openai", "tools_per_request", REJECTED, "at most 128 tools in one request",
       (OPENAI_CHAT,), arg=128),
    _C("HRM601", "openai", "root_keyword", REJECTED, "no oneOf, anyOf, allOf, enum or not at the `parameters` root",
       (OPENAI_ROOT_COMBINATOR,), arg=OPENAI_ROOT_REJECTED),
    # OpenAI strict mode (`strict: true`)
    _C("HRM602", "openai-strict", "object_flag", REJECTED, "every object sets `additionalProperties: false`",
       (OPENAI_STRUCTURED, OPENAI_STRICT_ERRORS), arg=("additionalProperties", False, True)),
    _C("HRM602", "openai-strict", "all_required", REJECTED,
       'every property is in `required` (an optional one as "type": [T, "null"])',
       (OPENAI_STRUCTURED, OPENAI_STRICT_ERRORS)),
    _C("HRM602", "openai-strict", "strict_keyword", REJECTED,
       "no allOf, not, dependentRequired, dependentSchemas, if, then, else", (OPENAI_STRUCTURED,),
       arg=frozenset({"allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else"}),
       defer_to="HRM601"),
    _C("HRM602", "openai-strict", "keyword", REJECTED, "no `default`", (OPENAI_STRICT_ERRORS,),
       arg=frozenset({"default"})),
    _C("HRM602", "openai-strict", "string_format", REJECTED,
       "string formats only " + ", ".join(sorted(OPENAI_STRICT_FORMATS)), (OPENAI_STRUCTURED,),
       arg=OPENAI_STRICT_FORMATS),
    # Anthropic (Messages API tools)
    _C("HRM603", "anthropic", "name_pattern", REJECTED, "tool names match ^[a-zA-Z0-9_-]{1,64}$",
       (ANTHROPIC_TOOLS,), arg=TOOL_NAME, defer_to="HRM308"),
    _C("HRM603", "anthropic", "root_type", REJECTED, 'the `input_schema` root is "type": "object"',
       (ANTHROPIC_SDK,), defer_to="HRM304"),
    _C("HRM603", "anthropic", "root_keyword", REJECTED, "no oneOf, allOf or anyOf at the top level",
       (ANTHROPIC_TOP_LEVEL,), arg=frozenset({"oneOf", "allOf", "anyOf"})),
    # Anthropic strict tool use (`strict: true`)
    _C("HRM603", "anthropic-strict", "keyword", REJECTED,
       "no numerical, string-length or array constraints (minItems 0 or 1 excepted)", (ANTHROPIC_STRUCTURED,),
       arg=ANTHROPIC_STRICT_UNSUPPORTED),
    _C("HRM603", "anthropic-strict", "min_items", REJECTED, "`minItems` only 0 or 1", (ANTHROPIC_STRUCTURED,), arg=1),
    _C("HRM603", "anthropic-strict", "object_flag", REJECTED, "`additionalProperties`, when given, is false",
       (ANTHROPIC_STRUCTURED,), arg=("additionalProperties", False, False)),
    _C("HRM603", "anthropic-strict", "string_format", REJECTED,
       "string formats only " + ", ".join(sorted(ANTHROPIC_STRICT_FORMATS)), (ANTHROPIC_STRUCTURED,),
       arg=ANTHROPIC_STRICT_FORMATS),
    _C("HRM603", "anthropic-strict", "enum_complex", REJECTED, "enum values are strings, numbers, booleans or null",
       (ANTHROPIC_STRUCTURED,)),
    _C("HRM603", "anthropic-strict", "ref", REJECTED, "no external or recursive `$ref`, no `$ref` inside allOf",
       (ANTHROPIC_STRUCTURED,)),
    _C("HRM603", "anthropic-strict", "strict_tools", REJECTED, "at most 20 strict tools in one request",
       (ANTHROPIC_STRUCTURED, ANTHROPIC_STRICT), arg=20),
    _C("HRM603", "anthropic-strict", "optional_parameters", REJECTED,
       "at most 24 optional parameters across the strict tools of one request", (ANTHROPIC_STRUCTURED,), arg=24),
    _C("HRM603", "anthropic-strict", "union_parameters", REJECTED,
       "at most 16 parameters with anyOf or a type list across the strict tools of one request",
       (ANTHROPIC_STRUCTURED,), arg=16),
    # Gemini (function declarations, through Hermes's Gemini adapter)
    _C("HRM604", "gemini", "name_start", REJECTED, "tool names start with a letter or an underscore",
       (GEMINI_FUNCTION,), arg=TOOL_NAME),
    _C("HRM604", "gemini", "outside_keys", DROPPED,
       "only the keys of Gemini's Schema subset reach the API (" + ", ".join(sorted(GEMINI_KEPT_KEYS)) + ")",
       (HERMES_GEMINI, GEMINI_SCHEMA), arg=GEMINI_KEPT_KEYS, reach=GEMINI_REACH),
    _C("HRM604", "gemini", "type_list", REJECTED, "`type` is one type name (nullable via `nullable`)",
       (GEMINI_SCHEMA, GEMINI_ERRORS), reach=GEMINI_REACH),
    _C("HRM604", "gemini", "enum_values", REWRITTEN,
       "enum values are strings (integer/number/boolean ones are stringified)",
       (HERMES_GEMINI,), arg="stringified", reach=GEMINI_REACH),
    _C("HRM604", "gemini", "enum_values", REJECTED, "enum values are strings (other non-string values are refused)",
       (GEMINI_SCHEMA, GEMINI_ERRORS), arg="kept", reach=GEMINI_REACH),
    _C("HRM604", "gemini", "string_format", REJECTED, "string formats only enum and date-time",
       (GEMINI_FORMATS,), arg=frozenset({"enum", "date-time"}), reach=GEMINI_REACH),
    # Moonshot / Kimi
    _C("HRM605", "moonshot", "missing_type", KIMI, "every property, array item and anyOf branch has a `type`",
       (HERMES_MOONSHOT, MOONSHOT_ERRORS), arg=frozenset({"properties", "items", "prefixItems", "anyOf"}),
       defer_to="HRM313"),
    _C("HRM605", "moonshot", "type_beside", KIMI, "with anyOf, `type` is on the branches, never the parent",
       (HERMES_MOONSHOT, MOONSHOT_ERRORS), arg="anyOf"),
    # Servers that refuse a free-form object parameter (off unless the target is selected)
    _C("HRM607", "llamacpp", "free_object", REJECTED, "every object below the root lists its `properties`",
       (LLAMACPP_ERROR, HERMES_FREE_OBJECT)),
    _C("HRM607", "perplexity", "free_object", REJECTED, "every object below the root lists its `properties`",
       (PERPLEXITY_ERROR,)),
    # MCP (spec 2025-11-25)
    _C("HRM606", "mcp", "name_pattern", ADVISED, "tool names match [A-Za-z0-9_.-]{1,128}",
       (MCP_TOOLS,), arg=MCP_NAME, defer_to="HRM308"),
    _C("HRM606", "mcp", "root_type", VIOLATES_MUST, 'the `inputSchema` root is "type": "object"',
       (MCP_TOOLS, MCP_SCHEMA), defer_to="HRM304"),
)
del _C


def constraints_of(code: str) -> Tuple[Constraint, ...]:
    return tuple(c for c in CONSTRAINTS if c.code == code)


def rule_sources(code: str) -> Tuple[str, ...]:
    """``Rule.sources`` for a provider rule: every source of its rows, once, cited."""
    seen: List[str] = []
    for constraint in constraints_of(code):
        for source in constraint.sources:
            if source.cite() not in seen:
                seen.append(source.cite())
    return tuple(seen)


def rule_doc(rationale: str, code: str) -> str:
    """A provider rule's docstring: its rationale, then its rows (``rule_table``)."""
    return inspect.cleandoc(rationale).rstrip() + "\n\n" + rule_table(code)


def rule_table(code: str) -> str:
    """The rows of a rule as documentation: target, requirement, what a violation does."""
    lines = ["What is checked (target: requirement — what a violation does):", ""]
    for c in constraints_of(code):
        deferred = f" (left to {c.defer_to} where that rule, selected, reports the same fact)" if c.defer_to else ""
        lines.append(f"- {c.target}: {c.says} — {c.effect}{deferred}")
    return "\n".join(lines)


def active_targets(config: Any) -> FrozenSet[str]:
    chosen = set(getattr(config, "providers", ()) or ())
    for target in tuple(chosen):
        chosen.update(_IMPLIES.get(target, ()))
    return frozenset(chosen)
