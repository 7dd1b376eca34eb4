from __future__ import annotations

import ast
from typing import Iterator, Optional, Union

from hermes_lint.model.callables import register_argument
from hermes_lint.model.context import ModuleContext
from hermes_lint.model.env_access import EnvAccessIndex
from hermes_lint.model.parsing import source_segment
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid

# Builtins whose result is never callable: `check_fn=bool(...)` is a value, not a check.
_VALUE_BUILTINS = frozenset({"bool", "str", "int", "float", "len", "isinstance", "all", "any", "callable"})
_VALUE_RETURNS = (ast.Constant, ast.BoolOp, ast.Compare, ast.JoinedStr)


class CheckFnNotCallable(Rule):
    """``check_fn`` must be something the registry can call.

    ``check_fn=check()`` runs the check once at import and passes its result (a bool); the
    registry's later call raises ``TypeError``, which it counts as "unavailable": the tool never
    appears. A name nothing defines fails the import with ``NameError`` and discovery drops the
    whole module; a literal such as ``True`` or ``"check_weather"`` is not callable at all.

    Only what is certain is reported. A call is reported when it calls a builtin that returns a
    plain value (``bool(...)``), an environment read (``os.getenv(...)``), or a module function
    whose every ``return`` is a plain value and that defines no inner function or lambda: a call
    of anything else may be a factory that returns a check (``functools.partial(...)``,
    ``make_env_check("KEY")``). Imported checks, attributes (``shared.check``) and other
    expressions are not judged.
    """

    code = "HRM202"
    reads_environment = True
    summary = "check_fn is not a callable (undefined, called, or a literal)"
    fix_applicability = "safe"
    fix_title = "pass the module function itself: `check_fn=f()` becomes `check_fn=f`"

    valid = [
        """
        import os
        from tools.registry import registry
        def check_weather_requirements():
            return bool(os.getenv("WEATHER_API_KEY"))
        check = check_weather_requirements
        registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=check)
        registry.register(name="b", toolset="s", schema={}, handler=lambda a, **k: "",
                          check_fn=lambda: check_weather_requirements())
        """,
        # factories returning a check, imported and attribute checks: not judged
        """
        import functools, os
        from tools.registry import registry
        from tools import browser_common
        from tools.env_checks import has_env

        def _env_check(name):
            return lambda: bool(os.getenv(name))

        registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=_env_check("A_KEY"))
        registry.register(name="b", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=functools.partial(has_env, "B"))
        registry.register(name="c", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=browser_common.check)
        registry.register(name="d", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=has_env)
        """,
        Valid(
            # None is HRM201's; a name from a star import may exist
            """
            from tools.registry import registry
            from tools.shared_checks import *
            registry.register(name="a", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=None)
            registry.register(name="b", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=check_b)
            """
        ),
    ]
    invalid = [
        Invalid(
            """
            import os
            from tools.registry import registry

            def check_weather_requirements():
                return bool(os.getenv("WEATHER_API_KEY"))

            registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                              check_fn=check_weather_requirements())
            """,
            line=8,
            col=28,
            message="`check_fn=check_weather_requirements()` passes the result of calling "
            "`check_weather_requirements`, not the function: drop the parentheses",
            fix=(('check_fn=check_weather_requirements())', 'check_fn=check_weather_requirements)'),),
            autofixed="""
            import os
            from tools.registry import registry

            def check_weather_requirements():
                return bool(os.getenv("WEATHER_API_KEY"))

            registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                              check_fn=check_weather_requirements)
            """,
        ),
        Invalid(
            """
            from tools.registry import registry
            def check_weather_requirements():
                return True
            registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                              check_fn=check_wether_requirements)
            """,
            line=5,
            col=28,
            message="`check_fn=check_wether_requirements` names nothing defined in this module "
            "(did you mean `check_weather_requirements`?)",
        ),
        Invalid(
            """
            import os
            from tools.registry import registry
            registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "",
                              check_fn=os.getenv("WEATHER_API_KEY"))
            """,
            line=4,
            col=28,
            message="`check_fn=os.getenv(...)` is a value computed once at import, not a function: "
            "write `check_fn=lambda: os.getenv(...)` or a named check",
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="weather", toolset="weather", schema={}, handler=lambda a, **k: "", check_fn=True)
            registry.register(name="news", toolset="news", schema={}, handler=lambda a, **k: "", check_fn="check_news")
            """,
            line=2,
            col=101,
            message="`check_fn=True` is not callable: the registry's call raises TypeError and the tool never appears",
            also=((3, 95),),
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """Only a call without arguments of a plain module ``def`` (the "drop the parentheses"
        finding): any other call may need its arguments or is not a function to pass."""
        import libcst as cst

        call = source.node_at(diagnostic.path, diagnostic.line, diagnostic.col, cst.Call)
        if call is None or call.args or not isinstance(call.func, cst.Name):
            return None
        defined = any(
            isinstance(statement, ast.FunctionDef) and statement.name == call.func.value
            for statement in source.tree(diagnostic.path).body
        )
        return [source.replace(diagnostic.path, call, call.func.value)] if defined else None

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration, call in ctx.registration_calls():
            ref = registration.check_fn
            if ref is None:
                continue
            if ref.kind == "undefined":
                import difflib  # a suggestion, only for a finding
                close = difflib.get_close_matches(ref.text, list(ctx.index.functions), n=1)
                hint = f" (did you mean `{close[0]}`?)" if close else ""
                yield Finding(ref.location, f"`check_fn={ref.text}` names nothing defined in this module{hint}")
            elif ref.kind == "literal" and ref.text != "None":
                yield Finding(
                    ref.location,
                    f"`check_fn={ref.text}` is not callable: the registry's call raises TypeError and "
                    "the tool never appears",
                )
            elif ref.kind == "call":
                node = register_argument(call, "check_fn")
                message = self._call_message(ctx, node) if isinstance(node, ast.Call) else None
                if message is not None:
                    yield Finding(ref.location, message)

    def _call_message(self, ctx: ModuleContext, node: ast.Call) -> Optional[str]:
        func = node.func
        callee = source_segment(ctx.lines, func) or "..."
        shown = f"{callee}({'...' if node.args or node.keywords else ''})"
        function = ctx.semantic.functions.get(func.id) if isinstance(func, ast.Name) else None
        if function is not None and _returns_plain_values(function):
            if not node.args and not node.keywords:
                return (
                    f"`check_fn={shown}` passes the result of calling `{callee}`, not the function: "
                    "drop the parentheses"
                )
        elif not (
            isinstance(func, ast.Name) and func.id in _VALUE_BUILTINS and not ctx.index.is_bound(func.id)
        ) and EnvAccessIndex.of(ctx).access(node) is None:
            return None
        return (
            f"`check_fn={shown}` is a value computed once at import, not a function: "
            f"write `check_fn=lambda: {shown}` or a named check"
        )


def _returns_plain_values(function: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> bool:
    """Every ``return`` gives a bool/str/number/None and nothing callable is defined inside."""
    if function.decorator_list or isinstance(function, ast.AsyncFunctionDef):
        return False
    for node in ast.walk(function):
        if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _VALUE_BUILTINS:
                continue
            if not isinstance(value, _VALUE_RETURNS):
                return False
    return True
