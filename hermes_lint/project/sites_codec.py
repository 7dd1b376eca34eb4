"""``registration_sites.PluginSites`` as JSON and back (``sites_record`` keeps it): each value
of its frozen dataclasses named by its class, every tuple a list. Decoding builds only those
classes, so that a tampered record can build nothing else."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, Dict, Optional


def _classes() -> Dict[str, type]:
    from hermes_lint.project.plugin_register import FollowedPlugin, RegisterFunction, Unfollowed
    from hermes_lint.project.plugins import EntryPoint, PluginSpec
    from hermes_lint.project.registration_sites import PluginSites

    return {c.__name__: c for c in (PluginSites, FollowedPlugin, RegisterFunction, Unfollowed, EntryPoint, PluginSpec)}


def encode_sites(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {"@": type(value).__name__, **{f.name: encode_sites(getattr(value, f.name)) for f in fields(value)}}
    if isinstance(value, tuple):
        return [encode_sites(item) for item in value]
    if value is None or isinstance(value, (str, int, bool)):
        return value
    raise TypeError(f"cannot record {type(value).__name__}")


def decode_sites(data: Any, classes: Optional[Dict[str, type]] = None) -> Any:
    classes = classes if classes is not None else _classes()
    if isinstance(data, dict):
        cls = classes[data["@"]]
        return cls(**{f.name: decode_sites(data[f.name], classes) for f in fields(cls)})
    if isinstance(data, list):
        return tuple(decode_sites(item, classes) for item in data)
    if data is None or isinstance(data, (str, int, bool)):
        return data
    raise ValueError("not a recorded value")
