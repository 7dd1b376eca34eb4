"""A check_fn compiled to a template answers as the imported check does, in every environment
the tests make: variables set, unset, empty, "0"/"false"; a program on PATH or not (fake
programs in a temporary directory); a module findable or not (a temporary module); each
platform value; a file present or not. Each environment runs in fresh interpreters, once by
import discovery and once from the manifest, which must import no tool module for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

HELPERS = '''
import os

TRUTHY = frozenset({"1", "true", "yes", "on"})


def is_truthy(value, default=False):
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in TRUTHY
    return bool(value)


def env_enabled(name, default=""):
    return is_truthy(os.getenv(name, default), default=False)
'''

TOOL = '''
import importlib.util
import os
import shutil
import sys
from pathlib import Path

from probe_helpers import env_enabled
from tools.registry import registry

SANDBOX_AVAILABLE = True


def _token():
    return os.getenv("PROBE_TOKEN", "").strip() or None


def check_enabled():
    """Enabled by a truthy PROBE_ENABLED."""
    return env_enabled("PROBE_ENABLED")


def check_token():
    return bool(_token())


def check_program():
    return shutil.which("probe-program") is not None


def check_configured_program():
    return bool(shutil.which(os.getenv("PROBE_PROGRAM", "probe-program")))


def check_module():
    try:
        return importlib.util.find_spec("probe_optional_module") is not None
    except Exception:
        return False


def check_local_module():
    import importlib.util
    try:
        return importlib.util.find_spec("probe_optional_module") is not None
    except (ImportError, ValueError):
        return False


def check_platform():
    if sys.platform == "darwin":
        return True
    elif sys.platform in ("win32", "cygwin"):
        return False
    return env_enabled("PROBE_ON_LINUX")


def check_config_file():
    return Path("~/.probe-config").expanduser().exists()


def check_sandbox():
    return SANDBOX_AVAILABLE


def check_count():
    return bool(int(os.getenv("PROBE_COUNT", "0")))


def check_key():
    return bool(os.getenv("PROBE_KEY"))


def check_key_present():
    return "PROBE_KEY" in os.environ


def check_key_and_other():
    return bool(os.environ.get("PROBE_KEY") and os.getenv("PROBE_OTHER") is not None)


def check_installed():
    return importlib.util.find_spec("probe_optional_module") is not None


def check_true():
    return True


def handle(args, **kwargs):
    return "{}"


CHECKS = {
    "enabled": check_enabled, "token": check_token, "program": check_program,
    "configured_program": check_configured_program, "module": check_module,
    "platform": check_platform, "config_file": check_config_file, "sandbox": check_sandbox,
    "count": check_count,
}
'''

# The simple forms (a variable set and not empty, set at all, a module findable, true) among
# the rest: one language states them all.
PROBES = ("enabled", "token", "program", "configured_program", "module", "local_module", "platform",
          "config_file", "sandbox", "count", "key", "key_present", "key_and_other", "installed",
          "true")
REGISTRATIONS = "".join(
    f'registry.register(name="probe_{name}", toolset="probe", schema={{"name": "probe_{name}", '
    f'"description": "Probe {name}.", "parameters": {{"type": "object", "properties": {{}}}}}}, '
    f'handler=handle, check_fn=check_{name})\n'
    for name in PROBES
) + (
    'registry.register(name="probe_unchecked", toolset="probe", schema={"name": "probe_unchecked", '
    '"description": "Probe unchecked.", "parameters": {"type": "object", "properties": {}}}, '
    'handler=handle)\n'
)

SCRIPT = r"""
import json, sys
platform = sys.argv[3]
if platform:
    sys.platform = platform
import tools, tools.registry as r
mode, tools_dir = sys.argv[1], sys.argv[2]
tools.__path__.append(tools_dir)
if mode == "import":
    r.discover_builtin_tools(tools_dir, use_manifest=False)
else:
    r.registry.load_manifest(tools_dir + "/manifest.json", tools_dir=tools_dir)
names = r.registry.get_all_tool_names()
available = sorted(d["function"]["name"] for d in r.registry.get_definitions(names))
imported = sorted(m for m in sys.modules if m.startswith("tools.") and m not in r.RUNTIME_MODULES)
print(json.dumps({"available": available, "imported": imported}))
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("templates")
    (root / "tools").mkdir()
    (root / "probe_helpers.py").write_text(HELPERS, encoding="utf-8")
    (root / "toolsets.py").write_text('TOOLSETS = {"probe": {"tools": [%s]}}\n' % ", ".join(
        f'"probe_{name}"' for name in (*PROBES, "unchecked")), encoding="utf-8")
    (root / "tools" / "probe_tool.py").write_text(TOOL + REGISTRATIONS, encoding="utf-8")
    completed = subprocess.run([sys.executable, "-m", "hermes_lint", "manifest"], cwd=root,
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr + completed.stdout
    return root


def manifest_checks(root: Path) -> dict:
    data = json.loads((root / "tools" / "manifest.json").read_text(encoding="utf-8"))
    return {name: tool["check"] for name, tool in data["tools"].items()}


def run(root: Path, mode: str, env: dict, platform: str = "") -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PROBE_", "PYTHON"))}
    environment.update(env)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT), str(root), *filter(None, [env.get("PYTHONPATH_EXTRA")])]
    )
    completed = subprocess.run([sys.executable, "-c", SCRIPT, mode, str(root / "tools"), platform],
                               cwd=root, capture_output=True, text=True, timeout=120, env=environment)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_every_probe_check_is_a_template(project):
    checks = manifest_checks(project)
    assert {name: check["kind"] for name, check in checks.items()} == {
        **{f"probe_{name}": "template" for name in PROBES}, "probe_unchecked": "none"
    }
    assert checks["probe_sandbox"]["template"] == {"const": True}
    assert checks["probe_true"]["template"] == {"const": True}
    assert checks["probe_key"]["template"] == {"env": "PROBE_KEY"}
    assert checks["probe_key_present"]["template"] == {"not": {"is_none": {"env": "PROBE_KEY"}}}
    assert checks["probe_key_and_other"]["template"] == {
        "and": [{"env": "PROBE_KEY"}, {"not": {"is_none": {"env": "PROBE_OTHER"}}}]}
    assert checks["probe_installed"]["template"] == {"not": {"is_none": {"find_spec": "probe_optional_module"}}}
    assert checks["probe_module"]["template"] == {
        "try": {"not": {"is_none": {"find_spec": "probe_optional_module"}}},
        "except": ["Exception"], "fallback": {"const": False},
    }


def fake_program(directory: Path, name: str = "probe-program") -> str:
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / name
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    return str(directory)


ENVIRONMENTS = {
    "nothing set": {},
    "enabled unset, token empty": {"PROBE_TOKEN": ""},
    "enabled empty": {"PROBE_ENABLED": ""},
    "enabled 0": {"PROBE_ENABLED": "0"},
    "enabled false": {"PROBE_ENABLED": "false"},
    "enabled 1": {"PROBE_ENABLED": "1"},
    "enabled padded TRUE": {"PROBE_ENABLED": "  TRUE "},
    "token spaces": {"PROBE_TOKEN": "   "},
    "token set": {"PROBE_TOKEN": "t0k"},
    "linux opt-in": {"PROBE_ON_LINUX": "yes"},
    "count 3": {"PROBE_COUNT": "3"},
    "count 0": {"PROBE_COUNT": "0"},
    "key empty": {"PROBE_KEY": ""},
    "key 0": {"PROBE_KEY": "0"},
    "key set, other unset": {"PROBE_KEY": "k"},
    "key set, other empty": {"PROBE_KEY": "k", "PROBE_OTHER": ""},
    "key empty, other set": {"PROBE_KEY": "", "PROBE_OTHER": "o"},
}


@pytest.mark.parametrize("case", list(ENVIRONMENTS))
def test_template_checks_answer_as_the_imported_checks(project, tmp_path, case):
    env = dict(ENVIRONMENTS[case], HOME=str(tmp_path / "home"), PATH="/usr/bin:/bin")
    by_import = run(project, "import", env)
    by_manifest = run(project, "manifest", env)
    assert by_manifest["available"] == by_import["available"]
    assert by_manifest["imported"] == []
    assert by_import["imported"] == ["tools.probe_tool"]


def test_a_program_on_path_a_findable_module_and_a_file_present(project, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".probe-config").write_text("", encoding="utf-8")
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "probe_optional_module.py").write_text("", encoding="utf-8")
    env = {"HOME": str(home), "PATH": fake_program(tmp_path / "bin") + ":/usr/bin:/bin",
           "PYTHONPATH_EXTRA": str(modules)}
    by_import = run(project, "import", env)
    by_manifest = run(project, "manifest", env)
    assert by_manifest == {"available": by_import["available"], "imported": []}
    assert {"probe_program", "probe_configured_program", "probe_module", "probe_local_module",
            "probe_config_file", "probe_installed"} <= set(by_import["available"])


# What format versions 1 to 3 wrote for the simple forms, which a runtime of version 4 reads as
# the templates it now gets.
OLD_FORMS = {
    "probe_key": {"kind": "env", "all": ["PROBE_KEY"]},
    "probe_key_present": {"kind": "env", "all": [], "present": ["PROBE_KEY"]},
    "probe_key_and_other": {"kind": "env", "all": ["PROBE_KEY"], "present": ["PROBE_OTHER"]},
    "probe_installed": {"kind": "module", "name": "probe_optional_module"},
    "probe_unchecked": {"kind": "always"},
}


@pytest.mark.parametrize("case", ["nothing set", "key empty", "key set, other empty", "findable"])
def test_a_format_3_manifest_with_the_old_forms_answers_as_the_imported_checks(project, tmp_path, case):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(project, old, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = old / "tools" / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    assert data["format_version"] == 4
    data["format_version"] = 3
    for name, check in OLD_FORMS.items():
        data["tools"][name]["check"] = check
    manifest.write_text(json.dumps(data), encoding="utf-8")  # no digest line: validated
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", **ENVIRONMENTS.get(case, {})}
    if case == "findable":
        (tmp_path / "modules").mkdir()
        (tmp_path / "modules" / "probe_optional_module.py").write_text("", encoding="utf-8")
        env["PYTHONPATH_EXTRA"] = str(tmp_path / "modules")
    by_import = run(old, "import", env)
    by_manifest = run(old, "manifest", env)
    assert by_manifest == {"available": by_import["available"], "imported": []}
    expected = {"nothing set": set(), "key empty": {"probe_key_present"},
                "key set, other empty": set(OLD_FORMS) - {"probe_installed"},
                "findable": {"probe_installed", "probe_unchecked"}}[case] | {"probe_unchecked"}
    assert set(OLD_FORMS) & set(by_manifest["available"]) == expected


def test_a_program_named_by_a_variable(project, tmp_path):
    env = {"HOME": str(tmp_path), "PROBE_PROGRAM": "other-program",
           "PATH": fake_program(tmp_path / "bin", "other-program") + ":/usr/bin:/bin"}
    by_import, by_manifest = run(project, "import", env), run(project, "manifest", env)
    assert by_manifest == {"available": by_import["available"], "imported": []}
    assert "probe_configured_program" in by_import["available"]
    assert "probe_program" not in by_import["available"]


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32", "cygwin", "freebsd14"])
@pytest.mark.parametrize("opt_in", ["", "on"])
def test_each_platform_value(project, tmp_path, platform, opt_in):
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PROBE_ON_LINUX": opt_in}
    by_import = run(project, "import", env, platform)
    by_manifest = run(project, "manifest", env, platform)
    assert by_manifest == {"available": by_import["available"], "imported": []}
    assert ("probe_platform" in by_import["available"]) == (platform == "darwin" or (
        platform not in ("win32", "cygwin") and opt_in == "on"))


def test_a_template_that_raises_imports_the_module_and_asks_its_check(project, tmp_path):
    """int("many") raises in the template as in the check: the module is imported, and its
    check (which raises too) makes the tool unavailable, as import discovery does."""
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PROBE_COUNT": "many"}
    by_import, by_manifest = run(project, "import", env), run(project, "manifest", env)
    assert by_manifest["available"] == by_import["available"]
    assert "probe_count" not in by_manifest["available"]
    assert by_manifest["imported"] == ["tools.probe_tool"]


CLOCK_SCRIPT = r"""
import json, os, sys
import tools, tools.registry as r
tools_dir = sys.argv[1]
tools.__path__.append(tools_dir)
now = [1000.0]
registry = r.ToolRegistry(clock=lambda: now[0])
r.registry = registry
registry.load_manifest(tools_dir + "/manifest.json", tools_dir=tools_dir)
def available():
    return "probe_token" in [d["function"]["name"] for d in registry.get_definitions(["probe_token"])]
seen = [available()]
os.environ["PROBE_TOKEN"] = "now set"
now[0] += 29.0
seen.append(available())  # within the 30 s TTL: the cached answer
now[0] += 2.0
seen.append(available())  # past it: evaluated again
del os.environ["PROBE_TOKEN"]
now[0] += 31.0
seen.append(available())  # failing within 60 s of the last success: still available
now[0] += 61.0
seen.append(available())
print(json.dumps(seen))
"""


def test_a_template_check_has_the_imported_checks_ttl_and_grace(project):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PROBE_", "PYTHON"))}
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), str(project)])
    completed = subprocess.run([sys.executable, "-c", CLOCK_SCRIPT, str(project / "tools")],
                               cwd=project, capture_output=True, text=True, timeout=120,
                               env=environment)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == [False, False, True, True, False]


def test_the_runtime_evaluates_each_operator_as_python(monkeypatch, tmp_path):
    from tools.manifest_template_checks import check_template
    from tools.manifest_templates import TemplateFailed, evaluate

    monkeypatch.setenv("PROBE_VALUE", "  Yes ")
    value = {"env": "PROBE_VALUE"}
    cases = [
        ({"method": "strip", "of": value}, "Yes"),
        ({"method": "lower", "of": {"method": "strip", "of": value}}, "yes"),
        ({"in": {"method": "lower", "of": {"method": "strip", "of": value}}, "values": ["yes", "1"]}, True),
        ({"in": value, "values": ["yes"]}, False),
        ({"isinstance": value, "type": "str"}, True),
        ({"isinstance": {"const": True}, "type": "int"}, True),
        ({"platform": None}, sys.platform),
        ({"find_spec": "json"}, "spec"),
        ({"find_spec": "probe_no_such_module_at_all"}, None),
        ({"path_exists": {"const": str(tmp_path)}, "expanduser": False}, True),
        ({"path_exists": {"const": str(tmp_path / "absent")}, "expanduser": True}, False),
        ({"which": {"const": "probe-no-such-program"}}, None),
    ]
    for template, expected in cases:
        assert check_template(template) is None, template
        result = evaluate(template)
        if expected == "spec":
            assert result is not None and result.name == "json"
        else:
            assert result == expected, template
    monkeypatch.delenv("PROBE_VALUE")
    with pytest.raises(TemplateFailed, match="AttributeError"):
        evaluate({"method": "strip", "of": value})  # None.strip(), as the check would raise
    with pytest.raises(TemplateFailed, match="TypeError"):
        evaluate({"which": value})


def test_evaluation_never_probes_a_dotted_name_nor_calls_another_method(monkeypatch):
    """What a forged manifest with a recomputed digest (not validated) could ask: refused where it
    is evaluated, so the check imports the tool's module instead, never `a` of `a.b`."""
    from tools.manifest_templates import TemplateFailed, evaluate

    found = []
    monkeypatch.setattr("importlib.util.find_spec", lambda name: found.append(name))
    with pytest.raises(TemplateFailed, match="ValueError: find_spec of 'json.decoder', not a top-level module name"):
        evaluate({"find_spec": "json.decoder"})
    with pytest.raises(TemplateFailed, match="ValueError: 'split' is not a str method the runtime knows"):
        evaluate({"method": "split", "of": {"const": "a b"}})
    evaluate({"find_spec": "json"})
    assert found == ["json"]


@pytest.mark.parametrize("template, problem", [
    ({"method": "split", "of": {"const": "a"}}, "template 'method' of 'split' is not a str method the runtime knows"),
    ({"find_spec": "a.b"}, "template 'find_spec' needs a top-level module name"),
    ({"platform": "linux"}, "template 'platform' takes null"),
    ({"in": {"const": 1}, "values": [[1]]}, "template 'in' needs a list of constants"),
    ({"isinstance": {"const": 1}, "type": "list"}, "template 'isinstance' names a type other than str, bool, int or float"),
    ({"path_exists": {"const": "/"}, "expanduser": "yes"}, "template 'path_exists' needs expanduser true or false"),
])
def test_malformed_check_templates_are_refused(template, problem):
    from tools.manifest_template_checks import check_template

    assert check_template(template) == problem

