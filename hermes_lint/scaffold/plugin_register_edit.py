"""The ``__init__.py`` edit of ``new-tool`` in a plugin: one import of the new tool module and one
``ctx.register_tool(...)`` call at the end of ``register(ctx)``, everything else byte for byte as
it was (libcst keeps the file's formatting)."""

from __future__ import annotations

from typing import Dict, List, Sequence

import libcst as cst

from hermes_lint.scaffold.tool import ScaffoldError


def _register_function(module: cst.Module) -> cst.FunctionDef:
    found = [
        statement
        for statement in module.body
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "register"
    ]
    if len(found) != 1:
        raise ScaffoldError("no single top-level `def register(ctx)` in the plugin's __init__.py: add the tool by hand")
    function = found[0]
    if function.asynchronous is not None or not function.params.params:
        raise ScaffoldError("the plugin's register does not take the context as its first parameter: add the tool by hand")
    if not isinstance(function.body, cst.IndentedBlock):
        raise ScaffoldError("the plugin's register is written on one line: add the tool by hand")
    return function


def add_registration(data: bytes, name: str, values: Dict[str, str], toolset: str) -> bytes:
    """``data`` (an ``__init__.py``) importing the new tool module and registering its tool."""
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as exc:
        raise ScaffoldError(f"the plugin's __init__.py does not parse (line {exc.raw_line}): fix it first") from None
    function = _register_function(module)
    context = function.params.params[0].name.value
    call = cst.parse_statement(
        f"{context}.register_tool(\n"
        f'    name="{name}",\n'
        f'    toolset="{toolset}",\n'
        f"    schema={values['schema_const']},\n"
        f"    handler={values['handler']},\n"
        f"    check_fn={values['check_fn']},\n"
        f")\n",
        config=module.config_for_parsing,
    )
    body = function.body
    assert isinstance(body, cst.IndentedBlock)
    new_function = function.with_changes(body=body.with_changes(body=[*body.body, call]))
    imported = cst.parse_statement(
        f"from .{name}_tool import {values['schema_const']}, {values['check_fn']}, {values['handler']}\n",
        config=module.config_for_parsing,
    )
    statements: List[cst.BaseStatement] = []
    for statement in module.body:
        statements.append(new_function if statement is function else statement)
    statements.insert(_after_imports(module.body), imported)
    return module.with_changes(body=statements).code.encode("utf-8")


def _after_imports(body: Sequence[cst.BaseStatement]) -> int:
    """The index after the module's leading docstring, ``__future__`` and other imports."""
    position = 0
    for index, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and all(
            isinstance(small, (cst.Import, cst.ImportFrom))
            or (isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString) and index == 0)
            for small in statement.body
        ):
            position = index + 1
        else:
            break
    return position
