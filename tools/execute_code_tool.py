"""Execute Code Tool -- run a Python snippet in a subprocess with a timeout and an output cap.

The code is written to a temporary script and run by the same interpreter as the agent
(``sys.executable``), unbuffered (``-u``) so that output printed before a timeout is not lost
with the killed process, in the workspace (the current directory). Exit status, exceptions
(on stderr) and a timeout are results, not errors. Output goes to temporary files, so memory
stays bounded however much the code prints.
"""

import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

from tools.bounded_process import is_timeout, run_bounded
from tools.registry import registry, tool_error

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 30
MAX_TIMEOUT_SECONDS = 300


# --- Availability check ---


def check_execute_code_requirements() -> bool:
    """Always available: the agent's own interpreter runs the code."""
    return True


# --- Helpers ---


def _run_python(code: str, timeout: float) -> dict[str, Any]:
    """Run ``code`` as a script; exit code, timeout and capped output as a plain dict."""
    with tempfile.TemporaryDirectory(prefix="hermes-exec-") as script_dir:
        script = Path(script_dir) / "snippet.py"
        script.write_text(code, encoding="utf-8")
        return run_bounded([sys.executable, "-u", str(script)], timeout)


# --- Handler ---


def _handle_execute_code(args: dict[str, Any], **kwargs: Any) -> str:
    code = args.get("code")
    timeout = args.get("timeout", DEFAULT_TIMEOUT_SECONDS)
    if not isinstance(code, str) or not code.strip():
        return tool_error("code must be a non-empty string")
    if not is_timeout(timeout, MAX_TIMEOUT_SECONDS):
        return tool_error(f"timeout must be between 1 and {MAX_TIMEOUT_SECONDS} seconds")
    try:
        return json.dumps(_run_python(code, timeout), ensure_ascii=False)
    except Exception as exc:  # e.g. no temp space; a result for the model, not a crash
        logger.debug("execute_code failed", exc_info=True)
        return tool_error(f"cannot run code: {exc}")


# --- Schema ---

EXECUTE_CODE_SCHEMA = {
    "name": "execute_code",
    "description": (
        "Run a Python 3 script in a separate process, in the workspace (the current "
        "directory), and return its exit code, stdout and stderr; only printed output is seen. "
        "A script still running after timeout seconds is killed and reported with timed_out "
        "true. Long output keeps its beginning and end. The script gets no input."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "Complete Python source code to run as a script.",
            },
            "timeout": {
                "type": "number",
                "description": "Seconds before the script is killed.",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_SECONDS,
                "default": DEFAULT_TIMEOUT_SECONDS,
            },
        },
        "required": ["code"],
    },
}

# --- Registration ---

registry.register(
    name="execute_code",
    toolset="code_execution",
    schema=EXECUTE_CODE_SCHEMA,
    handler=_handle_execute_code,
    check_fn=check_execute_code_requirements,
    emoji="🐍",
    max_result_size_chars=50_000,
)
