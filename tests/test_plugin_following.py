"""How far ``register(ctx)`` is followed, through the real CLI: a context kept in an attribute, a
class chosen by a condition, a table handed to a helper, a helper handed as a value; what
cannot be followed is "cannot verify" (HRM003) and what cannot register a tool is silent."""

from __future__ import annotations

from tests.test_plugin_projects import check, layout


def test_a_kept_context_that_only_serves_other_methods_is_silent(tmp_path):
    root = layout(tmp_path, "kept_context")
    # a proxy replacing ctx whose register_tool forwards its arguments (both tools are read
    # through it), a class keeping ctx for inject_message and tests, `(A if x else B)(ctx)`
    # with B inheriting A's __init__: nothing registers a tool that is not read
    assert check(root) == (0, "", "All checks passed (2 tools in 1 plugin)\n")


def test_a_kept_context_that_can_register_or_escape_is_cannot_verify(tmp_path):
    root = layout(tmp_path, "kept_context_escapes")
    unchecked = ": the tools registered there are not checked\n"
    assert check(root) == (
        1,
        # the proxy does not replace ctx: its own register_tool calls are not read
        "echo_plugin/__init__.py:9:9: HRM003 cannot verify: the plugin context is stored in `self._real`, which is "
        "not followed (`self._real.register_tool` is called at echo_plugin/__init__.py:12)" + unchecked
        + "echo_plugin/__init__.py:22:5: HRM003 cannot verify: the plugin context is passed to `vendor_kit.Panel`, "
        "which cannot be followed (`vendor_kit` is not a module of the project)" + unchecked
        + "echo_plugin/keepers.py:16:9: HRM003 cannot verify: the plugin context is stored in `self.ctx`, which is "
        "not followed (`self.ctx.register_tool` is called at echo_plugin/keepers.py:19)" + unchecked
        + "echo_plugin/keepers.py:24:9: HRM003 cannot verify: the plugin context is stored in `self.host`, which is "
        "not followed (`self.host` is passed to `kit.install` at echo_plugin/keepers.py:27)" + unchecked
        # forwarding a changed name is a registration of its own
        + "echo_plugin/keepers.py:32:9: HRM003 cannot verify: the plugin context is stored in `self._ctx`, which is "
        "not followed (`self._ctx.register_tool` is called at echo_plugin/keepers.py:35)" + unchecked
        + "echo_plugin/keepers.py:40:9: HRM003 cannot verify: the plugin context is stored in `self.sniffed`, which "
        "is not followed (`getattr(self.sniffed, 'register_tool')` is called at echo_plugin/keepers.py:41)" + unchecked,
        "Found 6 diagnostics in 2 files (0 tools in 1 plugin, 6 unread)\n",
    )


def test_a_helper_is_read_once_per_call_site_with_the_table_it_is_handed(tmp_path):
    root = layout(tmp_path, "table_helpers")
    # `_add_all(ctx, MAP_SCHEMAS, ...)` and `_add_all(ctx, ROUTE_SCHEMAS, ...)`: three tools, the
    # first's property located where schemas.py writes it; the third call hands it a comprehension
    assert check(root) == (
        1,
        "atlas_plugin/__init__.py:24:9: HRM003 cannot verify: this register_tool call cannot be read (where "
        "`_add_all` is called at line 19, the loop over `schemas.items()` cannot be unrolled statically): its "
        "tool is not checked\n"
        "atlas_plugin/schemas.py:5:57: HRM306 parameter `region` has no description (tool `atlas_map`)\n",
        "Found 2 diagnostics in 2 files (3 tools in 1 plugin, 1 unread)\n",
    )


def test_tables_imported_in_a_branch_or_built_by_a_helper_are_unrolled(tmp_path):
    root = layout(tmp_path, "imported_tables")
    # `from .actions import ROWS` inside `if callable(add):` (rows naming a def and an async def), and
    # a loop over `_desk_table()`, which imports `specs` and `actions` itself and returns a list
    # display; its `actions.take_back` is not this module's `take_back` (which returns a dict)
    assert check(root) == (
        1,
        "catalog_plugin/specs.py:4:53: HRM306 parameter `shelf` has no description (tool `catalog_shelf`)\n",
        "Found 1 diagnostic in 1 file (4 tools in 1 plugin)\n",
    )


def test_a_helper_handed_as_a_value_is_followed(tmp_path):
    root = layout(tmp_path, "handed_helpers")
    # `_guarded(ctx, "tide", _add_tide)` calls `install(ctx)`; `_quietly("berths", tools.add_all, ctx)`
    # calls `install(*args, **kwargs)`; add_all loops over a display of modules calling each one's
    # register (berths' schema is `dict(TIDE, ...)` with `from . import TIDE`); a builtin handed to
    # the guard registers nothing; a lambda handed to it is not followed; cranes loops over
    # `getattr(answer, "specs", ())`, and `answer` is a function no code gives attributes: the loop
    # runs over `()` and registers nothing
    assert check(root) == (
        1,
        "harbor_plugin/__init__.py:11:9: HRM003 cannot verify: the plugin context is passed to `install`, which "
        "cannot be followed (a parameter of `_guarded` whose argument is not a function of the project named where "
        "it is called): the tools registered there are not checked\n",
        "Found 1 diagnostic in 1 file (2 tools in 1 plugin, 1 unread)\n",
    )


def _plugin_of_helpers(root, helpers: int):
    """A plugin whose register hands ctx to ``helpers`` modules' own register, one tool each."""
    (root / "pyproject.toml").write_text('[project]\nname = "many"\nversion = "1"\n\n'
                                         '[project.entry-points."hermes_agent.plugins"]\nmany = "many"\n')
    package = root / "many"
    package.mkdir()
    (package / "__init__.py").write_text(
        "".join(f"from . import m{i}\n" for i in range(helpers))
        + "\n\ndef register(ctx):\n" + "".join(f"    m{i}.register(ctx)\n" for i in range(helpers)))
    for i in range(helpers):
        (package / f"m{i}.py").write_text(
            "import json\n\n"
            f'SCHEMA = {{"name": "t{i}", "description": "Tool {i}.", "parameters": {{"type": "object", "properties": {{}}}}}}\n\n\n'
            'def handle(args, **kwargs):\n    return json.dumps({"ok": True})\n\n\n'
            f'def register(ctx):\n    ctx.register_tool(name="t{i}", toolset="many", schema=SCHEMA, handler=handle, check_fn=lambda: True)\n')


def test_every_function_up_to_the_limit_is_followed_and_the_next_is_cannot_verify(tmp_path):
    from hermes_lint.project.plugin_register import MAX_FUNCTIONS

    # register itself is the first of the functions followed
    within, past = tmp_path / "within", tmp_path / "past"
    within.mkdir(), past.mkdir()
    _plugin_of_helpers(within, MAX_FUNCTIONS - 1)
    assert check(within) == (0, "", f"All checks passed ({MAX_FUNCTIONS - 1} tools in 1 plugin)\n")
    _plugin_of_helpers(past, MAX_FUNCTIONS)
    last = MAX_FUNCTIONS - 1
    assert check(past) == (
        1,
        f"many/__init__.py:{MAX_FUNCTIONS + 4 + last}:5: HRM003 cannot verify: the plugin context is passed to "
        f"`m{last}.register`, which is past the {MAX_FUNCTIONS} functions hermes-lint follows in one plugin: the "
        "tools registered there are not checked\n",
        f"Found 1 diagnostic in 1 file ({MAX_FUNCTIONS - 1} tools in 1 plugin, 1 unread)\n",
    )


ALIASED = '''import json

SCHEMA = {"name": "a1", "description": "A.", "parameters": {"type": "object", "properties": {}}}


def handle(args, **kwargs):
    return {"not": "a string"}


def register(ctx, other=None):
    host = ctx
    kept = host
BRANCH
    kept.register_tool(name="a1", toolset="alp", schema=SCHEMA, handler=handle, check_fn=lambda: True)
'''


def _aliased_plugin(root, branch: str):
    (root / "pyproject.toml").write_text('[project]\nname = "alp"\nversion = "1"\n\n'
                                         '[project.entry-points."hermes_agent.plugins"]\nalp = "alp"\n')
    (root / "alp").mkdir()
    (root / "alp" / "__init__.py").write_text(ALIASED.replace("BRANCH\n", branch))


def test_a_name_only_ever_bound_to_the_context_is_the_context(tmp_path):
    _aliased_plugin(tmp_path, "")
    assert check(tmp_path)[:2] == (1, "alp/__init__.py:7:5: HRM101 handler `handle` can return a dict, not a JSON string\n")
    assert "(1 tool in 1 plugin)" in check(tmp_path)[2]


def test_a_name_bound_to_the_context_on_some_paths_only_is_cannot_verify(tmp_path):
    _aliased_plugin(tmp_path, "    if other is not None:\n        kept = other\n")
    assert check(tmp_path) == (
        1,
        "alp/__init__.py:15:5: HRM003 cannot verify: `kept` is the plugin context on some paths only: the tools "
        "registered there are not checked\n",
        "Found 1 diagnostic in 1 file (0 tools in 1 plugin, 1 unread)\n",
    )
