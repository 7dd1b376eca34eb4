"""A repository is data: FIFOs, devices, symbolic links and oversized files in it neither hang a
run, nor fill memory, nor make a command write outside the project."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from hermes_lint import regular_files
from hermes_lint.check.cache import CACHE_DIR_NAME, INDEX_NAME
from hermes_lint.cli import main
from hermes_lint.config import Config
from hermes_lint.flake8_plugin import check_buffer, clear_caches
from hermes_lint.regular_files import FileTooLarge, NotRegularFile, read_regular_file
from hermes_lint.project_check import run_project
from tests.test_cli import GOOD_TOOL, TOOLSETS, make_project

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and device symlinks are POSIX")


@pytest.fixture
def deadline():
    """A blocking open() or read() fails the test instead of hanging the suite."""

    def expired(signum, frame):
        raise TimeoutError("blocked: a FIFO or device was read")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def cli(args, cwd: Path):
    try:  # click < 8.2 mixes stderr into stdout unless told not to; 8.2 removed the option
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


# --------------------------------------------------------------------------- reading


def test_reads_a_file_of_exactly_the_limit_and_refuses_one_byte_more(tmp_path):
    at_limit, over = tmp_path / "a.py", tmp_path / "b.py"
    at_limit.write_bytes(b"x" * 100)
    over.write_bytes(b"x" * 101)
    assert read_regular_file(at_limit, 100) == b"x" * 100
    with pytest.raises(FileTooLarge, match="larger than 100 bytes"):
        read_regular_file(over, 100)


@posix_only
def test_a_fifo_is_refused_without_blocking(tmp_path, deadline):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFile, match="not a regular file"):
        read_regular_file(tmp_path / "pipe")


@posix_only
@pytest.mark.parametrize("use_cache", [False, True])
def test_check_reports_a_fifo_and_a_device_link_in_tools_as_hrm001(tmp_path, deadline, use_cache):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    os.mkfifo(root / "tools" / "fifo_tool.py")
    (root / "tools" / "zero_tool.py").symlink_to("/dev/null")  # /dev/zero without the risk

    diagnostics = run_project(root, Config(), use_cache=use_cache)

    assert [(d.path, d.code, d.message) for d in diagnostics if d.code == "HRM001"] == [
        ("tools/fifo_tool.py", "HRM001", "cannot be read: not a regular file"),
        ("tools/zero_tool.py", "HRM001", "cannot be read: not a regular file"),
    ]


@posix_only
def test_a_device_link_as_toolsets_file_is_hrm001(tmp_path, deadline):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    (root / "toolsets.py").unlink()
    (root / "toolsets.py").symlink_to("/dev/null")
    diagnostics = run_project(root, Config())
    assert [(d.path, d.line, d.message) for d in diagnostics if d.code == "HRM001"] == [
        ("toolsets.py", 1, "cannot be read: not a regular file")
    ]


def test_a_tool_module_over_the_size_cap_is_hrm001(tmp_path, monkeypatch):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    size = len(GOOD_TOOL.encode())
    monkeypatch.setattr(regular_files, "MAX_FILE_BYTES", size)
    assert not [d for d in run_project(root, Config()) if d.code == "HRM001"]
    monkeypatch.setattr(regular_files, "MAX_FILE_BYTES", size - 1)
    assert [(d.path, d.message) for d in run_project(root, Config()) if d.code == "HRM001"] == [
        ("tools/echo_tool.py", f"cannot be read: larger than {size - 1} bytes")
    ]


@posix_only
def test_flake8_plugin_is_not_blocked_by_a_fifo_among_the_tools(tmp_path, deadline):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    os.mkfifo(root / "tools" / "fifo_tool.py")
    clear_caches()
    try:
        found = check_buffer(str(root / "tools" / "echo_tool.py"), GOOD_TOOL.splitlines(True), use_cache=False)
    finally:
        clear_caches()
    assert found == []


@posix_only
def test_manifest_check_and_diff_refuse_a_fifo_without_blocking(tmp_path, deadline):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    os.mkfifo(root / "tools" / "manifest.json")
    result = cli(["manifest", "--check"], root)
    assert result.exit_code == 2
    assert result.stderr == "hermes-lint: error: tools/manifest.json: is not a regular file (a device, FIFO or socket); it is never replaced\n"
    diffed = cli(["diff", "tools/manifest.json", "tools/manifest.json"], root)
    assert diffed.exit_code == 2
    assert "tools/manifest.json: cannot be read: not a regular file" in diffed.stderr


def test_an_unlistable_tools_directory_is_an_error_naming_it(tmp_path, monkeypatch):
    # Root reads every directory whatever its mode: the refusal is injected.
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    real_listdir = os.listdir

    def listdir(path="."):
        if Path(path) == root / "tools":
            raise PermissionError(13, "Permission denied", str(path))
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", listdir)
    for args in (["check"], ["manifest"]):
        result = cli(args, root)
        assert result.exit_code == 2, args
        assert result.stderr == (
            f"hermes-lint: error: {root / 'tools'}: the tools directory cannot be listed: Permission denied\n"
        )
    assert not (root / "tools" / "manifest.json").exists()


# --------------------------------------------------------------------------- writing the manifest


@pytest.mark.parametrize("setting", ["../outside.json", "tools/../../outside.json", "/tmp/outside.json"])
def test_a_configured_manifest_path_outside_the_root_is_a_configuration_error(tmp_path, setting):
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL},
                       pyproject=f'[tool.hermes-lint]\nmanifest = "{setting}"\n')
    outside = tmp_path / "outside.json"
    outside.write_text("precious")

    result = cli(["manifest"], root)

    assert result.exit_code == 2
    assert result.stderr == (
        f"hermes-lint: error: [tool.hermes-lint] manifest = {setting!r}: must be a path inside the "
        "project root (relative, without '..')\n"
    )
    assert outside.read_text() == "precious"


@pytest.mark.parametrize("key", ["tools-dir", "toolsets-file"])
def test_other_configured_paths_outside_the_root_are_configuration_errors(tmp_path, key):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, pyproject=f'[tool.hermes-lint]\n{key} = "../x"\n')
    result = cli(["check"], root)
    assert result.exit_code == 2
    assert f"{key} = '../x': must be a path inside the project root" in result.stderr


def test_a_configured_manifest_reaching_outside_through_a_symlink_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL},
                        pyproject='[tool.hermes-lint]\nmanifest = "tools/out/manifest.json"\n')
    (root / "tools" / "out").symlink_to(elsewhere)

    result = cli(["manifest"], root)

    assert result.exit_code == 2
    assert "its directory is outside the project root" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_output_on_the_command_line_may_be_outside_the_root(tmp_path):
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL})
    result = cli(["manifest", "--output", str(tmp_path / "m.json")], root)
    assert result.exit_code == 0, result.stderr
    assert json.loads((tmp_path / "m.json").read_text())["tools"]


@posix_only
def test_a_non_regular_output_is_never_replaced(tmp_path, deadline):
    # A FIFO stands for /dev/null here: os.replace would turn either into a regular file.
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL})
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = cli(["manifest", "--output", str(fifo)], root)
    assert result.exit_code == 2
    assert "is not a regular file (a device, FIFO or socket); it is never replaced" in result.stderr
    assert not fifo.is_file() and fifo.exists()


def test_a_symlinked_manifest_is_never_replaced(tmp_path):
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL})
    real = tmp_path / "real.json"
    real.write_text("{}")
    (root / "tools" / "manifest.json").symlink_to(real)
    result = cli(["manifest"], root)
    assert result.exit_code == 2
    assert result.stderr == (
        "hermes-lint: error: tools/manifest.json: is a symbolic link; it is never replaced (name the file it points to)\n"
    )
    assert (root / "tools" / "manifest.json").is_symlink() and real.read_text() == "{}"


def test_an_unwritable_manifest_directory_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch):
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL})

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(os, "replace", refuse)  # root ignores a read-only mode: injected
    result = cli(["manifest"], root)
    assert result.exit_code == 2
    assert result.stderr == "hermes-lint: error: tools/manifest.json: cannot be written: Permission denied\n"
    assert sorted(p.name for p in (root / "tools").iterdir()) == ["echo_tool.py"]


# --------------------------------------------------------------------------- the cache directory


def outside_file(tmp_path: Path) -> Path:
    target = tmp_path / "outside.txt"
    target.write_text("precious")
    return target


@pytest.mark.parametrize("name", ["CACHEDIR.TAG", ".gitignore", INDEX_NAME])
def test_a_symlink_inside_the_cache_never_writes_through(tmp_path, name):
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL.replace("check_fn=", "check_func=")})
    target = outside_file(tmp_path)
    (root / CACHE_DIR_NAME).mkdir()
    (root / CACHE_DIR_NAME / name).symlink_to(target)

    expected = run_project(root, Config())
    assert run_project(root, Config(), use_cache=True) == expected
    assert run_project(root, Config(), use_cache=True) == expected

    assert target.read_text() == "precious"


def test_a_symlinked_cache_directory_is_not_used(tmp_path):
    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL.replace("check_fn=", "check_func=")})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / CACHE_DIR_NAME).symlink_to(elsewhere)

    expected = run_project(root, Config())
    assert run_project(root, Config(), use_cache=True) == expected

    assert list(elsewhere.iterdir()) == []


def test_a_linked_modules_directory_is_neither_read_nor_written_through(tmp_path):
    """``modules/`` (the full facts) arriving as a link to another directory: not used."""
    from hermes_lint.check.cache import MODULES_DIR_NAME
    from hermes_lint.check.runner import module_results

    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL.replace("check_fn=", "check_func=")})
    expected, _ = module_results(root, Config())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / CACHE_DIR_NAME).mkdir()
    (root / CACHE_DIR_NAME / MODULES_DIR_NAME).symlink_to(elsewhere)
    assert module_results(root, Config(), use_cache=True)[0] == expected
    assert module_results(root, Config(), use_cache=True)[0] == expected
    assert list(elsewhere.iterdir()) == []


def test_a_module_file_replaced_by_a_fifo_is_a_miss(tmp_path, deadline):
    from hermes_lint.check.cache import MODULES_DIR_NAME
    from hermes_lint.check.runner import module_results

    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL.replace("check_fn=", "check_func=")})
    expected, _ = module_results(root, Config(), use_cache=True)
    (path,) = (root / CACHE_DIR_NAME / MODULES_DIR_NAME).glob("*.json")
    path.unlink()
    os.mkfifo(path)
    assert module_results(root, Config(), use_cache=True)[0] == expected


def test_a_deeply_nested_cache_file_is_a_miss(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL.replace("check_fn=", "check_func=")})
    expected = run_project(root, Config(), use_cache=True)
    for name in os.listdir(root / CACHE_DIR_NAME):
        if name.endswith(".json"):
            (root / CACHE_DIR_NAME / name).write_text("[" * 100_000)
    assert run_project(root, Config(), use_cache=True) == expected
    assert json.loads((root / CACHE_DIR_NAME / INDEX_NAME).read_text())["files"]


def test_a_failed_cache_write_leaves_no_temporary_file_and_is_completed_later(tmp_path, monkeypatch):
    from hermes_lint.check import cache

    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    real_create = cache._create

    def disk_full(path, text):
        real_create(path, text[: len(text) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache, "_create", disk_full)
    run_project(root, Config(), use_cache=True)
    assert sorted(os.listdir(root / CACHE_DIR_NAME)) == []

    monkeypatch.setattr(cache, "_create", real_create)
    run_project(root, Config(), use_cache=True)
    names = sorted(os.listdir(root / CACHE_DIR_NAME))
    assert ".gitignore" in names and "CACHEDIR.TAG" in names and INDEX_NAME in names
    assert not [name for name in names if name.endswith(".tmp")]
    assert (root / CACHE_DIR_NAME / ".gitignore").read_text() == "*\n"


# --------------------------------------------------------------------------- deep nesting


def nested_parameters(levels: int, leaf: str = '{"type": "string"}') -> str:
    """``parameters`` nesting ``levels`` objects, each holding the next as property ``p``: every
    level is two JSON containers (the schema and its ``properties``)."""
    inner = leaf
    for _ in range(levels):
        inner = '{"type": "object", "description": "d", "properties": {"p": %s}}' % inner
    return inner


def deep_tool(levels: int, leaf: str = '{"type": "string"}') -> str:
    return (
        "from tools.registry import registry\n\n"
        f'SCHEMA = {{"name": "deep", "description": "Deep.", "parameters": {nested_parameters(levels, leaf)}}}\n\n'
        "def handle(args, **kwargs):\n    return args['p']\n\n"
        'registry.register(name="deep", toolset="demo", schema=SCHEMA, handler=handle, check_fn=lambda: True)\n'
    )


def test_schema_nesting_is_validated_up_to_the_bound_and_reported_past_it():
    from hermes_lint.model.metaschema import MAX_NESTING, SchemaProblem, problems

    # levels * 2 containers + the leaf: MAX_NESTING containers exactly, then one more
    at_bound = json.loads(nested_parameters(0, "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)))
    assert problems({"type": "object", "const": at_bound}) == ()  # const: MAX_NESTING - 1 below the root
    assert problems({"type": "object", "const": [at_bound]}) == (
        SchemaProblem((), f"nested more than {MAX_NESTING} levels deep: too deep to validate"),
    )


def test_an_invalid_schema_at_the_bound_is_explained_on_a_deep_stack():
    """At the bound, jsonschema still runs: in a flake8 process or a worker the stack is already
    deep, so it must fit with room to spare."""
    from hermes_lint.model.metaschema import MAX_NESTING, clear_cache, problems

    schema = json.loads(nested_parameters(MAX_NESTING // 2 - 1, '{"type": "str"}'))

    def with_frames(depth):
        return problems(schema) if depth == 0 else with_frames(depth - 1)

    clear_cache()
    found = with_frames(250)  # flake8's own frames are ~60 deep
    assert len(found) == 1 and "'str' is not valid" in found[0].message


def test_a_deep_schema_gets_the_same_answer_at_any_jobs(tmp_path, monkeypatch):
    from hermes_lint.check import runner

    monkeypatch.setattr(runner, "BYTES_PER_WORKER", 1024)  # workers even for this small project
    tools = {f"t{n:03d}_tool.py": GOOD_TOOL.replace('"echo"', f'"echo{n}"') for n in range(40)}
    tools["deep_tool.py"] = deep_tool(95)
    root = make_project(tmp_path, tools)
    sequential = run_project(root, Config(), jobs=1)
    assert run_project(root, Config(), jobs=2) == sequential
    assert [(d.path, d.message) for d in sequential if d.code == "HRM302"] == [
        ("tools/deep_tool.py", "invalid JSON Schema (Draft 2020-12) at `parameters`: nested more than 100 levels deep: too deep to validate")
    ]


def test_flake8_reports_a_deep_schema_without_a_traceback(tmp_path):
    import subprocess
    import sys

    root = make_project(tmp_path, {"deep_tool.py": deep_tool(95)})
    completed = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "HRM302", "-j", "1", "tools/deep_tool.py"],
        cwd=root, capture_output=True, text=True, timeout=120,
    )
    assert completed.stderr == ""
    assert completed.stdout == (
        "tools/deep_tool.py:3:51: HRM302 invalid JSON Schema (Draft 2020-12) at `parameters`: "
        "nested more than 100 levels deep: too deep to validate\n"
    )


# --------------------------------------------------------------------------- flake8 and a broken configuration

BROKEN_CONFIG = '[tool.hermes-lint]\ningore = ["HRM1"]\n'
def config_message(root: Path) -> str:
    """The one line flake8 must show: the configuration error ``check`` gives, and what it means."""
    from hermes_lint.config import ConfigError
    from hermes_lint.project_config import load_config

    with pytest.raises(ConfigError) as raised:
        load_config(root)
    assert "unknown key 'ingore'" in str(raised.value)
    return f"hermes-lint: error: {raised.value} (no HRM checks until it is fixed)\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_flake8_reports_a_broken_configuration_once_and_keeps_running(tmp_path, jobs):
    import subprocess
    import sys

    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL, "other.py": "x = 1\n"}, pyproject=BROKEN_CONFIG)
    (root / "setup_helpers.py").write_text("import os\n")
    completed = subprocess.run(
        [sys.executable, "-m", "flake8", "-j", jobs, "--select", "HRM,F401", "."],
        cwd=root, capture_output=True, text=True, timeout=120,
    )
    assert completed.stderr == config_message(root)
    # the other plugins still run: only the HRM checks are off
    assert completed.stdout == "./setup_helpers.py:1:1: F401 'os' imported but unused\n"


def test_flake8_plugin_reports_a_broken_configuration_found_from_the_file(tmp_path, capsys):
    from hermes_lint import flake8_plugin

    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, pyproject=BROKEN_CONFIG)
    clear_caches()
    flake8_plugin._reported_config_errors.clear()
    checker = flake8_plugin.HermesLintChecker(None, str(root / "tools" / "echo_tool.py"), GOOD_TOOL.splitlines(True))
    assert list(checker.run()) == [] and list(checker.run()) == []
    assert capsys.readouterr().err == config_message(root)


# --------------------------------------------------------------------------- output streams

UNICODE_TOOL = GOOD_TOOL.replace('"required": [],', '"required": ["querr\u00e9\U0001F600"],')


def run_console(root: Path, args, env_extra=None, **options):
    import subprocess
    import sys

    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run(
        [sys.executable, "-m", "hermes_lint", *args], cwd=root, env=env, capture_output=True, timeout=120, **options
    )


def test_non_utf8_stdout_gets_every_line_escaped(tmp_path):
    assert UNICODE_TOOL != GOOD_TOOL
    root = make_project(tmp_path, {"echo_tool.py": UNICODE_TOOL})
    text = run_console(root, ["check", "--quiet", "--no-cache", "--select", "HRM305"], {"PYTHONIOENCODING": "ascii"})
    assert text.returncode == 1 and text.stderr == b""
    assert text.stdout.decode("ascii").endswith("HRM305 `required` names `querr\\xe9\\U0001f600`, which is not in `properties`\n")

    as_json = run_console(root, ["check", "--quiet", "--no-cache", "--select", "HRM305", "--format", "json"], {"PYTHONIOENCODING": "ascii"})
    assert json.loads(as_json.stdout.decode("ascii"))[0]["message"] == "`required` names `querr\u00e9\U0001F600`, which is not in `properties`"


def test_sarif_under_latin1_is_complete_json(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": UNICODE_TOOL})
    sarif = run_console(root, ["check", "--quiet", "--no-cache", "--format", "sarif"], {"PYTHONIOENCODING": "latin-1"})
    assert sarif.returncode == 1 and sarif.stderr == b""
    log = json.loads(sarif.stdout.decode("latin-1"))
    messages = [result["message"]["text"] for result in log["runs"][0]["results"]]
    assert "`required` names `querr\u00e9\U0001F600`, which is not in `properties`" in messages


def test_closed_stdout_is_one_clear_line(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": UNICODE_TOOL})
    closed = run_console(root, ["check", "--no-cache"], preexec_fn=lambda: os.close(1))
    assert closed.returncode == 2
    assert closed.stderr == b"hermes-lint: error: standard output is closed: nowhere to write the report\n"


# --------------------------------------------------------------------------- parses but does not compile

NOT_COMPILING = {
    "return at module level": ("return None\n", 7, 1, "'return' outside function"),
    "yield outside a function": ("yield 1\n", 7, 1, "'yield' outside function"),
    "duplicate parameter": ("def helper(a, a):\n    return ''\n", 7, 15, "duplicate argument 'a' in function definition"),
    "late __future__ import": ("from __future__ import annotations\n", 7, 1, "from __future__ imports must occur at the beginning of the file"),
    "nonlocal without a binding": ("def helper():\n    nonlocal x\n", 8, 5, "no binding for nonlocal 'x' found"),
    "repeated keyword in register": (None, 7, 49, "keyword argument repeated: toolset"),
}

COMPILE_HEADER = (
    "from tools.registry import registry\n\n"
    'SCHEMA = {"name": "probe", "description": "P.", "parameters": {"type": "object", "properties": {}}}\n\n'
    "def handle(args, **kwargs):\n    return ''\n"
)
REGISTER = 'registry.register(name="probe", toolset="demo", schema=SCHEMA, handler=handle, check_fn=lambda: True)\n'


@pytest.mark.parametrize("case", sorted(NOT_COMPILING))
def test_a_module_that_parses_but_does_not_compile_is_hrm001_and_never_frozen(tmp_path, case):
    import ast

    extra, line, col, message = NOT_COMPILING[case]
    if extra is None:
        source = COMPILE_HEADER + REGISTER.replace('toolset="demo",', 'toolset="demo", toolset="demo",')
    else:
        source = COMPILE_HEADER + extra + REGISTER
    ast.parse(source)  # it parses: only the compiler rejects it
    root = make_project(tmp_path, {"probe_tool.py": source}, toolsets=TOOLSETS.replace('"echo"', '"probe"'))

    diagnostics = run_project(root, Config())

    assert [(d.path, d.line, d.col, d.code, d.message) for d in diagnostics if d.code == "HRM001"] == [
        ("tools/probe_tool.py", line, col, "HRM001", f"syntax error: {message}")
    ]
    cli(["manifest"], root)
    manifest = root / "tools" / "manifest.json"
    assert not manifest.exists() or "probe" not in json.loads(manifest.read_text())["tools"]


def test_a_syntax_warning_is_not_an_error(tmp_path):
    source = COMPILE_HEADER + "FLAG = (1 is 1)\n" + REGISTER
    root = make_project(tmp_path, {"probe_tool.py": source}, toolsets=TOOLSETS.replace('"echo"', '"probe"'))
    assert not [d for d in run_project(root, Config()) if d.code == "HRM001"]


# --------------------------------------------------------------------------- lone surrogates

SURROGATE_TOOL = (
    "from tools.registry import registry\n\n"
    'SCHEMA = {"name": "probe", "description": "A \\ud800 probe.", "parameters": {"type": "object", "properties": {}}}\n\n'
    "def handle(args, **kwargs):\n    return ''\n\n"
    'registry.register(name="probe", toolset="demo", schema=SCHEMA, handler=handle, check_fn=lambda: True)\n'
)


def test_a_lone_surrogate_in_a_description_is_a_diagnostic_in_check_and_manifest(tmp_path):
    root = make_project(tmp_path, {"probe_tool.py": SURROGATE_TOOL}, toolsets=TOOLSETS.replace('"echo"', '"probe"'))
    assert [d.as_text() for d in run_project(root, Config()) if d.code == "HRM701"] == [
        "tools/probe_tool.py:3:28: HRM701 description of tool `probe` contains U+D800 (a lone surrogate: "
        "not a character, no UTF-8 encoder writes it) at character 3"
    ]
    result = cli(["manifest"], root)
    assert result.exit_code == 1
    assert result.stdout == (
        "tools/probe_tool.py:3:28: HRM701 `schema.description` of tool `probe` holds a lone surrogate U+D800: "
        "not a character, so the manifest (UTF-8) cannot hold it\n"
    )
    assert not (root / "tools" / "manifest.json").exists()


# --------------------------------------------------------------------------- new-tool

def test_new_tool_keeps_the_final_cr_of_a_cr_only_toolsets_file(tmp_path):
    root = make_project(tmp_path, {}, toolsets='TOOLSETS = {\r    "demo": {"description": "D", "tools": [], "includes": []},\r}\r')
    result = cli(["new-tool", "probe", "--toolset", "demo"], root)
    assert result.exit_code == 0, result.stderr
    assert (root / "toolsets.py").read_bytes() == (
        b'TOOLSETS = {\r    "demo": {"description": "D", "tools": ["probe"], "includes": []},\r}\r'
    )


def test_new_tool_refuses_a_deeply_nested_toolsets_file_with_the_by_hand_message(tmp_path):
    toolsets = "X = " + "[" * 180 + "]" * 180 + '\nTOOLSETS = {"demo": {"description": "D", "tools": [], "includes": []}}\n'
    root = make_project(tmp_path, {}, toolsets=toolsets)
    result = cli(["new-tool", "probe", "--toolset", "demo"], root)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "hermes-lint: error: cannot edit toolsets.py: it is nested too deeply for libcst to edit. Nothing was written. "
        "To add the tool by hand:"
    )
    assert sorted(os.listdir(root / "tools")) == [] and (root / "toolsets.py").read_text() == toolsets


def test_a_rerun_of_an_interrupted_new_tool_finishes_the_job(tmp_path, monkeypatch):
    from hermes_lint.scaffold import tool as scaffold

    root = make_project(tmp_path, {}, toolsets='TOOLSETS = {"demo": {"description": "D", "tools": [], "includes": []}}\n')

    def killed(path, data):
        raise KeyboardInterrupt  # like kill -9 between the two writes: no clean-up runs

    monkeypatch.setattr(scaffold, "write_atomic", killed)
    assert cli(["new-tool", "probe", "--toolset", "demo"], root).exit_code == 1  # click: "Aborted!"
    created = (root / "tools" / "probe_tool.py").read_bytes()
    assert b'"tools": []' in (root / "toolsets.py").read_bytes()

    monkeypatch.undo()
    result = cli(["new-tool", "probe", "--toolset", "demo"], root)
    assert result.exit_code == 0, result.stderr
    assert "kept tools/probe_tool.py (created by an earlier run that stopped before editing toolsets.py)" in result.stdout + result.stderr
    assert (root / "tools" / "probe_tool.py").read_bytes() == created
    assert b'"tools": ["probe"]' in (root / "toolsets.py").read_bytes()

    again = cli(["new-tool", "probe", "--toolset", "demo"], root)  # finished: a re-run refuses
    assert again.exit_code == 2 and "already registered in tools/probe_tool.py" in again.stderr


def test_new_tool_does_not_resume_over_a_file_the_user_edited(tmp_path, monkeypatch):
    from hermes_lint.scaffold import tool as scaffold

    root = make_project(tmp_path, {}, toolsets='TOOLSETS = {"demo": {"description": "D", "tools": [], "includes": []}}\n')
    monkeypatch.setattr(scaffold, "write_atomic", lambda path, data: (_ for _ in ()).throw(KeyboardInterrupt))
    assert cli(["new-tool", "probe", "--toolset", "demo"], root).exit_code == 1
    monkeypatch.undo()
    tool = root / "tools" / "probe_tool.py"
    tool.write_text(tool.read_text() + "# mine\n")
    result = cli(["new-tool", "probe", "--toolset", "demo"], root)
    assert result.exit_code == 2 and "already registered in tools/probe_tool.py" in result.stderr
    assert tool.read_text().endswith("# mine\n")


# --------------------------------------------------------------------------- one line, not a traceback


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "--zzz"], "No such option '--zzz'. (see `hermes-lint check --help`)"),
        (["check", "-j", "x"], "Invalid value for '-j' / '--jobs': 'x' is not a valid integer range. (see `hermes-lint check --help`)"),
        (["bogus"], "No such command 'bogus'. (see `hermes-lint --help`)"),
    ],
)
def test_click_usage_errors_are_one_line(tmp_path, args, message):
    import subprocess
    import sys

    script = Path(sys.executable).parent / "hermes-lint"  # the console script the README installs
    result = subprocess.run([str(script), *args], cwd=tmp_path, capture_output=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [f"hermes-lint: error: {message}"]


def test_deep_nesting_in_pyproject_is_a_configuration_error(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL},
                        pyproject="[tool.hermes-lint]\nselect = " + "[" * 5000 + "]" * 5000 + "\n")
    result = cli(["check"], root)
    assert result.exit_code == 2
    assert result.stderr == f"hermes-lint: error: {root / 'pyproject.toml'}: cannot be read: nested too deeply\n"


@posix_only
def test_write_atomic_never_replaces_a_non_regular_file(tmp_path):
    from hermes_lint.atomic import write_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file; it is never replaced"):
        write_atomic(fifo, b"data")
    assert fifo.exists() and not fifo.is_file()
    assert sorted(os.listdir(tmp_path)) == ["pipe"]  # no temporary file left either


def test_a_cache_entry_naming_a_file_outside_the_project_is_a_miss(tmp_path, monkeypatch):
    import hashlib

    from tests.test_cache_and_jobs import count_checks

    root = make_project(tmp_path / "project", {"echo_tool.py": GOOD_TOOL})
    outside = outside_file(tmp_path)
    run_project(root, Config(), use_cache=True)
    index = root / CACHE_DIR_NAME / INDEX_NAME
    data = json.loads(index.read_text())
    entry = data["files"]["tools/echo_tool.py"]
    entry["read_modules"] = [["../outside.txt", hashlib.sha256(outside.read_bytes()).hexdigest()]]
    index.write_text(json.dumps(data))
    for name in os.listdir(root / CACHE_DIR_NAME):  # the whole-project result would be reused first
        if name.startswith("project"):
            (root / CACHE_DIR_NAME / name).unlink()

    checked = count_checks(monkeypatch)
    run_project(root, Config(), use_cache=True)
    assert checked == ["tools/echo_tool.py"]


@pytest.mark.parametrize("path, inside", [
    ("tools/helpers.py", True),
    ("shared_limits.py", True),
    ("../outside.txt", False),
    ("tools/../../outside.txt", False),
    ("/etc/passwd", False),
    ("//host/share/x.py", False),
    ("C:/Users/x.py", False),  # absolute on Windows, where `root / path` would leave the project
    ("..\\outside.txt", False),  # `\` separates on Windows
])
def test_which_paths_a_cache_entry_may_name(path, inside):
    from hermes_lint.config import leaves_root

    assert leaves_root(path) is not inside
