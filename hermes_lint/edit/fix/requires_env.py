"""HRM203's fix: a variable that is read but not listed goes into the ``requires_env`` list
literal of each tool the finding names (the keyword is added when the call has none)."""

from __future__ import annotations

from typing import List, Optional

from hermes_lint.edit.fix.edits import Edit
from hermes_lint.edit.fix.source import FixSource
from hermes_lint.edit.fix.transforms import add_to_string_list, register_calls, registered_name


def add_required_variable(diagnostic, source: FixSource) -> Optional[List[Edit]]:
    """The edits for ``diagnostic`` (its fix data: the variable, and the tools by name or, for
    a name not known statically, by the line of the register call); None when a tool's
    ``requires_env`` is not a list literal. "Listed but never checked" carries no variable and
    has no fix: the read may be elsewhere."""
    variable = diagnostic.fix_value("variable")
    if variable is None:
        return None
    names = {value for key, value in diagnostic.fix_data if key == "tool"}
    lines = {int(value) for key, value in diagnostic.fix_data if key == "line"}
    path = diagnostic.path
    edits = []
    for start, call in register_calls(source, path):
        if registered_name(call) in names or start in lines:
            edit = add_to_string_list(source, path, call, "requires_env", variable)
            if edit is None:
                return None
            edits.append(edit)
    return edits or None
