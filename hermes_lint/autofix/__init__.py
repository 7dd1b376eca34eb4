"""Fixing what the rules find: ``check --fix``, ``--unsafe-fixes``, ``--diff`` and ``--add-noqa``,
over the edits of ``hermes_lint.edit.fix``:

- ``run``: the loop that checks, fixes and checks again until nothing changes (bounded);
- ``command``: what ``hermes-lint check`` does with those options (reading and writing files,
  the manifest regenerated when the project has one).

The click options' handling is ``cli.fix``. Nothing here is imported by a plain ``check``.
"""
