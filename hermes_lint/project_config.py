"""A project's configuration as a run loads it: the project around a directory (``find_root``),
its settings with the command line's overrides (``load_config``), and the defaults that depend
on what the project is (``default_manifest``: a plugin project's manifest lives in its package).

Above ``config`` (the settings themselves, which every part reads) because finding a project and
its defaults asks ``project`` what the directory holds.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Optional

from hermes_lint.config import Config, ConfigError, _codes, config_from_table, read_config_file, read_pyproject_table


def load_config(root: Path, config_file: Optional[Path] = None, **overrides: Any) -> Config:
    """The project's configuration (or ``config_file``'s, for ``--config``) with command-line
    ``overrides`` (None values ignored)."""
    table: Optional[Mapping[str, Any]] = None
    if config_file is not None:
        config = config_from_table(read_config_file(config_file), where=str(config_file))
    else:
        table = read_pyproject_table(root)
        config = config_from_table(table) if table else Config()
    changes = {key: value for key, value in overrides.items() if value is not None}
    extend_select = config.extend_select
    if "select" in changes:
        changes["select"] = _codes(list(changes["select"]), "", "--select", empty_ok=False)
        extend_select = ()  # --select replaces the configured selection, extensions included (ruff)
    if "extend_select" in changes:
        changes["extend_select"] = extend_select + _codes(
            list(changes["extend_select"]), "", "--extend-select", empty_ok=False
        )
    elif "select" in changes:
        changes["extend_select"] = ()
    if "ignore" in changes:
        # The command line adds to the configured ignores rather than replacing them.
        changes["ignore"] = config.ignore + _codes(list(changes["ignore"]), "", "--ignore", empty_ok=False)
    if "providers" in changes:
        config_from_table({"providers": list(changes["providers"])}, where="--provider")
        changes["providers"] = tuple(changes["providers"])
    if "exclude" in changes or "extend_exclude" in changes:
        patterns = [*changes.get("exclude", ()), *changes.get("extend_exclude", ())]
        if not all(isinstance(p, str) and p for p in patterns):
            raise ConfigError("--exclude and --extend-exclude take non-empty glob patterns")
        changes["exclude"] = tuple(changes.get("exclude", config.exclude))  # replaces the setting
        changes["extend_exclude"] = config.extend_exclude + tuple(changes.get("extend_exclude", ()))
    changes.setdefault("project_root", str(root))
    if config_file is None and "manifest" not in (table or {}) and "manifest" not in changes:
        changes["manifest"] = default_manifest(root, config)
    return replace(config, **changes)


def default_manifest(root: Path, config: Config) -> str:
    """The ``manifest`` setting's default: ``tools/manifest.json``; in a plugin project (plugins,
    no tools directory, no toolsets.py) ``hermes-tools.json`` in the plugin's package directory
    (the root for a directory of plugins): ``manifest.plugin_manifest``."""
    if (root / config.tools_dir).is_dir() or (root / config.toolsets_file).is_file():
        return config.manifest
    from hermes_lint.project.plugins import declares_entry_point, holds_directory_plugins, is_directory_plugin

    if not (declares_entry_point(root) or is_directory_plugin(root) or holds_directory_plugins(root)):
        return config.manifest
    from hermes_lint.manifest.plugin_manifest import default_manifest as plugin_default
    from hermes_lint.project.registration_sites import project_sites

    sites = project_sites(root, replace(config, project_root=str(root)))
    return plugin_default(sites) if sites.kind == "plugins" else config.manifest


def find_root(start: Path) -> Optional[Path]:
    """The project around ``start``: the nearest directory at or above it that holds toolsets.py,
    a [tool.hermes-lint] table or a ``hermes_agent.plugins`` entry point declaration (or one in
    a group plainly meant to be it, ``hermes.plugins``: HRM812's); failing
    that, the nearest that is a directory plugin (plugin.yaml beside __init__.py), or ``start``
    itself when it holds some (``<name>/plugin.yaml``, ``<category>/<name>/``, ``plugins/``
    included)."""
    start = start.resolve()
    if (start / "toolsets.py").is_file():
        return start  # the usual case, without importing plugin discovery
    from hermes_lint.project.plugins import declares_entry_point, holds_directory_plugins, is_directory_plugin

    nearest_plugin: Optional[Path] = None
    for candidate in (start, *start.parents):
        if (candidate / "toolsets.py").is_file():
            return candidate
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                if "[tool.hermes-lint" in pyproject.read_text(encoding="utf-8", errors="replace"):
                    return candidate
            except OSError:
                pass
        if declares_entry_point(candidate):
            return candidate
        # Holding plugins counts only where the run starts: an ancestor that happens to hold a
        # clone of one (a home directory, /tmp) is not the project of every directory below it.
        if nearest_plugin is None and (
            is_directory_plugin(candidate) or (candidate == start and holds_directory_plugins(candidate))
        ):
            nearest_plugin = candidate
    return nearest_plugin
