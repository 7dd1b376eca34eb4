from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import REGISTER, PluginRule

MANIFEST = """
name: echo
version: 1.0.0
description: Echo text back.
provides_tools: [echo]
provides_hooks:
  - pre_tool_call
  - {hook}
"""


class UnknownHook(PluginRule, Rule):
    """``plugin.yaml``'s ``provides_hooks`` names a hook Hermes does not have.

    Hermes fires only the hooks of its ``VALID_HOOKS`` (``hermes_cli/plugins.py``). A callback
    registered under another name (``ctx.register_hook("pre_tool_use", ...)``) is kept, with a
    logged warning "registered unknown hook", and never called: the plugin's behaviour silently does
    not happen. The declaration in ``plugin.yaml`` is where the misspelling shows first.

    A name written like the gateway's events (``session:start``, ``agent:end``) is one of the
    gateway's own hooks, which live in ``HOOK.yaml`` directories and are fired by the gateway, never
    through ``ctx.register_hook``; the message says so.

    The hook names are those of the Hermes installed beside hermes-lint (read from its
    ``hermes_cli/plugins.py``, not imported), else of the release hermes-lint's catalogue was made
    from; the message names which. Entries that are not strings are HRM804's.
    """

    code = "HRM805"
    summary = "provides_hooks names a hook Hermes does not have"

    valid = [Valid(MANIFEST.format(hook="post_tool_call"), files={"__init__.py": REGISTER})]
    invalid = [
        Invalid(
            MANIFEST.format(hook="pre_tool_use"),
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=7,
            col=5,
            fix=(("pre_tool_use", "post_tool_call"),),
        ),
        Invalid(
            MANIFEST.format(hook="session:start"),
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=7,
            col=5,
            message="`session:start` is a gateway hook event, not a plugin hook of hermes-agent 0.19.0 (catalogue "
            "shipped with hermes-lint): a callback registered for it with ctx.register_hook is never called "
            "(gateway hooks are HOOK.yaml directories) (did you mean `on_session_start`?)",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        views = [view for view in plugin_views(ctx) if view.document is not None]
        if not views:
            return
        from hermes_lint.extract.builtin_tools import builtin_tools  # past the plugins-only test

        known = builtin_tools()
        for view in views:
            document = view.document
            data = document.data if document is not None else None
            hooks = data.get("provides_hooks") if isinstance(data, dict) else None
            if document is None or not isinstance(hooks, list):
                continue
            for number, hook in enumerate(hooks):
                if isinstance(hook, str) and hook not in known.hooks:
                    import difflib  # a suggestion, only for a finding
                    close = difflib.get_close_matches(hook, sorted(known.hooks), n=1)
                    hint = f" (did you mean `{close[0]}`?)" if close else ""
                    if ":" in hook:  # the gateway's event names (session:start), from HOOK.yaml hooks
                        message = (
                            f"`{hook}` is a gateway hook event, not a plugin hook of {known.source}: a callback "
                            "registered for it with ctx.register_hook is never called (gateway hooks are "
                            f"HOOK.yaml directories){hint}"
                        )
                    else:
                        message = f"`{hook}` is not a hook of {known.source}: a callback registered for it is never called{hint}"
                    yield Finding(document.location("provides_hooks", number), message, document.path)
