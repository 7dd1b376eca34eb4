"""Fixing what the rules find: ``check --fix``, ``--unsafe-fixes``, ``--diff`` and ``--add-noqa``.

A rule that can fix its findings says so in its own file (``Rule.fix_applicability`` and the
``Rule.fix`` class method, next to its examples); this package holds the machinery they share:

- ``edits``: the data (``Edit``, ``Fix``) and applying non-overlapping edits to a text;
- ``source``: the project's files as they are being fixed, parsed with libcst on demand, with
  the positions of their nodes (a finding's location names the node a fix edits);
- ``run``: the loop that checks, fixes and checks again until nothing changes (bounded);
- ``noqa_add``: ``--add-noqa``;
- ``command``: what ``hermes-lint check`` does with those options (reading and writing files).

Nothing here is imported by a plain ``check``: libcst is loaded only when fixes are asked for
(``--fix``, ``--diff``) or shown (``--format json|sarif``).
"""
