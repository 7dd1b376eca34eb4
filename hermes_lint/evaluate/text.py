"""Text: f-strings, str()/repr(), str.format and % formatting, bounded and reproducible."""

from __future__ import annotations

import ast
import importlib
import re
from typing import Any, List, Union

from ..model import Hole
from .limits import _TRANSIENT_TEXT_CAP, MAX_FORMAT_WIDTH
from .state import _EvaluatorState
from .values import _SCALAR_TYPES, _Arguments, _budget, _Refusal, _type_name

# The C helpers behind str.format's field parsing (standard library; typeshed has no stubs for it).
_string = importlib.import_module("_string")

_DIGIT_RUNS = re.compile(r"\d+")

_PERCENT_DIRECTIVE = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?[hlL]?(?P<kind>.?)",
    re.S,
)


class _Text(_EvaluatorState):
    """Text building (a mixin of ModuleEvaluator)."""

    def _eval_joined_str(self, node: ast.JoinedStr) -> Union[str, Hole]:
        pieces = []
        total = 0
        holes = False
        text: Any  # a literal piece or a formatted value (str), or a Hole
        for part in node.values:
            text = part.value if part.__class__ is ast.Constant else self._partial(part)
            if text.__class__ is Hole:
                holes = True
            else:
                total += len(text)
                self._check_text(total)
            pieces.append(text)
        if holes:  # the text is unknown; the runtime may still compute it (a template)
            return self._template_concat(pieces)
        return "".join(pieces)

    def _eval_formatted_value(self, node: ast.FormattedValue) -> Union[str, Hole]:
        value = self._eval(node.value)
        spec = self._eval(node.format_spec) if node.format_spec is not None else ""
        if value.__class__ is Hole:
            return self._template_format(value, node.conversion, spec, node)
        if spec.__class__ is Hole:
            raise self._refuse_hole(spec, node)
        return self._format_value(value, node.conversion, spec)

    def _text(self, value: Any, conversion: str) -> str:
        """str()/repr()/ascii() of a value, bounded and reproducible."""
        cls = value.__class__
        if cls is str and conversion == "s":
            return value
        if cls in _SCALAR_TYPES:
            if cls is str:
                self._text_bound(value)
            text = str(value) if conversion == "s" else repr(value) if conversion == "r" else ascii(value)
        else:
            self._text_bound(value)
            text = str(value) if conversion == "s" else repr(value) if conversion == "r" else ascii(value)
        self._check_text(len(text))
        return text

    def _format_value(self, value: Any, conversion: int, spec: str) -> str:
        if conversion != -1:
            value = self._text(value, chr(conversion))
        if not spec:
            return self._text(value, "s")
        self._check_spec(spec)
        if value.__class__ not in _SCALAR_TYPES:
            raise TypeError(f"unsupported format string passed to {_type_name(value)}.__format__")
        text = format(value, spec)
        self._check_text(len(text))
        return text

    def _check_spec(self, spec: str) -> None:
        for run in _DIGIT_RUNS.findall(spec):
            if len(run) > 6 or int(run) > MAX_FORMAT_WIDTH:
                raise _budget()

    def _percent_format(self, template: str, values: Any) -> str:
        directives = 0
        named = 0
        for match in _PERCENT_DIRECTIVE.finditer(template):
            if match.group("kind") == "%":
                continue
            directives += 1
            if match.group("key") is not None:
                named += 1
            for part in (match.group("width"), match.group("precision")):
                if part == "*":
                    raise _Refusal("'*' width in a % format")
                if part is not None and (len(part) > 6 or int(part) > MAX_FORMAT_WIDTH):
                    raise _budget()
        if values.__class__ is tuple:
            bound = sum(self._text_bound(v) for v in values)
        else:
            bound = self._text_bound(values) * max(named, 1)
        if len(template) + directives * MAX_FORMAT_WIDTH + bound > _TRANSIENT_TEXT_CAP:
            raise _budget()
        text = template % values
        self._check_text(len(text))
        return text

    def _str_format(self, template: str, arguments: _Arguments) -> str:
        pieces: List[str] = []
        total = 0
        automatic = 0
        numbering = None  # "auto" | "manual"
        for literal, field, spec, conversion in _string.formatter_parser(template):
            pieces.append(literal)
            total += len(literal)
            if field is None:
                continue
            first, rest = _string.formatter_field_name_split(field)
            if first == "":
                if numbering == "manual":
                    raise ValueError("cannot switch from manual field specification to automatic field numbering")
                numbering = "auto"
                first = automatic
                automatic += 1
            elif first.__class__ is int:
                if numbering == "auto":
                    raise ValueError("cannot switch from automatic field numbering to manual field specification")
                numbering = "manual"
            value = arguments.positional[first] if first.__class__ is int else arguments.keywords[first]
            for is_attribute, key in rest:
                if is_attribute:
                    raise _Refusal("attribute access in a format field")
                value = value[key]
            if spec and "{" in spec:
                raise _Refusal("nested replacement field in a format spec")
            text = self._format_value(value, ord(conversion) if conversion else -1, spec)
            total += len(text)
            self._check_text(total)
            pieces.append(text)
        return "".join(pieces)

