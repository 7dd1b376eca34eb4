"""The `hermes-lint` pre-commit hooks on a commit touching 1-3 tool files, with a warm cache.

    python benchmarks/bench_precommit.py [--tools 100] [--rounds 7] [--real-sized] [--baseline DIR]

Writes a project of ``--tools`` tool modules (``gen_corpus.py``; ``--real-sized``: modules of
500-3,000 lines) with its frozen manifest (``hermes-lint manifest``), commits it to a git
repository and runs ``hermes-lint check`` and ``hermes-lint manifest --check`` once (the warm
caches a developer has). Then, for k = 1, 2, 3, each round edits k tool files (alternating
between two contents, so that every round's files differ from what the caches hold),
regenerates the manifest as the developer would (untimed), stages them and times, as whole
processes, medians of ``--rounds``:

- both hooks the README recommends, as pre-commit runs them: ``hermes-lint check --changed
  FILE...`` (the staged Python files) and ``hermes-lint manifest --check``, one after the other
  (their wall and CPU times added);
- ``pre-commit run`` with both hooks (``repo: local``, the entries and options of
  ``.pre-commit-hooks.yaml``, ``language: system``: no environment to build), and with two hooks
  that do nothing (``true``): their difference is what the hooks add to a commit.

With ``--baseline DIR`` (a ``hermes_lint`` package directory, e.g. an earlier commit's from
``git archive``), the same two hooks of that toolkit are timed in the same rounds, after the same
edit and regeneration (the regeneration by the toolkit being timed: what it records is its own).

The target: the hooks <= 0.3 s. Whole-process times on a shared machine vary; the "nothing
changed" row (both commands, warm) is the floor of the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import baseline_toolkit, executable, measure, snapshot_toolkit  # noqa: E402
from gen_corpus import generate  # noqa: E402

HOOKS = Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@invalid", "-c", "commit.gpgsign=false",
                    "-c", "core.hooksPath=/dev/null", *args], cwd=root, check=True, capture_output=True)


def hook_config(noop: bool) -> str:
    """A local copy of the published hooks (same entries and options); or hooks doing nothing."""
    import yaml  # pre-commit's own dependency

    hooks = []
    for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8")):
        local = dict(hook, language="system")
        if noop:
            local.update(id=f"noop-{hook['id']}", name="noop", entry="true")
        hooks.append(local)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]})


def hooks(hermes: str, relative: List[str]) -> List[List[str]]:
    """The commands of both hooks as pre-commit runs them on a commit of ``relative``."""
    return [[hermes, "check", "--changed", *relative], [hermes, "manifest", "--check"]]


def measure_hooks(hermes: str, relative: List[str], root: Path, env: Dict[str, str]):
    """(wall s, CPU s) of both hooks, one after the other; exits when one fails."""
    wall = cpu = 0.0
    for argv in hooks(hermes, relative):
        run = measure(argv, root, env, keep_output=True)
        if run.status != 0:
            sys.exit(f"bench_precommit: `{' '.join(argv[1:3])}` failed:\n{run.output.decode()[:2000]}")
        wall, cpu = wall + run.wall, cpu + run.cpu
    return wall, cpu


def main(argv: List[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--real-sized", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="a hermes_lint package directory whose hooks are timed beside the installed one's")
    options = parser.parse_args(argv)
    if options.baseline is not None and not (options.baseline / "__init__.py").is_file():
        parser.error(f"--baseline {options.baseline}: not a package directory (no __init__.py)")
    hermes = executable("hermes-lint")
    with tempfile.TemporaryDirectory(prefix="hermes-bench-precommit-") as temporary:
        # A snapshot of the toolkit with its .pyc files, as pip leaves an installed package.
        env = snapshot_toolkit(Path(temporary), compiled=True)
        env.update(PATH=os.pathsep.join([str(Path(hermes).parent), os.environ.get("PATH", "")]),
                   PRE_COMMIT_COLOR="never")
        baseline_env = None
        if options.baseline is not None:
            baseline_env = baseline_toolkit(Path(temporary), options.baseline, env)
        root = Path(temporary) / "project"
        written = generate(options.tools, root, options.seed, real_sized=options.real_sized)
        configs = {}
        for noop in (False, True):
            configs[noop] = root.parent / ("noop.yaml" if noop else "hook.yaml")
            configs[noop].write_text(hook_config(noop), encoding="utf-8")
        manifest = measure([hermes, "manifest"], root, env, keep_output=True)
        if manifest.status != 0:
            sys.exit(f"bench_precommit: `hermes-lint manifest` failed:\n{manifest.output.decode()[:2000]}")
        git(root, "init", "--quiet")
        git(root, "add", "-A")
        git(root, "commit", "--quiet", "-m", "initial")
        (root / ".git" / "info" / "exclude").write_text(".hermes_lint_cache/\n", encoding="utf-8")
        first = measure([hermes, "check"], root, env, keep_output=True)
        if first.status != 0:
            sys.exit(f"bench_precommit: the project is not clean:\n{first.output.decode()[:2000]}")
        measure_hooks(hermes, [], root, env)  # the manifest check's warm record
        baseline_root = root.with_name("project_baseline")
        if baseline_env is not None:  # a copy: its caches are the baseline toolkit's own
            shutil.copytree(root, baseline_root, ignore=shutil.ignore_patterns(".hermes_lint_cache"), symlinks=True)
            measure([hermes, "check"], baseline_root, baseline_env)
            measure_hooks(hermes, [], baseline_root, baseline_env)
        lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in written)
        print(f"{options.tools} tool modules, {lines:,} lines{' (real-sized)' if options.real_sized else ''}; "
              f"medians of {options.rounds} rounds; load average {os.getloadavg()[0]:.2f}")
        originals = {path: path.read_text(encoding="utf-8") for path in written}
        step = max(1, len(written) // 4)
        print(f"  {'files in the commit':<22} {'hooks s':>8} {'hooks cpu s':>12} {'pre-commit run s':>17} "
              f"{'no-op hooks s':>14} {'hooks add s':>12}" + ("  baseline hooks cpu s" if baseline_env else ""))
        verdicts = []
        for count in (1, 2, 3):
            edited = written[step : step * (count + 1) : step][:count]
            relative = [str(path.relative_to(root)) for path in edited]
            times: Dict[str, List[float]] = {"hook": [], "run": [], "noop": [], "cpu": [], "baseline": []}
            names = ("hook", "run", "noop") + (("baseline",) if baseline_env else ())
            for round_number in range(options.rounds + 1):  # round 0: warm-up, untimed
                for name in names:
                    toolkit, where = (baseline_env, baseline_root) if name == "baseline" else (env, root)
                    for path in edited:  # what the caches hold differs from the file again
                        (where / path.relative_to(root)).write_text(
                            originals[path] + f"# round {round_number} {name}\n", encoding="utf-8")
                    # the developer regenerates the manifest the edit made stale, and stages both
                    measure([hermes, "manifest"], where, toolkit)
                    git(where, "add", *relative, "tools/manifest.json")
                    if name in ("hook", "baseline"):
                        wall, cpu = measure_hooks(hermes, relative, where, toolkit)
                    else:
                        config = configs[name == "noop"]
                        run = measure([sys.executable, "-m", "pre_commit", "run", "--config", str(config)], root, env,
                                      keep_output=True)
                        if run.status != 0:
                            sys.exit(f"bench_precommit: {name} failed:\n{run.output.decode()[:2000]}")
                        wall, cpu = run.wall, run.cpu
                    if round_number:
                        times[name].append(cpu if name == "baseline" else wall)
                        if name == "hook":
                            times["cpu"].append(cpu)
            hook, run, noop, cpu = (statistics.median(times[name]) for name in ("hook", "run", "noop", "cpu"))
            before = f"  {statistics.median(times['baseline']):20.3f}" if baseline_env else ""
            print(f"  {count:<22} {hook:8.3f} {cpu:12.3f} {run:17.3f} {noop:14.3f} {run - noop:12.3f}{before}")
            verdicts.append((max(hook, run - noop), cpu))
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")
        measure([hermes, "manifest"], root, env)
        measure_hooks(hermes, [], root, env)
        warm = [measure_hooks(hermes, [], root, env) for _ in range(options.rounds)]
        print(f"  {'nothing changed':<22} {statistics.median(w for w, _ in warm):8.3f} "
              f"{statistics.median(c for _, c in warm):12.3f}")
        worst = max(wall for wall, _ in verdicts)
        worst_cpu = max(cpu for _, cpu in verdicts)
        print(f"{'MET    ' if worst <= 0.3 else 'NOT MET'} both hooks on a commit of 1-3 tool files <= 0.3 s: "
              f"at most {worst:.3f} s wall")
        # One process at a time: on an idle core its wall time is its CPU time; on a loaded
        # machine the wall time above also counts the time other processes had the cores.
        print(f"{'MET    ' if worst_cpu <= 0.3 else 'NOT MET'} ... in CPU time (the wall time of an idle "
              f"machine): at most {worst_cpu:.3f} s; load average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
