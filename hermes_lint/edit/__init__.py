"""Edit: changing source with its formatting and comments kept — the edits a rule's fix is made
of and applies (fix/: ``Edit``, ``Fix``, the libcst view of a file being fixed, the transforms
rules compose, ``# noqa`` comment edits), whether a finding has a fix without libcst
(``fixable``), string literals, and toolsets.py's list edits. The
commands that write files with them are ``scaffold`` and ``check --fix`` (``autofix``)."""
