from __future__ import annotations

import ast
from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.rules.keyword_typos import misspelt_hint, misspelt_keyword
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.model.tool_labels import tool_label


class MissingCheckFn(Rule):
    """Every registration should pass a ``check_fn``.

    The registry calls ``check_fn`` whenever it builds the tool definitions and silently leaves
    out a tool whose check returns False. Without one (or with ``check_fn=None``) the tool is
    offered to the model even where it cannot run — a missing API key or binary then surfaces as
    a failed tool call in the middle of a conversation instead of a tool that is simply absent.

    Why strict, even for tools that need nothing (a GUI-only tool, a skill manager): a
    registration without ``check_fn=`` looks the same whether its author decided it needs
    nothing or a refactoring silently dropped the keyword — and the second happens (a migration
    of the vision tools lost every ``check_fn=``; nothing failed until those tools were offered
    on machines without the model they needed). Stating "no requirement" explicitly keeps the
    two apart: a named check that returns True (``def check_todo_requirements(): return True``),
    the project's shared always-true check, or ``check_fn=lambda: True``. The message names the
    module's own always-true check when another registration of the module already uses one.

    A registration that misspells the keyword (``check_func=``) is told so: the check it
    names exists, the keyword is what is wrong (HRM004 reports the same keyword).

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
            message="tool `weather` has no `check_fn`: it is offered to the model even where it cannot run; "
            "if it needs nothing, say so with a named check that returns True "
            "(`def check_weather_requirements(): return True`) or the project's shared one",
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
            message="tool `weather` has `check_fn=None`: it is offered to the model even where it cannot run; "
            "if it needs nothing, say so with a named check that returns True "
            "(`def check_weather_requirements(): return True`) or the project's shared one",
        ),
        # a misspelt keyword: the check exists, the keyword is what is wrong
        Invalid(
            """
            import os
            from tools.registry import registry

            def check_weather_requirements():
                return bool(os.getenv("WEATHER_API_KEY"))

            registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                              check_func=check_weather_requirements)
            """,
            line=7,
            col=1,
            message="tool `weather` has no `check_fn`: `check_func=` is not a parameter: did you mean `check_fn=`?",
        ),
        # the module already has an always-true check: the message names it
        Invalid(
            """
            from tools.registry import registry

            def _no_requirements():
                \"\"\"Project tools need nothing but the project directory.\"\"\"
                return True

            registry.register(name="project_list", toolset="project", schema={},
                              handler=lambda a, **k: "", check_fn=_no_requirements)
            registry.register(name="project_create", toolset="project", schema={},
                              handler=lambda a, **k: "")
            """,
            line=9,
            col=1,
            message="tool `project_create` has no `check_fn`: it is offered to the model even where it cannot "
            "run; if it needs nothing, say so as `project_list` does: `check_fn=_no_requirements`",
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        shared = _always_true_check(ctx)
        if shared is not None:
            hint = f"if it needs nothing, say so as {tool_label(shared[0])} does: `check_fn={shared[1]}`"
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
            misspelt = misspelt_keyword(registration, ctx.contract, "check_fn") if ref is None else None
            if misspelt is not None:
                yield Finding(
                    registration.location,
                    f"tool {tool_label(registration)} has no `check_fn`: {misspelt_hint(misspelt, 'check_fn')}",
                )
                continue
            if shared is None:
                hint = ("if it needs nothing, say so with a named check that returns True "
                        f"(`def {_suggested_name(registration)}(): return True`) or the project's shared one")
            yield Finding(
                registration.location,
                f"tool {tool_label(registration)} {what}: it is offered to the model even where it cannot run; {hint}",
            )


def _always_true_check(ctx: ModuleContext):
    """(registration, name) of the first registration whose ``check_fn`` is a module function
    whose body is only ``return True`` (after a docstring)."""
    for registration in ctx.facts.registrations:
        ref = registration.check_fn
        if ref is None or ref.kind != "function" or ref.target is None:
            continue
        node = ctx.index.functions.get(ref.target)
        if isinstance(node, ast.FunctionDef) and not node.decorator_list and _returns_true(node.body):
            return registration, ref.target
    return None


def _returns_true(body) -> bool:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return (
        len(body) == 1 and isinstance(body[0], ast.Return)
        and isinstance(body[0].value, ast.Constant) and body[0].value.value is True
    )


def _suggested_name(registration) -> str:
    # Named after the toolset: the tools of one module usually share one check.
    for stem in (registration.toolset, registration.name):
        if isinstance(stem, str) and stem.isidentifier():
            return f"check_{stem}_requirements"
    return "check_requirements"
