"""Start-up cost of a ready tool registry: import discovery vs the frozen manifest.

    python benchmarks/bench_manifest.py [--sizes 100 1000] [--repeat 11] [--no-site]

For each N, a generated project of N tool modules (80–150 lines each, standard-library imports;
``benchmarks/gen_corpus.py`` when it exists, else ``benchmarks/gen_tools.py``), and three kinds
of process, alternating in one run, each timed from spawn to exit:

- floor: ``python -c pass``;
- import: ``import tools.registry``, ``discover_builtin_tools(dir, use_manifest=False)``, then
  ``get_definitions`` of every tool (what an agent does before its first model call);
- manifest: ``import tools.registry``, ``registry.load_manifest(manifest)``, then the same
  ``get_definitions``.

Each runs cold — no ``__pycache__`` for the runtime or the tools, and
``PYTHONDONTWRITEBYTECODE=1`` so none is written (a fresh checkout or container start, or an
environment that never writes bytecode) — and warm (``.pyc`` files present). Printed: medians in
ms, the time above the floor, the ratio of import discovery's time above the floor to the
manifest's, and how many tool modules each had imported when ``get_definitions`` returned.

The runtime (``tools.registry.RUNTIME_MODULES`` and ``hermes_lint.discovery``) is copied next to the corpus,
so that other processes writing this checkout's ``__pycache__`` cannot warm a cold run.
Absolute times depend on the machine; the ratios are the result.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

# The runtime: what an agent process loads (copied, so no other process warms its bytecode).
def runtime_files() -> list[str]:
    sys.path.insert(0, str(REPO_ROOT))
    try:
        from tools.registry import RUNTIME_MODULES
    finally:
        sys.path.remove(str(REPO_ROOT))
    return ["tools/__init__.py", *sorted(f"tools/{name.split('.')[1]}.py" for name in RUNTIME_MODULES),
            "hermes_lint/__init__.py", "hermes_lint/discovery.py", "hermes_lint/data/manifest.schema.json"]

RUN = r"""
import sys
import tools, tools.registry as r
mode, tools_dir = sys.argv[1], sys.argv[2]
tools.__path__.append(tools_dir)
if mode == "import":
    r.discover_builtin_tools(tools_dir, use_manifest=False)
else:
    r.registry.load_manifest(tools_dir + "/manifest.json", tools_dir=tools_dir)
definitions = r.registry.get_definitions(r.registry.get_all_tool_names())
imported = sum(1 for m in sys.modules if m.startswith("tools.") and m not in r.RUNTIME_MODULES)
sys.stdout.write(f"{len(definitions)} {imported}")
"""


def make_project(directory: Path, count: int) -> None:
    """The corpus and its manifest; the runtime copied beside it."""
    generator = REPO_ROOT / "benchmarks" / "gen_corpus.py"
    if generator.exists():
        subprocess.run([sys.executable, str(generator), str(count), str(directory)], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        spec = importlib.util.spec_from_file_location("gen_tools", REPO_ROOT / "benchmarks" / "gen_tools.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.generate_corpus(directory, count)

    from hermes_lint.config import Config
    from hermes_lint.manifest.generate import generate_for_root

    generated = generate_for_root(directory, Config())
    if not generated.ok:
        raise SystemExit(f"cannot generate the corpus manifest: {generated.problems[:3]}")
    (directory / "tools" / "manifest.json").write_bytes(generated.text)

    runtime = directory / "runtime"
    (runtime / "tools").mkdir(parents=True)
    (runtime / "hermes_lint" / "data").mkdir(parents=True)
    for relative in runtime_files():
        shutil.copy(REPO_ROOT / relative, runtime / relative)


def remove_bytecode(directory: Path) -> None:
    for cache in directory.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def run_once(mode: str, directory: Path, cold: bool, flags=()):
    runtime = directory / "runtime"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "GEN_"))}
    env["PYTHONPATH"] = str(runtime)
    if cold:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [sys.executable, *flags, "-c", "pass"] if mode == "floor" else [
        sys.executable, *flags, "-c", RUN, mode, str(directory / "tools")
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run(command, cwd=runtime, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # processes run one at a time: this one's
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if completed.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{completed.stderr}")
    counts = tuple(int(x) for x in completed.stdout.split()) if mode != "floor" else (0, 0)
    return elapsed, cpu, counts


def measure(directory: Path, repeat: int, cold: bool, flags=()) -> dict:
    modes = ["floor", "import", "manifest"]
    times = {mode: [] for mode in modes}
    cpu_times = {mode: [] for mode in modes}
    counts = {}
    if cold:
        remove_bytecode(directory)
    else:
        for mode in modes:  # write the .pyc files
            run_once(mode, directory, cold=False, flags=flags)
    for round_number in range(repeat):
        shift = round_number % len(modes)
        for mode in modes[shift:] + modes[:shift]:  # alternate, and rotate who goes first
            elapsed, cpu, counts[mode] = run_once(mode, directory, cold, flags)
            times[mode].append(elapsed)
            cpu_times[mode].append(cpu)
    if cold and any(directory.rglob("__pycache__")):
        raise SystemExit("a cold run wrote bytecode")
    return {"medians": {mode: statistics.median(values) for mode, values in times.items()},
            "cpu": {mode: statistics.median(values) for mode, values in cpu_times.items()}, "counts": counts}


def report(count: int, label: str, result: dict) -> None:
    medians = result["medians"]
    floor = medians["floor"]
    above_import = medians["import"] - floor
    above_manifest = medians["manifest"] - floor
    definitions, imported_by_import = result["counts"]["import"]
    _, imported_by_manifest = result["counts"]["manifest"]
    print(f"N={count:<5} {label:<5} floor {floor * 1000:7.1f} ms | "
          f"import discovery {medians['import'] * 1000:7.1f} ms (+{above_import * 1000:6.1f}, "
          f"{imported_by_import} modules imported) | "
          f"manifest {medians['manifest'] * 1000:7.1f} ms (+{above_manifest * 1000:6.1f}, "
          f"{imported_by_manifest} modules imported) | "
          f"above the floor: import/manifest = {above_import / max(above_manifest, 1e-9):5.1f}x; "
          f"total: {medians['import'] / medians['manifest']:4.2f}x  [{definitions} definitions]")
    cpu = result["cpu"]
    cpu_import, cpu_manifest = cpu["import"] - cpu["floor"], cpu["manifest"] - cpu["floor"]
    print(f"{'':<13} CPU   floor {cpu['floor'] * 1000:7.1f} ms | import discovery {cpu['import'] * 1000:7.1f} ms "
          f"(+{cpu_import * 1000:6.1f}) | manifest {cpu['manifest'] * 1000:7.1f} ms (+{cpu_manifest * 1000:6.1f}) | "
          f"above the floor: import/manifest = {cpu_import / max(cpu_manifest, 1e-9):5.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--no-site", action="store_true",
                        help="run every process with -S: no site-packages .pth files (which may import "
                        "a lot at start-up in some environments), as in a bare container")
    options = parser.parse_args()
    flags = ("-S",) if options.no_site else ()
    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}; "
          f"medians of {options.repeat} runs of each process{'; python -S' if flags else ''}")
    for count in options.sizes:
        with tempfile.TemporaryDirectory(prefix=f"bench-manifest-{count}-") as tmp:
            directory = Path(tmp)
            make_project(directory, count)
            for label, cold in (("cold", True), ("warm", False)):
                report(count, label, measure(directory, options.repeat, cold, flags))


if __name__ == "__main__":
    main()
