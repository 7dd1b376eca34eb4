"""A plugin package of N tools against a ``tools/`` tree of the same N tools, in one run.

    python benchmarks/bench_plugins.py [--tools 100] [--real-sized] [--rounds 5] [--baseline DIR]

Generates N tool modules (``gen_corpus.py``) and makes two projects of them:

- a ``tools/`` tree: the modules as generated, with their ``toolsets.py``, and a
  ``pyproject.toml`` of the same ``[project]`` table as the plugin package's (an installable
  project has one either way, and both runs read it for ``[tool.hermes-lint]``; without it the
  tools tree's runs would not import ``tomllib`` at all: ``--bare-tools-tree``);
- a plugin package (``pyproject.toml`` declaring ``hermes_agent.plugins`` entry points): the
  same modules in ``bench_plugin/``, each one's top-level ``registry.register(...)`` calls moved
  into a ``register_tools(ctx)`` function as ``ctx.register_tool(...)`` (without the built-in
  registry's ``max_result_size_chars``), and one entry point per ``GROUP`` modules, whose
  module's ``register(ctx)`` calls theirs (hermes-lint follows at most 64 functions from one
  plugin's ``register``: ``plugin_register.MAX_FUNCTIONS``).

For each, whole processes in rotating order, CPU time, medians of ``--rounds``:
``hermes-lint check --no-cache -j 1`` (cold), ``hermes-lint check`` (warm, nothing changed), and
the parsing floor of the same files (``bench_real.py``'s, with the plugin modules compiled); with ``--baseline DIR`` (a
``hermes_lint`` package directory), the cold and warm runs of that toolkit too. The target: the plugin package costs
no more than the tools tree (within 5%: the noise of a shared machine), cold and warm.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import baseline_toolkit, executable, measure, snapshot_toolkit  # noqa: E402

# ``bench_real.py``'s parsing floor, where a plugin's register modules are compiled as tool
# modules are (``parsing.compile_checked``): a module naming ``register_tool`` stands for them.
FLOOR_SCRIPT = """
import ast, sys, warnings
warnings.simplefilter("ignore")
for name in sys.argv[1:]:
    with open(name, "rb") as handle:
        data = handle.read()
    tree = ast.parse(data, filename=name)
    if b"register_tool" in data or any(
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "register" for s in tree.body
    ):
        for stmt in tree.body:
            compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec", dont_inherit=True)
"""
from gen_corpus import generate  # noqa: E402

PACKAGE = "bench_plugin"
PLUGIN_ONLY = {"max_result_size_chars"}  # the built-in registry's, not PluginContext.register_tool's
GROUP = 50  # modules per entry point
PROJECT_TABLE = """[project]
name = "bench-plugin"
version = "0.1.0"
"""
PYPROJECT = PROJECT_TABLE + """
[project.entry-points."hermes_agent.plugins"]
"""


def as_plugin_module(text: str) -> str:
    """The tool module's text with its top-level ``registry.register(...)`` statements moved into
    ``register_tools(ctx)`` as ``ctx.register_tool(...)`` calls."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    calls = []
    dropped = set()
    for statement in tree.body:
        if (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and ast.unparse(statement.value.func) == "registry.register"
        ):
            call = statement.value
            call.func = ast.Attribute(ast.Name("ctx", ast.Load()), "register_tool", ast.Load())
            call.keywords = [k for k in call.keywords if k.arg not in PLUGIN_ONLY]
            calls.append(ast.unparse(call))
            dropped.update(range(statement.lineno - 1, statement.end_lineno))
        elif isinstance(statement, ast.ImportFrom) and statement.module == "tools.registry":
            dropped.update(range(statement.lineno - 1, statement.end_lineno))
    kept = "".join(line for number, line in enumerate(lines) if number not in dropped)
    body = "".join(f"    {call}\n" for call in calls) or "    pass\n"
    return f"{kept.rstrip()}\n\n\ndef register_tools(ctx):\n{body}"


def make_projects(count: int, workdir: Path, seed: int, real_sized: bool, bare_tools_tree: bool = False) -> Dict[str, Path]:
    tools_root = workdir / "tools_tree"
    written = generate(count, tools_root, seed, real_sized=real_sized)
    if not bare_tools_tree:
        (tools_root / "pyproject.toml").write_text(PROJECT_TABLE, encoding="utf-8")
    plugin_root = workdir / "plugin_package"
    package = plugin_root / PACKAGE
    package.mkdir(parents=True)
    names = []
    for path in sorted(written):
        (package / path.name).write_text(as_plugin_module(path.read_text(encoding="utf-8")), encoding="utf-8")
        names.append(path.stem)
    (package / "__init__.py").write_text('"""Generated tools as Hermes plugins."""\n', encoding="utf-8")
    entry_points = []
    for number, start in enumerate(range(0, len(names), GROUP)):
        group = names[start : start + GROUP]
        text = "".join(f"from . import {name}\n" for name in group)
        text += "\n\ndef register(ctx):\n" + "".join(f"    {name}.register_tools(ctx)\n" for name in group)
        (package / f"group_{number}.py").write_text(text, encoding="utf-8")
        entry_points.append(f'bench_{number} = "{PACKAGE}.group_{number}"\n')
    (plugin_root / "pyproject.toml").write_text(PYPROJECT + "".join(entry_points), encoding="utf-8")
    return {"tools/ tree": tools_root, "plugin package": plugin_root}


def python_files(root: Path) -> List[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*.py") if ".hermes_lint_cache" not in path.parts)


def main(argv: List[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--real-sized", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bare-tools-tree", action="store_true", help="no pyproject.toml in the tools/ tree")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="a hermes_lint package directory to time beside")
    options = parser.parse_args(argv)
    hermes = executable("hermes-lint")
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="hermes-bench-plugins-") as temporary:
        workdir = Path(temporary)
        env = snapshot_toolkit(workdir, compiled=True)
        baseline_env = None
        if options.baseline is not None:
            baseline_env = baseline_toolkit(workdir, options.baseline, env)
        projects = make_projects(options.tools, workdir, options.seed, options.real_sized, options.bare_tools_tree)
        cases = {}
        counted = set()
        for label, root in projects.items():
            run = subprocess.run([hermes, "check", "--no-cache", "-j", "1"], cwd=root, env=env, capture_output=True, text=True)
            found = re.search(r"\b(\d+) tools? in ", run.stderr)
            counted.add(int(found.group(1)) if found else None)
            files = python_files(root)
            lines = sum(len((root / name).read_bytes().splitlines()) for name in files)
            first = measure([hermes, "check", "--no-cache", "-j", "1"], root, env, keep_output=True)
            if first.status not in (0, 1):
                sys.exit(f"bench_plugins: check failed on the {label}:\n{first.output.decode()[:2000]}")
            summary = measure([hermes, "check"], root, env, keep_output=True)  # the warm cache
            findings = len(summary.output.splitlines())
            print(f"  {label}: {len(files)} files, {lines:,} lines; {findings} findings")
            cases[f"{label}: cold -j 1"] = ([hermes, "check", "--no-cache", "-j", "1"], root, env)
            cases[f"{label}: warm"] = ([hermes, "check"], root, env)
            cases[f"{label}: parsing floor"] = ([sys.executable, "-c", FLOOR_SCRIPT, *files], root, env)
            if baseline_env is not None:
                # a copy of the project: its warm cache is the baseline's own (one cache directory
                # per project, keyed on the toolkit, would be rewritten by each in turn)
                copy = root.with_name(root.name + "_baseline")
                shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".hermes_lint_cache"))
                measure([hermes, "check"], copy, baseline_env)
                cases[f"{label}: cold -j 1 (baseline)"] = ([hermes, "check", "--no-cache", "-j", "1"], copy, baseline_env)
                cases[f"{label}: warm (baseline)"] = ([hermes, "check"], copy, baseline_env)
        if counted != {options.tools}:
            sys.exit(f"bench_plugins: the two projects do not check the same {options.tools} tools: {counted}")
        print(f"  both check {options.tools} tools")
        cpu: Dict[str, List[float]] = {name: [] for name in cases}
        names = list(cases)
        for round_number in range(options.rounds):
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                argv, root, toolkit = cases[name]
                cpu[name].append(measure(argv, root, toolkit).cpu)
        median = {name: statistics.median(values) for name, values in cpu.items()}
        print(f"  {'command':<40} {'cpu s':>8}")
        for name in names:
            print(f"  {name:<40} {median[name]:8.3f}")
        for kind in ("cold -j 1", "warm"):
            tools, plugin = median[f"tools/ tree: {kind}"], median[f"plugin package: {kind}"]
            print(f"  {'MET    ' if plugin <= 1.05 * tools else 'NOT MET'} plugins cost what tools cost ({kind}): "
                  f"{plugin:.3f} s vs {tools:.3f} s ({plugin / tools:.2f}x)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
