"""Running a script of the runtime in a fresh interpreter: this repository's ``tools`` package on
the path, no ``PYTHON*`` setting of the environment running the tests, the script's standard
output read as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_json(script: str, *args: str) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment["PYTHONPATH"] = str(REPO_ROOT)
    completed = subprocess.run([sys.executable, "-c", script, *args], cwd=REPO_ROOT,
                               capture_output=True, text=True, timeout=120, env=environment)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)
