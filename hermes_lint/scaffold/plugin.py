"""Scaffold a Hermes plugin package (``new-plugin``) and add tools to one (``new-tool`` inside it).

A new plugin is a pip-installable package rendered from ``templates/plugin/``: ``pyproject.toml``
with the ``hermes_agent.plugins`` entry point, the package's ``__init__.py`` with
``register(ctx)``, one tool module, ``plugin.yaml`` whose ``provides_tools`` lists that tool, and a
test that calls ``register`` with a recording context and dispatches the tool.

Adding a tool to a plugin writes the tool module and edits two files, keeping their formatting:
``register(ctx)`` gets one ``ctx.register_tool(...)`` call and its module one import (libcst),
``plugin.yaml``'s ``provides_tools`` gets one item (a line inserted, the file's comments kept; the
result is parsed and must hold exactly the old data plus the new name, else nothing is written).

As for ``new-tool`` in a ``tools/`` tree, everything is computed before anything is written, a file
is never overwritten, and every write is atomic.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hermes_lint.atomic import write_atomic, write_new
from hermes_lint.scaffold.line_wrapping import docstring_text, wrapped_literal
from hermes_lint.scaffold.tool import (
    ScaffoldError,
    _templates_dir,
    render_template,
    title_of,
    validate_name,
)
from hermes_lint.regular_files import read_regular_file

PLUGIN_TEMPLATES = "plugin"
_PROVIDES = re.compile(r"^provides_tools\s*:\s*(#.*)?$")
_FLOW_PROVIDES = re.compile(r"^(provides_tools\s*:\s*\[)([^\]#]*)(\].*)$")
_ITEM = re.compile(r"^(\s*)-\s")


@dataclass(frozen=True)
class FilePlan:
    """One file to write: ``new`` files must not exist; an edited file must still hold ``old``."""

    path: Path
    data: bytes
    old: Optional[bytes] = None


@dataclass(frozen=True)
class PluginPlan:
    root: Path  # the directory everything is relative to
    files: Tuple[FilePlan, ...]
    directories: Tuple[Path, ...] = field(default=())

    def relative(self, path: Path) -> str:
        return os.path.relpath(path, self.root).replace(os.sep, "/")


def _template(name: str) -> str:
    return (_templates_dir() / PLUGIN_TEMPLATES / f"{name}.tmpl").read_text(encoding="utf-8")


def _yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (JSON's escapes are YAML's)."""
    import json

    return json.dumps(text, ensure_ascii=False)


def tool_values(name: str, toolset: str, description: str) -> Dict[str, str]:
    return {
        "name": name,
        "toolset": toolset,
        "doc_summary": docstring_text(f"{title_of(name)} -- {description}"),
        "check_fn": f"check_{name}",
        "handler": f"handle_{name}",
        "work_fn": f"_run_{name}",
        "schema_const": f"{name.upper()}_SCHEMA",
        "description_literal": wrapped_literal(description, indent=4, prefix='"description": '),
    }


def _refuse_builtin(name: str) -> None:
    from hermes_lint.extract.builtin_tools import builtin_tools

    known = builtin_tools()
    if name in known.tools:
        raise ScaffoldError(
            f"{name!r} is a built-in tool of {known.source}: the registry would reject the plugin's tool "
            "(HRM810); choose another name"
        )


def package_name(plugin: str) -> str:
    return plugin if plugin.startswith("hermes_") else f"hermes_{plugin}"


def plan_new_plugin(name: str, parent: Path, description: str) -> PluginPlan:
    """The package ``parent/NAME/`` for a plugin NAME with one tool NAME."""
    validate_name(name)
    _refuse_builtin(name)
    if not description.strip():
        raise ScaffoldError("the description must not be empty")
    project = parent / name
    if os.path.lexists(project):
        raise ScaffoldError(f"{project} already exists; new-plugin never overwrites anything")
    package = package_name(name)
    values = {
        **tool_values(name, name, description),
        "plugin": name,
        "package": package,
        "distribution": package.replace("_", "-"),
        "description": description.replace("\\", "\\\\").replace('"', '\\"'),
        "description_yaml": _yaml_string(description),
        "doc_summary": docstring_text(f"{title_of(name)} -- a Hermes plugin: {description}"),
    }
    tool_doc = dict(values, doc_summary=docstring_text(f"{title_of(name)} tool -- {description}"))
    files = (
        FilePlan(project / "pyproject.toml", render_template(_template("pyproject.toml"), values).encode()),
        FilePlan(project / package / "__init__.py", render_template(_template("__init__.py"), values).encode()),
        FilePlan(project / package / f"{name}_tool.py", render_template(_template("tool.py"), tool_doc).encode()),
        FilePlan(project / package / "plugin.yaml", render_template(_template("plugin.yaml"), values).encode()),
        FilePlan(project / "tests" / "test_plugin.py", render_template(_template("test_plugin.py"), values).encode()),
    )
    return PluginPlan(parent, files, (project, project / package, project / "tests"))


def write_plugin_plan(plan: PluginPlan) -> List[str]:
    """Write the plan: new files created (never replacing one), edited files replaced atomically
    once checked unchanged; on a failure, the files created so far are removed again."""
    for planned in plan.files:
        if planned.old is not None and read_regular_file(planned.path) != planned.old:
            raise ScaffoldError(f"{plan.relative(planned.path)} changed since it was read; nothing was written")
    made_directories: List[Path] = []
    created: List[Path] = []
    lines: List[str] = []
    try:
        for directory in plan.directories:
            if not directory.exists():
                directory.mkdir()
                made_directories.append(directory)
        for planned in plan.files:
            if planned.old is None:
                write_new(planned.path, planned.data)
                created.append(planned.path)
                lines.append(f"created {plan.relative(planned.path)}")
        for planned in plan.files:
            if planned.old is not None:
                write_atomic(planned.path, planned.data)
                lines.append(f"updated {plan.relative(planned.path)}")
    except (OSError, FileExistsError) as exc:
        for path in reversed(created):
            path.unlink(missing_ok=True)
        for directory in reversed(made_directories):
            try:
                directory.rmdir()
            except OSError:
                pass
        raise ScaffoldError(f"cannot write the plugin: {exc.strerror or exc}; nothing was kept") from None
    return lines


# --------------------------------------------------------------------- a tool added to a plugin


def plan_plugin_tool(
    root: Path, plugin: object, name: str, description: str, toolset: Optional[str] = None
) -> PluginPlan:
    """The new tool module beside the plugin's ``__init__.py``, the edited ``register`` and the
    edited ``plugin.yaml`` (``plugin``: a ``project.plugins.PluginSpec``; ``toolset``: default the
    plugin's name)."""
    from hermes_lint.scaffold.plugin_register_edit import add_registration

    validate_name(name)
    _refuse_builtin(name)
    register_module = getattr(plugin, "register_module", None)
    if register_module is None or not register_module.endswith("__init__.py"):
        raise ScaffoldError("the plugin's register(ctx) is not in its package's __init__.py: add the tool by hand")
    init_path = root / register_module
    package_dir = init_path.parent
    tool_path = package_dir / f"{name}_tool.py"
    if os.path.lexists(tool_path):
        raise ScaffoldError(f"{os.path.relpath(tool_path, root)} already exists; new-tool never overwrites a file")
    toolset = toolset or str(getattr(plugin, "name", name))
    values = tool_values(name, toolset, description)
    tool_source = render_template(_template("tool.py"), values).encode()
    init_old = _read(init_path, root)
    init_new = add_registration(init_old, name, values, toolset)
    files = [FilePlan(tool_path, tool_source), FilePlan(init_path, init_new, init_old)]
    manifest = getattr(plugin, "manifest", None)
    if manifest is not None:
        manifest_path = root / manifest
        manifest_old = _read(manifest_path, root)
        files.append(FilePlan(manifest_path, add_provided_tool(manifest_old, name, manifest), manifest_old))
    return PluginPlan(root, tuple(files))


def _read(path: Path, root: Path) -> bytes:
    try:
        return read_regular_file(path)
    except OSError as exc:
        raise ScaffoldError(f"cannot read {os.path.relpath(path, root)}: {exc.strerror or exc}") from None


def add_provided_tool(data: bytes, name: str, path: str = "plugin.yaml") -> bytes:
    """``data`` with ``name`` added to ``provides_tools``: one line inserted after the list's last
    item (or the list created at the end), comments and everything else kept. The result must
    parse to the old data with ``name`` appended, else ``ScaffoldError``."""
    from hermes_lint.project.plugin_yaml import ManifestDocument, parse_plugin_yaml

    before = parse_plugin_yaml(path, data)
    if not isinstance(before, ManifestDocument) or not isinstance(before.data or {}, dict):
        raise ScaffoldError(f"{path} cannot be read as a mapping: add `{name}` to provides_tools by hand")
    old = dict(before.data or {})
    provided = old.get("provides_tools")
    if provided is not None and not isinstance(provided, list):
        raise ScaffoldError(f"{path}: provides_tools is not a list: add `{name}` by hand")
    if name in (provided or []):
        raise ScaffoldError(f"{path} already lists {name!r} in provides_tools")
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    start = next((i for i, line in enumerate(lines) if _PROVIDES.match(line.rstrip("\r\n"))), None)
    flow = next((i for i, line in enumerate(lines) if _FLOW_PROVIDES.match(line.rstrip("\r\n"))), None)
    if start is not None:
        last, indent = start, "  "
        for number in range(start + 1, len(lines)):
            stripped = lines[number].strip()
            item = _ITEM.match(lines[number])
            if item:
                last, indent = number, item.group(1)
            elif stripped and not stripped.startswith("#"):
                break
        lines.insert(last + 1, f"{indent}- {name}{newline}")
    elif flow is not None:
        match = _FLOW_PROVIDES.match(lines[flow].rstrip("\r\n"))
        assert match is not None
        head, items, tail = match.groups()
        joined = f"{items.rstrip()}, {name}" if items.strip() else name
        lines[flow] = f"{head}{joined}{tail}{newline}"
    elif provided is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += newline
        lines.append(f"provides_tools:{newline}  - {name}{newline}")
    else:
        raise ScaffoldError(f"{path}: provides_tools is written in a form new-tool does not edit: add `{name}` by hand")
    result = "".join(lines).encode("utf-8")
    after = parse_plugin_yaml(path, result)
    expected = dict(old, provides_tools=list(provided or []) + [name])
    if not isinstance(after, ManifestDocument) or after.data != expected:
        raise ScaffoldError(f"{path}: adding `{name}` to provides_tools would change more than that: add it by hand")
    return result
