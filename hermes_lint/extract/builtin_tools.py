"""Hermes's own tool names, which a plugin's tool must not take (HRM810, HRM811), and the hook
names its plugin loader knows (``VALID_HOOKS``, HRM805).

Where they come from, in order:
1. the Hermes installed in the environment that runs hermes-lint (the ``hermes-agent``
   distribution an installer recorded, ``installed_distribution``: never a source checkout that
   happens to be the working directory), read from its ``tools/*.py`` files with hermes-lint's own extraction and from
   the ``VALID_HOOKS`` literal of its ``hermes_cli/plugins.py``, never imported: the names its
   registry will really hold;
2. otherwise the catalogue shipped with hermes-lint (``hermes_lint/data/hermes_builtin_tools.json``),
   made the same way from a published hermes-agent release by
   ``scripts/generate_builtin_tool_catalogue.py``.

Either way the answer says which Hermes it describes (``BuiltinTools.source``), and messages name it.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Dict, FrozenSet, Mapping, Optional, Sequence, Tuple

if TYPE_CHECKING:  # pragma: no cover
    from importlib import metadata

CATALOGUE = "hermes_builtin_tools.json"
CATALOGUE_FORMAT = "hermes-lint-builtin-tools"
DISTRIBUTION = "hermes-agent"


@dataclass(frozen=True)
class BuiltinTools:
    """Built-in tool name -> its toolset, and which Hermes they are from ("hermes-agent 0.19.0
    (installed)", "hermes-agent 0.19.0 (catalogue shipped with hermes-lint)")."""

    tools: Mapping[str, str]
    source: str
    hooks: FrozenSet[str] = frozenset()


def tools_in_directory(tools_dir: Path) -> Dict[str, str]:
    """Tool name -> toolset of every registration with a constant name and toolset in
    ``tools_dir/*.py``, as runtime discovery would find them; read, never imported."""
    from hermes_lint.config import Config
    from hermes_lint.discovery import candidate_tool_paths
    from hermes_lint.extract.module_context import build_module_context
    from hermes_lint.model.parsing import parse_module
    from hermes_lint.regular_files import read_regular_file

    config = Config(project_root=str(tools_dir.parent))
    found: Dict[str, str] = {}
    for path in candidate_tool_paths(tools_dir):
        try:
            data = read_regular_file(path)
        except OSError:
            continue
        facts, _ = build_module_context(parse_module(f"tools/{path.name}", data), config)
        for registration in facts.registrations:
            if isinstance(registration.name, str) and isinstance(registration.toolset, str):
                found.setdefault(registration.name, registration.toolset)
    return dict(sorted(found.items()))


def hooks_in_plugin_loader(plugins_module: Path) -> Tuple[str, ...]:
    """The strings of the ``VALID_HOOKS`` set literal in Hermes's ``hermes_cli/plugins.py``,
    sorted; () when it cannot be read."""
    from hermes_lint.regular_files import read_regular_file

    try:
        tree = ast.parse(read_regular_file(plugins_module))
    except (OSError, SyntaxError, ValueError):
        return ()
    for statement in tree.body:
        target = statement.target if isinstance(statement, ast.AnnAssign) else (
            statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        )
        value = getattr(statement, "value", None)
        if isinstance(target, ast.Name) and target.id == "VALID_HOOKS" and isinstance(value, (ast.Set, ast.List, ast.Tuple)):
            names = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            return tuple(sorted(names)) if len(names) == len(value.elts) else ()
    return ()


def _installed_files() -> Optional[Tuple[Path, Path, str]]:
    """(``tools/``, ``hermes_cli/plugins.py``, version) of the installed ``hermes-agent``
    (``installed_distribution``), through its recorded files: nothing is imported."""
    distribution = installed_distribution()
    if distribution is None:
        return None
    located = {file.as_posix(): Path(str(distribution.locate_file(file))) for file in distribution.files or ()}
    registry, loader = located.get("tools/registry.py"), located.get("hermes_cli/plugins.py")
    if registry is None or loader is None:
        source = _editable_source(distribution)  # an editable install records its files nowhere
        if source is not None:
            registry, loader = source / "tools" / "registry.py", source / "hermes_cli" / "plugins.py"
    if registry is None or loader is None or not registry.is_file():
        return None
    return registry.parent, loader, distribution.version


def installed_distribution(path: Optional[Sequence[str]] = None) -> Optional["metadata.Distribution"]:
    """The ``hermes-agent`` an installer put in the environment: the first distribution of that
    name on ``path`` (default ``sys.path``) whose metadata has a ``RECORD``: pip and uv write one
    for an install and for an editable install (PEP 660, its ``*.dist-info`` naming the source
    directory). A legacy editable install (``setup.py develop``, an ``.egg-link`` to the source
    tree) writes none, and a source tree's ``*.egg-info`` has none: neither is taken for an
    installation, and the catalogue answers instead. The working
    directory is not looked in: ``python -m hermes_lint`` puts it first on ``sys.path``, and a
    hermes-agent checkout there is the project being checked, not an installation."""
    import os
    import sys

    here = os.path.realpath(os.getcwd())
    directories = [entry for entry in (sys.path if path is None else path) if os.path.realpath(entry or ".") != here]
    if not _may_hold_distribution(directories):
        return None
    from importlib import metadata  # imported only where a hermes-agent may be installed

    for distribution in metadata.distributions(name=DISTRIBUTION, path=directories):
        if distribution.read_text("RECORD") is not None:
            return distribution
    return None


def _may_hold_distribution(directories: Sequence[str]) -> bool:
    """Whether ``metadata.distributions(name=DISTRIBUTION, path=directories)`` may find one, by
    the listings it would read itself: a ``*.dist-info`` or ``*.egg-info`` entry of one of the
    directories whose name before its first ``-``, normalised as importlib.metadata does, is
    ``hermes_agent``. Most environments hold no Hermes, and importlib.metadata (with email,
    zipfile and csv) is then not imported at all. A path entry that is not a directory (a zip
    archive, an ``.egg``) and a metadata finder of another kind on ``sys.meta_path`` are left
    to importlib.metadata."""
    import importlib.machinery
    import os
    import re
    import sys

    wanted = re.sub(r"[-_.]+", "_", DISTRIBUTION)
    if any(hasattr(finder, "find_distributions") for finder in sys.meta_path if finder is not importlib.machinery.PathFinder):
        return True
    for entry in directories:
        if os.path.basename(entry).lower().endswith(".egg"):
            return True
        try:
            children = os.listdir(entry or ".")
        except OSError:
            if os.path.exists(entry or "."):
                return True  # not a directory that can be listed: a zip archive, say
            continue
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")) and (
                re.sub(r"[-_.]+", "_", low.rpartition(".")[0].partition("-")[0]) == wanted
            ):
                return True
    return False


def _editable_source(distribution: "metadata.Distribution") -> Optional[Path]:
    """The source directory of an editable install (PEP 610 ``direct_url.json``:
    ``dir_info.editable``), None otherwise."""
    from urllib.parse import unquote, urlparse

    try:
        data = json.loads(distribution.read_text("direct_url.json") or "null")
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("dir_info"), dict) or not data["dir_info"].get("editable"):
        return None
    url = urlparse(str(data.get("url", "")))
    return Path(unquote(url.path)) if url.scheme == "file" else None


@lru_cache(maxsize=1)
def builtin_tools() -> BuiltinTools:
    """The built-in tools and hooks of the installed Hermes, else of the shipped catalogue."""
    installed = _installed_files()
    if installed is not None:
        tools_dir, loader, version = installed
        tools, hooks = tools_in_directory(tools_dir), hooks_in_plugin_loader(loader)
        if tools and hooks:
            return BuiltinTools(tools, f"hermes-agent {version} (installed)", frozenset(hooks))
    return shipped_catalogue()


def shipped_catalogue() -> BuiltinTools:
    # Beside this package, as the rule pages are (``report.output``): importlib.resources would
    # cost a plugin run more to import than reading the file does.
    text = (Path(__file__).resolve().parents[1] / "data" / CATALOGUE).read_text(encoding="utf-8")
    data = json.loads(text)
    if data.get("format") != CATALOGUE_FORMAT:
        raise ValueError(f"{CATALOGUE} is not a {CATALOGUE_FORMAT} file")
    return BuiltinTools(
        dict(data["tools"]),
        f"hermes-agent {data['hermes_agent_version']} (catalogue shipped with hermes-lint)",
        frozenset(data["hooks"]),
    )


def catalogue_text(tools: Mapping[str, str], hooks: Tuple[str, ...], version: str) -> str:
    """The shipped catalogue's bytes: deterministic (sorted keys, trailing newline)."""
    document = {
        "format": CATALOGUE_FORMAT,
        "hermes_agent_version": version,
        "hooks": sorted(hooks),
        "tools": dict(sorted(tools.items())),
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"
