"""Run a subprocess with a timeout and capped output: shared by the terminal and execute_code tools.

Not a tool module (it registers nothing, so discovery never imports it on its own). Output goes
to temporary files rather than pipes, so memory stays bounded however much a command prints,
and a killed command's background children cannot keep a pipe open and hang the caller. A
timed-out command is killed with its whole process group.
"""

import os
import signal
import subprocess
import tempfile
from typing import IO, Any

# Per stream. Beyond it the head and the tail are kept: errors usually show up at the end.
MAX_OUTPUT_BYTES = 20_000


def read_capped(stream: IO[bytes], limit: int = MAX_OUTPUT_BYTES) -> tuple[str, bool]:
    """Text of a captured stream; beyond ``limit``, its head and tail around an omission mark."""
    size = stream.seek(0, os.SEEK_END)
    stream.seek(0)
    if size <= limit:
        return stream.read().decode("utf-8", errors="replace"), False
    half = limit // 2
    head = stream.read(half)
    stream.seek(size - half)
    tail = stream.read(half)
    omitted = size - 2 * half
    text = (
        head.decode("utf-8", errors="replace")
        + f"\n... [{omitted} bytes omitted] ...\n"
        + tail.decode("utf-8", errors="replace")
    )
    return text, True


def is_timeout(value: object, maximum: float) -> bool:
    """``value`` is a number of seconds (not a bool) from 1 to ``maximum``: what a tool that runs
    a bounded process accepts as its ``timeout`` argument."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 1 <= value <= maximum


def _kill_process_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # it exited between the timeout and the kill


def run_bounded(args: str | list[str], timeout: float, shell: bool = False) -> dict[str, Any]:
    """Run ``args`` in the current directory; exit code, timeout and capped output as a dict."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            args,
            shell=shell,
            cwd=os.getcwd(),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            # Its own process group, so a timeout kills the command's children too.
            start_new_session=True,
        )
        try:
            process.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_process_group(process)
            process.wait()
            timed_out = True
        stdout_text, stdout_cut = read_capped(stdout)
        stderr_text, stderr_cut = read_capped(stderr)
    return {
        "exit_code": None if timed_out else process.returncode,
        "timed_out": timed_out,
        "stdout": stdout_text,
        "stderr": stderr_text,
        "truncated": stdout_cut or stderr_cut,
    }
