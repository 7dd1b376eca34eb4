"""Whether a template (``tools.manifest_templates``) is well formed: what validation checks
before anything is registered, for a manifest not exactly as generated, and for a template hole
before it is put into a schema. A start from a manifest exactly as generated, whose tools have
no holes, does not compile it.
"""

from __future__ import annotations

from tools.manifest_templates import _CALLS, _CONVERSIONS, _METHODS, _TYPES, _exception_class

__all__ = ["MAX_DEPTH", "check_template"]

# Operator → (required keys, optional keys); each template is exactly one operator.
_FORMS = {
    "const": ({"const"}, set()),
    "env": ({"env"}, set()),
    "concat": ({"concat"}, set()),
    "format": ({"format"}, {"spec", "conversion"}),
    "call": ({"call", "args"}, set()),
    "if": ({"if", "then", "else"}, set()),
    "is_none": ({"is_none"}, set()),
    "eq": ({"eq"}, set()),
    "not": ({"not"}, set()),
    "or": ({"or"}, set()),
    "and": ({"and"}, set()),
    "try": ({"try", "except", "fallback"}, set()),
    "method": ({"method", "of"}, set()),
    "in": ({"in", "values"}, set()),
    "isinstance": ({"isinstance", "type"}, set()),
    "which": ({"which"}, set()),
    "find_spec": ({"find_spec"}, set()),
    "platform": ({"platform"}, set()),
    "path_exists": ({"path_exists", "expanduser"}, set()),
}
_SCALARS = (str, int, float, bool, type(None))
# Nesting bound: templates come from a file, and evaluation recurses.
MAX_DEPTH = 64


def check_template(template: object, depth: int = 0) -> str | None:
    """None for a well-formed template, else what is wrong with it."""
    if depth > MAX_DEPTH:
        return "template is nested too deeply"
    if not isinstance(template, dict) or not template:
        return f"template {template!r} is not an object with one operator"
    operator = next((key for key in template if key in _FORMS), None)
    if operator is None:
        return f"template has the unknown operator {sorted(template)[0]!r}"
    required, optional = _FORMS[operator]
    keys = set(template)
    if not required <= keys or keys - required - optional:
        return f"template {operator!r} has the keys {sorted(keys)}, expected {sorted(required | optional)}"
    value = template[operator]
    children: list[object] = []
    if operator == "env":
        if not isinstance(value, str):
            return "template 'env' needs a variable name"
    elif operator == "const":
        pass
    elif operator in ("concat", "or", "and", "eq"):
        if not isinstance(value, list) or (operator == "eq" and len(value) != 2) or not value:
            return f"template {operator!r} needs a list of templates"
        children = value
    elif operator == "format":
        spec, conversion = template.get("spec", ""), template.get("conversion", "")
        if not isinstance(spec, str) or conversion not in _CONVERSIONS:
            return "template 'format' has a bad spec or conversion"
        children = [value]
    elif operator == "call":
        if value not in _CALLS or not isinstance(template["args"], list):
            return f"template 'call' of {value!r} is not a call of int, float, str or bool"
        children = template["args"]
    elif operator == "if":
        children = [value, template["then"], template["else"]]
    elif operator == "try":
        names = template["except"]
        if not isinstance(names, list) or not names or not all(_exception_class(n) for n in names):
            return "template 'try' must name built-in exception classes"
        children = [value, template["fallback"]]
    elif operator == "method":
        if value not in _METHODS:
            return f"template 'method' of {value!r} is not a str method the runtime knows"
        children = [template["of"]]
    elif operator == "in":
        values = template["values"]
        if not isinstance(values, list) or not all(isinstance(v, _SCALARS) for v in values):
            return "template 'in' needs a list of constants"
        children = [value]
    elif operator == "isinstance":
        if template["type"] not in _TYPES:
            return "template 'isinstance' names a type other than str, bool, int or float"
        children = [value]
    elif operator == "find_spec":
        if not isinstance(value, str) or not value.isidentifier():
            return "template 'find_spec' needs a top-level module name"
    elif operator == "platform":
        if value is not None:
            return "template 'platform' takes null"
    elif operator == "path_exists":
        if not isinstance(template["expanduser"], bool):
            return "template 'path_exists' needs expanduser true or false"
        children = [value]
    else:  # is_none, not, which
        children = [value]
    for child in children:
        problem = check_template(child, depth + 1)
        if problem is not None:
            return problem
    return None
