"""Scaffold a new tool: render a template into ``tools/NAME_tool.py`` and list it in toolsets.py.

Everything is decided before anything is written (``plan_new_tool``): the name is checked
against the rules, the registered names (static extraction, nothing imported) and the files on
disk; the tool file is rendered; the toolsets.py edit is computed. Only then ``write_plan``
writes, atomically and without overwriting, and takes the new file back if toolsets.py cannot
be written.

Templates are the ``*.py.tmpl`` files of the repository's top-level ``templates/``, installed
as package data (``hermes_lint/templates/``): an installed wheel reads them there through
``importlib.resources``, a source checkout (an editable install) from ``templates/``. Their
placeholders are ``${name}`` inside a line, and ``${block}`` alone on a line for generated
lines, which take that line's indentation and vanish with the line when the block is empty.
"""

from __future__ import annotations

import ast
import difflib
import importlib.resources
import keyword
import os
import re
import string
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from hermes_lint.atomic import write_atomic, write_new
from hermes_lint.regular_files import read_regular_file
from hermes_lint.config import Config
from hermes_lint.discovery import SKIPPED_FILE_NAMES, text_may_register_tools
from hermes_lint.scaffold.line_wrapping import (
    LINE_WIDTH,
    dedented,
    docstring_text,
    wrapped_call,
    wrapped_docstring,
    wrapped_literal,
)
from hermes_lint.edit.literals import string_literal
from hermes_lint.edit.toolsets_edit import ToolsetsEditError, add_tool
from hermes_lint.project.index import MCP_TOOLSET_PREFIX, is_mcp

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")
TOOLSET_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
ENV_VAR_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEFAULT_TEMPLATE, ASYNC_TEMPLATE = "basic", "async"
TEMPLATE_SUFFIX = ".py.tmpl"
# Unicode categories refused in a description: controls (other than newline and tab),
# invisible format characters (bidi overrides, zero-width), line/paragraph separators,
# surrogates. HRM701 would report most of them in the finished file.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs"}
_BLOCK_LINE = re.compile(r"([ \t]*)\$\{(\w+)\}[ \t]*(\r?\n)?")


class ScaffoldError(Exception):
    """The tool cannot be scaffolded as asked; nothing was written. Exit 2."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    toolset: str
    description: str
    env: Tuple[str, ...] = ()
    template: str = DEFAULT_TEMPLATE
    core: bool = False


@dataclass(frozen=True)
class Plan:
    """What ``new-tool`` will do, fully computed; ``write_plan`` only writes it."""

    spec: ToolSpec
    root: Path
    tool_path: Path
    tool_source: str
    toolsets_path: Path
    toolsets_old: bytes
    toolsets_new: Optional[bytes]  # None when the edit is impossible (see toolsets_error)
    toolsets_changes: Tuple[str, ...]
    toolsets_error: Optional[str]
    manifest_path: Optional[Path]  # an existing manifest to regenerate
    # The tool file exists already, exactly as this plan would write it: a run stopped between
    # creating it and editing toolsets.py. This one finishes the job.
    resuming: bool = False

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def toolsets_diff(self) -> str:
        if self.toolsets_new is None or self.toolsets_new == self.toolsets_old:
            return ""
        name = self.relative(self.toolsets_path)
        return "".join(
            difflib.unified_diff(
                _lines(self.toolsets_old),
                _lines(self.toolsets_new),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )


def _lines(data: bytes) -> List[str]:
    lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


# --------------------------------------------------------------------- validation


def validate_name(name: str) -> None:
    if not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(
            f"invalid tool name {name!r}: use 1-64 characters, lowercase letters, digits and "
            "underscores, starting with a letter (^[a-z][a-z0-9_]{0,63}$)"
        )
    if keyword.iskeyword(name):
        raise ScaffoldError(f"invalid tool name {name!r}: it is a Python keyword")
    if f"{name}_tool.py" in SKIPPED_FILE_NAMES:
        raise ScaffoldError(
            f"invalid tool name {name!r}: runtime discovery never imports {name}_tool.py "
            "(the file name is reserved)"
        )


def validate_toolset(toolset: str) -> None:
    if not TOOLSET_PATTERN.fullmatch(toolset):
        raise ScaffoldError(
            f"invalid toolset name {toolset!r}: use 1-64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    if is_mcp(toolset):
        raise ScaffoldError(
            f"invalid toolset name {toolset!r}: toolsets starting with '{MCP_TOOLSET_PREFIX}' "
            "belong to MCP servers"
        )


def parse_env_vars(values: Sequence[str]) -> Tuple[str, ...]:
    """``--env A --env B,C`` -> ("A", "B", "C"), each once, in order."""
    names: List[str] = []
    for value in values:
        for name in value.split(","):
            name = name.strip()
            if not name:
                continue
            if not ENV_VAR_PATTERN.fullmatch(name):
                raise ScaffoldError(f"invalid environment variable name {name!r}")
            if name not in names:
                names.append(name)
    return tuple(names)


def validate_description(description: str, max_length: int) -> None:
    if not description.strip():
        raise ScaffoldError("the description is empty")
    if len(description) > max_length:
        raise ScaffoldError(
            f"the description has {len(description)} characters; the limit is {max_length}"
        )
    for char in description:
        if char not in "\n\t" and unicodedata.category(char) in _REFUSED_CATEGORIES:
            raise ScaffoldError(
                f"the description contains the invisible or control character U+{ord(char):04X}"
            )


def default_description(name: str) -> str:
    return f"TODO: say what {name} does, what it returns and when the model should use it."


def title_of(name: str) -> str:
    """``web_search`` -> ``Web Search``."""
    return " ".join(word.capitalize() for word in re.split(r"[_.-]+", name) if word)


# --------------------------------------------------------------------- templates


def _templates_dir() -> Traversable:
    installed = importlib.resources.files("hermes_lint") / "templates"
    if installed.is_dir():
        return installed
    # a source checkout: pyproject.toml maps templates/ to hermes_lint/templates only in a wheel
    return Path(__file__).resolve().parents[2] / "templates"


def available_templates() -> List[str]:
    return sorted(
        entry.name[: -len(TEMPLATE_SUFFIX)]
        for entry in _templates_dir().iterdir()
        if entry.name.endswith(TEMPLATE_SUFFIX)
    )


def load_template(name: str) -> str:
    if name not in available_templates():
        raise ScaffoldError(
            f"unknown template {name!r} (available: {', '.join(available_templates())})"
        )
    return (_templates_dir() / f"{name}{TEMPLATE_SUFFIX}").read_text(encoding="utf-8")


def render_template(text: str, values: Dict[str, str]) -> str:
    """Substitute ``values``; a placeholder alone on its line is a block (see the module doc).

    Values are inserted once and never re-scanned, so a ``$`` in a description stays a ``$``.
    """
    out: List[str] = []
    for line in text.splitlines(keepends=True):
        block = _BLOCK_LINE.fullmatch(line)
        if block:
            indent, key, newline = block.group(1), block.group(2), block.group(3) or ""
            for block_line in values[key].splitlines():
                out.append((indent + block_line if block_line else "") + (newline or "\n"))
            continue
        out.append(string.Template(line).substitute(values))
    return "".join(out)


def render_tool(spec: ToolSpec, template: Optional[str] = None) -> str:
    """The new tool module's source (``template``: its text, default: ``spec.template``'s)."""
    name, env = spec.name, spec.env
    check_fn = f"check_{name}_requirements"
    values = {
        "name": name,
        "toolset": spec.toolset,
        "doc_summary": docstring_text(f"{title_of(name)} Tool -- {spec.description}"),
        "check_fn": check_fn,
        "handler": f"_handle_{name}",
        "work_fn": f"_run_{name}",
        "schema_const": f"{name.upper()}_SCHEMA",
        "description_literal": wrapped_literal(spec.description, indent=4, prefix='"description": '),
        "extra_imports": "import os" if env else "",
        "check_doc": wrapped_docstring(
            f"Available when {_enumerate(env)} {'is' if len(env) == 1 else 'are'} set."
            if env
            else "Always available: this tool needs no configuration.",
            indent=4,
        ),
        "check_return": _check_return(env),
        "availability_guard": (
            # A block at the handler's indentation (4): the return is at 8 in the file.
            f"if not {check_fn}():\n"
            + dedented(wrapped_call("tool_error", f"{name} is not configured: set {_enumerate(env)}", 8, "return "), 4)
            if env
            else ""
        ),
        "requires_env": _requires_env(env),
    }
    if template is None:
        template = load_template(spec.template)
    source = render_template(template, values)
    try:
        ast.parse(source)
    except SyntaxError as exc:  # a broken template, or an input the checks above let through
        raise ScaffoldError(
            f"template {spec.template!r} rendered invalid Python (line {exc.lineno}: {exc.msg})"
        ) from None
    return source


def _enumerate(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _check_return(env: Sequence[str]) -> str:
    # One explicit test per variable: the manifest states this form as a template of the
    # variables ({"env": NAME}) and evaluates it without importing the module.
    tests = [f"bool(os.getenv({string_literal(var)}))" for var in env]
    if not tests:
        return "return True"
    if len(tests) == 1:
        return f"return {tests[0]}"
    return "return (\n    " + "\n    and ".join(tests) + "\n)"


def _requires_env(env: Sequence[str]) -> str:
    if not env:
        return ""
    one_line = "requires_env=[" + ", ".join(string_literal(var) for var in env) + "],"
    if len(one_line) + 4 <= LINE_WIDTH:
        return one_line
    return "requires_env=[\n" + "".join(f"    {string_literal(var)},\n" for var in env) + "],"


# --------------------------------------------------------------------- planning


def registered_tool_names(root: Path, config: Config) -> Dict[str, str]:
    """Every tool name the project registers (statically extracted; nothing is imported) ->
    the file that registers it."""
    from hermes_lint.check.engine import collect_sources, extract_module_facts

    names: Dict[str, str] = {}
    for source in collect_sources(root, config).tool_files:
        if source.data is None or not text_may_register_tools(source.data):
            continue
        for registration in extract_module_facts(source, config).registrations:
            if isinstance(registration.name, str):
                names.setdefault(registration.name, source.path)
    return names


def plan_new_tool(spec: ToolSpec, root: Path, config: Config) -> Plan:
    """Check everything and compute both files; raises ``ScaffoldError``; writes nothing.

    A toolsets.py that cannot be edited does not raise here but sets ``toolsets_error``, so that
    ``--dry-run`` can still show the tool file for adding the tool by hand.
    """
    validate_name(spec.name)
    validate_toolset(spec.toolset)
    validate_description(spec.description, config.max_description_length)
    template = load_template(spec.template)
    tools_dir = root / config.tools_dir
    if not tools_dir.is_dir():
        raise ScaffoldError(f"no tools directory at {tools_dir} (`hermes-lint init` creates one)")
    tool_path = tools_dir / f"{spec.name}_tool.py"
    relative_tool = tool_path.relative_to(root).as_posix()
    tool_source = render_tool(spec, template)
    registered = registered_tool_names(root, config)
    resuming = registered.get(spec.name) == relative_tool and _holds(tool_path, tool_source.encode("utf-8"))
    if spec.name in registered and not resuming:
        raise ScaffoldError(
            f"a tool named {spec.name!r} is already registered in {registered[spec.name]}"
        )
    if os.path.lexists(tool_path) and not resuming:
        raise ScaffoldError(f"{relative_tool} already exists; new-tool never overwrites a file")
    toolsets_path = root / config.toolsets_file
    try:
        toolsets_old = read_regular_file(toolsets_path)
    except FileNotFoundError:
        raise ScaffoldError(
            f"no {config.toolsets_file} in {root}: the new tool must be listed in a toolset "
            "(`hermes-lint init` creates one)"
        ) from None
    except OSError as exc:
        raise ScaffoldError(f"cannot read {config.toolsets_file}: {exc.strerror or exc}") from None
    toolsets_new: Optional[bytes] = None
    changes: Tuple[str, ...] = ()
    toolsets_error: Optional[str] = None
    try:
        edit = add_tool(
            toolsets_old,
            spec.name,
            spec.toolset,
            core=spec.core,
            toolset_description=f"{title_of(spec.toolset)} tools",
        )
        toolsets_new, changes = edit.source, edit.changes
        ast.parse(toolsets_new)  # never write a file that no longer parses
    except ToolsetsEditError as exc:
        toolsets_error = _by_hand(spec, config, relative_tool, str(exc))
    except (SyntaxError, ValueError) as exc:  # pragma: no cover - would be a bug in the editor
        toolsets_error = _by_hand(spec, config, relative_tool, f"the edit did not parse ({exc})")
        toolsets_new = None
    if resuming and toolsets_new == toolsets_old:  # nothing left to finish: a finished tool
        raise ScaffoldError(f"a tool named {spec.name!r} is already registered in {relative_tool}")
    manifest_path = root / config.manifest
    return Plan(
        spec=spec,
        root=root,
        tool_path=tool_path,
        tool_source=tool_source,
        toolsets_path=toolsets_path,
        toolsets_old=toolsets_old,
        toolsets_new=toolsets_new,
        toolsets_changes=changes,
        toolsets_error=toolsets_error,
        manifest_path=manifest_path if manifest_path.is_file() else None,
        resuming=resuming,
    )


def _holds(path: Path, data: bytes) -> bool:
    try:
        return read_regular_file(path) == data
    except OSError:
        return False


def _by_hand(spec: ToolSpec, config: Config, relative_tool: str, reason: str) -> str:
    where = f'the "tools" list of toolset "{spec.toolset}" (create the toolset if needed)'
    if spec.core:
        where += " and to _HERMES_CORE_TOOLS"
    return (
        f"cannot edit {config.toolsets_file}: {reason}. Nothing was written. "
        f"To add the tool by hand: run the same command with --dry-run, save the printed file "
        f'as {relative_tool}, and add "{spec.name}" to {where} in {config.toolsets_file}.'
    )


# --------------------------------------------------------------------- writing


def write_plan(plan: Plan) -> List[str]:
    """Write the tool file, then toolsets.py; returns what was done, one line each.

    The tool file is created without overwriting (a file that appeared since the plan is
    refused); toolsets.py is replaced atomically, and only if it is still the file the edit was
    computed from. If that fails, the new tool file is removed again.
    """
    if plan.toolsets_error is not None:
        raise ScaffoldError(plan.toolsets_error)
    relative_tool = plan.relative(plan.tool_path)
    relative_toolsets = plan.relative(plan.toolsets_path)
    _ensure_unchanged(plan)
    if plan.resuming:
        done = [f"kept {relative_tool} (created by an earlier run that stopped before editing {relative_toolsets})"]
    else:
        try:
            write_new(plan.tool_path, plan.tool_source.encode("utf-8"))
        except FileExistsError:
            raise ScaffoldError(f"{relative_tool} already exists; new-tool never overwrites a file") from None
        except OSError as exc:
            raise ScaffoldError(f"cannot create {relative_tool}: {exc.strerror or exc}; nothing was written") from None
        done = [f"created {relative_tool}"]
    # toolsets_new is None only with a toolsets_error, refused above.
    if plan.toolsets_new is not None and plan.toolsets_new != plan.toolsets_old:
        try:
            _ensure_unchanged(plan)
            write_atomic(plan.toolsets_path, plan.toolsets_new)
        except (OSError, ScaffoldError) as exc:
            if plan.resuming:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                raise ScaffoldError(f"cannot write {relative_toolsets}: {reason}; nothing was changed") from None
            os.unlink(plan.tool_path)
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ScaffoldError(
                f"cannot write {relative_toolsets}: {reason}. {relative_tool} was removed again; "
                "nothing was changed"
            ) from None
    done.extend(f"{relative_toolsets}: {change}" for change in plan.toolsets_changes)
    return done


def _ensure_unchanged(plan: Plan) -> None:
    try:
        current = read_regular_file(plan.toolsets_path)
    except OSError as exc:
        raise ScaffoldError(f"cannot read {plan.relative(plan.toolsets_path)}: {exc.strerror or exc}") from None
    if current != plan.toolsets_old:
        raise ScaffoldError(
            f"{plan.relative(plan.toolsets_path)} changed while new-tool was running; run it again"
        )
