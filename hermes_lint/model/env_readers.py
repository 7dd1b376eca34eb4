"""Environment readers: functions of the project whose result is a read of the variable their
first argument names (``get_secret("HASS_TOKEN")``), read from their syntax, never run.

A function is a reader when every value-returning path (each ``return``, and falling off the
end) gives a read of the variable named by its first parameter, or a default: ``None``/``""``,
a constant string, another parameter (the caller's default), and at least one path reads.
Branches are fine (a profile-scoped lookup, a global fallback, a fail-closed path), so is a
path that hands the name to another reader (``return _lookup(name, default)``), of this module
or of another module of the project, re-exported or not. What each path gives when the
variable is unset is kept (``EnvReader``): ``os.environ[name]`` raises, ``os.getenv(name,
"x")`` gives ``"x"``, ``os.environ.get(name) or default`` the caller's default. A reader is
*required* (a call of it is read as ``os.environ[...]``) only when every path raises; otherwise
its value with the variable unset is the join of what the other paths give, which is unknown
where they disagree (a constant default on one path, ``None`` on another), and unknown never
proves that anything is required.

Not readers: a path that returns anything else (``return fetch(name)``, ``return False``: what
decides is not the variable), a function that rebinds its first parameter, decorated and
``async`` functions. Bounds: a reader and the readers it hands the name to are at most
``CALL_DEPTH`` functions; readers of other modules are found as far as imports are followed
(``MAX_IMPORT_DEPTH``).
"""

from __future__ import annotations

import ast
from typing import Any, Container, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from hermes_lint.model.context import child_nodes, walk
from hermes_lint.model.env_spellings import EnvSpellings
from hermes_lint.model.mentions import CALLED_WITH_A_STRING
from hermes_lint.model.env_values import RAISES, UNKNOWN, Either, EnvReader, Method, Param, unset_method
from hermes_lint.model.semantic import CALL_DEPTH

_NOT_A_PATH = object()  # a returned expression that is neither a read nor a default


def environment_readers(
    index: Any, evaluator: Any, configured: Tuple[str, ...] = ()
) -> Mapping[str, Optional[EnvReader]]:
    """The module's names bound to environment readers, each with its ``EnvReader``: its own
    functions, the same imported from another module of the project, and the dotted names
    listed in the ``env-readers`` setting (third-party helpers, with None: read as
    ``os.getenv``). Cached on ``index``."""
    cached = getattr(index, "env_readers", None)
    if cached is not None:
        return cached
    found: Dict[str, Optional[EnvReader]] = {}
    recogniser = _Recogniser()
    own = EnvSpellings(index.imports)
    candidates = _candidate_names(index.tree, _Callees(own, evaluator))
    for name, function in index.functions.items():
        if name in index.assigned or name not in candidates:
            continue
        if evaluator is not None:
            reader = recogniser.of_name(evaluator, name, 1)
        else:
            reader = recogniser.of_function(function, own, None, 1)
        if reader is not None:
            found[name] = reader
    # Only an import from a module (of the project, or one the setting lists) can be a
    # reader: the calls of other imported names are not looked for.
    sought = [
        name
        for name, origin in index.imports.items()
        if origin in configured or (evaluator is not None and evaluator.may_define_function(name))
    ]
    called = _called_with_a_name(index, sought)
    for name, origin in index.imports.items():
        if name not in called:
            continue  # only a call ``name("VARIABLE", ...)`` can be a read
        if origin in configured:
            found[name] = None
            continue
        reader = recogniser.of_name(evaluator, name, 1) if evaluator is not None else None
        if reader is not None:
            found[name] = reader
    index.env_readers = found
    return found


class _Callees:
    """The names a call of which may read the environment or hand the name to another reader,
    in one module: those it binds at its top level (what ``function_definition`` can follow to a
    function of the project, and every name of ``spellings``, which are imports). A builtin or a
    local name (``list(name)``, ``lookup(name)`` of a parameter) is neither. Without an
    evaluator nothing is followed: the names of ``spellings`` alone."""

    def __init__(self, spellings: EnvSpellings, evaluator: Any):
        self.spellings = spellings
        self.evaluator = evaluator

    def __contains__(self, name: object) -> bool:
        spellings = self.spellings
        return (
            name in spellings.getenv_names
            or name in spellings.reader_names
            or (self.evaluator is not None and self.evaluator.is_bound(name))
        )


def _candidate_names(tree: ast.Module, callees: Container[str]) -> Set[str]:
    """Names of the module's functions (at its top level or in its top-level ``if``/``try``
    blocks: any of them may be the one a name is bound to) that ``may_be_reader`` keeps."""
    names: Set[str] = set()
    stack: List[ast.AST] = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if may_be_reader(stmt, callees):
                names.add(stmt.name)
        elif not isinstance(stmt, ast.ClassDef):
            stack.extend(_nested_statements(stmt))
    return names


def may_be_reader(function: ast.AST, callees: Optional[Container[str]] = None) -> bool:
    """What a reader's syntax must have, however the module spells a read: a plain ``def`` with
    a positional first parameter, whose every ``return`` may read it (the value holds a call
    with the first parameter as first argument, ``getenv(name)`` or ``_lookup(name)``, of an
    attribute or of a name in ``callees`` (None: any name), or a subscript by it,
    ``environ[name]``) or gives nothing, ``None``, a string or another parameter, and at least
    one may read. Most functions fail it at their first ``return``: the walk of the whole body
    (``_Reader``) is then saved, and so is the look-up of the readers it may call."""
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return False
    spec = function.args
    positional = spec.posonlyargs + spec.args
    if not positional:
        return False
    first = positional[0].arg
    others = {arg.arg for arg in positional[1:] + spec.kwonlyargs}
    may_read = False
    stack: List[ast.AST] = list(function.body)
    while stack:  # the function's own statements: a ``return`` is one, never inside an expression
        stmt = stack.pop()
        if isinstance(stmt, ast.Return):
            value = stmt.value
            if value is not None and _may_read(value, first, callees):
                may_read = True
            elif not (
                value is None
                or (isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, str)))
                or (isinstance(value, ast.Name) and value.id in others)
            ):
                return False
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(_nested_statements(stmt))
    return may_read


def _may_read(value: ast.expr, first: str, callees: Optional[Container[str]]) -> bool:
    """Whether ``value`` holds ``f(first, ...)`` (``f`` an attribute or in ``callees``) or
    ``x[first]``: every read of the variable ``first`` names, and every hand-over to another
    reader, is one of those."""
    for node in walk(value):
        if node.__class__ is ast.Call:
            if not node.args:
                continue
            argument = node.args[0]
            func = node.func
            if callees is not None and func.__class__ is ast.Name and func.id not in callees:
                continue
        elif node.__class__ is ast.Subscript:
            argument = node.slice
        else:
            continue
        if argument.__class__ is ast.Name and argument.id == first:
            return True
    return False


def _nested_statements(stmt: ast.AST) -> List[ast.AST]:
    found: List[ast.AST] = []
    for field in ("body", "orelse", "finalbody"):
        found.extend(getattr(stmt, field, ()))
    for handler in getattr(stmt, "handlers", ()):
        found.extend(handler.body)
    for case in getattr(stmt, "cases", ()):
        found.extend(case.body)
    return found


def _called_with_a_name(index: Any, names: Iterable[str]) -> frozenset:
    """Which of ``names`` the module calls with a constant string first: ``get_secret("TOKEN")``.
    Only the statements whose text may hold such a call of a name not found yet are walked
    (``ModuleIndex.names_by_statement``)."""
    called: Set[str] = set()
    for stmt, held in index.names_by_statement(names, CALLED_WITH_A_STRING):
        sought = held - called
        if not sought:
            continue
        for node in index.walk(stmt):
            if (
                node.__class__ is ast.Call
                and node.func.__class__ is ast.Name
                and node.func.id in sought
                and node.args
                and node.args[0].__class__ is ast.Constant
                and isinstance(node.args[0].value, str)
            ):
                called.add(node.func.id)
    return frozenset(called)


class _Recogniser:
    """Recognises readers, following the readers they hand the name to; each function once."""

    def __init__(self) -> None:
        self._done: Dict[Tuple[int, int], Optional[EnvReader]] = {}
        self._active: Set[int] = set()  # functions being recognised: a recursive one is no reader

    def of_name(self, evaluator: Any, name: str, depth: int) -> Optional[EnvReader]:
        """The reader module-level ``name`` of ``evaluator``'s module is bound to, if any."""
        definition = evaluator.function_definition(name)
        if definition is None:
            return None
        function, imports, owner = definition
        return self.of_function(function, EnvSpellings(imports), owner, depth)

    def of_function(self, function: ast.AST, spellings: EnvSpellings, owner: Any, depth: int) -> Optional[EnvReader]:
        """``function`` as a reader (``owner``: the evaluator of its module, which finds the
        readers it calls), ``depth``: how many functions of a delegation chain this is."""
        if depth > CALL_DEPTH or id(function) in self._active or not may_be_reader(function, _Callees(spellings, owner)):
            return None
        key = (id(function), depth)
        if key not in self._done:
            self._active.add(id(function))
            try:
                self._done[key] = _Reader(self, function, spellings, owner, depth).recognise()
            finally:
                self._active.discard(id(function))
        return self._done[key]


class _Reader:
    """One candidate function and what its paths give with the variable unset."""

    def __init__(self, recogniser: _Recogniser, function: ast.AST, spellings: EnvSpellings, owner: Any, depth: int):
        self.recogniser = recogniser
        self.function = function
        self.spellings = spellings
        self.owner = owner
        self.depth = depth
        self.first = ""
        self.others: Tuple[str, ...] = ()

    def recognise(self) -> Optional[EnvReader]:
        function = self.function
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            return None
        spec = function.args
        positional = spec.posonlyargs + spec.args
        if not positional:
            return None
        self.first = positional[0].arg
        self.others = tuple(arg.arg for arg in positional[1:] + spec.kwonlyargs)
        returns = self._returns()
        if returns is None:
            return None
        paths: List[Any] = []
        reading = False
        for statement in returns:
            found = self._paths(statement.value)
            if found is None:
                return None
            alternatives, reads = found
            paths.extend(alternatives)
            reading = reading or reads
        if _may_fall_off(function.body):
            paths.append(None)  # the end of the body: ``None``, whatever the environment says
        if not reading:
            return None
        defaults = _constant_defaults(positional, spec.defaults, spec.kwonlyargs, spec.kw_defaults)
        return EnvReader(self.others, len(positional) - 1, defaults, tuple(paths))

    def _returns(self) -> Optional[List[ast.Return]]:
        """The function's own ``return`` statements (not those of functions nested in it); None
        when the first parameter is rebound (then what is read is something else). A ``return
        os.environ[name]`` inside a ``try`` that catches the ``KeyError`` still raises there: the
        handler's own paths (its returns, or falling through to what follows) are among these."""
        found: List[ast.Return] = []
        stack: List[ast.AST] = list(self.function.body)  # type: ignore[attr-defined]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(node, ast.Return):
                found.append(node)
            elif isinstance(node, ast.Name) and node.id == self.first and not isinstance(node.ctx, ast.Load):
                return None
            stack.extend(child_nodes(node))
        return found

    def _paths(self, value: Optional[ast.expr]) -> Optional[Tuple[List[Any], bool]]:
        """What ``return value`` gives with the variable unset (one entry per path: a call of
        another reader brings its paths), and whether it reads the variable; None when it is no
        reader's return."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            delegated = self._delegated(value)
            if delegated is not None:
                return delegated, True
        path, reads = self._path(value)
        if path is _NOT_A_PATH:
            return None
        return [path], reads

    def _path(self, value: Optional[ast.expr]) -> Tuple[Any, bool]:
        if value is None:
            return None, False
        if isinstance(value, ast.Constant):
            # ``return False``/``0``: something other than the variable decided (a package)
            return (value.value, False) if value.value is None or isinstance(value.value, str) else (_NOT_A_PATH, False)
        if isinstance(value, ast.Name):
            return (Param(value.id), False) if value.id in self.others else (_NOT_A_PATH, False)
        access = self.spellings.access(value)
        if access is not None and self._is_first(access.name_node) and access.reader is None:
            if access.kind == "subscript":
                return RAISES, True
            if access.kind == "get":
                return self._default(access.default), True
            return _NOT_A_PATH, False  # ``name in os.environ``: a bool, not the variable
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            operands = [self._path(operand) for operand in value.values]
            reads = any(read for _, read in operands)
            if not reads:
                return _NOT_A_PATH, False
            return Either(tuple(UNKNOWN if path is _NOT_A_PATH else path for path, _ in operands)), True
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and unset_method(value.func.attr)
            and not value.args
            and not value.keywords
        ):
            inner, reads = self._path(value.func.value)
            if reads and inner is not _NOT_A_PATH:
                return (RAISES if inner is RAISES else Method(inner, value.func.attr)), True
        # An expression around a read of the variable (``is_truthy(os.getenv(name))``): a
        # reader's path whose value is not known.
        return (UNKNOWN, True) if self._reads_first(value) else (_NOT_A_PATH, False)

    def _delegated(self, call: ast.Call) -> Optional[List[Any]]:
        """The paths of another reader this path hands the variable's name to, in terms of
        this function's parameters; None when the call is not that."""
        if not call.args or not self._is_first(call.args[0]) or self.owner is None:
            return None
        assert isinstance(call.func, ast.Name)
        inner = self.recogniser.of_name(self.owner, call.func.id, self.depth + 1)
        if inner is None:
            return None
        nodes = inner.argument_nodes(call)
        if nodes is None:
            return None
        passed: Dict[str, Any] = {}
        for parameter, node in nodes.items():
            path, reads = self._path(node)
            passed[parameter] = UNKNOWN if path is _NOT_A_PATH or reads else path
        defaults = dict(inner.defaults)
        mapping = {p: passed[p] if p in passed else defaults.get(p, UNKNOWN) for p in inner.parameters}
        return [_substitute(path, mapping) for path in inner.paths]

    def _default(self, default: Optional[ast.expr]) -> Any:
        if default is None:
            return None
        if isinstance(default, ast.Constant) and (default.value is None or isinstance(default.value, str)):
            return default.value
        if isinstance(default, ast.Name) and default.id in self.others:
            return Param(default.id)
        return UNKNOWN

    def _is_first(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == self.first

    def _reads_first(self, value: ast.expr) -> bool:
        stack: List[ast.AST] = [] if isinstance(value, ast.Lambda) else [value]
        while stack:  # the returned expression, not a lambda in it (that reads later, when called)
            node = stack.pop()
            found = self.spellings.access(node)
            if found is not None and found.kind == "get" and self._is_first(found.name_node):
                return True
            stack.extend(child for child in child_nodes(node) if child.__class__ is not ast.Lambda)
        return False


def _substitute(path: Any, mapping: Dict[str, Any]) -> Any:
    """An inner reader's path with its parameters replaced by what the caller passes."""
    if isinstance(path, Param):
        return mapping.get(path.name, UNKNOWN)
    if isinstance(path, Method):
        return Method(_substitute(path.inner, mapping), path.method)
    if isinstance(path, Either):
        return Either(tuple(_substitute(operand, mapping) for operand in path.operands))
    return path


def _constant_defaults(positional, defaults, keyword_only, keyword_defaults) -> Tuple[Tuple[str, Any], ...]:
    """``(parameter, value)`` for each parameter after the first whose default is a constant."""
    with_defaults = positional[len(positional) - len(defaults):]
    pairs = [(arg, default) for arg, default in zip(with_defaults, defaults) if arg is not positional[0]]
    pairs += [(arg, default) for arg, default in zip(keyword_only, keyword_defaults) if default is not None]
    return tuple((arg.arg, node.value) for arg, node in pairs if isinstance(node, ast.Constant))


def _may_fall_off(body: List[ast.stmt]) -> bool:
    """Whether the end of ``body`` may be reached (syntactically: it does not end in a
    ``return``/``raise``, nor in an ``if`` whose branches all do)."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return False
    if isinstance(last, ast.If):
        return _may_fall_off(last.body) or _may_fall_off(last.orelse)
    return True
