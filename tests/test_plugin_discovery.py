"""Plugin discovery (``project.plugins``) and ``register`` followed as the loader calls it
(``project.plugin_register``): the model extraction, the rules and the manifest ask."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hermes_lint.config import Config
from hermes_lint.project_config import find_root
from hermes_lint.evaluate.project import ProjectModules
from hermes_lint.project.plugin_register import follow_plugin
from hermes_lint.project.plugins import EntryPoint, PluginSpec, entry_points, project_plugins


def write(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def followed(root: Path):
    (spec,) = project_plugins(root, Config(project_root=str(root)))
    result = follow_plugin(root, spec, ProjectModules(str(root)))
    return spec, [(f.path, f.function, f.parameter, f.receives) for f in result.functions], result


PYPROJECT = """\
[project]
name = "x"

[project.entry-points."hermes_agent.plugins"]
{entry}
"""


def test_pyproject_entry_points_with_their_lines(tmp_path):
    write(tmp_path, {"pyproject.toml": PYPROJECT.format(entry='a = "pkg_a"\n"b" = "pkg_b.sub:plugin [extra]"')})
    assert entry_points(tmp_path) == [
        EntryPoint("a", "pkg_a", "pyproject.toml", 5),
        EntryPoint("b", "pkg_b.sub:plugin [extra]", "pyproject.toml", 6),
    ]
    assert (entry_points(tmp_path)[1].module, entry_points(tmp_path)[1].attribute) == ("pkg_b.sub", "plugin")
    assert (entry_points(tmp_path)[0].module, entry_points(tmp_path)[0].attribute) == ("pkg_a", None)


def test_other_groups_and_poetry_plugins(tmp_path):
    write(tmp_path, {"pyproject.toml": """\
        [project.entry-points.console_scripts]
        a = "pkg:main"

        [tool.poetry.plugins."hermes_agent.plugins"]
        p = "poetry_pkg"
        """})
    assert entry_points(tmp_path) == [EntryPoint("p", "poetry_pkg", "pyproject.toml", 5)]


def test_setup_py_is_read_never_run(tmp_path):
    write(tmp_path, {"setup.py": """\
        import sys
        sys.exit("setup.py was run")
        from setuptools import setup

        ENTRY_POINTS = {
            "hermes_agent.plugins": [
                "one = one_pkg",
                "two = two_pkg.mod:register",
            ],
        }
        setup(name="x", entry_points=ENTRY_POINTS)
        """})
    assert entry_points(tmp_path) == [
        EntryPoint("one", "one_pkg", "setup.py", 7),
        EntryPoint("two", "two_pkg.mod:register", "setup.py", 8),
    ]


def test_setup_py_ini_text_and_setup_cfg(tmp_path):
    write(tmp_path / "a", {"setup.py": 'from setuptools import setup\nsetup(entry_points="""\n[hermes_agent.plugins]\nz = zpkg\n""")\n'})
    assert entry_points(tmp_path / "a") == [EntryPoint("z", "zpkg", "setup.py", 4)]
    write(tmp_path / "b", {"setup.cfg": "[options.entry_points]\nhermes_agent.plugins =\n    c = cpkg\n    d = dpkg:obj\n"})
    assert entry_points(tmp_path / "b") == [EntryPoint("c", "cpkg", "setup.cfg", 3), EntryPoint("d", "dpkg:obj", "setup.cfg", 4)]


def test_a_broken_packaging_file_declares_nothing(tmp_path):
    write(tmp_path, {"pyproject.toml": "[project.entry-points.'hermes_agent.plugins'\n", "setup.py": "setup(\n"})
    assert entry_points(tmp_path) == []


def test_spec_of_an_entry_point_in_a_src_layout(tmp_path):
    write(tmp_path, {
        "pyproject.toml": PYPROJECT.format(entry='n = "npkg.hermes"'),
        "src/npkg/__init__.py": "",
        "src/npkg/plugin.yaml": "name: n\n",
        "src/npkg/hermes/__init__.py": "def register(ctx):\n    pass\n",
    })
    assert project_plugins(tmp_path, Config()) == (
        PluginSpec("n", "src/npkg", "src/npkg/hermes/__init__.py",
                   EntryPoint("n", "npkg.hermes", "pyproject.toml", 5), "src/npkg/plugin.yaml"),
    )


def test_an_entry_point_naming_no_module_of_the_project(tmp_path):
    write(tmp_path, {"pyproject.toml": PYPROJECT.format(entry='m = "missing_pkg"')})
    (spec,) = project_plugins(tmp_path, Config())
    assert (spec.directory, spec.register_module, spec.manifest) == ("missing_pkg", None, None)


@pytest.mark.parametrize(
    "entry, files, expected, problem",
    [
        # `register = _impl`: an alias of a function of the module
        ("p", {"p/__init__.py": "def _impl(context):\n    pass\n\nregister = _impl\n"},
         [("p/__init__.py", "_impl", "context", "ctx")], None),
        # `from .impl import *`
        ("p", {"p/__init__.py": "from .impl import *\n", "p/impl.py": "def register(c):\n    pass\n"},
         [("p/impl.py", "register", "c", "ctx")], None),
        # `p:Plugin`, a class whose register is a staticmethod: Plugin.register(ctx)
        ("p:Plugin", {"p/__init__.py": "class Plugin:\n    @staticmethod\n    def register(ctx):\n        pass\n"},
         [("p/__init__.py", "Plugin.register", "ctx", "ctx")], None),
        # `p:Plugin` with a plain method: the loader's one argument fills `self`
        ("p:Plugin", {"p/__init__.py": "class Plugin:\n    def register(self, ctx):\n        pass\n"},
         [("p/__init__.py", "Plugin.register", "self", "ctx")], None),
        # `p:hooks`, a module imported in p: its register
        ("p:hooks", {"p/__init__.py": "from . import hooks\n", "p/hooks.py": "def register(ctx):\n    pass\n"},
         [("p/hooks.py", "register", "ctx", "ctx")], None),
        # `p:setup`, a function: the loader looks for `setup.register`, which a function has not
        ("p:setup", {"p/__init__.py": "def setup(ctx):\n    pass\n"},
         [("p/__init__.py", "setup", "ctx", "ctx")],
         '`p:setup` names a function: the loader calls `getattr(<that function>, "register", None)`, finds '
         'nothing and registers no tool'),
        # no register at all
        ("p", {"p/__init__.py": "X = 1\n"}, [], "no `register` function found in p/__init__.py: p/__init__.py binds no `register`"),
    ],
)
def test_register_as_the_loader_finds_it(tmp_path, entry, files, expected, problem):
    write(tmp_path, {"pyproject.toml": PYPROJECT.format(entry=f'e = "{entry}"'), **files})
    _, functions, result = followed(tmp_path)
    assert (functions, result.problem) == (expected, problem)


def test_helpers_self_methods_and_passed_register_tool(tmp_path):
    write(tmp_path, {
        "pyproject.toml": PYPROJECT.format(entry='e = "p.plugin:instance"'),
        "p/__init__.py": "",
        "p/plugin.py": """\
            from p import helpers

            class Plugin:
                def register(self, ctx):
                    self._tools(ctx)
                    rt = ctx.register_tool
                    helpers.add(registrar=rt)
                    print(ctx)

                def _tools(self, ctx):
                    pass

            instance = Plugin()
            """,
        "p/helpers.py": "def add(registrar):\n    pass\n",
    })
    _, functions, result = followed(tmp_path)
    assert functions == [
        ("p/plugin.py", "Plugin.register", "ctx", "ctx"),
        ("p/plugin.py", "Plugin._tools", "ctx", "ctx"),
        ("p/helpers.py", "add", "registrar", "register_tool"),
    ]
    assert result.unfollowed == ()


def test_find_root_recognises_plugin_projects(tmp_path):
    write(tmp_path / "pkg", {"setup.cfg": "[options.entry_points]\nhermes_agent.plugins =\n    a = a\n", "a/__init__.py": ""})
    assert find_root(tmp_path / "pkg" / "a") == tmp_path / "pkg"
    write(tmp_path / "home" / "plugins", {"one/plugin.yaml": "name: one\n", "one/__init__.py": ""})
    assert find_root(tmp_path / "home" / "plugins" / "one") == tmp_path / "home" / "plugins" / "one"
    assert find_root(tmp_path / "home" / "plugins") == tmp_path / "home" / "plugins"
    # a repository with plugins/<category>/<name>/
    write(tmp_path / "repo", {"plugins/media/radio/plugin.yaml": "name: r\n", "plugins/media/radio/__init__.py": ""})
    assert find_root(tmp_path / "repo") == tmp_path / "repo"
    # plugin.yaml without __init__.py is not loadable: not a plugin
    write(tmp_path / "bare", {"plugin.yaml": "name: b\n"})
    assert find_root(tmp_path / "bare") is None


def test_a_context_stored_for_later_or_handed_outside_is_unfollowed(tmp_path):
    write(tmp_path, {
        "pyproject.toml": PYPROJECT.format(entry='e = "p"'),
        "p/__init__.py": """\
            import functools
            import logging

            log = logging.getLogger(__name__)

            class _Holder:
                pass

            HOLDER = _Holder()


            def register(ctx):
                HOLDER.ctx = ctx
                add = functools.partial(ctx.register_tool, toolset="t")
                log.debug("context %r", ctx)
                isinstance(ctx, object)


            def later():
                HOLDER.ctx.register_tool(name="n", toolset="t", schema={}, handler=print)
            """,
    })
    _, functions, result = followed(tmp_path)
    assert functions == [("p/__init__.py", "register", "ctx", "ctx")]
    assert [(u.line, u.col, u.reason) for u in result.unfollowed] == [
        (13, 5, "the plugin context is stored in `HOLDER.ctx`, which is not followed (`HOLDER.ctx.register_tool` "
                "is called at p/__init__.py:20)"),
        (14, 11, "the plugin context's register_tool is passed to `functools.partial`, which cannot be followed "
                 "(`functools` is not a module of the project)"),
    ]


def test_an_unpacked_wheel_declares_its_entry_point_in_its_metadata(tmp_path):
    write(tmp_path, {
        "pkg-1.0.dist-info/entry_points.txt": "[console_scripts]\nx = pkg:main\n\n[hermes_agent.plugins]\nPkgTools = pkg.entry\n",
        "pkg/__init__.py": "",
        "pkg/plugin.yaml": "name: pkg\n",
        "pkg/entry.py": "def register(ctx):\n    pass\n",
    })
    assert find_root(tmp_path / "pkg") == tmp_path
    # the entry point wins over the plugin.yaml beside the package (one plugin, not two)
    assert project_plugins(tmp_path, Config()) == (
        PluginSpec("PkgTools", "pkg", "pkg/entry.py",
                   EntryPoint("PkgTools", "pkg.entry", "pkg-1.0.dist-info/entry_points.txt", 5), "pkg/plugin.yaml"),
    )


def test_a_package_the_build_backend_finds_below_the_root(tmp_path):
    # hatch's `packages = ["hermes/mypkg"]`: neither at the root nor under src/
    write(tmp_path, {
        "pyproject.toml": PYPROJECT.format(entry='e = "mypkg"'),
        "hermes/mypkg/__init__.py": "from .hooks import register\n",
        "hermes/mypkg/hooks.py": "def register(ctx):\n    pass\n",
    })
    spec, functions, _ = followed(tmp_path)
    assert (spec.directory, spec.register_module) == ("hermes/mypkg", "hermes/mypkg/__init__.py")
    assert functions == [("hermes/mypkg/hooks.py", "register", "ctx", "ctx")]
    # two candidates: ambiguous, none is chosen
    write(tmp_path, {"other/mypkg/__init__.py": ""})
    (spec,) = project_plugins(tmp_path, Config())
    assert spec.register_module is None
