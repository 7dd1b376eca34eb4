from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule


class UndiscoveredRegisterCall(Rule):
    """A ``registry.register`` call in a file that runtime discovery will never import.

    Discovery imports a ``tools/*.py`` file only when a statement of its module body is exactly
    a ``registry.register(...)`` expression. A file whose calls all sit inside ``if``/``try``/
    ``with`` blocks, whose call's result is assigned, or that reaches the registry under another
    name (``reg = registry``; ``from tools.registry import registry as reg``) is skipped, and
    its tools never appear.

    Not reported: files that have at least one top-level call (they are imported, so every
    module-level call runs), and calls inside a function unless that function is called at
    module level (something else may call it at run time, e.g. a session-start hook).
    """

    code = "HRM002"
    summary = "register() call that runtime discovery will never import"

    valid = [
        """
        from tools.registry import registry
        registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "")
        if True:
            registry.register(name="b", toolset="s", schema={}, handler=lambda a, **k: "")
        """,
        # registered later by whoever calls this function: cannot know, so silent
        """
        from tools.registry import registry
        def register_kanban_tools():
            registry.register(name="k", toolset="kanban", schema={}, handler=lambda a, **k: "")
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            try:
                import requests
                registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "")
            except ImportError:
                pass
            """,
            line=4,
            col=5,
            message="discovery never imports this file: it is inside a `try` block; make the "
            "call a top-level `registry.register(...)` statement",
            fix=(('try:\n    import requests\n    registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "")\nexcept ImportError:\n    pass', 'registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "")'),),
        ),
        Invalid(
            """
            from tools.registry import registry as reg
            reg.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "")
            """,
            line=2,
            col=1,
            message="discovery never imports this file: the registry is called through an "
            "alias (`reg`); make the call a top-level `registry.register(...)` statement",
        ),
        Invalid(
            """
            from tools.registry import registry
            def _register():
                registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "")
            _register()
            """,
            line=3,
            col=5,
        ),
        Invalid(
            """
            from tools.registry import registry
            entry = registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "")
            """,
            line=2,
            col=9,
            message="discovery never imports this file: its result is used in an expression or "
            "assignment; make the call a top-level `registry.register(...)` statement",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for call in ctx.facts.misplaced_calls:
            yield Finding(
                call.location,
                f"discovery never imports this file: {call.reason}; make the call a top-level "
                "`registry.register(...)` statement",
            )
