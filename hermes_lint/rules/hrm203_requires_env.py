from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

from hermes_lint.model.context import ModuleContext
from hermes_lint.model.requires_env_listing import Mismatch, requires_env_mismatches
from hermes_lint.model import Location, Registration
from hermes_lint.rules import env_examples, requires_env_examples
from hermes_lint.rules.base import Finding, Rule
from hermes_lint.model.tool_labels import tool_label

TOOLS = "\x00tools\x00"  # stands for the tool(s) in a message until findings are grouped


class RequiresEnvMismatch(Rule):
    """``requires_env`` must name the environment variables the tool needs, and only those.

    ``requires_env`` is how Hermes tells a user which variables to set for a tool (setup, tool
    listings); the ``check_fn`` is what hides the tool while they are missing. Three mismatches
    are reported:

    - the check_fn *requires* a variable (with it unset and everything else set, every path of
      the check returns something falsy or raises) that ``requires_env`` does not list;
    - the handler, or a module function it calls, reads ``os.environ["X"]`` (``KeyError`` when
      unset), or calls an environment reader of the project that does so on every path
      (``get_secret("X")``), outside any ``try`` that catches it, nothing on that path tests
      ``X`` optionally first, and ``requires_env`` does not list ``X``;
    - ``requires_env`` lists a variable that nothing in the module reads: it is never checked.

    A plugin's tools also count as listing what the plugin's ``plugin.yaml`` declares in its own
    ``requires_env`` (names, or mappings with a ``name``): Hermes asks for those when the plugin is
    installed, for every tool of the plugin.

    Deliberately not reported: optional reads (``os.getenv("X", "default")``,
    ``os.environ.get``, ``"X" in os.environ``) in handlers — optional configuration is normal;
    alternatives in a check (``os.getenv("A") or os.getenv("B")`` requires neither) and disable
    flags or backend switches; anything about a check_fn imported from another module or
    reached through an attribute; "never checked" when the check calls a function of another
    module (that function may test it), when the module reads the environment in a way that
    cannot be named (``os.getenv(name)``, ``dict(os.environ)``), or when the variable's name is
    used elsewhere in the module (passed to a helper); and registrations whose ``requires_env``
    is computed at run time; variables the project sets itself (``os.environ["X"] = ...``, an
    ``env=`` mapping for a process it starts, in the module or a project module it imports): a
    marker one process hands another, not a user's configuration.
    """

    code = "HRM203"
    reads_environment = True
    summary = "environment variables read but missing from requires_env, or listed and never checked"
    fix_applicability = "unsafe"
    fix_title = "add a variable that is read but not listed to the tool's `requires_env` (unsafe: the tool is then unavailable where it is unset)"

    valid = [*requires_env_examples.VALID, *env_examples.VALID]
    invalid = [*requires_env_examples.INVALID, *env_examples.INVALID]

    @classmethod
    def fix(cls, diagnostic, source):
        """For "read but not listed": the variable goes into the ``requires_env`` list literal of
        each tool the finding names (``edit/fix/requires_env.py``)."""
        from hermes_lint.edit.fix.requires_env import add_required_variable

        return add_required_variable(diagnostic, source)

    @classmethod
    def fix_available(cls, diagnostic, file):
        """``fix``'s answer where every register call starts its line (libcst finds it there)."""
        from hermes_lint.edit.fixable import call_arguments, keyword, string_value

        variable = diagnostic.fix_value("variable")
        if variable is None:
            return False
        names = {value for key, value in diagnostic.fix_data if key == "tool"}
        lines = {int(value) for key, value in diagnostic.fix_data if key == "line"}
        edits = False
        for stmt in file.tree.body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "register"):
                continue
            if call.col_offset != 0:
                return None
            positional, starred = call_arguments(call)
            given = keyword(call, "name")
            name = string_value(given.value if given is not None else positional[0] if positional else None)
            if name not in names and call.lineno not in lines:
                continue
            listed = keyword(call, "requires_env")
            if listed is None:
                if starred or len(call.args) > 5 or not (call.args or call.keywords):
                    return False  # may be passed another way; or a call with nothing to add after
            elif not isinstance(listed.value, ast.List) or any(
                string_value(e.value if isinstance(e, ast.Starred) else e) == variable for e in listed.value.elts
            ):
                return False
            edits = True
        return edits

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        # One finding per place and message, naming every tool it concerns.
        grouped: Dict[Tuple[Location, str], List[Registration]] = {}
        # The variable a finding's fix adds to ``requires_env`` (findings of a read not listed).
        missing: Dict[Tuple[Location, str], str] = {}
        for mismatch in requires_env_mismatches(ctx, lambda: _plugin_yaml_env(ctx)):
            key = (mismatch.where, self._message(mismatch))
            grouped.setdefault(key, []).append(mismatch.registration)
            if mismatch.unlisted is not None:
                missing[key] = mismatch.name
        for key, registrations in sorted(grouped.items(), key=lambda item: item[0][0]):
            where, template = key
            registrations = list({id(r): r for r in registrations}.values())
            tools = list(dict.fromkeys(tool_label(r) for r in registrations))
            label = ("tool " if len(tools) == 1 else "tools ") + ", ".join(tools)
            fix_data: Tuple[Tuple[str, str], ...] = ()
            if key in missing:
                # the register calls to edit: by name, or by line for a name not known statically
                fix_data = (("variable", missing[key]),) + tuple(
                    ("tool", r.name) if isinstance(r.name, str) else ("line", str(r.location.line))
                    for r in registrations
                )
            yield Finding(where, template.replace(TOOLS, label), fix_data=fix_data)

    @staticmethod
    def _message(mismatch: Mismatch) -> str:
        """The message of ``mismatch``, the tool(s) left as TOOLS."""
        missing, check = mismatch.unlisted, mismatch.check
        if missing is None:
            return (
                f"`{mismatch.name}` is listed in `requires_env` of {TOOLS} but never checked: "
                "nothing in this module reads it"
            )
        if missing.why == "check":
            who = f"check_fn `{check.name}`" if check is not None and not isinstance(check, ast.Lambda) else "the check_fn"
            return f"`{missing.name}` is required by {who} but not listed in `requires_env` of {TOOLS}"
        if missing.why == "environ" and missing.reader is not None:
            because = f"`{missing.reader}(...)` raises an exception when it is unset"
        elif missing.why == "environ":
            because = "`os.environ[...]` raises KeyError when it is unset"
        else:
            because = "it returns an error on every path where it is unset"
        unchecked = {"error, no check": " and no check_fn tests it",
                     "error, check does not test": " and the check_fn does not test it"}.get(missing.why, "")
        return f"handler of {TOOLS} needs `{missing.name}` ({because}) but `requires_env` does not list it{unchecked}"


def _plugin_yaml_env(ctx: ModuleContext) -> Tuple[str, ...]:
    """``requires_env`` of the plugin.yaml of the plugin this module belongs to (recorded in
    ``ctx.read_files``, so a cached result is dropped when the file changes)."""
    from hermes_lint.project.plugin_yaml import manifest_of_module, required_env_names

    if not ctx.config.project_root:
        return ()
    document, looked = manifest_of_module(Path(ctx.config.project_root), ctx.path)
    ctx.read_files.update(looked)
    return required_env_names(document) if document is not None else ()
