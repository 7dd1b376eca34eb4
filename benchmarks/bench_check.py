"""How fast is `hermes-lint check`, against ruff, flake8 and "import every tool + jsonschema"?

    python benchmarks/bench_check.py [--sizes 100,1000,10000] [--rounds 5] [--large-rounds 1]

For each size N, writes a clean corpus of N tool modules (``gen_corpus.py``), then runs, as whole
processes, in alternating order, several rounds of:

- ``hermes-lint check --no-cache``                 cold (every file parsed and checked)
- ``hermes-lint check --no-cache -j 1``            cold, one process (the per-file cost)
- ``hermes-lint check``                            warm (cache, nothing changed)
- ``hermes-lint check`` after editing one file     warm + that file
- ``ruff check --select ALL --no-cache``           the practical speed limit (concise output)
- ``flake8 -j auto --select E,W,F,C90``            the Python-written peer, without our plugin
- an "import every tool, check its schema with jsonschema" script, with the corpus' ``.pyc``
  files present and without them (``PYTHONDONTWRITEBYTECODE=1``, ``__pycache__`` removed)

and prints, per N, the median wall time, the ratio to ruff's, the median CPU time (user+sys of
the process and the children it waited for) and the peak resident memory of the largest process
of the run (``wait4`` rusage). Sizes of 10,000 and more run ``--large-rounds`` rounds. The
machine may be shared: compare ratios within one run, and CPU times when wall times are noisy.
Then the speed targets (``check_targets``) are checked against the numbers of this run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_corpus import generate  # noqa: E402

LARGE = 10_000

IMPORT_SCRIPT = '''\
"""What a team would otherwise write: import every tool module, validate each schema."""
import importlib.util
import sys
import types
from pathlib import Path

import jsonschema

root = Path(sys.argv[1])
registered = []


class _Registry:
    def register(self, **kwargs):
        registered.append(kwargs)


package = types.ModuleType("tools")
package.__path__ = [str(root / "tools")]
stub = types.ModuleType("tools.registry")
stub.registry = _Registry()
sys.modules["tools"] = package
sys.modules["tools.registry"] = stub
failed = 0
for path in sorted((root / "tools").glob("*_tool.py")):
    name = "tools." + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        failed += 1
        print(f"{path}: import failed: {exc}")
for entry in registered:
    schema = entry["schema"]
    try:
        jsonschema.Draft202012Validator.check_schema(schema["parameters"])
        if schema.get("name") != entry["name"]:
            raise ValueError("schema name differs from the registered name")
    except Exception as exc:
        failed += 1
        print(f"{entry['name']}: {exc}")
print(f"{len(registered)} tools imported, {failed} problems")
sys.exit(1 if failed else 0)
'''

# flake8 runs every installed plugin whatever --select says; hermes-lint's own flake8 plugin must
# not inflate the peer's time, so this runner drops it from plugin discovery.
FLAKE8_RUNNER = '''\
import sys

from flake8.plugins import finder

_find = getattr(finder, "_find_importlib_plugins", None)
if _find is not None:
    def _without_hermes_lint():
        for plugin in _find():
            if not plugin.entry_point.value.startswith("hermes_lint"):
                yield plugin

    finder._find_importlib_plugins = _without_hermes_lint
else:  # pragma: no cover - another flake8 layout
    print("warning: cannot exclude the hermes-lint plugin from flake8", file=sys.stderr)

from flake8.main.cli import main

sys.exit(main())
'''


def executable(name: str) -> str:
    """The real console script next to this interpreter (not a pyenv/asdf shim), else PATH's."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"bench_check: `{name}` is not installed (pip install -e '.[dev]')")
    return found


class Run:
    """One measured process: wall seconds, CPU seconds, peak RSS (MB), exit status, output."""

    def __init__(self, wall: float, cpu: float, rss_mb: float, status: int, output: bytes):
        self.wall, self.cpu, self.rss_mb, self.status, self.output = wall, cpu, rss_mb, status, output


def measure(argv: List[str], cwd: Path, env: Optional[Dict[str, str]] = None, keep_output: bool = False) -> Run:
    stdout = subprocess.PIPE if keep_output else subprocess.DEVNULL
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=stdout, stderr=subprocess.DEVNULL)
    output = process.stdout.read() if keep_output else b""
    # wait4: this child's own rusage (with the children it reaped), not the harness' total.
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if keep_output:
        process.stdout.close()
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode, output)


class Case:
    def __init__(self, label: str, argv: List[str], before: Callable[[int], None] = None,
                 env: Dict[str, str] = None, expect_clean: bool = False):
        self.label, self.argv, self.before, self.env, self.expect_clean = label, argv, before, env, expect_clean
        self.runs: List[Run] = []


def snapshot_toolkit(workdir: Path, compiled: bool) -> Dict[str, str]:
    """Copy the installed hermes_lint package aside and return the environment that runs it.

    The cache is keyed on the toolkit's own files: in a checkout where others keep editing,
    the live package would turn "warm" runs cold whenever a file of it changes mid-benchmark.
    ``compiled``: with its ``.pyc`` files, as ``pip install`` leaves a package; without them and
    with ``PYTHONDONTWRITEBYTECODE=1``, every run compiles every module it imports.
    """
    import compileall

    import hermes_lint

    source = Path(hermes_lint.__file__).resolve().parent
    target = workdir / ("toolkit_snapshot" if compiled else "toolkit_snapshot_no_pyc")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target / "hermes_lint", ignore=shutil.ignore_patterns("__pycache__"))
    if compiled:
        compileall.compile_dir(str(target), quiet=1)
    path = os.pathsep.join(filter(None, [str(target), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    if not compiled:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def baseline_toolkit(workdir: Path, package: Path, env: Dict[str, str]) -> Dict[str, str]:
    """The environment that runs the hermes_lint package at ``package`` instead (a previous
    build to compare with in the same run), copied aside and compiled as ``snapshot_toolkit``'s."""
    import compileall

    target = workdir / "baseline_toolkit"
    shutil.copytree(package, target / "hermes_lint", ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(str(target), quiet=1)
    return dict(env, PYTHONPATH=str(target))


def cases_for(root: Path, workdir: Path, toolkit_env: Optional[Dict[str, str]],
              no_pyc_toolkit_env: Optional[Dict[str, str]]) -> List[Case]:
    hermes = executable("hermes-lint")
    ruff = executable("ruff")
    python = sys.executable
    (workdir / "import_and_validate.py").write_text(IMPORT_SCRIPT, encoding="utf-8")
    (workdir / "flake8_runner.py").write_text(FLAKE8_RUNNER, encoding="utf-8")
    edited = sorted((root / "tools").glob("*_tool.py"))[len(list((root / "tools").glob("*_tool.py"))) // 2]
    original = edited.read_text(encoding="utf-8")

    def edit_one_file(round_number: int) -> None:
        # A real change of content (not only the mtime): the file must be checked again.
        edited.write_text(original + f"# edited in round {round_number}\n", encoding="utf-8")

    def drop_pyc(_round: int) -> None:
        shutil.rmtree(root / "tools" / "__pycache__", ignore_errors=True)

    no_pyc_env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    pyc_env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env = toolkit_env
    cases = [
        Case("hermes-lint cold (--no-cache)", [hermes, "check", "--no-cache"], env=env, expect_clean=True),
        Case("hermes-lint cold -j 1", [hermes, "check", "--no-cache", "-j", "1"], env=env, expect_clean=True),
        Case("hermes-lint warm (cache)", [hermes, "check"], env=env, expect_clean=True),
        Case("hermes-lint warm, 1 file edited", [hermes, "check"], before=edit_one_file, env=env,
             expect_clean=True),
        Case("hermes-lint warm, no toolkit .pyc", [hermes, "check"], env=no_pyc_toolkit_env, expect_clean=True),
        Case("ruff --select ALL --no-cache", [ruff, "check", "--select", "ALL", "--no-cache",
                                              "--output-format", "concise", "."]),
        Case("flake8 -j auto (E,W,F,C90)", [python, str(workdir / "flake8_runner.py"), "-j", "auto",
                                            "--isolated", "--select", "E,W,F,C90", "."]),
        Case("import + jsonschema (.pyc)", [python, str(workdir / "import_and_validate.py"), str(root)],
             env=pyc_env),
        Case("import + jsonschema (no .pyc)", [python, str(workdir / "import_and_validate.py"), str(root)],
             before=drop_pyc, env=no_pyc_env),
    ]
    return cases


def run_size(n: int, rounds: int, workdir: Path, seed: int, toolkit_env, no_pyc_toolkit_env) -> Dict[str, Case]:
    root = workdir / f"corpus_{n}"
    shutil.rmtree(root, ignore_errors=True)
    print(f"\n== N = {n:,} tool files ({rounds} round{'s' if rounds > 1 else ''}) ==", flush=True)
    generate(n, root, seed)
    cases = cases_for(root, workdir, toolkit_env, no_pyc_toolkit_env)
    # Untimed: check the corpus is clean, prime the cache, the OS file cache and the .pyc files.
    first = measure(cases[0].argv, root, cases[0].env, keep_output=True)
    if first.status != 0 or first.output.strip():
        sys.exit(f"bench_check: the corpus is not clean under hermes-lint check:\n{first.output.decode()[:2000]}")
    by_label = {case.label: case for case in cases}
    for label in ("hermes-lint warm (cache)", "hermes-lint warm, no toolkit .pyc", "import + jsonschema (.pyc)"):
        measure(by_label[label].argv, root, by_label[label].env)
    for round_number in range(rounds):
        # Rotate the order so that no tool always runs right after another's cache misses.
        shift = round_number % len(cases)
        for case in cases[shift:] + cases[:shift]:
            if case.before is not None:
                case.before(round_number)
            run = measure(case.argv, root, case.env, keep_output=case.expect_clean)
            if case.expect_clean and (run.status != 0 or run.output.strip()):
                sys.exit(f"bench_check: `{case.label}` reported findings on the clean corpus:\n"
                         f"{run.output.decode()[:2000]}")
            case.runs.append(run)
        print(f"  round {round_number + 1}/{rounds} done", flush=True)
    return {case.label: case for case in cases}


def median(case: Case, attribute: str) -> float:
    return statistics.median(getattr(run, attribute) for run in case.runs)


def print_table(n: int, cases: Dict[str, Case]) -> None:
    ruff = median(cases["ruff --select ALL --no-cache"], "wall")
    print(f"\nN = {n:,}   (medians; ratio = wall time / ruff's wall time)")
    print(f"  {'command':<34} {'wall s':>8} {'x ruff':>7} {'cpu s':>8} {'peak MB':>8}")
    for label, case in cases.items():
        wall = median(case, "wall")
        print(f"  {label:<34} {wall:8.3f} {wall / ruff:7.2f} {median(case, 'cpu'):8.3f} "
              f"{max(run.rss_mb for run in case.runs):8.1f}")


def check_targets(results: Dict[int, Dict[str, Case]]) -> None:
    print("\nSpeed targets, from this run's medians:")

    def verdict(ok: bool) -> str:
        return "MET    " if ok else "NOT MET"

    def wall(n: int, label: str) -> float:
        return median(results[n][label], "wall")

    if 1000 in results:
        cold, ruff = wall(1000, "hermes-lint cold (--no-cache)"), wall(1000, "ruff --select ALL --no-cache")
        flake8, warm = wall(1000, "flake8 -j auto (E,W,F,C90)"), wall(1000, "hermes-lint warm (cache)")
        edited = wall(1000, "hermes-lint warm, 1 file edited")
        per_file = (wall(1000, "hermes-lint cold -j 1") - warm) / 1000
        print(f"  {verdict(cold <= 3 * ruff)} cold 1,000 files <= 3x ruff: {cold / ruff:.2f}x")
        print(f"  {verdict(flake8 >= 7 * cold)} cold 1,000 files >= 7x faster than flake8 -j auto: "
              f"{flake8 / cold:.2f}x")
        print(f"  {verdict(warm <= 0.5 * ruff)} warm, nothing changed <= 0.5x ruff cold: {warm / ruff:.2f}x")
        # "~ warm + that file": the one file's check, plus loading the checking machinery the
        # warm path never imports; allow 100 ms of that on top of the per-file cost.
        extra = edited - warm
        print(f"  {verdict(extra <= per_file + 0.1)} one file edited ~ warm + that file: +{extra * 1000:.0f} ms "
              f"over warm (one file's share of a cold -j 1 run: {per_file * 1000:.1f} ms)")
    if 1000 in results and LARGE in results:
        ratio = wall(LARGE, "hermes-lint cold (--no-cache)") / wall(1000, "hermes-lint cold (--no-cache)")
        print(f"  {verdict(ratio <= 12)} cold 10,000 files <= 12x the 1,000-file time: {ratio:.2f}x")
    if LARGE in results:
        peak = max(run.rss_mb for label, case in results[LARGE].items() if label.startswith("hermes-lint")
                   for run in case.runs)
        print(f"  {verdict(peak < 500)} peak memory at 10,000 files < 500 MB: {peak:.0f} MB "
              "(largest single process of any hermes-lint run)")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(
        description="Benchmark `hermes-lint check` against ruff, flake8 and import+jsonschema.",
    )
    parser.add_argument("--sizes", default="100,1000,10000", help="comma-separated corpus sizes")
    parser.add_argument("--rounds", type=int, default=5, help="rounds for sizes below 10,000")
    parser.add_argument("--large-rounds", type=int, default=1, help="rounds for sizes of 10,000 and more")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="where corpora go (default: a temporary directory)")
    parser.add_argument("--json", type=Path, help="also write every measurement to this file")
    parser.add_argument("--live", action="store_true",
                        help="run the installed hermes_lint as it is, not a snapshot copied at the start")
    options = parser.parse_args(argv)
    sizes = [int(size.replace("_", "")) for size in options.sizes.split(",") if size.strip()]
    temporary = None
    if options.workdir is None:
        temporary = tempfile.TemporaryDirectory(prefix="hermes-bench-")
        workdir = Path(temporary.name)
    else:
        workdir = options.workdir.resolve()
        workdir.mkdir(parents=True, exist_ok=True)
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; "
          f"hermes-lint at {executable('hermes-lint')}; load average {os.getloadavg()[0]:.2f}")
    results: Dict[int, Dict[str, Case]] = {}
    try:
        toolkit_env = None if options.live else snapshot_toolkit(workdir, compiled=True)
        no_pyc_toolkit_env = snapshot_toolkit(workdir, compiled=False)
        print("hermes-lint runs " + ("the installed package as it is" if options.live else
                                     "a snapshot of the installed package, with .pyc files (see --live)")
              + f"; PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}")
        for n in sizes:
            rounds = options.large_rounds if n >= LARGE else options.rounds
            results[n] = run_size(n, rounds, workdir, options.seed, toolkit_env, no_pyc_toolkit_env)
        for n, cases in results.items():
            print_table(n, cases)
        check_targets(results)
        print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
        if options.json:
            options.json.write_text(json.dumps({
                str(n): {label: [vars(run) | {"output": None} for run in case.runs] for label, case in cases.items()}
                for n, cases in results.items()
            }, indent=1), encoding="utf-8")
    finally:
        if temporary is not None:
            temporary.cleanup()


if __name__ == "__main__":
    main()
