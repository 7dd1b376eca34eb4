"""Labelling the changes between two tool manifests for people and CI.

``label_changes(old, new)`` compares two manifests (the parsed JSON) and returns one ``Change``
per difference a caller of the tools would notice, labelled:

- ``breaking``: a call that worked against the old tools can fail against the new ones — a tool
  removed or renamed, a property removed, a property newly required (or a new required one), a
  type changed or narrowed, an enum narrowed, a constraint tightened (a higher ``minimum``, a
  new ``pattern``, ``additionalProperties`` closed...), a toolset that dropped a tool or is gone;
- ``compatible``: every old call still works — a tool or an optional property added, an enum
  or a type widened, a constraint loosened, a property no longer required, a description or a
  default changed, a toolset that gained a tool or is new;
- ``unknown``: the manifests cannot tell — a tool that disappeared from the frozen tools while
  its module became import-only (it may still register the tool; so may a toolset that lists
  only frozen tools, as a plugin manifest's do), or a schema keyword whose
  change this module does not judge (``not``, ``if``/``then``/``else``, ``patternProperties``...).

A rename is a removed tool and an added one with the same module and the same ``parameters``:
it is reported once, as "tool renamed". What only the runtime sees (handler, check form,
``requires_env``, source lines, hashes) is not a change to the tools' contract and is not
labelled. ``format_changes`` renders the list as text; ``hermes-lint diff OLD NEW`` and
``hermes-lint manifest --diff`` print it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from hermes_lint.regular_files import read_regular_file
from hermes_lint.model.schema_walk import JSON_TYPES, json_equal, json_text, parameter_label

BREAKING, COMPATIBLE, UNKNOWN = "breaking", "compatible", "unknown"
LABELS = (BREAKING, COMPATIBLE, UNKNOWN)
MANIFEST_FORMAT = "hermes-tool-manifest"  # hermes_lint.manifest.generate.FORMAT (kept import-free here)
# A plugin project's manifest (``manifest.plugin_manifest.FORMAT``): the same tool records.
PLUGIN_MANIFEST_FORMAT = "hermes-plugin-tool-manifest"

# A higher lower bound or a lower upper bound accepts fewer values.
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
# Present means "restricted": adding one narrows, removing one widens, changing one may do either.
_RESTRICTIONS = ("pattern", "format", "const", "multipleOf", "uniqueItems", "$ref", "propertyNames")
# Words for people: changing them changes no call's validity.
_ANNOTATIONS = frozenset({
    "description", "title", "default", "examples", "example", "$comment", "deprecated", "readOnly",
    "writeOnly", "propertyOrdering", "$schema", "$id", "$anchor", "contentMediaType", "contentEncoding",
})
_HANDLED = frozenset({
    "type", "enum", "properties", "required", "items", "additionalProperties", "anyOf", "oneOf", "allOf",
    "$defs", "definitions",
}) | frozenset(_LOWER_BOUNDS) | frozenset(_UPPER_BOUNDS) | frozenset(_RESTRICTIONS) | _ANNOTATIONS


class ManifestError(ValueError):
    """A file that is not a readable hermes tool manifest."""


@dataclass(frozen=True)
class Change:
    label: str  # breaking | compatible | unknown
    kind: str  # "tool removed", "property newly required", "enum narrowed", ...
    tool: str  # the tool concerned ("" for a toolset change)
    where: str  # the parameter (``filter.mode``, ``rows[]``), the toolset, or ""
    message: str  # one line, complete

    def as_json(self) -> Dict[str, str]:
        return asdict(self)


# --------------------------------------------------------------------------- entry points


def load_manifest(path: Path) -> Dict[str, Any]:
    try:
        data = json.loads(read_regular_file(path).decode("utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such file") from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path}: not readable JSON ({exc})") from None
    except RecursionError:
        raise ManifestError(f"{path}: not readable JSON (nested too deeply)") from None
    _require_manifest(data, str(path))
    return data


def label_changes(old: Dict[str, Any], new: Dict[str, Any]) -> List[Change]:
    """Every labelled change from ``old`` to ``new`` (both parsed manifests): tools by name,
    then toolsets by name."""
    _require_manifest(old, "old manifest")
    _require_manifest(new, "new manifest")
    changes: List[Change] = []
    old_tools, new_tools = old.get("tools") or {}, new.get("tools") or {}
    removed = sorted(set(old_tools) - set(new_tools))
    added = sorted(set(new_tools) - set(old_tools))
    renamed = _renames(removed, added, old_tools, new_tools)
    newly_import_only = set(new.get("import_only") or {}) - set(old.get("import_only") or {})
    unfrozen: Set[str] = set()  # tools gone from the manifest whose module is import-only now
    for name in sorted(set(old_tools) | set(new_tools)):
        if name in renamed:
            changes.append(Change(BREAKING, "tool renamed", name, "", f"tool `{name}` renamed to `{renamed[name]}`"))
        elif name in removed:
            module = old_tools[name].get("module")
            if module in newly_import_only or module in (new.get("import_only") or {}):
                unfrozen.add(name)
                changes.append(Change(
                    UNKNOWN, "tool no longer frozen", name, "",
                    f"tool `{name}` is no longer in the manifest: its module `{module}` is import-only now, "
                    "so only the import can tell whether it still registers it",
                ))
            else:
                changes.append(Change(BREAKING, "tool removed", name, "", f"tool `{name}` removed"))
        elif name in added:
            if name not in renamed.values():
                changes.append(Change(COMPATIBLE, "tool added", name, "", f"tool `{name}` added"))
        else:
            changes.extend(_tool_changes(name, old_tools[name], new_tools[name]))
    changes.extend(_toolset_changes(old.get("toolsets"), new.get("toolsets"), frozenset(unfrozen)))
    return changes


def count(changes: Iterable[Change]) -> Dict[str, int]:
    totals = {label: 0 for label in LABELS}
    for change in changes:
        totals[change.label] += 1
    return totals


def format_changes(changes: Sequence[Change], old_name: str = "old", new_name: str = "new") -> str:
    """One line per change (label, then message) and a summary line; ends with a newline."""
    if not changes:
        return f"no changes to the tools between {old_name} and {new_name}\n"
    width = max(len(label) for label in LABELS)
    lines = [f"{change.label:<{width}}  {change.message}" for change in changes]
    totals = count(changes)
    summary = ", ".join(f"{totals[label]} {label}" for label in LABELS if totals[label])
    lines.append(f"{len(changes)} change{'s' if len(changes) != 1 else ''} from {old_name} to {new_name}: {summary}")
    return "\n".join(lines) + "\n"


def fails(changes: Iterable[Change], fail_on: Optional[str]) -> bool:
    """Whether ``--fail-on`` (breaking | unknown | any) is met."""
    if fail_on is None:
        return False
    failing = {"breaking": {BREAKING}, "unknown": {BREAKING, UNKNOWN}, "any": set(LABELS)}[fail_on]
    return any(change.label in failing for change in changes)


# --------------------------------------------------------------------------- tools


def _require_manifest(data: Any, what: str) -> None:
    if not isinstance(data, dict) or data.get("format") not in (MANIFEST_FORMAT, PLUGIN_MANIFEST_FORMAT):
        raise ManifestError(f"{what}: not a hermes tool manifest (format is not {MANIFEST_FORMAT!r})")
    if not isinstance(data.get("tools"), dict):
        raise ManifestError(f"{what}: has no `tools` table")


def _parameters(tool: Any) -> Any:
    schema = tool.get("schema") if isinstance(tool, dict) else None
    return schema.get("parameters") if isinstance(schema, dict) else None


def _renames(removed, added, old_tools, new_tools) -> Dict[str, str]:
    pairs: Dict[str, str] = {}
    taken = set()
    for old_name in removed:
        for new_name in added:
            if new_name in taken:
                continue
            before, after = old_tools[old_name], new_tools[new_name]
            if before.get("module") == after.get("module") and json_equal(_parameters(before), _parameters(after)):
                pairs[old_name] = new_name
                taken.add(new_name)
                break
    return pairs


def _tool_changes(name: str, old: Dict[str, Any], new: Dict[str, Any]) -> List[Change]:
    changes: List[Change] = []
    if old.get("description") != new.get("description"):
        changes.append(Change(COMPATIBLE, "description changed", name, "", f"`{name}`: description changed"))
    limit_before, limit_after = old.get("max_result_size_chars"), new.get("max_result_size_chars")
    if not _unchanged(limit_before, limit_after):
        text = f"`{name}`: max_result_size_chars {_show(limit_before)} → {_show(limit_after)}"
        if all(value is None or _is_number(value) for value in (limit_before, limit_after)):
            changes.append(Change(COMPATIBLE, "result limit changed", name, "", text))
        else:
            changes.append(Change(BREAKING, "result limit invalid", name, "", text + " (not a finite number)"))
    before, after = _parameters(old), _parameters(new)
    if isinstance(before, dict) and isinstance(after, dict):
        _SchemaDiff(name, changes).node(before, after, ("parameters",))
    elif not json_equal(before, after):
        changes.append(Change(UNKNOWN, "parameters changed", name, "", f"`{name}`: parameters changed"))
    return changes


class _SchemaDiff:
    """Walks two versions of one tool's ``parameters`` side by side."""

    def __init__(self, tool: str, out: List[Change]):
        self.tool = tool
        self.out = out

    def add(self, label: str, kind: str, path: Tuple[Any, ...], text: str) -> None:
        where = parameter_label(path)
        self.out.append(Change(label, kind, self.tool, where, f"`{self.tool}`: {text}"))

    def node(self, old: Dict[str, Any], new: Dict[str, Any], path: Tuple[Any, ...]) -> None:
        if json_equal(old, new):
            return
        shown = f"`{parameter_label(path)}`"
        self._types(old, new, path, shown)
        self._enum(old, new, path, shown)
        self._bounds(old, new, path, shown)
        self._restrictions(old, new, path, shown)
        self._closed(old, new, path, shown)
        self._properties(old, new, path)
        self._items(old, new, path, shown)
        self._branches(old, new, path, shown)
        self._definitions(old, new, path)
        for keyword in ("description", "default"):
            if keyword in old or keyword in new:
                if not json_equal(old.get(keyword), new.get(keyword)):
                    self.add(COMPATIBLE, f"{keyword} changed", path, f"{keyword} of {shown} changed")
        for keyword in sorted((set(old) | set(new)) - _HANDLED):
            if not json_equal(old.get(keyword), new.get(keyword)):
                self.add(UNKNOWN, "schema keyword changed", path, f"`{keyword}` of {shown} changed (not judged)")

    def _types(self, old, new, path, shown) -> None:
        before, after = _type_set(old), _type_set(new)
        if before == after:
            return
        text = f"type of {shown} changed from {_show_types(before)} to {_show_types(after)}"
        if after is None or (before is not None and before <= after):
            self.add(COMPATIBLE, "type widened", path, text)
        else:
            self.add(BREAKING, "type changed", path, text)

    def _enum(self, old, new, path, shown) -> None:
        before, after = old.get("enum"), new.get("enum")
        if json_equal(before, after):
            return
        if isinstance(before, list) and isinstance(after, list):
            lost = [v for v in before if not any(json_equal(v, w) for w in after)]
            gained = [v for v in after if not any(json_equal(v, w) for w in before)]
            if lost:
                self.add(BREAKING, "enum narrowed", path, f"enum of {shown} no longer accepts {_values(lost)}")
            elif gained:
                self.add(COMPATIBLE, "enum widened", path, f"enum of {shown} now also accepts {_values(gained)}")
        elif isinstance(after, list):
            self.add(BREAKING, "enum narrowed", path, f"{shown} is now restricted to {json_text(after)}")
        elif isinstance(before, list):
            self.add(COMPATIBLE, "enum widened", path, f"{shown} is no longer restricted to {json_text(before)}")

    def _bounds(self, old, new, path, shown) -> None:
        for keyword in _LOWER_BOUNDS + _UPPER_BOUNDS:
            before, after = old.get(keyword), new.get(keyword)
            if _unchanged(before, after):
                continue
            text = f"`{keyword}` of {shown} {_show(before)} → {_show(after)}"
            if not all(value is None or _is_number(value) for value in (before, after)):
                # `"600"`, NaN, a list: no longer (or not yet) a bound a provider accepts
                self.add(BREAKING, "constraint changed", path, text + " (not a finite number)")
                continue
            upper = keyword in _UPPER_BOUNDS
            if before is None:
                tighter = True
            elif after is None:
                tighter = False
            else:
                tighter = after < before if upper else after > before
            if tighter:
                self.add(BREAKING, "constraint tightened", path, text)
            else:
                self.add(COMPATIBLE, "constraint loosened", path, text)

    def _restrictions(self, old, new, path, shown) -> None:
        for keyword in _RESTRICTIONS:
            if keyword not in old and keyword not in new:
                continue
            before, after = old.get(keyword), new.get(keyword)
            if json_equal(before, after):
                continue
            text = f"`{keyword}` of {shown} {_show(before)} → {_show(after)}"
            if keyword not in new or (keyword == "uniqueItems" and after is False):
                self.add(COMPATIBLE, "constraint loosened", path, text)
            elif keyword not in old:
                self.add(BREAKING, "constraint tightened", path, text)
            else:  # another pattern, format, const or $ref: cannot tell which accepts more
                self.add(BREAKING, "constraint changed", path, text)

    def _closed(self, old, new, path, shown) -> None:
        before, after = old.get("additionalProperties", True), new.get("additionalProperties", True)
        if json_equal(before, after):
            return
        if after is False:
            self.add(BREAKING, "constraint tightened", path, f"{shown} no longer accepts undeclared properties")
        elif before is False:
            self.add(COMPATIBLE, "constraint loosened", path, f"{shown} now accepts undeclared properties")
        elif isinstance(before, dict) and isinstance(after, dict):
            self.node(before, after, path + ("additionalProperties",))
        else:
            self.add(UNKNOWN, "schema keyword changed", path, f"`additionalProperties` of {shown} changed (not judged)")

    def _properties(self, old, new, path) -> None:
        before = old.get("properties") if isinstance(old.get("properties"), dict) else {}
        after = new.get("properties") if isinstance(new.get("properties"), dict) else {}
        old_required, new_required = _required(old), _required(new)
        for name in before:
            child = path + ("properties", name)
            shown = f"`{parameter_label(child)}`"
            if name not in after:
                self.add(BREAKING, "property removed", child, f"property {shown} removed")
                continue
            if name in new_required and name not in old_required:
                self.add(BREAKING, "property newly required", child, f"property {shown} is now required")
            elif name in old_required and name not in new_required:
                self.add(COMPATIBLE, "property no longer required", child, f"property {shown} is no longer required")
            if isinstance(before[name], dict) and isinstance(after[name], dict):
                self.node(before[name], after[name], child)
            elif not _unchanged(before[name], after[name]):
                self._replaced(before[name], after[name], child, shown)
        for name in after:
            if name in before:
                continue
            child = path + ("properties", name)
            shown = f"`{parameter_label(child)}`"
            if name in new_required:
                self.add(BREAKING, "property newly required", child, f"required property {shown} added")
            else:
                self.add(COMPATIBLE, "optional property added", child, f"optional property {shown} added")

    def _replaced(self, before, after, path, shown) -> None:
        """A property schema replaced by, or replacing, one that is not an object."""
        text = f"schema of {shown} {json_text(before)} → {json_text(after)}"
        if after is True or (isinstance(before, dict) and after == {}):
            self.add(COMPATIBLE, "constraint loosened", path, text)
        elif isinstance(after, (dict, bool)):
            self.add(UNKNOWN, "schema keyword changed", path, text + " (not judged)")
        else:  # a string, a number, null: not a schema; providers reject the tool
            self.add(BREAKING, "schema replaced", path, text + " (not a schema)")

    def _items(self, old, new, path, shown) -> None:
        before, after = old.get("items"), new.get("items")
        if isinstance(before, dict) and isinstance(after, dict):
            self.node(before, after, path + ("items",))
        elif before is None and isinstance(after, dict):
            self.add(BREAKING, "constraint tightened", path, f"items of {shown} are now constrained")
        elif isinstance(before, dict) and after is None:
            self.add(COMPATIBLE, "constraint loosened", path, f"items of {shown} are no longer constrained")
        elif not json_equal(before, after):
            self.add(UNKNOWN, "schema keyword changed", path, f"`items` of {shown} changed (not judged)")

    def _branches(self, old, new, path, shown) -> None:
        for keyword in ("anyOf", "oneOf", "allOf"):
            before, after = old.get(keyword) or [], new.get(keyword) or []
            if json_equal(before, after):
                continue
            kept = all(any(json_equal(b, a) for a in after) for b in before)
            dropped = all(any(json_equal(a, b) for b in before) for a in after)
            # More alternatives accept more; fewer allOf parts require less.
            widened = kept if keyword != "allOf" else dropped
            narrowed = dropped if keyword != "allOf" else kept
            if widened and before:
                self.add(COMPATIBLE, "alternatives widened", path, f"`{keyword}` of {shown} accepts more")
            elif narrowed:
                self.add(BREAKING, "alternatives narrowed", path, f"`{keyword}` of {shown} accepts less")
            else:
                self.add(BREAKING, "alternatives changed", path, f"`{keyword}` of {shown} changed")

    def _definitions(self, old, new, path) -> None:
        for keyword in ("$defs", "definitions"):
            before = old.get(keyword) if isinstance(old.get(keyword), dict) else {}
            after = new.get(keyword) if isinstance(new.get(keyword), dict) else {}
            for name in sorted(set(before) | set(after)):
                child = path + (keyword, name)
                if name not in after:
                    self.add(BREAKING, "definition removed", child, f"definition `{keyword}/{name}` removed")
                elif name in before and isinstance(before[name], dict) and isinstance(after[name], dict):
                    self.node(before[name], after[name], child)


def _required(schema: Dict[str, Any]) -> FrozenSet[str]:
    required = schema.get("required")
    return frozenset(r for r in required if isinstance(r, str)) if isinstance(required, list) else frozenset()


def _type_set(schema: Dict[str, Any]) -> Optional[FrozenSet[str]]:
    """The declared types (None: any type); an integer is a number, so "number" covers it."""
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list) or not all(isinstance(n, str) and n in JSON_TYPES for n in names):
        return None
    types = set(names)
    if schema.get("nullable") is True:  # OpenAPI's spelling of ["T", "null"]
        types.add("null")
    if "number" in types:
        types.add("integer")
    return frozenset(types)


def _show_types(types: Optional[FrozenSet[str]]) -> str:
    if types is None:
        return "any"
    shown = sorted(types - {"integer"} if "number" in types else types)
    return " or ".join(shown)


def _unchanged(a: Any, b: Any) -> bool:
    """``json_equal``, with a NaN (not JSON, but Python writes it) equal to itself."""
    return json_equal(a, b) or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _show(value: Any) -> str:
    return "(none)" if value is None else json_text(value)


def _values(values: List[Any]) -> str:
    return ", ".join(json_text(v) for v in values[:5]) + (f" and {len(values) - 5} more" if len(values) > 5 else "")


# --------------------------------------------------------------------------- toolsets


def _toolset_changes(old: Any, new: Any, unfrozen: FrozenSet[str] = frozenset()) -> List[Change]:
    """``unfrozen``: tools no longer in the new manifest because their module is import-only;
    a toolset that lost only those may still have them (as their modules' import decides)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        if isinstance(old, dict) and old and new is None:
            return [Change(UNKNOWN, "toolsets not readable", "", "",
                           "toolsets.py could not be read statically for the new manifest: toolset changes unknown")]
        return []
    changes: List[Change] = []
    for toolset in sorted(set(old) | set(new)):
        before = old.get(toolset)
        after = new.get(toolset)
        if after is None:
            if before and all(tool in unfrozen for tool in before):
                changes.append(Change(UNKNOWN, "toolset no longer frozen", "", toolset,
                                      f"toolset `{toolset}` is no longer in the manifest: the modules of its "
                                      "tools are import-only now, so only the import can tell what it includes"))
            else:
                changes.append(Change(BREAKING, "toolset removed", "", toolset, f"toolset `{toolset}` removed"))
            continue
        if before is None:
            changes.append(Change(COMPATIBLE, "toolset added", "", toolset, f"toolset `{toolset}` added"))
            continue
        for tool in before:
            if tool not in after and tool in unfrozen:
                changes.append(Change(UNKNOWN, "toolset tool no longer frozen", tool, toolset,
                                      f"toolset `{toolset}` no longer lists `{tool}`, whose module is import-only "
                                      "now: only the import can tell whether it still includes it"))
            elif tool not in after:
                changes.append(Change(BREAKING, "toolset dropped a tool", tool, toolset,
                                      f"toolset `{toolset}` no longer includes `{tool}`"))
        for tool in after:
            if tool not in before:
                changes.append(Change(COMPATIBLE, "toolset added a tool", tool, toolset,
                                      f"toolset `{toolset}` now includes `{tool}`"))
    return changes


__all__ = [
    "BREAKING",
    "COMPATIBLE",
    "UNKNOWN",
    "Change",
    "ManifestError",
    "count",
    "fails",
    "format_changes",
    "label_changes",
    "load_manifest",
]
