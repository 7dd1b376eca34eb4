"""One documentation page per rule, generated from the rule itself (docs/rules/HRMnnn.md).

The rule's docstring, summary, sources and examples are the single source: the pages are
output, and a test fails when they are stale (regenerate with ``python -m hermes_lint.report.rule_docs``).
"""

from __future__ import annotations

import inspect
import re
import sys
import unicodedata
from pathlib import Path
from typing import Dict, List, Tuple, Type, Union

from hermes_lint.rules import all_rules
from hermes_lint.rules.base import EXAMPLE_PATH, Invalid, Rule, Valid

DOCS_DIR = Path("docs") / "rules"


# The settings a rule's examples set (``options=``), explained on its page.
OPTION_DOCS = {
    "providers": "the provider targets whose rules run (`--provider NAME[,NAME...]` on the command line)",
    "max-description-length": "the longest description allowed, in characters (default 1,024)",
    "known-dynamic-tools": "tool names registered at run time (MCP...), which toolsets may list",
}


def render_rule_page(rule: Type[Rule]) -> str:
    """The page (and ``hermes-lint explain``), as ruff's are: what the rule finds, why that
    matters, one invalid example and its fix, then notes, options and sources; the other
    examples (which are the rule's tests) last."""
    paragraphs = _joined(rule.rationale().split("\n\n"))
    lines = [f"# {rule.code}: {rule.summary}", "", "## What it does", "", paragraphs[0], ""]
    notes = paragraphs[1:]
    if notes and not notes[0].startswith(_NOTE_OPENINGS):
        lines += ["## Why is this bad?", "", notes.pop(0), ""]
    first = headline_example(rule)
    lines += ["## Example", ""] + _example(first, rule.example_path)
    if first.fix:
        fixed = first.fixed()
        lines += ["## Use instead", ""]
        if fixed.code != inspect.cleandoc(first.code):
            lines += _labelled(rule.example_path, fixed.code)
        for path, text in sorted(fixed.files.items()):
            if inspect.cleandoc(first.files.get(path, "")) != text:
                lines += [f"`{path}`:", ""] + code_block(text, _language(path))
    lines += ["## Automatic fix", "", rule.fix_description(), ""]
    same_as_use_instead = (
        first.autofixed is not None
        and first.fix
        and not first.autofixed_files
        and first.fixed().code == inspect.cleandoc(first.autofixed)
    )
    if _offers_fixes(rule) and not same_as_use_instead:
        lines += _autofixed(first)
    if notes:
        lines += ["## Notes", "", "\n\n".join(notes), ""]
    examples: List[Union[Invalid, Valid]] = [*rule.invalid, *rule.valid_examples()]
    options = sorted({key for ex in examples for key in ex.options} & set(OPTION_DOCS))
    if options:
        lines += ["## Options", ""] + [f"- `{key}`: {OPTION_DOCS[key]}" for key in options] + [""]
    if rule.sources:
        lines += ["## Sources", ""] + [f"- {source}" for source in rule.sources] + [""]
    more: List[Tuple[str, int, Union[Invalid, Valid]]] = [
        ("Invalid", number, example) for number, example in enumerate(rule.invalid) if example is not first
    ]
    more += [("Valid", number, example) for number, example in enumerate(rule.valid_examples())]
    if more:
        lines += ["## More examples", ""]
    for title, number, example in more:
        heading = f"### {title} example {number + 1}"
        if isinstance(example, Invalid):
            heading += f" ({_where(example, rule.example_path)})"
        lines += [heading, ""] + _example(example, rule.example_path)
        if isinstance(example, Invalid):
            lines += _autofixed(example) if _offers_fixes(rule) else []
    return "\n".join(lines).rstrip() + "\n"


def _offers_fixes(rule: Type[Rule]) -> bool:
    """Whether the rule's INVALID examples show what ``check --fix`` makes of them (HRM501's
    fix is a regeneration, shown by ``manifest``, not an edit of the example)."""
    return rule.fix_applicability is not None and rule.examples_run_by is None


def _autofixed(example: Invalid) -> List[str]:
    if example.autofixed is None:
        return ["No automatic fix for this one.", ""]
    lines = ["After `check --fix`:", ""] + code_block(example.autofixed)
    for path, text in sorted(example.autofixed_files.items()):
        lines += [f"`{path}` after `check --fix`:", ""] + code_block(text)
    return lines


# A rationale's second paragraph is its "why" unless it opens as one of these notes on scope
# (then the first paragraph has said why too).
_NOTE_OPENINGS = ("Not reported", "Not repeated", "Only ", "Reported ", "Checked:", "Deliberately")


def headline_example(rule: Type[Rule]) -> Invalid:
    """The page's Example: the first INVALID example that shows its fix (else the first)."""
    return next((example for example in rule.invalid if example.fix), rule.invalid[0])


def _joined(paragraphs: List[str]) -> List[str]:
    """A paragraph ending in ':' stays with the one it introduces (a list, usually)."""
    joined: List[str] = []
    for paragraph in paragraphs:
        if joined and joined[-1].endswith(":"):
            joined[-1] += "\n\n" + paragraph
        else:
            joined.append(paragraph)
    return joined


def _where(example: Invalid, example_path: str = EXAMPLE_PATH) -> str:
    where = f"reported at line {example.line}" + (f", column {example.col}" if example.col else "")
    return where + (f" of `{example.path}`" if example.path not in (EXAMPLE_PATH, example_path) else "")


def _example(example, example_path: str = EXAMPLE_PATH) -> List[str]:
    lines = _labelled(example_path, example.code)
    for path, text in sorted(example.files.items()):
        lines += [f"`{path}`:", ""] + code_block(text, _language(path))
    if isinstance(example, Invalid):
        where = _where(example, example_path)
        said = f": {code_span(example.message)}" if example.message else ""
        lines += [f"{where[0].upper()}{where[1:]}{said}", ""]
    return lines


def _labelled(path: str, code: str) -> List[str]:
    """An example's own code: unlabelled when it is the usual tool module, else under its path."""
    if path == EXAMPLE_PATH:
        return code_block(code)
    return [f"`{path}`:", ""] + code_block(code, _language(path))


def _language(path: str) -> str:
    return {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".cfg": "ini"}.get(path[path.rfind("."):], "python")


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds (CommonMark: a fence of
    more backticks than any run inside, padded with a space when the text touches one)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padding = " " if longest else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def code_block(code: str, language: str = "python") -> List[str]:
    """A fenced Python block; control and invisible characters (a NUL byte, a bidi override)
    are shown as ``\\xNN``/``\\uNNNN`` escapes, with a note, so the page stays text and shows
    what is there."""
    text = inspect.cleandoc(code)
    shown = "".join(_visible(char) for char in text)
    lines = [f"```{language}", shown, "```", ""]
    if shown != text:
        lines += ["(Escapes such as `\\x00` above stand for the raw character in the file.)", ""]
    return lines


def _visible(char: str) -> str:
    if char in "\n\t" or unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


# Controls, format characters (zero-width, bidi), line and paragraph separators.
_ESCAPED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}


def render_index() -> str:
    lines = ["# Rules", "", "| code | what it reports | `--fix` |", "|---|---|---|"]
    lines += [
        f"| [{rule.code}]({rule.code}.md) | {rule.summary} | {rule.fix_applicability or ''} |"
        for rule in all_rules()
    ]
    return "\n".join(lines) + "\n"


def rendered_pages() -> Dict[str, str]:
    pages = {f"{rule.code}.md": render_rule_page(rule) for rule in all_rules()}
    pages["README.md"] = render_index()
    return pages


def write_rule_docs(directory: Path) -> None:
    from hermes_lint.atomic import write_atomic

    directory.mkdir(parents=True, exist_ok=True)
    pages = rendered_pages()
    for stale in directory.glob("HRM*.md"):
        if stale.name not in pages:  # a rule that no longer exists
            stale.unlink()
    for name, text in pages.items():
        write_atomic(directory / name, text.encode("utf-8"))


if __name__ == "__main__":  # pragma: no cover
    write_rule_docs(Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS_DIR)
