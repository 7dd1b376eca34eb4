"""The arguments a plugin's helper is handed where ``register`` calls it, as far as they can be read.

A helper that receives the context often receives its table too::

    def register(ctx):
        _add_all(ctx, CORE_SCHEMAS)
        _add_all(ctx, EXTRA_SCHEMAS)

    def _add_all(ctx, schemas):
        for name, schema in schemas.items():
            ctx.register_tool(name=name, toolset="t", schema=schema, handler=...)

``plugin_tools`` reads the helper once per call site with its parameters bound to that call's
arguments (``schemas`` is ``CORE_SCHEMAS``, then ``EXTRA_SCHEMAS``). A parameter is bound only
where that is exact: the call sites are calls of the helper by name in its own module
(``plugin_register.RegisterFunction.call_sites``), the helper never rebinds the parameter, and
the argument names nothing local to the calling function (a module constant or import means the
same in both functions; a caller's local would not). A helper of another module called by name
(``register_with_ctx(ctx, transfer)`` in each tool module of a package) is read once per call
site too, with each parameter the call passes a module-level name of the calling module bound to
that name as the calling module's (an import of ``<calling module>.<name>``, evaluated there:
``remote_site``). Anything else leaves the parameter unbound: a value computed at run time, as
before.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def remote_site(caller: Any, call: ast.Call, positional: List[str]) -> Optional[tuple]:
    """The call site ``call`` (in ``caller``, a ``plugin_names.ModuleSyntax``) of a function of
    another module whose positional parameters are ``positional``: (line, col, path, dotted
    module, ((parameter, name), ...)) for the arguments that are names the calling function does
    not bind (module-level names of the caller); None when an argument is starred."""
    local = _locals(_enclosing_function(caller.tree, call))
    pairs = []
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return None
        if position < len(positional) and isinstance(argument, ast.Name) and argument.id not in local:
            pairs.append((positional[position], argument.id))
    pairs += [(k.arg, k.value.id) for k in call.keywords
              if k.arg is not None and isinstance(k.value, ast.Name) and k.value.id not in local]
    return (call.lineno, call.col_offset, caller.path, caller.name, tuple(pairs))


def call_site_bindings(tree: ast.Module, function: FunctionNode, context: str,
                       call_sites: Optional[Sequence[Tuple[Any, ...]]],
                       imported: Optional[Callable[[str, str], ast.expr]] = None
                       ) -> List[Tuple[Optional[str], Dict[str, ast.expr], Optional[tuple]]]:
    """(where the call site is, binding of ``function``'s parameters, the site when it is in
    another module) per call site; ``[(None, {}, None)]`` when none can be read: one reading
    with every parameter unknown. ``imported(module, name)`` gives the expression that is
    ``name`` of another module (a site in another module is read only with it)."""
    if not call_sites:
        return [(None, {}, None)]
    arguments = function.args
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    named = set(positional) | {a.arg for a in arguments.kwonlyargs}
    rebound = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    used = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    wanted = (named & used) - rebound - {context}
    if not wanted:
        return [(None, {}, None)]
    calls = {(n.lineno, n.col_offset): n for n in ast.walk(tree) if isinstance(n, ast.Call)}
    bindings: List[Dict[str, ast.expr]] = []
    places: List[str] = []
    for site in call_sites:
        if len(site) == 5:  # in another module: the names it passes, as that module's
            if imported is None:
                return [(None, {}, None)]
            line, _, path, module, pairs = site
            places.append(f"{path}:{line}")
            bindings.append({parameter: imported(module, name) for parameter, name in pairs if parameter in wanted})
            continue
        call = calls.get(tuple(site))
        if call is None:
            return [(None, {}, None)]
        places.append(f"line {site[0]}")
        caller = _locals(_enclosing_function(tree, call))
        bound: Dict[str, ast.expr] = {}
        for position, argument in enumerate(call.args):
            if isinstance(argument, ast.Starred):
                break  # later arguments' parameters are not known
            if position < len(positional):
                bound[positional[position]] = argument
        for keyword in call.keywords:
            if keyword.arg is not None:
                bound[keyword.arg] = keyword.value
        bindings.append({
            parameter: argument for parameter, argument in bound.items()
            if parameter in wanted and _free_of(argument, caller)
        })
    if not any(bindings):
        return [(None, {}, None)]
    return [(place if len(bindings) > 1 else None, binding, site if len(site) == 5 else None)
            for place, binding, site in zip(places, bindings, call_sites)]


def _free_of(argument: ast.expr, local: Set[str]) -> bool:
    """``argument`` uses no name local to the calling function and binds none itself."""
    for node in ast.walk(argument):
        if isinstance(node, ast.Name) and (node.id in local or not isinstance(node.ctx, ast.Load)):
            return False
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return False
    return True


def _enclosing_function(tree: ast.Module, node: ast.AST) -> Optional[FunctionNode]:
    """The innermost function whose body holds ``node``."""
    line = getattr(node, "lineno", 0)
    found: Optional[FunctionNode] = None
    for candidate in ast.walk(tree):
        if (isinstance(candidate, (ast.FunctionDef, ast.AsyncFunctionDef))
                and candidate.lineno <= line <= (candidate.end_lineno or candidate.lineno)
                and (found is None or candidate.lineno >= found.lineno)):
            found = candidate  # nested definitions start later than the ones holding them
    return found


def _locals(function: Optional[FunctionNode]) -> Set[str]:
    """Every name ``function`` binds: parameters, assignments, imports, nested definitions."""
    if function is None:
        return set()
    names = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not function:
            names.add(node.name)
    return names
