"""Freezing one tool module: each registration's tool record for the manifest (name, toolset,
schema with its holes, keyword values, handler reference, check form), or why the module must be
imported at run time instead (``hermes_lint.manifest.generate`` writes those as ``import_only``).

Only what is statically known and exactly representable in JSON is frozen: a value that might
differ from what the import registers makes the module import-only rather than guessed.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any, List, Optional, Tuple

from hermes_lint.model import Diagnostic, Hole, ModuleFacts, Registration, Unresolved, holes_in
from hermes_lint.model.callables import REGISTER_PARAMETERS, REQUIRED_PARAMETERS, register_argument
from hermes_lint.model.check_forms import classify_check
from hermes_lint.model.context import ModuleContext
from hermes_lint.project.plugin_rows import TABLE_ROW

# ToolEntry fields and register()'s defaults for the keywords the manifest records.
_DEFAULTS = {
    "requires_env": None,
    "is_async": False,
    "description": "",
    "emoji": "",
    "max_result_size_chars": None,
    "override": False,
}


class _ImportOnly(Exception):
    """This registration cannot be frozen; its module is imported at run time instead."""


def freeze_module(ctx: ModuleContext, facts: ModuleFacts, module: str):
    """(frozen tools with their registrations, import-only reasons, blocking problems)."""
    frozen: List[Tuple[dict, Registration]] = []
    reasons: List[str] = []
    problems: List[Diagnostic] = []
    calls = dict((id(reg), call) for reg, call in ctx.registration_calls())
    for registration in facts.registrations:
        call = calls.get(id(registration))
        try:
            if call is None:  # pragma: no cover - every registration has its call
                raise _ImportOnly("the register call could not be located")
            tool = _freeze(ctx, facts, module, registration, call, problems)
        except _ImportOnly as exc:
            reason = f"line {registration.location.line}: {exc}"
            if reason not in reasons:  # a loop's registrations share one call and its reason
                reasons.append(reason)
            continue
        if tool is not None:
            frozen.append((tool, registration))
    return frozen, reasons, problems


def _freeze(ctx, facts, module, registration: Registration, call: ast.Call, problems) -> Optional[dict]:
    _require_static_call(registration)
    name = _known(registration.name, "tool name")
    toolset = _known(registration.toolset, "toolset")
    if not isinstance(name, str) or not isinstance(toolset, str):
        raise _ImportOnly("the tool name or toolset is not a string")
    values = {key: registration.value(key, default) for key, default in _DEFAULTS.items()}
    for key, value in values.items():
        _known(value, key)
        if not _exact_json(value):
            raise _ImportOnly(f"{key} is not plain JSON data, so the manifest cannot carry it exactly")
    requires_env = values["requires_env"]
    if isinstance(requires_env, str):
        raise _ImportOnly("requires_env is a string (register() raises TypeError on it)")
    if requires_env is not None and not isinstance(requires_env, list):
        raise _ImportOnly("requires_env is not a list")
    handler = _handler_reference(ctx, module, call)
    check = classify_check(ctx, call)

    schema = registration.schema
    if not _schema_is_sound(schema):
        # register() raises TypeError: imported like import discovery, which loses the tool too
        raise _ImportOnly("the schema or its parameters is not a dict (HRM304)")
    schema, holes = _frozen_schema(schema)
    if not _exact_json(schema):
        raise _ImportOnly("the schema holds values JSON cannot carry exactly (a tuple, a non-string key, NaN or an infinite float such as 1e400)")

    dynamic = registration.has_dynamic_schema_overrides
    description = values["description"] or schema.get("description", "") or ""
    needs_import = dynamic or check["kind"] == "import" or any("reason" in hole for hole in holes)
    tool = {
        "name": name,
        "toolset": toolset,
        "module": module,
        "line": registration.location.line,
        "schema": schema,
        "description": description,
        "emoji": values["emoji"],
        "requires_env": list(requires_env or ()),
        "is_async": values["is_async"],
        "max_result_size_chars": values["max_result_size_chars"],
        "override": bool(values["override"]),
        "handler": handler,
        "check": check,
        "dynamic_schema_overrides": dynamic,
        # Said explicitly so a reader of the manifest knows what the runtime will do.
        "import_for_definitions": needs_import,
    }
    if holes:
        tool["holes"] = holes
    if not _encodable(facts, registration, tool, problems):
        return None
    return tool


def _encodable(facts: ModuleFacts, registration: Registration, tool: dict, problems) -> bool:
    """False (with an HRM701 problem) when a string of ``tool`` holds a lone surrogate (``"\\ud800"``
    is legal Python): not a character, UTF-8 cannot write it, and the manifest is UTF-8."""
    found = _surrogate_at(tool, ())
    if found is None:
        return True
    path, char = found
    location = (registration.schema_location(path[1:]) if path[:1] == ("schema",) else None) or registration.location
    shown = ".".join(str(part) for part in path)
    problems.append(
        Diagnostic(facts.path, location.line, location.col, "HRM701",
                   f"`{shown}` of tool `{tool['name']}` holds a lone surrogate U+{ord(char):04X}: not a "
                   "character, so the manifest (UTF-8) cannot hold it")
    )
    return False


def _surrogate_at(value: Any, path: Tuple) -> Optional[Tuple[Tuple, str]]:
    """(path, character) of the first lone surrogate in a string (or key) of ``value``."""
    if isinstance(value, str):
        for char in value if not value.isascii() else ():
            if 0xD800 <= ord(char) <= 0xDFFF:
                return path, char
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _surrogate_at(key, path + (key,)) or _surrogate_at(item, path + (key,))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _surrogate_at(item, path + (index,))
            if found is not None:
                return found
    return None


def _frozen_schema(schema: Any) -> Tuple[Any, List[dict]]:
    """The schema as JSON, each hole replaced by ``null``, and the holes: ``[{"path", "template"
    | "reason"}]``. A wholly unknown schema is ``{}`` with one hole at the empty path."""
    if isinstance(schema, Unresolved) and not isinstance(schema, Hole):
        return {}, [{"path": [], "reason": _hole_reason(schema)}]
    found = holes_in(schema)
    if not found:
        return schema, []
    holes = []
    for path, hole in found:
        if hole.template is not None and _exact_json(hole.template):
            holes.append({"path": list(path), "template": hole.template})
        else:
            holes.append({"path": list(path), "reason": _hole_reason(hole)})
    return _without_holes(schema), holes


def _hole_reason(hole: Unresolved) -> str:
    """The hole's reason and its line, said once: a reason that already names the line in this
    module ("RATIOS is mutated at line 5") gets no second "(line 5)"; a line of another module
    ("... at line 5 (in module tools.shared)": all the reason says is about that module) is not
    this one."""
    if hole.location is None:
        return hole.reason
    if " (in module " not in hole.reason and re.search(rf"\bline {hole.location.line}\b", hole.reason):
        return hole.reason
    return f"{hole.reason} (line {hole.location.line})"


def _known_part(value: Any) -> Any:
    """``value`` less its holes (dict entries and list items dropped): what can be validated."""
    if isinstance(value, dict):
        return {key: _known_part(item) for key, item in value.items() if not isinstance(item, Hole)}
    if isinstance(value, list):
        return [_known_part(item) for item in value if not isinstance(item, Hole)]
    return value


def _without_holes(value: Any) -> Any:
    if isinstance(value, Hole):
        return None
    if isinstance(value, dict):
        return {key: _without_holes(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_holes(item) for item in value]
    return value


def _require_static_call(registration: Registration) -> None:
    """register() must be callable exactly as written, or the import raises and the tool is absent."""
    if registration.has_star_args:
        raise _ImportOnly("register() arguments are spread with */** (HRM003)")
    if registration.positional_args > len(REGISTER_PARAMETERS):
        raise _ImportOnly("register() gets too many positional arguments (HRM004)")
    names = [kw.name for kw in registration.keywords]
    unknown = sorted(set(names) - set(REGISTER_PARAMETERS))
    if unknown:
        raise _ImportOnly(f"register() gets an unknown keyword `{unknown[0]}` (HRM004)")
    given = set(REGISTER_PARAMETERS[: registration.positional_args]) | set(names)
    if len(names) != len(set(names)) or len(given) != registration.positional_args + len(names):
        raise _ImportOnly("register() gets the same argument twice (HRM004)")
    missing = [p for p in REQUIRED_PARAMETERS if p not in given]
    if missing:
        raise _ImportOnly(f"register() misses the required argument `{missing[0]}` (HRM004)")


def _known(value: Any, what: str) -> Any:
    if isinstance(value, Unresolved):
        raise _ImportOnly(f"{what} cannot be determined statically ({value.reason}) (HRM003)")
    return value


def _handler_reference(ctx: ModuleContext, module: str, call: ast.Call):
    """``{"module", "qualname"}`` of a plain module function, else ``"via import"``.

    A name that does not certainly denote a module function (undefined, a call, a literal)
    would fail or surprise at import, so such a module is import-only rather than guessed.
    """
    node = register_argument(call, "handler")
    target = ctx.semantic.callable_node(node)
    if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {"module": module, "qualname": target.name}
    if isinstance(target, ast.Lambda):
        return "via import"
    if isinstance(node, ast.Name) and ctx.semantic.nested_function(node.id) is not None:
        return "via import"  # a closure: made when the function defining it runs
    if isinstance(node, ast.Name) and node.id.startswith(TABLE_ROW) and ctx.evaluator.holds_function(node.id):
        return "via import"  # a function a computed table holds (another module's, a closure)
    if isinstance(node, ast.Attribute) or (isinstance(node, ast.Name) and ctx.index.is_bound(node.id)):
        return "via import"  # another module's function, a method...: only the import knows
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ctx.index.functions:
        return "via import"  # made by a factory of the module (`_make_handler(core)`) when it is imported
    raise _ImportOnly("the handler is not a function, lambda or bound name of the module (HRM202)")


def _schema_is_sound(schema: Any) -> bool:
    """False for a schema ``register()`` raises TypeError on: not a dict, or ``parameters`` not
    a dict (HRM304 reports both)."""
    if isinstance(schema, Unresolved):
        return True  # frozen as unknown: the runtime imports the module for its definitions
    if not isinstance(schema, dict):
        return False
    return not ("parameters" in schema and not isinstance(schema["parameters"], dict))



def _exact_json(value: Any) -> bool:
    """JSON data that ``json.loads(json.dumps(v)) == v`` with the same types (no tuples, no
    non-string keys, no NaN/infinity): what the manifest gives back is what the import gives."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, (str, bool, int)):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
            continue
        if type(item) is list:
            stack.extend(item)
            continue
        if type(item) is dict:
            if not all(isinstance(key, str) for key in item):
                return False
            stack.extend(item.values())
            continue
        return False
    return True
