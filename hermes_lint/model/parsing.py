"""Parse: read a file's bytes into its syntax tree, once, the one way every part decodes and
parses a file. Nothing is imported or executed.

``parse_module`` gives the syntax (for module rules, extraction and the evaluator's reads of
other project modules); every failure is an ``error`` (HRM001), never an exception.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from dataclasses import dataclass, replace
from typing import List, Optional, Tuple, Union

from hermes_lint.discovery import tree_registers_tools

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_source_lines(source: str) -> List[str]:
    """Split ``source`` into lines exactly as Python's tokenizer numbers them.

    ``str.splitlines`` also breaks at form feeds, ``\\x1c``-``\\x1e``, ``\\x85`` and ``\\u2028``/
    ``\\u2029``, which Python does not; a description containing one would shift every later line.
    """
    return _LINE_BREAK.split(source)


@dataclass
class ParsedModule:
    """A file read and parsed, or the reason it could not be."""

    path: str
    data: bytes
    text: str
    lines: List[str]
    tree: Optional[ast.Module]
    error: Optional[Tuple[int, int, str]]  # (line, col, message) when unreadable/unparsable
    # Whether the compiler's check ran (``compile_checked``): always for a tool module.
    compiled: bool = False

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def _decode_error_position(data: bytes, exc: UnicodeDecodeError) -> Tuple[int, int]:
    before = data[: exc.start]
    line = before.count(b"\n") + 1
    col = len(before) - (before.rfind(b"\n") + 1) + 1
    return line, col


def parse_module(path: str, data: bytes) -> ParsedModule:
    """Decode and parse ``data``; every failure becomes ``error`` (HRM001), never an exception."""

    def failed(line: int, col: int, message: str, text: str = "") -> ParsedModule:
        return ParsedModule(path, data, text, split_source_lines(text), None, (line, col, message))

    try:
        # Honours a BOM and a PEP 263 coding cookie, as the interpreter does.
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except SyntaxError as exc:
        try:  # usually undecodable bytes in the first two lines: say where
            data.decode("utf-8")
        except UnicodeDecodeError as decode_error:
            line, col = _decode_error_position(data, decode_error)
            return failed(line, col, f"file is not valid UTF-8: {decode_error.reason}")
        return failed(1, 1, f"cannot be decoded: {exc.msg}")
    except LookupError as exc:
        return failed(1, 1, f"cannot be decoded: {exc}")
    except UnicodeDecodeError as exc:
        line, col = _decode_error_position(data, exc)
        return failed(line, col, f"file is not valid {exc.encoding.upper()}: {exc.reason}")
    if "\x00" in text:
        offset = text.index("\x00")
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return failed(line, col, "file contains a NUL byte", text)
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return failed(exc.lineno or 1, exc.offset or 1, f"syntax error: {exc.msg}", text)
    except (RecursionError, MemoryError):
        return failed(1, 1, "file is too deeply nested to parse", text)
    except ValueError as exc:
        return failed(1, 1, f"cannot be parsed: {exc}", text)
    # Only a tool module (or a plugin's, ``compile_checked``) is imported and frozen: the
    # compiler's time is spent on those.
    parsed = ParsedModule(path, data, text, split_source_lines(text), tree, None)
    return compile_checked(parsed) if tree_registers_tools(tree) else parsed


def compile_checked(parsed: ParsedModule) -> ParsedModule:
    """``parsed`` with the compiler's check made (``_compile_error``): the module as HRM001
    when the compiler rejects it. Tool modules get it from ``parse_module``; a plugin's
    register module, which Hermes's plugin loader imports as discovery imports a tool module,
    gets it once the project's plugins say it is one."""
    if parsed.tree is None or parsed.compiled:
        return parsed
    problem = _compile_error(parsed.tree, parsed.path)
    if problem is not None:
        return ParsedModule(parsed.path, parsed.data, parsed.text, parsed.lines, None, problem, compiled=True)
    return replace(parsed, compiled=True)


def _compile_error(tree: ast.Module, path: str) -> Optional[Tuple[int, int, str]]:
    """What the compiler rejects in a module that parses (``return`` or ``yield`` outside a
    function, a repeated parameter or keyword, a late ``from __future__`` import, ``nonlocal``
    without a binding...): importing it would fail, so it is HRM001 and never frozen into the
    manifest. The syntax tree is compiled, never run; the code objects are dropped.

    One top-level statement at a time: CPython compiles a module of thousands of lambdas in
    quadratic time (10,000 registrations: 7 s at once, linear this way). What only the whole
    module decides, the place of ``from __future__`` imports, is checked here; their flags are
    passed on to the statements after them."""
    import __future__
    import warnings

    flags = 0
    in_prologue = True  # the docstring and the __future__ imports
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings are not errors (`x is 1`)
        for index, stmt in enumerate(tree.body):
            is_future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" and not stmt.level
            is_docstring = (
                index == 0 and isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
            )
            if is_future and not in_prologue:
                return stmt.lineno, stmt.col_offset + 1, (
                    "syntax error: from __future__ imports must occur at the beginning of the file"
                )
            in_prologue = in_prologue and (is_future or is_docstring)
            try:
                compile(ast.Module(body=[stmt], type_ignores=[]), path, "exec", flags=flags, dont_inherit=True)
            except SyntaxError as exc:
                return exc.lineno or 1, exc.offset or 1, f"syntax error: {exc.msg}"
            except (RecursionError, MemoryError):
                return 1, 1, "file is too deeply nested to compile"
            except ValueError as exc:
                return 1, 1, f"cannot be compiled: {exc}"
            if is_future and isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    feature = getattr(__future__, alias.name, None)
                    flags |= getattr(feature, "compiler_flag", 0)
    return None


# The nodes that carry a source position (ast.AST itself declares none).
Positioned = Union[ast.expr, ast.stmt, ast.keyword, ast.arg]


def source_segment(lines: List[str], node: Positioned) -> str:
    """The source text of ``node`` from already-split lines.

    ``ast.get_source_segment`` re-splits the whole file on every call, which profiling showed
    dominating extraction; columns are UTF-8 byte offsets, so slice bytes.
    """
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    if not (0 <= first <= last < len(lines)):
        return ast.dump(node)
    chunk = [line.encode("utf-8") for line in lines[first : last + 1]]
    if first == last:
        return chunk[0][node.col_offset : node.end_col_offset].decode("utf-8", "replace")
    chunk[0] = chunk[0][node.col_offset :]
    chunk[-1] = chunk[-1][: node.end_col_offset]
    return b"\n".join(chunk).decode("utf-8", "replace")


def module_name(path: str) -> str:
    """``tools/x_tool.py`` -> ``tools.x_tool``."""
    stem = path[:-3] if path.endswith(".py") else path
    return stem.replace("/", ".")
