"""Which files are tool modules: the one predicate shared by the runtime and the linter.

Standard library only. ``tools/registry.py`` imports this module, so everything here must stay
cheap to import and free of third-party dependencies; ``ast`` is imported only when a file
actually has to be parsed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, List, Union

if TYPE_CHECKING:  # pragma: no cover
    import ast

# Files in tools/ that are never tool modules: the package marker, the registry itself, and the
# MCP bridge (it registers tools dynamically at run time, not at import).
SKIPPED_FILE_NAMES = frozenset({"__init__.py", "registry.py", "mcp_tool.py"})


def is_registry_register_call(node: "ast.AST") -> bool:
    """True for a call spelled exactly ``registry.register(...)``."""
    import ast

    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "register"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "registry"
    )


def tree_registers_tools(tree: "ast.Module") -> bool:
    """True when a statement of the module body is a ``registry.register(...)`` expression.

    Only top-level expression statements count: that is what runs on import. A call inside
    ``if``/``try``/``def``, or assigned to a name, does not make the file a tool module.
    """
    import ast

    return any(
        isinstance(stmt, ast.Expr) and is_registry_register_call(stmt.value) for stmt in tree.body
    )


def text_may_register_tools(text: Union[str, bytes]) -> bool:
    """Cheap prefilter: a tool module must at least mention both words."""
    if isinstance(text, bytes):
        return b"registry" in text and b"register" in text
    return "registry" in text and "register" in text


def source_registers_tools(text: Union[str, bytes]) -> bool:
    """The full predicate on a file's contents; unparsable text is not a tool module."""
    if not text_may_register_tools(text):
        return False
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return tree_registers_tools(tree)


def module_registers_tools(path: Union[str, Path]) -> bool:
    """True when the file at ``path`` is a tool module (see ``tree_registers_tools``)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False
    return source_registers_tools(data)


def candidate_tool_paths(tools_dir: Union[str, Path]) -> List[Path]:
    """``tools_dir/*.py`` in sorted order, without the files that are never tool modules."""
    return [
        path
        for path in sorted(Path(tools_dir).glob("*.py"))
        if path.name not in SKIPPED_FILE_NAMES
    ]
