"""``hermes-lint new-tool``: the click command over ``hermes_lint.scaffold.tool``.

A command object of its own, which the ``hermes-lint`` group of ``cli.commands`` loads when the command
is named (``_LazyGroup``). Importing this module costs only click: ``hermes_lint.scaffold.tool``
(which loads libcst, ~0.8 s cold) and ``hermes_lint.cli`` are imported when the command runs, so
``hermes-lint check`` does not pay for them.
"""

from __future__ import annotations

from typing import Optional, Sequence

import click

# Kept equal to hermes_lint.scaffold.tool's (not imported from there: see the module docstring).
DEFAULT_TEMPLATE, ASYNC_TEMPLATE = "basic", "async"
TOOL_SUFFIX = "_tool"


@click.command("new-tool")
@click.argument("tool_name", metavar="NAME")
@click.option("--toolset", default=None, metavar="TS",
              help="Toolset to list the tool in (default: NAME); created when toolsets.py has none.")
@click.option("--description", default=None, metavar="TEXT",
              help="The tool's description for the model (default: a TODO to replace).")
@click.option("--async", "is_async", is_flag=True,
              help="An async handler registered with is_async=True (the async template).")
@click.option("--env", "env", multiple=True, metavar="VAR",
              help="Environment variable the tool needs: checked by check_fn, listed in "
                   "requires_env. Repeat it or separate names with commas.")
@click.option("--core", is_flag=True, help="Also add the tool to _HERMES_CORE_TOOLS.")
@click.option("--template", default=None, metavar="NAME",
              help=f"Template to render (default: {DEFAULT_TEMPLATE}, or {ASYNC_TEMPLATE} with --async).")
@click.option("--root", type=click.Path(),
              help="Project root (default: nearest parent with toolsets.py or [tool.hermes-lint]).")
@click.option("--dry-run", is_flag=True, help="Print the new file and the toolsets.py diff; write nothing.")
@click.option("--debug", is_flag=True, help="Print tracebacks of internal errors.")
def new_tool(
    tool_name: str,
    toolset: Optional[str],
    description: Optional[str],
    is_async: bool,
    env: Sequence[str],
    core: bool,
    template: Optional[str],
    root: Optional[str],
    dry_run: bool,
    debug: bool,
) -> None:
    """Create tools/NAME_tool.py from a template and list NAME in toolsets.py.

    Refuses (exit 2, nothing written) an invalid or already registered NAME, an existing file,
    and a toolsets.py it cannot edit safely. Never overwrites a file; both writes are atomic.
    If tools/manifest.json exists, it is regenerated as `hermes-lint manifest` does; when errors
    elsewhere in the project keep it from being written, the tool stays, they are listed and the
    exit status is 1.
    """
    from hermes_lint.cli import UsageError, resolve_root, run_guarded
    from hermes_lint.project_config import load_config
    from hermes_lint.scaffold.tool import (
        ScaffoldError,
        ToolSpec,
        default_description,
        parse_env_vars,
        plan_new_tool,
        write_plan,
    )

    def action() -> int:
        name = _without_suffix(tool_name)
        try:
            project_root = resolve_root(root)
            config = load_config(project_root)
            plugin = _plugin_of(project_root, config)
            if plugin is not None:
                if is_async or env or core or template is not None:
                    raise ScaffoldError(
                        "--async, --env, --core and --template apply to a tools/ tree; in a plugin, "
                        "edit the new tool module instead"
                    )
                return _new_plugin_tool(project_root, plugin, name, toolset, description, dry_run)
            spec = ToolSpec(
                name=name,
                toolset=toolset if toolset is not None else name,
                description=description if description is not None else default_description(name),
                env=parse_env_vars(env),
                template=_template_name(template, is_async),
                core=core,
            )
            plan = plan_new_tool(spec, project_root, config)
            if dry_run:
                return _show(plan)
            for line in write_plan(plan):
                click.echo(line)
        except ScaffoldError as exc:
            raise UsageError(str(exc)) from None
        if plan.manifest_path is not None:
            if not _regenerate(project_root, config, plan):
                return 1
        click.echo(
            f"next: replace the TODOs in {plan.relative(plan.tool_path)}, then run `hermes-lint check`"
        )
        return 0

    run_guarded(debug, action)


def _plugin_of(project_root, config):
    """The plugin to add the tool to, in a plugin project without a tools/ directory; None in a
    tools/ tree."""
    from hermes_lint.scaffold.tool import ScaffoldError
    from hermes_lint.project.plugins import project_plugins

    if (project_root / config.tools_dir).is_dir():
        return None
    plugins = [spec for spec in project_plugins(project_root, config) if spec.register_module is not None]
    if len(plugins) > 1:
        names = ", ".join(spec.name for spec in plugins)
        raise ScaffoldError(f"the project holds several plugins ({names}): run new-tool in one plugin's own project")
    return plugins[0] if plugins else None


def _new_plugin_tool(project_root, plugin, name, toolset, description, dry_run) -> int:
    """Add the tool module to the plugin, register it in register(ctx), list it in plugin.yaml."""
    from hermes_lint.scaffold.plugin import plan_plugin_tool, write_plugin_plan
    from hermes_lint.scaffold.tool import default_description

    plan = plan_plugin_tool(project_root, plugin, name, description or default_description(name), toolset)
    if dry_run:
        for planned in plan.files:
            verb = "create" if planned.old is None else "change"
            click.echo(f"# would {verb} {plan.relative(planned.path)}")
        click.echo("# dry run: nothing was written")
        return 0
    for line in write_plugin_plan(plan):
        click.echo(line)
    click.echo(f"next: replace the TODOs in {plan.relative(plan.files[0].path)}, then run `hermes-lint check`")
    return 0


def _regenerate(project_root, config, plan) -> bool:
    """Regenerate the existing manifest; False (after saying why) when it could not be."""
    from hermes_lint.cli import UsageError
    from hermes_lint.report.output import format_text
    from hermes_lint.cli.manifest_run import write_manifest

    created = plan.relative(plan.tool_path)
    try:
        outcome = write_manifest(project_root, config)  # as `hermes-lint manifest` does: one code path
    except Exception as exc:  # the tool exists now; say so rather than hide it
        raise UsageError(
            f"{created} was created, but regenerating {config.manifest} failed: "
            f"{type(exc).__name__}: {exc}"
        ) from None
    if outcome.problems:
        click.echo(format_text(outcome.problems), nl=False)
        click.echo(
            f"hermes-lint: {created} was created, but {config.manifest} was not regenerated: "
            "fix the errors above, then run `hermes-lint manifest`",
            err=True,
        )
        return False
    click.echo(outcome.message)
    return True


def _without_suffix(name: str) -> str:
    """``weather_tool`` -> ``weather``: the file is NAME_tool.py, so a name ending in ``_tool``
    would make ``weather_tool_tool.py``; the suffix is dropped, and said so."""
    if name.endswith(TOOL_SUFFIX) and len(name) > len(TOOL_SUFFIX):
        stripped = name[: -len(TOOL_SUFFIX)]
        click.echo(
            f"note: the tool is named {stripped!r}, its file {stripped}{TOOL_SUFFIX}.py "
            f"(the {TOOL_SUFFIX!r} suffix belongs to the file name)",
            err=True,
        )
        return stripped
    return name


def _template_name(template: Optional[str], is_async: bool) -> str:
    from hermes_lint.scaffold.tool import ScaffoldError

    if template is None:
        return ASYNC_TEMPLATE if is_async else DEFAULT_TEMPLATE
    if is_async and template != ASYNC_TEMPLATE:
        raise ScaffoldError(f"--async asks for the {ASYNC_TEMPLATE!r} template, not {template!r}")
    return template


def _show(plan) -> int:
    """--dry-run: the new file, then the toolsets.py diff (or why there is none)."""
    click.echo(f"# would create {plan.relative(plan.tool_path)}")
    click.echo(plan.tool_source, nl=False)
    if plan.toolsets_error is not None:
        click.echo(f"hermes-lint: error: {plan.toolsets_error}", err=True)
        return 2
    diff = plan.toolsets_diff()
    if diff:
        click.echo(f"# would change {plan.relative(plan.toolsets_path)}")
        click.echo(diff, nl=False)
    for change in plan.toolsets_changes:
        if change.startswith('"'):  # "x" is already listed in ...
            click.echo(f"# {change}")
    if plan.manifest_path is not None:
        click.echo(f"# would regenerate {plan.relative(plan.manifest_path)}")
    click.echo("# dry run: nothing was written")
    return 0
