"""The manifest on a release's full source tree: what ``get_definitions`` imports, how many
schemas are frozen, and whether the definitions equal import discovery's, tool by tool.

    python benchmarks/measure_release_manifest.py RELEASE_DIR [RELEASE_DIR ...] [--env NAME=VALUE ...]

Each RELEASE_DIR (an unpacked hermes-agent sdist, never written to) is copied to a temporary
directory; ``hermes-lint manifest`` (this checkout's) writes its ``tools/manifest.json``, and this
checkout's runtime (``tools.registry.RUNTIME_MODULES``) replaces the release's registry there. Then,
in fresh interpreters run from the copy's root (so ``utils``, ``agent/`` and the rest import as
in the release): import discovery, and a start from the manifest followed by ``get_definitions``
of every tool. Printed per release: tool modules, those the manifest start imported for the
definitions, frozen schemas, check kinds, and the tools whose definitions differ (none is the
target). Tool modules whose imports fail in this interpreter (a dependency not installed) lose
their tools under import discovery; they are listed, and left out of the comparison, since the
manifest, by design, defines a tool whose check passes without importing its module.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

RUN = r"""
import json, sys
tool_modules = set(json.loads(sys.argv[2]))
attempted = set()

class Recorder:  # every import of a tool module, including one that then fails
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in tool_modules:
            attempted.add(name)
        return None

sys.meta_path.insert(0, Recorder)
import tools, tools.registry as r
mode = sys.argv[1]
if mode == "import":
    r.discover_builtin_tools(use_manifest=False)
else:
    r.registry.load_manifest("tools/manifest.json")
before = sorted(attempted)
names = r.registry.get_all_tool_names()
definitions = {d["function"]["name"]: d for d in r.registry.get_definitions(names, quiet=True)}
after = sorted(attempted)
imported = sorted(m for m in sys.modules if m in tool_modules)
print(json.dumps({"names": names, "definitions": definitions, "before": before, "after": after,
                  "imported": imported}))
"""


def runtime_files() -> list[str]:
    sys.path.insert(0, str(REPO_ROOT))
    from tools.registry import RUNTIME_MODULES

    return [f"tools/{name.split('.')[1]}.py" for name in sorted(RUNTIME_MODULES)]


def run(root: Path, mode: str, tool_modules: list[str], env: dict[str, str]) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment.update(env)
    environment["PYTHONPATH"] = str(root)
    environment["HOME"] = str(root / ".home")
    completed = subprocess.run([sys.executable, "-c", RUN, mode, json.dumps(tool_modules)],
                               cwd=root, capture_output=True, text=True, timeout=600, env=environment)
    if completed.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout)


def measure(release: Path, env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory(prefix="release-manifest-") as scratch:
        root = Path(scratch) / release.name
        shutil.copytree(release, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (root / ".home").mkdir()
        generated = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest", "--root", str(root)],
                                   cwd=root, capture_output=True, text=True, timeout=600)
        if generated.returncode != 0:
            raise SystemExit(f"hermes-lint manifest failed on {release}:\n{generated.stderr}{generated.stdout}")
        for relative in runtime_files():
            shutil.copy(REPO_ROOT / relative, root / relative)
        manifest = json.loads((root / "tools" / "manifest.json").read_text(encoding="utf-8"))
        tool_modules = sorted(set(manifest["modules"]) | set(manifest["import_only"]))
        tools = manifest["tools"]
        frozen = sum(1 for tool in tools.values() if not any("reason" in h for h in tool.get("holes", ())))
        kinds = collections.Counter(tool["check"]["kind"] for tool in tools.values())

        by_import = run(root, "import", tool_modules, env)
        by_manifest = run(root, "manifest", tool_modules, env)
        not_importable = sorted(set(tool_modules) - set(by_import["imported"]))
        lost = {name for name, tool in tools.items() if tool["module"] in not_importable}
        compared = [name for name in by_import["names"] if name not in lost]
        differ = sorted(
            name for name in set(by_import["definitions"]) | set(by_manifest["definitions"])
            if name not in lost and by_import["definitions"].get(name) != by_manifest["definitions"].get(name)
        )
        print(f"{release.name}: {len(tool_modules)} tool modules, {len(tools)} tools in the manifest")
        print(f"  tool modules imported by the manifest start: {len(by_manifest['before'])}; by the start "
              f"and get_definitions: {len(by_manifest['after'])} of {len(tool_modules)} (import attempts, "
              f"even when the import fails)")
        print(f"  frozen schemas: {frozen} of {len(tools)}; checks: {dict(sorted(kinds.items()))}")
        print(f"  definitions: {len(by_manifest['definitions'])} from the manifest, "
              f"{len(by_import['definitions'])} by import discovery; compared {len(compared)} tools, "
              f"differing: {differ or 'none'}")
        if not_importable:
            print(f"  modules that do not import here (left out): {', '.join(not_importable)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("releases", nargs="+", type=Path)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    options = parser.parse_args()
    env = dict(item.split("=", 1) for item in options.env)
    for release in options.releases:
        measure(release.resolve(), env)


if __name__ == "__main__":
    main()
