"""The plugin rules (HRM801-HRM811) end to end, where their examples cannot show it: where the
built-in names come from, what keeps the drift rules silent, HRM203 reading plugin.yaml."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_lint.config import Config
from hermes_lint.project_check import run_project
from hermes_lint.extract import builtin_tools as builtin
from tests.project_files import write

REPO_ROOT = Path(__file__).resolve().parent.parent
RELEASE = Path("/work/ext/releases/hermes_agent-0.19.0")


def codes(root: Path, *selected: str):
    config = Config(project_root=str(root), select=selected)
    return [(d.path, d.line, d.col, d.code, d.message) for d in run_project(root, config)]


MANIFEST = "name: w\nversion: '1'\ndescription: d\nprovides_tools: [w, w_extra]\nrequires_env: [W_KEY]\n"
HANDLER = (
    "import json\nimport os\n\n"
    "def check():\n    return bool(os.getenv('W_KEY'))\n\n"
    "def handle(args, **kw):\n    return json.dumps({'k': os.environ['W_KEY']})\n\n"
    "SCHEMA = {'name': 'w', 'description': 'd', 'parameters': {'type': 'object', 'properties': {}}}\n\n"
)


def test_drift_is_silent_while_a_registration_cannot_be_read_and_said_once_it_can(tmp_path):
    root = write(tmp_path, {
        "plugin.yaml": MANIFEST,
        "__init__.py": HANDLER + "def register(ctx):\n"
        "    ctx.register_tool(name='w', toolset='w', schema=SCHEMA, handler=handle, check_fn=check)\n"
        "    for name in load_names():\n"
        "        ctx.register_tool(name=name, toolset='w', schema=SCHEMA, handler=handle, check_fn=check)\n",
    })
    assert codes(root, "HRM808") == []
    (root / "__init__.py").write_text(
        HANDLER + "def register(ctx):\n    ctx.register_tool(name='w', toolset='w', schema=SCHEMA, handler=handle, check_fn=check)\n"
    )
    assert codes(root, "HRM808") == [
        ("plugin.yaml", 4, 21, "HRM808", "`w_extra` is declared in provides_tools, but register(ctx) never registers it"),
    ]


def test_hrm203_counts_plugin_yaml_requires_env_and_sees_it_change_through_the_cache(tmp_path):
    root = write(tmp_path, {
        "plugin.yaml": MANIFEST.replace("[w, w_extra]", "[w]"),
        "__init__.py": HANDLER + "def register(ctx):\n"
        "    ctx.register_tool(name='w', toolset='w', schema=SCHEMA, handler=handle, check_fn=check)\n",
    })
    config = Config(project_root=str(root), select=("HRM203",))
    assert run_project(root, config, use_cache=True) == []
    (root / "plugin.yaml").write_text(MANIFEST.replace("[w, w_extra]", "[w]").replace("requires_env: [W_KEY]\n", ""))
    found = run_project(root, config, use_cache=True)
    assert [(d.path, d.line, d.col, d.message) for d in found] == [
        ("__init__.py", 5, 17, "`W_KEY` is required by check_fn `check` but not listed in `requires_env` of tool `w`"),
    ]
    assert [d.message for d in run_project(root, config, use_cache=False)] == [d.message for d in found]


def test_the_shipped_catalogue_is_what_the_script_makes_of_the_release():
    if not (RELEASE / "tools").is_dir():
        pytest.skip("the hermes-agent 0.19.0 release is not unpacked here")
    script = REPO_ROOT / "scripts" / "generate_builtin_tool_catalogue.py"
    ran = subprocess.run([sys.executable, str(script), str(RELEASE), "--check"], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    shipped = builtin.shipped_catalogue()
    assert shipped.source == "hermes-agent 0.19.0 (catalogue shipped with hermes-lint)"
    assert shipped.tools["web_search"] == "web" and shipped.tools["terminal"] == "terminal"
    assert "pre_tool_call" in shipped.hooks and "pre_tool_use" not in shipped.hooks


def test_an_installed_hermes_is_read_from_its_files_and_named_in_the_message(tmp_path, monkeypatch):
    hermes = write(tmp_path / "site", {
        "tools/registry.py": "class ToolRegistry: ...\nregistry = ToolRegistry()\n",
        "tools/echo_tool.py": "from tools.registry import registry\n"
        "registry.register(name='echo', toolset='core', schema={}, handler=lambda a, **k: '')\n",
        # were it imported, the run would fail
        "tools/boom_tool.py": "raise SystemExit('imported')\n"
        "from tools.registry import registry\n"
        "registry.register(name='boom', toolset='core', schema={}, handler=lambda a, **k: '')\n",
        "hermes_cli/plugins.py": "VALID_HOOKS = {'on_start', 'on_stop'}\n",
    })
    monkeypatch.setattr(builtin, "_installed_files", lambda: (hermes / "tools", hermes / "hermes_cli" / "plugins.py", "9.9.9"))
    builtin.builtin_tools.cache_clear()
    try:
        root = write(tmp_path / "project", {
            "plugin.yaml": "name: e\nversion: '1'\ndescription: d\nprovides_tools: [echo]\nprovides_hooks: [pre_tool_call]\n",
            "__init__.py": "def register(ctx):\n"
            "    ctx.register_tool(name='echo', toolset='e', schema={}, handler=lambda a, **k: '')\n",
        })
        found = codes(root, "HRM805", "HRM810")
    finally:
        builtin.builtin_tools.cache_clear()
    assert found == [
        ("__init__.py", 2, 28, "HRM810", "tool `echo` is a built-in tool of hermes-agent 9.9.9 (installed), in toolset "
         "'core': the registry rejects this registration (\"Tool registration REJECTED\") unless it passes "
         "override=True and the operator allows this plugin's overrides"),
        ("plugin.yaml", 5, 18, "HRM805", "`pre_tool_call` is not a hook of hermes-agent 9.9.9 (installed): a callback "
         "registered for it is never called"),
    ]


def test_without_an_installed_hermes_the_catalogue_answers(monkeypatch):
    monkeypatch.setattr(builtin, "_installed_files", lambda: None)
    builtin.builtin_tools.cache_clear()
    try:
        assert builtin.builtin_tools() == builtin.shipped_catalogue()
    finally:
        builtin.builtin_tools.cache_clear()


def test_catalogue_bytes_are_deterministic():
    text = builtin.catalogue_text({"b": "x", "a": "y"}, ("z_hook", "a_hook"), "1.0")
    assert json.loads(text) == {
        "format": "hermes-lint-builtin-tools", "hermes_agent_version": "1.0", "hooks": ["a_hook", "z_hook"],
        "tools": {"a": "y", "b": "x"},
    }
    assert text == builtin.catalogue_text({"a": "y", "b": "x"}, ("a_hook", "z_hook"), "1.0") and text.endswith("}\n")


def test_a_hermes_tree_is_judged_by_hrm401_not_against_the_catalogue(tmp_path):
    root = write(tmp_path, {
        "toolsets.py": "TOOLSETS = {}\n",
        "tools/__init__.py": "",
        "tools/web_tool.py": "from tools.registry import registry\n"
        "registry.register(name='web_search', toolset='web', schema={}, handler=lambda a, **k: '')\n",
        "plugins/finder/__init__.py": "def register(ctx):\n"
        "    ctx.register_tool(name='terminal', toolset='finder', schema={}, handler=lambda a, **k: '', override=True)\n",
    })
    assert codes(root, "HRM810", "HRM811") == []


@pytest.mark.parametrize(
    "method, expected",
    [
        ("    def register(self, ctx):", [("echo_plugin/__init__.py", 2, 5, "HRM802", "Hermes's `register(ctx)` passes "
          "the context as `self`, and `ctx` is missing (TypeError): it logs \"Failed to load plugin\" and the plugin "
          "registers nothing")]),
        ("    @staticmethod\n    def register(ctx):", []),
    ],
)
def test_a_class_named_by_the_entry_point_is_called_as_class_register(tmp_path, method, expected):
    root = write(tmp_path, {
        "pyproject.toml": '[project]\nname = "echo"\nversion = "1"\n\n'
        '[project.entry-points."hermes_agent.plugins"]\necho = "echo_plugin:Plugin"\n',
        "echo_plugin/__init__.py": f"class Plugin:\n{method}\n        ctx.register_tool(name='echo', toolset='echo', "
        "schema={}, handler=lambda a, **k: '')\n",
    })
    assert codes(root, "HRM801", "HRM802") == expected


def test_a_plugin_yaml_edit_is_seen_by_a_cached_run(tmp_path):
    root = write(tmp_path, {
        "plugin.yaml": MANIFEST.replace("[w, w_extra]", "[w]"),
        "__init__.py": HANDLER + "def register(ctx):\n"
        "    ctx.register_tool(name='w', toolset='w', schema=SCHEMA, handler=handle, check_fn=check)\n",
    })
    config = Config(project_root=str(root), select=("HRM8",))
    assert run_project(root, config, use_cache=True) == []
    assert run_project(root, config, use_cache=True) == []
    (root / "plugin.yaml").write_text(MANIFEST.replace("[w, w_extra]", "[w]").replace("version: '1'", "version: 1.10"))
    found = run_project(root, config, use_cache=True)
    assert [(d.path, d.line, d.code) for d in found] == [("plugin.yaml", 2, "HRM804")]
    assert found == run_project(root, config, use_cache=False)


@pytest.mark.parametrize("file, text", [
    ("pyproject.toml", '[project]\nname = "dice"\nversion = "1"\n\n[project.entry-points."hermes_agent.plugins"]\n\n'
                       'dice = "dice_plugin:register"\n'),
    ("setup.cfg", "[metadata]\nname = dice\n\n[options.entry_points]\n\nhermes_agent.plugins =\n\n"
                  "    dice = dice_plugin:register\n"),
])
def test_an_entry_point_after_blank_lines_is_located_at_its_own_line(tmp_path, file, text):
    # a blank line before the table header or the entry is not the entry's line
    root = write(tmp_path, {file: text, "dice_plugin/__init__.py": "def register(ctx):\n    pass\n"})
    line = text.splitlines().index(next(l for l in text.splitlines() if "dice_plugin:register" in l)) + 1
    assert [(path, found) for path, found, _, code, _ in codes(root, "HRM801")] == [(file, line)]
