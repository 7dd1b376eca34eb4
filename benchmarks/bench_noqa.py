"""What finding ``# noqa`` comments costs, against parsing the same files, in one run.

    python benchmarks/bench_noqa.py DIR [DIR ...] [--rounds 3]

For every ``*.py`` file under the directories that parses, times (best of ``--rounds``):

- ``ast.parse``: the parse every checked file costs anyway (the yardstick);
- tokenizing the whole file, as ``noqa`` did before (when the text mentions ``noqa`` at all);
- ``noqa.find_noqa_comments(text, tree)``: a regular-expression search, and tokenizing only the
  string literals around ``noqa``-looking text.

and checks that both ways find exactly the same comments.
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import time
import tokenize
from pathlib import Path

from hermes_lint import noqa


def whole_file(text: str):
    """The former way: every comment token of the file."""
    if "noqa" not in text and "NOQA" not in text.upper():
        return {}
    found = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                noqa._add(found, token.start[0], token.start[1], token.string)
    except (tokenize.TokenError, SyntaxError):
        return None
    return found


def best(rounds: int, action) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    files = []
    for directory in options.directories:
        for path in sorted(directory.rglob("*.py")):
            try:
                text = path.read_text(encoding="utf-8")
                files.append((text, ast.parse(text)))
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                continue
    texts = [text for text, _ in files]
    expected = [whole_file(text) for text in texts]
    differ = sum(1 for (text, tree), old in zip(files, expected)
                 if old is not None and noqa.find_noqa_comments(text, tree) != old)
    with_noqa = sum(1 for found in expected if found)
    parse = best(options.rounds, lambda: [ast.parse(text) for text in texts])
    before = best(options.rounds, lambda: [whole_file(text) for text in texts])
    after = best(options.rounds, lambda: [noqa.find_noqa_comments(text, tree) for text, tree in files])
    lines = sum(text.count("\n") for text in texts)
    print(f"{len(files):,} files ({lines:,} lines), {with_noqa:,} with a noqa comment; "
          f"results differ in {differ} (must be 0)")
    print(f"  ast.parse                         {parse:7.3f} s   1.00x")
    print(f"  noqa, tokenizing whole files      {before:7.3f} s   {before / parse:.2f}x of parsing")
    print(f"  noqa, literals around noqa only   {after:7.3f} s   {after / parse:.3f}x of parsing "
          f"({before / after:.0f}x less)")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
