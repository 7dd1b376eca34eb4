"""The standard results a tool handler returns: ``tool_error`` and ``tool_result`` (JSON text).

Importable from ``tools.registry`` as upstream's; kept here so that a start from the manifest,
which calls no handler, does not compile them.
"""

from __future__ import annotations


def tool_error(message: object, **extra: object) -> str:
    """The standard error result: ``{"error": str(message), **extra}`` as JSON."""
    import json

    return json.dumps({"error": str(message), **extra}, ensure_ascii=False)


def tool_result(data: object = None, **fields: object) -> str:
    """The standard success result, as JSON.

    ``data`` None: just ``fields``; a dict: its keys merged with ``fields`` (``fields`` win on
    a clash); anything else: ``data`` itself, or ``{"result": data, **fields}`` when there are
    fields. ``tool_result({"path": p}, bytes=n)`` → ``{"path": p, "bytes": n}``;
    ``tool_result(42)`` → ``42``. (Upstream drops ``fields`` whenever ``data`` is given; here
    they are kept.)
    """
    import json

    payload: object
    if data is None:
        payload = dict(fields)
    elif isinstance(data, dict):
        payload = {**data, **fields}
    elif fields:
        payload = {"result": data, **fields}
    else:
        payload = data
    return json.dumps(payload, ensure_ascii=False)
