"""An index entry's compact part: what the project phase reads of a module (``project_view``),
written as plain JSON lists (``project_record``) so that decoding a thousand entries is the C
parser's work, not a Python hook per object."""

from __future__ import annotations

import dataclasses
import json
from typing import Tuple

from hermes_lint import model
from hermes_lint.check.cache_codec import DECODER, allow_model_classes, encode_value

# What a registration's ``schema`` is in a project view (``project_view``).
SCHEMA_NOT_LOADED = model.Unresolved("schema not loaded from the cache (the project rules run need none)")

# What the project rules (scope "project", ``project/index.py``) read of a registration's
# keywords and values: where the name and the toolset are written, and ``override=``.
_PROJECT_KEYWORDS = frozenset({"name", "toolset"})
_PROJECT_VALUES = frozenset({"override"})


def project_view(facts: model.ModuleFacts) -> model.ModuleFacts:
    """The facts of a module as far as the project rules read them: every registration's name,
    toolset, locations, ``plugin``, ``has_star_args`` and ``override=``, the misplaced and
    unread register calls, the parse error. Without schemas (``SCHEMA_NOT_LOADED``), handlers,
    other keywords and environment reads: a tenth of the facts' bulk. A project rule that
    reads schemas says so (``Rule.needs_schemas``) and gets the full facts."""
    if not (facts.registrations or facts.env_reads or facts.extra):
        return facts
    registrations = tuple(
        dataclasses.replace(
            r,
            schema=SCHEMA_NOT_LOADED,
            schema_locations=(),
            handler=None,
            check_fn=None,
            keywords=tuple(k for k in r.keywords if k.name in _PROJECT_KEYWORDS),
            values=tuple(item for item in r.values if item[0] in _PROJECT_VALUES),
            override_keys=(),
            override_kept_properties=None,
        )
        for r in facts.registrations
    )
    return dataclasses.replace(facts, registrations=registrations, env_reads=(), extra=())


# An index entry's ``project``: the module's ``project_view``, module diagnostics and noqa
# comments, as JSON lists rather than tagged objects (decoding a thousand entries is then the C
# parser's work, not a Python hook per object): ``[module, registers_tools, [registration,
# ...], rest]``, a registration ``[line, col, end_line, name, toolset, [[keyword, line, col,
# value line, value col], ...], [[value name, value], ...], positional_args, has_star_args,
# plugin_name]`` (name, toolset and values ``encode``d), ``rest`` the ``encode``d (misplaced calls,
# parse error, unread register calls, diagnostics, noqa), or 0 when all are empty.


def project_record(facts: model.ModuleFacts, diagnostics: Tuple, noqa: Tuple) -> str:
    allow_model_classes()
    view = project_view(facts)
    registrations = [
        [
            r.location.line,
            r.location.col,
            r.end_line,
            encode_value(r.name),
            encode_value(r.toolset),
            [[k.name, k.location.line, k.location.col, k.value_location.line, k.value_location.col] for k in r.keywords],
            [[key, encode_value(value)] for key, value in r.values],
            r.positional_args,
            r.has_star_args,
            r.plugin_name,
        ]
        for r in view.registrations
    ]
    rest_values = (
        view.misplaced_calls, view.parse_error, view.unread_register_calls, tuple(diagnostics), tuple(noqa),
        view.unread_plugin_calls,
    )
    rest = encode_value(rest_values) if any(rest_values) else 0
    return json.dumps([view.module, view.registers_tools, registrations, rest], separators=(",", ":"))


def from_project_record(text: str, path: str, sha256: str, read_modules: Tuple) -> Tuple:
    """(project-view facts, diagnostics, noqa) of ``project_record``'s text."""
    allow_model_classes()
    module, registers_tools, encoded, rest = DECODER.decode(text)
    Location, Keyword = model.Location, model.Keyword
    registrations = tuple(
        model.Registration(
            Location(line, col),
            end_line,
            name,
            toolset,
            SCHEMA_NOT_LOADED,
            None,
            None,
            tuple(Keyword(k, Location(kl, kc), Location(vl, vc)) for k, kl, kc, vl, vc in keywords),
            tuple((key, value) for key, value in values),
            (),
            positional_args,
            has_star_args,
            (),
            plugin_name=plugin,
        )
        for line, col, end_line, name, toolset, keywords, values, positional_args, has_star_args, plugin in encoded
    )
    misplaced, parse_error, unread, diagnostics, noqa, unread_plugin = rest if rest != 0 else ((), None, (), (), (), ())
    if not (isinstance(module, str) and type(registers_tools) is bool):
        raise ValueError("not a project record")
    facts = model.ModuleFacts(
        path, module, sha256, registers_tools, registrations, misplaced, (), parse_error, (), unread, read_modules,
        unread_plugin,
    )
    return facts, diagnostics, noqa
