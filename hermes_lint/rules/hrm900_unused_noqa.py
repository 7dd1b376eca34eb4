from __future__ import annotations

from typing import Iterator

from hermes_lint.rules.base import Finding, Invalid, Rule


class UnusedNoqa(Rule):
    """A ``# noqa: HRMnnn`` comment that suppresses nothing.

    Suppressions outlive the problems they hid: the code gets fixed, the comment stays, and
    later a real problem on that line is silenced without anyone deciding so. Only HRM codes
    that are enabled are considered; a bare ``# noqa`` is never reported, since it may be
    meant for another linter (flake8, ruff) that reads the same comments.

    The engine produces these findings after applying suppressions; this class holds the
    rule's documentation and examples.
    """

    code = "HRM900"
    summary = "`# noqa` that suppresses nothing"
    scope = "engine"
    fix_applicability = "safe"
    fix_title = "remove the unused codes from the comment (the whole comment when none is left)"

    valid = [
        """
        from tools.registry import registry
        registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "")  # noqa: HRM201
        """,
        """
        import os  # noqa: F401
        x = 1  # noqa
        """,
    ]
    invalid = [
        Invalid(
            """
            import json
            x = 1  # noqa: HRM101
            """,
            line=2,
            col=8,
            message="unused `# noqa` for HRM101: it suppresses nothing",
            options={"select": ["HRM900", "HRM101"]},
            fix=(('x = 1  # noqa: HRM101', 'x = 1'),),
            autofixed="""
            import json
            x = 1
            """,
        ),
        # other linters' codes and the words after the codes stay
        Invalid(
            """
            import os  # noqa: F401, HRM101 -- re-exported
            """,
            line=1,
            col=12,
            options={"select": ["HRM900", "HRM101"]},
            autofixed="""
            import os  # noqa: F401 -- re-exported
            """,
        ),
        Invalid(
            """
            x = 1  # noqa: HRM101,HRM107
            """,
            line=1,
            col=8,
            also=((1, 8),),
            options={"select": ["HRM900", "HRM101", "HRM107"]},
            autofixed="""
            x = 1
            """,
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        from hermes_lint.edit.fix.noqa_edit import remove_code

        code = diagnostic.fix_value("code")
        if code is None:
            return None
        edit = remove_code(diagnostic.path, source.text(diagnostic.path), diagnostic.line, code)
        return [edit] if edit is not None else None

    def check(self, ctx) -> Iterator[Finding]:  # pragma: no cover - produced by the engine
        return iter(())
