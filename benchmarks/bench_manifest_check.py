"""``hermes-lint manifest --check`` on an unchanged tree, cold (no cache) and warm, in one run.

    python benchmarks/bench_manifest_check.py [--real-sized 100] [--rounds 5]

A generated project of N real-sized tool modules (``gen_corpus.py --real-sized``) and a helper
module they all read a value from gets its manifest (``hermes-lint manifest``). Then, whole
processes, ``--rounds`` rounds, medians: ``--check`` cold (the cache directory removed before
each run), ``--check`` warm (nothing changed since the last run found the manifest fresh), and
a bare ``python -c pass`` (the process floor). The target: warm <= 0.3 s. Exactness is checked
on the way: after the helper module changes so that a schema changes, ``--check`` must exit 1.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_corpus import generate  # noqa: E402

HELPER = 'DESCRIPTION = "Look up a record"\n'
TOOL_USING_HELPER = '''
from shared_text import DESCRIPTION
from tools.registry import registry


def handle(args, **kwargs):
    return "{}"


registry.register(name="zz_lookup", toolset="zz", schema={"name": "zz_lookup", "description": DESCRIPTION,
                  "parameters": {"type": "object", "properties": {}}}, handler=handle)
'''


def timed(command, cwd) -> tuple[float, int]:
    start = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, capture_output=True)
    return time.perf_counter() - start, completed.returncode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--real-sized", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-manifest-check-") as scratch:
        root = Path(scratch)
        generate(options.real_sized, root, 0, real_sized=True)
        (root / "shared_text.py").write_text(HELPER, encoding="utf-8")
        (root / "tools" / "zz_lookup_tool.py").write_text(TOOL_USING_HELPER, encoding="utf-8")
        toolsets = root / "toolsets.py"
        toolsets.write_text(toolsets.read_text(encoding="utf-8").replace(
            "TOOLSETS = {", 'TOOLSETS = {\n    "zz": {"tools": ["zz_lookup"]},', 1), encoding="utf-8")
        hermes_lint = [sys.executable, "-m", "hermes_lint"]
        subprocess.run(hermes_lint + ["manifest"], cwd=root, check=True, capture_output=True)
        time.sleep(2.1)  # past the window in which a stat does not pin a file (regular_files.settled)
        check = hermes_lint + ["manifest", "--check"]
        times: dict[str, list[float]] = {"floor": [], "cold": [], "warm": []}
        for _ in range(options.rounds):
            times["floor"].append(timed([sys.executable, "-c", "pass"], root)[0])
            shutil.rmtree(root / ".hermes_lint_cache", ignore_errors=True)
            elapsed, code = timed(check, root)
            assert code == 0, "cold --check found the fresh manifest stale"
            times["cold"].append(elapsed)
            elapsed, code = timed(check, root)
            assert code == 0, "warm --check found the fresh manifest stale"
            times["warm"].append(elapsed)
        medians = {name: statistics.median(values) for name, values in times.items()}
        print(f"N={options.real_sized} real-sized modules, {options.rounds} rounds, medians:")
        print(f"  floor (python -c pass) {medians['floor'] * 1000:7.1f} ms")
        print(f"  --check cold           {medians['cold'] * 1000:7.1f} ms")
        print(f"  --check warm           {medians['warm'] * 1000:7.1f} ms   cold/warm = "
              f"{medians['cold'] / medians['warm']:.1f}x; target warm <= 300 ms: "
              f"{'met' if medians['warm'] <= 0.3 else 'NOT met'}")
        (root / "shared_text.py").write_text('DESCRIPTION = "Look up a record by id"\n', encoding="utf-8")
        _, code = timed(check, root)
        print(f"  after the helper module changed: exit {code} ({'stale, as it is' if code == 1 else 'WRONG'})")


if __name__ == "__main__":
    main()
