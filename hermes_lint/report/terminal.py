"""What ``check`` shows around the diagnostics on a terminal: colour, the source line with a
caret, statistics, the summary line and progress (the conventions of ruff and flake8).

Colour follows no-color.org and force-color.org, NO_COLOR first (as CPython does): NO_COLOR
set and not empty -> never; FORCE_COLOR set and not empty -> always; otherwise only when the
output is a terminal. Files (``--output-file``) never get colour.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, TextIO

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.model import Diagnostic

_BOLD, _RED, _CYAN, _DIM, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[2m", "\x1b[0m"


def use_colour(stream: TextIO, environ: Optional[Mapping[str, str]] = None) -> bool:
    env: Mapping[str, str] = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary(diagnostics: Sequence[Diagnostic], checked_files: Optional[int] = None) -> str:
    """``Found 3 diagnostics in 2 files`` or ``All checks passed``."""
    if not diagnostics:
        return "All checks passed" + (f" ({plural(checked_files, 'file')} checked)" if checked_files else "")
    files = len({d.path for d in diagnostics})
    return f"Found {plural(len(diagnostics), 'diagnostic')} in {plural(files, 'file')}"


def statistics(diagnostics: Sequence[Diagnostic], summary_of: Callable[[str], str]) -> str:
    """One line per code, most frequent first: ``count  CODE  summary`` (ruff's --statistics)."""
    counts: Dict[str, int] = {}
    for d in diagnostics:
        counts[d.code] = counts.get(d.code, 0) + 1
    width = len(str(max(counts.values(), default=0)))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{count:>{width}}  {code}  {summary_of(code)}\n" for code, count in rows)


def format_text(
    diagnostics: Sequence[Diagnostic],
    *,
    colour: bool = False,
    source_lines: Optional[Callable[[str], Optional[List[str]]]] = None,
    url_of: Optional[Callable[[str], str]] = None,
) -> str:
    """``path:line:col: CODE message``; with ``source_lines`` (--show-source) each is followed
    by its source line, a caret under the column and the rule's documentation URL."""
    out: List[str] = []
    for d in diagnostics:
        if colour:
            out.append(f"{_BOLD}{d.path}{_RESET}:{d.line}:{d.col}: {_BOLD}{_RED}{d.code}{_RESET} {d.message}\n")
        else:
            out.append(d.as_text() + "\n")
        if source_lines is None:
            continue
        lines = source_lines(d.path)
        if lines is not None and 1 <= d.line <= len(lines):
            text = lines[d.line - 1].rstrip("\r\n")
            # The caret's indent keeps the line's own tabs, so it stands under the column.
            indent = "".join(c if c == "\t" else " " for c in text[: max(d.col - 1, 0)])
            caret = f"{_RED}^{_RESET}" if colour else "^"
            out.append(f"    {text}\n    {indent}{caret}\n")
        if url_of is not None:
            url = url_of(d.code)
            out.append(f"    {_DIM}docs: {url}{_RESET}\n" if colour else f"    docs: {url}\n")
    return "".join(out)


class Progress:
    """``checking N files… 2.5 s`` on stderr, redrawn in place, for runs that take longer than
    ``delay`` seconds and only when stderr is a terminal; erased when the run ends."""

    def __init__(self, total: int, stream: Optional[TextIO] = None, delay: float = 1.0, interval: float = 0.25):
        self.stream = sys.stderr if stream is None else stream
        self.total = total
        self.delay, self.interval = delay, interval
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self.drawn = False

    def __enter__(self) -> "Progress":
        isatty = getattr(self.stream, "isatty", None)
        if isatty and isatty():
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        import time

        started = time.monotonic()
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            elapsed = time.monotonic() - started
            self.stream.write(f"\rhermes-lint: checking {plural(self.total, 'file')}… {elapsed:.1f} s")
            self.stream.flush()
            self.drawn = True
            self._stop.wait(self.interval)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if self.drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
