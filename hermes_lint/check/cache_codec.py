"""The cache's encoding: plain data and the toolkit's own data classes as JSON, and back.

A dataclass is ``{"$c": name, "f": [fields]}``, a tuple ``{"$t": [...]}`` (a tuple of ``(path,
Location)`` pairs, as ``schema_locations``, ``{"$L": [[*path, line, col], ...]}``), a set ``{"$s":
[...]}``, a dict with a non-string key or a tag key ``{"$d": [[k, v], ...]}``; any other dict is a
JSON object. Decoding is one ``json.loads`` with an ``object_hook``: the tags are resolved while
the C parser builds the objects, not by a second walk in Python. Only the classes of an
allow-list are rebuilt: a cache that arrives with a repository is data, never code.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict

from hermes_lint import model

# Only these classes may be rebuilt from a cache entry (filled on first use: ``allow_model_classes``).
_CLASSES: Dict[str, type] = {}


def allow_model_classes() -> None:
    if not _CLASSES:
        from hermes_lint.noqa import NoqaComment  # not needed by a warm run: imported here

        for cls in (
            model.Location,
            model.Unresolved,
            model.Hole,
            model.Diagnostic,
            model.CallableRef,
            model.Keyword,
            model.Registration,
            model.MisplacedRegisterCall,
            model.EnvRead,
            model.ModuleFacts,
            NoqaComment,
        ):
            _CLASSES[cls.__name__] = cls


_TAGS = frozenset({"$c", "$t", "$d", "$s", "$L"})


def encode(value: Any) -> Any:
    """Plain data -> JSON-able, keeping tuples, non-string dict keys and the model's classes."""
    allow_model_classes()
    return encode_value(value)


def encode_value(value: Any) -> Any:
    """``encode`` without the allow-list's set-up (``allow_model_classes`` first)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [encode_value(item) for item in value]
    if isinstance(value, tuple):
        if value and all(_is_located_path(item) for item in value):
            # ``Registration.schema_locations``: dozens per tool; one tag, not three per entry.
            return {"$L": [[*path, where.line, where.col] for path, where in value]}
        return {"$t": [encode_value(item) for item in value]}
    if isinstance(value, dict):
        if all(type(key) is str for key in value) and _TAGS.isdisjoint(value):
            return {key: encode_value(item) for key, item in value.items()}
        return {"$d": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and _CLASSES.get(type(value).__name__) is type(value):
        return {"$c": type(value).__name__, "f": [encode_value(getattr(value, f.name)) for f in dataclasses.fields(value)]}
    if isinstance(value, (set, frozenset)):
        return {"$s": [encode_value(item) for item in value]}
    raise TypeError(f"cannot cache a {type(value).__name__}")


_SCALARS = (str, int, float, bool, type(None))  # what JSON gives back as it was


def _is_located_path(item: Any) -> bool:
    """``(path, Location)`` with a path of JSON scalars: encoded flat as ``[*path, line, col]``."""
    return (
        type(item) is tuple
        and len(item) == 2
        and type(item[0]) is tuple
        and type(item[1]) is model.Location
        and type(item[1].line) is int
        and type(item[1].col) is int
        and not item[1].path  # one in another file: encoded whole
        and all(type(part) in _SCALARS for part in item[0])
    )


def _object_hook(obj: Dict[str, Any]) -> Any:
    # Called bottom-up by the JSON parser: the members are already decoded.
    if len(obj) <= 2:
        if "$c" in obj:
            return _CLASSES[obj["$c"]](*obj["f"])  # KeyError for anything not allowed
        if "$t" in obj:
            return tuple(obj["$t"])
        if "$L" in obj:
            location = model.Location
            return tuple((tuple(entry[:-2]), location(entry[-2], entry[-1])) for entry in obj["$L"])
        if "$d" in obj:
            return {key: value for key, value in obj["$d"]}
        if "$s" in obj:
            return frozenset(obj["$s"])
    return obj


def loads(text: str) -> Any:
    """``json.loads`` of an ``encode``d value, rebuilding tuples, dicts, sets and model classes."""
    allow_model_classes()
    return json.loads(text, object_hook=_object_hook)


def sha256_hex(data: bytes) -> str:
    import hashlib  # not on the warm path (loading OpenSSL costs more than the rest of a lookup)

    return hashlib.sha256(data).hexdigest()


def allow_classes(**classes: type) -> None:
    """Add classes that may be rebuilt (the toolsets' facts, whose module imports the evaluator)."""
    allow_model_classes()
    _CLASSES.update(classes)


DECODER = json.JSONDecoder(object_hook=_object_hook)
