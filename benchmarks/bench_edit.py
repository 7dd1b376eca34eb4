"""One tool file edited in a large project: what `hermes-lint check` adds to a warm run.

    python benchmarks/bench_edit.py [--tools 1000] [--rounds 7] [--baseline DIR]

Writes a clean project of ``--tools`` tool modules (``gen_corpus.py``), primes the cache, then
times, as whole processes in alternating order, medians of ``--rounds``:

- ``warm``: ``hermes-lint check``, nothing changed;
- ``one file edited``: ``hermes-lint check`` after a real change to one tool file (a comment
  appended, different every round, its modification time set a second back: saved a moment
  before the run, not within the same timestamp tick);
- ``that file alone, cold``: ``hermes-lint check --no-cache`` in a project holding only that
  tool file (and a ``pyproject.toml``, no toolsets.py): the file's own cold cost as a process
  (start-up, imports, the file);
- ``python -c pass``: the interpreter's start, the floor of every row;
- ``import the checker``: a process that imports what checking a file needs (the engine and
  every selected rule) and nothing else: the floor of any run that checks one file.

and, in one process, ``engine.check_module`` on that file after a first call (medians of 21):
the file's own cold cost without start-up or imports.

Prints the rows (wall and CPU), then the target of issue 18, "one file edited <= warm + 3x that
file's own cold cost", against both readings of the file's cost. ``--baseline DIR``: also time
the same rows (but the in-process one) with the ``hermes_lint`` package in DIR (e.g. ``git
archive main hermes_lint | tar -x -C DIR``), on its own copy of the project, interleaved.
The machine may be shared: compare CPU times and ratios of the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import Run, measure, snapshot_toolkit  # noqa: E402
from gen_corpus import generate  # noqa: E402

IN_PROCESS = """\
import statistics, sys, time
from hermes_lint.check.engine import SourceFile, check_module
from hermes_lint.config import Config
path, relative = sys.argv[1], sys.argv[2]
source = SourceFile(relative, open(path, "rb").read())
config = Config()
check_module(source, config)  # imports and first-call set-up: not the file's own cost
times = []
for _ in range(21):
    start = time.process_time()
    check_module(source, config)
    times.append(time.process_time() - start)
print(statistics.median(times))
"""

IMPORT_CHECKER = (
    "from hermes_lint.check.engine import selected_rules; from hermes_lint.config import Config; "
    "selected_rules(Config(), 'module'); selected_rules(Config(), 'project')"
)


def in_process_cost(path: Path, relative: str, env: Dict[str, str]) -> float:
    completed = subprocess.run([sys.executable, "-c", IN_PROCESS, str(path), relative], env=env,
                               capture_output=True, text=True, check=True)
    return float(completed.stdout.strip())


class Toolkit:
    """One hermes_lint package and its own copy of the project."""

    def __init__(self, label: str, env: Dict[str, str], root: Path, alone: Path, edited: Path):
        self.label, self.env, self.root, self.alone, self.edited = label, env, root, alone, edited
        self.original = edited.read_text(encoding="utf-8")
        self.runs: Dict[str, List[Run]] = {}

    def rows(self) -> Dict[str, List[str]]:
        python = sys.executable
        return {
            "warm": [python, "-m", "hermes_lint", "check"],
            "one file edited": [python, "-m", "hermes_lint", "check"],
            "that file alone, cold": [python, "-m", "hermes_lint", "check", "--no-cache"],
            "import the checker": [python, "-c", IMPORT_CHECKER],
        }

    def run(self, row: str, round_number: int) -> None:
        cwd = self.alone if row == "that file alone, cold" else self.root
        if row == "one file edited":
            self.edited.write_text(self.original + f"# edited in round {round_number}\n", encoding="utf-8")
            # Saved a second before the run, as by a person: a stat taken within a timestamp tick
            # of the write is not recorded (``regular_files.settled``), which would make the next
            # "warm" run re-hash the file and run the project phase again.
            saved = time.time_ns() - 1_000_000_000
            os.utime(self.edited, ns=(saved, saved))
        result = measure(self.rows()[row], cwd, self.env, keep_output=True)
        if result.status != 0 or result.output.strip():  # the project is clean: no finding printed
            sys.exit(f"bench_edit: {self.label} `{row}` did not pass:\n{result.output.decode()[:2000]}")
        if round_number >= 0:
            self.runs.setdefault(row, []).append(result)

    def median(self, row: str, attribute: str) -> float:
        return statistics.median(getattr(run, attribute) for run in self.runs[row])


def make_toolkit(label: str, env: Dict[str, str], source: Path, workdir: Path, edited_name: str) -> Toolkit:
    root = workdir / f"project_{label}"
    shutil.copytree(source, root)
    alone = workdir / f"alone_{label}"
    (alone / "tools").mkdir(parents=True)
    shutil.copy2(root / "tools" / edited_name, alone / "tools" / edited_name)
    (alone / "pyproject.toml").write_text("[tool.hermes-lint]\n", encoding="utf-8")  # a project without toolsets.py
    return Toolkit(label, env, root, alone, root / "tools" / edited_name)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", type=Path, help="a directory holding an earlier hermes_lint package")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hermes-bench-edit-") as temporary:
        workdir = Path(temporary)
        env = snapshot_toolkit(workdir, compiled=True)
        source = workdir / "corpus"
        written = generate(options.tools, source, options.seed)
        edited_name = sorted(path.name for path in written if path.name.endswith("_tool.py"))[len(written) // 2]
        toolkits = [make_toolkit("this", env, source, workdir, edited_name)]
        if options.baseline is not None:
            import compileall

            baseline = workdir / "baseline"
            shutil.copytree(options.baseline.resolve() / "hermes_lint", baseline / "hermes_lint",
                            ignore=shutil.ignore_patterns("__pycache__"))
            compileall.compile_dir(str(baseline), quiet=1)
            baseline_env = dict(env, PYTHONPATH=str(baseline))
            toolkits.append(make_toolkit("baseline", baseline_env, source, workdir, edited_name))
        floor: List[Run] = []
        for toolkit in toolkits:  # untimed: prime the cache, the OS file cache
            toolkit.run("warm", -1)
            toolkit.run("warm", -1)
        rows = list(toolkits[0].rows())
        for round_number in range(options.rounds):
            shift = round_number % len(rows)
            for row in rows[shift:] + rows[:shift]:
                for toolkit in toolkits:
                    toolkit.run(row, round_number)
            floor.append(measure([sys.executable, "-c", "pass"], workdir, env))
        in_process = in_process_cost(toolkits[0].edited, f"tools/{edited_name}", env)
        python_wall = statistics.median(run.wall for run in floor)
        python_cpu = statistics.median(run.cpu for run in floor)

        print(f"{options.tools} tool modules; edited: tools/{edited_name}; medians of {options.rounds} rounds; "
              f"load average {os.getloadavg()[0]:.2f}")
        print(f"  {'row':<26}" + "".join(f" {t.label + ' wall s':>16} {t.label + ' cpu s':>15}" for t in toolkits))
        for row in rows:
            print(f"  {row:<26}" + "".join(
                f" {t.median(row, 'wall'):16.3f} {t.median(row, 'cpu'):15.3f}" for t in toolkits))
        print(f"  {'python -c pass':<26} {python_wall:16.3f} {python_cpu:15.3f}")
        print(f"  {'check_module, in process':<26} {'':>16} {in_process:15.4f}")
        for toolkit in toolkits:
            print(f"\n{toolkit.label}:")
            for attribute in ("wall", "cpu"):
                warm = toolkit.median("warm", attribute)
                extra = toolkit.median("one file edited", attribute) - warm
                alone = toolkit.median("that file alone, cold", attribute)
                base = python_wall if attribute == "wall" else python_cpu
                checker = toolkit.median("import the checker", attribute) - base
                print(f"  {attribute}: one file edited = warm + {extra * 1000:.0f} ms; importing the checker "
                      f"alone: {checker * 1000:.0f} ms above python")
                own = alone - base
                verdict = "MET    " if extra <= 3 * own else "NOT MET"
                print(f"    {verdict} edited - warm <= 3x that file alone, cold, above python ({own * 1000:.0f} ms): "
                      f"{extra / own:.2f}x of it")
                if toolkit is toolkits[0] and attribute == "cpu":
                    verdict = "MET    " if extra <= 3 * in_process else "NOT MET"
                    print(f"    {verdict} edited - warm <= 3x check_module of that file in process "
                          f"({in_process * 1000:.1f} ms CPU): {extra / in_process:.1f}x of it")


if __name__ == "__main__":
    main()
