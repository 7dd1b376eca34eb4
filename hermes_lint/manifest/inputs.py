"""What the manifest is made of: the one definition of its inputs.

``hermes-lint manifest`` (and ``--check``), ``check``'s HRM501 (``stale_manifest``) and
``check --fix``'s regeneration all read the project through ``manifest_inputs``, so that they cannot disagree
about whether a manifest is fresh: two readings of the project would make ``manifest`` and
``check --fix`` undo each other's output for ever.

The inputs of a Hermes tree are the tool modules of the tools directory (those runtime
discovery imports) and ``toolsets.py``. Its bundled plugins are not frozen: Hermes's plugin
loader imports a plugin and calls its ``register(ctx)`` whatever the manifest says, so a plugin
file there is neither a frozen module nor a recorded source hash. A plugin project's manifest
(``manifest_sites``) is the plugins' own: their modules are its inputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

from hermes_lint.config import Config
from hermes_lint.model import Diagnostic

if TYPE_CHECKING:
    from hermes_lint.check.engine import ProjectSources

STALE = "HRM501"  # the code of a manifest out of date


def manifest_inputs(root: Path, config: Config) -> "ProjectSources":
    """The files the manifest of the project at ``root`` is generated from, as read now."""
    from hermes_lint.check.engine import collect_sources

    return collect_sources(root, config, plugins=manifest_sites(root, config) is not None)


def manifest_sites(root: Path, config: Config) -> Optional[Any]:
    """The ``ProjectSites`` of a plugin project, whose plugins' registrations the manifest
    freezes (``generate``'s ``plugin_project``); None for a tools/ tree."""
    from hermes_lint.project.registration_sites import project_sites

    sites = project_sites(root, config)
    return sites if sites.kind == "plugins" else None


def stale_manifest(root: Path, config: Config) -> List[Diagnostic]:
    """HRM501 as ``check`` reports it: what ``manifest --check`` says of the manifest on disk,
    when HRM501 is selected and the project has a manifest (a project without one has chosen
    not to freeze its tools: ``check`` does not ask for one). The errors that block generation
    are ``check``'s own findings already, reported by their rules. Answered without generating
    when ``manifest`` or ``manifest --check`` recorded it up to date and nothing it depends on
    changed since (``fresh_cache``); a manifest found up to date here is recorded the same way."""
    from hermes_lint.manifest.fresh_cache import known_fresh, pin, remember_fresh

    target = root / config.manifest
    if not config.is_selected(STALE, config.manifest) or not target.is_file():
        return []
    if known_fresh(root, config, target) is not None:
        return []  # without importing the generator
    from hermes_lint.manifest.generate import generate_for_root, read_current, stale_diagnostic, summary

    pinned = pin(root, config)
    generated = generate_for_root(root, config)
    if not generated.ok:
        return [d for d in generated.problems if d.code == STALE]
    current = read_current(target)
    if current is not None and current == generated.text:
        remember_fresh(root, config, target, summary(generated.produced()[0]), generated.inputs, pinned, current)
        return []
    try:  # as ``generate.check_manifest`` names it
        shown = target.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = str(target)
    return [stale_diagnostic(shown)]
