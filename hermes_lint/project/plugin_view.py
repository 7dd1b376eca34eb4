"""The project's plugins as the plugin rules (HRM801–HRM811) see them: each plugin
(``project.plugins.PluginSpec``), its ``plugin.yaml`` read without trust (``plugin_yaml``), the
tools its ``register(ctx)`` registers, and whether those could all be read.

Computed once per project run and kept on the ``ProjectContext``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Tuple

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.index import Registered, registered

# plugin.yaml's reader is imported once the project has a plugin: every check asks for the views.
if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.project.plugin_yaml import ManifestDocument, ManifestReading


@dataclass(frozen=True)
class PluginView:
    spec: Any  # hermes_lint.project.plugins.PluginSpec
    manifest: Optional[ManifestReading]  # None: the plugin has no plugin.yaml
    registered: Tuple[Registered, ...]  # its registrations with a constant name, in order
    # Every tool its register(ctx) registers was read: no module of the plugin failed to parse,
    # no register_tool call was left unread, no name computed at run time, no **kwargs.
    complete: bool

    @property
    def document(self) -> Optional[ManifestDocument]:
        """The parsed plugin.yaml, None when there is none or it could not be read."""
        from hermes_lint.project.plugin_yaml import ManifestDocument

        return self.manifest if isinstance(self.manifest, ManifestDocument) else None

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(entry.name for entry in self.registered)


def plugin_views(ctx: ProjectContext) -> Tuple[PluginView, ...]:
    """The project's plugins (none without a project directory on disk)."""
    if ctx.plugin_views_cache is None:
        ctx.plugin_views_cache = _views(ctx)
    return ctx.plugin_views_cache


def loaded_target_of(ctx: ProjectContext, spec: Any) -> Any:
    """``entry_point_target.loaded_target`` of ``spec``, once per project run (HRM801 and HRM802
    both ask, and each answer parses the plugin's register module and what it re-exports)."""
    from hermes_lint.project.entry_point_target import loaded_target

    assert ctx.root is not None  # only asked with a project directory on disk
    if spec not in ctx.plugin_targets_cache:
        ctx.plugin_targets_cache[spec] = loaded_target(ctx.root, spec)
    return ctx.plugin_targets_cache[spec]


def _views(ctx: ProjectContext) -> Tuple[PluginView, ...]:
    if ctx.root is None:
        return ()
    from pathlib import Path

    from hermes_lint.project.registration_sites import plugin_sites

    # Which plugins there are is the run's own discovery (remembered for the run, and part of the
    # cache's key), asked through a copy of the root: using ``ctx.root`` as a path marks the run's
    # result as depending on more than its files (``runner._watched``), which a project without
    # plugins must not pay for. Reading a plugin's files below, through ``ctx.root``, does mark it.
    specs = [plugin.spec for plugin in plugin_sites(Path(*ctx.root.parts), ctx.config).plugins]
    if not specs:
        return ()
    from hermes_lint.project.plugin_yaml import read_plugin_yaml

    views = []
    for spec in specs:
        manifest = read_plugin_yaml(ctx.root, spec.manifest) if spec.manifest else None
        views.append(PluginView(spec, manifest, _registered_by(ctx, spec), _complete(ctx, spec)))
    return tuple(views)


def _belongs(path: str, spec: Any) -> bool:
    directory = spec.directory
    return directory == "." or path == directory or path.startswith(directory.rstrip("/") + "/")


def _registered_by(ctx: ProjectContext, spec: Any) -> Tuple[Registered, ...]:
    return tuple(
        entry
        for entry in registered(ctx)
        if entry.registration.plugin_name == spec.name
    )


def _complete(ctx: ProjectContext, spec: Any) -> bool:
    if spec.register_module is None or spec.register_module not in {module.path for module in ctx.modules}:
        return False  # the module whose register the loader calls was not read
    for module in ctx.modules:
        if not _belongs(module.path, spec):
            continue
        if (
            module.parse_error is not None
            or module.unread_register_calls
            or module.misplaced_calls
            or module.unread_plugin_calls
        ):
            return False
        for registration in module.registrations:
            if registration.has_star_args or not isinstance(registration.name, str):
                return False
    return True
