"""The syntax passed for one parameter of a ``registry.register(...)`` call.

``CallableRef`` (in the facts) says what kind of thing a ``handler=``/``check_fn=`` argument is;
module rules that follow the code itself need its node (and ``SemanticModel.callable_node`` the
function or lambda it certainly denotes).
"""

from __future__ import annotations

import ast
from typing import Optional

# ToolRegistry.register's parameters, in order: positional arguments map onto these (the
# built-in contract; a project's own registry module may say otherwise: ``project.registry_contract``).
REGISTER_PARAMETERS = (
    "name",
    "toolset",
    "schema",
    "handler",
    "check_fn",
    "requires_env",
    "is_async",
    "description",
    "emoji",
    "max_result_size_chars",
    "dynamic_schema_overrides",
    "override",
)
REQUIRED_PARAMETERS = ("name", "toolset", "schema", "handler")


def register_argument(call: ast.Call, name: str) -> Optional[ast.expr]:
    """The node passed for parameter ``name`` of ``registry.register``, by keyword or position."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    position = REGISTER_PARAMETERS.index(name)
    if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None
