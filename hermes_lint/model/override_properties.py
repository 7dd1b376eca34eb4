"""Which of a schema's properties a ``dynamic_schema_overrides`` function keeps.

Overrides often rebuild ``parameters`` from the static schema to rewrite a few descriptions, and
may drop a property or two::

    def _overrides():
        params = {**SCHEMA["parameters"]}
        params["properties"] = {k: dict(v) for k, v in SCHEMA["parameters"]["properties"].items()}
        params["properties"]["tasks"]["description"] = _describe_tasks()
        if not _background_allowed():
            params["properties"].pop("background", None)
        return {"description": _describe(), "parameters": params}

Such a function can only keep or drop static properties: the model is never offered a name the
static schema lacks, and it is always offered the ones no path drops. Anything else done with
the rebuilt mapping (a property added under a computed name, the mapping passed to a helper,
a comprehension that renames keys) makes the answer unknown.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from hermes_lint.model import Unresolved

_COPIES = frozenset({"dict", "copy.copy", "copy.deepcopy", "deepcopy"})


def kept_properties(
    function: ast.AST, static: FrozenSet[str], evaluate: Callable[[ast.expr], object], imports: Dict[str, str]
) -> Optional[Tuple[str, ...]]:
    """The static properties every path of ``function`` keeps, when it can only keep or drop
    them; else None. ``evaluate`` gives the value of an expression of its module."""
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return None
    return _Tracker(static, evaluate, imports).kept(function)


class _GiveUp(Exception):
    pass


class _Tracker:
    def __init__(self, static: FrozenSet[str], evaluate, imports: Dict[str, str]):
        self.static = static
        self.evaluate = evaluate
        self.imports = imports
        self.kinds: Dict[str, str] = {}  # local name -> "parameters" | "properties"
        self.dropped: Set[str] = set()
        self.understood: Set[int] = set()  # ids of the tracked names' uses that are followed

    def kept(self, function: ast.FunctionDef) -> Optional[Tuple[str, ...]]:
        try:
            nodes = _own_nodes(function)
            for node in nodes:
                if isinstance(node, ast.Assign):
                    self._assign(node)
                elif isinstance(node, ast.Call):
                    self._call(node)
                elif isinstance(node, ast.Delete):
                    for target in node.targets:
                        self._drop_target(target)
                elif isinstance(node, ast.Return):
                    self._return(node)
            for node in nodes:
                if isinstance(node, ast.Name) and node.id in self.kinds and id(node) not in self.understood:
                    return None  # a use of the rebuilt mapping this does not follow
        except _GiveUp:
            return None
        return tuple(sorted(self.static - self.dropped))

    # --- what a name holds ------------------------------------------------------------

    def _kind(self, node: ast.AST) -> Optional[str]:
        """"parameters"/"properties" when ``node`` is a tracked name, ``P["properties"]`` of a
        tracked parameters name; None otherwise (uses recorded as followed)."""
        if isinstance(node, ast.Name) and node.id in self.kinds:
            self.understood.add(id(node))
            return self.kinds[node.id]
        if _is_key(node, "properties") and self._kind(node.value) == "parameters":  # type: ignore[attr-defined]
            return "properties"
        return None

    def _static_kind(self, node: ast.expr) -> Optional[str]:
        """What a fresh value built from the static schema is: a copy of its parameters, of
        its properties (a comprehension over them that keeps each key), else None."""
        if isinstance(node, ast.Dict) and len(node.keys) == 1 and node.keys[0] is None:
            return self._static_kind(node.values[0])  # {**X}
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            name = _dotted(node.func)
            if name is not None and (name in _COPIES or self.imports.get(name.split(".")[0], "").startswith("copy")):
                return self._static_kind(node.args[0])
        if isinstance(node, ast.DictComp) and len(node.generators) == 1:
            generator = node.generators[0]
            items = generator.iter
            target = generator.target
            if not (isinstance(items, ast.Call) and isinstance(items.func, ast.Attribute)
                    and items.func.attr == "items" and not items.args
                    and isinstance(target, ast.Tuple) and isinstance(target.elts[0], ast.Name)
                    and isinstance(node.key, ast.Name) and node.key.id == target.elts[0].id):
                return None
            if self._static_kind(items.func.value) != "properties":
                return None
            if generator.ifs:
                self.dropped |= self.static  # any of them may be filtered out
            return "properties"
        if self._kind(node) is not None:
            return None  # an alias of the rebuilt mapping: not followed
        value = self.evaluate(node)
        if isinstance(value, Unresolved) or not isinstance(value, dict):
            return None
        keys = value.get("properties") if "properties" in value else None
        if isinstance(keys, dict) and "type" in value:
            return "parameters" if set(keys) <= self.static else None
        return "properties" if value and set(value) <= self.static else None

    # --- statements -------------------------------------------------------------------

    def _assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0]
        if isinstance(target, ast.Name):
            kind = self._static_kind(node.value) or self._kind(node.value)
            if kind is not None:
                if target.id in self.kinds:
                    raise _GiveUp()  # bound twice
                self.kinds[target.id] = kind
                self.understood.add(id(target))
            elif target.id in self.kinds:
                raise _GiveUp()
            return
        if not isinstance(target, ast.Subscript):
            return
        container = self._kind(target.value)
        if container == "parameters":
            key = _constant(target.slice)
            if key == "properties" and self._static_kind(node.value) != "properties":
                raise _GiveUp()  # properties replaced by something else
            return
        if container == "properties":
            if _constant(target.slice) not in self.static:
                raise _GiveUp()  # a property the static schema lacks, or a computed name
            return
        # P["properties"]["k"]["description"] = ...: inside one property, names unchanged
        inner = target.value
        if isinstance(inner, ast.Subscript):
            self._kind(inner.value)

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if not isinstance(func, ast.Attribute):
            return
        kind = self._kind(func.value)
        if kind is None:
            if isinstance(func.value, ast.Subscript) and func.attr in ("get", "update", "setdefault"):
                self._kind(func.value.value)  # P["properties"]["k"].update(...)
            return
        if kind == "properties" and func.attr == "pop" and node.args:
            self._drop(node.args[0])
            return
        if func.attr in ("get", "items", "keys", "values"):
            return
        if kind == "parameters" and func.attr == "pop" and node.args and _constant(node.args[0]) != "properties":
            return
        raise _GiveUp()

    def _drop_target(self, target: ast.expr) -> None:
        if isinstance(target, ast.Subscript) and self._kind(target.value) == "properties":
            self._drop(target.slice)

    def _drop(self, key: ast.expr) -> None:
        name = _constant(key)
        if name is None:
            raise _GiveUp()  # which one is dropped is computed
        self.dropped.add(name)

    def _return(self, node: ast.Return) -> None:
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return
        if not isinstance(value, ast.Dict):
            raise _GiveUp()
        for key, item in zip(value.keys, value.values):
            if key is None:
                raise _GiveUp()
            if _constant(key) == "parameters" and self._kind(item) != "parameters" \
                    and self._static_kind(item) != "parameters":
                raise _GiveUp()


def _own_nodes(function: ast.AST) -> List[ast.AST]:
    """Every node of ``function``'s own scope, in source order."""
    found: List[ast.AST] = []
    stack = list(reversed(list(ast.iter_child_nodes(function))))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            raise _GiveUp()  # a nested scope may use the mapping later
        found.append(node)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return found


def _is_key(node: ast.AST, key: str) -> bool:
    return isinstance(node, ast.Subscript) and _constant(node.slice) == key


def _constant(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])
