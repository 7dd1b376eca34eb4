"""``check --fix``, ``--diff``, ``--unsafe-fixes`` and ``--add-noqa`` on projects on disk: what is
written (byte for byte), what is left alone, exit codes and the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_lint.edit.fix.edits import Edit, Fix, TextIndex, apply_edits, choose_fixes, edit_between
from tests.test_cli import GOOD_TOOL, make_project, run

# Two defects, the second visible only once the first is fixed: `check_func=` (HRM004), then
# `check_fn=check_echo()` (HRM202).
TWO_STEP = GOOD_TOOL.replace("check_fn=check_echo,", "check_func=check_echo(),")
BROKEN = "def broken(:\n    pass  # noqa: HRM101\n"


def read(root: Path, path: str = "tools/echo_tool.py") -> str:
    return (root / path).read_text()


def test_fix_repeats_until_nothing_changes_and_leaves_every_other_byte(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP})
    result = run(["check", "--fix"], tmp_path)
    assert read(tmp_path) == GOOD_TOOL
    assert result.stdout == ""
    assert result.stderr == "Fixed 2 (0 remaining).\n"
    assert result.exit_code == 0


def test_a_second_fix_changes_nothing_and_writes_nothing(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP})
    run(["check", "--fix"], tmp_path)
    before = (tmp_path / "tools" / "echo_tool.py").stat().st_mtime_ns
    result = run(["check", "--fix"], tmp_path)
    assert result.stderr == "Fixed 0 (0 remaining).\n"
    assert (tmp_path / "tools" / "echo_tool.py").stat().st_mtime_ns == before


def test_fix_reports_what_remains_and_exits_one(tmp_path):
    unfixable = TWO_STEP.replace('"required": []', '"required": ["city"]')  # HRM305: unsafe
    make_project(tmp_path, {"echo_tool.py": unfixable})
    result = run(["check", "--fix", "--select", "HRM004,HRM202,HRM305"], tmp_path)
    assert result.exit_code == 1
    assert [line.split(" ")[1] for line in result.stdout.splitlines()] == ["HRM305"]
    assert result.stderr == "Fixed 2 (1 remaining).\n"


def test_select_limits_the_fixes_to_the_selected_codes(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP})
    result = run(["check", "--fix", "--select", "HRM004"], tmp_path)
    assert read(tmp_path) == GOOD_TOOL.replace("check_fn=check_echo,", "check_fn=check_echo(),")
    assert result.stderr == "Fixed 1 (0 remaining).\n"


def test_diff_prints_the_fixes_and_writes_nothing(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP})
    result = run(["check", "--diff"], tmp_path)
    assert read(tmp_path) == TWO_STEP
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "--- a/tools/echo_tool.py",
        "+++ b/tools/echo_tool.py",
        "@@ -27,5 +27,5 @@",
        "     toolset=\"demo\",",
        "     schema=ECHO_SCHEMA,",
        "     handler=_handle_echo,",
        "-    check_func=check_echo(),",
        "+    check_fn=check_echo,",
        " )",
    ]
    clean = run(["check", "--diff"], make_project(tmp_path / "clean", {"echo_tool.py": GOOD_TOOL}))
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_a_file_with_a_syntax_error_is_never_touched(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP, "aaa_tool.py": BROKEN})
    result = run(["check", "--fix", "--select", "HRM001,HRM004,HRM202,HRM900,HRM101"], tmp_path)
    assert read(tmp_path, "tools/aaa_tool.py") == BROKEN
    assert read(tmp_path) == GOOD_TOOL
    assert result.stdout.splitlines() == [  # its HRM900 has a fix, which is not applied
        "tools/aaa_tool.py:1:12: HRM001 syntax error: invalid syntax",
        "tools/aaa_tool.py:2:11: HRM900 unused `# noqa` for HRM101: it suppresses nothing",
    ]
    assert result.exit_code == 1


def test_fix_with_paths_fixes_only_findings_in_those_files(tmp_path):
    other = TWO_STEP.replace('name="echo"', 'name="echo_b"').replace('"echo"', '"echo_b"')
    make_project(tmp_path, {"echo_tool.py": TWO_STEP, "other_tool.py": other})
    run(["check", "--fix", "--select", "HRM004,HRM202", "tools/echo_tool.py"], tmp_path)
    assert read(tmp_path) == GOOD_TOOL
    assert read(tmp_path, "tools/other_tool.py") == other


def test_json_after_fix_lists_what_remains_with_its_fix(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP.replace('"required": []', '"required": ["city"]')})
    result = run(["check", "--fix", "--format", "json", "--select", "HRM004,HRM202,HRM305"], tmp_path)
    (remaining,) = json.loads(result.stdout)
    assert remaining["code"] == "HRM305"


def test_the_manifest_is_regenerated_when_fixes_change_what_it_holds(tmp_path):
    noqa = GOOD_TOOL.replace("import json\n", "import json  # noqa: HRM101\n")
    make_project(tmp_path, {"echo_tool.py": noqa})
    assert run(["manifest"], tmp_path).exit_code == 0
    manifest = (tmp_path / "tools" / "manifest.json").read_bytes()
    shown = run(["check", "--diff"], tmp_path)
    assert "+++ b/tools/manifest.json" in shown.stdout and "+++ b/tools/echo_tool.py" in shown.stdout
    assert (tmp_path / "tools" / "manifest.json").read_bytes() == manifest and read(tmp_path) == noqa
    result = run(["check", "--fix"], tmp_path)
    assert read(tmp_path) == GOOD_TOOL
    assert result.stderr == "Fixed 2 (0 remaining).\n"  # the comment, and the manifest
    assert run(["manifest", "--check"], tmp_path).exit_code == 0


def test_no_manifest_is_created_by_fix(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP})
    run(["check", "--fix"], tmp_path)
    assert not (tmp_path / "tools" / "manifest.json").exists()


def test_a_file_changed_on_disk_while_fixing_is_not_overwritten(tmp_path, monkeypatch):
    from hermes_lint.autofix import command

    make_project(tmp_path, {"echo_tool.py": TWO_STEP})
    real = command.fix_project

    def racing(root, config, **kwargs):
        report = real(root, config, **kwargs)
        (root / "tools" / "echo_tool.py").write_text(TWO_STEP + "# edited meanwhile\n")
        return report

    monkeypatch.setattr(command, "fix_project", racing)
    result = run(["check", "--fix"], tmp_path)
    assert result.exit_code == 2
    assert "tools/echo_tool.py changed while fixing; nothing was written" in result.stderr
    assert read(tmp_path) == TWO_STEP + "# edited meanwhile\n"


# --- --add-noqa


def test_add_noqa_silences_each_finding_and_merges_with_existing_comments(tmp_path):
    tool = TWO_STEP.replace("import json\n", "import json  # noqa: F401\n").replace(
        "    check_func=check_echo(),\n", "    check_func=check_echo(),  # noqa: HRM107\n"
    )
    make_project(tmp_path, {"echo_tool.py": tool})
    result = run(["check", "--add-noqa", "--select", "HRM004,HRM107"], tmp_path)
    assert result.exit_code == 0
    assert result.stderr == "Added 1 noqa directive.\n"
    assert read(tmp_path) == tool.replace("# noqa: HRM107\n", "# noqa: HRM107, HRM004\n")
    assert run(["check", "--select", "HRM004"], tmp_path).exit_code == 0


def test_add_noqa_appends_a_comment_and_skips_lines_inside_strings(tmp_path):
    tool = GOOD_TOOL.replace('"Repeat the given text."', '"""Repeat\n the given text."""').replace(
        "check_fn=check_echo,", "check_func=check_echo,"
    )
    make_project(tmp_path, {"echo_tool.py": tool})
    run(["check", "--add-noqa", "--select", "HRM004"], tmp_path)
    assert read(tmp_path) == tool.replace("check_func=check_echo,", "check_func=check_echo,  # noqa: HRM004")
    assert run(["check", "--select", "HRM004"], tmp_path).exit_code == 0


def test_add_noqa_refuses_to_be_combined_with_fix(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    result = run(["check", "--add-noqa", "--fix"], tmp_path)
    assert result.exit_code == 2
    assert "--add-noqa edits comments and reports no diagnostics: it cannot be combined with --fix or --diff" in result.stderr


# --- the edit model


def test_edit_between_is_the_one_changed_span():
    assert edit_between("p", "a = f()\n", "a = f\n") == Edit("p", (1, 6), (1, 8), "")
    assert edit_between("p", "x\n", "x\n") is None
    assert edit_between("p", "[1]\n", "[1, 2]\n") == Edit("p", (1, 3), (1, 3), ", 2")


def test_positions_count_characters_and_every_line_break():
    index = TextIndex("é = 1\r\nb = 2\rc")
    assert index.offset(2, 1) == 7 and index.offset(3, 1) == 13
    assert apply_edits("é = 1\n", [Edit("p", (1, 5), (1, 6), "2")]) == "é = 2\n"


def test_overlapping_fixes_wait_for_the_next_pass():
    first = Fix("safe", "a", (Edit("p", (1, 1), (1, 3), "x"),))
    overlapping = Fix("safe", "b", (Edit("p", (1, 2), (1, 4), "y"),))
    same_point = Fix("safe", "c", (Edit("p", (1, 1), (1, 1), "z"),))
    apart = Fix("safe", "d", (Edit("p", (1, 3), (1, 3), "w"),))
    twin = Fix("safe", "e", first.edits)
    chosen = choose_fixes([first, overlapping, same_point, apart, twin], {"p": "abcd\n"})
    assert chosen == [(first, 2), (apart, 1)]


# --- unsafe fixes


def test_unsafe_fixes_apply_only_with_the_option(tmp_path):
    unsafe = GOOD_TOOL.replace('"required": []', '"required": ["city"]')
    make_project(tmp_path, {"echo_tool.py": unsafe})
    safe_only = run(["check", "--fix", "--select", "HRM305"], tmp_path)
    assert (safe_only.exit_code, read(tmp_path)) == (1, unsafe)
    both = run(["check", "--fix", "--unsafe-fixes", "--select", "HRM305"], tmp_path)
    assert (both.exit_code, read(tmp_path), both.stderr) == (0, GOOD_TOOL, "Fixed 1 (0 remaining).\n")


def test_json_marks_an_unsafe_fix(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL.replace('"required": []', '"required": ["city"]')})
    (finding,) = json.loads(run(["check", "--select", "HRM305", "--format", "json"], tmp_path).stdout)
    assert finding["fix"]["applicability"] == "unsafe"
    assert finding["fix"]["edits"] == [
        {
            "path": "tools/echo_tool.py",
            "content": "[]",
            "location": {"line": 21, "col": 21},
            "end_location": {"line": 21, "col": 29},
        }
    ]


def _fix_one(code: str, source: str, *, select: str, files=None) -> str:
    from hermes_lint.config import config_from_table
    from hermes_lint.check.engine import ProjectSources, SourceFile
    from hermes_lint.autofix.run import fix_sources

    sources = ProjectSources([SourceFile("tools/x_tool.py", source.encode())], None)
    outcome = fix_sources(sources, config_from_table({"select": [select]}), unsafe=True)
    return outcome.texts.get("tools/x_tool.py", source.encode()).decode()


MULTILINE_REQUIRED = '''\
from tools.registry import registry

SCHEMA = {
    "name": "t",
    "description": "T.",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "string", "description": "A."}},
        "required": [
            "a",  # stays
            "b",  # the last one
        ],
    },
}
registry.register(name="t", toolset="s", schema=SCHEMA, handler=lambda a, **k: "")
'''


def test_removing_the_last_element_of_a_multiline_list_keeps_its_trailing_comma():
    fixed = _fix_one("HRM305", MULTILINE_REQUIRED, select="HRM305")
    assert fixed == MULTILINE_REQUIRED.replace('            "b",  # the last one\n', "")


def test_json_is_imported_after_the_docstring_and_future_imports():
    source = '"""Doc."""\nfrom __future__ import annotations\n\nfrom tools.registry import registry\n\n' \
        'registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: [1])\n'
    assert _fix_one("HRM101", source, select="HRM101") == source.replace(
        "\nfrom tools.registry", "\nimport json\nfrom tools.registry"
    ).replace("k: [1]", "k: json.dumps([1])")


def test_no_json_fix_when_the_name_json_is_something_else():
    source = 'from tools.registry import registry\nfrom mylib import json\n\n' \
        'registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: [1])\n'
    assert _fix_one("HRM101", source, select="HRM101") == source


def test_columns_count_characters_on_non_ascii_lines():
    source = (
        'from tools.registry import registry\n'
        'registry.register(name="tëst", toolset="s", schema={"description": "日本語"}, '
        'handler=lambda a, **k: "", check_func=lambda: True)\n'
    )
    assert _fix_one("HRM004", source, select="HRM004") == source.replace("check_func=", "check_fn=")


def test_an_added_line_uses_the_files_line_breaks():
    source = (
        "from tools.registry import registry\r\n\r\nasync def _h(args, **kw):\r\n    return 'ok'\r\n\r\n"
        'registry.register(\r\n    name="t",\r\n    toolset="s",\r\n    schema={},\r\n    handler=_h,\r\n)\r\n'
    )
    assert _fix_one("HRM105", source, select="HRM105") == source.replace(
        "handler=_h,\r\n", "handler=_h,\r\n    is_async=True,\r\n"
    )


@pytest.mark.parametrize(
    "code, says",
    [
        ("HRM202", "`check --fix` does (safe): pass the module function itself"),
        ("HRM303", "`check --fix --unsafe-fixes` does (unsafe): set the schema's"),
        ("HRM102", "No automatic fix: fix by hand."),
    ],
)
def test_explain_says_whether_the_rule_has_a_fix(code, says):
    page = run(["explain", code], Path.cwd()).stdout
    section = page[page.index("## Automatic fix"):]
    assert says in section[: section.find("\n## ", 1)]


def test_explain_shows_what_fix_makes_of_the_examples():
    text = run(["explain", "HRM105"], Path.cwd()).stdout
    assert "After `check --fix`:" in text and "No automatic fix for this one." in text


def test_a_pass_that_would_break_a_file_leaves_it_as_it_was():
    from hermes_lint.autofix.run import _apply

    texts = {"a.py": "x = f()\n", "b.py": "y = 1\n"}
    breaking = Fix("safe", "m", (Edit("a.py", (1, 6), (1, 8), "(("),))
    fine = Fix("safe", "m", (Edit("b.py", (1, 5), (1, 6), "2"),))
    assert _apply([breaking, fine], texts) == {"b.py": "y = 2\n"}


def test_add_noqa_leaves_lines_where_a_comment_would_change_the_code(tmp_path):
    from hermes_lint.autofix.command import add_noqa
    from hermes_lint.model import Diagnostic

    source = 'TEXT = """first\nsecond"""\nVALUE = 1 + \\\n    2\nOTHER = 3\n'
    make_project(tmp_path, {"x_tool.py": source})
    found = [Diagnostic("tools/x_tool.py", line, 1, "HRM101", "m") for line in (1, 3, 5)]
    report = add_noqa(tmp_path, found)
    assert report.added == 1
    assert report.skipped == [
        "tools/x_tool.py:1: no comment can go on this line",
        "tools/x_tool.py:3: no comment can go on this line",
    ]
    assert read(tmp_path, "tools/x_tool.py") == source.replace("OTHER = 3", "OTHER = 3  # noqa: HRM101")


def test_a_fresh_manifest_is_regenerated_even_when_hrm501_is_not_selected(tmp_path):
    make_project(tmp_path, {"echo_tool.py": TWO_STEP.replace("check_func=check_echo(),", "check_fn=check_echo(),")})
    assert run(["manifest"], tmp_path).exit_code == 0
    result = run(["check", "--fix", "--select", "HRM202"], tmp_path)
    assert read(tmp_path) == GOOD_TOOL
    assert result.stderr == "Fixed 2 (0 remaining).\n"
    assert run(["manifest", "--check"], tmp_path).exit_code == 0


def test_a_stale_manifest_is_left_alone_unless_hrm501_is_selected(tmp_path):
    make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    assert run(["manifest"], tmp_path).exit_code == 0
    (tmp_path / "tools" / "echo_tool.py").write_text(GOOD_TOOL.replace("Repeat the", "Repeat back the"))
    stale = (tmp_path / "tools" / "manifest.json").read_bytes()
    assert run(["check", "--fix", "--select", "HRM202"], tmp_path).stderr == "Fixed 0 (0 remaining).\n"
    assert (tmp_path / "tools" / "manifest.json").read_bytes() == stale
    assert run(["check", "--fix"], tmp_path).stderr == "Fixed 1 (0 remaining).\n"
    assert run(["manifest", "--check"], tmp_path).exit_code == 0
