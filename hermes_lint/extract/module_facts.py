"""Module facts: turn a parsed file (``model.parsing.parse_module``) into plain facts. Nothing is
imported or executed.

``extract_facts`` gives the frozen ``ModuleFacts`` (for project rules, the manifest and the cache).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from hermes_lint.model.context import char_col
from hermes_lint.model.env_readers import environment_readers
from hermes_lint.model.env_spellings import EnvSpellings
from hermes_lint.discovery import is_registry_register_call, tree_registers_tools
from hermes_lint.model.semantic import NESTED
from hermes_lint.model.parsing import ParsedModule, Positioned, module_name, source_segment
from hermes_lint.project.plugin_rows import LOCAL_IMPORT, LOCAL_VALUE, TABLE_ROW
from hermes_lint.project.plugin_tools import plugin_calls
from hermes_lint.project.remote_sites import relocated
from hermes_lint.project.registration_sites import PLUGIN_PARAMETERS
from hermes_lint.project.registry_contract import BUILTIN, RegistryContract
from hermes_lint.model.override_properties import kept_properties
from hermes_lint.model.schema_walk import display_path, structural_hole
from hermes_lint.model import (
    CallableRef,
    EnvRead,
    Keyword,
    Location,
    MisplacedRegisterCall,
    ModuleFacts,
    Registration,
    Unresolved,
)

if TYPE_CHECKING:
    from hermes_lint.model.semantic import SemanticModel

# Keywords whose values are data (evaluated statically) rather than callables.
VALUE_PARAMETERS = ("requires_env", "is_async", "description", "emoji", "max_result_size_chars", "override")


class _Extractor:
    def __init__(
        self,
        parsed: ParsedModule,
        semantic: "SemanticModel",
        env_readers: Tuple[str, ...] = (),
        contract: RegistryContract = BUILTIN,
        plugin_entries: Tuple = (),
    ):
        if parsed.tree is None:
            raise ValueError(f"{parsed.path} did not parse: it has no facts to extract")
        self.parsed = parsed
        self.env_readers = env_readers  # the ``env-readers`` setting
        self.positional = contract.positional
        self.tree: ast.Module = parsed.tree
        self.semantic = semantic
        self.index = semantic.index
        self.evaluator = semantic.evaluator
        self.registry_aliases = self._registry_aliases()
        self.plugin_entries = plugin_entries  # ``plugin_tools.Entry`` of this module's register functions
        self.plugin_positional = PLUGIN_PARAMETERS

    def loc(self, node: Positioned) -> Location:
        return Location(node.lineno, char_col(self.parsed.lines, node.lineno, node.col_offset))

    # --- registrations -------------------------------------------------------------------

    def registrations(self, discovered: bool) -> Tuple[Registration, ...]:
        calls = [
            (self.registration(stmt.value), stmt.value)
            for stmt in self.tree.body
            if discovered
            and isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and is_registry_register_call(stmt.value)
        ]
        found = plugin_calls(self.tree, self.index, self.plugin_entries, self.evaluator).read
        calls += [
            (replace(relocated(self.registration(call), call, self.evaluator),
                     plugin_name=plugin or self._default_plugin_name()), call)
            for call, plugin in found
        ]
        self.semantic.registration_calls = calls  # rules follow a registration into its call
        return tuple(registration for registration, _ in calls)

    def _default_plugin_name(self) -> str:
        """A plugin module checked without its plugin: named after its package directory."""
        parts = self.parsed.path.split("/")
        return parts[-2] if len(parts) > 1 else parts[-1][:-3] if parts[-1] != "__init__.py" else "plugin"

    def registration(self, call: ast.Call) -> Registration:
        arguments: Dict[str, ast.expr] = {}
        keywords: List[Keyword] = []
        has_star = any(isinstance(arg, ast.Starred) for arg in call.args)
        for position, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred) or position >= len(self.positional):
                continue
            arguments[self.positional[position]] = arg
        for kw in call.keywords:
            if kw.arg is None:
                has_star = True
                continue
            arguments[kw.arg] = kw.value
            keywords.append(Keyword(kw.arg, self._keyword_location(kw), self.loc(kw.value)))

        def evaluated(name: str) -> Any:
            node = arguments.get(name)
            if node is None:
                return Unresolved(f"no {name}= argument")
            return self.evaluator.evaluate(node)

        schema = self.evaluator.evaluate(arguments["schema"], partial=True) if "schema" in arguments else evaluated("schema")
        if not isinstance(schema, Unresolved):
            structural = structural_hole(schema)
            if structural is not None:  # its structure is unknown: as unknown as no schema at all
                path, hole = structural
                where = "" if len(path) < 2 else f" (at `{display_path(path)}`)"
                schema = Unresolved(f"{hole.reason}{where}", hole.location)
        schema_locations: Tuple = ()
        if "schema" in arguments and not isinstance(schema, Unresolved):
            schema_locations = tuple(sorted(self.evaluator.locations_of(schema).items(), key=_repr_key))
        values = tuple(
            (name, self.evaluator.evaluate(arguments[name]))
            for name in VALUE_PARAMETERS
            if name in arguments
        )
        overrides = arguments.get("dynamic_schema_overrides")
        if isinstance(overrides, ast.Constant) and overrides.value is None:
            overrides = None  # `dynamic_schema_overrides=None` is no overrides function
        return Registration(
            location=self.loc(call),
            end_line=getattr(call, "end_lineno", call.lineno) or call.lineno,
            name=evaluated("name"),
            toolset=evaluated("toolset"),
            schema=schema,
            handler=self.callable_ref(arguments["handler"]) if "handler" in arguments else None,
            check_fn=self.callable_ref(arguments["check_fn"]) if "check_fn" in arguments else None,
            keywords=tuple(keywords),
            values=values,
            schema_locations=schema_locations,
            positional_args=len(call.args),
            has_star_args=has_star,
            override_keys=None if has_star else self.override_keys(overrides),
            override_kept_properties=None if has_star else self.override_kept_properties(overrides, schema),
            has_dynamic_schema_overrides=overrides is not None,
        )

    def override_keys(self, node: Optional[ast.expr]) -> Optional[Tuple[str, ...]]:
        """See ``Registration.override_keys``."""
        if node is None:
            return ()
        if isinstance(node, ast.Lambda):
            return _returned_keys([node.body])
        function = self.semantic.functions.get(node.id) if isinstance(node, ast.Name) else None
        if function is not None:
            returns = [stmt.value for stmt in _own_returns(function)]
            return _returned_keys(returns)
        return None

    def override_kept_properties(self, node: Optional[ast.expr], schema: Any) -> Optional[Tuple[str, ...]]:
        """See ``Registration.override_kept_properties``."""
        function = self.semantic.functions.get(node.id) if isinstance(node, ast.Name) else None
        parameters = schema.get("parameters") if isinstance(schema, dict) else None
        properties = parameters.get("properties") if isinstance(parameters, dict) else None
        if function is None or not isinstance(properties, dict):
            return None
        static = frozenset(k for k in properties if isinstance(k, str))
        return kept_properties(function, static, self.evaluator.evaluate, self.index.imports)

    def _keyword_location(self, kw: ast.keyword) -> Location:
        # ast.keyword carries its own position since Python 3.9.
        if getattr(kw, "lineno", None) is not None:
            return self.loc(kw)
        return self.loc(kw.value)

    def callable_ref(self, node: ast.expr) -> CallableRef:
        text = source_segment(self.parsed.lines, node)
        location = self.loc(node)
        if isinstance(node, ast.Lambda):
            body = node.body
            target = None
            if isinstance(body, ast.Call) and isinstance(body.func, ast.Name):
                if body.func.id in self.index.functions:
                    target = body.func.id
            return CallableRef("lambda", text, location, target)
        if isinstance(node, ast.Name) and node.id.startswith((LOCAL_VALUE, TABLE_ROW)):
            return CallableRef("other", text, location)  # computed by the plugin at run time
        if isinstance(node, ast.Name) and node.id.startswith(LOCAL_IMPORT):
            # imported inside the plugin function that registers (``plugin_tools``)
            return CallableRef("imported", text, location, node.id[len(LOCAL_IMPORT):])
        if isinstance(node, ast.Name) and NESTED in node.id:
            # a nested def a row of a plugin's table holds (``plugin_tools``): named where it is defined
            found = self.semantic.nested_function(node.id)
            return CallableRef("function" if found else "other", found[0].name if found else text, location,
                               node.id if found else None)
        if isinstance(node, ast.Name):
            return self._name_ref(node.id, text, location, seen=set())
        if isinstance(node, ast.Attribute):
            return CallableRef("attribute", text, location)
        if isinstance(node, ast.Call):
            return CallableRef("call", text, location)
        if isinstance(node, ast.Constant):
            return CallableRef("literal", text, location)
        return CallableRef("other", text, location)

    def _name_ref(self, name: str, text: str, location: Location, seen: set) -> CallableRef:
        if name in self.index.functions and name not in self.index.assigned:
            return CallableRef("function", text, location, name)
        if name in self.index.imports:
            return CallableRef("imported", text, location, self.index.imports[name])
        values = self.index.assigned.get(name)
        if values and len(values) == 1 and name not in seen:
            # `check = _check_impl`: follow a plain alias of a module function.
            value = values[0]
            if isinstance(value, ast.Name):
                seen.add(name)
                return self._name_ref(value.id, text, location, seen)
            if isinstance(value, ast.Lambda):
                return CallableRef("lambda", text, location, self.callable_ref(value).target)
        if self.index.is_bound(name) or name in _BUILTIN_NAMES:
            return CallableRef("other", text, location)
        return CallableRef("undefined", text, location)

    # --- calls runtime discovery never runs ----------------------------------------------

    def _registry_aliases(self) -> Dict[str, str]:
        """Local names that certainly are the registry under another name."""
        aliases: Dict[str, str] = {}
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").endswith("registry"):
                for alias in stmt.names:
                    if alias.name == "registry" and alias.asname and alias.asname != "registry":
                        aliases[alias.asname] = f"imported as {alias.asname}"
            elif (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Name)
                and stmt.value.id == "registry"
            ):
                for target in stmt.targets:
                    if isinstance(target, ast.Name) and target.id != "registry":
                        aliases[target.id] = f"assigned to {target.id}"
        return aliases

    def misplaced_calls(self, discovered: bool) -> Tuple[MisplacedRegisterCall, ...]:
        """Register calls that would run on import, in a file discovery will not import.

        A file with at least one top-level ``registry.register(...)`` statement is imported,
        so everything at its module level runs: only undiscovered files are reported. Calls
        inside a function are reported only when that function is called at module level;
        otherwise something else may call it at run time and we cannot know.
        """
        if discovered:
            return ()
        found: List[MisplacedRegisterCall] = []
        called_at_top = self._functions_called_at_module_level()
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if stmt.name in called_at_top:
                    for call in self._register_calls(stmt):
                        found.append(
                            MisplacedRegisterCall(
                                self.loc(call),
                                f"it is inside function `{stmt.name}`, which runs at import, but "
                                "discovery only looks for top-level `registry.register(...)` statements",
                            )
                        )
                continue
            if isinstance(stmt, ast.ClassDef):
                continue
            for call in self._register_calls(stmt):
                found.append(MisplacedRegisterCall(self.loc(call), self._reason(stmt, call)))
        return tuple(found)

    def _reason(self, stmt: ast.stmt, call: ast.Call) -> str:
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(receiver, ast.Name) and receiver.id in self.registry_aliases:
            return f"the registry is called through an alias (`{receiver.id}`)"
        if not (isinstance(receiver, ast.Name) and receiver.id == "registry"):
            return "the registry is reached through an attribute chain"
        if isinstance(stmt, ast.Expr) and stmt.value is call:
            return "it is not a top-level statement"  # pragma: no cover - discovered files skip
        block = {
            ast.If: "an `if` block",
            ast.Try: "a `try` block",
            ast.With: "a `with` block",
            ast.For: "a `for` loop",
            ast.While: "a `while` loop",
        }
        for kind, label in block.items():
            if isinstance(stmt, kind):
                return f"it is inside {label}"
        try_star = getattr(ast, "TryStar", None)  # Python 3.11+
        if try_star is not None and isinstance(stmt, try_star):
            return "it is inside a `try` block"
        return "its result is used in an expression or assignment"

    def _register_calls(self, stmt: ast.AST) -> List[ast.Call]:
        """The register calls under ``stmt``."""
        calls = []
        for node in self.index.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr != "register":
                    continue
                receiver = node.func.value
                if isinstance(receiver, ast.Name) and (
                    receiver.id == "registry" or receiver.id in self.registry_aliases
                ):
                    calls.append(node)
                elif isinstance(receiver, ast.Attribute) and receiver.attr == "registry":
                    calls.append(node)  # tools.registry.registry.register(...)
        return calls

    def _functions_called_at_module_level(self) -> set:
        names = set()
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for node in self.index.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    names.add(node.func.id)
        return names

    def unread_register_calls(self, discovered: bool) -> Tuple[Location, ...]:
        """In a discovered module, the register calls that are not top-level statements."""
        if not discovered:
            return ()
        top_level = {
            id(stmt.value)
            for stmt in self.tree.body
            if isinstance(stmt, ast.Expr) and is_registry_register_call(stmt.value)
        }
        # Python reads identifiers in NFKC form (`ｒｅｇｉｓｔｅｒ` is `register`): the text's own
        # spelling counts only where no character may stand for an ASCII one.
        if self.index.spelled_as_read() and self.parsed.text.count("register") <= len(top_level):
            # Every `.register` attribute spells the word out: no other register call exists.
            return ()
        # A register call is an attribute `register` of `registry`, of an alias of it, or of an
        # attribute `registry` (``_register_calls``): only a statement spelling both words holds one.
        receivers = {id(stmt) for stmt in self.index.statements_spelling(("registry", *self.registry_aliases))}
        return tuple(
            self.loc(call)
            for stmt in self.index.statements_spelling(("register",))
            if id(stmt) in receivers
            for call in self._register_calls(stmt)
            if id(call) not in top_level
        )

    # --- environment reads ---------------------------------------------------------------

    def env_reads(self) -> Tuple[EnvRead, ...]:
        spellings = EnvSpellings(
            self.index.imports, environment_readers(self.index, self.evaluator, self.env_readers)
        )
        if not spellings.may_access:
            return ()  # every spelling goes through one of the names it binds

        def constant_name(node: Optional[ast.AST]) -> Optional[str]:
            if node is None:
                return None
            value = self.evaluator.evaluate(node)
            return value if isinstance(value, str) else None

        reads: List[EnvRead] = []
        # Every spelling of an access goes through one of these names: a statement that names
        # none of them holds no access, and is not walked (``ModuleIndex.statements_naming``).
        names = spellings.getenv_names | spellings.environ_names | spellings.os_names | spellings.reader_names
        for stmt in self.index.statements_naming(names):
            function = stmt.name if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if function is not None and function in spellings.reader_names:
                continue  # a reader reads its parameter: the calls of it name the variables
            for child in self.index.walk(stmt):
                if child.__class__ not in _ENV_READ_CLASSES or not isinstance(child, ast.expr):
                    continue  # the only kinds an access can be, in one set lookup
                access = spellings.access(child)
                if access is None:
                    continue
                name = constant_name(access.name_node)
                if name is not None:
                    reads.append(EnvRead(name, self.loc(child), function, access.kind == "subscript"))
        return tuple(reads)


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))
_ENV_READ_CLASSES = frozenset({ast.Call, ast.Subscript, ast.Compare})  # ast.parse makes no subclasses


def _repr_key(item: Tuple[Any, Any]) -> str:
    """``repr(item)`` for a ``(path, Location)`` pair, without the dataclass' generic repr
    (a few dozen per registration)."""
    path, where = item
    if type(where) is Location:
        return f"({path!r}, Location(line={where.line!r}, col={where.col!r}))"
    return repr(item)


def extract_facts(
    parsed: ParsedModule,
    semantic: Optional["SemanticModel"],
    env_readers: Tuple[str, ...] = (),
    contract: RegistryContract = BUILTIN,
    plugin_entries: Tuple = (),
    unfollowed: Tuple = (),
    environment: bool = True,
) -> ModuleFacts:
    """The frozen facts of one parsed module (a parse error gives facts with ``parse_error``);
    positional register arguments follow ``contract``. ``plugin_entries``: the module's plugin
    register functions (``plugin_tools.Entry``); ``unfollowed``: where discovery could not follow
    a plugin context in it (``plugin_register.Unfollowed``); ``environment=False``: no
    environment reads (``env_reads`` empty)."""
    from hermes_lint.model import Diagnostic

    name = module_name(parsed.path)
    if parsed.tree is None:
        assert parsed.error is not None  # a module without a tree has the reason
        line, col, message = parsed.error
        return ModuleFacts(
            path=parsed.path,
            module=name,
            sha256=parsed.sha256,
            registers_tools=False,
            parse_error=Diagnostic(parsed.path, line, col, "HRM001", message),
        )
    assert semantic is not None  # a module that parsed has its semantic model
    extractor = _Extractor(parsed, semantic, env_readers, contract, plugin_entries)
    discovered = tree_registers_tools(parsed.tree)
    return ModuleFacts(
        path=parsed.path,
        module=name,
        sha256=parsed.sha256,
        registers_tools=discovered,
        registrations=extractor.registrations(discovered),
        misplaced_calls=extractor.misplaced_calls(discovered),
        unread_register_calls=extractor.unread_register_calls(discovered),
        env_reads=extractor.env_reads() if environment else (),
        unread_plugin_calls=tuple(
            (extractor.loc(call), f"this register_tool call cannot be read ({reason}): its tool is not checked")
            for call, reason in plugin_calls(parsed.tree, semantic.index, plugin_entries, semantic.evaluator).unread
        )
        + tuple((Location(u.line, u.col), f"{u.reason}: the tools registered there are not checked") for u in unfollowed),
    )


def _own_returns(function: ast.AST) -> List[ast.Return]:
    """The ``return`` statements of ``function`` itself (not of functions nested in it)."""
    found: List[ast.Return] = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _returned_keys(values: List[Optional[ast.expr]]) -> Optional[Tuple[str, ...]]:
    """The keys of dict displays with constant string keys (``None`` returns add none), or None."""
    keys: set = set()
    for value in values:
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            continue
        if not isinstance(value, ast.Dict):
            return None
        for key in value.keys:
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None  # `**spread` or a computed key
            keys.add(key.value)
    return tuple(sorted(keys))
