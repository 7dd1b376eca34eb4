"""Where values come from: per-container key/item locations, and character columns."""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Tuple

from ..model import Location
from .limits import MAX_RESULT_ITEMS
from .state import _EvaluatorState
from .values import _FunctionRef, _Instance


class _Locations(_EvaluatorState):
    """Location tables of the containers an evaluator builds (a mixin of ModuleEvaluator)."""

    def locations_of(self, value: Any) -> Dict[tuple, Location]:
        """JSON path -> location of that dict key / list item, for what this evaluator built.

        Paths are tuples of keys and indexes, e.g. ``("parameters", "properties", "city")``.
        Keys of merged dicts keep the location of the dict they came from; values this evaluator
        did not build (or whose origin it does not know) have no entry.
        """
        result: Dict[tuple, Location] = {}
        stack: List[Tuple[Any, tuple]] = [(value, ())]
        visited = 0
        while stack and visited <= MAX_RESULT_ITEMS:
            obj, path = stack.pop()
            visited += 1
            cls = obj.__class__
            table = self._table_of(obj)
            if cls is dict:
                for key, child in obj.items():
                    child_path = path + (key,)
                    node = table.get(key) if table is not None else None
                    if node is not None:
                        location = self._location(node)
                        if location is not None:  # a module evaluated for another file has none
                            result[child_path] = location
                    if child.__class__ in (dict, list, tuple):
                        stack.append((child, child_path))
            elif cls is list or cls is tuple:
                for position, child in enumerate(obj):
                    child_path = path + (position,)
                    node = table[position] if table is not None and position < len(table) else None
                    if node is not None:
                        location = self._location(node)
                        if location is not None:  # a module evaluated for another file has none
                            result[child_path] = location
                    if child.__class__ in (dict, list, tuple):
                        stack.append((child, child_path))
        return result

    def _location(self, node: Any) -> Optional[Location]:
        """Where ``node`` (a syntax node, a ``Location`` adopted from another module, or None)
        is; None for a node without a position."""
        if node.__class__ is Location:
            return node
        if node is None or not hasattr(node, "lineno") or not self._located:
            return None
        return Location(node.lineno, self._char_column(node.lineno, node.col_offset))

    def _placed(self, entry: Any) -> Optional[Location]:
        """A table entry of this module's as a location in this module's file, for the tables of
        a module that imports the value (``_adopt_locations``)."""
        if entry is None or entry.__class__ is Location:
            return entry
        if not hasattr(entry, "lineno"):
            return None
        if id(entry) not in self._own_nodes():
            # a node of the module that called this one's function (an argument it passed on,
            # ``_schema(bed={...})``): written there, so left for that module's tables to place
            return entry
        return Location(entry.lineno, self._char_column(entry.lineno, entry.col_offset), self._source[0])

    def _own_nodes(self) -> Set[int]:
        """The ids of this module's syntax tree's nodes (computed once, on the first adoption)."""
        nodes = self.__dict__.get("_own_node_ids")
        if nodes is None:
            nodes = self.__dict__["_own_node_ids"] = {id(node) for node in ast.walk(self._tree)}
        return nodes

    def _adopt_locations(self, value: Any, foreign: _EvaluatorState) -> Any:
        """``value``, computed by ``foreign`` (the evaluator of an imported project module): its
        containers' key/item locations, as locations in that module's file, join this
        evaluator's tables, so that a finding about a key is reported where the key is written."""
        stack = [(value, False)]
        visited = 0
        while stack and visited <= MAX_RESULT_ITEMS:
            obj, held = stack.pop()
            visited += 1
            cls = obj.__class__
            if cls is not dict and cls is not list and cls is not tuple:
                if cls is _Instance:  # its attributes: values built there
                    stack.extend((item, False) for item in obj.attrs.values())
                elif cls is _FunctionRef and obj.attrs:
                    # set on it by a decorator, maybe in this module, holding values built there
                    stack.extend((item, True) for item in obj.attrs.values())
                continue
            if self._table_of(obj) is not None:
                if held:  # built here by a call from there: what it holds may come from there
                    stack.extend((item, False) for item in (obj.values() if cls is dict else obj))
                continue  # built here, or adopted before (with what it holds)
            table = foreign._table_of(obj)
            if table is not None:
                placed = (
                    {key: foreign._placed(node) for key, node in table.items()}
                    if cls is dict
                    else [foreign._placed(node) for node in table]
                )
                self._meta[id(obj)] = (obj, placed)
            stack.extend((item, False) for item in (obj.values() if cls is dict else obj))
        return value

    def _char_column(self, lineno: int, byte_col: int) -> int:
        lines = self._lines
        if lines is None or not 0 < lineno <= len(lines):
            return byte_col + 1
        text = lines[lineno - 1]
        if text.isascii():
            return byte_col + 1
        encoded = self._encoded_lines.get(lineno)
        if encoded is None:
            encoded = self._encoded_lines[lineno] = text.encode("utf-8", "surrogatepass")
        return len(encoded[:byte_col].decode("utf-8", "replace")) + 1

    def _remember(self, obj: Any, table: Any) -> Any:
        """Record where the keys/items of a container this evaluator built come from."""
        if table:
            self._meta[id(obj)] = (obj, table)
        return obj

    def _table_of(self, obj: Any) -> Any:
        entry = self._meta.get(id(obj))
        return entry[1] if entry is not None and entry[0] is obj else None

    def _list_table(self, obj: list) -> list:
        """The item-location list of ``obj``, created (all unknown) when it had none."""
        table = self._table_of(obj)
        if table is None:
            table = [None] * len(obj)
            self._meta[id(obj)] = (obj, table)
        return table

    def _dict_table(self, obj: dict) -> dict:
        table = self._table_of(obj)
        if table is None:
            table = {}
            self._meta[id(obj)] = (obj, table)
        return table

    def _items_table(self, obj: Any, length: int) -> list:
        """Item locations of a list/tuple (copied), or unknowns."""
        table = self._table_of(obj) if obj.__class__ in (list, tuple) else None
        return list(table) if table is not None else [None] * length

