"""``# noqa`` comments are found exactly where the tokenizer finds comments, while only the string
literals around ``noqa``-looking text are tokenized."""

from __future__ import annotations

import ast
import io
import random
import re
import tokenize

import pytest

from hermes_lint import noqa
from hermes_lint.noqa import NoqaComment, find_noqa_comments


def tokenized(text: str):
    """The reference: every comment token of the whole file."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            noqa._add(found, token.start[0], token.start[1], token.string)
    return found


def found(text: str):
    return find_noqa_comments(text, ast.parse(text))


@pytest.mark.parametrize(
    "text, expected",
    [
        # In a string, not a comment; the real comment after it on the same line is.
        ('x = "# noqa: HRM101"  # noqa: HRM004\n', {1: NoqaComment(1, 23, ("HRM004",))}),
        ('x = "# noqa: HRM101"\n', {}),
        # Between the pieces of an implicit concatenation: a comment inside the literal's span.
        ('x = (\n    "a"  # noqa: HRM301\n    "b # noqa"\n)\n', {2: NoqaComment(2, 10, ("HRM301",))}),
        ('x = ("a"  # noqa\n     "b")\n', {1: NoqaComment(1, 11, None)}),
        # A docstring and a triple-quoted string that mention noqa on lines of their own.
        ('"""Doc.\n\n# noqa: HRM101\n"""\ny = """\n  # noqa\n"""  # NOQA:hrm004\n',
         {7: NoqaComment(7, 6, ("HRM004",))}),
        # f-strings and bytes.
        ('x = f"{1}# noqa {2}"  # noqa: HRM002\ny = b"# noqa"\n', {1: NoqaComment(1, 23, ("HRM002",))}),
        # Decorators come before the `def` line; a string there is still a string.
        ('@deco("# noqa")  # noqa: HRM102\ndef f():\n    pass\n', {1: NoqaComment(1, 18, ("HRM102",))}),
        # The column counts characters, not UTF-8 bytes.
        ('x = "é€"  # noqa: HRM701\n', {1: NoqaComment(1, 11, ("HRM701",))}),
        # Another tool's comment first: the noqa is found inside the comment.
        ("x = 1  # type: ignore # noqa: HRM101\n", {1: NoqaComment(1, 23, ("HRM101",))}),
        # `#` at the end of a line and `noqa` on the next is not a noqa comment.
        ("x = 1  #\nnoqa = 2\n", {}),
        ("x = 1\n", {}),
    ],
    ids=["string-then-comment", "string-only", "concatenation", "concatenation-first-line", "docstring",
         "fstring-bytes", "decorator", "non-ascii", "second-hash", "hash-then-newline", "none"],
)
def test_noqa_comments_are_comments_only(text, expected):
    assert found(text) == expected
    assert tokenized(text) == expected


def test_carriage_return_line_breaks_count_as_the_parser_counts_them():
    text = 'x = "a"\r\ry = 2  # noqa: HRM004\r\nz = "# noqa"\r'
    assert found(text) == {3: NoqaComment(3, 8, ("HRM004",))}


def test_a_file_without_a_tree_is_tokenized_whole():
    assert find_noqa_comments('def f(:\n    x = 1  # noqa: HRM001\n') == {2: NoqaComment(2, 12, ("HRM001",))}


def test_only_the_literal_around_noqa_text_is_tokenized(monkeypatch):
    calls = []
    real = tokenize.generate_tokens
    monkeypatch.setattr(noqa.tokenize, "generate_tokens", lambda readline: calls.append(1) or real(readline))
    body = "".join(f'x{i} = "{i}"\n' for i in range(200))
    assert found(body + "y = 1  # noqa: HRM004\n") == {201: NoqaComment(201, 8, ("HRM004",))}
    assert calls == []  # outside every string: no tokenizing at all
    assert found(body + 'y = ("a"  # noqa\n     "b")\n') == {201: NoqaComment(201, 11, None)}
    assert calls == [1]  # only that literal


PIECES = [
    "x = 1", 'x = "# noqa: HRM101"', "x = '#noqa'", 'x = b"#  NOQA"', 'x = f"{y}# noqa"',
    'x = ("a"  # noqa: HRM004\n     "b # noqa")', 'x = """\n# noqa: HRM102\n"""', "x = '''# noqa'''",
    'x = ("a"\n     # noqa: HRM301\n     "b")', '@d("#noqa")\ndef f():\n    return "# noqa"',
    "def g(a,  # noqa: HRM104\n      b):\n    pass", "class C:\n    y = '# noqa'  # noqa",
    'x = "é"  # noqa:HRM701', "# noqa: HRM900", "x = {'#': 1}  # not noqa", "x = '\\\n# noqa'",
    "x = 1  # a # noqa: HRM1,HRM2", 'x = rb"\\"# noqa"', "if x:\n    y = '#'  # noqa\nelse:\n    pass",
    'x = (f"{y}#"  # noqa: HRM005\n     "# noqa" f"{z!r:>{w}}# noqa")', "x = 1;  y = '# noqa'  # noqa",
    "x = [  # noqa: HRM006\n    '#',\n]  # noqa", 'x = """a""" "# noqa"  # noqa: HRM007',
]


def test_same_comments_as_tokenizing_the_whole_file():
    rng = random.Random(0)
    for _ in range(400):
        pieces = rng.choices(PIECES, k=rng.randint(1, 8))
        text = "\n".join(piece + rng.choice(["", "  # noqa", "  # noqa: HRM003", "  # other"])
                         if not piece.startswith(("@", "def", "class", "if")) else piece
                         for piece in pieces) + "\n"
        assert found(text) == tokenized(text), text


def test_only_ascii_letters_match_noqa_case_insensitively():
    """``may_have_noqa`` lower-cases the ASCII bytes only: right because no other character
    matches a letter of ``noqa`` in a case-insensitive search (the forms' own regexes)."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert sorted(set(re.findall("[noqa]", every, re.IGNORECASE))) == sorted("noqaNOQA")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x = 1  # NoQa: HRM101\n", {1: NoqaComment(1, 8, ("HRM101",))}),
        ("# FLAKE8: NOQA\nx = 1\n", {1: NoqaComment(1, 1, None, noqa.FLAKE8)}),
        ("x = 1\n  #  Hermes-Lint: NoQA: hrm306\n", {2: NoqaComment(2, 3, ("HRM306",), noqa.HERMES_LINT)}),
        ("x = 1\n# flake8 is a linter\n", {}),
        ("x = 1\n#hermes-lint: no qa\n", {}),
    ],
)
def test_any_case_of_every_form_is_found(text, expected):
    assert found(text) == expected
