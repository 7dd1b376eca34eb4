"""Import discovery: importing every tool module of a tools directory, as upstream Hermes does.

``tools.registry.discover_builtin_tools`` comes here without a usable manifest, and the manifest
loader for the modules it imports (stale or import-only ones). Kept out of ``tools.registry``,
which every start compiles (often without a ``.pyc``): a start from a fresh manifest never runs
this code. The predicate is ``hermes_lint.discovery``'s, shared with the linter.
"""

from __future__ import annotations

from tools.registry import _importlib, _logger

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path


def import_tool_modules(tools_path: str) -> list[str]:
    """Import every tool module of ``tools_path`` as ``tools.<stem>``, in sorted file order,
    and return the names of those that imported."""
    from hermes_lint.discovery import candidate_tool_paths

    module_names = [
        f"tools.{path.stem}"
        for path in candidate_tool_paths(tools_path)
        if regular_tool_file(path) and module_registers_tools(path)
    ]
    return [module_name for module_name in module_names if import_tool_module(module_name)]


def is_registry_register_call(node: object) -> bool:
    """True for a statement ``registry.register(...)`` (an expression statement), as upstream."""
    import ast

    from hermes_lint.discovery import is_registry_register_call as is_call

    return isinstance(node, ast.Expr) and is_call(node.value)


def module_registers_tools(module_path: str | Path) -> bool:
    """True when the file is a tool module: a top-level ``registry.register(...)`` statement.
    The one predicate of ``hermes_lint.discovery``."""
    from hermes_lint.discovery import module_registers_tools as registers

    return registers(module_path)


def regular_tool_file(path: str | Path) -> bool:
    """False, with a warning, for a candidate that is not a regular file: reading a FIFO blocks
    forever and a link to /dev/zero never ends."""
    from hermes_lint.discovery import is_regular_file

    if is_regular_file(path):
        return True
    _logger().warning("Skipping tool module %s: not a regular file", path)
    return False


def import_tool_module(module_name: str) -> bool:
    """Import one tool module as discovery does: a failure is a logged warning."""
    try:
        _importlib().import_module(module_name)
    except Exception as exc:
        _logger().warning("Could not import tool module %s: %s", module_name, exc)
        return False
    return True
