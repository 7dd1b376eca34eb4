"""Which top-level statements of a module may spell an identifier, told from its source text.

A question about nodes whose answer always involves one of a few identifiers (an environment
read goes through a name bound to ``os``, ``os.environ`` or a reader; a call
``get_secret("X")`` through the name ``get_secret``; a register call through the attribute
``register``) needs only the statements where one of them is spelled: the others cannot hold
such a node, and the walk of every node of them is saved (on real tool modules most
statements never name ``os``). The text search is C code, and certain of what it excludes:

- the identifiers of an ASCII line are spelled there as the syntax tree holds them, whole words
  (``\\b``: an identifier is never preceded or followed by a word character);
- identifiers are NFKC-normalised (``ｏｓ`` is ``os``): a line holding a character whose
  compatibility decomposition has an ASCII letter, digit or underscore counts as naming
  everything. Any other character keeps an identifier from being an ASCII one (canonical
  composition never makes ASCII), so an em dash or an emoji in a comment or a string keeps
  nothing out;
- a character next to a name in a module that parses is ASCII punctuation or white space, or
  part of the identifier: a word with a letter, digit or underscore beside it is another
  identifier;
- a statement's lines run from its first decorator (a ``def``'s own line comes after them) to
  its ``end_lineno``;
- with a carriage return not followed by a line feed the line numbers of the text could differ
  from the parser's: every statement is kept.

Words in comments and strings keep a statement too: what is returned is a superset, and callers
test each node exactly as they would have.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from bisect import bisect_left
from functools import lru_cache
from typing import FrozenSet, Iterable, List, Optional, Sequence, Tuple

_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")
# What may follow the callee of a call whose first argument is a string literal, up to its
# quote: closing parentheses (``(f)("X")``), an opening one, parentheses around the argument,
# white space, line continuations and comments between them, a string prefix. A comment runs
# to the end of its line (the look-ahead): one way to match, never a backtracking search.
CALLED_WITH_A_STRING = re.compile(
    r"(?:[\s\\)]|#[^\r\n]*(?=[\r\n]))*\((?:[\s\\(]|#[^\r\n]*(?=[\r\n]))*[A-Za-z]{0,2}['\"]"
)


class Mentions:
    """The source text of one module and its top-level statements, for ``statements``."""

    def __init__(self, text: str, body: Sequence[ast.stmt]):
        self.text = text
        self.body = body
        self._spans: Optional[List[Tuple[int, int]]] = None  # first and last line of each statement
        self._unsure: Optional[List[int]] = None  # lines with characters other than ASCII
        self._exact = "\r" not in text or _LONE_CARRIAGE_RETURN.search(text) is None

    def statements(
        self, words: Iterable[str], *, names: bool = False, followed_by: Optional["re.Pattern[str]"] = None
    ) -> List[ast.stmt]:
        """The top-level statements, in order, that may hold one of ``words`` as an identifier
        (a ``Name.id``, an attribute, a keyword): every one that does. ``names``: as a
        ``Name`` only (not right after a dot: ``x.os`` is an attribute); ``followed_by``: only
        where the text after the word matches it (``CALLED_WITH_A_STRING``)."""
        return [stmt for stmt, _ in self.candidates(words, names=names, followed_by=followed_by)]

    def candidates(
        self, words: Iterable[str], *, names: bool = False, followed_by: Optional["re.Pattern[str]"] = None
    ) -> List[Tuple[ast.stmt, FrozenSet[str]]]:
        """``statements``, each with the words it may hold."""
        words = frozenset(words)
        if not self._exact:
            return [(stmt, words) for stmt in self.body]
        unsure = self._unsure_lines()
        lines = {word: self._word_lines(word, names, followed_by) for word in words}
        lines = {word: found for word, found in lines.items() if found}
        if not lines and not unsure:
            return []
        kept = []
        for stmt, (first, last) in zip(self.body, self._statement_spans()):
            if _any_within(unsure, first, last):
                kept.append((stmt, words))
                continue
            held = frozenset(word for word, found in lines.items() if _any_within(found, first, last))
            if held:
                kept.append((stmt, held))
        return kept

    def spelled_as_read(self) -> bool:
        """Whether every ASCII identifier is spelled out in the text as the parser reads it."""
        return not self._unsure_lines()

    def _word_lines(self, word: str, names: bool, followed_by: Optional["re.Pattern[str]"]) -> List[int]:
        """The lines, in order, where ``word`` occurs as a whole word (see ``candidates``).
        str.find is a fast search; a regular expression starting with ``\\b`` is not."""
        text, size = self.text, len(word)
        found = []
        line, counted = 1, 0
        at = text.find(word)
        while at >= 0:
            end = at + size
            before = text[at - 1] if at else " "
            if (
                not _is_word_character(before)
                and not (names and before == ".")
                and (end == len(text) or not _is_word_character(text[end]))
                and (followed_by is None or followed_by.match(text, end))
            ):
                line += text.count("\n", counted, at)
                counted = at
                found.append(line)
            at = text.find(word, end)  # an identifier's occurrences never overlap
        return found

    def _unsure_lines(self) -> List[int]:
        """The lines holding a character some identifier spelled with would normalise to ASCII
        (see the module docstring), in order."""
        if self._unsure is None:
            unsure: List[int] = []
            text = self.text
            if not text.isascii():
                odd = sorted(c for c in set(_NOT_ASCII.findall(text)) if _may_spell_ascii(c))
                if odd:
                    line, counted = 1, 0
                    for match in re.finditer("[%s]" % re.escape("".join(odd)), text):
                        line += text.count("\n", counted, match.start())
                        counted = match.start()
                        unsure.append(line)
            self._unsure = unsure
        return self._unsure

    def _statement_spans(self) -> List[Tuple[int, int]]:
        if self._spans is None:
            spans = []
            for stmt in self.body:
                first = stmt.lineno
                for decorator in getattr(stmt, "decorator_list", ()):
                    first = min(first, decorator.lineno)
                spans.append((first, stmt.end_lineno or stmt.lineno))
            self._spans = spans
        return self._spans


def _any_within(lines: List[int], first: int, last: int) -> bool:
    """Whether the sorted ``lines`` hold one from ``first`` to ``last``."""
    position = bisect_left(lines, first)
    return position < len(lines) and lines[position] <= last


@lru_cache(maxsize=4096)
def _may_spell_ascii(character: str) -> bool:
    """Whether ``character`` in an identifier may stand for an ASCII letter, digit or
    underscore: its compatibility decomposition holds one (``ｏ``, ``𝐨``, ``ﬁ``, and ``é``,
    which is ``e`` and an accent)."""
    return any(part.isascii() and (part.isalnum() or part == "_") for part in unicodedata.normalize("NFKD", character))


def _is_word_character(character: str) -> bool:
    return character.isalnum() or character == "_"
