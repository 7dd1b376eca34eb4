from __future__ import annotations

import ast
from typing import Iterator, List

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.schema_walk import json_text, locate, schema_nodes


class RequiredWithDefault(Rule):
    """A parameter is either required or has a ``default``, not both.

    A default describes what happens when the argument is left out; a required argument can
    never be left out, so one of the two is wrong. Either the model is forced to send a value
    it was told it could omit (and picks one at random), or the handler's fallback is dead code
    and the documented default a lie. Drop ``default`` (and say the usual value in the
    description) or drop the name from ``required``.

    Reported at the ``default`` key, at any depth. Not reported: names in ``required`` that are
    not properties (HRM305); a ``required`` or ``default`` not known statically; OpenAI strict
    schemas are not special-cased (strict mode refuses ``default`` anyway: HRM602).
    """

    code = "HRM314"
    summary = "a property both required and given a default"
    fix_applicability = "unsafe"
    fix_title = "drop the property from `required` (unsafe: callers that relied on it being passed may now omit it)"

    valid = [
        # required without default, optional with default; required list from a constant
        """
        from tools.registry import registry

        REQUIRED = ["path"]
        SCHEMA = {
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File."},
                    "encoding": {"type": "string", "default": "utf-8", "description": "Text encoding."},
                },
                "required": REQUIRED,
            },
        }
        registry.register(name="read", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a nested object whose own required list does not name the defaulted field
        """
        from tools.registry import registry

        def _options(**properties):
            return {"type": "object", "properties": properties, "required": ["mode"], "description": "Options."}

        SCHEMA = {
            "description": "Export.",
            "parameters": {
                "type": "object",
                "properties": {
                    "options": _options(mode={"type": "string", "description": "Mode."},
                                        pretty={"type": "boolean", "default": True, "description": "Indent."}),
                },
                "required": ["options"],
            },
        }
        registry.register(name="export", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            SCHEMA = {
                "description": "Run a command.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "command": {"type": "string", "description": "Shell command."},
                        "timeout": {"type": "integer", "default": 60, "description": "Seconds."},
                    },
                    "required": ["command", "timeout"],
                },
            }
            registry.register(name="run", toolset="terminal", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=9,
            col=44,
            message="parameter `timeout` is required and has a default 60: a default applies only "
            "to an argument that may be left out",
            fix=(('"required": ["command", "timeout"]', '"required": ["command"]'),),
            autofixed="""
            from tools.registry import registry

            SCHEMA = {
                "description": "Run a command.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "command": {"type": "string", "description": "Shell command."},
                        "timeout": {"type": "integer", "default": 60, "description": "Seconds."},
                    },
                    "required": ["command"],
                },
            }
            registry.register(name="run", toolset="terminal", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
        ),
        Invalid(
            """
            from tools.registry import registry

            _PAGE = {"type": "integer", "minimum": 1, "default": 1, "description": "Page."}

            def _build_schema(required):
                return {
                    "description": "List issues.",
                    "parameters": {
                        "type": "object",
                        "properties": {"filter": {
                            "type": "object",
                            "properties": {"page": _PAGE, "label": {"type": "string", "description": "Label."}},
                            "required": required,
                            "description": "Filter.",
                        }},
                    },
                }

            registry.register(name="issues", toolset="dev", schema=_build_schema(["page", "label"]),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=3,
            col=43,
            message="parameter `filter.page` is required and has a default 1: a default applies only "
            "to an argument that may be left out",
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """Only when the property, its ``properties`` and their ``required`` are literals of one
        dict literal (``{"properties": {"p": {"default": ...}}, "required": [..., "p"]}``); a
        property from a constant or a ``required`` from a parameter (second example) has none."""
        import libcst as cst

        from hermes_lint.edit.literals import string_value
        from hermes_lint.edit.fix.transforms import remove_element

        path = diagnostic.path
        key = source.node_at(path, diagnostic.line, diagnostic.col, cst.SimpleString)
        chain: List[cst.DictElement] = []  # from the "default" entry outwards
        node = key
        while node is not None and len(chain) < 3:
            node = source.parent(path, node)
            if isinstance(node, cst.DictElement):
                chain.append(node)
            elif not isinstance(node, cst.Dict):
                return None
        if len(chain) < 3 or chain[0].key is not key or string_value(chain[0].key) != "default":
            return None
        prop, properties = string_value(chain[1].key), chain[2]
        holder = source.parent(path, properties)
        if prop is None or string_value(properties.key) != "properties" or not isinstance(holder, cst.Dict):
            return None
        for element in holder.elements:
            if isinstance(element, cst.DictElement) and string_value(element.key) == "required":
                if isinstance(element.value, cst.List):
                    for item in element.value.elements:
                        if isinstance(item, cst.Element) and string_value(item.value) == prop:
                            edit = remove_element(source, path, item)
                            return [edit] if edit is not None else None
        return None

    @classmethod
    def fix_available(cls, diagnostic, file):
        """``fix``'s answer where the ``default`` key is a plain string literal of a dict."""
        from hermes_lint.edit.fixable import dict_parents, nodes_at, string_value

        statement = file.statement(diagnostic.line)
        if statement is None:
            return None
        parents = dict_parents(statement)
        keys = [n for n in nodes_at(statement, diagnostic.line, diagnostic.col, file)
                if parents.get(id(n), (None, 0, ""))[2] == "key"]
        if len(keys) != 1 or not file.is_plain_string(keys[0]):
            return None
        if string_value(keys[0]) != "default":
            return False
        holder, _, _ = parents[id(keys[0])]  # the property's dict
        chain = []  # the entries holding it: the property's, then "properties"'s
        for _ in range(2):
            entry = parents.get(id(holder))
            if entry is None or entry[2] != "value" or entry[0].keys[entry[1]] is None:
                return False
            chain.append(entry)
            holder = entry[0]
        prop = string_value(chain[0][0].keys[chain[0][1]])
        if prop is None or string_value(chain[1][0].keys[chain[1][1]]) != "properties":
            return False
        for key, value in zip(holder.keys, holder.values):
            if key is not None and string_value(key) == "required" and isinstance(value, ast.List):
                if any(not isinstance(item, ast.Starred) and string_value(item) == prop for item in value.elts):
                    return True
        return False

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for node in schema_nodes(ctx, registration):
                if not node.is_property or "default" not in node.schema or node.parent is None:
                    continue
                required = node.parent.schema.get("required")
                if isinstance(required, (list, tuple)) and node.path[-1] in required:
                    yield Finding(
                        locate(registration, node.path + ("default",), ctx),
                        f"parameter `{node.name}` is required and has a default {json_text(node.schema['default'])}: "
                        "a default applies only to an argument that may be left out",
                    )
