from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import MANIFEST, REGISTER, PluginRule


class DeclaredToolNotRegistered(PluginRule, Rule):
    """``plugin.yaml``'s ``provides_tools`` lists a tool that the plugin's ``register(ctx)`` never
    registers.

    ``provides_tools`` is what Hermes shows and acts on before (or without) loading the plugin: the
    ``hermes plugins`` commands read it to find the plugin's toolset and list its tools, and the
    plugin catalogue's admission check compares it with what ``register`` really registered
    ("declared tools — matches registrations"). A declared tool that is never registered is
    offered to nobody: a misspelling, or a tool removed from the code but not from the manifest.

    Only said when every registration of the plugin was read: a name computed at run time, a
    ``register_tool`` call that could not be followed, a module that does not parse may be the
    missing tool, and nothing is reported (HRM003 says what was not read).
    """

    code = "HRM808"
    summary = "provides_tools lists a tool that register(ctx) never registers"

    valid = [
        Valid(MANIFEST, files={"__init__.py": REGISTER}),
        # a name computed at run time might be the declared one
        Valid(
            MANIFEST,
            files={
                "__init__.py": '''
                import os

                def register(ctx):
                    ctx.register_tool(name=os.environ["ECHO_TOOL"], toolset="echo", schema={}, handler=lambda a, **k: "")
                '''
            },
        ),
    ]
    invalid = [
        Invalid(
            """
            name: echo
            version: 1.0.0
            description: Echo text back.
            provides_tools:
              - echo
              - ecoh_loud
            """,
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=6,
            col=5,
            message="`ecoh_loud` is declared in provides_tools, but register(ctx) never registers it "
            "(did you mean `echo`?)",
            fix=(("\n  - ecoh_loud", ""),),
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        for view in plugin_views(ctx):
            document = view.document
            data = document.data if document is not None else None
            declared = data.get("provides_tools") if isinstance(data, dict) else None
            if document is None or not isinstance(declared, list) or not view.complete:
                continue
            names = set(view.names)
            for number, name in enumerate(declared):
                if isinstance(name, str) and name not in names:
                    import difflib  # a suggestion, only for a finding
                    close = difflib.get_close_matches(name, sorted(names), n=1)
                    hint = f" (did you mean `{close[0]}`?)" if close else ""
                    yield Finding(
                        document.location("provides_tools", number),
                        f"`{name}` is declared in provides_tools, but register(ctx) never registers it{hint}",
                        document.path,
                    )
