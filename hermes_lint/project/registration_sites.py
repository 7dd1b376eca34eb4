"""Where a project registers its tools: the one model extraction, the rules, the manifest, the
scaffold and the output ask.

Two kinds of registration site, each with its contract:

- ``TOOL_MODULE``: a top-level ``registry.register(...)`` statement in ``<tools-dir>/*.py``,
  found by the runtime's own predicate (``discovery``); judged by the project's
  ``ToolRegistry.register`` (``registry_contract``);
- ``PLUGIN``: a ``ctx.register_tool(...)`` reached from the ``register(ctx)`` that Hermes's plugin
  loader calls (``plugins`` finds the plugins, ``plugin_register`` follows ``register``);
  judged by ``PluginContext.register_tool``'s parameters (no ``max_result_size_chars``, no
  ``dynamic_schema_overrides``).

A project may be a ``tools/`` tree (with bundled plugins under ``plugin-dirs``), a plugin
package (entry points), a directory plugin, or a directory of plugins. ``ProjectSites`` says
which files hold sites and, per file, which functions receive a plugin context; its
``fingerprint`` keys cached results, since a file's registrations depend on it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.config import Config
    from hermes_lint.project.followed_plugins import FollowedPlugin, RegisterFunction, Unfollowed

# PluginContext.register_tool's parameters, in order (Hermes's plugin API).
PLUGIN_PARAMETERS = (
    "name", "toolset", "schema", "handler", "check_fn", "requires_env", "is_async", "description", "emoji", "override",
)


@dataclass(frozen=True)
class SiteKind:
    """A kind of registration site: the call that registers and the parameters it takes."""

    name: str
    call: str  # how the call is spelled
    parameters: Tuple[str, ...]  # in order: positional arguments fill these
    required: Tuple[str, ...]


def _tool_module_site() -> SiteKind:
    from hermes_lint.project.registry_contract import BUILTIN_PARAMETERS, BUILTIN_REQUIRED

    return SiteKind("tool module", "registry.register", BUILTIN_PARAMETERS, BUILTIN_REQUIRED)


PLUGIN = SiteKind("plugin", "ctx.register_tool", PLUGIN_PARAMETERS, ("name", "toolset", "schema", "handler"))


@dataclass(frozen=True)
class PluginSites:
    """The project's plugins, each with the functions its ``register`` reaches."""

    plugins: Tuple[FollowedPlugin, ...]

    def plugin_modules(self) -> Tuple[str, ...]:
        """Every file that holds a register function or is a plugin's register module, sorted."""
        paths = {f.path for p in self.plugins for f in p.functions}
        paths |= {p.spec.register_module for p in self.plugins if p.spec.register_module and p.read}
        return tuple(sorted(paths))

    def functions_in(self, path: str) -> Tuple[RegisterFunction, ...]:
        return tuple(f for p in self.plugins for f in p.functions if f.path == path)

    def unfollowed_in(self, path: str) -> Tuple[Unfollowed, ...]:
        return tuple(u for p in self.plugins for u in p.unfollowed if u.path == path)

    def plugin_of(self, path: str) -> Optional[str]:
        """The plugin whose register module or register function is in ``path``."""
        for plugin in self.plugins:
            if plugin.spec.register_module == path or any(f.path == path for f in plugin.functions):
                return plugin.spec.name
        return None

    def fingerprint(self) -> str:
        """What a module's extracted facts depend on besides its own bytes and the settings."""
        return repr(self.plugins)


@dataclass(frozen=True)
class ProjectSites:
    """Every registration site of a project: its tool modules and its plugins."""

    root: str
    tools_dir: str
    tool_modules: Tuple[str, ...]  # candidate tool modules, relative ('/'-separated)
    plugin_sites: PluginSites
    has_toolsets: bool

    @property
    def plugins(self) -> Tuple[FollowedPlugin, ...]:
        return self.plugin_sites.plugins

    @property
    def kind(self) -> str:
        """"tools" (a tools/ tree, plugins bundled or not), "plugins" (plugins only) or "empty"."""
        if self.tool_modules or self.has_toolsets:
            return "tools"
        return "plugins" if self.plugins else "empty"

    def plugin_modules(self) -> Tuple[str, ...]:
        return tuple(p for p in self.plugin_sites.plugin_modules() if p not in self.tool_modules)

    def modules(self) -> Tuple[str, ...]:
        """Every file that holds a registration site: the tool modules, then the plugins'."""
        return self.tool_modules + self.plugin_modules()

    def fingerprint(self) -> str:
        return self.plugin_sites.fingerprint()


# (root, settings, reader) -> (the reader's run, the stat of every input of discovery, what it
# found): trusted within a run (``evaluate.project.new_run`` starts one), and in a later run
# while no input changed.
_PLUGINS: Dict[Tuple, Tuple[int, Tuple, PluginSites]] = {}

# Where discovery's answer is kept and trusted in a later process while nothing it read changed
# (``check.sites_record``, set by ``check`` unless ``--no-cache``); None: discovered in each process.
across_runs: Any = None


def plugin_sites(root: Path, config: "Config", project=None) -> PluginSites:
    """The plugins of the project at ``root`` and the functions their ``register`` reaches, once
    per run (``evaluate.project.new_run``), and again in a later run when one of the files or
    directories discovery looked at changed; ``project``: the ``ProjectModules`` whose files
    (editor buffers included) are read."""
    from hermes_lint.project.plugins import project_plugins

    if project is None:
        project = _reader_if_imported(root)
        if project is None:  # a warm run that never read a module: nothing to import for it
            sites = _recorded_without_reader(root, config)
            if sites is not None:
                return sites
            from hermes_lint.evaluate.project import project_modules

            project = project_modules(str(root))
    key = (os.path.realpath(root), config.plugin_dirs, id(project))
    cached = _PLUGINS.get(key)
    if cached is not None and (cached[0] == project._run or cached[1] == _stamp(root, config, cached[2])):
        if cached[0] != project._run:
            _PLUGINS[key] = (project._run, cached[1], cached[2])
        return cached[2]
    def discover() -> PluginSites:
        import gc

        # Imported here: a project without plugins (and a warm run) never follows a register.
        from hermes_lint.project.plugin_register import follow_plugin

        # Following parses the modules register goes through, and their trees stay alive (for
        # the check to take them over, ``ProjectModules.parsed_again``): the cyclic collector,
        # triggered every 700 allocations, would scan them over and over to find nothing. The
        # youngest generation is collected every 10,000 instead, as while files are checked
        # (``check.collection.threshold``, a layer above this package: not imported from here).
        former = gc.get_threshold()
        gc.set_threshold(max(former[0], 10_000), *former[1:])
        try:
            return PluginSites(tuple(follow_plugin(root, spec, project) for spec in project_plugins(root, config)))
        finally:
            gc.set_threshold(*former)

    if across_runs is not None and not project._files:  # never for editor buffers
        if not project_plugins(root, config):  # nothing to follow: no record to read, walk or write
            sites = PluginSites(())
        else:
            sites = across_runs.recorded(root, config.plugin_dirs)
            if sites is None:
                sites = across_runs.discover_and_record(root, config.plugin_dirs, discover)
    else:
        sites = discover()
    if len(_PLUGINS) > 32:
        _PLUGINS.clear()
    _PLUGINS[key] = (project._run, _stamp(root, config, sites), sites)
    return sites


def _recorded_without_reader(root: Path, config: "Config") -> Optional[PluginSites]:
    """Without a module reader (none is needed when nothing is to be followed): no plugins, or
    what ``across_runs`` recorded, kept in this process while discovery's inputs keep their
    stats (``_stamp``); None when discovery must run."""
    from hermes_lint.project.plugins import project_plugins

    key = (os.path.realpath(root), config.plugin_dirs, None)
    cached = _PLUGINS.get(key)
    if cached is not None and cached[1] == _stamp(root, config, cached[2]):
        return cached[2]
    if not project_plugins(root, config):
        return PluginSites(())
    sites = across_runs.recorded(root, config.plugin_dirs) if across_runs is not None else None
    if sites is not None:
        if len(_PLUGINS) > 32:
            _PLUGINS.clear()
        _PLUGINS[key] = (-1, _stamp(root, config, sites), sites)
    return sites


def _reader_if_imported(root: Path):
    """The per-process ``ProjectModules`` of ``root`` when the evaluator is already imported."""
    import sys

    module = sys.modules.get("hermes_lint.evaluate.project")
    return module.project_modules(str(root)) if module is not None else None


def _stamp(root: Path, config: "Config", sites: PluginSites) -> Tuple:
    """The stat of what discovery read: the packaging files, the directories it listed (a
    plugin.yaml or a plugin appearing changes its directory's), the modules ``register`` went
    through. (Strings and ``os.scandir``, not ``pathlib``: asked on every question of a warm run.)"""
    from hermes_lint.project.plugins import PACKAGING_FILES

    base = os.fspath(root)
    directories = [base] + [os.path.join(base, d) for d in config.plugin_dirs]
    read = [path for p in sites.plugins for path in p.read] + [p.spec.directory for p in sites.plugins]
    # a module appearing beside one that was read (``from .hermes import register`` before
    # hermes.py exists) changes its directory
    directories += sorted({os.path.normpath(os.path.join(base, os.path.dirname(path))) for path in read})
    listed = []
    for directory in directories:
        listed.append(directory)
        try:
            with os.scandir(directory) as entries:
                listed.extend(entry.path for entry in entries if entry.is_dir())
        except OSError:
            pass
    files = [os.path.join(base, name) for name in PACKAGING_FILES]
    files += [os.path.join(base, path) for p in sites.plugins for path in p.read]
    return tuple(_stat(path) for path in listed + files)


def _stat(path: str) -> Optional[Tuple[int, ...]]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def project_sites(root: Path, config: "Config", project=None) -> ProjectSites:
    """The registration sites of the project at ``root``: its tool modules (listed now) and its
    plugins (``plugin_sites``)."""
    from hermes_lint.discovery import candidate_tool_file_names

    prefix = Path(config.tools_dir).as_posix()
    tool_modules = tuple(
        name if prefix == "." else f"{prefix}/{name}" for name in candidate_tool_file_names(root / config.tools_dir)
    )
    return ProjectSites(
        str(root), config.tools_dir, tool_modules, plugin_sites(root, config, project),
        (root / config.toolsets_file).is_file(),
    )


def sites_for_config(config: "Config", project=None) -> Optional[PluginSites]:
    """``plugin_sites`` of ``config.project_root``; None without a project root."""
    if not config.project_root:
        return None
    return plugin_sites(Path(config.project_root), config, project)


def entries_of(sites: Optional[PluginSites], path: str) -> Tuple[Tuple[str, str, str, Optional[str], Optional[Tuple]], ...]:
    """The register functions of the module at ``path`` as ``plugin_tools.Entry``."""
    if sites is None:
        return ()
    return tuple((f.function, f.parameter, f.receives, f.plugin, f.call_sites) for f in sites.functions_in(path))
