"""The reference runtime's modules (``tools.registry`` and the modules it loads), for ``init``
to copy into a new project, so that a scaffolded tool's ``from tools.registry import ...`` runs.

The runtime is installed with the package as ``hermes_lint/runtime`` (pyproject.toml maps the
repository's ``tools/`` there); in a source checkout it is ``tools/`` beside the package. Which
of its files are the runtime is the runtime's own answer, ``tools.registry.RUNTIME_MODULES``,
read in a child interpreter where that directory is the ``tools`` package (this process must
not import a second ``tools``, nor the runtime under another name than the one it is written
for).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

# Run as ``python -I -c SCRIPT DIRECTORY``: the runtime's module names, one a line.
_LIST_SCRIPT = """\
import importlib.util, sys
directory = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "tools", directory + "/__init__.py", submodule_search_locations=[directory]
)
package = importlib.util.module_from_spec(spec)
sys.modules["tools"] = package
spec.loader.exec_module(package)
from tools.registry import RUNTIME_MODULES
print("\\n".join(sorted(RUNTIME_MODULES)))
"""


class RuntimeNotFound(Exception):
    """The runtime's files are not where this installation keeps them; one line for the user."""


def runtime_directory() -> Path:
    """The directory holding the runtime's modules (``registry.py`` among them)."""
    candidates: List[Path] = []
    spec = importlib.util.find_spec("hermes_lint.runtime")
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(location) for location in spec.submodule_search_locations]
    candidates.append(Path(__file__).resolve().parents[2] / "tools")  # a source checkout
    for candidate in candidates:
        if (candidate / "registry.py").is_file() and (candidate / "__init__.py").is_file():
            return candidate
    raise RuntimeNotFound("the reference runtime (tools/registry.py) is not installed with hermes-lint")


def runtime_file_names(directory: Optional[Path] = None) -> List[str]:
    """The file names (``registry.py``...) of the modules ``tools.registry.RUNTIME_MODULES``
    names, in that order of names."""
    directory = directory or runtime_directory()
    listed = subprocess.run(
        [sys.executable, "-I", "-c", _LIST_SCRIPT, str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if listed.returncode != 0:
        last = (listed.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeNotFound(f"cannot list the reference runtime's modules in {directory}: {last}")
    names = []
    for module in listed.stdout.split():
        package, _, stem = module.rpartition(".")
        if package != "tools" or not stem.isidentifier():
            raise RuntimeNotFound(f"the reference runtime names a module outside its package: {module}")
        names.append(f"{stem}.py")
    return names
