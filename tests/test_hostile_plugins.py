"""A plugin package is data too: a plugin.yaml or pyproject.toml built to hurt ends a run within
seconds with a diagnostic or one exit-2 line, never a traceback, never a read outside the project."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and device symlinks are POSIX")

REGISTER = (
    "import json\n\n"
    "def handle(args, **kw):\n    return json.dumps({})\n\n"
    "def register(ctx):\n"
    '    ctx.register_tool(name="echo", toolset="echo", schema={"name": "echo", "description": "Echo.", '
    '"parameters": {"type": "object", "properties": {}}}, handler=handle, check_fn=lambda: True)\n'
)
PYPROJECT = '[project]\nname = "echo"\nversion = "1"\n\n[project.entry-points."hermes_agent.plugins"]\necho = "{value}"\n'


@pytest.fixture
def deadline():
    def expired(signum, frame):
        raise TimeoutError("blocked: a FIFO or device was read")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def plugin(root: Path, manifest: bytes = b"name: echo\nversion: '1'\ndescription: d\nprovides_tools: [echo]\n") -> Path:
    root.mkdir(exist_ok=True)
    (root / "__init__.py").write_text(REGISTER)
    if manifest is not None:
        (root / "plugin.yaml").write_bytes(manifest)
    return root


def check(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", "--select", "HRM8", *args],
        cwd=root, capture_output=True, text=True, timeout=60,
    )


def alias_bomb() -> bytes:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 12):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    return ("\n".join(lines) + "\n").encode()


def test_a_yaml_alias_bomb_is_one_diagnostic(tmp_path, deadline):
    ran = check(plugin(tmp_path / "p", alias_bomb()))
    assert ran.returncode == 1 and "Traceback" not in ran.stderr
    assert ran.stdout == (
        "plugin.yaml:1:1: HRM803 plugin.yaml holds more than 100000 values through its aliases (an alias bomb?): "
        "not read: nothing in it can be verified\n"
    )


def test_a_64_mib_plugin_yaml_is_not_read(tmp_path, deadline):
    root = plugin(tmp_path / "p", None)
    with open(root / "plugin.yaml", "wb") as handle:
        handle.write(b"name: echo\n")
        handle.truncate(64 * 1024 * 1024)
    ran = check(root)
    assert ran.stdout == (
        "plugin.yaml:1:1: HRM803 plugin.yaml cannot be read: larger than 262144 bytes: nothing in it can be verified\n"
    )


def test_a_plugin_yaml_that_is_not_a_mapping(tmp_path):
    ran = check(plugin(tmp_path / "p", b"- echo\n"))
    assert ran.stdout == (
        'plugin.yaml:1:1: HRM804 plugin.yaml is a list, not a mapping: Hermes logs "Failed to parse" and does not '
        "load the plugin\n"
    )


@posix_only
def test_a_fifo_as_plugin_yaml(tmp_path, deadline):
    root = plugin(tmp_path / "p", None)
    os.mkfifo(root / "plugin.yaml")
    ran = check(root)
    assert ran.stdout == "plugin.yaml:1:1: HRM803 plugin.yaml cannot be read: not a regular file: nothing in it can be verified\n"


@posix_only
@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_a_plugin_yaml_linked_outside_the_project_is_not_read(tmp_path, deadline, target):
    secret = tmp_path / "secret.yaml"
    secret.write_text("name: secret\n")
    pointed = "/dev/zero" if target == "/dev/zero" else str(secret)
    root = plugin(tmp_path / "p", None)
    (root / "plugin.yaml").symlink_to(pointed)
    ran = check(root)
    assert ran.stdout == (
        f"plugin.yaml:1:1: HRM803 plugin.yaml is a link to {os.path.realpath(pointed)}, outside the project: "
        "not read: nothing in it can be verified\n"
    )


@pytest.mark.parametrize(
    "value, message",
    [
        ("../outside", 'entry point `echo = "../outside"` names module `../outside`, which is not in this project'),
        ("os:system", 'entry point `echo = "os:system"` names `os`, a module of Python\'s standard library, not of '
         "this package: Hermes logs \"Plugin 'echo' has no register() function\" and the plugin registers nothing"),
        ("subprocess", "entry point `echo = \"subprocess\"` names `subprocess`, a module of Python's standard library"),
    ],
)
def test_entry_points_naming_modules_outside_the_package(tmp_path, value, message):
    root = tmp_path / "p"
    (root / "echo_plugin").mkdir(parents=True)
    (root / "echo_plugin" / "__init__.py").write_text(REGISTER)
    (root / "pyproject.toml").write_text(PYPROJECT.format(value=value))
    ran = check(root, "--select", "HRM801")
    assert "Traceback" not in ran.stderr
    assert ran.stdout.startswith(f"pyproject.toml:6:1: HRM801 {message}"), ran.stdout + ran.stderr


def test_a_pyproject_that_does_not_parse_is_one_clear_line(tmp_path):
    root = tmp_path / "p"
    (root / "echo_plugin").mkdir(parents=True)
    (root / "echo_plugin" / "__init__.py").write_text(REGISTER)
    (root / "pyproject.toml").write_text('[project\nname = "echo"\n[project.entry-points."hermes_agent.plugins"]\necho = "echo_plugin"\n')
    ran = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache"], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert len(ran.stderr.splitlines()) == 1 and ran.stderr.startswith("hermes-lint: error: "), ran.stderr
