"""Which Hermes the built-in names (HRM810, HRM811) and hooks (HRM805) come from, through the real
CLI: a hermes-agent an installer recorded (in a site-packages directory on the path, or an
editable install), never a source checkout that is the working directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HOOKS = "VALID_HOOKS = {'pre_tool_call', 'on_installed_only'}\n"
HERMES_FILES = {
    "tools/__init__.py": "",
    "tools/registry.py": "class ToolRegistry:\n    def register(self, name, toolset, schema, handler, **kw): ...\n\n"
    "registry = ToolRegistry()\n",
    "tools/echo_tool.py": "from tools.registry import registry\n\n"
    "registry.register(name='echo', toolset='core', schema={}, handler=lambda a, **k: '')\n",
    "hermes_cli/__init__.py": "",
    "hermes_cli/plugins.py": HOOKS,
}
PLUGIN = {
    "plugin.yaml": "name: e\nversion: '1'\ndescription: d\nprovides_tools: [echo]\nprovides_hooks: [on_installed_only]\n",
    "__init__.py": "def register(ctx):\n"
    "    ctx.register_tool(name='echo', toolset='e', schema={}, handler=lambda a, **k: '')\n",
}


def write(root: Path, files: dict) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def installed(site: Path, version: str, files: dict, extra_metadata: dict = None) -> Path:
    """A hermes-agent as an installer leaves it in ``site``: the files, and a dist-info whose
    RECORD lists them."""
    write(site, files)
    info = f"hermes_agent-{version}.dist-info"
    record = "".join(f"{path},,\n" for path in files) + f"{info}/METADATA,,\n{info}/RECORD,,\n"
    write(site, {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: hermes-agent\nVersion: {version}\n",
        f"{info}/RECORD": record,
        **{f"{info}/{name}": text for name, text in (extra_metadata or {}).items()},
    })
    return site


def check(cwd: Path, *args: str, path: Path = None):
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    if path is not None:
        environ["PYTHONPATH"] = str(path)
    completed = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--no-cache", *args],
        cwd=cwd, capture_output=True, text=True, env=environ, timeout=120,
    )
    return completed.returncode, completed.stdout.splitlines()


def collision(source: str) -> str:
    return (f"__init__.py:2:28: HRM810 tool `echo` is a built-in tool of {source}, in toolset 'core': the registry "
            "rejects this registration (\"Tool registration REJECTED\") unless it passes override=True and the operator "
            "allows this plugin's overrides")


def test_a_hermes_installed_in_a_site_packages_directory_is_read_and_named(tmp_path):
    site = installed(tmp_path / "venv" / "lib" / "python3" / "site-packages", "9.9.9", HERMES_FILES)
    project = write(tmp_path / "project", PLUGIN)
    assert check(project, "--select", "HRM805,HRM810", path=site) == (1, [collision("hermes-agent 9.9.9 (installed)")])
    # without it, the shipped catalogue: `echo` is no built-in there, and the hook is unknown
    assert check(project, "--select", "HRM805,HRM810") == (1, [
        "plugin.yaml:5:18: HRM805 `on_installed_only` is not a hook of hermes-agent 0.19.0 (catalogue shipped with "
        "hermes-lint): a callback registered for it is never called",
    ])


def test_an_editable_install_is_read_from_its_source_directory(tmp_path):
    source = write(tmp_path / "src" / "hermes-agent", HERMES_FILES)
    site = installed(tmp_path / "site-packages", "9.9.8", {"__editable__.hermes_agent-9.9.8.pth": str(source) + "\n"},
                     {"direct_url.json": json.dumps({"url": source.as_uri(), "dir_info": {"editable": True}})})
    project = write(tmp_path / "project", PLUGIN)
    assert check(project, "--select", "HRM805,HRM810", path=site) == (1, [collision("hermes-agent 9.9.8 (installed)")])


def checkout(root: Path) -> Path:
    """A hermes-agent source tree as an sdist unpacks (or ``pip install -e`` of old left it): its
    ``hermes_agent.egg-info`` lists its sources, and importlib.metadata finds it when the tree is on
    sys.path, as the working directory of ``python -m`` is."""
    files = dict(HERMES_FILES)
    files["toolsets.py"] = "TOOLSETS = {'core': {'tools': ['echo']}}\n"
    files["plugins/notes/plugin.yaml"] = "name: notes\nversion: '1'\ndescription: d\nprovides_hooks: [on_installed_only]\n"
    files["plugins/notes/__init__.py"] = "def register(ctx):\n    ctx.register_hook('on_installed_only', print)\n"
    write(root, files)
    sources = "".join(f"{path}\n" for path in files)
    return write(root, {
        "hermes_agent.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: hermes-agent\nVersion: 7.7.7\n",
        "hermes_agent.egg-info/SOURCES.txt": sources,
    })


def test_a_checkout_at_the_working_directory_is_the_project_not_the_installed_hermes(tmp_path):
    root = checkout(tmp_path / "hermes-agent")
    # its hooks are not taken for an installation's: the catalogue answers, and its tools are the project's
    unknown = ("plugins/notes/plugin.yaml:4:18: HRM805 `on_installed_only` is not a hook of hermes-agent 0.19.0 "
               "(catalogue shipped with hermes-lint): a callback registered for it is never called")
    assert check(root, "--select", "HRM805") == (1, [unknown])
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "check", "--no-cache", "--select", "HRM805"],
                               cwd=root, capture_output=True, text=True, timeout=120)
    assert completed.stderr == "Found 1 diagnostic in 1 file (1 tool in tools/ and 1 plugin)\n"
    # a real installation beside it is the one read
    site = installed(tmp_path / "site-packages", "9.9.9", HERMES_FILES)
    assert check(root, "--select", "HRM805", path=site) == (0, [])
    # the same tree elsewhere on the path (not the working directory) is still no installation
    elsewhere = write(tmp_path / "plugin", PLUGIN)
    assert check(elsewhere, "--select", "HRM805,HRM810", path=root) == (1, [unknown.replace("plugins/notes/plugin.yaml:4:", "plugin.yaml:5:")])
