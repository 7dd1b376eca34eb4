from __future__ import annotations

from typing import Iterator

from hermes_lint.model import Location
from hermes_lint.model.context import ProjectContext
from hermes_lint.project.entry_point_groups import misnamed_groups
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.project.plugins import ENTRY_POINT_GROUP
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import MANIFEST, REGISTER, PluginRule

PYPROJECT = """
[project]
name = "hermes-echo"
version = "1.0.0"

[project.entry-points."{group}"]
echo = "echo_plugin"
"""

# A directory plugin (plugin.yaml beside register) that is also a pip package.
PLUGIN_FILES = {"echo_plugin/__init__.py": REGISTER, "echo_plugin/plugin.yaml": MANIFEST}


class EntryPointGroupMisnamed(PluginRule, Rule):
    """The plugin's entry point is declared in a group Hermes never reads (``hermes.plugins``).

    Hermes finds pip-installed plugins with ``importlib.metadata.entry_points().select(group=
    "hermes_agent.plugins")`` (``hermes_cli/plugins.py``): the group name is compared exactly, so
    an entry point under ``hermes.plugins``, ``hermes-agent.plugins`` or ``hermes_agent_plugins``
    is never seen, and a ``pip install`` of the package loads no plugin, without a word in the
    log. Reported at the group's header (or key) in ``pyproject.toml``, ``setup.cfg``,
    ``setup.py`` or an unpacked wheel's ``entry_points.txt``: name the group
    ``hermes_agent.plugins``.

    A package whose only Hermes declaration is such a group (no ``plugin.yaml``) is still a
    plugin project: its entry point is followed to ``register(ctx)`` and its tools are checked by
    every other rule as if the group were right (that is the plugin its author means, and will
    fix the group of), and the summary says Hermes does not load it.

    Only a group that is plainly meant to be Hermes's is reported: ``hermes`` or ``hermes agent``
    followed by ``plugin``/``plugins``, joined by dots, dashes or underscores, in any case. Not
    reported: other frameworks' groups, a project whose packaging also declares a
    ``hermes_agent.plugins`` entry point (the misnamed group is then a second declaration, not the
    plugin's only one), a Hermes tree (``toolsets.py``: its own loader decides), and a project
    in which no plugin was found.
    """

    code = "HRM812"
    summary = "entry point declared in a group Hermes does not read (not hermes_agent.plugins)"
    example_path = "pyproject.toml"

    valid = [
        Valid(PYPROJECT.format(group=ENTRY_POINT_GROUP), files=PLUGIN_FILES),
        # another framework's group, beside the right one
        Valid(
            PYPROJECT.format(group=ENTRY_POINT_GROUP) + '\n[project.entry-points."hermes.plugins"]\necho = "echo_plugin"\n',
            files=PLUGIN_FILES,
        ),
        Valid(PYPROJECT.format(group="hermes_messaging.handlers"), files=PLUGIN_FILES),
        Valid(PYPROJECT.format(group="hermes.plugins.extra"), files=PLUGIN_FILES),
    ]
    invalid = [
        Invalid(
            PYPROJECT.format(group="hermes.plugins"),
            files=PLUGIN_FILES,
            path="pyproject.toml",
            line=5,
            col=1,
            message="entry point group `hermes.plugins` (`echo`) is not the one Hermes reads: its plugin loader "
            "lists only `hermes_agent.plugins` entry points, so a pip install of this package loads no plugin; "
            "name the group `hermes_agent.plugins`",
            fix=(('"hermes.plugins"', '"hermes_agent.plugins"'),),
        ),
        Invalid(PYPROJECT.format(group="hermes-agent.plugins"), files=PLUGIN_FILES, path="pyproject.toml", line=5, col=1),
        # the package's only Hermes declaration: no plugin.yaml
        Invalid(
            PYPROJECT.format(group="hermes.plugin"),
            files={"echo_plugin/__init__.py": REGISTER},
            path="pyproject.toml",
            line=5,
            col=1,
        ),
        Invalid(PYPROJECT.format(group="hermes_agent_plugins"), files=PLUGIN_FILES, path="pyproject.toml", line=5, col=1),
        # what a built sdist's metadata says, its pyproject.toml declaring no entry points
        Invalid(
            '[project]\nname = "hermes-echo"\nversion = "1.0.0"\n',
            files={
                **PLUGIN_FILES,
                "echo_plugin.egg-info/entry_points.txt": "[console_scripts]\necho = echo_plugin:main\n\n"
                "[Hermes.Plugins]\necho = echo_plugin\n",
            },
            path="echo_plugin.egg-info/entry_points.txt",
            line=4,
            col=1,
            message="entry point group `Hermes.Plugins` (`echo`) is not the one Hermes reads: its plugin loader "
            "lists only `hermes_agent.plugins` entry points, so a pip install of this package loads no plugin; "
            "name the group `hermes_agent.plugins`",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        if ctx.root is None or ctx.toolsets is not None:
            return
        views = plugin_views(ctx)
        if not views or any(view.spec.entry_point is not None and view.spec.entry_point.loaded_by_hermes for view in views):
            return  # no plugin here, or Hermes finds its entry point
        for group in misnamed_groups(ctx.root):
            names = ", ".join(f"`{name}`" for name in group.entries)
            yield Finding(
                Location(group.line, 1),
                f"entry point group `{group.group}` ({names}) is not the one Hermes reads: its plugin loader lists "
                f"only `{ENTRY_POINT_GROUP}` entry points, so a pip install of this package loads no plugin; name "
                f"the group `{ENTRY_POINT_GROUP}`",
                group.declared_in,
            )
