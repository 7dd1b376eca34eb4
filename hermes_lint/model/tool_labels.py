"""How findings name a tool: by its registered name, or by where it is registered when the
name is not a constant."""

from __future__ import annotations

from hermes_lint.model import Registration


def tool_label(registration: Registration) -> str:
    name = registration.name
    return f"`{name}`" if isinstance(name, str) else f"registered at line {registration.location.line}"
