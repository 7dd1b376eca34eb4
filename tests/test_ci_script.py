"""`.ci/run` fails when pytest collects no tests (exit 5), and passes pytest's status through.

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


@pytest.mark.skipif(shutil.which("bash") is None, reason=".ci/run is a bash script")
@pytest.mark.parametrize("pytest_status, expected", [(0, 0), (1, 1), (5, 5)])
def test_ci_passes_pytests_status_through_and_fails_when_nothing_was_collected(tmp_path, pytest_status, expected):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in {**STUBS, "pytest": f"#!/bin/sh\nexit {pytest_status}\n"}.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / ".ci" / "run")
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")

    completed = subprocess.run(["bash", str(repo / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60)

    assert completed.returncode == expected, completed.stderr
    assert ("pytest collected no tests" in completed.stderr) == (pytest_status == 5)
