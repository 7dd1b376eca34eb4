from __future__ import annotations

from typing import Iterator, Optional, Set

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import SubSchema, locate, schema_nodes


class RequiredNotDeclared(Rule):
    """Every name in ``required`` must be a key of the same object's ``properties``, at any
    depth (the parameters, nested objects, array items, anyOf/oneOf branches).

    A required name that is not declared is almost always a typo or a renamed parameter: the
    model is told the argument is mandatory but is never told what it is, and strict providers
    reject the schema (OpenAI strict mode requires ``required`` to match ``properties``).

    Not reported: objects without ``properties`` (e.g. ``anyOf: [{"required": ["a"]}, ...]``
    branches that constrain the parent's properties; a missing root ``properties`` is
    HRM304's); names a ``patternProperties`` pattern may match (only a literal pattern, with
    optional ``^``/``$``, is decided: a schema's regex is never run, since one like ``^(a+)+$``
    can take for ever) or that an ``allOf``/``anyOf``/``oneOf`` branch's ``properties`` declare; objects with a ``$ref`` (the referenced schema may declare them);
    a ``required`` that is not a list of strings (HRM302).
    """

    code = "HRM305"
    summary = "required names a property not in properties"
    fix_applicability = "unsafe"
    fix_title = "remove the undeclared name from `required` (unsafe: it may be the property's name that is wrong)"

    valid = [
        # required from a constant list
        """
        from tools.registry import registry

        REQUIRED = ["path"]
        SCHEMA = {
            "name": "read", "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Path."}},
                "required": REQUIRED,
            },
        }
        registry.register(name="read", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a ** merge of shared properties; a name declared by an allOf branch
        """
        from tools.registry import registry

        _COMMON = {"task": {"type": "string", "description": "Task id."}}
        SCHEMA = {
            "name": "kanban_show", "description": "Show a task.",
            "parameters": {
                "type": "object",
                "properties": {**_COMMON, "verbose": {"type": "boolean", "description": "More."}},
                "allOf": [{"properties": {"board": {"type": "string", "description": "Board."}}}],
                "required": ["task", "board"],
            },
        }
        registry.register(name="kanban_show", toolset="kanban", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a helper; anyOf branches that only name which parameters are required
        """
        from tools.registry import registry

        def _build_schema(name, props, required):
            return {"name": name, "description": "Fetch.",
                    "parameters": {"type": "object", "properties": props, "required": required,
                                   "anyOf": [{"required": ["url"]}, {"required": ["path"]}]}}

        PROPS = {"url": {"type": "string", "description": "URL."}, "path": {"type": "string", "description": "Path."}}
        registry.register(name="fetch", toolset="web", schema=_build_schema("fetch", PROPS, []),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # names a pattern may match: a literal prefix decided; a regex never run (it could take
        # for ever: `^(a+)+$` against this name backtracks 2**40 times), so it may match
        """
        from tools.registry import registry

        SCHEMA = {
            "name": "tagged", "description": "Tagged values.",
            "parameters": {
                "type": "object",
                "properties": {},
                "patternProperties": {"^x_": {"type": "string"}, "^(a+)+$": {"type": "string"}},
                "required": ["x_color", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"],
            },
        }
        registry.register(name="tagged", toolset="tags", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "tagged", "description": "Tagged values.",
                "parameters": {
                    "type": "object",
                    "properties": {"label": {"type": "string", "description": "Label."}},
                    "patternProperties": {"^x_": {"type": "string"}, "_id$": {"type": "string"}},
                    "required": ["y_color", "user_id"],
                },
            }
            registry.register(name="tagged", toolset="tags", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            message="`required` names `y_color`, which is not in `properties`",
            autofixed="""
            from tools.registry import registry

            SCHEMA = {
                "name": "tagged", "description": "Tagged values.",
                "parameters": {
                    "type": "object",
                    "properties": {"label": {"type": "string", "description": "Label."}},
                    "patternProperties": {"^x_": {"type": "string"}, "_id$": {"type": "string"}},
                    "required": ["user_id"],
                },
            }
            registry.register(name="tagged", toolset="tags", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "search",
                "description": "Search the web.",
                "parameters": {
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "Text."}},
                    "required": ["querry"],
                },
            }
            registry.register(name="search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            message="`required` names `querry`, which is not in `properties` (did you mean `query`?)",
            fix=(('["querry"]', '["query"]'),),
            autofixed="""
            from tools.registry import registry

            SCHEMA = {
                "name": "search",
                "description": "Search the web.",
                "parameters": {
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "Text."}},
                    "required": [],
                },
            }
            registry.register(name="search", toolset="web", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
        ),
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "name": "clarify",
                "description": "Ask the user questions.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "questions": {
                            "type": "array",
                            "description": "Questions.",
                            "items": {
                                "type": "object",
                                "properties": {"text": {"type": "string", "description": "Question."}},
                                "required": ["text", "choices"],
                            },
                        },
                    },
                    "required": ["questions"],
                },
            }
            registry.register(name="clarify", toolset="clarify", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=15,
            message="`required` of `questions[]` names `choices`, which is not in its `properties`",
            autofixed="""
            from tools.registry import registry

            SCHEMA = {
                "name": "clarify",
                "description": "Ask the user questions.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "questions": {
                            "type": "array",
                            "description": "Questions.",
                            "items": {
                                "type": "object",
                                "properties": {"text": {"type": "string", "description": "Question."}},
                                "required": ["text"],
                            },
                        },
                    },
                    "required": ["questions"],
                },
            }
            registry.register(name="clarify", toolset="clarify", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """Only where the finding is at the named string in a list literal."""
        import libcst as cst

        from hermes_lint.edit.literals import string_value
        from hermes_lint.edit.fix.transforms import remove_element

        named = diagnostic.fix_value("property")
        value = source.node_at(diagnostic.path, diagnostic.line, diagnostic.col, cst.SimpleString)
        element = source.parent(diagnostic.path, value) if value is not None else None
        if named is None or not isinstance(element, cst.Element) or string_value(value) != named:
            return None
        edit = remove_element(source, diagnostic.path, element)
        return [edit] if edit is not None else None

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for node in schema_nodes(ctx, registration):
                required = node.schema.get("required")
                properties = node.schema.get("properties")
                if not isinstance(required, list) or not isinstance(properties, dict):
                    continue
                if "$ref" in node.schema or "$dynamicRef" in node.schema:
                    continue
                declared = _declared(node)
                pattern_map = node.schema.get("patternProperties")
                patterns = [p for p in pattern_map if isinstance(p, str)] if isinstance(pattern_map, dict) else []
                for index, name in enumerate(required):
                    if not isinstance(name, str) or name in declared or _matches_any(name, patterns):
                        continue
                    yield Finding(
                        locate(registration, node.path + ("required", index), ctx), _message(node, name, declared),
                        fix_data=(("property", name),),
                    )


def _declared(node: SubSchema) -> Set[str]:
    names = set(node.schema["properties"])
    for keyword in ("allOf", "anyOf", "oneOf"):
        branches = node.schema.get(keyword)
        for branch in branches if isinstance(branches, list) else ():
            if isinstance(branch, dict) and isinstance(branch.get("properties"), dict):
                names.update(branch["properties"])
    return names


def _matches_any(name: str, patterns) -> bool:
    """Whether some pattern may match ``name``. A schema's regex is never run: one like
    ``^(a+)+$`` takes for ever on some names. A pattern that is a literal, optionally anchored,
    is decided by string comparison; any other may match (so the name is not reported)."""
    return any(_literal_match(pattern, name) is not False for pattern in patterns)


_REGEX_SYNTAX = frozenset(".^$*+?{}[]|()\\")


def _literal_match(pattern: str, name: str) -> Optional[bool]:
    """``re.search(pattern, name)`` for a pattern made of literal characters (``\\`` before a
    punctuation character makes it literal) between an optional ``^`` and ``$``; None for any
    other pattern."""
    start = pattern.startswith("^")
    body = pattern[1:] if start else pattern
    end = body.endswith("$") and not _escaped_at(body, len(body) - 1)
    body = body[:-1] if end else body
    literal = []
    position = 0
    while position < len(body):
        char = body[position]
        if char == "\\":
            following = body[position + 1 : position + 2]
            if not following or following.isalnum() or following == "_":
                return None  # a class (\d), a reference (\1) or an anchor (\b): not literal
            literal.append(following)
            position += 2
            continue
        if char in _REGEX_SYNTAX:
            return None
        literal.append(char)
        position += 1
    text = "".join(literal)
    if end and name.endswith("\n"):
        return None  # `$` also matches before a final newline
    if start and end:
        return name == text
    if start:
        return name.startswith(text)
    if end:
        return name.endswith(text)
    return text in name


def _escaped_at(text: str, index: int) -> bool:
    """The character at ``index`` follows an odd number of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _message(node: SubSchema, name: str, declared: Set[str]) -> str:
    import difflib  # a suggestion, only for a finding
    close = difflib.get_close_matches(name, sorted(declared), n=1)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    if node.via == "parameters":
        return f"`required` names `{name}`, which is not in `properties`{hint}"
    return f"`required` of `{node.name}` names `{name}`, which is not in its `properties`{hint}"
