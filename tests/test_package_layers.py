"""The packages of hermes_lint depend on each other one way: no import cycle between them.

Every import of every module counts, at any depth: a function-local import, one under
``TYPE_CHECKING``, a relative one. Each is mapped to the package it names — a subpackage of
``hermes_lint`` (``model``, ``check``) or a top-level module (``config``, ``noqa``), the root
``hermes_lint/__init__.py`` being a package of its own — and an import inside one package is
not an edge. The order the packages are layered in is written down in docs/development.md.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hermes_lint"
DEVELOPMENT = ROOT / "docs" / "development.md"

# (importing package, imported package) -> where: "hermes_lint/check/runner.py:439 imports hermes_lint.manifest"
Edges = Dict[Tuple[str, str], List[str]]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(module: str) -> Optional[str]:
    """The package a dotted name belongs to: ``model`` for ``hermes_lint.model.parsing``, ``config``
    for ``hermes_lint.config``, ``hermes_lint`` for the root; None outside hermes_lint."""
    parts = module.split(".")
    if parts[0] != "hermes_lint":
        return None
    return parts[1] if len(parts) > 1 else "hermes_lint"


def is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(path: Path) -> Iterator[Tuple[int, str]]:
    """(line, dotted name) of every module ``path`` imports, wherever the import statement is."""
    module = module_name(path)
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield node.lineno, source
            for alias in node.names:  # ``from hermes_lint import model`` imports the package model
                if is_module(f"{source}.{alias.name}"):
                    yield node.lineno, f"{source}.{alias.name}"


def package_edges() -> Edges:
    edges: Edges = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = package_of(module_name(path))
        for line, imported in imported_modules(path):
            target = package_of(imported)
            if target is not None and target != importer and importer is not None:
                where = f"{path.relative_to(ROOT).as_posix()}:{line} imports {imported}"
                edges.setdefault((importer, target), []).append(where)
    return edges


def strongly_connected(nodes: Set[str], edges: Edges) -> List[List[str]]:
    """Tarjan's components of more than one package, each sorted."""
    successors: Dict[str, List[str]] = {n: sorted(b for a, b in edges if a == n) for n in nodes}
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in successors[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found


def a_cycle(component: List[str], edges: Edges) -> List[str]:
    """The shortest cycle through the component's first package, as a list of packages."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for (a, b) in sorted(edges):
            if a != node or b not in members:
                continue
            if b == start:
                return paths[node] + [start]
            if b not in paths:
                paths[b] = paths[node] + [b]
                queue.append(b)
    raise AssertionError(f"no cycle through {start}")  # pragma: no cover - a component has one


def describe(cycle: List[str], edges: Edges, component: List[str]) -> str:
    steps = [f"  {a} -> {b}: {edges[(a, b)][0]}" for a, b in zip(cycle, cycle[1:])]
    among = f" (one of the cycles among {', '.join(component)})" if len(component) > len(cycle) - 1 else ""
    return "import cycle between packages " + " -> ".join(cycle) + among + "\n" + "\n".join(steps)


def documented_layers() -> List[List[str]]:
    """The layers docs/development.md writes down, bottom first: the numbered lines of its
    "Package layers" list, each naming its packages in backquotes."""
    text = DEVELOPMENT.read_text(encoding="utf-8")
    section = text.split("## Package layers", 1)[1].split("\n## ", 1)[0]
    return [re.findall(r"`([\w.]+)`", line) for line in section.splitlines() if re.match(r"\d+\. ", line)]


def test_no_import_cycle_between_packages():
    edges = package_edges()
    nodes = {n for edge in edges for n in edge}
    cycles = [describe(a_cycle(c, edges), edges, c) for c in strongly_connected(nodes, edges)]
    assert not cycles, "\n".join(cycles)


def test_every_import_between_packages_points_down_the_documented_layers():
    layer_of = {package: number for number, names in enumerate(documented_layers(), 1) for package in names}
    edges = package_edges()
    packages = {n for edge in edges for n in edge} | {
        package_of(module_name(path)) for path in PACKAGE.rglob("*.py")
    }
    assert sorted(p for p in packages if p not in layer_of) == [], "packages docs/development.md does not place"
    upward = [
        f"{a} (layer {layer_of[a]}) -> {b} (layer {layer_of[b]}): {where[0]}"
        for (a, b), where in sorted(edges.items())
        if layer_of[a] < layer_of[b]
    ]
    assert upward == [], "imports up the layers of docs/development.md:\n" + "\n".join(upward)


def test_a_cycle_is_found_and_named_with_the_imports_that_make_it(tmp_path):
    edges: Edges = {("check", "manifest"): ["check/runner.py:1 imports hermes_lint.manifest.inputs"],
                    ("manifest", "check"): ["manifest/generate.py:2 imports hermes_lint.check.engine"],
                    ("manifest", "config"): ["manifest/inputs.py:3 imports hermes_lint.config"]}
    components = strongly_connected({"check", "manifest", "config"}, edges)
    assert components == [["check", "manifest"]]
    assert describe(a_cycle(components[0], edges), edges, components[0]) == (
        "import cycle between packages check -> manifest -> check\n"
        "  check -> manifest: check/runner.py:1 imports hermes_lint.manifest.inputs\n"
        "  manifest -> check: manifest/generate.py:2 imports hermes_lint.check.engine"
    )


@pytest.mark.parametrize("source, expected", [
    ("from hermes_lint import model\n", "hermes_lint.model"),  # a package imported by name
    ("def f():\n    from ..check import engine\n", "hermes_lint.check.engine"),  # relative, in a function
    ("import typing\nif typing.TYPE_CHECKING:\n    import hermes_lint.report.output as o\n", "hermes_lint.report.output"),
])
def test_every_kind_of_import_is_an_edge(source, expected, monkeypatch, tmp_path):
    module = PACKAGE / "model" / "probe_layers.py"  # never written: the source is given
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert expected in [name for _, name in imported_modules(module)]
