from __future__ import annotations

from typing import Dict, Iterator, List

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import readable_toolsets, toolsets_path
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid


class ToolsetIncludes(Rule):
    """A toolset ``includes`` a toolset that does not exist, or includes form a cycle.

    ``resolve_toolset`` raises ``ToolsetError`` on both (``unknown toolset 'x'``, ``toolset
    cycle: a -> b -> a``), so resolving an affected toolset — or any toolset that includes it —
    fails when an agent asks for its tools, not when the file is edited. An unknown include is reported at its string; each cycle once, at the include that
    closes it (walking the toolsets in the order they are written).

    Not reported: anything when ``toolsets.py`` is absent or cannot be read statically (HRM003).
    """

    code = "HRM405"
    summary = "toolset includes an unknown toolset, or includes form a cycle"
    scope = "project"

    valid = [
        Valid(
            "",
            files={
                "toolsets.py": '''
                    TOOLSETS = {
                        "file": {"description": "Files", "tools": [], "includes": []},
                        "web": {"description": "Web", "tools": [], "includes": []},
                        "research": {"description": "Both", "tools": [], "includes": ["file", "web"]},
                        "all": {"description": "All", "tools": [], "includes": ["research", "file"]},
                    }
                    '''
            },
        ),
        "",  # no toolsets.py at all
    ]
    invalid = [
        Invalid(
            "",
            files={
                "toolsets.py": '''
                    TOOLSETS = {
                        "file": {"description": "Files", "tools": [], "includes": []},
                        "research": {"description": "R", "tools": [], "includes": ["files"]},
                    }
                    '''
            },
            path="toolsets.py",
            line=3,
            col=64,
            message="toolset 'research' includes unknown toolset 'files' (did you mean 'file'?)",
            fix=(('"includes": ["files"]', '"includes": ["file"]'),),
        ),
        Invalid(
            "",
            files={
                "toolsets.py": '''
                    TOOLSETS = {
                        "a": {"description": "A", "tools": [], "includes": ["b"]},
                        "b": {"description": "B", "tools": [], "includes": ["c"]},
                        "c": {"description": "C", "tools": [], "includes": ["a", "c"]},
                    }
                    '''
            },
            path="toolsets.py",
            line=4,
            col=57,
            message="toolset include cycle: a -> b -> c -> a",
            also=((4, 62),),
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        toolsets = readable_toolsets(ctx)
        if toolsets is None:
            return
        path = toolsets_path(ctx)
        defined = {t.name: t for t in toolsets.toolsets}
        for toolset in toolsets.toolsets:
            for name, location in toolset.includes:
                if name not in defined:
                    import difflib  # a suggestion, only for a finding
                    close = difflib.get_close_matches(name, sorted(defined), n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    yield Finding(location, f"toolset '{toolset.name}' includes unknown toolset '{name}'{hint}", path)
        # Depth-first search in written order: each back edge closes one cycle, reported once.
        state: Dict[str, str] = {}  # "active" while on the stack, "done" after
        stack: List[str] = []

        def visit(name: str) -> Iterator[Finding]:
            state[name] = "active"
            stack.append(name)
            for included, location in defined[name].includes:
                if included not in defined:
                    continue
                if state.get(included) == "active":
                    cycle = stack[stack.index(included):] + [included]
                    yield Finding(location, "toolset include cycle: " + " -> ".join(cycle), path)
                elif included not in state:
                    yield from visit(included)
            stack.pop()
            state[name] = "done"

        for name in defined:
            if name not in state:
                yield from visit(name)
