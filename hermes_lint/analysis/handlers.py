"""One registration's handler, put together: entry, primary functions, results, ``args`` reads.

``HandlerAnalyzer.of(ctx)`` is the module's analyzer (computed once per module);
``analyses(ctx)`` every registration's ``HandlerAnalysis`` in source order.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

from hermes_lint.analysis.argument_reads import ArgsUse, ArgumentReads
from hermes_lint.analysis.event_loops import handler_event_loop_calls
from hermes_lint.analysis.functions import FunctionFacts
from hermes_lint.analysis.return_kinds import ReturnKinds, ValueKind
from hermes_lint.model.callables import register_argument
from hermes_lint.model import Registration

if TYPE_CHECKING:
    from hermes_lint.model.semantic import CallableNode


@dataclass
class PrimaryFunction:
    """A function whose own returns and raises are the handler's (the def, or the lambda's callee)."""

    facts: FunctionFacts
    who: str  # how messages name it: "handler `_handle`", "handler `fetch` (via lambda)"


@dataclass
class HandlerAnalysis:
    registration: Registration
    kind: str  # "function" | "lambda" | "unknown"
    entry: Optional[ast.AST]  # the def or the Lambda the registry calls
    entry_label: str  # "handler `_handle`" / "handler lambda"
    primary: List[PrimaryFunction]
    results: List[ValueKind]  # what calling the handler returns, per path (before awaiting)
    entry_is_async: bool  # the entry is ``async def``
    awaitable_callee: Optional[str]  # a returned call of a module ``async def`` (un-awaited)
    args: ArgsUse
    event_loop_calls: List[Tuple[ast.Call, str, str]]  # (call, text, who)

    @property
    def known(self) -> bool:
        return self.kind != "unknown"


class HandlerAnalyzer(ReturnKinds, ArgumentReads):
    """Per-module analyzer; ``analysis(registration, call)`` is what rules use."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._analyses: Dict[int, HandlerAnalysis] = {}

    @classmethod
    def of(cls, ctx) -> "HandlerAnalyzer":
        """The module's analyzer, made on first use (kept by the module's semantic model)."""
        return ctx.semantic.analysis(cls, ctx)

    def analysis(self, registration: Registration, call: ast.Call) -> HandlerAnalysis:
        if id(call) not in self._analyses:
            try:
                self._analyses[id(call)] = self._analyse(registration, call)
            except RecursionError:  # absurdly nested code: unknown, never a crash
                self._analyses[id(call)] = self._unknown(registration)
        return self._analyses[id(call)]

    def all_analyses(self) -> List[HandlerAnalysis]:
        return [self.analysis(reg, call) for reg, call in self.ctx.registration_calls()]

    def _unknown(self, registration: Registration) -> HandlerAnalysis:
        return HandlerAnalysis(
            registration, "unknown", None, "", [], [], False, None, ArgsUse(all_visible=False), []
        )

    def _analyse(self, registration: Registration, call: ast.Call) -> HandlerAnalysis:
        ref = registration.handler
        if ref is None:
            return self._unknown(registration)
        if ref.kind == "function":
            facts = self.followable(ref.target or "")
            if facts is None or facts.is_generator:
                return self._unknown(registration)
            who = f"handler `{facts.name}`"
            entry, entry_facts, primary = facts.node, facts, [PrimaryFunction(facts, who)]
            results = [kind for _, kind in self.return_kinds(facts)]
            if facts.falls_off_line is not None:
                results.append(ValueKind("other", "None"))
        elif ref.kind == "lambda":
            entry = self.semantic.callable_node(register_argument(call, "handler"))
            if not isinstance(entry, ast.Lambda):
                return self._unknown(registration)
            entry_facts = self.lambda_facts(entry)
            who = "handler lambda"
            target = self.is_module_call(entry.body, entry_facts)
            if target is not None:
                target_facts = self.followable(target)
                if target_facts is None or target_facts.is_generator:
                    return self._unknown(registration)
                primary = [PrimaryFunction(target_facts, f"handler `{target}` (via lambda)")]
            else:
                primary = [PrimaryFunction(entry_facts, who)]
            results = [self.kind(entry.body, entry_facts, 0)]
        else:
            return self._unknown(registration)
        awaitable = next((k.detail for k in results if k.kind == "awaitable"), None)
        args = ArgsUse(functions={entry_facts.name or f"<lambda {entry.lineno}:{entry.col_offset}>"})
        params = entry.args
        positional = params.posonlyargs + params.args
        first = positional[0].arg if positional else None
        self.args_use(entry_facts, first, 0, ((entry_facts.name, first or ""),), args)
        return HandlerAnalysis(
            registration=registration,
            kind=ref.kind,
            entry=entry,
            entry_label=who,
            primary=primary,
            results=results,
            entry_is_async=isinstance(entry, ast.AsyncFunctionDef),
            awaitable_callee=awaitable,
            args=args,
            event_loop_calls=handler_event_loop_calls(self, primary, entry_facts),
        )


def analyses(ctx) -> List[HandlerAnalysis]:
    """Every registration's handler analysis, in source order (computed once per module)."""
    return HandlerAnalyzer.of(ctx).all_analyses()


def unique_primaries(ctx) -> List[PrimaryFunction]:
    """The functions whose own returns/raises are a handler's, each once (handlers may be shared)."""
    seen: Set[int] = set()
    found = []
    for analysis in analyses(ctx):
        for primary in analysis.primary:
            if id(primary.facts.node) not in seen:
                seen.add(id(primary.facts.node))
                found.append(primary)
    return found


def unique_entries(ctx) -> List[Tuple[HandlerAnalysis, "CallableNode"]]:
    """Each def or lambda a registry calls as a handler, once, with the analysis of the first
    registration that names it (one handler may serve several tools)."""
    seen: Set[int] = set()
    found = []
    for analysis in analyses(ctx):
        entry = analysis.entry
        if not isinstance(entry, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) or id(entry) in seen:
            continue
        seen.add(id(entry))
        found.append((analysis, entry))
    return found
