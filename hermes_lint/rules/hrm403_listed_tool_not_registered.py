from __future__ import annotations

from typing import Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import (
    every_registration_known,
    is_mcp,
    listed_tools,
    names_quoted_elsewhere,
    readable_toolsets,
    registered,
    toolsets_path,
)
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid

TOOLSETS = '''
_HERMES_CORE_TOOLS = ["read_file", "web_search"]
TOOLSETS = {
    "file": {"description": "Files", "tools": ["read_file"], "includes": []},
    "web": {"description": "Web", "tools": ["web_search"], "includes": []},
}
'''


class ListedToolNotRegistered(Rule):
    """``toolsets.py`` lists a tool that no tool module registers.

    The registry skips names it does not know when it builds the definitions for a toolset, so a
    misspelt or deleted tool simply vanishes from every agent that should have it. Reported at
    the string in ``toolsets.py``, whether in a toolset's ``tools`` or in ``_HERMES_CORE_TOOLS``.

    Only said when every tool module was read completely: if a module cannot be parsed, a name is
    computed at run time, arguments are spread with ``**kwargs``, or a register call is not a
    top-level statement, the missing name may be among those, and nothing is reported. Also not
    reported: names in the ``known-dynamic-tools`` setting (registered at run time, by plugins or
    MCP), tools of ``mcp-`` toolsets, and anything when ``toolsets.py`` is absent or cannot be
    read statically (HRM003).

    Tools are not only registered in ``tools/``: a bundled plugin calls
    ``ctx.register_tool(name="spotify_play", ...)``, gateway code adds its own, and the agent loop
    answers ``todo``/``memory``/``delegate_task`` itself. So before a name is reported, the
    project's other Python files are searched for it as a string literal (``"name"`` or
    ``'name'``): every ``.py`` file under the project root except the tool modules already read
    and ``toolsets.py``, skipping hidden directories, virtual environments (a directory holding
    ``pyvenv.cfg``), ``site-packages``, ``node_modules``, ``build``, ``dist``, ``__pycache__`` and
    tests (``tests/``, ``test/``, ``test_*.py``, ``*_test.py``, ``conftest.py``: a test names a
    tool without providing it). A name found there is not reported. The search runs only when
    there is something to report, stops once every name is found, and is bounded (20,000 files);
    if it is cut short, or a file cannot be read, nothing is reported.
    """

    code = "HRM403"
    summary = "toolsets.py lists a tool that nothing registers"
    scope = "project"

    valid = [
        Valid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="web_search", toolset="web", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
        ),
        # a name computed at run time may be the missing one; a dynamic tool is declared so
        Valid(
            """
            import os
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name=os.environ["WEB_TOOL"], toolset="web", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
        ),
        Valid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
            options={"known-dynamic-tools": ["web_search"]},
        ),
        # an MCP server fills the tools of an `mcp-` toolset at run time
        Valid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            files={
                "toolsets.py": '''
                TOOLSETS = {
                    "file": {"tools": ["read_file"]},
                    "mcp-github": {"tools": ["mcp_github_search"]},
                }
                '''
            },
        ),
    ]
    invalid = [
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            """,
            files={"toolsets.py": TOOLSETS},
            path="toolsets.py",
            line=1,
            col=36,
            message="tool `web_search` is listed in _HERMES_CORE_TOOLS but no tool module registers it",
            also=((4, 45),),
            fix=(('registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")', 'registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")\nregistry.register(name="web_search", toolset="web", schema={}, handler=lambda a, **k: "")'),),
        ),
        Invalid(
            """
            from tools.registry import registry
            registry.register(name="read_file", toolset="file", schema={}, handler=lambda a, **k: "")
            registry.register(name="web_search", toolset="web", schema={}, handler=lambda a, **k: "")
            """,
            files={
                "toolsets.py": '''
                    TOOLSETS = {
                        "file": {"description": "Files", "tools": ["read_file", "raed_file"], "includes": []},
                    }
                    '''
            },
            path="toolsets.py",
            line=2,
            col=61,
            message="tool `raed_file` is listed in toolset 'file' but no tool module registers it "
            "(did you mean `read_file`?)",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        toolsets = readable_toolsets(ctx)
        if toolsets is None or not every_registration_known(ctx):
            return
        names = {entry.name for entry in registered(ctx)}
        dynamic = set(ctx.config.known_dynamic_tools)
        candidates = [
            listed
            for listed in listed_tools(toolsets)
            if listed.name not in names and listed.name not in dynamic and not is_mcp(listed.toolset)
        ]
        if candidates and ctx.root is not None:  # registered by a plugin, the gateway, the agent loop?
            read = [module.path for module in ctx.modules] + [toolsets_path(ctx)]
            search = names_quoted_elsewhere(ctx.root, {listed.name for listed in candidates}, read)
            if not search.complete:
                return
            candidates = [listed for listed in candidates if listed.name not in search.found]
        for listed in candidates:
            import difflib  # a suggestion, only for a finding
            close = difflib.get_close_matches(listed.name, sorted(names), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            yield Finding(
                listed.location,
                f"tool `{listed.name}` is listed in {listed.where} but no tool module registers it{hint}",
                toolsets_path(ctx),
            )
