"""``ToolEntry``: one registered tool's record, and the shape ``register`` requires of a schema.

Every start builds one per manifest tool, so it is as small as a record can be.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any


class ToolEntry:
    """One registered tool. ``__slots__`` keeps ~100 entries small and their fields fixed."""

    __slots__ = (
        "name",
        "toolset",
        "schema",
        "handler",
        "check_fn",
        "requires_env",
        "is_async",
        "description",
        "emoji",
        "max_result_size_chars",
        "dynamic_schema_overrides",
    )

    def __init__(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., object],
        check_fn: Callable[[], object] | None = None,
        requires_env: list[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        max_result_size_chars: int | float | None = None,
        dynamic_schema_overrides: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.name = name
        self.toolset = toolset
        self.schema = schema
        self.handler = handler
        self.check_fn = check_fn
        self.requires_env = list(requires_env or ())
        self.is_async = is_async
        self.description = description
        self.emoji = emoji
        self.max_result_size_chars = max_result_size_chars
        self.dynamic_schema_overrides = dynamic_schema_overrides

    def __repr__(self) -> str:
        return f"ToolEntry(name={self.name!r}, toolset={self.toolset!r})"


def check_schema_shape(name: str, schema: object) -> None:
    if not isinstance(schema, dict):
        raise TypeError(f"Tool '{name}': schema must be a dict, got {type(schema).__name__}")
    parameters = schema.get("parameters")
    if "parameters" in schema and not isinstance(parameters, dict):
        raise TypeError(
            f"Tool '{name}': schema['parameters'] must be a dict, got {type(parameters).__name__}"
        )
