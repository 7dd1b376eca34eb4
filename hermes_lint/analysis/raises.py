"""Exception coverage: whether an enclosing ``try`` of the same function can catch a ``raise``.

When unsure, a raise counts as caught: a handler whose class comes from another module (or from
this one) may be a base of the raised class, and a ``with`` whose context manager's name says
it swallows exceptions (``contextlib.suppress``, a custom guard) may swallow it.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Dict, Optional

from hermes_lint.analysis.scopes import ancestors

TRY_NODES = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
# Context managers whose name says they swallow exceptions (contextlib.suppress, custom guards).
_SWALLOWING_CM = re.compile(r"suppress|ignore|catch|error|guard|boundary|safe|trap|swallow|handle", re.I)
_BUILTIN_EXCEPTIONS = {
    name: value for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def certainly_caught(raise_node: ast.Raise, parents: Dict[int, ast.AST]) -> bool:
    """True unless no enclosing ``try`` body of the function can catch it (unsure counts as caught)."""
    raised = raised_name(raise_node)
    child: ast.AST = raise_node
    for parent in ancestors(raise_node, parents):
        if isinstance(parent, TRY_NODES) and any(child is s for s in parent.body):
            for handler in parent.handlers:
                if _handler_may_catch(handler, raised):
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


def _handler_may_catch(handler: ast.ExceptHandler, raised: Optional[str]) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for t in types:
        if not isinstance(t, ast.Name) or t.id in ("Exception", "BaseException"):
            return True
        if raised is None or raised == t.id:
            return True
        caught, thrown = _BUILTIN_EXCEPTIONS.get(t.id), _BUILTIN_EXCEPTIONS.get(raised)
        if caught is None or thrown is None or issubclass(thrown, caught):
            return True  # a class of this or another module: it may be a subclass
    return False
