"""Values imported from other modules of the project: read from their files, never imported,
and cached facts invalidated when one of those files changes."""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner

from hermes_lint.cli import main

TOOL = """
import json
from tools.registry import registry
from tools.shared_schema import VIDEO_SCHEMA


def check_video():
    return True


def make(args, **kw):
    return json.dumps({"ratio": args.get("ratio"), "clips": args.get("clips")})


registry.register(name="video_make", toolset="video", schema=VIDEO_SCHEMA, handler=make, check_fn=check_video)
"""

SHARED = """
from agent.options import RATIOS

VIDEO_SCHEMA = {
    "name": "video_make",
    "description": "Make a video.",
    "parameters": {
        "type": "object",
        "properties": {
            "ratio": {"type": "string", "enum": RATIOS, "description": "Aspect ratio."},
            "clips": {"type": "array", "items": {"type": "string"}, "description": "Clips."},
        },
    },
}
"""


def write(root: Path, files: dict) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(inspect.cleandoc(text) + "\n", encoding="utf-8")


def project(root: Path, ratios: str = '["16:9", "9:16"]') -> Path:
    write(root, {
        "toolsets.py": 'TOOLSETS = {"video": {"tools": ["video_make"], "includes": []}}',
        "tools/__init__.py": "",
        "tools/video_tool.py": TOOL,
        "tools/shared_schema.py": SHARED,
        "agent/__init__.py": "",
        "agent/options.py": f"RATIOS = {ratios}",
    })
    return root


def check(root: Path, *args: str) -> list:
    old = os.getcwd()
    os.chdir(root)  # paths are printed relative to the current directory
    try:
        result = CliRunner().invoke(main, ["check", "--root", str(root), "-j", "1", *args])
    finally:
        os.chdir(old)
    assert result.exit_code in (0, 1), result.output
    return result.stdout.splitlines()


def test_a_schema_from_a_sibling_module_is_checked_like_a_local_one(tmp_path):
    root = project(tmp_path)
    assert check(root, "--no-cache") == []
    shared = (root / "tools/shared_schema.py").read_text().replace('"items": {"type": "string"}, ', "")
    (root / "tools/shared_schema.py").write_text(shared)
    assert check(root, "--no-cache") == ["tools/shared_schema.py:10:23: HRM309 array `clips` has no `items` (tool `video_make`)"]


def test_editing_an_imported_module_outside_tools_invalidates_the_cache(tmp_path):
    root = project(tmp_path)
    assert check(root) == []
    assert check(root) == []  # warm: the whole-project result is reused
    (root / "agent/options.py").write_text('RATIOS = ["16:9", "16:9"]\n')
    expected = ['tools/shared_schema.py:9:41: HRM311 enum of `ratio` lists "16:9" twice (tool `video_make`)']
    assert check(root, "--no-cache") == expected
    assert check(root) == expected  # the cached facts depended on agent/options.py
    (root / "agent/options.py").write_text('RATIOS = ["16:9", "9:16"]\n')
    assert check(root) == []


def test_editing_an_imported_module_inside_tools_invalidates_that_module_s_entry(tmp_path):
    root = project(tmp_path)
    assert check(root, "--select", "HRM3") == []
    shared = (root / "tools/shared_schema.py").read_text().replace('"items": {"type": "string"}, ', "")
    (root / "tools/shared_schema.py").write_text(shared)
    assert check(root, "--select", "HRM3") == ["tools/shared_schema.py:10:23: HRM309 array `clips` has no `items` (tool `video_make`)"]


def test_imported_modules_are_read_never_run(tmp_path):
    root = project(tmp_path)
    marker = tmp_path / "ran"
    write(root, {"agent/options.py": f"""
        from pathlib import Path
        Path({str(marker)!r}).write_text("imported!")
        RATIOS = ["16:9", "9:16"]
    """})
    assert check(root, "--no-cache") == []
    assert not marker.exists()


def test_an_import_cycle_and_an_installed_package_stay_unknown(tmp_path):
    root = project(tmp_path)
    write(root, {"agent/options.py": """
        from agent.more import MORE
        RATIOS = MORE
    """, "agent/more.py": """
        from agent.options import RATIOS
        MORE = RATIOS
    """})
    # the enum is a leaf: unknown, so the enum rules stay silent and nothing else is reported
    assert check(root, "--no-cache") == []
    write(root, {"tools/shared_schema.py": SHARED.replace("from agent.options import RATIOS", "from yaml import RATIOS")
                 .replace('"type": "string", "enum"', '"type": RATIOS, "enum"')})
    assert check(root, "--no-cache", "--select", "HRM301") == [
        "tools/video_tool.py:14:62: HRM301 schema cannot be evaluated statically: imported name RATIOS "
        "(yaml.RATIOS) (in module tools.shared_schema) (at `parameters.properties.ratio.type`)"
    ]



def chain_of_imports(root: Path, away: int) -> None:
    """The schema's ``type`` read from a module ``away`` imports from the tool module: the tool
    imports tools.shared_schema (1), which imports agent.d2 (2), ... agent.d<away>."""
    shared = SHARED.replace("from agent.options import RATIOS", "from agent.options import RATIOS\nfrom agent.d2 import KIND")
    write(root, {"tools/shared_schema.py": shared.replace('"type": "string", "enum"', '"type": KIND, "enum"')})
    for distance in range(2, away):
        write(root, {f"agent/d{distance}.py": f"from agent.d{distance + 1} import KIND"})
    write(root, {f"agent/d{away}.py": 'KIND = "string"'})


def test_a_value_is_followed_up_to_4_imports_away_and_refused_past_them(tmp_path):
    from hermes_lint.evaluate.project import MAX_IMPORT_DEPTH

    assert MAX_IMPORT_DEPTH == 4
    chain_of_imports(project(tmp_path / "at_limit"), away=MAX_IMPORT_DEPTH)
    assert check(tmp_path / "at_limit", "--no-cache") == []
    chain_of_imports(project(tmp_path / "past_it"), away=MAX_IMPORT_DEPTH + 1)
    assert check(tmp_path / "past_it", "--no-cache", "--select", "HRM301") == [
        "tools/video_tool.py:14:62: HRM301 schema cannot be evaluated statically: module agent.d5 is more than 4 "
        "imports away (in module agent.d4) (in module agent.d3) (in module agent.d2) "
        "(at `parameters.properties.ratio.type`)"
    ]


def test_an_imported_list_the_module_changes_at_import_is_never_frozen_at_its_first_value(tmp_path):
    root = project(tmp_path)
    write(root, {"tools/shared_schema.py": SHARED.replace(
        "from agent.options import RATIOS", 'from agent.options import RATIOS\nRATIOS.append("1:1")'
    )})
    result = CliRunner().invoke(main, ["manifest", "--root", str(root)])
    assert result.exit_code == 0, result.output
    assert "tool `video_make` is resolved at import: RATIOS is mutated at line 2 (in module tools.shared_schema)" in result.stderr
    tool = json.loads((root / "tools" / "manifest.json").read_text())["tools"]["video_make"]
    assert tool["import_for_definitions"] is True
    assert [hole["path"][-1] for hole in tool["holes"]] == ["enum"]
    assert "16:9" not in json.dumps(tool)  # the list as agent/options.py writes it is not the value

def test_the_manifest_records_the_files_values_were_read_from_and_the_runtime_sees_them_change(tmp_path):
    from hermes_lint.project_config import load_config
    from hermes_lint.manifest.generate import generate_for_root

    root = project(tmp_path)
    generated = generate_for_root(root, load_config(root))
    record = generated.data["modules"]["tools.video_tool"]
    assert record["reads"] == ["agent/options.py", "tools/shared_schema.py"]
    assert set(record["reads"]) <= set(generated.data["sources"])
    enum = generated.data["tools"]["video_make"]["schema"]["parameters"]["properties"]["ratio"]["enum"]
    assert enum == ["16:9", "9:16"]


def _check_in_new_process(root: Path, *args: str) -> tuple:
    """``hermes-lint check`` as a user runs it: each run a new process (its reader of the project's
    modules, ``evaluate.project.project_modules``, starts empty)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "hermes_lint", "check", "--root", str(root), "-q", "-j", "1", *args],
        capture_output=True,
        text=True,
        cwd=root,  # paths are printed relative to the current directory
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, done.stdout


def test_a_cached_result_that_found_no_imported_module_goes_stale_when_the_module_appears(tmp_path):
    root = project(tmp_path)
    (root / "agent/options.py").unlink()
    assert _check_in_new_process(root) == (0, "")  # RATIOS unknown: the enum rules stay silent
    (root / "agent/options.py").write_text('RATIOS = ["16:9", "16:9"]\n')
    expected = (1, 'tools/shared_schema.py:9:41: HRM311 enum of `ratio` lists "16:9" twice (tool `video_make`)\n')
    assert _check_in_new_process(root, "--no-cache") == expected
    assert _check_in_new_process(root) == expected


def test_a_cached_result_that_could_not_parse_an_imported_module_goes_stale_when_it_is_mended(tmp_path):
    root = project(tmp_path, ratios='["16:9", "16:9"')  # a syntax error: the module is not read
    assert _check_in_new_process(root) == (0, "")
    (root / "agent/options.py").write_text('RATIOS = ["16:9", "16:9"]\n')
    expected = (1, 'tools/shared_schema.py:9:41: HRM311 enum of `ratio` lists "16:9" twice (tool `video_make`)\n')
    assert _check_in_new_process(root, "--no-cache") == expected
    assert _check_in_new_process(root) == expected


def test_a_process_that_runs_again_finds_a_module_created_since(tmp_path):
    """A long-lived process (an editor's flake8 plugin, the server) runs once per request: a name
    it found no module for in one run is looked up again in the next."""
    from hermes_lint.project_check import run_project
    from hermes_lint.project_config import load_config

    root = project(tmp_path)
    (root / "agent/options.py").unlink()
    assert run_project(root, load_config(root)) == []  # RATIOS unknown: the enum rules stay silent
    (root / "agent/options.py").write_text('RATIOS = ["16:9", "16:9"]\n')
    assert [d.as_text() for d in run_project(root, load_config(root))] == [
        'tools/shared_schema.py:9:41: HRM311 enum of `ratio` lists "16:9" twice (tool `video_make`)'
    ]


def test_a_process_that_runs_again_reads_a_module_rewritten_with_its_old_size_and_mtime(tmp_path):
    from hermes_lint.project_check import run_project
    from hermes_lint.project_config import load_config

    root = project(tmp_path, ratios='["16:9", "16:9"]')
    options = root / "agent/options.py"
    before = options.stat()
    assert [d.code for d in run_project(root, load_config(root))] == ["HRM311"]
    options.write_text('RATIOS = ["16:9", "9:16"]\n')  # same size
    os.utime(options, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert options.stat().st_size == before.st_size
    assert run_project(root, load_config(root)) == []


class _CoarseClock:
    """``os`` and ``time`` as the evaluator's reader sees them on a filesystem whose timestamps
    are one tick: two writes within it differ in nothing but their content (same size, inode,
    modification and change times). ``now``: the clock's time when a stat is taken."""

    def __init__(self, tick: int):
        self.tick = tick
        self.now = tick

    def stat(self, path, **kwargs):
        real = os.stat(path, **kwargs)
        return SimpleNamespace(st_mode=real.st_mode, st_size=real.st_size, st_ino=real.st_ino,
                               st_mtime_ns=self.tick, st_ctime_ns=self.tick)

    def time_ns(self) -> int:
        return self.now

    def __getattr__(self, name):
        return getattr(os, name)


def test_a_long_lived_process_reads_again_a_module_it_read_within_the_same_timestamp_tick(tmp_path, monkeypatch):
    """The evaluator keeps a parsed module for as long as its stat does not change; a stat taken
    within one tick of the file's last change pins nothing, so the next run reads the file again.
    Past that window the stat is trusted and the file not read again."""
    from hermes_lint.evaluate import project as project_module

    root = project(tmp_path, ratios='["16:9", "16:9"]')
    options = root / "agent/options.py"
    clock = _CoarseClock(options.stat().st_mtime_ns)
    monkeypatch.setattr(project_module, "os", clock)
    monkeypatch.setattr(project_module, "time", clock)
    parsed = []
    real_parse = project_module._parse_data
    monkeypatch.setattr(project_module, "_parse_data", lambda *args: parsed.append(args[0]) or real_parse(*args))

    def ratios(modules) -> str:
        modules.new_run()
        return modules.parsed("agent/options.py")[3][0]

    modules = project_module.ProjectModules(str(root))
    clock.now = clock.tick + 1000  # within the tick
    assert ratios(modules) == 'RATIOS = ["16:9", "16:9"]'
    options.write_text('RATIOS = ["16:9", "9:16"]\n')  # same size, same (coarse) stat
    assert ratios(modules) == 'RATIOS = ["16:9", "9:16"]'
    assert parsed == ["agent/options.py"] * 2

    settled_modules = project_module.ProjectModules(str(root))
    clock.now = clock.tick + 10**12  # long after it
    assert ratios(settled_modules) == 'RATIOS = ["16:9", "9:16"]'
    assert ratios(settled_modules) == 'RATIOS = ["16:9", "9:16"]'
    assert parsed == ["agent/options.py"] * 3  # the second run trusted the stat


MUTATED_HERE = """
from tools.registry import registry

RATIOS = ["16:9"]
def handle(args, **kw): return "{}"
if handle: RATIOS.append("1:1")
registry.register(name="t1", toolset="t", handler=handle, schema={"name": "t1", "description": "d",
    "parameters": {"type": "object", "properties": {"r": {"type": "string", "enum": RATIOS}}}})
"""


def hole_lines(root: Path) -> list:
    result = CliRunner().invoke(main, ["manifest", "--root", str(root)])
    assert result.exit_code == 0, result.output
    return [line for line in result.stderr.splitlines() if line.startswith("tools.")]


def test_a_hole_reason_names_its_line_once(tmp_path):
    write(tmp_path, {"toolsets.py": 'TOOLSETS = {"t": {"tools": ["t1"], "includes": []}}',
                     "tools/__init__.py": "", "tools/t_tool.py": MUTATED_HERE})
    assert hole_lines(tmp_path) == ["tools.t_tool: tool `t1` is resolved at import: RATIOS is mutated at line 5"]
    reason = json.loads((tmp_path / "tools" / "manifest.json").read_text())["tools"]["t1"]["holes"][0]["reason"]
    assert reason == "RATIOS is mutated at line 5"


def test_a_line_of_another_module_in_a_hole_reason_keeps_the_line_of_this_one(tmp_path):
    # The mutation's line (6, in tools.shared) equals the use's (6, here): both are said.
    write(tmp_path, {
        "toolsets.py": 'TOOLSETS = {"t": {"tools": ["t1"], "includes": []}}',
        "tools/__init__.py": "",
        "tools/shared.py": 'RATIOS = ["16:9"]\n\n\n\n\nif len: RATIOS.append("1:1")',
        "tools/t_tool.py": MUTATED_HERE.replace('RATIOS = ["16:9"]\n', "from tools.shared import RATIOS\n")
                                       .replace('if handle: RATIOS.append("1:1")\n', ""),
    })
    assert hole_lines(tmp_path) == [
        "tools.t_tool: tool `t1` is resolved at import: RATIOS is mutated at line 6 (in module tools.shared) (line 6)"
    ]


def test_a_module_parsed_for_its_importer_is_parsed_again_only_for_other_bytes(tmp_path):
    from hermes_lint.evaluate.project import ProjectModules
    from hermes_lint.model.parsing import parse_module

    shared = b'SCHEMA = {"name": "x"}\n'
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "shared.py").write_bytes(shared)
    project = ProjectModules(str(tmp_path))
    assert project.parsed_again("tools/shared.py", shared) is None  # not read yet
    assert project.parsed("tools/shared.py") is not None  # read for an importer
    again = project.parsed_again("tools/shared.py", shared)
    fresh = parse_module("tools/shared.py", shared)
    assert again is not None and ast_dump(again.tree) == ast_dump(fresh.tree)
    assert (again.path, again.data, again.text, again.lines, again.error) == (
        fresh.path, fresh.data, fresh.text, fresh.lines, fresh.error)
    assert project.parsed_again("tools/shared.py", shared + b"# edited\n") is None
    assert project.parsed_again("tools/other.py", shared) is None


def ast_dump(tree):
    import ast

    return ast.dump(tree, include_attributes=True)


def test_an_imported_module_checked_after_its_importer_reports_what_it_reports_alone(tmp_path):
    from hermes_lint.check.engine import SourceFile, check_module
    from hermes_lint.config import Config

    tool = tmp_path / "tools"
    tool.mkdir()
    (tool / "video_tool.py").write_text(TOOL)
    (tool / "shared_schema.py").write_text(SHARED)
    config = Config(project_root=str(tmp_path))
    alone = check_module(SourceFile("tools/shared_schema.py", SHARED.encode()), config)
    for path in ("tools/video_tool.py", "tools/shared_schema.py"):  # the importer first
        after = check_module(SourceFile(path, (tmp_path / path).read_bytes()), config)
    assert after == alone
