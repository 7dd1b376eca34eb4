"""Which files are tool modules: the one predicate shared by the runtime and the linter.

Standard library only. ``tools/registry.py`` imports this module on every start, often with no
``.pyc`` to load, so it imports nothing at module level: ``ast`` only when a file actually has to
be parsed, ``pathlib`` only for the functions that return ``Path`` objects.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from os import PathLike
    from pathlib import Path

# Files in tools/ that are never tool modules: the package marker, the registry itself, and the
# MCP bridge (it registers tools dynamically at run time, not at import).
SKIPPED_FILE_NAMES = frozenset({"__init__.py", "registry.py", "mcp_tool.py"})


def is_registry_register_call(node: ast.AST) -> bool:
    """True for a call spelled exactly ``registry.register(...)``."""
    import ast

    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "register"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "registry"
    )


def tree_registers_tools(tree: ast.Module) -> bool:
    """True when a statement of the module body is a ``registry.register(...)`` expression.

    Only top-level expression statements count: that is what runs on import. A call inside
    ``if``/``try``/``def``, or assigned to a name, does not make the file a tool module.
    """
    import ast

    return any(
        isinstance(stmt, ast.Expr) and is_registry_register_call(stmt.value) for stmt in tree.body
    )


def text_may_register_tools(text: str | bytes) -> bool:
    """Cheap prefilter: a tool module must at least mention both words."""
    if isinstance(text, bytes):
        return b"registry" in text and b"register" in text
    return "registry" in text and "register" in text


def source_registers_tools(text: str | bytes) -> bool:
    """The full predicate on a file's contents; unparsable text is not a tool module."""
    if not text_may_register_tools(text):
        return False
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return tree_registers_tools(tree)


def is_regular_file(path: str | Path) -> bool:
    """True when ``path`` (links followed) is a regular file. A FIFO blocks its reader forever
    and a link to ``/dev/zero`` never ends: neither is ever a tool module."""
    import os
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_regular_file(path: str | PathLike[str]) -> bytes:
    """The contents of the regular file at ``path`` (links followed); ``OSError`` for anything
    else, unread: a FIFO blocks its reader forever and a link to ``/dev/zero`` never ends.
    ``os.read`` on the descriptor: about twice as fast as ``open()`` and its buffered reader for
    the many small files a runtime start hashes."""
    import os
    import stat

    # O_NONBLOCK: opening a FIFO would otherwise wait for a writer before fstat could tell.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path}: not a regular file")
        chunks = [os.read(fd, info.st_size + 1)]
        while chunks[-1]:  # a file that grew since fstat, or a short read
            chunks.append(os.read(fd, 1 << 16))
    finally:
        os.close(fd)
    return b"".join(chunks)


def module_registers_tools(path: str | Path) -> bool:
    """True when the file at ``path`` is a tool module (see ``tree_registers_tools``); a file
    that is not regular never is, and is not read (see ``read_regular_file``)."""
    try:
        data = read_regular_file(path)
    except (OSError, ValueError):
        return False
    return source_registers_tools(data)


def candidate_tool_file_names(tools_dir: str | Path) -> list[str]:
    """The names of ``tools_dir/*.py`` in sorted order, without the files that are never tool
    modules: ``candidate_tool_paths`` as strings, for callers that need no ``Path``.

    Like ``Path.glob``: a missing or unreadable directory has none; the order and the ``.py``
    match follow the platform's case rules (``os.path.normcase``), as ``Path`` comparisons do.
    """
    import os

    try:
        names = os.listdir(tools_dir)
    except OSError:
        return []
    normcase = os.path.normcase
    candidates = (
        name for name in names if normcase(name).endswith(".py") and name not in SKIPPED_FILE_NAMES
    )
    return sorted(candidates, key=normcase)


def candidate_tool_paths(tools_dir: str | Path) -> list[Path]:
    """``tools_dir/*.py`` in sorted order, without the files that are never tool modules."""
    from pathlib import Path

    directory = Path(tools_dir)
    return [directory / name for name in candidate_tool_file_names(tools_dir)]
