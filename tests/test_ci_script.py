"""`.ci/run` fails when pytest collects no tests (exit 5) or mypy fails, and passes pytest's
status through.

The script's tools (python3, pip, hermes-lint, pytest) are replaced on PATH by stubs: nothing is
installed, only the script's own logic runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "run"

STUBS = {
    # `python3 -m venv DIR` makes DIR/bin/activate (empty: PATH keeps pointing at the stubs)
    "python3": '#!/bin/sh\nif [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin" && : > "$3/bin/activate"; fi\nexit 0\n',
    "python": "#!/bin/sh\nexit 0\n",
    "pip": "#!/bin/sh\nexit 0\n",
    "hermes-lint": "#!/bin/sh\nexit 0\n",
}


def run_ci(tmp_path: Path, pytest_status: int, mypy_status: int) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # mypy records that it ran, so a test can tell "passed" from "never ran".
    mypy = f'#!/bin/sh\necho ran > "{tmp_path}/mypy-ran"\nexit {mypy_status}\n'
    for name, text in {**STUBS, "pytest": f"#!/bin/sh\nexit {pytest_status}\n", "mypy": mypy}.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / ".ci" / "run")
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    return subprocess.run(["bash", str(repo / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(shutil.which("bash") is None, reason=".ci/run is a bash script")
@pytest.mark.parametrize("pytest_status, expected", [(0, 0), (1, 1), (5, 5)])
def test_ci_passes_pytests_status_through_and_fails_when_nothing_was_collected(tmp_path, pytest_status, expected):
    completed = run_ci(tmp_path, pytest_status, mypy_status=0)

    assert completed.returncode == expected, completed.stderr
    assert ("pytest collected no tests" in completed.stderr) == (pytest_status == 5)
    assert (tmp_path / "mypy-ran").is_file()
    assert "mypy" not in completed.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason=".ci/run is a bash script")
@pytest.mark.parametrize("pytest_status, expected", [(0, 1), (1, 1), (5, 5)])
def test_ci_runs_mypy_after_pytest_and_fails_when_it_fails(tmp_path, pytest_status, expected):
    completed = run_ci(tmp_path, pytest_status, mypy_status=1)

    assert (tmp_path / "mypy-ran").is_file()  # even after failed tests: both reports at once
    assert completed.returncode == expected, completed.stderr
    assert "ci: FAILED: mypy found type errors" in completed.stderr
