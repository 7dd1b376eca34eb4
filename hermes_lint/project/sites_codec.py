"""``registration_sites.PluginSites`` as JSON and back (``sites_record`` keeps it): each value
of its frozen dataclasses named by its class, every tuple a list. Decoding builds only those
classes, so that a tampered record can build nothing else."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, Dict, Optional, Tuple


# The classes a record may name, and their modules: imported when a record names one.
_CLASS_MODULES = {
    "PluginSites": "hermes_lint.project.registration_sites",
    "FollowedPlugin": "hermes_lint.project.followed_plugins",
    "RegisterFunction": "hermes_lint.project.followed_plugins",
    "Unfollowed": "hermes_lint.project.followed_plugins",
    "EntryPoint": "hermes_lint.project.plugins",
    "PluginSpec": "hermes_lint.project.plugins",
}


class _Classes(dict):
    """The allow-list of ``_CLASS_MODULES``: name -> (the class, its field names), each class
    imported on first use."""

    def __missing__(self, name: str) -> Tuple[type, Tuple[str, ...]]:
        import importlib

        cls = getattr(importlib.import_module(_CLASS_MODULES[name]), name)
        self[name] = found = (cls, tuple(f.name for f in fields(cls)))
        return found


def _classes() -> Dict[str, Tuple[type, Tuple[str, ...]]]:
    return _Classes()


def encode_sites(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {"@": type(value).__name__, **{f.name: encode_sites(getattr(value, f.name)) for f in fields(value)}}
    if isinstance(value, tuple):
        return [encode_sites(item) for item in value]
    if value is None or isinstance(value, (str, int, bool)):
        return value
    raise TypeError(f"cannot record {type(value).__name__}")


def decode_sites(data: Any, classes: Optional[Dict[str, Tuple[type, Tuple[str, ...]]]] = None) -> Any:
    classes = classes if classes is not None else _classes()
    if isinstance(data, dict):
        cls, names = classes[data["@"]]
        return cls(**{name: decode_sites(data[name], classes) for name in names})
    if isinstance(data, list):
        return tuple(decode_sites(item, classes) for item in data)
    if data is None or isinstance(data, (str, int, bool)):
        return data
    raise ValueError("not a recorded value")
