"""The fix of HRM203 "read but not listed": the variable goes into the ``requires_env`` list
literal of each tool the finding names (the keyword is added when the call has none). A tool
named by position ("registered at line N") is found by its line; a ``requires_env`` that is not a
list literal has no fix."""

from __future__ import annotations

import re

from hermes_lint.edit.fix.transforms import add_to_string_list, register_calls, registered_name


def add_read_variable(diagnostic, source):
    message = diagnostic.message
    found = re.match(r"`([^`]+)` is required by .* of (tools? .+)$", message) or re.match(
        r"handler of (tools? .+?) needs `([^`]+)`", message
    )
    if found is None:
        return None
    variable, label = found.groups() if message.startswith("`") else found.groups()[::-1]
    names = set(re.findall(r"`([^`]+)`", label))
    lines = {int(n) for n in re.findall(r"registered at line (\d+)", label)}
    path = diagnostic.path
    edits = []
    for start, call in register_calls(source, path):
        if registered_name(call) in names or start in lines:
            edit = add_to_string_list(source, path, call, "requires_env", variable)
            if edit is None:
                return None
            edits.append(edit)
    return edits or None
