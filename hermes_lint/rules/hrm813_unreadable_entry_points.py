from __future__ import annotations

from typing import Iterator

from hermes_lint.model import Location
from hermes_lint.model.context import ProjectContext
from hermes_lint.project.entry_point_reader import declared_entry_points
from hermes_lint.project.plugin_view import plugin_views
from hermes_lint.rules.base import Finding, Invalid, Rule, Valid
from hermes_lint.rules.plugin_examples import REGISTER, PluginRule

SETUP = """
from setuptools import setup

setup(
    name="hermes-echo",
    version="1.0.0",
    packages=["echo_plugin"],
    entry_points={entry_points},
)
"""

PACKAGE = {"echo_plugin/__init__.py": REGISTER}


class UnreadableEntryPoints(PluginRule, Rule):
    """The package's entry points cannot be read statically, so whether Hermes loads its plugin
    cannot be verified.

    Hermes finds pip-installed plugins through the ``hermes_agent.plugins`` entry points of the
    installed distributions (``hermes_cli/plugins.py``), which a build writes from the package's
    packaging files. hermes-lint reads those files without running them: a ``setup.py`` whose
    ``setup(entry_points=...)`` is computed (a call, a name bound more than once or only
    conditionally, a name the module changes after binding it, a ``**`` merge, an f-string row),
    a ``setup(**kwargs)`` with no ``entry_points=`` of its own, and a ``pyproject.toml`` listing
    ``entry-points`` in ``dynamic`` with no ``setup.cfg`` or ``setup.py`` declaring them are read
    by nothing but the build. Reported at the value that cannot be read; write the entry points
    as literals (``entry_points={"hermes_agent.plugins": ["echo = echo_plugin"]}``, or
    ``[project.entry-points."hermes_agent.plugins"]``). A ``pyproject.toml``, ``setup.cfg`` or
    ``setup.py`` that does not parse and names ``hermes_agent.plugins`` (or a spelling meant for
    it) is reported at its parse error: a build fails on it, and what it declares is unknown. So
    is a row of a built distribution's ``entry_points.txt`` (an unpacked wheel's or a built
    sdist's) that ``importlib.metadata``, which Hermes lists installed plugins with, cannot read: a
    row without ``=`` makes it raise ``ValueError``.
    Only setuptools' ``setup`` is read (``from setuptools import setup``, ``setuptools.setup``,
    distutils' alike): another object's ``setup()`` method declares no entry points.

    Not reported: a package whose packaging also declares a readable ``hermes_agent.plugins``
    entry point (the plugin Hermes loads is known), a Hermes tree (``toolsets.py``), a broken
    packaging file that does not name Hermes's group, and, in a project where no plugin was
    found, a file that does not mention Hermes at all.
    """

    code = "HRM813"
    summary = "the package's entry points cannot be read statically: cannot verify them"
    example_path = "setup.py"

    valid = [
        Valid(SETUP.replace("{entry_points}", '{"hermes_agent.plugins": ["echo = echo_plugin"]}'), files=PACKAGE),
        # a module-level name bound once to a literal is that literal
        Valid(
            'EPS = {"hermes_agent.plugins": ["echo = echo_plugin"]}\n' + SETUP.replace("{entry_points}", "EPS"),
            files=PACKAGE,
        ),
        # the plugin Hermes loads is declared readably beside a computed group of another framework
        Valid(
            SETUP.replace("{entry_points}", '{"hermes_agent.plugins": ["echo = echo_plugin"], **_console()}'),
            files=PACKAGE,
        ),
        # an annotated module constant is its literal too
        Valid(
            'EPS: dict = {"hermes_agent.plugins": ["echo = echo_plugin"]}\n' + SETUP.replace("{entry_points}", "EPS"),
            files=PACKAGE,
        ),
        # another object's setup() method is not setuptools' setup()
        Valid(
            "from docs_kit import app\n\napp.setup(entry_points=make_hooks())\n"
            + SETUP.replace("{entry_points}", '{"hermes_agent.plugins": ["echo = echo_plugin"]}'),
            files=PACKAGE,
        ),
    ]
    invalid = [
        Invalid(
            SETUP.replace("{entry_points}", "_entry_points()"),
            files=PACKAGE,
            path="setup.py",
            line=7,
            col=18,
            message="cannot verify this package's entry points: `entry_points=_entry_points()` is not a literal: "
            "whether Hermes loads a plugin from it (a `hermes_agent.plugins` entry point) is not checked",
            fix=(("_entry_points()", '{"hermes_agent.plugins": ["echo = echo_plugin"]}'),),
        ),
        Invalid(
            'NAME = "echo"\n' + SETUP.replace("{entry_points}", '{"hermes_agent.plugins": [f"{NAME} = echo_plugin"]}'),
            files=PACKAGE,
            path="setup.py",
            line=9,
            col=44,
            message="cannot verify this package's entry points: the entry point `f'{NAME} = echo_plugin'` of "
            "`hermes_agent.plugins` is not a literal: whether Hermes loads a plugin from it (a "
            "`hermes_agent.plugins` entry point) is not checked",
        ),
        Invalid(
            'EPS = {"console_scripts": ["echo = echo_plugin:main"]}\nEPS["hermes_agent.plugins"] = ["echo = echo_plugin"]\n'
            + SETUP.replace("{entry_points}", "EPS"),
            files=PACKAGE,
            path="setup.py",
            line=10,
            col=18,
            message="cannot verify this package's entry points: `entry_points=EPS`: `EPS` is changed at line 2: "
            "whether Hermes loads a plugin from it (a `hermes_agent.plugins` entry point) is not checked",
        ),
    ]

    def check(self, ctx: ProjectContext) -> Iterator[Finding]:
        if ctx.root is None or ctx.toolsets is not None:
            return
        views = plugin_views(ctx)
        if any(view.spec.entry_point is not None and view.spec.entry_point.loaded_by_hermes for view in views):
            return  # the plugin Hermes loads is known
        mentioning = None if views else (lambda text: "hermes" in text.lower())
        for file in declared_entry_points(ctx.root, mentioning=mentioning):
            for unreadable in file.unreadable:
                yield Finding(
                    Location(unreadable.line, unreadable.col),
                    f"cannot verify this package's entry points: {unreadable.reason}: whether Hermes loads a plugin "
                    "from it (a `hermes_agent.plugins` entry point) is not checked",
                    unreadable.declared_in,
                )
