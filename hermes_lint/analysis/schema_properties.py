"""The properties a registration's schema declares, and whether they are the ones the model gets.

Shared by the rules that compare a handler's ``args`` reads with its schema (HRM107, HRM108).
"""

from __future__ import annotations

from typing import Optional

from hermes_lint.model.callables import REGISTER_PARAMETERS
from hermes_lint.model import Registration


def declared_properties(registration: Registration) -> Optional[dict]:
    """``parameters.properties`` when the schema is resolved and it is a dict of named properties."""
    schema = registration.schema
    parameters = schema.get("parameters") if isinstance(schema, dict) else None
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    if isinstance(properties, dict) and all(isinstance(k, str) for k in properties):
        return properties
    return None


def schema_is_fixed(registration: Registration) -> bool:
    """The properties seen here are the ones the model gets: no run-time overrides, or
    overrides that never replace ``parameters`` (a description that names the active backend)."""
    overrides_position = REGISTER_PARAMETERS.index("dynamic_schema_overrides")
    return (
        not registration.overrides_may_change("parameters")
        and registration.positional_args <= overrides_position
        and not registration.has_star_args
    )


def offered_properties(registration: Registration, properties: dict, every_path: bool) -> Optional[dict]:
    """Of the declared ``properties``, those the model is offered: all of them when the schema
    is fixed; when ``dynamic_schema_overrides`` can only keep or drop them, all of them (the
    names it may be offered: ``every_path`` False) or the ones it keeps on every path (True);
    None when the overrides may offer others."""
    if schema_is_fixed(registration):
        return properties
    kept = registration.override_kept_properties
    overrides_position = REGISTER_PARAMETERS.index("dynamic_schema_overrides")
    if kept is None or registration.has_star_args or registration.positional_args > overrides_position:
        return None
    return {name: value for name, value in properties.items() if name in kept} if every_path else properties
