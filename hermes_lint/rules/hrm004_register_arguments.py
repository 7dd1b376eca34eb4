from __future__ import annotations

import difflib
from typing import Iterator

from hermes_lint.context import ModuleContext
from hermes_lint.extract import REGISTER_PARAMETERS, REQUIRED_PARAMETERS
from hermes_lint.rules.base import Finding, Invalid, Rule


class RegisterArguments(Rule):
    """A ``registry.register`` call must pass name, toolset, schema and handler, and only
    keywords that ``ToolRegistry.register`` accepts.

    A misspelt keyword such as ``check_func=`` raises ``TypeError`` when the module is imported:
    runtime discovery logs a warning and the tool silently disappears from the agent. A missing
    required argument fails the same way. Calls that spread ``**kwargs`` cannot be read and are
    left to HRM003.
    """

    code = "HRM004"
    summary = "register() call with a missing required argument or an unknown keyword"

    valid = [
        """
        from tools.registry import registry
        registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=lambda: True)
        """,
        # positional arguments map onto the parameters in order
        """
        from tools.registry import registry
        registry.register("t", "s", {}, lambda a, **k: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", check_func=lambda: True)
            """,
            line=2,
            col=80,
            message="unknown keyword `check_func=` (did you mean `check_fn=`?)",
            fix=(('check_func=', 'check_fn='),),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", schema={}, handler=lambda a, **k: "")
            """,
            line=2,
            col=1,
            message="missing required argument `toolset=`",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for keyword in registration.keywords:
                if keyword.name not in REGISTER_PARAMETERS:
                    close = difflib.get_close_matches(keyword.name, REGISTER_PARAMETERS, n=1)
                    hint = f" (did you mean `{close[0]}=`?)" if close else ""
                    yield Finding(keyword.location, f"unknown keyword `{keyword.name}=`{hint}")
            if registration.has_star_args:
                continue  # the missing ones may hide in **kwargs: HRM003 says so
            given = {kw.name for kw in registration.keywords}
            given.update(REGISTER_PARAMETERS[: registration.positional_args])
            for name in REQUIRED_PARAMETERS:
                if name not in given:
                    yield Finding(registration.location, f"missing required argument `{name}=`")
