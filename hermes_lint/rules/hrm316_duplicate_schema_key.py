from __future__ import annotations

import ast
import bisect
from typing import Dict, Iterator, List

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule


class DuplicateSchemaKey(Rule):
    """A dict literal that becomes part of a tool's schema names the same key twice.

    Python keeps the last value of a repeated key and drops the earlier one without a word: after
    a merge that brings in a second ``"new_text": {...}`` property, the schema silently describes
    only one of them — often the older, shorter description, or a different type — and nothing
    fails. Reported at each repeated key, naming the line of its first occurrence; keep one
    entry (merge their descriptions by hand).

    Only dict displays (``{...}`` written in this module) whose surviving key the evaluator
    placed in a registered schema are checked — directly, through module constants, ``**``
    merges or module functions that build the schema. Not reported: keys that are not string
    constants, dicts that are not part of a schema (other linters report those), a dict whose
    key a later merge replaces anyway, and schemas not known statically.
    """

    code = "HRM316"
    summary = "duplicate key in a schema dict literal (the later one silently replaces the earlier)"

    valid = [
        # a repeated key outside any schema (a lookup table of the handler), and a key that
        # appears once per dict at different depths
        """
        from tools.registry import registry

        _HINTS = {"timeout": "retry later", "timeout": "raise the timeout"}

        SCHEMA = {
            "description": "Edit a file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file."},
                    "options": {
                        "type": "object",
                        "description": "Options.",
                        "properties": {"path": {"type": "string", "description": "A backup path."}},
                    },
                },
            },
        }
        registry.register(name="edit", toolset="file", schema=SCHEMA,
                          handler=lambda args, **kw: _HINTS.get("timeout", ""), check_fn=lambda: True)
        """,
        # the schema comes from somewhere the evaluator does not follow: nothing is known about it
        """
        import json
        from pathlib import Path
        from tools.registry import registry

        def _load():
            return json.loads(Path("schema.json").read_text())

        DEFAULTS = {"description": "Edit.", "description": "Edit a file."}
        registry.register(name="edit", toolset="file", schema=_load(),
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # a later `**` merge replaces the key anyway: the duplicate does not reach the schema
        """
        from tools.registry import registry

        _BASE = {"type": "object", "properties": {}, "type": "object"}
        SCHEMA = {"description": "Ping.", "parameters": {**_BASE, "type": "object"}}
        registry.register(name="ping", toolset="net", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        # two merged branches each added `new_text`; the first one's description is lost
        Invalid(
            """
            from tools.registry import registry

            PATCH_SCHEMA = {
                "name": "patch",
                "description": "Replace text in a file.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "File to edit."},
                        "old_text": {"type": "string", "description": "Exact text to find."},
                        "new_text": {"type": "string", "description": "Replacement text; may be empty."},
                        "replace_all": {"type": "boolean", "description": "Replace every match."},
                        "new_text": {"type": "string", "description": "Replacement."},
                    },
                    "required": ["path", "old_text", "new_text"],
                },
            }
            registry.register(name="patch", toolset="file", schema=PATCH_SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=13,
            col=13,
            message='key "new_text" repeats the one at line 11 in a schema dict: Python keeps only the '
            "last value and silently drops the others",
            fix=(('"new_text": {"type": "string", "description": "Replacement."},', ""),),
        ),
        # built by a module function: a repeated key in a nested property and in `parameters`
        Invalid(
            """
            from tools.registry import registry

            def _build_schema(modes):
                return {
                    "description": "Take a screenshot.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "mode": {"type": "string", "enum": modes, "description": "What to capture.",
                                     "description": "Capture mode."},
                        },
                        "type": "object",
                    },
                }

            registry.register(name="screenshot", toolset="vision", schema=_build_schema(["window", "screen"]),
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=10,
            col=26,
            message='key "description" repeats the one at line 9 in a schema dict: Python keeps only the '
            "last value and silently drops the others",
            also=((12, 13),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        in_schema = {loc for r in ctx.facts.registrations for _, loc in r.schema_locations}
        if not in_schema:
            return
        lines = sorted({loc.line for loc in in_schema if not loc.path})
        for node in _nodes_around(ctx, lines):
            if node.__class__ is not ast.Dict or len(node.keys) < 2:
                continue
            occurrences: Dict[str, List[ast.Constant]] = {}
            for key in node.keys:
                if key.__class__ is ast.Constant and isinstance(key.value, str):
                    occurrences.setdefault(key.value, []).append(key)
            for name, keys in occurrences.items():
                # The last occurrence is the one Python keeps: the schema holds it when the
                # evaluator located it there.
                if len(keys) < 2 or ctx.loc(keys[-1]) not in in_schema:
                    continue
                for key in keys[1:]:
                    yield Finding(
                        ctx.loc(key),
                        f"key {_quoted(name)} repeats the one at line {keys[0].lineno} in a schema dict: "
                        "Python keeps only the last value and silently drops the others",
                    )


def _nodes_around(ctx: ModuleContext, lines: List[int]) -> Iterator[ast.AST]:
    """The nodes of the module's top-level statements whose lines (decorators included) hold
    one of ``lines``: a dict whose key is located in the schema is inside one of those."""
    for stmt in ctx.tree.body:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        at = bisect.bisect_left(lines, first)
        if at < len(lines) and lines[at] <= (stmt.end_lineno or stmt.lineno):
            yield from ctx.index.walk(stmt)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
