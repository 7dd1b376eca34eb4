"""Every diagnostic ``hermes-lint check`` reports for a project: the rules' (``check.runner``: the
per-file phase, cached and parallel, then the project phase) and the manifest's freshness
(HRM501: ``manifest.inputs.stale_manifest``), cached together.

Above ``check`` and ``manifest``: the manifest's generator runs check's engine (it refuses to
write while errors remain), so the check runner is handed HRM501 rather than importing it.
Nothing is imported here until a run needs it: a warm run reuses the cached diagnostics without
loading the engine or the manifest.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from hermes_lint.config import Config

if TYPE_CHECKING:
    from hermes_lint.model import Diagnostic


def run_project(
    root: Path,
    config: Config,
    *,
    jobs: Optional[int] = 1,
    use_cache: bool = False,
    reads: Optional[Dict[str, Tuple[str, ...]]] = None,
    checked: Optional[List[int]] = None,
) -> List["Diagnostic"]:
    """Every diagnostic of the project at ``root``. ``jobs``: at most that many processes for the
    per-file phase; None: as many as the amount of work and the CPUs make worthwhile. ``reads``:
    filled with each tool module's path -> the other project files its facts were read from
    (``check.affected.module_reads``). ``checked``: a list that gets [registrations read,
    register calls that could not be read]."""
    from hermes_lint.check.runner import check_project

    return check_project(
        root, config, manifest_findings=_stale_manifest, jobs=jobs, use_cache=use_cache, reads=reads, checked=checked
    )


def _stale_manifest(root: Path, config: Config) -> List["Diagnostic"]:
    from hermes_lint.manifest.inputs import stale_manifest

    return stale_manifest(root, config)
