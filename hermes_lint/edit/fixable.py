"""Whether findings have a fix, without computing it: what ``check``'s report needs when it
prints no edit (the text formats' ``[*]`` marks, ``--statistics``, the summary's "2 with
`--fix --unsafe-fixes`"), decided from the ``ast`` of the file where its syntax is plain enough.

A rule with a fix may answer ``Rule.fix_available(diagnostic, file)`` with True or False, which
must be what its libcst ``fix`` would give, or None when only the fix can tell (a parenthesized
or concatenated literal, a statement sharing its line): then every finding's fix is computed
(``autofix.command.fixes_on_disk``), and libcst is imported. A report that prints the edits
(``--format json|sarif``, ``--show-fixes``) always computes them.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from hermes_lint.model.context import char_col


@dataclass(frozen=True)
class KnownFix:
    """A fix known to exist, whose edits were not computed."""

    applicability: str


class FixableFile:
    """A file as fixes see it (``edit.fix.source.decode_fixable``: UTF-8 that parses), with its
    ``ast`` tree; ``tree`` is None for a file no fix may edit."""

    def __init__(self, data: Optional[bytes]):
        self.text: Optional[str] = None
        self.tree: Optional[ast.Module] = None
        if data is None:
            return
        try:
            text = data.decode("utf-8")
            self.tree = ast.parse(text)
        except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
            return
        self.text = text
        self.lines = text.split("\n")

    def statement(self, line: int) -> Optional[ast.stmt]:
        """The top-level statement holding ``line``, when no other statement shares its lines."""
        assert self.tree is not None
        body = self.tree.body
        for index, stmt in enumerate(body):
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
            last = stmt.end_lineno or stmt.lineno
            if first <= line <= last:
                before = body[index - 1] if index else None
                after = body[index + 1] if index + 1 < len(body) else None
                if (before is not None and (before.end_lineno or before.lineno) >= first) or (
                    after is not None and after.lineno <= last
                ):
                    return None
                return stmt
        return None

    def col(self, node: ast.AST) -> int:
        """The 1-based character column of ``node``, as findings give it."""
        return char_col(self.lines, node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def is_plain_string(self, node: ast.AST) -> bool:
        """``node`` is one string literal token, not parenthesized and not concatenated: where
        ast and libcst put the same node at the same place."""
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return False
        if node.lineno != node.end_lineno:
            return False
        line = self.lines[node.lineno - 1].encode("utf-8")
        segment = line[node.col_offset : node.end_col_offset].decode("utf-8", "replace")
        before = line[: node.col_offset].decode("utf-8", "replace").rstrip()
        if before.endswith("("):
            return False
        try:
            tokens = [t for t in tokenize.generate_tokens(io.StringIO(segment).readline)
                      if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
        except (tokenize.TokenError, SyntaxError):
            return False
        return len(tokens) == 1 and tokens[0].type == tokenize.STRING


def string_value(node: Optional[ast.AST]) -> Optional[str]:
    """What ``edit.literals.string_value`` gives for the libcst node of ``node``: the text of a
    string literal (concatenated ones included), None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def dict_parents(root: ast.AST) -> Dict[int, Tuple[ast.Dict, int, str]]:
    """id(node) -> (the dict display holding it, its index, "key" or "value"), under ``root``."""
    parents: Dict[int, Tuple[ast.Dict, int, str]] = {}
    for node in ast.walk(root):
        if isinstance(node, ast.Dict):
            for index, (key, value) in enumerate(zip(node.keys, node.values)):
                if key is not None:
                    parents[id(key)] = (node, index, "key")
                parents[id(value)] = (node, index, "value")
    return parents


def nodes_at(root: ast.AST, line: int, col: int, file: FixableFile) -> Iterator[ast.AST]:
    for node in ast.walk(root):
        if getattr(node, "lineno", None) == line and file.col(node) == col:
            yield node


def fix_applicabilities(
    root: Path, rules: Mapping[str, Any], diagnostics: Sequence, sources: Optional[Dict[str, bytes]] = None
) -> Optional[Dict]:
    """diagnostic -> ``KnownFix`` for each diagnostic with a fix, when every rule with a fix
    (``rules``: code -> rule class) decides its findings from the syntax; None when one cannot
    (compute the fixes instead)."""
    files: Dict[str, FixableFile] = {}
    found: Dict = {}
    for diagnostic in diagnostics:
        rule = rules.get(diagnostic.code)
        if rule is None:
            continue
        path = diagnostic.path
        if path not in files:
            try:
                data = sources[path] if sources and path in sources else (root / path).read_bytes()
            except OSError:
                data = None
            files[path] = FixableFile(data)
        file = files[path]
        if file.tree is None:
            continue  # no fix edits a file that is not UTF-8 or does not parse
        try:
            available = rule.fix_available(diagnostic, file)
        except Exception:  # a shape the test did not foresee: let the fix itself decide
            available = None
        if available is None:
            return None
        if available:
            found[diagnostic] = KnownFix(str(rule.fix_applicability))
    return found


def call_arguments(call: ast.Call) -> Tuple[List[ast.expr], bool]:
    """(positional arguments, whether any argument is ``*x`` or ``**x``)."""
    starred = any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)
    return [a for a in call.args if not isinstance(a, ast.Starred)], starred


def keyword(call: ast.Call, name: str) -> Optional[ast.keyword]:
    return next((k for k in call.keywords if k.arg == name), None)
