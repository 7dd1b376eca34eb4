"""docs/rules/ is generated from the rules; stale pages fail here with the command that fixes them."""

from pathlib import Path

from hermes_lint.report.rule_docs import rendered_pages

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def test_rule_pages_are_up_to_date():
    expected = rendered_pages()
    actual = {path.name: path.read_text(encoding="utf-8") for path in DOCS.glob("*.md")}
    stale = sorted(name for name in expected.keys() | actual.keys() if expected.get(name) != actual.get(name))
    assert not stale, f"docs/rules is stale ({', '.join(stale)}): run `python -m hermes_lint.report.rule_docs`"


def test_every_page_opens_with_what_why_example_and_fix_and_ends_with_the_valid_examples():
    missing_why = []
    for name, text in rendered_pages().items():
        if name == "README.md":
            continue
        assert text.startswith(f"# {name[:-3]}: ")
        headings = [line for line in text.splitlines() if line.startswith("## ")]
        expected = ["## What it does", "## Why is this bad?", "## Example"]
        if headings[1] != "## Why is this bad?":  # the first paragraph says why too
            expected.remove("## Why is this bad?")
        if name != "HRM501.md":  # fixed by running `hermes-lint manifest`, which its page says
            expected.append("## Use instead")
        assert headings[: len(expected)] == expected, name
        assert headings[-1] == "## More examples", name
        if "## Why is this bad?" not in headings:
            missing_why.append(name)
        more = text[text.index("## More examples"):]
        assert "### Valid example 1" in more
        invalid = more.find("### Invalid example 2")
        assert invalid == -1 or invalid < more.index("### Valid example 1")
    # Rules whose rationale says why in its first paragraph, then goes on with notes on scope.
    assert missing_why == ["HRM108.md", "HRM604.md"]


def test_hrm004_page_shows_the_fix():
    page = rendered_pages()["HRM004.md"]
    start = page.index("## Use instead")
    use_instead = page[start:page.find("\n## ", start)]
    assert "check_fn=lambda: True)" in use_instead and "check_func" not in use_instead


def test_pages_hold_no_control_or_invisible_characters():
    import unicodedata

    for name, text in rendered_pages().items():
        hidden = [c for c in text if c not in "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
        assert not hidden, f"{name}: {hidden}"
    assert "y = 'a\\x00b'" in rendered_pages()["HRM001.md"]


def test_messages_are_code_spans_that_survive_backticks_inside():
    from hermes_lint.report.rule_docs import code_span

    assert code_span("plain") == "`plain`"
    assert code_span("tool `x` here") == "`` tool `x` here ``"
    assert code_span("a ``b`` c") == "``` a ``b`` c ```"
    page = rendered_pages()["HRM404.md"]
    assert (
        "Reported at line 4, column 10: `` tool `patch` is registered, but no toolset in toolsets.py "
        "lists it, and toolsets.py does not add registered tools to their toolset 'file': no agent is offered it ``"
    ) in page
