from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import is_mcp, keyword_value_location, listed_tools, readable_toolsets
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.model.tool_labels import tool_label

TOOLSETS = '''
TOOLSETS = {
    "web": {"description": "Web", "tools": ["web_search"], "includes": []},
}
'''


class UndefinedToolset(Rule):
    """A tool registered under a toolset that ``toolsets.py`` does not define.

    The registration's ``toolset=`` is how the registry groups a tool (and how a toolset alias or
    ``hermes tools`` finds it); a toolset missing from ``toolsets.py`` — often a typo such as
    ``"webs"`` — means the tool's group cannot be enabled by name. Reported at the ``toolset=``
    value.

    Not reported: a tool in a runtime that offers registry-only toolsets under their own name
    (Hermes's ``get_toolset`` does, for plugins: read from ``toolsets.py`` calling
    ``registry.get_registered_toolset_names``); a tool that some toolset of ``toolsets.py`` (or
    ``_HERMES_CORE_TOOLS``) lists by name. Agents reach it through that toolset, and the registry merges registry-only toolsets
    into the known ones; a tool gets a toolset of its own on purpose, so that its own
    ``check_fn`` gates it (the registry keeps one check per toolset), as upstream's
    ``browser_cdp`` under ``"browser-cdp"`` does while ``toolsets.py`` lists it under
    ``"browser"``. Also not reported: ``mcp-`` toolsets (created at run time for each MCP
    server), toolsets that are not constants (HRM003), and anything when ``toolsets.py`` is
    absent or cannot be read statically (HRM003).
    """

    code = "HRM406"
    summary = "a tool registered under a toolset that toolsets.py does not define"
    scope = "project"

    valid = [
        Valid(
            """
            from tools.registry import registry
            registry.register(name="web_search", toolset="web", schema={}, handler=lambda a, **k: "")
            registry.register(name="fetch", toolset="mcp-github", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
        ),
        """
        from tools.registry import registry
        registry.register(name="web_search", toolset="webs", schema={}, handler=lambda a, **k: "")
        """,
        # a toolset of its own for its own check_fn; toolsets.py lists the tool under "browser"
        Valid(
            """
            import json
            from tools.registry import registry
            S = {"name": "browser_cdp", "description": "Raw CDP call.", "parameters": {"type": "object", "properties": {}}}
            registry.register(name="browser_cdp", toolset="browser-cdp", schema=S,
                              handler=lambda args, **kw: json.dumps({}), check_fn=lambda: True)
            """,
            files={
                "toolsets.py": '''
                    TOOLSETS = {"browser": {"description": "Browser", "tools": ["browser_cdp"], "includes": []}}
                    '''
            },
        ),
    ]
    valid += [
        # the runtime offers a toolset only the registry knows (a plugin's) under its own name
        Valid(
            """
            from tools.registry import registry
            registry.register(name="spotify_play", toolset="spotify", schema={}, handler=lambda a, **k: "")
            """,
            files={
                "toolsets.py": TOOLSETS + (
                    "def get_toolset_names():\n"
                    "    from tools.registry import registry\n"
                    "    return sorted(set(TOOLSETS) | set(registry.get_registered_toolset_names()))\n"
                ),
            },
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="web_extract", toolset="webs", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
            line=2,
            col=47,
            message="tool `web_extract` is registered under toolset 'webs', which toolsets.py does not "
            "define (did you mean 'web'?)",
            fix=(('toolset="webs"', 'toolset="web"'),),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register("image_generate", "images", {}, lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
            line=2,
            col=1,
            message="tool `image_generate` is registered under toolset 'images', which toolsets.py does not define",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        toolsets = readable_toolsets(ctx)
        if toolsets is None or toolsets.exposes_registry_toolsets:
            return
        defined = sorted(t.name for t in toolsets.toolsets)
        known = set(defined)
        listed = {entry.name for entry in listed_tools(toolsets)}
        for module, registration in ctx.registrations():
            toolset = registration.toolset
            if not isinstance(toolset, str) or toolset in known or is_mcp(toolset):
                continue
            if isinstance(registration.name, str) and registration.name in listed:
                continue  # reachable through the toolset that lists it
            import difflib  # a suggestion, only for a finding
            close = difflib.get_close_matches(toolset, defined, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            yield Finding(
                keyword_value_location(registration, "toolset"),
                f"tool {tool_label(registration)} is registered under toolset '{toolset}', which toolsets.py does "
                f"not define{hint}",
                module.path,
            )
