"""What a plugin project's manifest says besides its tools: for ``hermes-lint diff`` on a plugin
release, not for the runtime.

A plugin's tools are registered by its ``register(ctx)`` when Hermes's loader imports the plugin;
no runtime loads them from a manifest. The manifest of a plugin project (``hermes-lint manifest``
where the project is a plugin package, a directory plugin or a directory of plugins) freezes the
same tool definitions as a ``tools/`` tree's — schemas, handlers, checks, without importing —
under the plugin's own package name and a format of its own (the runtime refuses it), with
``plugins`` saying which plugin registers which tool and ``toolsets`` the toolsets they register
into.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Dict, List

if TYPE_CHECKING:  # imported where used: ``default_manifest`` is asked by every run's configuration
    from hermes_lint.project.registration_sites import ProjectSites

MANIFEST_NAME = "hermes-tools.json"  # the ``manifest`` setting's default in a plugin project
# Not the runtime's "hermes-tool-manifest" (whose shipped schema it does not follow: its package
# and modules are the plugin's); ``hermes-lint diff`` reads both.
FORMAT = "hermes-plugin-tool-manifest"


def default_manifest(sites: "ProjectSites") -> str:
    """In the package directory of a project with one plugin (it ships with the package), else
    at the root."""
    directories = {p.spec.directory for p in sites.plugins}
    if len(directories) == 1 and (directory := directories.pop()) != ".":
        return f"{directory}/{MANIFEST_NAME}"
    return MANIFEST_NAME


def _slug(name: str) -> str:
    return re.sub(r"\W", "_", name) or "plugin"


def module_name(path: str, sites: "ProjectSites") -> str:
    """The import name of a plugin module: its dotted path (``src/`` dropped); a directory
    plugin's own files are named after the plugin, as the loader's ``hermes_plugins.<slug>``."""
    from hermes_lint.project.plugin_names import dotted_name

    dotted = dotted_name(path)
    plugin = sites.plugin_sites.plugin_of(path)
    spec = next((p.spec for p in sites.plugins if p.spec.name == plugin), None)
    if spec is not None and spec.entry_point is None:
        inside = PurePosixPath(path).relative_to(spec.directory) if spec.directory != "." else PurePosixPath(path)
        rest = dotted_name(inside.as_posix())
        return f"hermes_plugins.{_slug(spec.name)}" + (f".{rest}" if rest else "")
    return dotted or _slug(plugin or "plugin")


def plugin_fields(sites: "ProjectSites", tools: Dict[str, dict]) -> Dict[str, Any]:
    """``package``, ``tools_dir``, ``plugins`` and ``toolsets`` of a plugin project's manifest."""
    from hermes_lint.project.toolset_resolution import registered_by_toolset

    by_module: Dict[str, List[str]] = {}
    for tool in tools.values():
        by_module.setdefault(tool["module"], []).append(tool["name"])
    plugins: Dict[str, Any] = {}
    for followed in sites.plugins:
        spec = followed.spec
        modules = {module_name(f.path, sites) for f in followed.functions}
        plugins[spec.name] = {
            "directory": spec.directory,
            "entry_point": spec.entry_point.value if spec.entry_point else None,
            "manifest": spec.manifest,
            "tools": sorted(name for module in modules for name in by_module.get(module, [])),
        }
    first = sites.plugins[0].spec if sites.plugins else None
    package = module_name(first.register_module, sites).split(".")[0] if first and first.register_module else "plugin"
    if package == "hermes_plugins" and first is not None and len(sites.plugins) == 1:
        package = f"hermes_plugins.{_slug(first.name)}"  # the loader's name for that one plugin
    registered = registered_by_toolset((tool["name"], tool["toolset"]) for tool in tools.values())
    return {
        "format": FORMAT,
        "package": package,
        "tools_dir": first.directory if first and len(sites.plugins) == 1 else ".",
        "plugins": plugins,
        "toolsets": {name: sorted(names) for name, names in sorted(registered.items())},
    }
