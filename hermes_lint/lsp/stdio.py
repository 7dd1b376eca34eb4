"""The server's standard streams, made safe against what a broken or hostile client sends.

pygls reads a header line with ``readline()`` and a body with ``read(Content-Length)``, both
unbounded: a header without a line break, or a ``Content-Length`` of a terabyte, would have it
allocate without limit. ``BoundedInput`` caps both: an over-long header line is cut (and then
ignored by pygls, as any line that is not a header it knows), and a message announced larger than
``MAX_MESSAGE_BYTES`` ends the session, since nothing after it can be framed again.

pygls logs a message it cannot decode with its traceback; the log goes to stderr as one line per
event here (``log_to_stderr``), never a traceback.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import BinaryIO

# The largest message read: a 2 MB tool module (``evaluate.project.MAX_MODULE_BYTES``) sent in
# full, JSON-escaped, with room to spare.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_HEADER_BYTES = 4096
_CONTENT_LENGTH = re.compile(rb"^[Cc]ontent-[Ll]ength:[ \t]*(\d+)[ \t]*\r?\n?$")

logger = logging.getLogger("hermes_lint.lsp")


class BoundedInput:
    """The standard input as pygls reads it (``readline``, ``read``), with both bounded."""

    def __init__(self, raw: BinaryIO, max_message: int = MAX_MESSAGE_BYTES):
        self.raw = raw
        self.max_message = max_message
        self.ended = ""  # why the input was ended early, if it was

    def readline(self) -> bytes:
        if self.ended:
            return b""
        line = self.raw.readline(MAX_HEADER_BYTES)
        match = _CONTENT_LENGTH.match(line)
        if match is not None and (len(match.group(1)) > 18 or int(match.group(1)) > self.max_message):
            self.ended = f"a message of {match.group(1).decode()} bytes announced (the limit is {self.max_message})"
            logger.error("stopping: %s", self.ended)
            return b""
        return line

    def read(self, size: int = -1) -> bytes:
        if self.ended:
            return b""
        if size < 0 or size > self.max_message:  # readline lets no such length through
            return b""
        return self.raw.read(size)


class _OneLine(logging.Formatter):
    """``hermes-lint lsp: message`` and, for an exception, its type and text only."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"hermes-lint lsp: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f" ({type(error).__name__}: {error})"
        return text

    def formatException(self, ei) -> str:  # noqa: N802 - logging's name
        return ""


def log_to_stderr(level: int = logging.WARNING) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    for name in ("pygls", "hermes_lint.lsp"):
        named = logging.getLogger(name)
        named.handlers[:] = [handler]
        named.setLevel(level)
        named.propagate = False
