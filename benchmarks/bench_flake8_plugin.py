"""What the hermes-lint flake8 plugin adds to flake8's time, per file, on a 100-tool project.

    python benchmarks/bench_flake8_plugin.py [--tools 100] [--repeat 5]

Medians of ``--repeat`` runs; this machine's times are only meaningful as ratios.

- whole project, file mode: ``flake8 -j1 tools toolsets.py`` with the plugin minus the same run
  without it, divided by the number of files: the plugin's added latency per file;
- one file through stdin, as an editor runs it (a new flake8 process each time): with minus
  without, which includes reading the rest of the project;
- a file that is not a tool module, through stdin: with and without;
- a tool file just saved (its content changed before every run, as an editor linting on save):
  with and without;
- the same two editor cases (one file through stdin, warm; a tool file just saved) and the
  whole project, with ``hermes-lint server`` running in the project, which the plugin then asks
  for the first file of each run instead of checking it in its own process; with the server's
  own CPU time per request (from ``/proc``): that work is moved to another process, not removed;
- in process: the plugin's ``run()`` alone, for the first file (the whole project read) and for
  each further file of the same run.

Each subprocess figure comes with its CPU time (the process's own rusage), steadier than wall
time on a shared machine.

Each "with" figure is given twice: with ``.hermes_lint_cache/`` warm (written by the previous run,
or by ``hermes-lint check``: the steady state) and with no cache on disk (a project never checked
before). "Without the plugin" is the same flake8 with the hermes-lint entry point filtered out
of its plugin finder, so both load pycodestyle, pyflakes and mccabe alike. The subprocess figures
are measured with ``.pyc`` files written and with ``PYTHONDONTWRITEBYTECODE=1``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOL_TEMPLATE = '''\
"""{title} tool: generated for the flake8 plugin benchmark."""
import json
import os

from tools.registry import registry

_DEFAULT_LIMIT = {index}


def check_{name}() -> bool:
    return bool(os.getenv("{env}", "1"))


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _handle_{name}(args, **kwargs):
    query = _normalise(args.get("query", ""))
    limit = int(args.get("limit", _DEFAULT_LIMIT))
    if not query:
        return json.dumps({{"error": "query is required"}})
    try:
        items = [f"{{query}}-{{n}}" for n in range(limit)]
    except ValueError as exc:
        return json.dumps({{"error": str(exc)}})
    return json.dumps({{"items": items, "count": len(items)}})


{upper}_SCHEMA = {{
    "name": "{name}",
    "description": "Look up {title} entries matching a query.",
    "parameters": {{
        "type": "object",
        "properties": {{
            "query": {{"type": "string", "description": "What to look for."}},
            "limit": {{
                "type": "integer",
                "description": "How many entries to return.",
                "minimum": 1,
                "maximum": 100,
                "default": {index},
            }},
        }},
        "required": ["query"],
    }},
}}

registry.register(
    name="{name}",
    toolset="{toolset}",
    schema={upper}_SCHEMA,
    handler=_handle_{name},
    check_fn=check_{name},
    requires_env=["{env}"],
    emoji="🔎",
)
'''

# Runs flake8 with or without the hermes-lint plugin (argv[1]: "with" or "without").
FLAKE8_RUNNER = """
import sys
import flake8.plugins.finder as finder
if sys.argv.pop(1) == "without":
    _find = finder.find_plugins
    finder.find_plugins = lambda *a, **k: [p for p in _find(*a, **k) if p.package != "hermes-lint"]
from flake8.main.cli import main
sys.exit(main())
"""


def make_project(root: Path, count: int) -> list:
    tools = root / "tools"
    tools.mkdir(parents=True)
    (tools / "__init__.py").write_text("")
    names = [f"lookup_{index:03d}" for index in range(count)]
    toolsets = {}
    for index, name in enumerate(names):
        toolset = f"set_{index % 10}"
        toolsets.setdefault(toolset, []).append(name)
        (tools / f"{name}_tool.py").write_text(
            TOOL_TEMPLATE.format(
                name=name,
                upper=name.upper(),
                title=name.replace("_", " ").title(),
                index=index % 50 + 1,
                env=f"{name.upper()}_KEY",
                toolset=toolset,
            ),
            encoding="utf-8",
        )
    lines = ["TOOLSETS = {"]
    for toolset, members in toolsets.items():
        lines += [f'    "{toolset}": {{', '        "description": "Generated",', '        "tools": [']
        lines += [f'            "{member}",' for member in members]
        lines += ["        ],", '        "includes": [],', "    },"]
    lines.append("}\n")
    (root / "toolsets.py").write_text("\n".join(lines), encoding="utf-8")
    return [f"tools/{name}_tool.py" for name in names]


def timed(command, cwd: Path, env: dict, stdin: bytes = None) -> tuple:
    """(wall seconds, CPU seconds of the process): on a shared machine the CPU time is the
    steadier of the two."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    process.stdin.write(stdin or b"")
    process.stdin.close()
    stderr = process.stderr.read()
    process.stderr.close()
    _, status, usage = os.wait4(process.pid, 0)  # this child's own rusage
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1) or stderr:
        raise SystemExit(f"{command} failed:\n{stderr.decode(errors='replace')}")
    return elapsed, usage.ru_utime + usage.ru_stime


def drop_disk_cache(root: Path) -> None:
    shutil.rmtree(root / ".hermes_lint_cache", ignore_errors=True)


def medians(repeat: int, make_command, cwd: Path, env: dict, stdin: bytes = None, cold: bool = True) -> dict:
    """Median seconds of: flake8 without the plugin; with it and a warm .hermes_lint_cache;
    with it and no cache on disk (a project never checked before; not with ``cold=False``).
    Interleaved, one warm-up. Also the median CPU seconds of each, under the name + " cpu"."""
    variants = {
        "without": lambda: make_command("without"),
        "warm": lambda: make_command("with"),
        "cold": lambda: drop_disk_cache(cwd) or make_command("with"),
    }
    if not cold:
        del variants["cold"]
    times = {name: [] for name in variants}
    cpu = {name: [] for name in variants}
    for round_ in range(repeat + 1):
        for name, command in variants.items():
            elapsed, used = timed(command(), cwd, env, stdin)
            if round_:
                times[name].append(elapsed)
                cpu[name].append(used)
    result = {name: statistics.median(values) for name, values in times.items()}
    result.update({f"{name} cpu": statistics.median(values) for name, values in cpu.items()})
    return result


def process_cpu(pid: int) -> float:
    """CPU seconds a running process's main thread has used so far (Linux ``/proc``: the
    scheduler's nanoseconds where it keeps them, else the 10 ms ticks of ``stat``)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


@contextlib.contextmanager
def server_running(root: Path, env: dict):
    """``hermes-lint server`` in ``root`` until the block ends (stopped with SIGTERM)."""
    process = subprocess.Popen([sys.executable, "-m", "hermes_lint", "server", "--idle-timeout", "900"], cwd=root,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    path = root / ".hermes_lint_cache" / "server.sock"
    try:
        deadline = time.monotonic() + 60
        while True:  # ready once it accepts a connection
            if process.poll() is not None:
                raise SystemExit(f"hermes-lint server failed:\n{process.stderr.read().decode(errors='replace')}")
            with socket.socket(socket.AF_UNIX) as probe:
                try:
                    probe.connect(str(path))
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise SystemExit("hermes-lint server did not start")
                    time.sleep(0.05)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        process.stderr.close()


def in_process(root: Path, files: list, repeat: int):
    from hermes_lint import flake8_plugin

    previous = os.getcwd()
    os.chdir(root)
    try:
        lines = {path: (root / path).read_text(encoding="utf-8").splitlines(keepends=True) for path in files}

        def run_one(path):
            return list(flake8_plugin.HermesLintChecker(None, path, lines[path]).run())

        cold, reopened, warm = [], [], []
        for _ in range(repeat):
            drop_disk_cache(root)
            flake8_plugin.clear_caches()
            start = time.perf_counter()
            run_one(files[0])
            cold.append(time.perf_counter() - start)
            flake8_plugin.clear_caches()  # a new process, the disk cache written by the last one
            start = time.perf_counter()
            run_one(files[0])
            reopened.append(time.perf_counter() - start)
            start = time.perf_counter()
            for path in files[1:]:
                run_one(path)
            warm.append((time.perf_counter() - start) / (len(files) - 1))
        return statistics.median(cold), statistics.median(reopened), statistics.median(warm)
    finally:
        os.chdir(previous)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        files = make_project(root, options.tools)
        checked = len(files) + 2  # flake8 also checks tools/__init__.py and toolsets.py
        runner = Path(tmp) / "flake8_runner.py"
        runner.write_text(FLAKE8_RUNNER)
        print(f"{options.tools}-tool project, Python {sys.version.split()[0]}, medians of {options.repeat} runs")

        for label, extra_env in ((".pyc written", {}), ("PYTHONDONTWRITEBYTECODE=1", {"PYTHONDONTWRITEBYTECODE": "1"})):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env.update(extra_env)
            base = [sys.executable, str(runner)]
            print(f"\n[{label}]")

            project_run = lambda variant: [*base, variant, "--isolated", "-j1", "tools", "toolsets.py"]  # noqa: E731
            m = medians(options.repeat, project_run, root, env)
            print(f"  flake8 -j1 on the project ({checked} files): {m['without'] * 1000:.0f} ms without the plugin")
            for name in ("warm", "cold"):
                added = (m[name] - m["without"]) / checked * 1000
                print(f"    with it, {name} .hermes_lint_cache: {m[name] * 1000:.0f} ms, +{added:.2f} ms per file "
                      f"({m[name] / m['without']:.2f}x)")

            buffer = (root / files[-1]).read_bytes()
            stdin_run = lambda variant: [*base, variant, "--isolated", "--stdin-display-name", files[-1], "-"]  # noqa: E731
            m = medians(options.repeat, stdin_run, root, env, stdin=buffer)
            print(f"  one file through stdin, as an editor runs it: {m['without'] * 1000:.0f} ms without the plugin")
            for name in ("warm", "cold"):
                print(f"    with it, {name} .hermes_lint_cache: {m[name] * 1000:.0f} ms, "
                      f"+{(m[name] - m['without']) * 1000:.0f} ms per invocation ({m[name] / m['without']:.2f}x; "
                      f"CPU {m[name + ' cpu'] * 1000:.0f} ms vs {m['without cpu'] * 1000:.0f} ms: "
                      f"{m[name + ' cpu'] / m['without cpu']:.2f}x)")
            if label == ".pyc written":
                other = root / "tools" / "__init__.py"  # not a tool module
                other_run = lambda variant: [*base, variant, "--isolated", "--stdin-display-name",  # noqa: E731
                                             "tools/__init__.py", "-"]
                n = medians(options.repeat, other_run, root, env, stdin=other.read_bytes())
                print(f"  a file that is not a tool module, through stdin: {n['without'] * 1000:.0f} ms without, "
                      f"{n['warm'] * 1000:.0f} ms with the plugin ({n['warm'] / n['without']:.2f}x; CPU "
                      f"{n['warm cpu'] / n['without cpu']:.2f}x)")
                # An editor linting on save: the file changed since the last run, so it is checked.
                saved = root / files[-1]
                original = saved.read_text(encoding="utf-8")
                saves = iter(range(10**6))

                def after_save(variant):
                    saved.write_text(original + f"# save {next(saves)}\n", encoding="utf-8")
                    return [*base, variant, "--isolated", files[-1]]

                n = medians(options.repeat, after_save, root, env)
                saved.write_text(original, encoding="utf-8")
                print(f"  one tool file just saved (changed since the last run): {n['without'] * 1000:.0f} ms "
                      f"without, {n['warm'] * 1000:.0f} ms with the plugin ({n['warm'] / n['without']:.2f}x; CPU "
                      f"{n['warm cpu'] * 1000:.0f} ms vs {n['without cpu'] * 1000:.0f} ms: "
                      f"{n['warm cpu'] / n['without cpu']:.2f}x)")

                # The same editor cases, and the whole project, the plugin asking `hermes-lint server`.
                with server_running(root, env) as server:
                    # The plugin asks the server for the first file of each flake8 run only.
                    for title, make_command, stdin in (
                        ("one file through stdin, warm", stdin_run, buffer),
                        ("one tool file just saved", after_save, None),
                        (f"flake8 -j1 on the project ({checked} files), warm", project_run, None),
                    ):
                        timed(make_command("with"), root, env, stdin)  # the server's first request imports
                        before = process_cpu(server.pid)
                        n = medians(options.repeat, make_command, root, env, stdin=stdin, cold=False)
                        # per request, over the measured runs and the warm-up of ``medians``
                        served = (process_cpu(server.pid) - before) / (options.repeat + 1)
                        print(f"  {title}, with `hermes-lint server` running: {n['without'] * 1000:.0f} ms "
                              f"without, {n['warm'] * 1000:.0f} ms with the plugin ({n['warm'] / n['without']:.2f}x; "
                              f"CPU {n['warm cpu'] * 1000:.0f} ms vs {n['without cpu'] * 1000:.0f} ms: "
                              f"{n['warm cpu'] / n['without cpu']:.2f}x); the server's CPU per request: "
                              f"{served * 1000:.1f} ms")
                saved.write_text(original, encoding="utf-8")

        cold, reopened, warm = in_process(root, files, options.repeat)
        print("\n[in process, the plugin's run() alone]")
        print(f"  first file, nothing cached (checks the whole project):  {cold * 1000:.1f} ms")
        print(f"  first file of a new process, .hermes_lint_cache warm:   {reopened * 1000:.1f} ms")
        print(f"  each further file of the same run:                      {warm * 1000:.2f} ms")


if __name__ == "__main__":
    main()
