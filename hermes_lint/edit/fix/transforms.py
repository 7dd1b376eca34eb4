"""libcst edits that several rules' fixes share: list elements, string literals, keywords and
imports. Each returns ``Edit``s (or None when the source is not of a shape it knows), and touches
only the node it edits: comments and layout elsewhere stay byte for byte."""

from __future__ import annotations

import ast
from typing import List, Optional, Sequence, Tuple

import libcst as cst

from hermes_lint.edit.fix.edits import Edit
from hermes_lint.edit.fix.source import FixSource, add_keyword, call_keyword, first_line
from hermes_lint.edit.literals import string_literal, string_value
from hermes_lint.edit.toolsets_edit import append_element


def quote_of(node: cst.CSTNode) -> str:
    if isinstance(node, cst.SimpleString) and node.prefix == "" and node.quote in ('"', "'"):
        return node.quote
    return '"'


def list_quote(node: cst.List) -> str:
    for element in node.elements:
        if isinstance(element.value, cst.SimpleString):
            return quote_of(element.value)
    return '"'


def replace_string(source: FixSource, path: str, node: cst.CSTNode, text: str) -> Optional[Edit]:
    """``node``, a plain string literal, now holding ``text`` (in the same quotes)."""
    if not isinstance(node, cst.SimpleString) or node.prefix not in ("", "u"):
        return None
    return source.replace(path, node, string_literal(text, quote_of(node)))


def remove_element(source: FixSource, path: str, element: cst.Element) -> Optional[Edit]:
    """``element`` taken out of its list literal; the comma of a removed last element moves to
    the one before it (so a trailing comma stays), and a list left empty becomes ``[]``."""
    container = source.parent(path, element)
    if not isinstance(container, (cst.List, cst.Tuple)):
        return None
    elements = list(container.elements)
    position = next(i for i, e in enumerate(elements) if e is element)
    del elements[position]
    if not elements:
        return source.replace(path, container, "[]" if isinstance(container, cst.List) else "()")
    changes = {}
    if position == len(elements):  # it was the last one: its comma (trailing or none) moves up
        before = elements[-1].comma
        elements[-1] = elements[-1].with_changes(comma=element.comma)
        # After the last element, libcst gives the line's comment and break to the closing
        # bracket: the removed element's comment goes with it, the new last one's comes back.
        closing = container.rbracket if isinstance(container, cst.List) else None
        if closing is not None and isinstance(closing.whitespace_before, cst.ParenthesizedWhitespace):
            own_line = (
                before.whitespace_after.first_line
                if isinstance(before, cst.Comma) and isinstance(before.whitespace_after, cst.ParenthesizedWhitespace)
                else cst.TrailingWhitespace()
            )
            whitespace = closing.whitespace_before.with_changes(first_line=own_line)
            changes["rbracket"] = closing.with_changes(whitespace_before=whitespace)
    return source.replace(path, container, container.with_changes(elements=elements, **changes))


def append_string(source: FixSource, path: str, node: cst.List, text: str) -> Edit:
    """``text`` appended to the list literal ``node``, laid out like its elements."""
    new = append_element(node, cst.Element(cst.SimpleString(string_literal(text, list_quote(node)))))
    return source.replace(path, node, new)


def register_calls(source: FixSource, path: str) -> List[Tuple[int, cst.Call]]:
    """The module-level ``<something>.register(...)`` expression statements: (line, call)."""
    tree = source.tree(path)
    calls = []
    for stmt in tree.body if tree is not None else ():
        value = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "register":
            call = source.node_at(path, value.lineno, value.col_offset + 1, cst.Call)
            if call is not None:
                calls.append((value.lineno, call))
    return calls


def literal_argument(call: cst.Call, keyword: str, position: int) -> Optional[cst.BaseExpression]:
    arg = call_keyword(call, keyword)
    if arg is not None:
        return arg.value
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return positional[position] if len(positional) > position else None


def registered_name(call: cst.Call) -> Optional[str]:
    value = literal_argument(call, "name", 0)
    return string_value(value) if value is not None else None


def add_to_string_list(source: FixSource, path: str, call: cst.Call, keyword: str, text: str) -> Optional[Edit]:
    """``text`` added to the list literal passed as ``keyword=`` (the keyword added, holding
    ``[text]``, when the call does not pass it); None when it is passed as anything else."""
    arg = call_keyword(call, keyword)
    if arg is None:
        if any(a.star for a in call.args) or len([a for a in call.args if a.keyword is None]) > 5:
            return None  # may be passed by position or inside **kwargs
        return add_keyword(source, path, call, f"{keyword}=[{string_literal(text)}]")
    if not isinstance(arg.value, cst.List):
        return None
    if any(string_value(element.value) == text for element in arg.value.elements):
        return None
    return append_string(source, path, arg.value, text)


def module_import(source: FixSource, path: str, module_name: str) -> Tuple[Optional[str], Sequence[Edit]]:
    """How to refer to the standard module ``module_name`` in ``path``: its name when the module
    imports it (``import json``), else the name and the edit adding ``import json`` before the
    first import (after the docstring and ``__future__`` imports); (None, ()) when the name is
    bound to something else at module level."""
    tree = source.tree(path)
    if tree is None:  # not a file fixes may edit
        return None, ()
    anchor: Optional[int] = None
    fallback: Optional[int] = None
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == module_name and alias.asname is None:
                    return module_name, ()
                if (alias.asname or alias.name.split(".")[0]) == module_name:
                    return None, ()
            anchor = anchor or stmt.lineno
        elif isinstance(stmt, ast.ImportFrom):
            if any((alias.asname or alias.name) == module_name for alias in stmt.names):
                return None, ()
            if stmt.module != "__future__":
                anchor = anchor or stmt.lineno
        elif _binds(stmt, module_name):
            return None, ()
        elif not (index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            fallback = fallback or first_line(stmt)
    line = anchor or fallback
    if line is None:
        return None, ()
    return module_name, (Edit(path, (line, 1), (line, 1), f"import {module_name}{source.newline(path)}"),)


def _binds(stmt: ast.stmt, name: str) -> bool:
    """A module-level statement that defines or assigns ``name``."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name == name
    targets = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    return any(isinstance(node, ast.Name) and node.id == name for target in targets for node in ast.walk(target))
