"""Where a directory plugin inside a package is recognised, through the real CLI: as Hermes's scan
of a plugins directory finds one (``<name>/`` or ``<category>/<name>/`` with plugin.yaml, a
``_``-prefixed plugin directory included), and nowhere deeper."""

from __future__ import annotations

import textwrap

from tests.project_files import write
from tests.test_plugin_projects import check

REGISTER = textwrap.dedent('''\
    import json

    SCHEMA = {"name": "ledger_total", "description": "Total of the ledger.",
              "parameters": {"type": "object", "properties": {}}}


    def _total(args, **kwargs):
        return json.dumps({"total": 0})


    def _ready():
        return True


    def register(ctx):
        ctx.register_tool(name="ledger_total", toolset="ledger", schema=SCHEMA, handler=_total, check_fn=_ready)
    ''')
MANIFEST = "name: ledger\nversion: 0.1.0\ndescription: Ledger tools.\nprovides_tools: [ledger_total]\n"


def test_an_sdk_shipping_a_private_plugin_directory_is_a_plugin_project(tmp_path):
    root = write(tmp_path / "sdk", {
        "pyproject.toml": '[project]\nname = "ledger-sdk"\nversion = "0.1.0"\n',
        "ledger/__init__.py": "",
        "ledger/_hermes/plugin.yaml": MANIFEST,
        "ledger/_hermes/__init__.py": REGISTER,
        "ledger/__pycache__/plugin.yaml": MANIFEST,
    })
    assert check(root) == (0, "", "All checks passed (1 tool in 1 plugin)\n")


def test_a_plugin_yaml_deeper_or_under_a_private_directory_is_no_project(tmp_path):
    root = write(tmp_path / "app", {
        "pyproject.toml": '[project]\nname = "app"\nversion = "0.1.0"\n',
        "app/__init__.py": "",
        # three levels down: deeper than Hermes's scan of a plugins directory looks
        "docs/guide/example/plugin.yaml": MANIFEST,
        "docs/guide/example/__init__.py": REGISTER,
        # a `_`-prefixed directory is a plugin only with its own plugin.yaml, never a category
        "_vendor/ledger/plugin.yaml": MANIFEST,
        "_vendor/ledger/__init__.py": REGISTER,
    })
    code, out, err = check(root)
    assert (code, out) == (2, "")
    assert err.startswith("hermes-lint: error: no project found")
