"""`hermes-lint check` on real-sized tool modules, against ruff on the same files, in one run.

    python benchmarks/bench_real.py [--real-sized 100] [--project DIR ...] [--rounds 5] [--baseline DIR]

Two kinds of project, each copied into a temporary directory (a warm run writes
``.hermes_lint_cache/`` into the project, and the projects given are never written to):

- ``--real-sized N``: N generated modules shaped like published ones (``gen_corpus.py
  --real-sized``: 500-3,000 lines, several registrations, long schemas, lambdas, helpers);
- ``--project DIR`` (repeatable): a real project, e.g. an unpacked hermes-agent release: its
  ``tools/`` directory and ``toolsets.py`` (the files ``check`` reads) are copied.

For each, whole processes in rotating order, ``--rounds`` rounds, medians:

- ``hermes-lint check --no-cache``       cold, workers chosen from the amount of work (the default)
- ``hermes-lint check --no-cache -j 1``  cold, one process
- ``hermes-lint check``                  warm (nothing changed)
- ``ruff check --select ALL --no-cache --isolated`` on the same files (``tools/*.py`` and
  ``toolsets.py``): the practical speed limit
- the parsing floor: a bare ``python`` that reads the same files, ``ast.parse``-es each and
  compiles the tool modules statement by statement, as ``check`` must before any rule runs (no
  hermes-lint import): what a cold check in CPython cannot go below

- with ``--baseline DIR`` (a ``hermes_lint`` package directory, e.g. an earlier commit's from
  ``git archive``): ``hermes-lint check --no-cache -j 1`` of that toolkit, interleaved with the
  others, so that a change is measured against its predecessor in the same run (same findings
  required);

and the targets: cold ``-j 1`` <= 1.5x the parsing floor (CPU); the default never slower than
``-j 1`` (wall, within 5%: the noise of a shared machine). Ratios are only meaningful within one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import Run, baseline_toolkit, executable, measure, snapshot_toolkit  # noqa: E402
from gen_corpus import generate  # noqa: E402


def copy_project(source: Path, target: Path) -> None:
    """The files ``check`` reads: ``tools/`` (top level only: ``check`` reads no subdirectory)
    and ``toolsets.py``."""
    (target / "tools").mkdir(parents=True)
    for path in sorted((source / "tools").glob("*.py")):
        if path.is_file():
            shutil.copy2(path, target / "tools" / path.name)
    if (source / "toolsets.py").is_file():
        shutil.copy2(source / "toolsets.py", target / "toolsets.py")


# The parsing floor (``--floor``): what every cold check does before any rule runs, in the
# standard library alone: read each file, parse it, and compile a tool module's top-level
# statements (``model.parsing.parse_module``'s compile check).
FLOOR_SCRIPT = """
import ast, sys, warnings
warnings.simplefilter("ignore")
for name in sys.argv[1:]:
    with open(name, "rb") as handle:
        tree = ast.parse(handle.read(), filename=name)
    if any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
           and s.value.func.attr == "register" for s in tree.body):
        for stmt in tree.body:
            compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec", dont_inherit=True)
"""
FLOOR = "parsing floor (python, no rules)"


def bench_project(label: str, root: Path, rounds: int, env: Dict[str, str],
                  baseline_env: Optional[Dict[str, str]] = None) -> Dict[str, float]:
    hermes, ruff = executable("hermes-lint"), executable("ruff")
    files = [str(path.relative_to(root)) for path in sorted((root / "tools").glob("*.py"))]
    if (root / "toolsets.py").exists():
        files.append("toolsets.py")
    lines = sum(len((root / name).read_bytes().splitlines()) for name in files)
    cases = {
        "hermes-lint cold (default -j)": [hermes, "check", "--no-cache"],
        "hermes-lint cold -j 1": [hermes, "check", "--no-cache", "-j", "1"],
        "hermes-lint warm": [hermes, "check"],
        "ruff --select ALL --no-cache": [ruff, "check", "--select", "ALL", "--no-cache", "--isolated",
                                         "--output-format", "concise", *files],
        FLOOR: [sys.executable, "-c", FLOOR_SCRIPT, *files],
    }
    envs = {name: env for name in cases}
    if baseline_env is not None:
        cases["hermes-lint cold -j 1 (baseline)"] = [hermes, "check", "--no-cache", "-j", "1"]
        envs["hermes-lint cold -j 1 (baseline)"] = baseline_env
    print(f"\n== {label}: {len(files)} files, {lines:,} lines ({rounds} rounds) ==", flush=True)
    # Untimed: the OS file cache, .pyc files, the warm cache; and every hermes-lint run must
    # report the same (exit 0 or 1, same output), or the timings compare different work.
    outputs = {}
    for name, argv in cases.items():
        run = measure(argv, root, envs[name], keep_output=name.startswith("hermes-lint"))
        if name.startswith("hermes-lint"):
            if run.status not in (0, 1):
                sys.exit(f"bench_real: `{name}` failed with exit status {run.status}")
            outputs[name] = (run.status, run.output)
    if len(set(outputs.values())) != 1:
        sys.exit(f"bench_real: the hermes-lint runs disagree on {label}")
    status, output = next(iter(outputs.values()))
    print(f"  hermes-lint reports {len(output.splitlines())} findings (exit {status}), cold and warm alike")
    runs: Dict[str, List[Run]] = {name: [] for name in cases}
    names = list(cases)
    for round_number in range(rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            runs[name].append(measure(cases[name], root, envs[name]))
    wall = {name: statistics.median(run.wall for run in found) for name, found in runs.items()}
    cpu = {name: statistics.median(run.cpu for run in found) for name, found in runs.items()}
    ruff_wall = wall["ruff --select ALL --no-cache"]
    ruff_cpu = cpu["ruff --select ALL --no-cache"]
    print(f"  {'command':<34} {'wall s':>8} {'x ruff':>7} {'cpu s':>8} {'x ruff':>7}")
    for name in names:
        print(f"  {name:<34} {wall[name]:8.3f} {wall[name] / ruff_wall:7.2f} {cpu[name]:8.3f} "
              f"{cpu[name] / ruff_cpu:7.2f}")
    cold, serial = wall["hermes-lint cold (default -j)"], wall["hermes-lint cold -j 1"]
    ratio = cpu["hermes-lint cold -j 1"] / cpu[FLOOR]
    before = ""
    if "hermes-lint cold -j 1 (baseline)" in cpu:
        before = f" (baseline {cpu['hermes-lint cold -j 1 (baseline)'] / cpu[FLOOR]:.2f}x)"
    print(f"  {'MET    ' if ratio <= 1.5 else 'NOT MET'} cold -j 1 <= 1.5x the parsing floor (CPU): {ratio:.2f}x{before}; "
          f"the checker above the floor: {(cpu['hermes-lint cold -j 1'] - cpu[FLOOR]):.3f} s CPU")
    print(f"  the parsing floor alone is {cpu[FLOOR] / ruff_cpu:.2f}x ruff's CPU and {wall[FLOOR] / ruff_wall:.2f}x its "
          f"wall time")
    # Within 5%: what single rounds of the same command vary by.
    print(f"  {'MET    ' if cold <= 1.05 * serial else 'NOT MET'} default -j never slower than -j 1 (wall, within 5%): "
          f"{cold:.3f} s vs {serial:.3f} s")
    return wall


def main(argv: List[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real-sized", type=int, default=100, metavar="N",
                        help="generated real-sized modules (0: none)")
    parser.add_argument("--project", type=Path, action="append", default=[],
                        help="a real project root (tools/ and toolsets.py are copied); repeatable")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="a hermes_lint package directory to time beside the installed one")
    options = parser.parse_args(argv)
    if options.baseline is not None and not (options.baseline / "__init__.py").is_file():
        parser.error(f"--baseline {options.baseline}: not a package directory (no __init__.py)")
    for project in options.project:
        if not (project / "tools").is_dir():
            parser.error(f"--project {project}: no tools/ directory")
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="hermes-bench-real-") as temporary:
        workdir = Path(temporary)
        # A snapshot of the toolkit: others' edits to a live checkout would turn warm runs cold.
        env = snapshot_toolkit(workdir, compiled=True)
        baseline_env = None
        if options.baseline is not None:
            baseline_env = baseline_toolkit(workdir, options.baseline, dict(os.environ))
        if options.real_sized:
            root = workdir / "real_sized"
            generate(options.real_sized, root, options.seed, real_sized=True)
            bench_project(f"generated real-sized modules (gen_corpus.py {options.real_sized} --real-sized)",
                          root, options.rounds, env, baseline_env)
        for number, project in enumerate(options.project):
            root = workdir / f"project_{number}"
            copy_project(project, root)
            bench_project(str(project), root, options.rounds, env, baseline_env)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
