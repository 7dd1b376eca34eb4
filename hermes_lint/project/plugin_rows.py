"""Registration rows as syntax: what ``plugin_tools`` reads a register call through.

A row the evaluator computed becomes a node located where its value is written (``row_node``);
a loop's target is bound to a row's items (``bind_row``); names are replaced by what they are
bound to (``substitute``); a call's positional arguments become the keywords of
``register_tool``'s parameters (``as_keywords``), on a copy of its keywords (``own_keywords``),
never on the module's own tree. The names below are ones no source can spell, which the
evaluator is told the values of.
"""

from __future__ import annotations

import ast
import copy
import itertools
from typing import Dict, List, Optional

from hermes_lint.model.semantic import NESTED
from hermes_lint.project.registration_sites import PLUGIN_PARAMETERS

# The name a function-local import is given in a read registration: one no source can spell,
# followed by what it imports ("module.attr" as written).
LOCAL_IMPORT = "\N{WORD JOINER}local import "
# The name a registration's argument computed at run time is given (followed by the keyword).
LOCAL_VALUE = "\N{WORD JOINER}local value "
# The names of the rows of a table the evaluator computes (followed by a number).
TABLE_ROW = "\N{WORD JOINER}table row "


_ROW_NUMBERS = itertools.count()


def row_node(value, at: ast.expr, evaluator) -> ast.expr:
    """``value``, a row the evaluator computed, as a node located at ``at``: texts and numbers as
    literals, tuples and lists as displays of their items (so that ``for name, schema in ...``
    unpacks them), a function of the module as its name, anything else (a schema dict, an
    object) as a name the evaluator gives that very value, so that findings about its keys are
    located where the keys are written."""
    node: ast.expr
    function = evaluator.own_function(value)
    if function is not None and NESTED in function:  # a nested def: named where it is defined
        node = ast.Name(id=function, ctx=ast.Load())
        definition = value.node
        node.lineno, node.col_offset = definition.lineno, definition.col_offset
        keyword = "async def " if isinstance(definition, ast.AsyncFunctionDef) else "def "
        node.end_lineno, node.end_col_offset = definition.lineno, definition.col_offset + len(keyword) + len(definition.name)
        return node
    if function is not None:
        node = ast.Name(id=function, ctx=ast.Load())
    elif value is None or isinstance(value, (str, int, float, bool)):
        node = ast.Constant(value)
    elif isinstance(value, (list, tuple)):
        elts = [row_node(item, at, evaluator) for item in value]
        node = ast.Tuple(elts=elts, ctx=ast.Load()) if isinstance(value, tuple) else ast.List(elts=elts, ctx=ast.Load())
    else:
        name = f"{TABLE_ROW}{next(_ROW_NUMBERS)}"
        evaluator.add_value(name, value)
        node = ast.Name(id=name, ctx=ast.Load())
    ast.copy_location(node, at)
    node.end_lineno, node.end_col_offset = at.end_lineno, at.end_col_offset
    return node


def literal_node(value, at: ast.expr) -> Optional[ast.expr]:
    """``value`` (JSON-like data) as a literal node located at ``at``, or None."""
    node: Optional[ast.expr]
    if value is None or isinstance(value, (str, int, float, bool)):
        node = ast.Constant(value)
    elif isinstance(value, (list, tuple)):
        elts = [e for e in (literal_node(item, at) for item in value) if e is not None]
        if len(elts) != len(value):
            return None
        node = ast.Tuple(elts=elts, ctx=ast.Load()) if isinstance(value, tuple) else ast.List(elts=elts, ctx=ast.Load())
    elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
        keys = [ast.Constant(k) for k in value]
        values = [literal_node(v, at) for v in value.values()]
        if any(v is None for v in values):
            return None
        node = ast.Dict(keys=keys, values=values)  # type: ignore[arg-type]
    else:
        return None
    for child in ast.walk(node):
        if isinstance(child, ast.expr):
            ast.copy_location(child, at)
            child.end_lineno, child.end_col_offset = at.end_lineno, at.end_col_offset
    return node


_READING_BUILTINS = frozenset({"len", "isinstance", "str", "repr", "print", "sorted", "list", "tuple", "dict", "bool"})
# The methods of list, dict and set that change the container in place.
_MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "sort", "reverse", "update",
    "setdefault", "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",
    "__setitem__", "__delitem__", "__iadd__",
})


def mutated_names(nodes: List[ast.AST], registers) -> set:
    """Names that may be changed in place in the function of ``nodes`` (its ``ast.walk``):
    ``x[k] = v``, ``x.a = v``, ``x += y``,
    ``x.update(...)``, or ``x`` handed to a call (``_add_defaults(schema)``) other than a
    registration (``registers(call)``) or a builtin that only reads."""
    found = set()
    # names bound to a new container (a display, a comprehension, a call's result): a call
    # handed one may fill it in; a name bound to a part of a table or a string is not built here
    containers = {
        target.id for node in nodes if isinstance(node, ast.Assign)
        for target in node.targets if isinstance(target, ast.Name)
        and isinstance(node.value, (ast.Dict, ast.List, ast.Set, ast.Call, ast.DictComp, ast.ListComp, ast.SetComp))
    }
    for node in nodes:
        if isinstance(node, ast.Call) and not registers(node) and not (
            isinstance(node.func, ast.Name) and node.func.id in _READING_BUILTINS
        ):
            arguments = list(node.args) + [k.value for k in node.keywords]
            found |= {a.id for a in arguments if isinstance(a, ast.Name) and a.id in containers}
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node.value, ast.Name):
                found.add(node.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.attr in _MUTATING_METHODS):
            found.add(node.func.value.id)
    return found


def bind_row(target: ast.expr, row: ast.expr) -> Optional[Dict[str, ast.expr]]:
    if isinstance(target, ast.Name):
        return {target.id: row}
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(row, (ast.Tuple, ast.List)):
        if len(target.elts) != len(row.elts) or any(isinstance(e, ast.Starred) for e in row.elts):
            return None
        bound: Dict[str, ast.expr] = {}
        for part, value in zip(target.elts, row.elts):
            inner = bind_row(part, value)
            if inner is None:
                return None
            bound.update(inner)
        return bound
    return None


class _Substitute(ast.NodeTransformer):
    def __init__(self, bindings: Dict[str, ast.expr]):
        self.bindings = bindings

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.bindings:
            bound = self.bindings[node.id]
            if isinstance(bound, ast.Name) and bound.id.startswith(LOCAL_IMPORT):
                return ast.copy_location(ast.Name(id=bound.id, ctx=ast.Load()), node)  # where it is used
            return bound  # the row's own node: located in the table
        return node


def substitute_expr(node: ast.expr, bindings: Dict[str, ast.expr]) -> ast.expr:
    if not bindings:
        return node
    return _Substitute(bindings).visit(copy.deepcopy(node))


def substitute(call: ast.Call, bindings: Dict[str, ast.expr]) -> ast.Call:
    if not bindings:
        return call
    return _Substitute(bindings).visit(copy.deepcopy(call))


def own_keywords(call: ast.Call) -> ast.Call:
    keywords = [ast.copy_location(ast.keyword(arg=k.arg, value=k.value), k) for k in call.keywords]
    return ast.copy_location(ast.Call(func=call.func, args=list(call.args), keywords=keywords), call)


def as_keywords(call: ast.Call) -> ast.Call:
    """Positional arguments as the keywords of ``register_tool``'s parameters they fill."""
    if not call.args or any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(PLUGIN_PARAMETERS):
        return call
    keywords = []
    for name, value in zip(PLUGIN_PARAMETERS, call.args):
        keyword = ast.keyword(arg=name, value=value)
        ast.copy_location(keyword, value)
        keywords.append(keyword)
    result = ast.Call(func=call.func, args=[], keywords=keywords + list(call.keywords))
    return ast.copy_location(result, call)
