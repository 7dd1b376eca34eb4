from __future__ import annotations

from typing import Iterator

from hermes_lint.model import Location
from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import loaded_target_of, plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import MANIFEST, PluginRule

TOOL = 'ctx.register_tool(name="echo", toolset="echo", schema={}, handler=lambda args, **kw: "")'


class RegisterSignature(PluginRule, Rule):
    """The plugin's ``register`` cannot be called as ``register(ctx)``, or its body never runs.

    The loader calls what it found with exactly one positional argument, the plugin context
    (``register_fn(ctx)`` in ``hermes_cli/plugins.py``). A ``register`` that requires a second
    argument, takes none, or has a keyword-only parameter without a default raises ``TypeError``:
    Hermes logs "Failed to load plugin" and none of its tools exist. A plain method taken from a
    class (``name = "pkg:Plugin"`` with ``def register(self, ctx)``) receives the context as
    ``self`` and fails the same way. An ``async def register`` only creates a coroutine, which the
    loader never awaits: nothing is registered, and Python warns "coroutine was never awaited".

    Reported at the ``def``. Decorated functions are not judged (a decorator may change the
    signature).
    """

    code = "HRM802"
    summary = "register cannot be called as register(ctx)"
    example_path = "__init__.py"

    valid = [
        Valid(f"\ndef register(ctx):\n    {TOOL}\n", files={"plugin.yaml": MANIFEST}),
        Valid(f"\ndef register(ctx, *args, config=None, **kwargs):\n    {TOOL}\n", files={"plugin.yaml": MANIFEST}),
    ]
    invalid = [
        Invalid(
            f"\ndef register(ctx, config):\n    {TOOL}\n",
            files={"plugin.yaml": MANIFEST},
            path="__init__.py",
            line=1,
            col=1,
            message="Hermes's `register(ctx)` leaves `config` without a value (TypeError): "
            'it logs "Failed to load plugin" and the plugin registers nothing',
            fix=(("def register(ctx, config):", "def register(ctx, config=None):"),),
        ),
        Invalid(
            f"\nasync def register(ctx):\n    {TOOL}\n",
            files={"plugin.yaml": MANIFEST},
            path="__init__.py",
            line=1,
            col=1,
            message="Hermes's `register(ctx)` only creates a coroutine, which Hermes never awaits: its body never runs",
        ),
        Invalid(
            "\ndef register():\n    pass\n",
            files={"plugin.yaml": MANIFEST},
            path="__init__.py",
            line=1,
            col=1,
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        if ctx.root is None:
            return
        for view in plugin_views(ctx):
            from hermes_lint.project.entry_point_target import call_problem  # for a plugin only

            target = loaded_target_of(ctx, view.spec)
            problem = call_problem(target)
            if problem is None or target.function is None or target.path is None:
                continue
            if "TypeError" in problem:
                problem += ': it logs "Failed to load plugin" and the plugin registers nothing'
            function = target.function
            yield Finding(Location(function.lineno, function.col_offset + 1), f"Hermes's `register(ctx)` {problem}", target.path)
