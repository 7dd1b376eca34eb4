"""``hermes-lint init``: start a project from nothing (a tools directory, toolsets.py, the
``[tool.hermes-lint]`` table and, if asked, a pre-commit configuration).

Never overwrites: a file that exists is left exactly as it is and said so; pyproject.toml is
only ever appended to (the table, when it has none), atomically. The ``main`` group of
``cli.commands`` loads this module when the command is named (``_LazyGroup``).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import click

TOOLSETS_TEMPLATE = '''\
"""Toolsets: which tools each agent is offered.

hermes-lint reads this file without importing it; `hermes-lint new-tool NAME` adds NAME here.
"""

# Tools every agent is offered (`hermes-lint new-tool NAME --core` adds NAME here).
_HERMES_CORE_TOOLS = [
]

TOOLSETS = {
}
'''

CONFIG_TABLE = """\
[tool.hermes-lint]
# Every rule is on; `hermes-lint rules` lists them. For example:
# ignore = ["HRM108"]
# providers = ["openai", "anthropic"]   # the APIs your tools are sent to (HRM6xx)
tools-dir = "tools"
toolsets-file = "toolsets.py"
"""

# The README's snippet: the hooks run the hermes-lint installed in the committing environment.
PRE_COMMIT_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: hermes-lint
        name: hermes-lint
        entry: hermes-lint check --changed
        language: system
        types: [python]
        always_run: true
        require_serial: true
"""

MANIFEST_HOOK = """\
      - id: hermes-lint-manifest
        name: hermes-lint manifest
        entry: hermes-lint manifest --check
        language: system
        pass_filenames: false
        always_run: true
        require_serial: true
"""


@click.command("init")
@click.argument("directory", default=".", type=click.Path(file_okay=False))
@click.option("--pre-commit", "pre_commit", is_flag=True,
              help="Also write .pre-commit-config.yaml with the hermes-lint hook.")
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors.")
def init(directory: str, pre_commit: bool, debug: bool) -> None:
    """Start a hermes-lint project in DIRECTORY (default: here).

    Creates tools/ (a package) with the reference runtime (tools/registry.py and the modules
    it loads, unless tools/registry.py exists), toolsets.py with an empty TOOLSETS and the
    [tool.hermes-lint] table of pyproject.toml; with --pre-commit, .pre-commit-config.yaml.
    What exists is left as it is. Exit 2 when there was nothing to create.
    """
    from hermes_lint.cli import EXIT_CLEAN, UsageError, run_guarded

    def action() -> int:
        root = Path(directory)
        if not root.is_dir():
            raise UsageError(f"{directory}: not a directory")
        created, kept = initialise(root, pre_commit)
        for line in kept:
            click.echo(f"{line}: exists, left as it is", err=True)
        if not created:
            raise UsageError(f"nothing to do: {directory} already has a hermes-lint project")
        for line in created:
            click.echo(f"created {line}")
        click.echo(
            "next: `hermes-lint new-tool NAME` scaffolds tools/NAME_tool.py and lists it in "
            "toolsets.py; `hermes-lint check` checks the project"
        )
        return EXIT_CLEAN

    run_guarded(debug, action)


def initialise(root: Path, pre_commit: bool) -> Tuple[List[str], List[str]]:
    """Create what is missing under ``root``; returns (created, kept) as display names."""
    from hermes_lint.atomic import write_atomic, write_new

    from hermes_lint.config import read_pyproject_table

    created: List[str] = []
    kept: List[str] = []
    pyproject = root / "pyproject.toml"
    # Read before anything is created: a pyproject.toml that is not TOML stops everything.
    has_table = pyproject.exists() and read_pyproject_table(root) is not None
    tools = root / "tools"
    if tools.exists() and not tools.is_dir():
        from hermes_lint.cli import UsageError

        raise UsageError(f"{tools}: exists and is not a directory")
    runtime = _runtime_files(root, tools, kept)  # read before anything is created, too
    if not tools.is_dir():
        tools.mkdir()
        created.append("tools/")
    files = [(tools / "__init__.py", b""), (root / "toolsets.py", TOOLSETS_TEMPLATE.encode("utf-8"))]
    files += runtime
    for path, data in files:
        name = path.relative_to(root).as_posix()
        try:
            write_new(path, data)
            created.append(name)
        except FileExistsError:
            kept.append(name)

    if not pyproject.exists():
        write_new(pyproject, CONFIG_TABLE.encode("utf-8"))
        created.append("pyproject.toml ([tool.hermes-lint])")
    else:
        old = pyproject.read_bytes()
        if has_table:
            kept.append("pyproject.toml [tool.hermes-lint]")
        else:
            separator = b"" if not old or old.endswith(b"\n\n") else (b"\n" if old.endswith(b"\n") else b"\n\n")
            write_atomic(pyproject, old + separator + CONFIG_TABLE.encode("utf-8"))
            created.append("pyproject.toml [tool.hermes-lint] (appended)")

    if pre_commit:
        config = root / ".pre-commit-config.yaml"
        try:
            write_new(config, (PRE_COMMIT_CONFIG + MANIFEST_HOOK_NOTE).encode("utf-8"))
            created.append(".pre-commit-config.yaml")
        except FileExistsError:
            kept.append(".pre-commit-config.yaml (add the hook from hermes-lint's README by hand)")
    return created, kept


def _runtime_files(root: Path, tools: Path, kept: List[str]) -> List[Tuple[Path, bytes]]:
    """The reference runtime's modules to write into ``tools`` (their bytes, read before any
    write), so that a scaffolded tool's ``from tools.registry import ...`` runs. None when the
    project has a ``tools/registry.py``: it has a runtime of its own, which the reference's
    other modules must not be mixed into."""
    from hermes_lint.scaffold.reference_runtime import RuntimeNotFound, runtime_directory, runtime_file_names

    if (tools / "registry.py").exists():
        kept.append(f"{(tools / 'registry.py').relative_to(root).as_posix()} (the project's runtime: not replaced)")
        return []
    try:
        directory = runtime_directory()
        return [(tools / name, (directory / name).read_bytes()) for name in runtime_file_names(directory)]
    except (RuntimeNotFound, OSError) as exc:
        from hermes_lint.cli import UsageError

        raise UsageError(f"{exc}; nothing was written") from None


# The manifest hook fails while no manifest exists, so it is offered commented out.
MANIFEST_HOOK_NOTE = (
    "      # Once you commit tools/manifest.json (`hermes-lint manifest`), uncomment this hook:\n"
    + "".join(f"      # {line[6:]}\n" for line in MANIFEST_HOOK.splitlines())
)
