"""Start-up cost of a ready tool registry: import discovery vs the frozen manifest.

    python benchmarks/bench_manifest.py [--sizes 100 1000] [--repeat 11] [--no-site]
                                        [--baseline CHECKOUT] [--steps]

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

``--baseline CHECKOUT`` (another checkout of this repository, e.g. a ``git archive`` of main)
adds a fourth process to the same rounds: the manifest start of that checkout's runtime, on the
same corpus with a manifest its own generator wrote; printed as the ratio of its time above the
floor to this one's. ``--steps`` then prints, for the cold manifest start, the CPU time of each
step (``time.process_time`` between them, medians): importing the registry, the loader and
``hermes_lint.discovery``, reading the manifest, checking its digest, parsing it, planning,
listing and hashing the tool files, the lazy entries, ``get_definitions``.

The runtime (``tools.registry.RUNTIME_MODULES`` and ``hermes_lint.discovery``) is copied next to the
corpus, so that other processes writing this checkout's ``__pycache__`` cannot warm a cold run.
Absolute times depend on the machine; the ratios are the result. On a shared machine compare the
CPU rows: wall times move with the load.
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
STEPS = r"""
import sys, time
clock = time.process_time
marks = [clock()]
import tools, tools.registry as r
marks.append(clock())
import tools.manifest_loader as loader, tools.manifest_plan as plans
marks.append(clock())
import hermes_lint.discovery
marks.append(clock())
tools_dir = sys.argv[1]
tools.__path__.append(tools_dir)
raw = hermes_lint.discovery.read_regular_file(tools_dir + "/manifest.json")
marks.append(clock())
digest = plans.verified_digest(raw)
marks.append(clock())
data = plans.parse_json("manifest", raw.decode("utf-8"))
marks.append(clock())
plan = plans.ManifestPlan("manifest", data, digest)
marks.append(clock())
files = plan.files_on_disk(tools_dir)
marks.append(clock())
stale, contents = plan.stale_files(files)
marks.append(clock())
entries = loader._prepared_entries(r.registry, plan, files, set())
loader._fill(r.registry, plan, files, stale, "manifest", entries)
marks.append(clock())
r.registry.get_definitions(r.registry.get_all_tool_names())
marks.append(clock())
assert not stale and digest is not None, (stale, digest)
sys.stdout.write(" ".join(str(b - a) for a, b in zip(marks, marks[1:])))
"""
STEP_NAMES = ("import tools.registry", "import tools.manifest_loader", "import hermes_lint.discovery",
              "read the manifest", "check its digest", "parse it", "plan", "list the tool files",
              "read and hash them", "lazy entries", "get_definitions")

# Names a bench's own processes get from this checkout's runtime, for another checkout's.
RUNTIME_MODULES_SCRIPT = "from tools.registry import RUNTIME_MODULES; print(' '.join(sorted(RUNTIME_MODULES)))"

GENERATE = r"""
import sys
from pathlib import Path
import hermes_lint
from hermes_lint.config import Config
from hermes_lint.manifest.generate import generate_for_root
root, checkout = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
assert Path(hermes_lint.__file__).resolve().is_relative_to(checkout), hermes_lint.__file__
generated = generate_for_root(root, Config())
if not generated.ok:
    raise SystemExit(f"cannot generate the corpus manifest: {generated.problems[:3]}")
(root / "tools" / "manifest.json").write_bytes(generated.text)
"""


def runtime_files(checkout: Path) -> list[str]:
    """The runtime's files in ``checkout``: ``tools.registry.RUNTIME_MODULES`` (read in a child
    process, so that this one never imports a ``tools`` package) and hermes_lint's discovery."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env["PYTHONPATH"] = str(checkout)
    listed = subprocess.run([sys.executable, "-c", RUNTIME_MODULES_SCRIPT], cwd=checkout, env=env,
                            capture_output=True, text=True, check=True).stdout.split()
    return ["tools/__init__.py", *(f"tools/{name.split('.')[1]}.py" for name in listed),
            "hermes_lint/__init__.py", "hermes_lint/discovery.py", "hermes_lint/data/manifest.schema.json"]


def install_runtime(directory: Path, checkout: Path) -> None:
    runtime = directory / "runtime"
    (runtime / "tools").mkdir(parents=True)
    (runtime / "hermes_lint" / "data").mkdir(parents=True)
    for relative in runtime_files(checkout):
        shutil.copy(checkout / relative, runtime / relative)


def generate_manifest(directory: Path, checkout: Path) -> None:
    """The corpus manifest, written by ``checkout``'s own generator."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env["PYTHONPATH"] = str(checkout)
    subprocess.run([sys.executable, "-c", GENERATE, str(directory), str(checkout)], cwd=checkout, env=env,
                   check=True)


def make_baseline(directory: Path, checkout: Path) -> Path:
    """The corpus again, with ``checkout``'s runtime and a manifest its generator wrote."""
    other = directory / "baseline"
    shutil.copytree(directory / "tools", other / "tools", ignore=shutil.ignore_patterns("manifest.json", "__pycache__"))
    if (directory / "toolsets.py").exists():
        shutil.copy(directory / "toolsets.py", other / "toolsets.py")
    generate_manifest(other, checkout)
    install_runtime(other, checkout)
    return other

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

    generate_manifest(directory, REPO_ROOT)
    install_runtime(directory, REPO_ROOT)


def remove_bytecode(directory: Path) -> None:
    for cache in directory.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def child_env(directory: Path, cold: bool) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "GEN_"))}
    env["PYTHONPATH"] = str(directory / "runtime")
    if cold:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_once(mode: str, directory: Path, cold: bool, flags=()):
    runtime = directory / "runtime"
    env = child_env(directory, cold)
    if mode == "baseline":  # the manifest start of the baseline checkout's runtime
        mode, directory = "manifest", directory / "baseline"
        runtime = directory / "runtime"
        env = child_env(directory, cold)
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
    modes = ["floor", "import", "manifest"] + (["baseline"] if (directory / "baseline").exists() else [])
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
    if "baseline" in cpu:
        wall_baseline = medians["baseline"] - floor
        cpu_baseline = cpu["baseline"] - cpu["floor"]
        print(f"{'':<13} baseline manifest: wall +{wall_baseline * 1000:6.1f} ms, CPU +{cpu_baseline * 1000:6.1f} ms "
              f"(import/baseline = {cpu_import / max(cpu_baseline, 1e-9):5.1f}x CPU); baseline/this = "
              f"{wall_baseline / max(above_manifest, 1e-9):4.2f}x wall, {cpu_baseline / max(cpu_manifest, 1e-9):4.2f}x CPU")


def measure_steps(directory: Path, repeat: int, flags=()) -> None:
    """Per step of a cold manifest start, the median CPU time."""
    remove_bytecode(directory)
    rows = []
    for _ in range(repeat):
        completed = subprocess.run([sys.executable, *flags, "-c", STEPS, str(directory / "tools")],
                                   cwd=directory / "runtime", env=child_env(directory, cold=True),
                                   capture_output=True, text=True)
        if completed.returncode != 0:
            raise SystemExit(f"steps run failed:\n{completed.stderr}")
        rows.append([float(value) for value in completed.stdout.split()])
    medians = [statistics.median(column) for column in zip(*rows)]
    print(f"{'':<13} cold manifest start, CPU per step (medians of {repeat}): total {sum(medians) * 1000:.1f} ms")
    for name, value in zip(STEP_NAMES, medians):
        print(f"{'':<15} {name:<32} {value * 1000:6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT",
                        help="also time the manifest start of this other checkout's runtime, in the same rounds")
    parser.add_argument("--steps", action="store_true", help="also print the CPU time of each step of a cold start")
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
            if options.baseline is not None:
                make_baseline(directory, options.baseline.resolve())
            for label, cold in (("cold", True), ("warm", False)):
                report(count, label, measure(directory, options.repeat, cold, flags))
            if options.steps:
                measure_steps(directory, options.repeat, flags)


if __name__ == "__main__":
    main()
