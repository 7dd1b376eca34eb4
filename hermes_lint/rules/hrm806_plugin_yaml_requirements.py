from __future__ import annotations

from typing import TYPE_CHECKING, Iterator


from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import REGISTER, PluginRule

if TYPE_CHECKING:  # pragma: no cover
    from hermes_lint.project.plugin_yaml import ManifestDocument

# The ``type`` names Hermes's manifest parser knows for a config_schema entry.
CONFIG_TYPES = frozenset(
    {"str", "string", "int", "integer", "float", "number", "bool", "boolean", "list", "array", "dict", "object", "secret"}
)

MANIFEST = """
name: echo
version: 1.0.0
description: Echo text back.
provides_tools: [echo]
requires_hermes: "{spec}"
config_schema:
  timeout:
    type: {type}
    default: 30
"""


class PluginYamlRequirements(PluginRule, Rule):
    """``requires_hermes`` is not a version specifier, or a ``config_schema`` entry has a type
    Hermes does not know.

    Both belong to the plugin manifest's second version (``manifest_version: 2``), which Hermes
    0.19.0 does not read yet and newer Hermes reads as advice, never failing a load: a
    ``config_schema`` entry that is not a mapping is skipped, and one whose ``type`` is not one of
    ``str``/``string``, ``int``/``integer``, ``float``/``number``, ``bool``/``boolean``,
    ``list``/``array``, ``dict``/``object`` or ``secret`` is kept with a logged warning and its
    value is never type-checked. ``requires_hermes`` is what the plugin catalogue's admission check
    (``hermes plugins validate``) reads to say which Hermes a plugin needs; it must parse as a PEP 440
    specifier set (``">=0.19,<0.21"``), which is checked here with ``packaging``, the library pip
    uses.
    """

    code = "HRM806"
    summary = "requires_hermes does not parse, or a config_schema type is unknown"

    valid = [Valid(MANIFEST.format(spec=">=0.19,<0.21", type="int"), files={"__init__.py": REGISTER})]
    invalid = [
        Invalid(
            MANIFEST.format(spec="0.19+", type="int"),
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=5,
            col=18,
            message="`requires_hermes` `0.19+` is not a version specifier (such as `>=0.19,<0.21`)",
            fix=(("0.19+", ">=0.19"),),
        ),
        Invalid(
            MANIFEST.format(spec=">=0.19", type="seconds"),
            files={"__init__.py": REGISTER},
            path="plugin.yaml",
            line=8,
            col=11,
            message="config_schema `timeout` has type `seconds`, which Hermes does not know: "
            "its value is never type-checked (known: array, bool, boolean, dict, float, int, integer, "
            "list, number, object, secret, str, string)",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        for view in plugin_views(ctx):
            document = view.document
            if document is not None and isinstance(document.data, dict):
                yield from self._check(document)

    def _check(self, document: ManifestDocument) -> Iterator[Finding]:
        data = document.data
        spec = data.get("requires_hermes")
        if spec is not None:
            problem = None
            if not isinstance(spec, str):
                problem = f"`requires_hermes` is not a string: write it quoted, such as `\">=0.19\"`"
            else:
                from packaging.specifiers import InvalidSpecifier, SpecifierSet  # only for a plugin.yaml that pins one

                try:
                    SpecifierSet(spec)
                except InvalidSpecifier:
                    problem = f"`requires_hermes` `{spec}` is not a version specifier (such as `>=0.19,<0.21`)"
            if problem is not None:
                yield Finding(document.value_location("requires_hermes"), problem, document.path)
        schema = data.get("config_schema")
        if schema is None:
            return
        if not isinstance(schema, dict):
            yield Finding(
                document.value_location("config_schema"),
                "`config_schema` is not a mapping of setting names: Hermes ignores it",
                document.path,
            )
            return
        for key, entry in schema.items():
            if not isinstance(entry, dict):
                yield Finding(
                    document.location("config_schema", str(key)),
                    f"config_schema `{key}` is not a mapping (such as `{{type: str}}`): Hermes skips it",
                    document.path,
                )
                continue
            kind = entry.get("type")
            if kind is not None and str(kind).lower() not in CONFIG_TYPES:
                yield Finding(
                    document.value_location("config_schema", str(key), "type"),
                    f"config_schema `{key}` has type `{kind}`, which Hermes does not know: its value is never "
                    f"type-checked (known: {', '.join(sorted(CONFIG_TYPES))})",
                    document.path,
                )
