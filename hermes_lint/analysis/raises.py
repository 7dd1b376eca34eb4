"""Exception coverage: whether an enclosing ``try`` of the same function can catch a ``raise``.

When unsure, a raise counts as caught: a handler whose class comes from another module (or from
this one) may be a base of the raised class, and a ``with`` whose context manager's name says
it swallows exceptions (``contextlib.suppress``, a custom guard) may swallow it.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, Optional

from hermes_lint.model.scopes import ancestors
from hermes_lint.model.semantic import TRY_NODES, SemanticModel

# Context managers whose name says they swallow exceptions (contextlib.suppress, custom guards).
_SWALLOWING_CM = re.compile(r"suppress|ignore|catch|error|guard|boundary|safe|trap|swallow|handle", re.I)


def certainly_caught(raise_node: ast.Raise, parents: Dict[int, ast.AST]) -> bool:
    """True unless no enclosing ``try`` body of the function can catch it (unsure counts as caught)."""
    raised = raised_name(raise_node)
    child: ast.AST = raise_node
    for parent in ancestors(raise_node, parents):
        if isinstance(parent, TRY_NODES) and any(child is s for s in parent.body):
            for handler in parent.handlers:
                if SemanticModel.handler_catches(handler, raised):
                    return True
        if isinstance(parent, (ast.With, ast.AsyncWith)) and any(
            _SWALLOWING_CM.search(ast.unparse(item.context_expr)) for item in parent.items
        ):
            return True
        child = parent
    return False


def raised_name(node: ast.Raise) -> Optional[str]:
    """``ValueError`` for ``raise ValueError(...)`` or ``raise ValueError``; None otherwise."""
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    return exc.id if isinstance(exc, ast.Name) else None
