"""Which top-level statements may spell an identifier (``model.mentions``): the walks of
extraction skip the others, so every statement that holds one must be among them, whatever
the spelling (NFKC identifiers, comments and continuations inside a call, decorators)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_lint.model.context import walk
from hermes_lint.model.mentions import CALLED_WITH_A_STRING, Mentions

REPOSITORY = Path(__file__).resolve().parent.parent


def kept_lines(source: str, words, **options) -> list:
    tree = ast.parse(source)
    return [stmt.lineno for stmt in Mentions(source, tree.body).statements(words, **options)]


def test_a_statement_is_kept_where_the_word_is_spelled_whole():
    source = "import os\nx = osx + pos\ny = os.getenv('A')\nz = 1  # os\n"
    assert kept_lines(source, ["os"]) == [1, 3, 4]  # the comment keeps line 4: a superset


def test_an_attribute_of_that_name_is_no_name():
    source = "import os\nx = path.os\ny = (path.\n     os)\n"
    assert kept_lines(source, ["os"], names=True) == [1, 3]  # `.\n os`: kept, not proved otherwise
    assert kept_lines(source, ["os"]) == [1, 2, 3]


def test_a_decorator_belongs_to_its_function():
    source = "import os\n\n@cache(os.getenv('A'))\n@other\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n"
    assert kept_lines(source, ["os"], names=True) == [1, 5]


def test_a_line_that_may_spell_an_ascii_identifier_otherwise_names_everything():
    # `ｏｓ` is `os` to the parser; `é` is `e` and an accent: either may be part of a name.
    source = "import os\nx = ｏｓ.environ['A']\ny = 'café'\nz = 'a — b 😀 中'\nw = 2\n"
    assert ast.parse(source).body[1].value.value.value.id == "os"
    assert kept_lines(source, ["environ"], names=True) == [2, 3]
    assert kept_lines(source, ["nothing"]) == [2, 3]


def test_a_lone_carriage_return_keeps_every_statement():
    source = "a = 1\rb = 2\nc = 3\n"
    assert kept_lines(source, ["c"]) == [1, 2, 3]
    assert kept_lines(source.replace("\r", "\r\n"), ["c"]) == [3]


@pytest.mark.parametrize(
    "call",
    [
        'get("A")',
        "get (r'A')",
        '(get)("A")',
        '((get))  ("A")',
        'get(("A"))',
        'get(  # the first argument\n    "A")',
        'get(\\\n    "A")',
        'get(\n    # a comment # with hashes\n    "A")',
        'get(b"A")',
    ],
)
def test_a_call_with_a_string_first_is_seen_however_it_is_spelled(call):
    source = f"import x\n\n\ndef f():\n    return {call}\n"
    (stmt, held) = Mentions(source, ast.parse(source).body).candidates(
        ["get", "other"], names=True, followed_by=CALLED_WITH_A_STRING
    )[0]
    assert (stmt.lineno, held) == (4, frozenset({"get"}))


@pytest.mark.parametrize("call", ["get(name)", "get.attr('A')", "x.get('A')", "get"])
def test_a_call_without_a_string_first_is_not(call):
    source = f"def f():\n    return {call}\n"
    assert Mentions(source, ast.parse(source).body).candidates(["get"], names=True, followed_by=CALLED_WITH_A_STRING) == []


def test_a_long_comment_of_hashes_is_matched_in_linear_time():
    text = "get " + "#" * 200_000 + "\n"  # a backtracking search would not finish
    assert CALLED_WITH_A_STRING.match(text, 3) is None


def _corpus():
    for directory in ("hermes_lint", "tools", "tests/fixtures", "benchmarks"):
        yield from sorted((REPOSITORY / directory).rglob("*.py"))


def test_every_statement_holding_an_identifier_is_kept_in_this_repository():
    """The superset property, on every module of this repository: each name, attribute and
    call with a string first (``names``, ``followed_by``) a statement holds is among its words."""
    checked = 0
    for path in _corpus():
        source = path.read_bytes().decode("utf-8")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # fixtures of broken files
        mentions = Mentions(source, tree.body)
        names, attributes, called = {}, {}, {}
        for stmt in tree.body:
            for node in walk(stmt):
                if isinstance(node, ast.Name):
                    names.setdefault(node.id, set()).add(id(stmt))
                elif isinstance(node, ast.Attribute):
                    attributes.setdefault(node.attr, set()).add(id(stmt))
                if (
                    isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                ):
                    called.setdefault(node.func.id, set()).add(id(stmt))
        for found, options in ((names, {"names": True}), (attributes, {}), (called, {"names": True, "followed_by": CALLED_WITH_A_STRING})):
            held = {id(stmt): words for stmt, words in mentions.candidates(found, **options)}
            for word, statements in found.items():
                missing = [s for s in statements if word not in held.get(s, ())]
                assert not missing, f"{path}: `{word}` ({options}) in a statement left out"
                checked += 1
    assert checked > 10_000


HANDLER = """
    import json
    import os
    from tools.registry import registry
    from agent.secrets import get_secret


    def _unlock(args, **kw):
        key = {read}
        return json.dumps({{"door": args.get("door", ""), "key": key}})


    registry.register(name="unlock", toolset="home", schema={{}}, handler=_unlock, check_fn=lambda: True)
"""
READER = """
    import os


    def get_secret(name):
        return os.environ[name]  # required — no default
"""


@pytest.mark.parametrize(
    "read, column, how",
    [
        ('get_secret(  # the door\'s key\n            "DOOR_KEY")', 11, "`get_secret(...)` raises an exception when it is unset"),
        ('(get_secret)("DOOR_KEY")', 11, "`get_secret(...)` raises an exception when it is unset"),
        ('ｏｓ.environ["DOOR_KEY"]', 11, "`os.environ[...]` raises KeyError when it is unset"),
    ],
)
def test_reads_spelled_unusually_are_still_found(tmp_path, read, column, how):
    files = {
        "toolsets.py": 'TOOLSETS = {"home": {"description": "d", "tools": ["unlock"], "includes": []}}\n',
        "tools/unlock_tool.py": textwrap.dedent(HANDLER.format(read=read)).lstrip(),
        "agent/secrets.py": textwrap.dedent(READER).lstrip(),
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", "-q", "--select", "HRM203"],
        cwd=tmp_path, capture_output=True, text=True, encoding="utf-8",
    )
    assert completed.stderr == ""
    assert completed.stdout.splitlines() == [
        f"tools/unlock_tool.py:8:{column}: HRM203 handler of tool `unlock` needs `DOOR_KEY` ({how}) but "
        "`requires_env` does not list it"
    ]


UNREAD_REGISTER = """
    from tools.registry import registry

    SCHEMA = {"name": "unlock", "description": "Unlock the door.", "parameters": {"type": "object", "properties": {}}}


    def _unlock(args, **kw):
        return "ok"


    registry.register(name="unlock", toolset="home", schema=SCHEMA, handler=_unlock, check_fn=lambda: True)
    if SCHEMA:
        {call}(name="lock", toolset="home", schema=SCHEMA, handler=_unlock)
"""


@pytest.mark.parametrize("call", ["registry.register", "ｒｅｇｉｓｔｒｙ.ｒｅｇｉｓｔｅｒ", "registry.ｒｅｇｉｓｔｅｒ"])
def test_a_register_call_that_is_no_statement_is_counted_unread_however_it_is_spelled(tmp_path, call):
    (tmp_path / "tools").mkdir()
    (tmp_path / "toolsets.py").write_text('TOOLSETS = {"home": {"description": "d", "tools": ["unlock"], "includes": []}}\n')
    (tmp_path / "tools" / "unlock_tool.py").write_text(
        textwrap.dedent(UNREAD_REGISTER.replace("{call}", call)).lstrip(), encoding="utf-8"
    )
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache"], cwd=tmp_path, capture_output=True, text=True,
        encoding="utf-8",
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "", "All checks passed (1 tool in tools/, 1 unread)\n")
