"""The edits behind ``hermes-lint lsp``'s code actions and where its rule links point, on exact
texts (the server's end-to-end tests are tests/test_lsp.py)."""

from __future__ import annotations

from pathlib import Path

from hermes_lint.config import Config
from hermes_lint.edit.fix.edits import Edit, apply_edits
from hermes_lint.lsp.actions import file_noqa_edit, noqa_edit
from hermes_lint.lsp.rule_pages import rule_page_uri

REPO = Path(__file__).resolve().parents[1]


def applied(text: str, edit: Edit) -> str:
    return apply_edits(text, [edit])


def test_the_file_exemption_goes_first_or_after_a_shebang_and_coding_cookie():
    text = '"""Doc."""\nimport json\n'
    assert applied(text, file_noqa_edit("t.py", text, "HRM201")) == '# hermes-lint: noqa: HRM201\n"""Doc."""\nimport json\n'
    headed = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport json\n"
    assert applied(headed, file_noqa_edit("t.py", headed, "HRM201")) == (
        "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# hermes-lint: noqa: HRM201\nimport json\n"
    )
    only_header = "#!/usr/bin/env python"
    assert applied(only_header, file_noqa_edit("t.py", only_header, "HRM201")) == (
        "#!/usr/bin/env python\n# hermes-lint: noqa: HRM201"
    )
    crlf = "import json\r\n"
    assert applied(crlf, file_noqa_edit("t.py", crlf, "HRM201")) == "# hermes-lint: noqa: HRM201\r\nimport json\r\n"


def test_the_file_exemption_merges_into_an_existing_one_and_never_repeats():
    text = "import json\n# hermes-lint: noqa: HRM101\n"
    assert applied(text, file_noqa_edit("t.py", text, "HRM201")) == "import json\n# hermes-lint: noqa: HRM101, HRM201\n"
    assert file_noqa_edit("t.py", text, "HRM101") is None
    assert file_noqa_edit("t.py", "# hermes-lint: noqa\nx = 1\n", "HRM101") is None  # exempt from everything
    # the same words in a code line are not the exemption: a new line is added
    code = 'x = "# hermes-lint: noqa: HRM101"\n'
    assert applied(code, file_noqa_edit("t.py", code, "HRM101")).startswith("# hermes-lint: noqa: HRM101\n")


def test_a_line_noqa_is_added_or_merged_and_refused_where_no_comment_can_go():
    text = "x = 1\ny = 2  # noqa: HRM101\nz = '''\nmore\n'''\n"
    assert applied(text, noqa_edit("t.py", text, 1, "HRM201")).splitlines()[0] == "x = 1  # noqa: HRM201"
    assert applied(text, noqa_edit("t.py", text, 2, "HRM201")).splitlines()[1] == "y = 2  # noqa: HRM101, HRM201"
    assert noqa_edit("t.py", text, 2, "HRM101") is None  # there already
    assert noqa_edit("t.py", text, 3, "HRM201") is None  # inside a multi-line string
    assert noqa_edit("t.py", text, 1, "HRM900") is None  # a noqa cannot silence itself


def test_a_rule_link_is_the_projects_docs_url_else_an_existing_file_else_none():
    assert rule_page_uri("HRM101", Config(docs_url="https://docs.example.org/{code}")) == "https://docs.example.org/HRM101"
    link = rule_page_uri("HRM101", Config())
    assert link == (REPO / "docs" / "rules" / "HRM101.md").resolve().as_uri()
    assert rule_page_uri("HRM999", Config()) is None  # no page: no link, never a guessed one
