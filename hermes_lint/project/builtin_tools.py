"""Hermes's own tool names, which a plugin's tool must not take (HRM809, HRM810).

Where they come from, in order:
1. the Hermes installed in the environment that runs hermes-lint (the ``hermes-agent``
   distribution), read from its ``tools/*.py`` files with hermes-lint's own extraction, never
   imported: the names its registry will really hold;
2. otherwise the catalogue shipped with hermes-lint (``hermes_lint/data/hermes_builtin_tools.json``),
   made the same way from a published hermes-agent release by
   ``scripts/generate_builtin_tool_catalogue.py``.

Either way the answer says which Hermes it describes (``BuiltinTools.source``), and messages name it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import Dict, Mapping, Optional

CATALOGUE = "hermes_builtin_tools.json"
CATALOGUE_FORMAT = "hermes-lint-builtin-tools"
DISTRIBUTION = "hermes-agent"


@dataclass(frozen=True)
class BuiltinTools:
    """Built-in tool name -> its toolset, and which Hermes they are from ("hermes-agent 0.19.0
    (installed)", "hermes-agent 0.19.0 (catalogue shipped with hermes-lint)")."""

    tools: Mapping[str, str]
    source: str


def tools_in_directory(tools_dir: Path) -> Dict[str, str]:
    """Tool name -> toolset of every registration with a constant name and toolset in
    ``tools_dir/*.py``, as runtime discovery would find them; read, never imported."""
    from hermes_lint.check.engine import SourceFile, extract_module_facts
    from hermes_lint.config import Config
    from hermes_lint.discovery import candidate_tool_paths
    from hermes_lint.regular_files import read_regular_file

    config = Config(project_root=str(tools_dir.parent))
    found: Dict[str, str] = {}
    for path in candidate_tool_paths(tools_dir):
        try:
            data = read_regular_file(path)
        except OSError:
            continue
        facts = extract_module_facts(SourceFile(f"tools/{path.name}", data), config)
        for registration in facts.registrations:
            if isinstance(registration.name, str) and isinstance(registration.toolset, str):
                found.setdefault(registration.name, registration.toolset)
    return dict(sorted(found.items()))


def _installed_tools_dir() -> Optional[Path]:
    """The ``tools/`` directory of the installed ``hermes-agent``, found through its recorded
    files (``importlib.metadata``: nothing is imported)."""
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    for file in distribution.files or ():
        if file.as_posix() == "tools/registry.py":
            located = Path(str(distribution.locate_file(file)))
            return located.parent if located.is_file() else None
    return None


@lru_cache(maxsize=1)
def builtin_tools() -> BuiltinTools:
    """The built-in tools of the installed Hermes, else of the shipped catalogue."""
    directory = _installed_tools_dir()
    if directory is not None:
        tools = tools_in_directory(directory)
        if tools:
            version = metadata.version(DISTRIBUTION)
            return BuiltinTools(tools, f"hermes-agent {version} (installed)")
    return shipped_catalogue()


def shipped_catalogue() -> BuiltinTools:
    text = resources.files("hermes_lint").joinpath("data", CATALOGUE).read_text(encoding="utf-8")
    data = json.loads(text)
    if data.get("format") != CATALOGUE_FORMAT:
        raise ValueError(f"{CATALOGUE} is not a {CATALOGUE_FORMAT} file")
    return BuiltinTools(
        dict(data["tools"]),
        f"hermes-agent {data['hermes_agent_version']} (catalogue shipped with hermes-lint)",
    )


def catalogue_text(tools: Mapping[str, str], version: str) -> str:
    """The shipped catalogue's bytes: deterministic (sorted keys, trailing newline)."""
    document = {"format": CATALOGUE_FORMAT, "hermes_agent_version": version, "tools": dict(sorted(tools.items()))}
    return json.dumps(document, indent=2, sort_keys=True) + "\n"
