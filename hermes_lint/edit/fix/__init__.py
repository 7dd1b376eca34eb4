"""What a fix is made of: the edits a rule that can fix its findings computes (``Rule.fix``,
next to its examples) and the machinery they share:

- ``edits``: the data (``Edit``, ``Fix``) and applying non-overlapping edits to a text;
- ``source``: the project's files as they are being fixed, parsed with libcst on demand, with
  the positions of their nodes (a finding's location names the node a fix edits);
- ``transforms``: the edits rules compose (replace a string, remove a list element, add a
  keyword or an import);
- ``noqa_edit``: adding codes to, and removing them from, ``# noqa`` comments.

The commands that apply them (``check --fix``, ``--unsafe-fixes``, ``--diff``, ``--add-noqa``)
are ``hermes_lint.autofix``. Nothing here is imported by a plain ``check``: libcst is loaded only
when fixes are asked for (``--fix``, ``--diff``) or shown (``--format json|sarif``,
``--show-fixes``), or when a finding's rule cannot tell from the syntax whether it has one
(``hermes_lint.edit.fixable``).
"""
