"""Plain, frozen data that flows one way: extract -> check -> report, and extract -> manifest.

Everything here is picklable (the parallel checker and the cache ship it between processes) and
holds no AST nodes: rules that need syntax get it from ``ModuleContext``; project rules and the
manifest see only these facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based line and a 1-based column (in characters, not bytes), and the file when it is
    not the one being checked: a schema key written in another module of the project
    (``path``, relative to the project root, '/'-separated; "" for the checked file itself)."""

    line: int
    col: int
    path: str = ""


@dataclass(frozen=True)
class Unresolved:
    """A value static analysis could not determine, with why and where.

    Never a guess: a rule that meets an ``Unresolved`` stays silent (or reports "cannot verify"
    under its own code), it never treats it as any particular value.
    """

    reason: str
    location: Optional[Location] = None

    def __bool__(self) -> bool:  # an Unresolved must never pass for a truthy value by accident
        raise TypeError("Unresolved has no truth value; test with is_unresolved()")


def is_unresolved(value: Any) -> bool:
    return isinstance(value, Unresolved)


class HoleUsed(TypeError):
    """A hole was compared, hashed, tested or turned into text: the answer is unknown."""

    def __init__(self, hole: "Hole", what: str):
        super().__init__(f"a hole has no {what}")
        self.hole = hole


@dataclass(frozen=True, eq=False, repr=False)
class Hole(Unresolved):
    """An unknown leaf inside an otherwise known value (a *partial* value).

    ``{"description": f"Scripts live under {display_hermes_home()}/scripts"}`` is a dict whose
    one value is a hole: its keys, its other values and the structure around it are known. A
    hole is an ``Unresolved`` (``is_unresolved`` is true for it), so code that already stays
    silent on unknown values stays silent on holes. It can be neither compared, hashed, tested
    for truth nor turned into text: any such use raises ``TypeError`` instead of answering as if
    the hole were some particular value (``[hole] == ["x"]`` must not be ``False``).

    ``template``, when set, is the declarative recipe the runtime uses to compute the value at
    load time without importing the module (environment variables with defaults, ``int``,
    formatting): a JSON expression, see ``hermes_lint.manifest_templates``.
    """

    template: Any = field(default=None, compare=False, hash=False)

    def __eq__(self, other: Any) -> bool:
        raise HoleUsed(self, "value to compare")

    def __ne__(self, other: Any) -> bool:
        raise HoleUsed(self, "value to compare")

    def __hash__(self) -> int:
        raise HoleUsed(self, "hash")

    def __lt__(self, other: Any) -> bool:
        raise HoleUsed(self, "order")

    __le__ = __gt__ = __ge__ = __lt__

    def __bool__(self) -> bool:
        raise HoleUsed(self, "truth value")

    def __str__(self) -> str:
        raise HoleUsed(self, "text")

    def __format__(self, spec: str) -> str:
        raise HoleUsed(self, "text")

    def __repr__(self) -> str:
        # repr() of a container holding a hole would otherwise yield text that looks like data.
        raise HoleUsed(self, "text")

    def describe(self) -> str:
        return f"<hole: {self.reason}>"


def is_hole(value: Any) -> bool:
    return isinstance(value, Hole)


def holes_in(value: Any, path: Tuple[Any, ...] = ()) -> list:
    """``[(json_path, hole), ...]`` of every hole inside ``value``, in a stable order."""
    found: list = []
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, Hole):
            found.append((where, item))
        elif isinstance(item, dict):
            stack.extend((where + (key,), child) for key, child in reversed(list(item.items())))
        elif isinstance(item, (list, tuple)):
            stack.extend((where + (i,), child) for i, child in reversed(list(enumerate(item))))
    return found


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding: ``path:line:col: CODE message`` (path relative to the project root, '/'-separated)."""

    path: str
    line: int
    col: int
    code: str
    message: str
    # What the rule's fix needs that the message only says in words (``(("keyword",
    # "check_fn"),)``): a fix reads these, never the message, so rewording one breaks nothing.
    # Not part of a diagnostic's identity (equality, order, hash).
    fix_data: Tuple[Tuple[str, str], ...] = field(default=(), compare=False)

    def fix_value(self, key: str) -> Optional[str]:
        """The value the finding recorded for its fix under ``key``, or None."""
        for name, value in self.fix_data:
            if name == key:
                return value
        return None

    def as_text(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"

    def as_json(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
        }


@dataclass(frozen=True)
class CallableRef:
    """What a ``handler=`` or ``check_fn=`` keyword refers to.

    kind:
      - "function": a module-level ``def`` of this module; ``target`` is its name; or a ``def``
        nested in one, which a table the evaluator computed holds; ``target`` is its qualified
        name (``make.<locals>.handle``: ``SemanticModel.nested_function``)
      - "lambda": a lambda written in place; ``target`` is the module function its body calls, if any
      - "imported": a name bound by ``import``/``from ... import``; ``target`` is "module.attr"
      - "attribute": ``obj.attr`` (another module's function, a method...): unknown
      - "call": the result of a call (``check_fn=check()``)
      - "literal": a literal such as ``None`` or a string
      - "undefined": a bare name that nothing in the module binds
      - "other": any other expression
    """

    kind: str
    text: str
    location: Location
    target: Optional[str] = None


@dataclass(frozen=True)
class Keyword:
    """One ``name=value`` argument of a register call, located at the keyword's name."""

    name: str
    location: Location
    value_location: Location


@dataclass(frozen=True)
class Registration:
    """One top-level ``registry.register(...)`` call, as static analysis sees it."""

    location: Location  # of the call expression
    end_line: int
    name: Any  # str | Unresolved
    toolset: Any  # str | Unresolved
    schema: Any  # JSON-like value | Unresolved
    handler: Optional[CallableRef]
    check_fn: Optional[CallableRef]
    keywords: Tuple[Keyword, ...]
    # Evaluated values of the other keywords that have one (requires_env, is_async,
    # description, emoji, max_result_size_chars, override, ...): (name, value | Unresolved).
    values: Tuple[Tuple[str, Any], ...] = ()
    # JSON path of a schema key -> location of that key in the source, e.g.
    # (("parameters", "properties", "city", "type"), Location(12, 17)).
    schema_locations: Tuple[Tuple[Tuple[Any, ...], Location], ...] = ()
    positional_args: int = 0
    has_star_args: bool = False  # *args or **kwargs: the call cannot be read statically
    # The schema's top-level keys that ``dynamic_schema_overrides=`` may replace at run time:
    # () without overrides (or ``None``), None when unknown. An overrides function whose every
    # ``return`` is a dict display with constant keys gives those keys.
    override_keys: Optional[Tuple[str, ...]] = ()
    # A ``dynamic_schema_overrides=`` function is passed (not absent, not ``None``): the runtime
    # calls it for the definitions, so the manifest marks the tool to be imported.
    has_dynamic_schema_overrides: bool = False
    # The plugin that registered it (``ctx.register_tool(...)`` reached from its ``register(ctx)``:
    # ``hermes_lint.project.registration_sites``), None for a top-level ``registry.register(...)``.
    plugin_name: Optional[str] = None
    # When the overrides may replace ``parameters`` but can only keep or drop the static
    # properties (``override_properties``): the static properties every path keeps; else None.
    override_kept_properties: Optional[Tuple[str, ...]] = None

    @property
    def plugin(self) -> bool:
        """Registered by a plugin rather than by a tool module."""
        return self.plugin_name is not None

    def overrides_may_change(self, key: str) -> bool:
        """Whether run-time overrides may replace the schema's top-level ``key``."""
        return self.override_keys is None or key in self.override_keys

    def keyword(self, name: str) -> Optional[Keyword]:
        for kw in self.keywords:
            if kw.name == name:
                return kw
        return None

    def value(self, name: str, default: Any = None) -> Any:
        for key, val in self.values:
            if key == name:
                return val
        return default

    def schema_location(self, path: Tuple[Any, ...]) -> Optional[Location]:
        """Location of the key at ``path``, or of its nearest located ancestor."""
        table = dict(self.schema_locations)
        while path:
            if path in table:
                return table[path]
            path = path[:-1]
        return None


@dataclass(frozen=True)
class MisplacedRegisterCall:
    """A ``registry.register`` call that runtime discovery never runs on import (HRM002)."""

    location: Location
    reason: str


@dataclass(frozen=True)
class EnvRead:
    """A read of an environment variable whose name is a constant string."""

    name: str
    location: Location
    function: Optional[str]  # enclosing module-level function, None at module level
    required: bool  # os.environ["X"] (KeyError when unset) vs getenv/.get


@dataclass(frozen=True)
class ModuleFacts:
    """Everything the project rules and the manifest need to know about one file."""

    path: str  # relative to the project root, '/'-separated
    module: str  # dotted import name, e.g. "tools.weather_tool"
    sha256: str
    registers_tools: bool  # the runtime's discovery predicate
    registrations: Tuple[Registration, ...] = ()
    misplaced_calls: Tuple[MisplacedRegisterCall, ...] = ()
    env_reads: Tuple[EnvRead, ...] = ()
    parse_error: Optional[Diagnostic] = None
    extra: Tuple[Tuple[str, Any], ...] = field(default=())
    # Register calls in a discovered module that are not top-level statements (inside `if`,
    # `try`, a function...): they may register names static analysis does not see.
    unread_register_calls: Tuple[Location, ...] = ()
    # Other files of the project whose syntax values were read from (cross-module evaluation),
    # with the sha256 they had: (("tools/shared/schema.py", "ab12..."), ...). Facts and findings
    # of this module are stale when one of them changes.
    read_modules: Tuple[Tuple[str, str], ...] = ()
    # Plugin register calls that cannot be read, and places where the plugin context goes where
    # it cannot be followed: (location, why). Reported as "cannot verify" (HRM003).
    unread_plugin_calls: Tuple[Tuple[Location, str], ...] = ()
