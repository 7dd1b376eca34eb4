"""A module's registrations compared with what they list in ``requires_env``: each variable a
tool needs and does not list (``EnvAnalysis.unlisted``), and each listed variable nothing in the
module reads, with the place a finding points at (the list element that names it).

A registration whose ``requires_env`` is computed at run time (or is not a list of strings) is
left out: there is nothing to compare with. A plugin's tools also list what the plugin's
``plugin.yaml`` declares in its ``requires_env``, which the caller reads (the project layer is
above this one) and hands down as a function called on the first plugin registration.
"""

from __future__ import annotations

import ast
from typing import Callable, List, NamedTuple, Optional, Tuple

from hermes_lint.model.callables import register_argument
from hermes_lint.model.context import ModuleContext
from hermes_lint.model.env_access import EnvAccessIndex
from hermes_lint.model.env_requirements import EnvAnalysis, Unlisted
from hermes_lint.model.semantic import CallableNode
from hermes_lint.model import Location, Registration, Unresolved

_ABSENT = object()


class Mismatch(NamedTuple):
    """One variable of one registration: needed and not listed (``unlisted`` says why), or
    listed and never checked (``unlisted`` None)."""

    registration: Registration
    where: Location
    name: str
    unlisted: Optional[Unlisted]
    check: Optional[CallableNode]  # the check_fn, as the module defines it


def requires_env_mismatches(ctx: ModuleContext, plugin_declared: Callable[[], Tuple[str, ...]]) -> List[Mismatch]:
    """Every ``Mismatch`` of the module's registrations, registration by registration;
    ``plugin_declared()``: the variables the plugin.yaml of the module's plugin declares."""
    analysis = EnvAnalysis.of(ctx)
    pairs = [(reg, call) for reg, call in ctx.registration_calls() if not reg.has_star_args]
    listed_nodes: List[ast.AST] = [
        node for _, call in pairs if (node := register_argument(call, "requires_env")) is not None
    ]
    read_names = {read.name for read in ctx.facts.env_reads}
    declared_by_plugin: Optional[Tuple[str, ...]] = None
    found: List[Mismatch] = []
    for registration, call in pairs:
        listed = registration.value("requires_env", _ABSENT)
        if listed is _ABSENT or listed is None:
            listed = None
        elif not isinstance(listed, (list, tuple)) or not all(isinstance(v, str) for v in listed):
            continue  # computed at run time (Unresolved) or malformed: nothing to compare with
        names = set(listed or ())
        if registration.plugin:  # a plugin's plugin.yaml declares what the whole plugin needs
            if declared_by_plugin is None:
                declared_by_plugin = plugin_declared()
            names.update(declared_by_plugin)
        check = ctx.semantic.callable_node(register_argument(call, "check_fn"))
        handler = ctx.semantic.callable_node(register_argument(call, "handler"))
        given = register_argument(call, "check_fn") is not None
        for unlisted in analysis.unlisted(check, handler, names, check_given=given):
            found.append(Mismatch(registration, unlisted.where, unlisted.name, unlisted, check))
        if not listed or check is None or not analysis.check_is_closed(check):
            continue
        if EnvAccessIndex.of(ctx).has_unnamed_access():
            continue
        node = register_argument(call, "requires_env")
        for position, name in enumerate(listed):
            if name in read_names or analysis.mentioned_elsewhere(name, listed_nodes):
                continue
            where = _element_location(ctx, registration, node, listed, position)
            found.append(Mismatch(registration, where, name, None, check))
    return found


def _element_location(
    ctx: ModuleContext, registration: Registration, node: Optional[ast.expr], listed, position: int
) -> Location:
    """Where element ``position`` of the ``requires_env`` value is written."""
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == len(listed):
        return ctx.loc(node.elts[position])
    located = ctx.evaluator.locations_of(listed) if not isinstance(listed, Unresolved) else {}
    if (position,) in located:
        return located[(position,)]
    keyword = registration.keyword("requires_env")
    if keyword is not None:
        return keyword.value_location
    return ctx.loc(node) if node is not None else registration.location

