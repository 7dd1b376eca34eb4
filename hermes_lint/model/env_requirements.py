"""Which environment variables a tool's ``check_fn`` requires, and which its handler needs.

A variable is *required by the check* when, with that variable unset and nothing known about any
other, every path through the check returns something falsy or raises (the registry counts a
raising check as False). That is decided by a small abstract interpreter over the check's own
syntax and the module functions it calls (depth-bounded); the unset variable reads as ``None``
(or the ``getenv`` default), any other as "unset or a non-empty string", and anything the
interpreter cannot follow is "unknown", which never proves anything. So ``os.getenv("A") or
os.getenv("B")`` requires neither, ``if os.getenv("X_DISABLED"): return False`` does not require
``X_DISABLED``, and a backend switch such as ``if os.getenv("MODE") == "modal": return
bool(os.getenv("MODAL_TOKEN"))`` requires nothing.

A variable the *handler needs* is one read as ``os.environ["X"]`` (``KeyError`` when unset; or
through an environment reader that raises on every path without it) in the handler or a module function it calls, outside a ``try`` that catches the error and in a function
that does not also test the variable some optional way (``env_handler_reads``), or one without
which every path of the handler returns an error result.

The interpreter is ``env_interpreter`` (over the values of ``env_values``); whether a check calls
only what can be seen is ``check_closure``.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple

from hermes_lint.model.check_closure import CheckClosure
from hermes_lint.model.context import ModuleContext, walk
from hermes_lint.model.env_access import EnvAccessIndex
from hermes_lint.model.env_spellings import EnvAccess
from hermes_lint.model.env_assignments import variables_set_by_project
from hermes_lint.model.env_handler_reads import handler_required_reads
from hermes_lint.model.env_calls import CallMemo
from hermes_lint.model.env_interpreter import EnvRun, GiveUp
from hermes_lint.model.env_values import ERROR, truth
from hermes_lint.model.semantic import CallableNode
from hermes_lint.model import EnvRead, Location


class Unlisted(NamedTuple):
    """A variable a tool needs that its ``requires_env`` does not list, and why it is needed:
    "check" (the check requires it), "environ" (the handler reads ``os.environ[...]``
    unguarded), "error" (every path of the handler returns an error without it; with ", check
    does not test" or ", no check" when nothing hides the tool while it is unset)."""

    name: str
    where: Location
    why: str
    reader: Optional[str] = None  # "environ" through a call of this environment reader


class EnvAnalysis:
    """Environment analysis of one module, shared by the registrations in it."""

    def __init__(self, ctx: ModuleContext):
        self.ctx = ctx
        self.env = EnvAccessIndex.of(ctx)
        # Per function (by id; the semantic model keeps the nodes alive), computed once.
        self._required_by_check: Dict[int, Dict[str, Location]] = {}
        self._required_by_handler: Dict[int, Dict[str, Location]] = {}
        self._mentions: Dict[Tuple[int, ...], Set[str]] = {}
        self._calls = CallMemo()  # the interpreter's calls of module functions, across its runs
        self._set_by_project: Optional[FrozenSet[str]] = None

    def set_by_project(self, name: str) -> bool:
        """Whether the project itself assigns variable ``name`` (``env_assignments``): then it is
        no configuration of the user's. Looked up on first use, since it reads other modules."""
        if self._set_by_project is None:
            self._set_by_project = variables_set_by_project(self.ctx)
        return name in self._set_by_project

    @classmethod
    def of(cls, ctx: ModuleContext) -> "EnvAnalysis":
        """The module's analysis, made on first use (kept by the module's semantic model)."""
        return ctx.semantic.analysis(cls, ctx)

    # --- check_fn ----------------------------------------------------------------------

    def _run(self, fn: CallableNode, unset: Optional[str], handler: bool = False):
        run = EnvRun(self.ctx, self.env, unset, handler, self._calls)
        try:
            return run.outcomes(fn, [], {}, 0), run.reads
        except (GiveUp, RecursionError):
            return None, run.reads

    def required_by_check(self, fn: CallableNode) -> Dict[str, Location]:
        """Variables without which ``fn`` certainly fails, each with the location of its read."""
        if id(fn) in self._required_by_check:
            return self._required_by_check[id(fn)]
        required: Dict[str, Location] = {}
        base, reads = self._run(fn, None)
        # A check that fails whatever the environment says nothing about any one variable.
        if base is not None and not _all_falsy(base):
            queue, tested = list(reads), set()  # type: Tuple[List[str], Set[str]]
            while queue and len(tested) < 16:
                name = queue.pop(0)
                if name in tested:
                    continue
                tested.add(name)
                outcomes, unset_reads = self._run(fn, name)
                if outcomes is not None and _all_falsy(outcomes):
                    required[name] = reads.get(name) or unset_reads[name]
                queue.extend(n for n in unset_reads if n not in tested)
        self._required_by_check[id(fn)] = required
        return required

    def required_by_handler(self, fn: CallableNode) -> Dict[str, Location]:
        """Variables without which every path of the handler ``fn`` returns an error result
        (``tool_error``, ``{"error": ...}``) or raises, each with the location of its read. A
        handler that can succeed with nothing set, or fails whatever is set, requires none."""
        if id(fn) in self._required_by_handler:
            return self._required_by_handler[id(fn)]
        required: Dict[str, Location] = {}
        base, reads = self._run(fn, None, handler=True)
        # A base run that cannot be followed to the end (a ``with``, a ``while`` past the
        # variable's test) still names the variables read before that point: with one of them
        # unset, the run may end before it.
        if base is None or not _all_failed(base):
            for name in list(reads)[:16]:
                outcomes, unset_reads = self._run(fn, name, handler=True)
                if outcomes is not None and _all_failed(outcomes):
                    required[name] = reads.get(name) or unset_reads[name]
        self._required_by_handler[id(fn)] = required
        return required

    def unlisted(
        self, check: Optional[CallableNode], handler: Optional[CallableNode], listed: Set[str], check_given: bool
    ) -> List[Unlisted]:
        """The variables the tool with this ``check`` and ``handler`` needs that are not in
        ``listed`` nor set by the project itself, each once, the check's reasons first."""
        found: Dict[str, Unlisted] = {}

        def add(name: str, where: Location, why: str, reader: Optional[str] = None) -> None:
            if name not in listed and name not in found and not self.set_by_project(name):
                found[name] = Unlisted(name, where, why, reader)

        for name, where in (self.required_by_check(check) if check is not None else {}).items():
            add(name, where, "check")
        if handler is not None:
            for read, access in self.handler_required_reads(handler):
                add(read.name, read.location, "environ", _reader_name(access))
            for name, where in self.required_by_handler(handler).items():
                if not check_given:
                    add(name, where, "error, no check")
                elif check is not None and name not in listed and self.check_never_tests(check, name):
                    add(name, where, "error, check does not test")
                else:
                    add(name, where, "error")
        return list(found.values())

    def check_never_tests(self, fn: CallableNode, name: str) -> bool:
        """True when the check ``fn`` certainly does not read variable ``name``: it is closed,
        it can be followed to the end, and no path of it reads ``name``."""
        if not self.check_is_closed(fn):
            return False
        base, reads = self._run(fn, None)
        return base is not None and name not in reads

    def check_is_closed(self, fn: CallableNode) -> bool:
        """True when everything ``fn`` calls is visible here or in the standard library."""
        return CheckClosure(self.ctx).is_closed(fn)

    # --- handler -----------------------------------------------------------------------

    def handler_required_reads(self, fn: CallableNode) -> List[Tuple[EnvRead, EnvAccess]]:
        """``os.environ[...]`` reads (and calls of readers that raise without their variable)
        the handler ``fn`` (or what it calls) makes unguarded."""
        return handler_required_reads(self.ctx, self.env, fn)

    # --- requires_env ------------------------------------------------------------------

    def mentioned_elsewhere(self, name: str, excluded: List[ast.AST]) -> bool:
        """Whether the string ``name`` occurs in the module outside the ``excluded`` nodes
        (the ``requires_env=`` arguments) and outside constants used only by them."""
        key = tuple(id(n) for n in excluded)
        if key not in self._mentions:
            inside = {id(n) for root in excluded for n in walk(root)}
            used_elsewhere = {
                n.id
                for n in self.ctx.index.nodes()
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in inside
            }
            skipped = set(inside)
            for stmt in self.ctx.tree.body:
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    if all(isinstance(t, ast.Name) and t.id not in used_elsewhere for t in targets):
                        skipped.update(id(n) for n in walk(stmt.value))
            self._mentions[key] = {
                n.value
                for n in self.ctx.index.nodes()
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skipped
            }
        return name in self._mentions[key]


def _reader_name(access: EnvAccess) -> Optional[str]:
    """The name of the environment reader ``access`` calls, None for ``os.environ[...]``."""
    if access.reader is not None and isinstance(access.node, ast.Call) and isinstance(access.node.func, ast.Name):
        return access.node.func.id
    return None


def _all_failed(outcomes: List[Tuple[str, Any]]) -> bool:
    """Every path raises or returns an error result (and there is at least one path)."""
    return bool(outcomes) and all(kind == "raise" or value is ERROR for kind, value in outcomes)


def _all_falsy(outcomes: List[Tuple[str, Any]]) -> bool:
    return bool(outcomes) and all(kind == "raise" or truth(value) is False for kind, value in outcomes)
