from __future__ import annotations

import ast
from typing import Iterator, List, Union

from hermes_lint.model.context import ModuleContext
from hermes_lint.analysis.handlers import unique_entries
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.rules.shared_examples import USUAL_HANDLERS


class HandlerSignature(Rule):
    """The registry calls every handler as ``handler(args, **kwargs)``: one positional argument,
    the dict of arguments the model sent, plus keywords such as ``task_id``.

    A handler written as ``def f(location, units)`` or ``lambda args: ...`` raises ``TypeError``
    on every call. Reported for a module-level ``def`` or a lambda given as the handler: no
    positional parameter for ``args``, more than one required positional parameter, a required
    keyword-only parameter, or no ``**kwargs`` at all (and no other parameter that could take a
    keyword: a handler that names the keywords it expects is left alone).

    Not reported: imported handlers, methods and callable objects (their signature is elsewhere),
    and decorated functions (the decorator may adapt the call).
    """

    code = "HRM104"
    summary = "handler cannot be called as handler(args, **kwargs)"

    valid = [
        USUAL_HANDLERS,
        # imported handler, a callable object, a decorated function, named keywords, *args
        """
        from tools.registry import registry
        from tools.common import handle_search, adapt

        class Handler:
            def __call__(self, args, **kwargs):
                return ""

        @adapt
        def _handle(location, units):
            return location

        def _handle_named(args, task_id=None):
            return str(task_id)

        def _handle_star(*args, **kwargs):
            return ""

        registry.register(name="a", toolset="s", schema={}, handler=handle_search)
        registry.register(name="b", toolset="s", schema={}, handler=Handler())
        registry.register(name="c", toolset="s", schema={}, handler=_handle)
        registry.register(name="d", toolset="s", schema={}, handler=_handle_named)
        registry.register(name="e", toolset="s", schema={}, handler=_handle_star)
        """,
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry

            def weather_tool(location: str, units: str) -> str:
                return location + units

            registry.register(name="t", toolset="s", schema={}, handler=weather_tool)
            """,
            line=3,
            col=1,
            message="handler `weather_tool` requires 2 positional arguments (`location`, `units`); "
            "the registry calls `handler(args, **kwargs)`",
            fix=(('def weather_tool(location: str, units: str) -> str:\n    return location + units', 'def weather_tool(args: dict, **kwargs) -> str:\n    return args["location"] + args["units"]'),),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda args: str(args))
            """,
            line=2,
            col=61,
            message="handler lambda accepts no **kwargs; the registry calls `handler(args, **kwargs)` "
            "(with `task_id` and other keywords)",
        ),
        Invalid(
            """
            from tools.registry import registry

            def _handle(args, *, session, **kw):
                return str(session)

            def _status():
                return "ok"

            registry.register(name="a", toolset="s", schema={}, handler=_handle)
            registry.register(name="b", toolset="s", schema={}, handler=_status)
            """,
            line=3,
            message="handler `_handle` requires keyword-only argument `session`; the registry calls "
            "`handler(args, **kwargs)` and may not pass it",
            also=((6, 1),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for analysis, entry in unique_entries(ctx):
            for problem in _signature_problems(entry):
                yield Finding(ctx.loc(entry), f"{analysis.entry_label} {problem}")


def _signature_problems(entry: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]) -> List[str]:
    """Why ``entry(args, **kwargs)`` cannot work, for a def or a lambda (each completes "handler X ...")."""
    params = entry.args
    positional = params.posonlyargs + params.args
    required = positional[: len(positional) - len(params.defaults)]
    call = "the registry calls `handler(args, **kwargs)`"
    if not positional and params.vararg is None and params.kwarg is None and not params.kwonlyargs:
        return [f"takes no parameters; {call}"]
    problems = []
    if not positional and params.vararg is None:
        problems.append(f"takes no positional parameter for `args`; {call}")
    if len(required) > 1:
        names = ", ".join(f"`{a.arg}`" for a in required)
        problems.append(f"requires {len(required)} positional arguments ({names}); {call}")
    for arg, default in zip(params.kwonlyargs, params.kw_defaults):
        if default is None:
            problems.append(f"requires keyword-only argument `{arg.arg}`; {call} and may not pass it")
    if params.kwarg is None and len(positional) <= 1 and not params.kwonlyargs:
        problems.append(f"accepts no **kwargs; {call} (with `task_id` and other keywords)")
    return problems
