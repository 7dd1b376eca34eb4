from __future__ import annotations

from typing import Iterator

from hermes_lint.rules.base import Finding, Invalid, Rule


class UnparsableFile(Rule):
    """A tool module, a plugin's register module (or ``toolsets.py``) that cannot be read,
    decoded, parsed or compiled.

    Runtime discovery silently skips a file it cannot parse, so its tools vanish from the agent
    without a word. hermes-lint reports the exact place instead, and goes on checking the other
    files: a broken file is a diagnostic, never a crash. Reported for syntax errors, bytes that
    are not valid in the file's encoding, NUL bytes, nesting too deep for the parser, and files
    that cannot be read at all (permissions, a directory named ``x.py``).

    A module can parse and still not compile: ``return`` or ``yield`` outside a function, a
    ``nonlocal`` without a binding, a ``from __future__`` import after other code. Importing it
    fails, so it is reported too, for the modules Hermes imports to find tools: the tool modules
    and each plugin's register module (Hermes's plugin loader logs the failure and goes on
    without the plugin's tools). Helper modules they import are not compiled.

    The engine produces these findings while reading files; this class holds the rule's
    documentation and examples.
    """

    code = "HRM001"
    summary = "file cannot be read or parsed"
    scope = "engine"

    valid = [
        """
        from tools.registry import registry
        """,
        "",
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            def handler(args, **kw)
                return "{}"
            """,
            line=2,
            col=24,
            message="syntax error: expected ':'",
            fix=(('def handler(args, **kw)\n', 'def handler(args, **kw):\n'),),
        ),
        Invalid("x = 1\ny = 'a\x00b'\n", line=2, col=7, message="file contains a NUL byte"),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="echo", toolset="demo", schema={}, handler=print)
            return None
            """,
            line=3,
            col=1,
            message="syntax error: 'return' outside function",
        ),
    ]

    def check(self, ctx) -> Iterator[Finding]:  # pragma: no cover - produced by the engine
        return iter(())
