"""Cost of fixing: ``check --fix --unsafe-fixes`` against ``check`` on the same project.

    python benchmarks/bench_fix.py [--sizes 100 1000] [--repeat 3]

For each N, a generated corpus (``gen_corpus.py``) with one fixable defect injected per tool
module (``inject_defects.py``: every rule with a fix). Timed from spawn to exit, medians:

- check: ``hermes-lint check --no-cache`` on the injected project (reports every defect);
- diff: ``check --diff --unsafe-fixes --no-cache`` (all fixes computed, nothing written);
- fix: ``check --fix --unsafe-fixes --no-cache`` on a fresh copy each time (fixes written).

Printed: the medians and the ratios diff/check and fix/check (the cost of the fix loop's passes
and of libcst, over one check). Absolute times depend on the machine; the ratios are the result.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_corpus import generate  # noqa: E402
from inject_defects import inject  # noqa: E402

CLI = [sys.executable, "-m", "hermes_lint", "check", "--no-cache"]


def timed(args, cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(CLI + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    for size in options.sizes:
        with tempfile.TemporaryDirectory(prefix="bench-fix-") as directory:
            template = Path(directory) / "template"
            generate(size, template, seed=7)
            defects = len(inject(template))
            check, diff, fix = [], [], []
            for number in range(options.repeat):
                check.append(timed([], template))
                diff.append(timed(["--diff", "--unsafe-fixes"], template))
                project = Path(directory) / f"run{number}"
                shutil.copytree(template, project)
                fix.append(timed(["--fix", "--unsafe-fixes"], project))
            c, d, f = (statistics.median(times) for times in (check, diff, fix))
            print(
                f"N={size} ({defects} defects): check {c:.2f} s, diff {d:.2f} s, fix {f:.2f} s; "
                f"diff/check {d / c:.2f}x, fix/check {f / c:.2f}x"
            )


if __name__ == "__main__":
    main()
