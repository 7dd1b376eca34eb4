from __future__ import annotations

from typing import Iterator

from hermes_lint.rules.base import Finding, Invalid, Rule, Valid

_WEATHER = """
import os
from tools.registry import registry

def check_weather():
    return bool(os.getenv("WEATHER_API_KEY"))

def weather(args, **kwargs):
    return "{}"

SCHEMA = {"name": "weather", "description": "Current weather.",
          "parameters": {"type": "object", "properties": {}}}
registry.register(name="weather", toolset="web", schema=SCHEMA, handler=weather,
                  check_fn=check_weather, requires_env=["WEATHER_API_KEY"])
"""

# The same tool after an edit: a new parameter, so the frozen schema no longer matches.
_WEATHER_EDITED = _WEATHER.replace(
    '"properties": {}',
    '"properties": {"city": {"type": "string", "description": "City."}}',
)

MANIFEST_PATH = "tools/manifest.json"


class StaleManifest(Rule):
    """The tool manifest (``tools/manifest.json``) no longer matches the sources.

    The runtime loads tools from the manifest without importing their modules; a manifest
    generated before the last edit of a tool file, of ``toolsets.py`` or of hermes-lint itself
    describes tools that no longer exist in that form. (The runtime notices changed files by
    their hash and imports those modules instead, with a warning, so it stays correct — but every
    start pays for those imports until the manifest is regenerated.) Fix: run
    ``hermes-lint manifest`` and commit the result.

    Reported by ``hermes-lint manifest --check`` (CI and the pre-commit hook run it), at line 1
    of the manifest, when the file on disk differs in any byte from what generation would write
    now, or is missing; ``--diff`` shows the difference. ``hermes-lint check`` reports it too
    when the project has a manifest (a project without one is not asked for one), from the same
    inputs (``hermes_lint.manifest.inputs``), so that ``check``, ``check --fix`` and
    ``manifest --check`` always agree.

    The examples run through ``manifest --check`` (``rule_examples``): the example code is the
    tool module; ``options["manifest_of"]``, when given, is the tool module the manifest on disk
    was generated from (the same code: fresh; older code: stale); without it there is no
    manifest on disk.
    """

    code = "HRM501"
    summary = "the manifest is out of date"
    scope = "engine"
    # The fix is the regeneration itself, done by `check --fix` when the project has a manifest
    # (``hermes_lint.autofix.command``), not an edit of a finding's text.
    fix_applicability = "safe"
    fix_title = "regenerate the manifest (`check --fix` does, when the project has one; or `hermes-lint manifest`)"
    examples_run_by = "manifest --check"

    valid = [
        Valid(_WEATHER, options={"manifest_of": _WEATHER}),
    ]
    invalid = [
        # generated before the schema gained `city`
        Invalid(_WEATHER_EDITED, line=1, col=1, path=MANIFEST_PATH,
                message="manifest is out of date, run `hermes-lint manifest`",
                options={"manifest_of": _WEATHER}),
        # never generated
        Invalid(_WEATHER, line=1, col=1, path=MANIFEST_PATH),
    ]

    def check(self, ctx) -> Iterator[Finding]:  # pragma: no cover - produced by `manifest --check`
        return iter(())
