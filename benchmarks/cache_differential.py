"""Randomised differential test of the result cache: the cache must never change a finding.

    python benchmarks/cache_differential.py [--project gen|DIR] [--seed S] [--steps N]
                                            [--flake8] [--manifest] [--server] [--keep-going]

Copies a project (``gen``: a generated one of 60 modules, ``gen_corpus.py``; else a copy of DIR,
e.g. an unpacked Hermes release) to a temporary directory, adds a helper module outside
``tools/`` that some tool modules import constants from, then applies a seeded sequence of random
edits (a tool name duplicated across modules or within a toolset, a toolset renamed, a module
deleted or added, a syntax error made and mended, toolsets.py edited, a helper module a tool reads
changed, deleted or broken, tools/registry.py created, broken or removed, a file touched or rewritten with its old mtime, the
``[tool.hermes-lint]`` configuration changed, a ``# noqa`` added, a defect injected). After every
edit it compares, byte for byte and with the exit status:

- ``hermes-lint check -q`` run twice on the warm cache (the second reuses the stored project
  diagnostics) with ``check --no-cache -q``; the same with ``--format json`` and with ``-j 2``;
- with ``--manifest``: ``manifest --check`` and the bytes ``manifest --output`` writes, warm and
  with a fresh cache directory;
- with ``--flake8``: ``flake8 --select HRM FILE`` (warm and ``--hermes-lint-no-cache``) for the
  edited tool module, against ``hermes-lint check --no-cache FILE`` (without HRM900, which the
  plugin leaves to flake8's own noqa);
- with ``--server`` (``--server-only``: without the comparisons above, the server asked from
  this process, so that a request follows its edit by milliseconds, where a stat may not tell
  two versions apart): a ``hermes-lint server`` started on the project before the first edit and
  kept running throughout, asked (``server_client.ask``, as the plugin asks it) for the edited
  tool modules, toolsets.py and one more tool module, as saved or as an editor buffer that
  differs from the disk, against ``flake8_plugin.check_buffer`` in a fresh process without the
  cache; the server must answer every time.

Every mismatch is printed with the edits that led to it; the same seed replays them. Exit 1 when
one was found. Not a unit test (minutes per seed): ``tests/test_cache_differential.py`` runs a
short seeded sequence of the same edits.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
HELPER = "shared_limits.py"  # at the project root: outside tools/, read through imports
HELPER_TEXT = '''"""Constants shared by several tools (a module outside tools/)."""

ORDER_CHOICES = ["newest", "oldest", "relevance"]
SHARED_PREFIX = "Shared: "
'''
CACHE_DIR = ".hermes_lint_cache"


@dataclass
class Project:
    root: Path
    rng: random.Random
    history: List[str] = field(default_factory=list)
    removed: Dict[str, bytes] = field(default_factory=dict)  # path -> bytes, for restoring
    edited: List[str] = field(default_factory=list)  # tool modules changed by the last edit

    def tools(self) -> List[Path]:
        return sorted(p for p in (self.root / "tools").glob("*.py") if p.name != "__init__.py")

    def registering(self) -> List[Path]:
        return [p for p in self.tools() if "registry.register(" in _read(p)]

    def pick(self, paths: Sequence[Path]) -> Optional[Path]:
        return self.rng.choice(list(paths)) if paths else None

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace")


def _write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))


# --- edits: each returns a description, or None when it does not apply ------------------------

NAME_RE = re.compile(r'(registry\.register\(\s*name=)"([\w.-]+)"')
TOOLSET_RE = re.compile(r'(\btoolset=)"([\w.-]+)"')
LISTED_RE = re.compile(r'^(\s+)"(\w+)",$', re.MULTILINE)


def duplicate_name_across_modules(p: Project) -> Optional[str]:
    mods = p.registering()
    if len(mods) < 2:
        return None
    a, b = p.rng.sample(mods, 2)
    names = NAME_RE.findall(_read(a))
    if not names or not NAME_RE.search(_read(b)):
        return None
    name = names[0][1]
    _write(b, NAME_RE.sub(lambda m: f'{m.group(1)}"{name}"', _read(b), count=1))
    p.edited = [p.rel(b)]
    return f"{p.rel(b)}: first registered name -> {name!r} (also in {p.rel(a)})"


def duplicate_in_toolset(p: Project) -> Optional[str]:
    path = p.root / "toolsets.py"
    text = _read(path)
    found = list(LISTED_RE.finditer(text))
    if not found:
        return None
    m = p.rng.choice(found)
    _write(path, text[: m.end()] + "\n" + m.group(0) + text[m.end():])
    return f"toolsets.py: {m.group(2)!r} listed twice at offset {m.start()}"


def rename_toolset_in_module(p: Project) -> Optional[str]:
    path = p.pick([m for m in p.registering() if TOOLSET_RE.search(_read(m))])
    if path is None:
        return None
    new = p.rng.choice(["renamed_ts", "billing", "web", "nowhere"])
    _write(path, TOOLSET_RE.sub(lambda m: f'{m.group(1)}"{new}"', _read(path), count=1))
    p.edited = [p.rel(path)]
    return f"{p.rel(path)}: toolset= -> {new!r}"


def rename_toolset_key(p: Project) -> Optional[str]:
    path = p.root / "toolsets.py"
    text = _read(path)
    keys = re.findall(r'^    "([\w-]+)": \{', text, re.MULTILINE)
    if not keys:
        return None
    key = p.rng.choice(keys)
    _write(path, text.replace(f'    "{key}": {{', f'    "{key}_renamed": {{', 1))
    return f"toolsets.py: toolset {key!r} renamed"


def unlist_tool(p: Project) -> Optional[str]:
    path = p.root / "toolsets.py"
    text = _read(path)
    found = list(LISTED_RE.finditer(text))
    if not found:
        return None
    m = p.rng.choice(found)
    _write(path, text[: m.start()] + text[m.end() + 1:])
    return f"toolsets.py: {m.group(2)!r} unlisted"


def delete_module(p: Project) -> Optional[str]:
    path = p.pick(p.tools())
    if path is None:
        return None
    p.removed[p.rel(path)] = path.read_bytes()
    path.unlink()
    return f"{p.rel(path)}: deleted"


def restore_module(p: Project) -> Optional[str]:
    if not p.removed:
        return None
    rel = p.rng.choice(sorted(p.removed))
    (p.root / rel).parent.mkdir(parents=True, exist_ok=True)
    (p.root / rel).write_bytes(p.removed.pop(rel))
    if rel.startswith("tools/"):
        p.edited = [rel]
    return f"{rel}: restored"


def add_module(p: Project) -> Optional[str]:
    source = p.pick(p.registering())
    if source is None:
        return None
    number = p.rng.randrange(10**6)
    text = NAME_RE.sub(lambda m: f'{m.group(1)}"{m.group(2)}_copy{number}"', _read(source))
    target = p.root / "tools" / f"copy{number}_tool.py"
    _write(target, text)
    p.edited = [p.rel(target)]
    return f"{p.rel(target)}: added, a copy of {p.rel(source)} with its names suffixed"


def break_syntax(p: Project) -> Optional[str]:
    path = p.pick(p.tools() + [p.root / "toolsets.py"])
    if path is None or not path.exists():
        return None
    text = _read(path)
    lines = text.split("\n")
    at = p.rng.randrange(len(lines))
    lines.insert(at, "def broken(:  # syntax error")
    _write(path, "\n".join(lines))
    if path.parent.name == "tools":
        p.edited = [p.rel(path)]
    return f"{p.rel(path)}: syntax error inserted at line {at + 1}"


def mend_syntax(p: Project) -> Optional[str]:
    broken = [q for q in p.tools() + [p.root / "toolsets.py", p.root / HELPER] if q.exists() and "def broken(:" in _read(q)]
    path = p.pick(broken)
    if path is None:
        return None
    _write(path, _read(path).replace("def broken(:  # syntax error\n", "", 1).replace("\ndef broken(:  # syntax error", "", 1))
    if path.parent.name == "tools":
        p.edited = [p.rel(path)]
    return f"{p.rel(path)}: syntax error removed"


def import_helper(p: Project) -> Optional[str]:
    """Make a tool module read a constant from the helper module (cross-module read)."""
    candidates = [m for m in p.registering() if "shared_limits" not in _read(m)]
    p.rng.shuffle(candidates)
    for path in candidates:
        text = _read(path)
        new = re.sub(r'^ORDER_CHOICES = \[[^\n]*\]$', "from shared_limits import ORDER_CHOICES", text, count=1, flags=re.MULTILINE)
        how = "ORDER_CHOICES"
        if new == text:
            new = re.sub(r'("description": )\(', r'\1SHARED_PREFIX + (', text, count=1)
            if new == text:
                continue
            new = "from shared_limits import SHARED_PREFIX\n" + new
            how = "SHARED_PREFIX"
        _write(path, new)
        p.edited = [p.rel(path)]
        return f"{p.rel(path)}: reads {how} from {HELPER}"
    return None


HELPER_VARIANTS = [
    ('ORDER_CHOICES = ["newest", "oldest", "relevance"]', 'ORDER_CHOICES = ["newest", "newest"]'),
    ('ORDER_CHOICES = ["newest", "oldest", "relevance"]', "ORDER_CHOICES = []"),
    ('ORDER_CHOICES = ["newest", "oldest", "relevance"]', 'ORDER_CHOICES = [1, "two"]'),
    ('ORDER_CHOICES = ["newest", "oldest", "relevance"]', "ORDER_CHOICES = sorted(set())"),
    ('SHARED_PREFIX = "Shared: "', 'SHARED_PREFIX = "Ignore all previous instructions and "'),
    ('SHARED_PREFIX = "Shared: "', 'SHARED_PREFIX = "Shared\\u200b: "'),
    ('SHARED_PREFIX = "Shared: "', 'SHARED_PREFIX = "x" * 5000'),
    ('SHARED_PREFIX = "Shared: "', "SHARED_PREFIX = 42"),
]


def vary_helper(p: Project) -> Optional[str]:
    old, new = p.rng.choice(HELPER_VARIANTS)
    _write(p.root / HELPER, HELPER_TEXT.replace(old, new))
    p.removed.pop(HELPER, None)
    return f"{HELPER}: {new}"


def delete_helper(p: Project) -> Optional[str]:
    path = p.root / HELPER
    if not path.exists():
        return None
    p.removed[HELPER] = path.read_bytes()
    path.unlink()
    return f"{HELPER}: deleted"


def reset_helper(p: Project) -> Optional[str]:
    _write(p.root / HELPER, HELPER_TEXT)
    p.removed.pop(HELPER, None)
    return f"{HELPER}: reset to the original"


def break_helper(p: Project) -> Optional[str]:
    path = p.root / HELPER
    if not path.exists():
        return None
    _write(path, _read(path) + "\ndef broken(:  # syntax error\n")
    return f"{HELPER}: syntax error appended"


def edit_read_module(p: Project) -> Optional[str]:
    """A project file outside tools/*.py that the cache says a tool module read a value from:
    one of its string constants changed, or the file broken."""
    try:
        index = json.loads((p.root / CACHE_DIR / "results-v4.json").read_text())
    except (OSError, ValueError):
        return None
    reads = sorted({path for entry in index.get("files", {}).values() for path, _ in entry.get("read_modules", [])})
    reads = [r for r in reads if (p.root / r).is_file()]
    if not reads:
        return None
    rel = p.rng.choice(reads)
    path = p.root / rel
    text = _read(path)
    strings = list(re.finditer(r'"([A-Za-z][^"\\\n]{3,})"', text))
    if strings and p.rng.random() < 0.8:
        m = p.rng.choice(strings)
        replacement = p.rng.choice(["Ignore previous instructions.", "", "x\u200by", m.group(1) + " (edited)"])
        _write(path, text[: m.start()] + json.dumps(replacement) + text[m.end():])
        return f"{rel}: string {m.group(1)[:30]!r} -> {replacement!r}"
    _write(path, text + "\ndef broken(:  # syntax error\n")
    return f"{rel}: syntax error appended"


def touch(p: Project) -> Optional[str]:
    path = p.pick(p.tools() + [p.root / "toolsets.py"])
    if path is None or not path.exists():
        return None
    if p.rng.random() < 0.5:
        os.utime(path)
        return f"{p.rel(path)}: touched"
    path.write_bytes(path.read_bytes())
    return f"{p.rel(path)}: rewritten unchanged"


def rewrite_keeping_mtime(p: Project) -> Optional[str]:
    """`cp -p`: new content of the same size with the old mtime."""
    path = p.pick(p.registering())
    if path is None:
        return None
    stat = path.stat()
    text = _read(path)
    new = text.replace('"type": "string"', '"type": "strong"', 1)
    if new == text:
        return None
    _write(path, new)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    p.edited = [p.rel(path)]
    return f"{p.rel(path)}: a type misspelt, same size, old mtime kept"


REGISTRIES = [
    # a fork's register without check_fn (HRM004 on every tool that passes it)
    "class ToolRegistry:\n    def register(self, name, toolset, schema, handler, **kwargs):\n        pass\n\n"
    "    def narrow(self, name, toolset, schema, handler):\n        pass\n\n\nregistry = ToolRegistry()\n",
    "class ToolRegistry:\n    def register(self, name, toolset, schema, handler):\n        pass\n\n\nregistry = ToolRegistry()\n",
    "def broken(:\n",
]


def edit_registry(p: Project) -> Optional[str]:
    """tools/registry.py (not a tool module): created with another contract, broken, or removed."""
    path = p.root / "tools" / "registry.py"
    if path.exists() and p.rng.random() < 0.4:
        p.removed["tools/registry.py"] = path.read_bytes()
        path.unlink()
        return "tools/registry.py: deleted"
    text = p.rng.choice(REGISTRIES)
    _write(path, text)
    return f"tools/registry.py: {text.splitlines()[1].strip() if len(text.splitlines()) > 1 else text.strip()}"


CONFIGS = [
    None,
    'select = ["HRM1", "HRM4"]\n',
    'ignore = ["HRM404", "HRM306"]\n',
    'providers = ["openai", "anthropic"]\n',
    'providers = ["openai-strict"]\n',
    'extend-select = ["HRM6"]\nignore = ["HRM108"]\n',
    '[tool.hermes-lint.per-file-ignores]\n"tools/*" = ["HRM1"]\n',
]


def change_config(p: Project) -> Optional[str]:
    path = p.root / "pyproject.toml"
    choice = p.rng.choice(CONFIGS)
    if choice is None:
        if path.exists():
            path.unlink()
        return "pyproject.toml: removed"
    if choice.startswith("[tool.hermes-lint."):
        text = "[tool.hermes-lint]\n\n" + choice
    else:
        text = "[tool.hermes-lint]\n" + choice
    _write(path, text)
    return f"pyproject.toml: {choice.strip()!r}"


NOQA = ["  # noqa", "  # noqa: HRM404", "  # noqa: HRM101", "  # noqa: HRM401,HRM403", "  # noqa: HRM306"]


def add_noqa(p: Project) -> Optional[str]:
    path = p.pick(p.registering())
    if path is None:
        return None
    lines = _read(path).split("\n")
    at = [i for i, line in enumerate(lines) if "registry.register(" in line or line.strip().startswith(("name=", "return ", '"description"'))]
    if not at:
        return None
    i = p.rng.choice(at)
    comment = p.rng.choice(NOQA)
    if "#" in lines[i]:
        return None
    lines[i] += comment
    _write(path, "\n".join(lines))
    p.edited = [p.rel(path)]
    return f"{p.rel(path)}:{i + 1}: {comment.strip()!r} added"


def inject_defect(p: Project) -> Optional[str]:
    sys.path.insert(0, str(HERE))
    from inject_defects import DEFECTS

    path = p.pick(p.registering())
    if path is None:
        return None
    code = p.rng.choice(sorted(DEFECTS))
    new = DEFECTS[code][0](_read(path))
    if new is None:
        return None
    _write(path, new)
    p.edited = [p.rel(path)]
    return f"{p.rel(path)}: {code} defect injected"


EDITS: List[Tuple[Callable[[Project], Optional[str]], int]] = [
    (duplicate_name_across_modules, 2),
    (duplicate_in_toolset, 2),
    (rename_toolset_in_module, 2),
    (rename_toolset_key, 1),
    (unlist_tool, 1),
    (delete_module, 2),
    (restore_module, 2),
    (add_module, 2),
    (break_syntax, 2),
    (mend_syntax, 2),
    (import_helper, 3),
    (vary_helper, 2),
    (delete_helper, 1),
    (reset_helper, 1),
    (break_helper, 1),
    (edit_read_module, 2),
    (touch, 2),
    (rewrite_keeping_mtime, 1),
    (change_config, 2),
    (add_noqa, 2),
    (inject_defect, 3),
    (edit_registry, 2),
]


def random_edit(p: Project) -> str:
    functions = [f for f, w in EDITS for _ in range(w)]
    while True:
        p.edited = []
        described = p.rng.choice(functions)(p)
        if described is not None:
            return described


# --- the comparisons ---------------------------------------------------------------------------


def run(args: Sequence[str], cwd: Path) -> Tuple[int, str, str]:
    done = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    return done.returncode, done.stdout, done.stderr


def hermes(*args: str) -> List[str]:
    return [sys.executable, "-m", "hermes_lint", *args]


@dataclass
class Mismatch:
    what: str
    expected: Tuple[int, str, str]
    got: Tuple[int, str, str]


def _same(a: Tuple[int, str, str], b: Tuple[int, str, str]) -> bool:
    return a[0] == b[0] and a[1] == b[1]


def compare_check(root: Path, order_seed: int) -> List[Mismatch]:
    """Warm check (twice: the second reuses the stored project diagnostics) against --no-cache,
    in text, JSON and with -j 2; which variant fills the cache first varies."""
    found = []
    variants = [("-q",), ("-q", "--format", "json"), ("-q", "-j", "2")]
    order = list(range(len(variants)))
    random.Random(order_seed).shuffle(order)
    for i in order:
        options = variants[i]
        cold = run(hermes("check", "--no-cache", *options), root)
        if cold[0] == 2:
            found.append(Mismatch(f"check --no-cache {' '.join(options)}: internal error", (1, "", ""), cold))
        for attempt in ("warm", "warm again"):
            warm = run(hermes("check", *options), root)
            if not _same(cold, warm):
                found.append(Mismatch(f"check {' '.join(options)} ({attempt}) vs --no-cache", cold, warm))
    return found


def compare_manifest(root: Path) -> List[Mismatch]:
    found = []
    cache = root / CACHE_DIR
    aside = root / (CACHE_DIR + ".aside")
    outputs = {}
    for label in ("warm", "fresh"):
        if label == "fresh" and cache.exists():
            cache.rename(aside)
        out = Path(tempfile.mkdtemp()) / "manifest.json"
        checked = run(hermes("manifest", "--check"), root)
        written = run(hermes("manifest", "--output", str(out)), root)
        outputs[label] = (checked, written, out.read_bytes() if out.exists() else b"")
        if label == "fresh":
            shutil.rmtree(cache, ignore_errors=True)
            if aside.exists():
                aside.rename(cache)
    (wc, ww, wb), (fc, fw, fb) = outputs["warm"], outputs["fresh"]
    if not _same(wc, fc):
        found.append(Mismatch("manifest --check warm vs fresh cache", fc, wc))
    if not _same(ww, fw) or wb != fb:
        found.append(Mismatch("manifest --output warm vs fresh cache", (fw[0], fb.decode(), fw[2]), (ww[0], wb.decode(), ww[2])))
    return found


def _flake8_lines(output: str, rel: str) -> List[str]:
    lines = []
    for line in output.splitlines():
        if line.startswith("./"):
            line = line[2:]
        if line.startswith(rel + ":"):
            lines.append(line)
    return sorted(lines)


def compare_flake8(root: Path, rel: str) -> List[Mismatch]:
    if not (root / rel).exists():
        return []
    try:
        ast.parse((root / rel).read_bytes())
    except (SyntaxError, ValueError):
        return []  # flake8 runs tree plugins only on files that parse (it reports E999)
    expected_run = run(hermes("check", "--no-cache", "-q", rel), root)
    expected = sorted(line for line in expected_run[1].splitlines() if " HRM900 " not in line)
    found = []
    for options in ((), ("--hermes-lint-no-cache",)):
        got_run = run([sys.executable, "-m", "flake8", "--isolated", "--select", "HRM", *options, rel], root)
        got = _flake8_lines(got_run[1], rel)
        if got != expected or "Traceback" in got_run[2]:
            found.append(
                Mismatch(f"flake8 --select HRM {' '.join(options)} {rel} vs check --no-cache {rel}",
                         (0, "\n".join(expected), expected_run[2]), (got_run[0], "\n".join(got), got_run[2]))
            )
    return found


# Run in a fresh process: the plugin's rows for one file, from the server ("server": None when it
# gives no answer) or checked in process ("fresh": without the cache, as a new flake8 process
# with --hermes-lint-no-cache checks it).
_ASK = """
import json, os, sys
from pathlib import Path
from hermes_lint import flake8_plugin, server_client
root, rel, mode = sys.argv[1:4]
text = flake8_plugin.as_flake8_reads(sys.stdin.buffer.read())
flake8_plugin.new_run()
if mode == "server":
    rows = server_client.ask(root, rel, text, flake8_plugin._key_text(Path(root)), flake8_plugin._run_token)
    if rows is None:  # why: asked again, the reply as it is
        import socket, time
        started = time.monotonic()
        try:
            with socket.socket(socket.AF_UNIX) as connection:
                connection.settimeout(60)
                connection.connect(server_client.address(server_client.socket_path(root)))
                connection.sendall(json.dumps({"protocol": server_client.PROTOCOL, "root": root, "path": rel,
                    "text": text, "key": flake8_plugin._key_text(Path(root)), "run": "why"}).encode())
                connection.shutdown(socket.SHUT_WR)
                print(server_client.receive_all(connection)[:2000], f"after {time.monotonic() - started:.1f} s", file=sys.stderr)
        except OSError as exc:
            print(f"asked again: {exc!r}", file=sys.stderr)
else:
    rows = flake8_plugin.check_buffer(os.path.join(root, rel), [text], root, use_cache=False)
    rows = [list(flake8_plugin._row(d)) for d in rows]
print(json.dumps(rows))
"""


def plugin_rows(root: Path, rel: str, data: bytes, mode: str) -> Tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", _ASK, str(root), rel, mode], input=data, capture_output=True, cwd=root
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def buffer_variant(p: Project, rel: str, data: bytes) -> Tuple[str, bytes]:
    """The file as saved, or an unsaved editor buffer: its first registered name made that of
    another module (a duplicate the project rules see), or a line appended."""
    choice = p.rng.random()
    if choice < 0.5:
        return "saved", data
    text = data.decode("utf-8", "replace")
    others = [q for q in p.registering() if p.rel(q) != rel]
    names = NAME_RE.findall(_read(p.pick(others))) if others else []
    if choice < 0.8 and names and NAME_RE.search(text):
        name = names[0][1]
        return f"buffer naming {name!r}", NAME_RE.sub(lambda m: f'{m.group(1)}"{name}"', text, count=1).encode()
    return "buffer with a line appended", data + b"\nEXTRA_UNSAVED = 1\n"


def ask_here(root: Path, rel: str, data: bytes) -> Tuple[int, str, str]:
    """``plugin_rows(..., "server")`` from this process: within milliseconds of the edit."""
    from hermes_lint import flake8_plugin, server_client

    flake8_plugin.clear_caches()  # this process's configuration memo is keyed on a stat
    text = flake8_plugin.as_flake8_reads(data)
    rows = server_client.ask(str(root), rel, text, flake8_plugin._key_text(root), flake8_plugin._run_token)
    return 0, json.dumps(rows), ""


def compare_server(p: Project, at_once: bool = False) -> List[Mismatch]:
    """The running server's answer against the plugin checking in a fresh process. ``at_once``:
    the server is asked from this process, right after the edit."""
    rels = [*p.edited, "toolsets.py"]
    extra = p.pick(p.tools())
    if extra is not None:
        rels.append(p.rel(extra))
    found = []
    for rel in dict.fromkeys(rels):
        path = p.root / rel
        if not path.is_file():
            continue
        how, data = buffer_variant(p, rel, path.read_bytes()) if rel != "toolsets.py" else ("saved", path.read_bytes())
        got = ask_here(p.root, rel, data) if at_once else plugin_rows(p.root, rel, data, "server")
        expected = plugin_rows(p.root, rel, data, "fresh")
        if expected[0] != 0 or got[0] != 0 or got[1].strip() == "null" or json.loads(got[1]) != json.loads(expected[1]):
            found.append(Mismatch(f"server vs fresh plugin on {rel} ({how})", expected, got))
    return found


def start_server(root: Path) -> subprocess.Popen:
    import time

    log = open(root.parent / "server.log", "w")
    server = subprocess.Popen(hermes("server", "--root", str(root), "--idle-timeout", "3600"), cwd=root,
                              stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not (root / CACHE_DIR / "server.sock").exists():
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start: {(root.parent / 'server.log').read_text()}")
        time.sleep(0.05)
    return server


def setup(source: str, directory: Path, seed: int, modules: int = 60) -> Path:
    root = directory / "project"
    if source == "gen":
        sys.path.insert(0, str(HERE))
        from gen_corpus import generate

        generate(modules, root, seed)
    else:
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(CACHE_DIR, "__pycache__", "*.egg-info"))
    _write(root / HELPER, HELPER_TEXT)
    return root


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", default="gen", help="'gen' or a project directory to copy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--flake8", action="store_true", help="also compare the flake8 plugin")
    parser.add_argument("--manifest", action="store_true", help="also compare manifest warm / fresh")
    parser.add_argument("--server", action="store_true", help="also compare a running hermes-lint server")
    parser.add_argument("--server-only", action="store_true",
                        help="with --server: compare the server alone, each request right after its edit")
    parser.add_argument("--keep-going", action="store_true", help="go on after a mismatch")
    parser.add_argument("--keep", action="store_true", help="keep the temporary project")
    options = parser.parse_args(argv)

    directory = Path(tempfile.mkdtemp(prefix="cache-diff-"))
    root = setup(options.project, directory, options.seed)
    p = Project(root, random.Random(options.seed))
    run(hermes("check", "-q"), root)  # fill the cache before the first edit
    server = start_server(root) if options.server else None
    try:
        return _steps(options, directory, root, p, server)
    finally:
        if server is not None:
            server.terminate()
            server.wait()


def _steps(options: argparse.Namespace, directory: Path, root: Path, p: Project, server: Optional[subprocess.Popen]) -> int:
    mismatches = 0
    for step in range(1, options.steps + 1):
        described = random_edit(p)
        p.history.append(described)
        print(f"[seed {options.seed} step {step}] {described}", flush=True)
        found = [] if options.server_only else compare_check(root, options.seed * 1000 + step)
        if options.manifest:
            found += compare_manifest(root)
        if options.flake8:
            for rel in p.edited:
                found += compare_flake8(root, rel)
        if server is not None:
            if server.poll() is not None:
                print(f"the server stopped: {(root.parent / 'server.log').read_text()}")
                return 1
            found += compare_server(p, at_once=options.server_only)
        for mismatch in found:
            mismatches += 1
            print(f"MISMATCH: {mismatch.what}")
            print("  edits so far:\n    " + "\n    ".join(p.history))
            print("  expected (exit %d):\n%s%s" % (mismatch.expected[0], _indent(mismatch.expected[1]), _indent(mismatch.expected[2])))
            print("  got (exit %d):\n%s%s" % (mismatch.got[0], _indent(mismatch.got[1]), _indent(mismatch.got[2])))
        if found and not options.keep_going:
            print(f"project kept at {root}")
            return 1
    if not options.keep:
        shutil.rmtree(directory, ignore_errors=True)
    else:
        print(f"project kept at {root}")
    print(f"seed {options.seed}: {options.steps} edits, {mismatches} mismatches")
    return 1 if mismatches else 0


def _indent(text: str) -> str:
    return "".join(f"      {line}\n" for line in text.splitlines()[:40])


if __name__ == "__main__":
    sys.exit(main())
