from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Union

from hermes_lint.model.context import ModuleContext, child_nodes
from hermes_lint.analysis.handlers import unique_entries
from hermes_lint.rules.base import Finding, Invalid, Rule

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class ArgsSplattedIntoFixedSignature(Rule):
    """A handler passes the model's arguments whole as keywords (``_impl(**args)``) to a module
    function that takes no ``**kwargs``.

    ``args`` is whatever the model sent: any key the function does not name — an argument the
    schema gained later, a hallucinated one, a misspelling — makes the call raise
    ``TypeError: _impl() got an unexpected keyword argument``, and the tool fails for that call
    whatever it was asked. Pass the keys the function takes (``_impl(path=args.get("path"))``),
    filter ``args`` first, or give the function ``**kwargs``.

    Checked: ``**args`` in a call written in the handler itself (its ``def``, or the lambda),
    where ``args`` is the handler's first parameter, and the callee is a plain, undecorated
    function of this module. Not reported: a callee with ``**kwargs``; a callee that is not a
    module function (a class, an import, an attribute, a name the handler binds itself); a
    callee that is not certainly the function a call of its name runs (defined twice, or
    rebound through ``global``: the module's semantic model decides); a decorated callee (the decorator may change the signature); an ``args`` the handler rebinds
    anywhere (``args = {k: v for k, v in args.items() if k in ALLOWED}``) or whose keys it
    inspects (``set(args) - ALLOWED``, ``args.keys()``, ``for key in args``), since it may be
    filtered or validated first.
    """

    code = "HRM109"
    summary = "**args passed to a module function that takes no **kwargs (TypeError on an unexpected key)"

    valid = [
        # the callee takes **kwargs; keys passed one by one; a class and an import take **args
        """
        from tools.registry import registry
        from tools.fetchers import fetch_page

        def _search(query, limit=10, **_ignored):
            return f"{query}:{limit}"

        class _Request:
            def __init__(self, url, timeout=30):
                self.url = url

        def _open(url, timeout=30):
            return url

        def _handle(args, **kw):
            _Request(**args)
            fetch_page(**args)
            _open(url=args.get("url"), timeout=args.get("timeout", 30))
            return _search(**args)

        registry.register(name="search", toolset="web", schema={}, handler=_handle, check_fn=lambda: True)
        registry.register(name="find", toolset="web", schema={},
                          handler=lambda args, **kw: _search(**args), check_fn=lambda: True)
        """,
        # args filtered before the splat; another dict splatted; a decorated callee
        """
        import functools
        from tools.registry import registry

        _ALLOWED = ("path", "encoding")

        def _read(path, encoding="utf-8"):
            return open(path, encoding=encoding).read()

        @functools.lru_cache(maxsize=None)
        def _cached_read(path):
            return _read(path)

        def _handle(args, **kw):
            options = {k: v for k, v in args.items() if k in _ALLOWED}
            _read(**options)
            args = {k: v for k, v in args.items() if k in _ALLOWED}
            return _read(**args)

        registry.register(name="read", toolset="file", schema={}, handler=_handle, check_fn=lambda: True)
        registry.register(name="cat", toolset="file", schema={},
                          handler=lambda args, **kw: _cached_read(**args), check_fn=lambda: True)
        """,
        # unknown keys rejected before the splat
        """
        import json
        from tools.registry import registry

        def _resize(width, height):
            return f"{width}x{height}"

        def _handle(args, **kw):
            unknown = set(args) - {"width", "height"}
            if unknown:
                return json.dumps({"error": f"unknown arguments: {sorted(unknown)}"})
            return _resize(**args)

        registry.register(name="resize", toolset="image", schema={}, handler=_handle, check_fn=lambda: True)
        """,
        # which function a call of `_render` runs is not known: `_use_fast` rebinds it
        """
        from tools.registry import registry

        def _render(template):
            return template

        def _use_fast():
            global _render
            _render = lambda template, **options: template

        def _handle(args, **kw):
            return _render(**args)

        registry.register(name="render", toolset="docs", schema={}, handler=_handle, check_fn=lambda: True)
        """,
    ]
    invalid = [
        # a lambda handler forwards the model's arguments to a fixed signature
        Invalid(
            """
            import json
            from tools.registry import registry

            def send_message(target, message, silent=False):
                return json.dumps({"sent": True, "target": target})

            registry.register(name="send_message", toolset="messaging", schema={},
                              handler=lambda args, **kw: send_message(**args), check_fn=lambda: True)
            """,
            line=8,
            col=59,
            message="handler lambda passes `**args` to `send_message`, which takes no `**kwargs`: any key "
            "of the model's arguments it does not name raises TypeError; pass the keys it takes "
            '(`send_message(target=args.get("target"), ...)`) or filter `args` first',
            fix=(("send_message(**args)", 'send_message(args.get("target"), args.get("message"))'),),
        ),
        # inside the handler def, an async callee, awaited
        Invalid(
            """
            from tools.registry import registry

            async def _browse(url, *, wait_ms=0):
                return url

            async def _handle(params, **kw):
                if not params.get("url"):
                    return '{"error": "url is required"}'
                return await _browse(**params)

            registry.register(name="browse", toolset="web", schema={}, handler=_handle,
                              check_fn=lambda: True, is_async=True)
            """,
            line=9,
            col=26,
            message="handler `_handle` passes `**params` to `_browse`, which takes no `**kwargs`: any key "
            "of the model's arguments it does not name raises TypeError; pass the keys it takes "
            '(`_browse(url=params.get("url"), ...)`) or filter `params` first',
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for analysis, entry in unique_entries(ctx):
            positional = entry.args.posonlyargs + entry.args.args
            if not positional:
                continue
            param = positional[0].arg
            body = _own_scope(entry)
            if _rebinds(body, param) or _inspects_keys(body, param):
                continue
            local = {n.id for n in body if n.__class__ is ast.Name and not isinstance(n.ctx, ast.Load)}
            local.update(a.arg for a in ast.walk(entry.args) if isinstance(a, ast.arg))
            for node in body:
                if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                    continue
                splat = _splat_of(node, param)
                callee = _fixed_module_function(ctx, node.func.id) if splat and node.func.id not in local else None
                if callee is None or splat is None:
                    continue
                first = _first_parameter(callee)
                example = f'{callee.name}({first}={param}.get("{first}"), ...)' if first else f"{callee.name}()"
                yield Finding(
                    ctx.loc(splat),
                    f"{analysis.entry_label} passes `**{param}` to `{callee.name}`, which takes no "
                    f"`**kwargs`: any key of the model's arguments it does not name raises TypeError; "
                    f"pass the keys it takes (`{example}`) or filter `{param}` first",
                )


def _own_scope(entry: Union[FunctionNode, ast.Lambda]) -> List[ast.AST]:
    """Nodes of the handler's own scope (nested functions, lambdas and classes left out)."""
    found: List[ast.AST] = []
    stack: List[ast.AST] = [entry.body] if isinstance(entry, ast.Lambda) else list(entry.body)
    while stack:
        node = stack.pop()
        found.append(node)
        # ``child_nodes``: no contexts or operators (``Load``, ``Add``), which nothing here reads.
        stack.extend(child for child in child_nodes(node) if not isinstance(child, _SCOPES))
    return found


def _rebinds(body: List[ast.AST], name: str) -> bool:
    for node in body:
        if node.__class__ is ast.Name and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, ast.ExceptHandler) and node.name == name:
            return True
    return False


def _inspects_keys(body: List[ast.AST], name: str) -> bool:
    """``set(args)``, ``args.keys()``/``items()``, ``for k in args``: the keys may be checked
    against what the callee takes before the call."""
    for node in body:
        if node.__class__ is ast.Call:
            func = node.func
            if (func.__class__ is ast.Attribute and func.attr in ("keys", "items")
                    and _is_name(func.value, name)):
                return True
            if (func.__class__ is ast.Name and func.id in ("set", "frozenset", "sorted", "list")
                    and node.args and _is_name(node.args[0], name)):
                return True
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and _is_name(node.iter, name):
            return True
    return False


def _is_name(node: ast.AST, name: str) -> bool:
    return node.__class__ is ast.Name and node.id == name


def _splat_of(call: ast.Call, param: str) -> Optional[ast.keyword]:
    for keyword in call.keywords:
        if keyword.arg is None and keyword.value.__class__ is ast.Name and keyword.value.id == param:
            return keyword
    return None


def _fixed_module_function(ctx: ModuleContext, name: str) -> Optional[FunctionNode]:
    """The undecorated module function without ``**kwargs`` that a call of ``name`` certainly
    runs (the semantic model's ``functions``); None when unsure."""
    function = ctx.semantic.functions.get(name)
    if function is None or function.decorator_list or function.args.kwarg is not None:
        return None
    return function


def _first_parameter(node: FunctionNode) -> Optional[str]:
    names = [a.arg for a in node.args.args + node.args.kwonlyargs]  # positional-only: never by keyword
    return names[0] if names else None
