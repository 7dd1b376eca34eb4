"""One tool module with thousands of registrations: does checking it grow linearly?

Prints the CPU time of ``check`` (in-process, no cache) on one module of N registrations for
doubling N, and each step's ratio to the previous one: ~2.0 is linear, ~4.0 quadratic. CPU time,
not wall time: on a shared machine the latter measures the neighbours.

    python benchmarks/bench_one_big_module.py [--sizes 2000,4000,8000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from hermes_lint.config import Config
from hermes_lint.project_check import run_project


def write_module(root: Path, count: int) -> None:
    (root / "tools").mkdir(parents=True, exist_ok=True)
    parts = ["from tools.registry import registry\n\n\ndef handle(args, **kwargs):\n    return '{}'\n\n\n"]
    for number in range(count):
        parts.append(
            f'registry.register(name="t{number}", toolset="demo", schema={{"name": "t{number}", '
            f'"description": "Tool {number}.", "parameters": {{"type": "object", "properties": '
            '{"q": {"type": "string", "description": "Q."}}, "required": ["q"]}}, '
            "handler=handle, check_fn=lambda: True)\n"
        )
    (root / "tools" / "big_tool.py").write_text("".join(parts), encoding="utf-8")
    (root / "toolsets.py").write_text("", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,4000,8000")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    previous = None
    for size in sizes:
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            write_module(root, size)
            start = time.process_time()
            run_project(root, Config())
            elapsed = time.process_time() - start
        ratio = f"  x{elapsed / previous:.2f} of the previous" if previous else ""
        print(f"{size:>6} registrations: {elapsed:6.2f} s CPU ({elapsed / size * 1e6:.0f} us each){ratio}")
        previous = elapsed


if __name__ == "__main__":
    main()
