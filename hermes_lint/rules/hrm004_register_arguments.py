from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ModuleContext
from hermes_lint.project.registry_contract import BUILTIN
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid


# A fork's registry module: `register` takes `timeout=` and has no `override=`.
FORK_REGISTRY = """
    class ToolRegistry:
        def register(self, name, toolset, schema, handler, check_fn=None, requires_env=None,
                     is_async=False, description="", emoji="", timeout=30):
            self.last = (name, toolset, schema, handler, timeout)

    registry = ToolRegistry()
    """


class RegisterArguments(Rule):
    """A ``registry.register`` call must pass name, toolset, schema and handler, and only
    keywords that ``ToolRegistry.register`` accepts.

    The contract is the project's own: the ``register`` method of the registry module the tool
    module imports ``registry`` from (``tools/registry.py``), read from its syntax tree — its
    parameters, which ones have no default (required), and whether it takes ``**kwargs`` (then
    no keyword is unknown). Without such a module among the project's files, or when its
    ``register`` cannot be read, the reference runtime's signature stands in
    (``hermes-lint check --debug`` says which contract was used). A plugin's
    ``ctx.register_tool(...)`` is judged by Hermes's plugin API, which takes neither
    ``max_result_size_chars=`` nor ``dynamic_schema_overrides=``.

    A misspelt keyword such as ``check_func=`` raises ``TypeError`` when the module is imported:
    runtime discovery logs a warning and the tool silently disappears from the agent. A missing
    required argument fails the same way. Calls that spread ``**kwargs`` cannot be read and are
    left to HRM003.
    """

    code = "HRM004"
    summary = "register() call with a missing required argument or an unknown keyword"
    fix_applicability = "safe"
    fix_title = "rename an unknown keyword to the one registry keyword it is close to (`check_func=` becomes `check_fn=`)"

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
    valid += [
        # a plugin's ctx.register_tool, positional arguments included
        """
        def register(ctx):
            ctx.register_tool("meet_join", "meet", {}, lambda args, **kw: "", check_fn=lambda: True, emoji="📞")
        """,
        Valid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", timeout=10)
            """,
            files={"tools/registry.py": FORK_REGISTRY},
        ),
        Valid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", anything=1)
            """,
            files={
                "tools/registry.py": """
                    class ToolRegistry:
                        def register(self, name, toolset, schema, handler, **options):
                            self.options = options

                    registry = ToolRegistry()
                    """
            },
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", override=True)
            """,
            files={"tools/registry.py": FORK_REGISTRY},
            line=2,
            col=80,
            message="unknown keyword `override=` (tools/registry.py's `register` has no such parameter)",
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", check_func=lambda: True)
            """,
            line=2,
            col=80,
            message="unknown keyword `check_func=` (did you mean `check_fn=`?)",
            fix=(('check_func=', 'check_fn='),),
            autofixed="""
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", check_fn=lambda: True)
            """,
        ),
        # the keyword it is close to is given already: renaming would pass it twice
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "",
                              check_fn=lambda: True, check_func=lambda: False)
            """,
            line=3,
            col=42,
            message="unknown keyword `check_func=` (did you mean `check_fn=`?)",
        ),
        # nothing close: no guess
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="t", toolset="s", schema={}, handler=lambda a, **k: "", colour="red")
            """,
            line=2,
            col=80,
            message="unknown keyword `colour=`",
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
        # a plugin's ctx.register_tool takes the plugin API's keywords, not the registry's
        Invalid(
            """
            _TOOLS = (("meet_join", {}), ("meet_leave", {}))

            def register(ctx):
                for name, schema in _TOOLS:
                    ctx.register_tool(name=name, toolset="meet", schema=schema,
                                      handler=lambda args, **kw: "", max_result_size_chars=4000)
            """,
            line=6,
            col=58,
            message="unknown keyword `max_result_size_chars=` (the plugin API's `ctx.register_tool` has no such "
            "parameter)",
        ),
    ]

    @classmethod
    def fix(cls, diagnostic, source):
        """Only when the finding suggests exactly one keyword of the contract the check used
        (``did you mean `check_fn=`?``) and the call does not pass it yet (by keyword or by
        position)."""
        import libcst as cst

        from hermes_lint.edit.fix.source import call_keyword

        keyword = diagnostic.fix_value("keyword")
        arg = source.node_at(diagnostic.path, diagnostic.line, diagnostic.col, cst.Arg)
        if keyword is None or arg is None or arg.keyword is None:
            return None
        call = source.ancestor(diagnostic.path, arg, cst.Call)
        if call is None or call_keyword(call, keyword) is not None:
            return None
        positional = sum(1 for a in call.args if a.keyword is None and not a.star)
        if keyword in BUILTIN.positional and BUILTIN.positional.index(keyword) < positional:
            return None
        return [source.replace(diagnostic.path, arg.keyword, keyword)]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        contract = ctx.contract or BUILTIN
        whose = "" if contract.source is None else f" ({contract.source}'s `register` has no such parameter)"
        if contract.method == "register_tool":
            whose = " (the plugin API's `ctx.register_tool` has no such parameter)"
        for registration in ctx.facts.registrations:
            for keyword in registration.keywords:
                if keyword.name not in contract.parameters and not contract.any_keyword:
                    import difflib  # a suggestion, only for a finding
                    close = difflib.get_close_matches(keyword.name, contract.parameters, n=1)
                    hint = f" (did you mean `{close[0]}=`?)" if close else whose
                    yield Finding(
                        keyword.location, f"unknown keyword `{keyword.name}=`{hint}",
                        fix_data=(("keyword", close[0]),) if close else (),
                    )
            if registration.has_star_args:
                continue  # the missing ones may hide in **kwargs: HRM003 says so
            given = {kw.name for kw in registration.keywords}
            given.update(contract.positional[: registration.positional_args])
            for name in contract.required:
                if name not in given:
                    yield Finding(registration.location, f"missing required argument `{name}=`")
