"""Edit ``toolsets.py`` with libcst so that only the inserted element changes.

libcst keeps every byte of whitespace and every comment, so an edit is a change of one list or
dict node and the rest of the file round-trips untouched. The new element copies the layout of
its neighbours: one per line stays one per line (a trailing comma stays, and is added to the new
line too), a one-line list stays on one line, a comment after the last element stays on that
element's line, and a new toolset entry is formatted like the existing entries.

Only literals are edited: ``TOOLSETS`` must be a module-level dict literal with string keys, and
the toolset's ``tools`` a list literal (or the name of a module-level list literal, such as
``_HERMES_CORE_TOOLS``). Anything else is a ``ToolsetsEditError`` saying what was found.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, Type, TypeVar, Union

import libcst as cst

from hermes_lint.edit.literals import string_literal, string_value

TOOLSETS_NAME = "TOOLSETS"
CORE_TOOLS_NAME = "_HERMES_CORE_TOOLS"
# Indentation added for an element on its own line when no sibling shows the file's own unit.
INDENT = "    "

Container = Union[cst.List, cst.Dict]
_Literal = TypeVar("_Literal", cst.Dict, cst.List)


class ToolsetsEditError(Exception):
    """toolsets.py cannot be edited safely; the message says what was found."""


@dataclass(frozen=True)
class ToolsetsEdit:
    source: bytes  # the new file; equal to the old one when nothing had to change
    changes: Tuple[str, ...]  # what was done, one line each, for the user


def add_tool(
    source: bytes,
    tool: str,
    toolset: str,
    *,
    core: bool = False,
    toolset_description: str = "",
    create_toolset: bool = True,
) -> ToolsetsEdit:
    """List ``tool`` in ``toolset`` (created when missing, unless ``create_toolset`` is false:
    then a missing toolset is a ``ToolsetsEditError``) and, with ``core``, in
    ``_HERMES_CORE_TOOLS``. A name already listed is left alone."""
    try:
        edit = _add_tool(source, tool, toolset, core, toolset_description, create_toolset)
    except RecursionError:  # libcst walks the tree recursively: a valid but deeply nested file
        raise ToolsetsEditError("it is nested too deeply for libcst to edit") from None
    return ToolsetsEdit(_same_final_newline(source, edit.source), edit.changes)


def _same_final_newline(old: bytes, new: bytes) -> bytes:
    """libcst's round trip drops the final newline of a file that ends lines with a lone CR
    (old Mac style): it is put back, so that only the inserted element changes."""
    if old.endswith(b"\r") and not new.endswith((b"\r", b"\n")):
        return new + b"\r"
    return new


def _add_tool(
    source: bytes, tool: str, toolset: str, core: bool, toolset_description: str, create_toolset: bool
) -> ToolsetsEdit:
    module = _parse(source)
    lists = _ListEdits()
    changes: List[str] = []
    toolsets = _module_literal(module, TOOLSETS_NAME, cst.Dict)
    entry = _literal_entries(module, toolsets, TOOLSETS_NAME).get(toolset)
    if entry is None and not create_toolset:
        raise ToolsetsEditError(f'it has no toolset "{toolset}"')
    if entry is None:
        element = _new_toolset_element(toolsets, tool, toolset, toolset_description)
        lists.replace(toolsets, append_element(toolsets, element))
        changes.append(f'created toolset "{toolset}" with tools ["{tool}"]')
    else:
        target_name, target = _tools_list_of(module, entry, toolset)
        if target_name != CORE_TOOLS_NAME or not core:  # --core below covers that list
            label = f'toolset "{toolset}"'
            if target_name is not None:
                label = f'{target_name} (the tools of toolset "{toolset}")'
            changes.append(lists.add(target, tool, label))
    if core:
        core_list = _module_literal(module, CORE_TOOLS_NAME, cst.List)
        changes.append(lists.add(core_list, tool, CORE_TOOLS_NAME))
    new_module = lists.apply(module)
    return ToolsetsEdit(new_module.bytes, tuple(changes))


# --------------------------------------------------------------------- finding the literals


def _parse(source: bytes) -> cst.Module:
    # ast first: its syntax errors are one clear line, libcst's a page of grammar.
    try:
        ast.parse(source)
    except SyntaxError as exc:
        raise ToolsetsEditError(f"it cannot be parsed (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:  # NUL bytes, bad encodings
        raise ToolsetsEditError(f"it cannot be parsed ({exc})") from None
    try:
        return cst.parse_module(source)
    except Exception as exc:  # syntax newer than this libcst understands
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ToolsetsEditError(f"libcst cannot parse it ({first_line})") from None


def _module_literal(module: cst.Module, name: str, kind: Type[_Literal]) -> _Literal:
    """The dict or list literal (``kind``) of the module-level ``name = ...``; a
    ``ToolsetsEditError`` saying what is there instead."""
    word, shape = ("dict", "{...}") if kind is cst.Dict else ("list", "[...]")
    value = _assigned_value(module, name)
    if value is None:
        raise ToolsetsEditError(f"it has no module-level `{name} = {shape}` assignment")
    if not isinstance(value, kind):
        raise ToolsetsEditError(f"{name} is not a {word} literal (it is `{_snippet(module, value)}`)")
    return value


def _assigned_value(module: cst.Module, name: str) -> Optional[cst.BaseExpression]:
    """The value of the last module-level ``name = ...`` (or ``name: T = ...``)."""
    found = None
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target = small.target
            else:
                continue
            if isinstance(target, cst.Name) and target.value == name:
                found = small.value
    return found


def _literal_entries(module: cst.Module, node: cst.Dict, where: str) -> Dict[str, cst.DictElement]:
    """String key -> element of a dict literal (the last one wins, as in Python)."""
    entries: Dict[str, cst.DictElement] = {}
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            raise ToolsetsEditError(
                f"{where} is not a plain dict literal: it spreads `{_snippet(module, element)}`"
            )
        key = string_value(element.key)
        if key is None:
            raise ToolsetsEditError(
                f"{where} has a key that is not a string literal: `{_snippet(module, element.key)}`"
            )
        entries[key] = element
    return entries


def _tools_list_of(
    module: cst.Module, entry: cst.DictElement, toolset: str
) -> Tuple[Optional[str], cst.List]:
    """The list literal holding the toolset's tools, and the name it is assigned to (None when
    written inside TOOLSETS)."""
    where = f'toolset "{toolset}"'
    if not isinstance(entry.value, cst.Dict):
        raise ToolsetsEditError(f"{where} is not a dict literal (it is `{_snippet(module, entry.value)}`)")
    tools = _literal_entries(module, entry.value, where).get("tools")
    if tools is None:
        raise ToolsetsEditError(f'{where} has no "tools" key')
    value = tools.value
    if isinstance(value, cst.List):
        return None, value
    if isinstance(value, cst.Name):
        named = _assigned_value(module, value.value)
        if isinstance(named, cst.List):
            return value.value, named
        raise ToolsetsEditError(
            f'the "tools" of {where} is `{value.value}`, which is not a module-level list literal'
        )
    raise ToolsetsEditError(
        f'the "tools" of {where} is not a list literal (it is `{_snippet(module, value)}`)'
    )


def _snippet(module: cst.Module, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(module.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------- applying the edits


class _ListEdits:
    """Replacements of container nodes, applied in one pass; a list edited twice (a toolset whose
    tools are ``_HERMES_CORE_TOOLS``, with ``--core``) is edited once."""

    def __init__(self) -> None:
        # Keyed by id(): the original nodes stay alive in the parsed module for the whole edit.
        self.replacements: Dict[int, cst.CSTNode] = {}

    def replace(self, original: cst.CSTNode, new: cst.CSTNode) -> None:
        self.replacements[id(original)] = new

    def add(self, target: cst.List, tool: str, label: str) -> str:
        current = self.replacements.get(id(target), target)
        assert isinstance(current, cst.List)  # a list's replacement is the list edited
        if any(string_value(element.value) == tool for element in current.elements):
            return f'"{tool}" is already listed in {label}'
        self.replace(target, append_element(current, cst.Element(_quoted(current, tool))))
        return f'added "{tool}" to {label}'

    def apply(self, module: cst.Module) -> cst.Module:
        if not self.replacements:
            return module
        replacements = self.replacements

        class Replace(cst.CSTTransformer):
            def on_leave(self, original_node, updated_node):
                return replacements.get(id(original_node), updated_node)

        return module.visit(Replace())


def _quoted(container: Container, text: str) -> cst.SimpleString:
    return cst.SimpleString(string_literal(text, _quote_of(container.elements)))


def _quote_of(elements) -> str:
    """The quote character the neighbours use (double quotes when none says)."""
    for element in elements:
        node = element.key if isinstance(element, cst.DictElement) else getattr(element, "value", None)
        if isinstance(node, cst.SimpleString) and node.prefix == "" and node.quote in ('"', "'"):
            return node.quote
    return '"'


# --------------------------------------------------------------------- layout-preserving append


def _brackets(node: Container):
    if isinstance(node, cst.List):
        return node.lbracket, node.rbracket
    return node.lbrace, node.rbrace


def _rebuild(node: Container, open_ws, elements, close_ws) -> Container:
    opening, closing = _brackets(node)
    opening = opening.with_changes(whitespace_after=open_ws)
    closing = closing.with_changes(whitespace_before=close_ws)
    if isinstance(node, cst.List):
        return node.with_changes(lbracket=opening, elements=elements, rbracket=closing)
    return node.with_changes(lbrace=opening, elements=elements, rbrace=closing)


def _new_line(indent: bool, last_line: str) -> cst.ParenthesizedWhitespace:
    """A line break followed by ``last_line`` of indentation, without comments."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=[],
        indent=indent,
        last_line=cst.SimpleWhitespace(last_line),
    )


def new_element_indent(node: Container) -> Optional[str]:
    """Indentation of an element appended to ``node`` on its own line; None when it goes on the
    line of the last element (a one-line container)."""
    opening, closing = _brackets(node)
    open_ws, close_ws = opening.whitespace_after, closing.whitespace_before
    elements = node.elements
    if not elements:
        if isinstance(open_ws, cst.ParenthesizedWhitespace):
            return open_ws.last_line.value + INDENT
        return None
    before_last = open_ws if len(elements) == 1 else _comma_of(elements[-2]).whitespace_after
    if isinstance(close_ws, cst.ParenthesizedWhitespace):
        if isinstance(before_last, cst.ParenthesizedWhitespace):
            return before_last.last_line.value
        return close_ws.last_line.value + INDENT
    return None


def _comma_of(element: Union[cst.BaseElement, cst.BaseDictElement]) -> cst.Comma:
    """The comma after an element that is not the last: libcst requires one there."""
    comma = element.comma
    assert isinstance(comma, cst.Comma)
    return comma


def append_element(node: Container, element) -> Container:
    """``node`` with ``element`` (a ``cst.Element`` or ``cst.DictElement``) appended.

    In libcst the whitespace after the last element (comments included) belongs to the closing
    bracket, and the whitespace before an element to the previous comma (or the opening bracket).
    """
    opening, closing = _brackets(node)
    open_ws, close_ws = opening.whitespace_after, closing.whitespace_before
    elements: List[Union[cst.BaseElement, cst.BaseDictElement]] = list(node.elements)
    indent = new_element_indent(node)
    if not elements:
        if indent is None:
            return _rebuild(node, open_ws, [element.with_changes(comma=cst.MaybeSentinel.DEFAULT)], close_ws)
        # `[` + newline: the element gets its own line, with a trailing comma, before the `]`.
        closing_line = _new_line(open_ws.indent, open_ws.last_line.value)
        return _rebuild(
            node,
            open_ws.with_changes(last_line=cst.SimpleWhitespace(indent)),
            [element.with_changes(comma=cst.Comma())],
            closing_line,
        )
    last = elements[-1]
    has_trailing_comma = isinstance(last.comma, cst.Comma)
    last_comma = last.comma if isinstance(last.comma, cst.Comma) else cst.Comma()
    if indent is not None:
        # Closing bracket on its own line: the new element is a new line right after the last
        # one; a comment on the last element's line stays there, and comment lines before the
        # closing bracket stay before it.
        assert isinstance(close_ws, cst.ParenthesizedWhitespace)  # what gave an indent
        after_last = cst.ParenthesizedWhitespace(
            first_line=close_ws.first_line,
            empty_lines=[],
            indent=close_ws.indent,
            last_line=cst.SimpleWhitespace(indent),
        )
        elements[-1] = last.with_changes(comma=last_comma.with_changes(whitespace_after=after_last))
        new_comma = cst.Comma() if has_trailing_comma else cst.MaybeSentinel.DEFAULT
        elements.append(element.with_changes(comma=new_comma))
        return _rebuild(node, open_ws, elements, close_ws.with_changes(first_line=cst.TrailingWhitespace()))
    # Closing bracket on the last element's line: same separator as between the others.
    before_last = open_ws if len(elements) == 1 else _comma_of(elements[-2]).whitespace_after
    separator: cst.BaseParenthesizableWhitespace
    if len(elements) == 1:
        separator = cst.SimpleWhitespace(" ")
    elif isinstance(before_last, cst.ParenthesizedWhitespace):
        separator = _new_line(before_last.indent, before_last.last_line.value)
    else:
        separator = before_last
    elements[-1] = last.with_changes(comma=last_comma.with_changes(whitespace_after=separator))
    elements.append(element.with_changes(comma=last.comma))
    return _rebuild(node, open_ws, elements, close_ws)


# --------------------------------------------------------------------- a new toolset entry


def _new_toolset_element(
    toolsets: cst.Dict, tool: str, toolset: str, description: str
) -> cst.DictElement:
    """``"toolset": {"description": ..., "tools": [tool], "includes": []}`` formatted like the
    existing entries: one line or one key per line, and the same for the tools list."""
    quote = _quote_of(toolsets.elements)
    base = new_element_indent(toolsets)
    entry_model, tools_model = _layout_models(toolsets)
    if entry_model is not None:
        multiline = isinstance(entry_model.lbrace.whitespace_after, cst.ParenthesizedWhitespace)
    else:
        multiline = base is not None
    base = base or ""
    inner = base + INDENT
    if entry_model is not None and isinstance(entry_model.lbrace.whitespace_after, cst.ParenthesizedWhitespace):
        inner = entry_model.lbrace.whitespace_after.last_line.value  # multiline, from the model
    tools_indent = inner + INDENT
    if tools_model is None:
        tools_multiline = multiline
    else:
        tools_open = tools_model.lbracket.whitespace_after
        tools_multiline = isinstance(tools_open, cst.ParenthesizedWhitespace)
        if isinstance(tools_open, cst.ParenthesizedWhitespace):
            tools_indent = tools_open.last_line.value

    def q(text: str) -> str:
        return string_literal(text, quote)

    if tools_multiline and multiline:
        tools_text = f"[\n{tools_indent}{q(tool)},\n{inner}]"
    else:
        tools_text = f"[{q(tool)}]"
    items = [
        f"{q('description')}: {q(description)}",
        f"{q('tools')}: {tools_text}",
        f"{q('includes')}: []",
    ]
    if multiline:
        value_text = "{\n" + "".join(f"{inner}{item},\n" for item in items) + base + "}"
    else:
        value_text = "{" + ", ".join(items) + "}"
    return cst.DictElement(key=cst.SimpleString(q(toolset)), value=cst.parse_expression(value_text))


def _layout_models(toolsets: cst.Dict) -> Tuple[Optional[cst.Dict], Optional[cst.List]]:
    """The last entry written as a dict literal, and the last ``"tools"`` list literal."""
    entry_model = tools_model = None
    for element in toolsets.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(element.value, cst.Dict):
            continue
        entry_model = element.value
        for item in element.value.elements:
            if (
                isinstance(item, cst.DictElement)
                and string_value(item.key) == "tools"
                and isinstance(item.value, cst.List)
                and item.value.elements  # an empty list shows nothing of the layout
            ):
                tools_model = item.value
    return entry_model, tools_model
