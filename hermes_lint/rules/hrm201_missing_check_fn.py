from __future__ import annotations

from typing import Iterator

from hermes_lint.context import ModuleContext
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.tool_labels import tool_label


class MissingCheckFn(Rule):
    """Every registration should pass a ``check_fn``.

    The registry calls ``check_fn`` whenever it builds the tool definitions and silently leaves
    out a tool whose check returns False. Without one (or with ``check_fn=None``) the tool is
    offered to the model even where it cannot run — a missing API key or binary then surfaces as
    a failed tool call in the middle of a conversation instead of a tool that is simply absent.
    A tool that really needs nothing says so with ``check_fn=lambda: True`` or a named check
    that returns True.

    Not reported: calls that spread ``**kwargs`` (the check may be in there; HRM003 says the call
    cannot be read), and any check_fn expression at all, even one that cannot be followed
    (imported, an attribute, a constant holding None): HRM202 judges what the check is.
    """

    code = "HRM201"
    summary = "registration without a check_fn"

    valid = [
        """
        import os
        from tools.registry import registry

        def check_weather_requirements():
            return bool(os.getenv("WEATHER_API_KEY"))

        registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                          check_fn=check_weather_requirements, requires_env=["WEATHER_API_KEY"])
        """,
        # a shared check imported from another module, and an always-true lambda
        """
        from tools.registry import registry
        from tools.browser_common import check_browser_requirements
        registry.register(name="browse", toolset="browser", schema={}, handler=lambda a, **k: "",
                          check_fn=check_browser_requirements)
        registry.register(name="todo", toolset="todo", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: True)
        """,
        # positional check_fn (5th parameter), and a spread whose contents cannot be seen
        """
        from tools.registry import registry
        def check(): return True
        registry.register("t", "s", {}, lambda a, **k: "", check)
        OPTIONS = {"check_fn": check}
        registry.register(name="u", toolset="s", schema={}, handler=lambda a, **k: "", **OPTIONS)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            registry.register(
                name="weather",
                toolset="weather",
                schema={},
                handler=lambda a, **k: "",
            )
            """,
            line=3,
            col=1,
            message="tool `weather` has no `check_fn`: it is offered to the model even where it cannot run",
            fix=(('registry.register(\n', 'def check_weather():\n    return True\n\nregistry.register(\n'), ('    handler=lambda a, **k: "",\n)', '    handler=lambda a, **k: "",\n    check_fn=check_weather,\n)')),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                              check_fn=None)
            """,
            line=2,
            col=1,
            message="tool `weather` has `check_fn=None`: it is offered to the model even where it cannot run",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            if registration.has_star_args:
                continue
            ref = registration.check_fn
            if ref is None:
                what = "has no `check_fn`"
            elif ref.kind == "literal" and ref.text == "None":
                what = "has `check_fn=None`"
            else:
                continue
            yield Finding(
                registration.location,
                f"tool {tool_label(registration)} {what}: it is offered to the model even where it cannot run",
            )
