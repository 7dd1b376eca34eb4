"""The cache and the parallel runner never change what is reported."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hermes_lint.check.cache import CACHE_DIR_NAME, INDEX_NAME
from hermes_lint.config import Config
from hermes_lint.regular_files import FINE_RACY_NS, RACY_NS, settled
import pytest

from hermes_lint.check import engine

from hermes_lint.check import runner
from hermes_lint.check.runner import BYTES_PER_WORKER, worker_count
from hermes_lint.project_check import run_project
from tests.test_cli import GOOD_TOOL, TOOLSETS, make_project, run


def bad_tool(number: int) -> str:
    return GOOD_TOOL.replace('"echo"', f'"echo{number}"').replace(
        "check_fn=check_echo,", "check_func=check_echo,"
    )


def make_corpus(root: Path, count: int) -> Path:
    tools = {f"t{number:03d}_tool.py": bad_tool(number) for number in range(count)}
    tools["zzz_tool.py"] = "def broken(:\n"
    names = ", ".join(f'"echo{number}"' for number in range(count))
    toolsets = TOOLSETS.replace('["echo"]', f"[{names}]")
    return make_project(root, tools, toolsets=toolsets)


CONFIG = Config()


@pytest.fixture
def pools(monkeypatch):
    """The number of worker processes of every pool started (besides this process), on a machine
    of 2 CPUs where the work each process must be given is ``runner.BYTES_PER_WORKER`` (tests
    lower it for their small files)."""
    import concurrent.futures

    started = []

    class RecordingPool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, max_workers, **kwargs):
            started.append(max_workers)
            super().__init__(max_workers, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", RecordingPool)
    monkeypatch.setattr(runner, "available_cpus", lambda: 2)
    monkeypatch.setattr(runner, "idle_cpus", lambda cpus: cpus)
    return started


def test_parallel_and_sequential_runs_report_the_same(tmp_path, monkeypatch, pools):
    root = make_corpus(tmp_path, 40)
    sequential = run_project(root, CONFIG, jobs=1)
    assert pools == []
    monkeypatch.setattr(runner, "BYTES_PER_WORKER", 1024)
    here = []  # the files this process checked (a forked worker appends to its own copy)
    real = engine.check_module
    monkeypatch.setattr(engine, "check_module", lambda source, config: here.append(source.path) or real(source, config))
    parallel = run_project(root, CONFIG, jobs=2)
    assert pools == [1]  # this process is the second
    assert 0 < len(here) < 41  # both checked some of the 41 files
    assert parallel == sequential
    assert {d.code for d in sequential} >= {"HRM001", "HRM004"}


@pytest.mark.parametrize(
    "work, files, jobs, cpus, expected",
    [
        # Default (jobs None): as many as the work keeps busy, up to the CPUs.
        (BYTES_PER_WORKER * 2 - 1, 100, None, 8, 1),
        (BYTES_PER_WORKER * 2, 100, None, 8, 2),
        (BYTES_PER_WORKER * 100, 100, None, 8, 8),
        (BYTES_PER_WORKER * 100, 3, None, 8, 3),  # never more workers than files
        (0, 0, None, 8, 1),
        # --jobs N: at most N, and never more than the CPUs or the work (10**20: no MemoryError).
        (BYTES_PER_WORKER * 100, 100, 1000, 2, 2),
        (BYTES_PER_WORKER * 100, 100, 10**20, 4, 4),
        (BYTES_PER_WORKER * 100, 100, 3, 4, 3),
        (BYTES_PER_WORKER - 1, 100, 4, 4, 1),
        (BYTES_PER_WORKER * 100, 100, 1, 4, 1),
    ],
)
def test_worker_count_follows_the_work_the_cpus_and_jobs(work, files, jobs, cpus, expected):
    assert worker_count(work, files, jobs, cpus) == expected


@pytest.mark.parametrize(
    "machine, load, expected",
    [
        # the idle capacity, rounded: a load of 0.5 leaves 3.5 cores of 4, 0.51 leaves 3.49
        (4, 0.0, 4), (4, 0.5, 4), (4, 0.51, 3), (4, 0.99, 3), (4, 1.5, 3), (4, 1.51, 2), (4, 3.49, 1), (4, 9.0, 1),
        # A container allowed 4 CPUs of a 64-CPU host sees the host's load.
        (64, 30.0, 4), (64, 60.5, 4), (64, 60.51, 3), (64, 70.0, 1),
    ],
)
def test_idle_cpus_follow_the_load_average(monkeypatch, machine, load, expected):
    monkeypatch.setattr(runner.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(runner.os, "cpu_count", lambda: machine)
    assert runner.idle_cpus(4) == expected


def test_jobs_beyond_the_cpus_start_no_more_processes(tmp_path, monkeypatch, pools):
    root = make_corpus(tmp_path, 6)
    monkeypatch.setattr(runner, "BYTES_PER_WORKER", 1)
    assert run_project(root, CONFIG, jobs=10**20) == run_project(root, CONFIG, jobs=1)
    assert pools == [1]  # two processes: this one and one worker


def test_the_default_leaves_busy_cpus_alone_and_jobs_does_not(tmp_path, monkeypatch, pools):
    root = make_corpus(tmp_path, 6)
    monkeypatch.setattr(runner, "BYTES_PER_WORKER", 1)
    monkeypatch.setattr(runner, "idle_cpus", lambda cpus: 1)  # the other CPU is busy
    expected = run_project(root, CONFIG, jobs=1)
    assert run_project(root, CONFIG, jobs=None) == expected
    assert pools == []
    assert run_project(root, CONFIG, jobs=2) == expected
    assert pools == [1]


def test_the_default_checks_little_work_in_this_process(tmp_path, pools):
    root = make_corpus(tmp_path, 70)  # the old threshold was 64 files: ~100 KB, one process now
    assert run_project(root, CONFIG, jobs=None) == run_project(root, CONFIG, jobs=1)
    assert pools == []


def test_check_accepts_any_jobs_and_reports_the_same(tmp_path, pools):
    root = make_corpus(tmp_path, 3)
    expected = run(["check", "--no-cache", "-j", "1"], root)
    assert expected.exit_code == 1 and "HRM004" in expected.output
    for jobs in ("1000", str(10**20)):
        result = run(["check", "--no-cache", "--jobs", jobs], root)
        assert (result.exit_code, result.output) == (expected.exit_code, expected.output)
    assert pools == []  # three small files: one process whatever --jobs says


def test_cold_and_warm_cache_report_the_same(tmp_path):
    root = make_corpus(tmp_path, 5)
    uncached = run_project(root, CONFIG)
    cold = run_project(root, CONFIG, use_cache=True)
    assert (root / CACHE_DIR_NAME / "CACHEDIR.TAG").is_file()
    warm = run_project(root, CONFIG, use_cache=True)
    assert uncached == cold == warm


def test_a_changed_file_is_checked_again(tmp_path):
    root = make_corpus(tmp_path, 3)
    before = run_project(root, CONFIG, use_cache=True)
    target = root / "tools" / "t001_tool.py"
    target.write_text(GOOD_TOOL.replace('"echo"', '"echo1"'))
    after = run_project(root, CONFIG, use_cache=True)
    assert [d for d in before if d.path == "tools/t001_tool.py" and d.code == "HRM004"]
    assert not [d for d in after if d.path == "tools/t001_tool.py" and d.code == "HRM004"]
    assert after == run_project(root, CONFIG)


def test_touching_a_file_without_changing_it_keeps_its_result(tmp_path):
    root = make_corpus(tmp_path, 3)
    first = run_project(root, CONFIG, use_cache=True)
    target = root / "tools" / "t001_tool.py"
    os.utime(target, ns=(1, 1))
    assert run_project(root, CONFIG, use_cache=True) == first


def test_a_corrupt_cache_is_ignored_not_trusted(tmp_path):
    root = make_corpus(tmp_path, 3)
    expected = run_project(root, CONFIG, use_cache=True)
    index = root / CACHE_DIR_NAME / INDEX_NAME
    data = json.loads(index.read_text())
    for entry in data["files"].values():
        # Tamper with the payload: claim the file is clean.
        entry["project"] = entry["project"].replace("HRM004", "HRM999")
    index.write_text(json.dumps(data))
    assert run_project(root, CONFIG, use_cache=True) == expected
    index.write_text("{not json")
    assert run_project(root, CONFIG, use_cache=True) == expected


def test_a_damaged_module_file_is_a_miss(tmp_path):
    """The full facts (read by the manifest, the flake8 plugin, schema-reading project rules)
    are checked against the hash that names their file."""
    from hermes_lint.check.cache import MODULES_DIR_NAME
    from hermes_lint.check.runner import module_results

    root = make_corpus(tmp_path, 3)
    expected, _ = module_results(root, CONFIG)
    assert module_results(root, CONFIG, use_cache=True)[0] == expected
    files = sorted((root / CACHE_DIR_NAME / MODULES_DIR_NAME).glob("*.json"))
    assert len(files) == 4  # one per tool module, the unparsable one included
    for path in files:
        path.write_text(path.read_text().replace("HRM004", "HRM999"))
    checked = []
    real = runner.check_modules

    def counting(sources, config, jobs):
        checked.extend(source.path for source in sources)
        return real(sources, config, jobs)

    runner.check_modules, saved = counting, runner.check_modules
    try:
        assert module_results(root, CONFIG, use_cache=True)[0] == expected
    finally:
        runner.check_modules = saved
    assert len(checked) == 3  # the three files whose facts held HRM004; zzz_tool's are intact


def test_a_cache_entry_naming_a_foreign_class_is_rejected(tmp_path):
    root = make_corpus(tmp_path, 1)
    expected = run_project(root, CONFIG, use_cache=True)
    index = root / CACHE_DIR_NAME / INDEX_NAME
    data = json.loads(index.read_text())
    import hashlib

    import zlib

    for entry in data["files"].values():
        payload = json.dumps({"$c": "Popen", "f": [["touch", str(tmp_path / "pwned")]]})
        entry["project"] = payload
        # A valid checksum: only the allow-list of classes stands between the entry and Popen.
        entry["check"] = zlib.crc32(f"{payload}\0{entry['full']}".encode())
    index.write_text(json.dumps(data))
    assert run_project(root, CONFIG, use_cache=True) == expected
    assert not (tmp_path / "pwned").exists()


def test_another_configuration_does_not_reuse_results(tmp_path):
    root = make_corpus(tmp_path, 2)
    run_project(root, CONFIG, use_cache=True)
    only_parse_errors = Config(select=("HRM001",))
    assert {d.code for d in run_project(root, only_parse_errors, use_cache=True)} == {"HRM001"}


def test_after_an_edit_the_project_phase_reports_the_same_with_and_without_schemas(tmp_path):
    """With one file edited, the other files' facts come from the cache; their schemas are
    decoded only when a selected project rule reads them (HRM601 with a provider selected)."""
    root = make_corpus(tmp_path, 3)
    (root / "tools" / "t000_tool.py").write_text(
        GOOD_TOOL.replace('"echo"', '"echo0"').replace('"type": "object"', '"type": "array"')
    )
    with_provider = Config(providers=("openai",), select=("HRM601",))  # HRM304 would take it over
    for config in (CONFIG, with_provider):
        run_project(root, config, use_cache=True)
        target = root / "tools" / "t001_tool.py"
        target.write_text(target.read_text() + "# edited\n")
        assert run_project(root, config, use_cache=True) == run_project(root, config)
    assert {d.code for d in run_project(root, with_provider)} & {"HRM601"}


def test_new_contents_with_the_old_size_and_mtime_are_checked_again(tmp_path):
    """`cp -p`, `rsync -t`, `tar x`, `touch -r`: same size, same mtime, other bytes."""
    root = make_corpus(tmp_path, 3)
    target = root / "tools" / "t001_tool.py"
    fixed = GOOD_TOOL.replace('"echo"', '"echo1"')
    broken = bad_tool(1)
    target.write_text(fixed.ljust(len(broken)))  # same size as the broken one
    assert len(target.read_bytes()) == len(broken.encode())
    original = target.stat()
    target.write_text(broken)
    os.utime(target, ns=(original.st_atime_ns, original.st_mtime_ns))
    first = run_project(root, CONFIG, use_cache=True)
    assert [d for d in first if d.path == "tools/t001_tool.py" and d.code == "HRM004"]

    target.write_text(fixed.ljust(len(broken)))
    os.utime(target, ns=(original.st_atime_ns, original.st_mtime_ns))
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (len(broken.encode()), original.st_mtime_ns)

    assert run_project(root, CONFIG, use_cache=True) == run_project(root, CONFIG)
    assert not [d for d in run_project(root, CONFIG, use_cache=True) if d.path == "tools/t001_tool.py" and d.code == "HRM004"]


def stats_within_one_tick(monkeypatch, tick: int, inode=None) -> None:
    """A filesystem whose timestamps stand still at ``tick`` (for the file of ``inode``, or for
    every file), and runs that take their stats within that tick: two writes at the same size
    then leave the same stat."""
    real_key_of = runner._key_of

    def coarse_key_of(stat):
        key = real_key_of(stat)
        if key is None or (inode is not None and key[3] != inode):
            return key
        return (key[0], tick, tick, key[3])

    monkeypatch.setattr(runner, "_key_of", coarse_key_of)
    monkeypatch.setattr(runner.time, "time_ns", lambda: tick + 1000)


@pytest.mark.parametrize("mtime_ns, age_ns, trusted", [
    # whole seconds: a filesystem that may keep 2 s ticks
    (10**18, RACY_NS + 1, True), (10**18, RACY_NS, False), (10**18, 0, False),
    # a fraction of a second: a fine-grained one, whose tick is a kernel clock's
    (10**18 + 1, FINE_RACY_NS + 1, True), (10**18 + 1, FINE_RACY_NS, False), (10**18 + 1, 0, False),
])
def test_a_stat_pins_content_only_once_older_than_a_timestamp_tick(mtime_ns, age_ns, trusted):
    assert settled(mtime_ns, mtime_ns + age_ns) is trusted


def test_a_rewrite_within_the_same_timestamp_tick_is_checked_again(tmp_path, monkeypatch):
    """On a filesystem with coarse timestamps, a file written twice within one tick at the same
    size keeps its stat (size, times, inode): a stat taken that recently is never trusted."""
    root = make_corpus(tmp_path, 3)
    target = root / "tools" / "t001_tool.py"
    fixed = GOOD_TOOL.replace('"echo"', '"echo1"')
    broken = bad_tool(1)
    target.write_text(broken)
    stats_within_one_tick(monkeypatch, target.stat().st_mtime_ns)  # now: both writes fall in this tick
    first = run_project(root, CONFIG, use_cache=True)
    assert [d for d in first if d.path == "tools/t001_tool.py" and d.code == "HRM004"]

    target.write_text(fixed.ljust(len(broken)))  # same size, same (coarse) stat
    after = run_project(root, CONFIG, use_cache=True)
    assert not [d for d in after if d.path == "tools/t001_tool.py" and d.code == "HRM004"]
    assert after == run_project(root, CONFIG)


def test_toolsets_rewritten_within_the_same_timestamp_tick_is_read_again(tmp_path, monkeypatch):
    """The last run's diagnostics are reused only when every input's stat pins its content,
    toolsets.py's included: one written twice within a tick at the same size keeps its stat."""
    root = make_corpus(tmp_path, 3)
    toolsets = root / "toolsets.py"
    tick = toolsets.stat().st_mtime_ns
    for module in (root / "tools").iterdir():  # the tool modules: long unchanged, pinned by their stats
        os.utime(module, ns=(tick - 10**10, tick - 10**10))
    stats_within_one_tick(monkeypatch, tick, inode=toolsets.stat().st_ino)
    first = run_project(root, CONFIG, use_cache=True)
    assert not [d for d in first if d.code == "HRM404"]

    toolsets.write_text(toolsets.read_text().replace('"echo2"', '"echoX"'))  # same size: echo2 unlisted
    after = run_project(root, CONFIG, use_cache=True)
    assert [(d.path, d.code) for d in after if d.code == "HRM404"] == [("tools/t002_tool.py", "HRM404")]
    assert after == run_project(root, CONFIG)


def test_a_touch_seen_within_its_timestamp_tick_is_not_recorded(tmp_path, monkeypatch):
    """A file rewritten unchanged (``touch``, an editor's save) is found by its content hash; a
    stat taken within the tick of that write is not recorded in its place, or a second write
    in the same tick at the same size would go unseen."""
    root = make_corpus(tmp_path, 3)
    target = root / "tools" / "t001_tool.py"
    broken = bad_tool(1)
    target.write_text(broken)
    monkeypatch.setattr(runner.time, "time_ns", lambda: 2 ** 62)  # recorded: long past its tick
    assert [d for d in run_project(root, CONFIG, use_cache=True) if d.path == "tools/t001_tool.py" and d.code == "HRM004"]

    target.write_text(broken)  # the same content, written again: a new stat
    stats_within_one_tick(monkeypatch, target.stat().st_mtime_ns)
    assert [d for d in run_project(root, CONFIG, use_cache=True) if d.path == "tools/t001_tool.py" and d.code == "HRM004"]

    fixed = GOOD_TOOL.replace('"echo"', '"echo1"')
    target.write_text(fixed.ljust(len(broken)))  # same size, same (coarse) stat
    after = run_project(root, CONFIG, use_cache=True)
    assert not [d for d in after if d.path == "tools/t001_tool.py" and d.code == "HRM004"]
    assert after == run_project(root, CONFIG)


def test_a_settled_stat_is_recorded_and_trusted(tmp_path, monkeypatch):
    """Past the racy window the stat alone says "unchanged": the file is not read again."""
    root = make_corpus(tmp_path, 2)
    monkeypatch.setattr(runner.time, "time_ns", lambda: 2 ** 62)  # every file's times are long past
    first = run_project(root, CONFIG, use_cache=True)
    index = json.loads((root / CACHE_DIR_NAME / INDEX_NAME).read_text())
    assert all(len(entry["stat"]) == 4 for entry in index["files"].values())
    read = []
    real_read = runner._read_or_none
    monkeypatch.setattr(runner, "_read_or_none", lambda path: read.append(path) or real_read(path))
    (root / CACHE_DIR_NAME / "project-v2.json").unlink()  # the per-file entries, not the whole run's
    assert run_project(root, CONFIG, use_cache=True) == first
    assert read == []


def test_toolsets_edits_are_not_hidden_by_the_cache(tmp_path):
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL})
    before = run_project(root, CONFIG, use_cache=True)
    toolsets = root / "toolsets.py"
    toolsets.write_text(toolsets.read_text().replace('"echo"', '"echo", "ghost"'))
    after = run_project(root, CONFIG, use_cache=True)
    assert after == run_project(root, CONFIG)
    assert [d.code for d in after if d.path == "toolsets.py"] == ["HRM403"] and after != before



def test_past_the_timestamp_window_warm_project_rules_equal_cold_ones(tmp_path, monkeypatch):
    """With every stat settled (the cache trusts them: no file is hashed again), a warm run of
    the project rules equals a cold one after an edit of a file HRM403's name search read (not
    a tool module) and after an edit of toolsets.py."""
    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL}, toolsets=TOOLSETS.replace('"echo"', '"echo", "ghost"'))
    (root / "gateway").mkdir()
    elsewhere = root / "gateway" / "extra.py"
    elsewhere.write_text('EXTRA_TOOLS = ["ghost"]\n')
    clock = [2 ** 62]  # every file's times are long past the racy window
    monkeypatch.setattr(runner.time, "time_ns", lambda: clock[0])

    def settled_edit(path: Path, text: str) -> None:
        before = path.stat().st_mtime_ns
        path.write_text(text)
        os.utime(path, ns=(before + 10**9, before + 10**9))  # a new mtime: a stat can tell the versions apart
        clock[0] += 10**12

    def warm_equals_cold() -> list:
        warm = run_project(root, CONFIG, use_cache=True)
        assert warm == run_project(root, CONFIG)
        return [d.code for d in warm if d.path == "toolsets.py"]

    assert warm_equals_cold() == []  # fills the cache: "ghost" is found in gateway/extra.py
    assert warm_equals_cold() == []  # from the cache
    settled_edit(elsewhere, "EXTRA_TOOLS = []\n")
    assert warm_equals_cold() == ["HRM403"]
    settled_edit(elsewhere, 'EXTRA_TOOLS = ["ghost"]\n')
    assert warm_equals_cold() == []
    # toolsets.py: with every listed name registered, nothing is searched and the whole run's
    # result is stored; an edit listing a name nothing registers must not be answered from it
    toolsets = root / "toolsets.py"
    settled_edit(toolsets, toolsets.read_text().replace(', "ghost"', ""))
    assert warm_equals_cold() == []
    assert warm_equals_cold() == []
    settled_edit(toolsets, toolsets.read_text().replace('"echo"', '"echo", "phantom"'))
    assert warm_equals_cold() == ["HRM403"]

def count_checks(monkeypatch) -> list:
    """Records the path of every file the per-file phase checks (rather than takes from the cache)."""
    from hermes_lint.check import engine

    checked: list = []
    real = engine.check_module

    def counting(source, config):
        checked.append(source.path)
        return real(source, config)

    monkeypatch.setattr(engine, "check_module", counting)
    return checked


def test_the_cache_is_used_and_keyed_on_what_results_depend_on(tmp_path, monkeypatch):
    from hermes_lint.check import cache

    root = make_project(tmp_path, {"echo_tool.py": GOOD_TOOL, "other_tool.py": bad_tool(2)},
                        toolsets=TOOLSETS.replace('"echo"', '"echo", "echo2"'))
    checked = count_checks(monkeypatch)
    cold = run_project(root, CONFIG, use_cache=True)
    assert sorted(checked) == ["tools/echo_tool.py", "tools/other_tool.py"]

    checked.clear()
    assert run_project(root, CONFIG, use_cache=True) == cold and checked == []  # all from the cache

    toolsets = root / "toolsets.py"
    toolsets.write_text(toolsets.read_text().replace('"echo2"', '"echo2", "ghost"'))
    edited = run_project(root, CONFIG, use_cache=True)
    assert checked == []  # no module changed: only the project phase ran again
    assert [d.code for d in edited if d.path == "toolsets.py"] == ["HRM403"]

    (root / "tools" / "other_tool.py").write_text(bad_tool(2) + "\n")
    run_project(root, CONFIG, use_cache=True)
    assert checked == ["tools/other_tool.py"]

    # An edited rule (the toolkit's own files) must not reuse the results of the old one.
    checked.clear()
    monkeypatch.setattr(cache, "_toolkit_fingerprint", lambda: "hermes_lint/rules/hrm004.py:1:2")
    run_project(root, CONFIG, use_cache=True)
    assert sorted(checked) == ["tools/echo_tool.py", "tools/other_tool.py"]


def _registration(path: Path) -> tuple:
    import re

    text = path.read_text()
    return re.search(r'    name="([^"]+)",\n    toolset="([^"]+)",', text).groups()


def _check_output(root: Path, *args: str) -> tuple:
    result = run(["check", *args], root)
    return result.exit_code, result.stdout


def test_after_each_edit_a_warm_check_prints_what_a_cold_one_does(tmp_path):
    """One file edited in a generated project: the project phase runs from the other modules'
    compact index entries (and toolsets.py's cached facts), and must print the same bytes as
    ``--no-cache``, as edits create and remove cross-module duplicates (HRM401, HRM402), make a
    name unreadable (HRM003) and change toolsets.py."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from gen_corpus import generate

    root = tmp_path / "project"
    generate(12, root, 3)
    tools = sorted((root / "tools").glob("*_tool.py"))
    first = tools[2]
    first_name, first_toolset = _registration(first)
    # The generator spreads tools over toolsets: two in toolsets other than the first's.
    second, third = [path for path in tools[3:] if _registration(path)[1] != first_toolset][:2]
    second_name, second_toolset = _registration(second)
    third_name, third_toolset = _registration(third)
    originals = {path: path.read_text() for path in (first, second, third, root / "toolsets.py")}

    def same_as_cold(expected_codes: set) -> None:
        warm = _check_output(root)
        assert warm == _check_output(root, "--no-cache")
        codes = {line.split()[1] for line in warm[1].splitlines() if line.startswith("tools/")}
        assert {code for code in codes if code.startswith("HRM4")} == expected_codes  # HRM303 beside them

    same_as_cold(set())  # fills the cache
    # HRM401: the second module registers the first's name under its own toolset.
    second.write_text(originals[second].replace(f'name="{second_name}"', f'name="{first_name}"'))
    same_as_cold({"HRM401"})
    # HRM402: the third registers it under the first's toolset (the second's clash stays).
    third.write_text(
        originals[third]
        .replace(f'name="{third_name}"', f'name="{first_name}"')
        .replace(f'toolset="{third_toolset}"', f'toolset="{first_toolset}"')
    )
    same_as_cold({"HRM401", "HRM402"})
    # Both duplicates removed again, one edit at a time.
    second.write_text(originals[second])
    same_as_cold({"HRM402"})
    third.write_text(originals[third])
    same_as_cold(set())
    # A name no longer readable statically: HRM003 from the project phase.
    first.write_text(originals[first].replace(f'name="{first_name}"', "name=NAME_SET_AT_RUN_TIME"))
    warm = _check_output(root)
    assert warm == _check_output(root, "--no-cache") and "HRM003" in warm[1]
    first.write_text(originals[first])
    same_as_cold(set())
    # toolsets.py edited (its facts come from the cache while its bytes are unchanged).
    toolsets = root / "toolsets.py"
    toolsets.write_text(originals[toolsets].replace(f'"{first_name}"', '"ghost_tool"', 1))
    warm = _check_output(root)
    assert warm == _check_output(root, "--no-cache") and "HRM403" in warm[1] and "HRM404" in warm[1]
    toolsets.write_text(originals[toolsets])
    same_as_cold(set())


def test_a_project_record_gives_back_the_project_view_of_the_facts(tmp_path):
    """The index keeps what project rules read in a compact form: decoded, it is exactly
    ``project_view`` of the facts, on modules with every kind of registration fact."""
    from hermes_lint.check import project_records

    fixtures = sorted((Path(__file__).parent / "fixtures").rglob("*_tool.py"))
    assert len(fixtures) > 10
    seen_unresolved = False
    for path in fixtures:
        source = engine.SourceFile(f"tools/{path.name}", path.read_bytes())
        result = engine.check_module(source, CONFIG)
        facts = result.facts
        text = project_records.project_record(facts, result.diagnostics, result.noqa)
        decoded = project_records.from_project_record(text, facts.path, facts.sha256, facts.read_modules)
        assert decoded == (project_records.project_view(facts), result.diagnostics, result.noqa), path
        seen_unresolved |= any(not isinstance(r.name, str) for r in facts.registrations)
    broken = engine.check_module(engine.SourceFile("tools/x_tool.py", b"def broken(:\n"), CONFIG)
    text = project_records.project_record(broken.facts, broken.diagnostics, broken.noqa)
    assert project_records.from_project_record(text, "tools/x_tool.py", broken.facts.sha256, ()) == (
        broken.facts, broken.diagnostics, broken.noqa
    )


def test_after_an_edit_the_project_phase_reads_no_module_file(tmp_path):
    """Without a schema-reading project rule, the other modules come from the index alone:
    their module files (full facts) may be gone, and only the edited module's is written."""
    from hermes_lint.check.cache import MODULES_DIR_NAME

    root = make_corpus(tmp_path, 4)
    run_project(root, CONFIG, use_cache=True)
    modules = root / CACHE_DIR_NAME / MODULES_DIR_NAME
    for path in modules.iterdir():
        path.unlink()
    target = root / "tools" / "t001_tool.py"
    target.write_text(target.read_text() + "# edited\n")
    assert run_project(root, CONFIG, use_cache=True) == run_project(root, CONFIG)
    assert len(list(modules.glob("*.json"))) == 1
