"""Where a tool registered by a helper of another module is written: in the module that calls it.

A package may register every tool through one helper (``register_with_ctx(ctx, transfer)`` in
each tool module, ``ctx.register_tool(name=meta["name"], ...)`` in the helper's module), which
``plugin_tools`` reads once per call site (``plugin_arguments.remote_site``). The tool's name,
toolset and schema are then computed from what the calling module passes, often the arguments of
a decorator of the function it passes (``@write_tool(name="transfer", schema=SCHEMA)``). A
finding about one of them belongs there, not at the helper's ``register_tool`` call that all the
tools share: each is located at the decorator argument of that name whose value is the one
registered, else at the call site in the calling module. Findings about the keys of a schema are
located where the keys are written already (``evaluate.locations``).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Any, Dict, Optional, Tuple

from hermes_lint.model import Keyword, Location, Registration, Unresolved

# the registration's values that the calling module decides
_DECIDED_THERE = ("name", "toolset", "schema")
SITE_ATTRIBUTE = "hermes_remote_site"  # set on a read register call by ``plugin_tools``


def relocated(registration: Registration, call: ast.Call, evaluator: Any) -> Registration:
    """``registration`` (read from ``call``) with its name, toolset and schema arguments located
    in the module whose call site it was read for, when it was read for one."""
    site = getattr(call, SITE_ATTRIBUTE, None)
    if site is None or not hasattr(evaluator, "call_site_arguments"):
        return registration
    line, col, _, module, pairs = site
    found = evaluator.call_site_arguments(module, line, col, tuple(name for _, name in pairs))
    if found is None:
        return registration
    at_call, arguments = found
    values = {"name": registration.name, "toolset": registration.toolset, "schema": registration.schema}
    keywords = []
    for keyword in registration.keywords:
        if keyword.name in _DECIDED_THERE:
            where = _written(arguments, keyword.name, values[keyword.name]) or at_call
            keyword = Keyword(keyword.name, where, where)
        keywords.append(keyword)
    return replace(registration, keywords=tuple(keywords))


def _written(arguments: Dict[str, Tuple[Location, Any]], name: str, value: Any) -> Optional[Location]:
    """The location of the decorator argument ``name`` when its value is ``value``."""
    if isinstance(value, Unresolved) or name not in arguments:
        return None
    location, written = arguments[name]
    try:
        return location if written == value else None
    except Exception:  # noqa: BLE001 - values of the evaluator that refuse comparison
        return None
