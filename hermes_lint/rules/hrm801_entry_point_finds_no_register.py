from __future__ import annotations

from typing import Iterator

from hermes_lint.model import Location
from hermes_lint.model.context import ProjectContext
from hermes_lint.project.plugin_view import loaded_target_of, plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import PluginRule

PYPROJECT = """
[project]
name = "hermes-echo"
version = "1.0.0"

[project.entry-points."hermes_agent.plugins"]
echo = "{value}"
"""

PACKAGE = '''
def register(ctx):
    ctx.register_tool(name="echo", toolset="echo", schema={}, handler=lambda args, **kw: "")
'''

# What the loader does next, by problem (``entry_point_target.loaded_target``'s wording).
_NOT_FOUND = 'ep.load() raises ModuleNotFoundError unless another installed distribution provides it, and Hermes logs "Failed to load plugin"'
_NO_REGISTER = "Hermes logs \"Plugin '{name}' has no register() function\" and the plugin registers nothing"
_NO_ATTRIBUTE = 'ep.load() raises AttributeError, and Hermes logs "Failed to load plugin"'


class EntryPointFindsNoRegister(PluginRule, Rule):
    """The plugin's entry point leads the loader to no ``register`` it can call.

    Hermes loads a pip-installed plugin with ``ep.load()`` and then calls
    ``getattr(loaded, "register", None)`` with the plugin context (``hermes_cli/plugins.py``,
    ``_load_plugin``); a directory plugin's ``__init__.py`` is imported and its ``register`` taken
    the same way. Reported, at the entry point's declaration (or the directory plugin's
    ``__init__.py``):

    - the entry point names a module this project does not contain (``ep.load()`` raises
      ``ModuleNotFoundError``, "Failed to load plugin"), or one of Python's standard library;
    - the module defines no ``register``: Hermes logs "Plugin 'name' has no register() function"
      and the plugin registers nothing;
    - ``name = "pkg.mod:register"``: ``ep.load()`` returns the function ``register`` itself, and
      the loader looks for a ``register`` attribute *on that function*: there is none, so it logs
      "has no register() function" and the plugin loads nothing. Name the module instead
      (``name = "pkg.mod"``);
    - ``pkg.mod:obj`` where ``obj`` does not exist in the module (``AttributeError``), or is a class
      without a ``register``.

    Not reported: what cannot be read statically (a name imported from another package, a module
    ``__getattr__``, a star import, a class with base classes, an instance), modules that cannot
    be parsed (HRM001), an entry point's module that exists in the project under a directory the
    flat and ``src/`` layouts do not cover (a build backend's source mapping, such as hatch's
    ``packages = ["hermes/pkg"]``), and the plugin directory of an unpacked wheel or a built
    sdist (whose ``entry_points.txt``, at the root or under ``src/``, declares Hermes plugins),
    which Hermes loads through the distribution's entry point rather than as a directory.
    """

    code = "HRM801"
    summary = "the plugin's entry point leads to no register(ctx)"
    example_path = "echo_plugin/__init__.py"

    valid = [
        Valid(PACKAGE, files={"pyproject.toml": PYPROJECT.format(value="echo_plugin")}),
        # a submodule re-exporting register
        Valid(
            "\nfrom .hooks import register\n",
            files={"pyproject.toml": PYPROJECT.format(value="echo_plugin"), "echo_plugin/hooks.py": PACKAGE},
        ),
        # an object whose register the loader finds
        Valid(
            """
            class Plugin:
                @staticmethod
                def register(ctx):
                    ctx.register_tool(name="echo", toolset="echo", schema={}, handler=lambda args, **kw: "")
            """,
            files={"pyproject.toml": PYPROJECT.format(value="echo_plugin:Plugin")},
        ),
        # a source mapping (hatch's `packages = ["src_dir/echo_plugin"]`): the module is there
        Valid(
            PACKAGE,
            files={
                "pyproject.toml": PYPROJECT.format(value="echo_plugin")
                + '\n[tool.hatch.build.targets.wheel]\npackages = ["hermes/echo_plugin"]\n',
                "hermes/echo_plugin/__init__.py": PACKAGE,
            },
        ),
        # an unpacked wheel whose plugin directory is not what Hermes loads: its entry point is
        Valid(
            "\nfrom .plugin_entry import register as _unused  # noqa: F401\n__version__ = '1'\n",
            files={
                "plugin.yaml": "name: echo\nversion: '1'\ndescription: d\n",
                "plugin_entry.py": PACKAGE,
                "echo_plugin-1.dist-info/entry_points.txt": "[hermes_agent.plugins]\necho = echo_plugin.plugin_entry\n",
            },
        ),
        # a Hermes tree's bundled packages that its plugin loader never calls: a package without
        # plugin.yaml (its docstring names register_tool), and a model provider, which has a
        # plugin.yaml but its own discovery
        Valid(
            PACKAGE,
            files={
                "toolsets.py": "TOOLSETS = {}\n",
                "tools/__init__.py": "",
                "plugins/__init__.py": "",
                "plugins/cron_backends/__init__.py": '"""Backends; tools go through ctx.register_tool."""\n',
                "plugins/model-providers/echo/__init__.py": "PROVIDER = 'echo'\n",
                "plugins/model-providers/echo/plugin.yaml": "name: echo-provider\nversion: '1'\ndescription: d\n",
            },
        ),
    ]
    invalid = [
        Invalid(
            PACKAGE,
            files={"pyproject.toml": PYPROJECT.format(value="echo_plugin:register")},
            path="pyproject.toml",
            line=6,
            col=1,
            message="entry point `echo = \"echo_plugin:register\"` loads the function `register` itself, on which the "
            "loader then looks up `register`: Hermes logs \"Plugin 'echo' has no register() function\" and the plugin "
            "registers nothing",
            fix=(('"echo_plugin:register"', '"echo_plugin"'),),
        ),
        Invalid(
            PACKAGE,
            files={"pyproject.toml": PYPROJECT.format(value="echo_plugins")},
            path="pyproject.toml",
            line=6,
            col=1,
            message="entry point `echo = \"echo_plugins\"` names module `echo_plugins`, which is not in this project: "
            + _NOT_FOUND,
        ),
        Invalid(
            "\ndef setup(ctx):\n    pass\n",
            files={"pyproject.toml": PYPROJECT.format(value="echo_plugin")},
            path="pyproject.toml",
            line=6,
            col=1,
            message="entry point `echo = \"echo_plugin\"`: module `echo_plugin` defines no `register`: "
            "Hermes logs \"Plugin 'echo' has no register() function\" and the plugin registers nothing",
        ),
        Invalid(
            PACKAGE,
            files={"pyproject.toml": PYPROJECT.format(value="os:system")},
            path="pyproject.toml",
            line=6,
            col=1,
        ),
        Invalid(
            PACKAGE,
            files={"pyproject.toml": PYPROJECT.format(value="echo_plugin:plugin")},
            path="pyproject.toml",
            line=6,
            col=1,
            message="entry point `echo = \"echo_plugin:plugin\"`: module `echo_plugin` has no attribute `plugin`: "
            + _NO_ATTRIBUTE,
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        if ctx.root is None:
            return
        for view in plugin_views(ctx):
            spec = view.spec
            target = loaded_target_of(ctx, spec)
            if target.problem is None:
                continue
            entry = spec.entry_point
            if entry is None and spec.manifest is None:
                # Hermes's directory scan loads only directories holding a plugin.yaml (a
                # bundled `plugins/memory/` or `plugins/model-providers/x/` is loaded by its
                # own subsystem): such a directory is no plugin whose `register` is called
                continue
            problem = target.problem
            if problem.startswith("names module"):
                consequence = _NOT_FOUND
            elif "has no attribute" in problem:
                consequence = _NO_ATTRIBUTE
            else:
                consequence = _NO_REGISTER.format(name=spec.name)
            if entry is None:
                yield Finding(Location(1, 1), f"{problem}: {consequence}", spec.register_module)
                continue
            joined = " " if problem.startswith(("names", "loads")) else ": "
            yield Finding(
                Location(max(entry.line, 1), 1),
                f"entry point `{entry.name} = \"{entry.value}\"`{joined}{problem}: {consequence}",
                entry.declared_in,
            )
