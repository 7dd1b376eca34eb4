"""Provider compatibility (HRM601–HRM607): the engine that applies a rule's rows of the table
(``provider_table``: what each provider's API rejects or Hermes's adapter rewrites, one row per
fact with its source) to the registrations, through the checks the rows name (``provider_checks``
per schema node or tool, ``provider_requests`` per model request), and the two base classes of
the provider rules. With no provider target selected every HRM6xx rule is silent."""

from __future__ import annotations

from typing import Any, FrozenSet, Iterator, Optional

from hermes_lint.model import Location, Registration
from hermes_lint.model.context import ModuleContext
from hermes_lint.model.schema_walk import JsonPath, SubSchema, locate, parameters_of, schema_nodes
from hermes_lint.rules.base import Finding, Rule
from hermes_lint.rules.provider_checks import NODE_CHECKS, TOOL_CHECKS
from hermes_lint.rules.provider_requests import REQUEST_CHECKS, tool_requests
from hermes_lint.rules.provider_table import CONSTRAINTS, Violation, active_targets, constraints_of, rule_doc, rule_sources

__all__ = ["ProviderModuleRule", "ProviderProjectRule", "rule_doc", "rule_sources"]

# --------------------------------------------------------------------------- the engine


def _reached(node: Optional[SubSchema], reach: Optional[FrozenSet[str]]) -> bool:
    while reach is not None and node is not None:
        if node.via not in reach:
            return False
        node = node.parent
    return True


def violations(code: str, registration: Registration, config: Any, ctx: Any) -> Iterator[Violation]:
    """Every per-tool violation of ``code``'s rows for the selected targets, in source order."""
    targets = active_targets(config)
    rows = [c for c in constraints_of(code) if c.target in targets]
    if not rows:
        return
    for constraint in rows:
        check = TOOL_CHECKS.get(constraint.check)
        if check is not None:
            for path, text in check(registration, constraint):
                yield Violation(constraint, path, text, constraint.defer_to is not None)
    if parameters_of(registration.schema) is None:
        return  # unknown (HRM301) or malformed (HRM304): nothing to judge
    node_rows = [c for c in rows if c.check in NODE_CHECKS]
    for node in schema_nodes(ctx, registration):
        for constraint in node_rows:
            if not _reached(node, constraint.reach):
                continue
            for found in NODE_CHECKS[constraint.check](node, constraint):
                deferred = found[2] if len(found) > 2 else constraint.defer_to is not None
                yield Violation(constraint, found[0], found[1], deferred)


def _location(registration: Registration, path: Optional[JsonPath], ctx: Any) -> Location:
    if path is None:
        keyword = registration.keyword("name")
        return keyword.value_location if keyword is not None else registration.location
    # A module context also locates positional arguments; project rules have facts only.
    return locate(registration, path, ctx if isinstance(ctx, ModuleContext) else None)


def _kept(violation: Violation, config: Any, path: str) -> bool:
    return not (violation.deferred and config.is_selected(violation.constraint.defer_to, path))


def module_findings(code: str, ctx: Any) -> Iterator[Finding]:
    """``check`` of a module-scope provider rule."""
    if not active_targets(ctx.config):
        return  # no provider selected (the default): nothing to compute
    for registration in ctx.facts.registrations:
        for violation in violations(code, registration, ctx.config, ctx):
            if _kept(violation, ctx.config, ctx.path):
                yield Finding(_location(registration, violation.path, ctx), violation.message())


def project_findings(code: str, ctx: Any) -> Iterator[Finding]:
    """``check`` of a project-scope provider rule: per-tool rows for every module, then the
    per-request rows (limits over the tools one request carries)."""
    if not active_targets(ctx.config):
        return  # no provider selected (the default): nothing to compute
    for module, registration in ctx.registrations():
        for violation in violations(code, registration, ctx.config, ctx):
            if _kept(violation, ctx.config, module.path):
                yield Finding(_location(registration, violation.path, ctx), violation.message(), module.path)
    targets = active_targets(ctx.config)
    rows = [c for c in constraints_of(code) if c.target in targets and c.check in REQUEST_CHECKS]
    if rows:
        for request in tool_requests(ctx):
            for constraint in rows:
                text = REQUEST_CHECKS[constraint.check](request, constraint, ctx)
                if text is not None:
                    finding_text = f"{request.label} {text} ({constraint.target}: {constraint.effect})"
                    yield Finding(request.location, finding_text, request.path)



class ProviderModuleRule(Rule):
    """A module-scope provider rule (HRM602, HRM604-606): its rows of the table, per module."""

    def check(self, ctx: Any) -> Iterator[Finding]:
        yield from module_findings(self.code, ctx)


class ProviderProjectRule(Rule):
    """A project-scope provider rule (HRM601, HRM603): its rows over every module's facts,
    schemas included, and the per-request limits over each toolset."""

    scope = "project"

    @classmethod
    def needs_schemas(cls, config: Any) -> bool:
        return bool(active_targets(config))  # no provider selected: the rule reads nothing

    def check(self, ctx: Any) -> Iterator[Finding]:
        yield from project_findings(self.code, ctx)


def _self_check() -> None:
    # Every row names a check the engine has: a typo in the table must fail at import, not hide.
    known = set(NODE_CHECKS) | set(TOOL_CHECKS) | set(REQUEST_CHECKS)
    for constraint in CONSTRAINTS:
        if constraint.check not in known:  # pragma: no cover - guarded by import in tests
            raise RuntimeError(f"{constraint.code}: unknown check {constraint.check!r}")


_self_check()
