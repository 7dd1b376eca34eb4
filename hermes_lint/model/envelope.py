"""A schema written as a whole OpenAI tool definition instead of the function object in it.

Hermes builds what the model sees itself: ``ToolRegistry.get_definitions`` (``tools/registry.py``)
returns ``{"type": "function", "function": {**schema, "name": name}}`` for each tool. A ``schema=``
that already is ``{"type": "function", "function": {...}}`` is wrapped a second time: the
function object the model gets holds ``type``, ``function`` and ``name`` and no ``description``
or ``parameters``. HRM304 names the envelope; the findings it implies (no top-level
``description``, no ``parameters``) are left to it.
"""

from __future__ import annotations

from typing import Any


def is_openai_envelope(schema: Any) -> bool:
    """``schema`` is ``{"type": "function", "function": {...}}`` with no ``parameters`` of its own."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "function"
        and isinstance(schema.get("function"), dict)
        and "parameters" not in schema
    )
