"""docs/rules/ is generated from the rules; stale pages fail here with the command that fixes them."""

from pathlib import Path

from hermes_lint.rule_docs import rendered_pages

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def test_rule_pages_are_up_to_date():
    expected = rendered_pages()
    actual = {path.name: path.read_text(encoding="utf-8") for path in DOCS.glob("*.md")}
    stale = sorted(name for name in expected.keys() | actual.keys() if expected.get(name) != actual.get(name))
    assert not stale, f"docs/rules is stale ({', '.join(stale)}): run `python -m hermes_lint.rule_docs`"


def test_every_page_names_its_code_and_has_examples():
    for name, text in rendered_pages().items():
        if name == "README.md":
            continue
        assert text.startswith(f"# {name[:-3]}: ")
        assert "## Valid example 1" in text and "## Invalid example 1" in text


def test_pages_hold_no_control_or_invisible_characters():
    import unicodedata

    for name, text in rendered_pages().items():
        hidden = [c for c in text if c not in "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")]
        assert not hidden, f"{name}: {hidden}"
    assert "y = 'a\\x00b'" in rendered_pages()["HRM001.md"]


def test_messages_are_code_spans_that_survive_backticks_inside():
    from hermes_lint.rule_docs import code_span

    assert code_span("plain") == "`plain`"
    assert code_span("tool `x` here") == "`` tool `x` here ``"
    assert code_span("a ``b`` c") == "``` a ``b`` c ```"
    page = rendered_pages()["HRM404.md"]
    assert "Message: `` tool `patch` is registered but no toolset in toolsets.py lists it: no agent is offered it ``" in page
