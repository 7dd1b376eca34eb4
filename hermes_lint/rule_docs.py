"""One documentation page per rule, generated from the rule itself (docs/rules/HRMnnn.md).

The rule's docstring, summary, sources and examples are the single source: the pages are
output, and a test fails when they are stale (regenerate with ``python -m hermes_lint.rule_docs``).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Dict, Type

from hermes_lint.rules import all_rules
from hermes_lint.rules.base import Invalid, Rule

DOCS_DIR = Path("docs") / "rules"


def render_rule_page(rule: Type[Rule]) -> str:
    lines = [f"# {rule.code}: {rule.summary}", "", rule.rationale(), ""]
    if rule.sources:
        lines += ["## Sources", ""] + [f"- {source}" for source in rule.sources] + [""]
    lines += ["## Fix", "", rule.fix_description()[:1].upper() + rule.fix_description()[1:] + ".", ""]
    for title, examples in (("Valid", rule.valid_examples()), ("Invalid", rule.invalid)):
        for number, example in enumerate(examples):
            heading = f"## {title} example {number + 1}"
            if isinstance(example, Invalid):
                where = f"line {example.line}" + (f", column {example.col}" if example.col else "")
                heading += f" (reported at {where}" + (
                    f" of `{example.path}`)" if example.path != "tools/example_tool.py" else ")"
                )
            lines += [heading, ""]
            if isinstance(example, Invalid) and example.message:
                lines += [f"Message: `{example.message}`", ""]
            lines += ["```python", inspect.cleandoc(example.code), "```", ""]
            if isinstance(example, Invalid) and example.fixed is not None:
                lines += ["Fixed:", "", "```python", inspect.cleandoc(example.fixed), "```", ""]
            elif isinstance(example, Invalid) and rule.fix_applicability is not None and not hasattr(rule, "run_example"):
                lines += ["No fix is offered for this one.", ""]
            for path, text in sorted(example.files.items()):
                lines += [f"`{path}`:", "", "```python", inspect.cleandoc(text), "```", ""]
            for path, text in sorted(getattr(example, "fixed_files", {}).items()):
                lines += [f"`{path}` fixed:", "", "```python", inspect.cleandoc(text), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def render_index() -> str:
    lines = ["# Rules", "", "| code | what it reports | fix |", "|---|---|---|"]
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
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("HRM*.md"):
        stale.unlink()
    for name, text in rendered_pages().items():
        (directory / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    write_rule_docs(Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS_DIR)
