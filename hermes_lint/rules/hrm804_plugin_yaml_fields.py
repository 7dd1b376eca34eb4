from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterator

from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import MANIFEST, REGISTER, PluginRule

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.project.plugin_yaml import ManifestDocument

ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
REQUIRED = ("name", "version", "description")
STRING_LISTS = ("provides_tools", "provides_hooks")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    return {dict: "a mapping", list: "a list", str: "a string", type(None): "empty"}.get(type(value), type(value).__name__)


class PluginYamlFields(PluginRule, Rule):
    """A ``plugin.yaml`` field has a shape Hermes cannot use.

    What Hermes 0.19.0 does with each (``hermes_cli/plugins.py``, ``_parse_manifest``;
    ``hermes_cli/plugins_cmd.py``):

    - a document that is not a mapping (a list, a string): ``data.get(...)`` raises, the loader logs
      "Failed to parse" and the plugin is not loaded;
    - ``name``, ``version``, ``description`` missing or empty: the loader falls back to the
      directory's name and empty strings, so ``hermes plugins list`` shows a nameless, versionless
      plugin, and the plugin catalogue's admission check (``hermes plugins validate``) requires all
      three. A ``version`` YAML reads as a number (``version: 1.10``) is shown as ``str()`` of that
      number (``1.1``): quote it;
    - ``provides_tools``/``provides_hooks`` not a list of strings: they are kept as written, and the
      code that walks them (``hermes plugins`` listing a plugin's tools, toolset toggling) iterates a
      string character by character or fails on a mapping;
    - a ``requires_env`` entry that is neither a string nor a mapping with a ``name``: skipped
      without a word when Hermes prompts for missing variables at install and checks them, so the
      variable is never asked for. Names must be ``UPPER_SNAKE_CASE``, as environment variables are
      (the catalogue's check says so too).
    """

    code = "HRM804"
    summary = "a plugin.yaml field has a shape Hermes cannot use"

    valid = [
        Valid(MANIFEST, files={"__init__.py": REGISTER}),
        Valid(
            """
            name: echo
            version: "1.10"
            description: Echo text back.
            provides_tools: [echo]
            provides_hooks: []
            requires_env:
              - ECHO_API_KEY
              - name: ECHO_REGION
                description: Where the echo service runs
            """,
            files={"__init__.py": REGISTER},
        ),
    ]
    invalid = [
        Invalid(
            """
            name: echo
            version: 1.10
            description: Echo text back.
            provides_tools: echo
            """,
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=2,
            col=10,
            message="`version` is the number 1.1 as YAML reads it, and Hermes shows `1.1`: quote it",
            also=((4, 17),),
            fix=(("version: 1.10", 'version: "1.10"'), ("provides_tools: echo", "provides_tools: [echo]")),
        ),
        Invalid(
            """
            name: echo
            version: 1.0.0
            description: Echo text back.
            provides_tools: [echo]
            requires_env:
              - echo_api_key
              - {description: the region}
            """,
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=6,
            col=5,
            message="`requires_env` entry `echo_api_key` is not an UPPER_SNAKE_CASE environment variable name",
            also=((7, 5),),
        ),
        Invalid(
            """
            - name: echo
            - version: 1.0.0
            """,
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=1,
            col=1,
            message='plugin.yaml is a list, not a mapping: Hermes logs "Failed to parse" and does not load the plugin',
        ),
        Invalid(
            """
            name: echo
            provides_tools: [echo]
            """,
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=1,
            col=1,
            message="plugin.yaml has no `version`: Hermes shows the plugin without one, and the plugin catalogue requires it",
            also=((1, 1),),
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        for view in plugin_views(ctx):
            document = view.document
            if document is not None:
                yield from self._check(document)

    def _check(self, document: ManifestDocument) -> Iterator[Finding]:
        data = {} if document.data is None else document.data
        path = document.path
        if not isinstance(data, dict):
            yield Finding(
                document.location(),
                f'plugin.yaml is {_kind(data)}, not a mapping: Hermes logs "Failed to parse" and does not load the plugin',
                path,
            )
            return
        for key in REQUIRED:
            value = data.get(key)
            if key not in data or value is None or value == "":
                where = document.location(key) if key in data else document.location()
                yield Finding(
                    where,
                    f"plugin.yaml has no `{key}`: Hermes shows the plugin without one, and the plugin catalogue requires it",
                    path,
                )
            elif key == "version" and isinstance(value, (int, float)) and not isinstance(value, bool):
                if isinstance(value, float):
                    yield Finding(
                        document.value_location(key),
                        f"`version` is the number {value!r} as YAML reads it, and Hermes shows `{value}`: quote it",
                        path,
                    )
            elif not isinstance(value, str) and key != "version":
                yield Finding(document.value_location(key), f"`{key}` is {_kind(value)}, not a string", path)
        for key in STRING_LISTS:
            if key not in data or data[key] is None:
                continue
            value = data[key]
            if not isinstance(value, list):
                yield Finding(document.value_location(key), f"`{key}` is {_kind(value)}, not a list of names", path)
                continue
            for number, item in enumerate(value):
                if not isinstance(item, str):
                    yield Finding(document.location(key, number), f"`{key}` entry is {_kind(item)}, not a name", path)
        yield from self._requires_env(document, data.get("requires_env"))

    def _requires_env(self, document: ManifestDocument, entries: Any) -> Iterator[Finding]:
        path = document.path
        if entries is None:
            return
        if not isinstance(entries, list):
            yield Finding(document.value_location("requires_env"), f"`requires_env` is {_kind(entries)}, not a list", path)
            return
        for number, entry in enumerate(entries):
            where = document.location("requires_env", number)
            name = entry.get("name") if isinstance(entry, dict) else entry
            if isinstance(entry, dict) and not isinstance(name, str):
                yield Finding(
                    where,
                    "`requires_env` entry has no `name`: Hermes skips it, and never asks for the variable",
                    path,
                )
            elif not isinstance(name, str):
                yield Finding(
                    where,
                    f"`requires_env` entry is {_kind(entry)}: Hermes skips it (a name or a mapping with `name:`)",
                    path,
                )
            elif not ENV_NAME.match(name):
                yield Finding(
                    where,
                    f"`requires_env` entry `{name}` is not an UPPER_SNAKE_CASE environment variable name",
                    path,
                )
