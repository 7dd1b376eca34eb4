"""Every rule's VALID and INVALID examples, run through the real engine (as Fixit does).

Test ids read ``HRM101-VALID-0`` / ``HRM101-INVALID-2``, so a failure names the example.
"""

from __future__ import annotations

import inspect

import pytest

from hermes_lint import rule_examples
from hermes_lint.config import config_from_table
from hermes_lint.check.engine import ProjectSources, SourceFile, check_sources
from hermes_lint.rules import all_rules
from hermes_lint.rules.base import EXAMPLE_PATH, Invalid


def example_sources(example) -> ProjectSources:
    """The example's module (and its other files, toolsets.py among them) as a project."""
    files = {EXAMPLE_PATH: example.code, **example.files}
    return ProjectSources(
        tool_files=[
            SourceFile(path, inspect.cleandoc(text).encode() + b"\n")
            for path, text in sorted(files.items())
            if path != "toolsets.py"
        ],
        toolsets=(
            SourceFile("toolsets.py", inspect.cleandoc(files["toolsets.py"]).encode() + b"\n")
            if "toolsets.py" in files
            else None
        ),
    )


def run_example(rule, example):
    if rule.examples_run_by is not None:  # findings produced by a command (HRM501: manifest --check)
        return rule_examples.run_example(rule, example)
    config = config_from_table({"select": [rule.code], **example.options})
    return [d for d in check_sources(example_sources(example), config) if d.code == rule.code]


def _cases(kind):
    for rule in all_rules():
        examples = rule.valid_examples() if kind == "VALID" else rule.invalid
        for number, example in enumerate(examples):
            yield pytest.param(rule, example, id=f"{rule.code}-{kind}-{number}")


@pytest.mark.parametrize("rule, example", list(_cases("VALID")))
def test_valid_example_has_no_finding(rule, example):
    assert run_example(rule, example) == []


@pytest.mark.parametrize("rule, example", list(_cases("INVALID")))
def test_invalid_example_is_reported_exactly(rule, example: Invalid):
    found = run_example(rule, example)
    with_col = example.col is not None
    also = [(example.path, *place) if len(place) == 2 else place for place in example.also]
    expected = [(example.path, example.line, example.col)] + [
        (path, line, col if with_col else None) for path, line, col in also
    ]
    got = [(d.path, d.line, d.col if with_col else None) for d in found]
    assert sorted(got) == sorted(expected), [d.as_text() for d in found]
    if example.message is not None:
        assert found[0].message == example.message if len(found) == 1 else example.message in [
            d.message for d in found
        ]


def test_every_rule_has_both_kinds_of_example():
    for rule in all_rules():
        assert rule.valid_examples(), f"{rule.code} has no VALID example"
        assert rule.invalid, f"{rule.code} has no INVALID example"
        assert rule.summary and rule.rationale(), f"{rule.code} has no summary or rationale"


def _project_cases():
    for rule in all_rules():
        if rule.scope == "project":
            examples = list(rule.valid_examples()) + list(rule.invalid)
            for number, example in enumerate(examples):
                yield pytest.param(rule, example, id=f"{rule.code}-{number}")


@pytest.mark.parametrize("rule, example", list(_project_cases()))
def test_project_rule_reports_the_same_from_cached_facts_without_schemas(rule, example):
    """After an edit, the other modules' facts come from the cache's compact entries
    (``project_records.project_view``: no schemas, handlers, environment reads) unless the rule says it
    needs schemas (``Rule.needs_schemas``): the findings must not change."""
    import json

    from hermes_lint.check import cache_codec, project_records
    from hermes_lint.check.engine import ModuleResult, check_module, finish

    if rule.examples_run_by is not None:
        pytest.skip("reported by another command")
    sources = example_sources(example)
    config = config_from_table({"select": [rule.code], **example.options})
    results = [check_module(source, config) for source in sources.tool_files]
    loaded = rule.needs_schemas(config)
    decoded = []
    for result in results:
        if loaded:
            facts, diagnostics, noqa = cache_codec.loads(json.dumps(cache_codec.encode((result.facts, result.diagnostics, result.noqa))))
            assert facts == result.facts
        else:
            facts = result.facts
            text = project_records.project_record(facts, result.diagnostics, result.noqa)
            facts, diagnostics, noqa = project_records.from_project_record(text, facts.path, facts.sha256, facts.read_modules)
        decoded.append(ModuleResult(facts, diagnostics, noqa))
    assert finish(decoded, sources, config) == finish(results, sources, config)


def _fix_cases():
    for rule in all_rules():
        for number, example in enumerate(rule.invalid):
            if example.fix:
                yield pytest.param(rule, example, id=f"{rule.code}-FIX-{number}")


@pytest.mark.parametrize("rule, example", list(_fix_cases()))
def test_a_fix_is_accepted_by_its_rule(rule, example):
    """The docs' "Use instead": an INVALID example with its ``fix`` applied must pass."""
    fixed = example.fixed()
    assert inspect.cleandoc(fixed.code) != inspect.cleandoc(example.code) or fixed.files != example.files
    assert run_example(rule, fixed) == []


# Fixed by another command, not by editing code: its page says which.
NO_FIX = {"HRM501"}


def test_every_rule_shows_a_fix():
    without = [rule.code for rule in all_rules() if not any(example.fix for example in rule.invalid)]
    assert without == sorted(NO_FIX), "give one INVALID example a fix= (the page's Use instead)"


# --- automatic fixes (check --fix): each INVALID example of a rule with one is a triple
# (invalid, autofixed, autofixed passes the rule)


def _autofix_cases():
    for rule in all_rules():
        if rule.fix_applicability is None or rule.examples_run_by is not None:
            continue
        for number, example in enumerate(rule.invalid):
            yield pytest.param(rule, example, id=f"{rule.code}-AUTOFIX-{number}")


@pytest.mark.parametrize("rule, example", list(_autofix_cases()))
def test_autofix_of_invalid_example(rule, example: Invalid):
    """The fix gives ``example.autofixed`` (and ``autofixed_files``), which the rule then accepts, and a
    second run changes nothing; ``autofixed=None``: the rule offers no fix for this finding."""
    from dataclasses import replace

    from hermes_lint.autofix.run import fix_sources

    config = config_from_table({"select": [rule.code], **example.options})
    outcome = fix_sources(example_sources(example), config, unsafe=True)
    if example.autofixed is None:
        assert outcome.texts == {} and outcome.fixed == 0, outcome.texts
        return
    expected = {}
    if inspect.cleandoc(example.autofixed) != inspect.cleandoc(example.code):
        expected[EXAMPLE_PATH] = inspect.cleandoc(example.autofixed) + "\n"
    expected.update({path: inspect.cleandoc(text) + "\n" for path, text in example.autofixed_files.items()})
    assert {path: data.decode() for path, data in outcome.texts.items()} == expected
    assert outcome.remaining == [d for d in outcome.remaining if d.code != rule.code]
    fixed_example = replace(
        example, code=example.autofixed, files={**example.files, **example.autofixed_files}
    )
    assert run_example(rule, fixed_example) == []
    again = fix_sources(example_sources(fixed_example), config, unsafe=True)
    assert again.texts == {} and again.fixed == 0



@pytest.mark.parametrize("rule, example", list(_autofix_cases()))
def test_an_autofix_never_reads_its_finding_s_message(rule, example: Invalid, monkeypatch):
    """A fix takes what it writes from the finding's data (``Diagnostic.fix_data``): with every
    message reworded, the fixes are the same."""
    from dataclasses import replace

    from hermes_lint.autofix import run as fix_run

    config = config_from_table({"select": [rule.code], **example.options})
    expected = fix_run.fix_sources(example_sources(example), config, unsafe=True).texts
    real_fixes_for = fix_run.fixes_for

    def reworded(diagnostics, source, **kwargs):
        return real_fixes_for([replace(d, message="reworded") for d in diagnostics], source, **kwargs)

    monkeypatch.setattr(fix_run, "fixes_for", reworded)
    assert fix_run.fix_sources(example_sources(example), config, unsafe=True).texts == expected

def test_every_rule_with_an_autofix_shows_it():
    for rule in all_rules():
        if rule.fix_applicability is not None:
            assert rule.fix_applicability in ("safe", "unsafe") and rule.fix_title, rule.code
            if not rule.examples_run_by is not None:
                assert any(ex.autofixed is not None for ex in rule.invalid), f"{rule.code} has no fixed example"
