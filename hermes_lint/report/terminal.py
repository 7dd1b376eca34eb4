"""What ``check`` shows around the diagnostics on a terminal: colour, the source line with a
caret, statistics, the summary line and progress (the conventions of ruff and flake8).

Colour follows no-color.org and force-color.org, NO_COLOR first (as CPython does): NO_COLOR
set and not empty -> never; FORCE_COLOR set and not empty -> always; otherwise only when the
output is a terminal. Files (``--output-file``) never get colour.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple

if TYPE_CHECKING:  # pragma: no cover
    import threading

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


def fixable_hint(safe: int, unsafe: int, unsafe_enabled: bool) -> str:
    """ruff's line under the summary: ``[*] 2 fixable with `--fix` (1 more with `--unsafe-fixes`)``."""
    if unsafe_enabled:
        total = safe + unsafe
        return f"[*] {total} fixable with `--fix --unsafe-fixes`" if total else ""
    if not safe and not unsafe:
        return ""
    more = f" ({unsafe} more with `--fix --unsafe-fixes`)" if unsafe else ""
    return f"[*] {safe} fixable with `--fix`{more}" if safe else f"No safe fixes; {unsafe} with `--fix --unsafe-fixes`"


def statistics_rows(
    diagnostics: Sequence[Diagnostic], fixable: Callable[[Diagnostic], bool]
) -> List[Tuple[str, int, int]]:
    """(code, count, how many of them are fixable), most frequent first."""
    counts: Dict[str, List[int]] = {}
    for d in diagnostics:
        row = counts.setdefault(d.code, [0, 0])
        row[0] += 1
        row[1] += fixable(d)
    return sorted(((code, n, f) for code, (n, f) in counts.items()), key=lambda row: (-row[1], row[0]))


def statistics(
    diagnostics: Sequence[Diagnostic],
    summary_of: Callable[[str], str],
    fixable: Callable[[Diagnostic], bool] = lambda d: False,
) -> str:
    """One line per code, most frequent first: ``count  CODE  [*] summary`` (ruff's
    --statistics), ``[*]`` when some of them can be fixed with --fix."""
    rows = statistics_rows(diagnostics, fixable)
    width = len(str(max((count for _, count, _ in rows), default=0)))
    return "".join(
        f"{count:>{width}}  {code}  {'[*]' if fixed else '   '} {summary_of(code)}\n" for code, count, fixed in rows
    )


def format_text(
    diagnostics: Sequence[Diagnostic],
    *,
    colour: bool = False,
    source_lines: Optional[Callable[[str], Optional[List[str]]]] = None,
    url_of: Optional[Callable[[str], Optional[str]]] = None,
    path_of: Callable[[str], str] = lambda path: path,
    fixable: Callable[[Diagnostic], bool] = lambda d: False,
    fix_title: Optional[Callable[[Diagnostic], Optional[str]]] = None,
) -> str:
    """``path:line:col: CODE message`` (``CODE [*] message`` when ``fixable``), the path as
    ``path_of`` shows it; with ``source_lines`` (--show-source) each is followed by its source
    line, a caret under the column and the rule's page; with ``fix_title`` (--show-fixes), by
    the fix it would get."""
    out: List[str] = []
    for d in diagnostics:
        path = path_of(d.path)
        mark = "[*] " if fixable(d) else ""
        if colour:
            out.append(f"{_BOLD}{path}{_RESET}:{d.line}:{d.col}: {_BOLD}{_RED}{d.code}{_RESET} {mark}{d.message}\n")
        else:
            out.append(f"{path}:{d.line}:{d.col}: {d.code} {mark}{d.message}\n")
        if source_lines is not None:
            lines = source_lines(d.path)
            if lines is not None and 1 <= d.line <= len(lines):
                text = lines[d.line - 1].rstrip("\r\n")
                # The caret's indent keeps the line's own tabs, so it stands under the column.
                indent = "".join(c if c == "\t" else " " for c in text[: max(d.col - 1, 0)])
                caret = f"{_RED}^{_RESET}" if colour else "^"
                out.append(f"    {text}\n    {indent}{caret}\n")
        title = fix_title(d) if fix_title is not None else None
        if title:
            out.append(f"    fix: {title}\n")
        if url_of is not None:
            url = url_of(d.code)
            if url:
                out.append(f"    {_DIM}docs: {url}{_RESET}\n" if colour else f"    docs: {url}\n")
    return "".join(out)


class Progress:
    """``checking N files… 2.5 s`` on stderr, redrawn in place, for runs that take longer than
    ``delay`` seconds and only when stderr is a terminal; erased when the run ends. Only then is
    ``threading`` imported: a run whose stderr is a pipe (a commit hook, CI) does without it."""

    def __init__(self, total: int, stream: Optional[TextIO] = None, delay: float = 1.0, interval: float = 0.25):
        self.stream = sys.stderr if stream is None else stream
        self.total = total
        self.delay, self.interval = delay, interval
        self._stop: Optional[threading.Event] = None
        self._thread: Optional[threading.Thread] = None
        self.drawn = False

    def __enter__(self) -> "Progress":
        isatty = getattr(self.stream, "isatty", None)
        if isatty and isatty():
            import threading

            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._run, args=(self._stop,), daemon=True)
            self._thread.start()
        return self

    def _run(self, stop: threading.Event) -> None:
        import time

        started = time.monotonic()
        if stop.wait(self.delay):
            return
        while not stop.is_set():
            elapsed = time.monotonic() - started
            self.stream.write(f"\rhermes-lint: checking {plural(self.total, 'file')}… {elapsed:.1f} s")
            self.stream.flush()
            self.drawn = True
            stop.wait(self.interval)

    def __exit__(self, *exc) -> None:
        if self._stop is not None and self._thread is not None:
            self._stop.set()
            self._thread.join()
            if self.drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
