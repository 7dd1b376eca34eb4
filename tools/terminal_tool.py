"""Terminal Tool -- run a shell command in the workspace with a timeout and an output cap.

The command runs through ``/bin/sh`` in the process's current directory (the workspace). Its
exit status and a timeout are results, not errors: a failing command is something the model
must see and react to. Output goes to temporary files rather than pipes, so memory stays
bounded however much a command prints, and a killed command's background children cannot keep
a pipe open and hang the tool. A timed-out command is killed with its whole process group.
"""

import json
import logging
from typing import Any

from tools.bounded_process import is_timeout, run_bounded
from tools.registry import registry, tool_error

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 30
MAX_TIMEOUT_SECONDS = 600


# --- Availability check ---


def check_terminal_requirements() -> bool:
    """Always available: only the standard library is needed."""
    return True


# --- Helpers ---


def _run_shell(command: str, timeout: float) -> dict[str, Any]:
    """Run ``command`` through /bin/sh; exit code, timeout and capped output as a plain dict."""
    return run_bounded(command, timeout, shell=True)


# --- Handler ---


def _handle_terminal(args: dict[str, Any], **kwargs: Any) -> str:
    command = args.get("command")
    timeout = args.get("timeout", DEFAULT_TIMEOUT_SECONDS)
    if not isinstance(command, str) or not command.strip():
        return tool_error("command must be a non-empty string")
    if not is_timeout(timeout, MAX_TIMEOUT_SECONDS):
        return tool_error(f"timeout must be between 1 and {MAX_TIMEOUT_SECONDS} seconds")
    try:
        return json.dumps(_run_shell(command, timeout), ensure_ascii=False)
    except Exception as exc:  # e.g. the shell cannot start; a result for the model, not a crash
        logger.debug("terminal failed to run %r", command, exc_info=True)
        return tool_error(f"cannot run command: {exc}")


# --- Schema ---

TERMINAL_SCHEMA = {
    "name": "terminal",
    "description": (
        "Run a shell command in the workspace (the current directory) and return its exit "
        "code, stdout and stderr. A command still running after timeout seconds is killed "
        "and reported with timed_out true. Long output keeps its beginning and end. The "
        "command gets no input, so interactive programs cannot be used."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "description": "Shell command line, run with /bin/sh.",
            },
            "timeout": {
                "type": "number",
                "description": "Seconds before the command is killed.",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_SECONDS,
                "default": DEFAULT_TIMEOUT_SECONDS,
            },
        },
        "required": ["command"],
    },
}

# --- Registration ---

registry.register(
    name="terminal",
    toolset="terminal",
    schema=TERMINAL_SCHEMA,
    handler=_handle_terminal,
    check_fn=check_terminal_requirements,
    emoji="💻",
    max_result_size_chars=50_000,
)
