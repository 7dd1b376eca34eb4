"""Check: run the rules over a project's sources and turn findings into diagnostics.

Two phases, so that the per-file work can run in parallel or come from a cache:
1. ``check_module``: one file -> ``ModuleResult`` (facts, module-rule diagnostics, noqa
   comments): plain, picklable data.
2. ``finish``: project rules over every module's facts and ``toolsets.py``, then ``# noqa``,
   per-file ignores, HRM900 and sorting.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Tuple, Type

from hermes_lint.config import Config
from hermes_lint.model.context import ModuleContext, ModuleIndex, ProjectContext
from hermes_lint.model.semantic import SemanticModel
from hermes_lint.model.extract import ParsedModule, extract_facts, module_name, parse_module
from hermes_lint.model import Diagnostic, ModuleFacts
from hermes_lint.check.noqa import NoqaComment, find_noqa_comments
from hermes_lint.rules import all_rules
from hermes_lint.rules.base import Rule

if TYPE_CHECKING:
    from hermes_lint.check.cache import ResultCache
    from hermes_lint.project.toolsets_file import ToolsetsFacts

UNUSED_NOQA = "HRM900"
PARSE_ERROR = "HRM001"


@dataclass(frozen=True)
class SourceFile:
    """A project file as read from disk (or an editor buffer): ``data`` or why it is unreadable."""

    path: str  # relative to the project root, '/'-separated
    data: Optional[bytes]
    read_error: Optional[str] = None


@dataclass(frozen=True)
class ModuleResult:
    facts: ModuleFacts
    diagnostics: Tuple[Diagnostic, ...]
    noqa: Tuple[NoqaComment, ...]


@dataclass
class ProjectSources:
    tool_files: List[SourceFile]
    toolsets: Optional[SourceFile]
    root: Optional[Path] = None


def read_source(root: Path, relative: str) -> SourceFile:
    from hermes_lint.regular_files import read_regular_file

    try:
        return SourceFile(relative, read_regular_file(root / relative))
    except OSError as exc:
        return SourceFile(relative, None, exc.strerror or str(exc))


def collect_sources(root: Path, config: Config, plugins: bool = True) -> ProjectSources:
    """Every candidate tool module under the tools directory, the plugin modules that hold a
    registration site (``plugins=False``: not them), and toolsets.py when present."""
    from hermes_lint.project.registration_sites import project_sites
    from hermes_lint.config import require_listable

    require_listable(root / config.tools_dir)
    sites = project_sites(root, config)
    paths = sites.modules() if plugins else sites.tool_modules
    tool_files = [read_source(root, path) for path in paths]
    toolsets = read_source(root, config.toolsets_file) if (root / config.toolsets_file).exists() else None
    return ProjectSources(tool_files, toolsets, root)


def selected_rules(config: Config, scope: str) -> List[Type[Rule]]:
    """The rules of ``scope`` to run; per-file ignores are applied to their findings later."""
    return list(_selected_rules(config, scope))


@lru_cache(maxsize=16)
def _selected_rules(config: Config, scope: str) -> Tuple[Type[Rule], ...]:
    # Asked once per checked file: the prefix matching of select/ignore is done once per run.
    return tuple(rule for rule in all_rules() if rule.scope == scope and config.is_selected(rule.code))


def build_module_context(
    parsed: ParsedModule, config: Config, project: Optional[Any] = None
) -> Tuple[ModuleFacts, Optional[ModuleContext]]:
    """``project``: the ``ProjectModules`` imported names are read from (default: the files
    under ``config.project_root``)."""
    from hermes_lint.evaluate import ModuleEvaluator
    from hermes_lint.evaluate.project import project_modules
    from hermes_lint.project.registry_contract import module_contract
    from hermes_lint.project.registration_sites import entries_of, sites_for_config

    if parsed.tree is None:
        return extract_facts(parsed, None), None
    index = ModuleIndex(parsed.tree)
    if project is None and config.project_root:
        project = project_modules(config.project_root)
    from hermes_lint.project.plugin_register import dotted_name

    # The name the module is imported by (``pkg`` for ``pkg/__init__.py``, ``src/`` dropped):
    # what its relative imports are resolved against.
    name, is_package = dotted_name(parsed.path), parsed.path.endswith("__init__.py")
    evaluator = ModuleEvaluator(
        parsed.tree, parsed.lines, module=name, is_package=is_package, project=project
    )
    semantic = SemanticModel(parsed.tree, parsed.text, index, evaluator)
    sites = sites_for_config(config, project)
    entries = entries_of(sites, parsed.path)
    unfollowed = sites.unfollowed_in(parsed.path) if sites is not None else ()
    contract = module_contract(parsed.tree, index, parsed.path, config, project, entries)
    facts = extract_facts(parsed, semantic, config.env_readers, contract, entries, unfollowed)
    ctx = ModuleContext(
        path=parsed.path,
        text=parsed.text,
        lines=parsed.lines,
        tree=parsed.tree,
        semantic=semantic,
        facts=facts,
        config=config,
        contract=contract,
    )
    return facts, ctx


def extract_module_facts(source: SourceFile, config: Config) -> ModuleFacts:
    """Only the extracted facts of one file (no rules run): for scaffolding and the manifest."""
    if source.data is None:
        return check_module(source, config).facts
    facts, _ = build_module_context(parse_module(source.path, source.data), config)
    return facts


def check_module(source: SourceFile, config: Config, project: Optional[Any] = None) -> ModuleResult:
    """Phase 1 for one file: facts, module-rule diagnostics and noqa comments."""
    if source.data is None:
        unreadable = Diagnostic(source.path, 1, 1, PARSE_ERROR, f"cannot be read: {source.read_error}")
        facts = ModuleFacts(
            path=source.path,
            module=source.path[:-3].replace("/", "."),
            sha256="",
            registers_tools=False,
            parse_error=unreadable,
        )
        return ModuleResult(facts, (unreadable,), ())
    parsed = parse_module(source.path, source.data)
    facts, ctx = build_module_context(parsed, config, project)
    return module_result(parsed, facts, ctx, config)


def module_result(parsed: ParsedModule, facts: ModuleFacts, ctx: Optional[ModuleContext], config: Config) -> ModuleResult:
    """The module rules selected by ``config`` run over a built context (``build_module_context``);
    the context's analyses are released afterwards, so use it for anything else first."""
    diagnostics: List[Diagnostic] = []
    if facts.parse_error is not None:
        diagnostics.append(facts.parse_error)
    if ctx is not None:
        try:
            for rule_class in selected_rules(config, "module"):
                for finding in rule_class().check(ctx):
                    diagnostics.append(
                        Diagnostic(
                            finding.path or parsed.path,
                            finding.location.line,
                            finding.location.col,
                            rule_class.code,
                            finding.message,
                            finding.fix_data,
                        )
                    )
        finally:
            # The analyses point back at the context: a reference cycle that would keep the whole
            # syntax tree alive until the cyclic GC finds it (and makes that GC run far more
            # often). Broken here, everything is freed as soon as this function returns.
            ctx.release()
        read_modules = ctx.evaluator.read_modules(inspected=True)  # findings depend on both
        read_modules.update(ctx.read_files)
        if ctx.contract is not None:
            # The contract HRM004/HRM105 judged by: these findings are stale when it changes,
            # or when the registry module it did not find appears.
            read_modules.update(ctx.contract.decided_by)
            if ctx.contract.source is not None:
                read_modules[ctx.contract.source] = ctx.contract.sha256
        read_modules.pop(parsed.path, None)
        if read_modules:
            facts = replace(facts, read_modules=tuple(sorted(read_modules.items())))
    noqa = tuple(find_noqa_comments(parsed.text, parsed.tree).values()) if parsed.text else ()
    return ModuleResult(facts, tuple(diagnostics), noqa)


def read_toolsets_facts(
    source: Optional[SourceFile], cache: Optional[ResultCache] = None
) -> Tuple[Optional[ToolsetsFacts], Tuple[Diagnostic, ...]]:
    """(toolsets.py's facts, its parse error as diagnostics); ``cache``: a ``ResultCache`` that
    may hold the facts of these bytes."""
    if source is None:
        return None, ()
    from hermes_lint.project.toolsets_file import read_toolsets

    if source.data is None:
        return None, (Diagnostic(source.path, 1, 1, PARSE_ERROR, f"cannot be read: {source.read_error}"),)
    if cache is not None:
        facts = cache.toolsets_facts(source.data, lambda data: read_toolsets(data, source.path))
    else:
        facts = read_toolsets(source.data, source.path)
    diagnostics: Tuple[Diagnostic, ...] = ()
    if facts.parse_error is not None:
        line, col, message = facts.parse_error
        diagnostics = (Diagnostic(source.path, line, col, PARSE_ERROR, message),)
    return facts, diagnostics


def unsuppressed_diagnostics(
    results: Sequence[ModuleResult], sources: ProjectSources, config: Config, cache: Optional[ResultCache] = None
) -> List[Diagnostic]:
    """Module findings, toolsets.py's parse error and the project rules' findings, before any
    ``# noqa`` (flake8 applies noqa itself, so its plugin stops here)."""
    toolsets_facts, toolsets_diagnostics = read_toolsets_facts(sources.toolsets, cache)
    diagnostics = list(toolsets_diagnostics)
    for result in results:
        diagnostics.extend(result.diagnostics)
    project = ProjectContext(tuple(r.facts for r in results), toolsets_facts, config, root=sources.root)
    for rule_class in selected_rules(config, "project"):
        for finding in rule_class().check(project):
            assert finding.path is not None, f"{rule_class.code}: a project finding names its file"
            diagnostics.append(
                Diagnostic(
                    finding.path,
                    finding.location.line,
                    finding.location.col,
                    rule_class.code,
                    finding.message,
                    finding.fix_data,
                )
            )
    return diagnostics


def finish(
    results: Sequence[ModuleResult],
    sources: ProjectSources,
    config: Config,
    cache: Optional[ResultCache] = None,
) -> List[Diagnostic]:
    """Phase 2: project rules, then suppression, selection and HRM900. ``cache``: a
    ``ResultCache`` that may hold toolsets.py's facts."""
    diagnostics = unsuppressed_diagnostics(results, sources, config, cache)
    noqa_by_path: Dict[str, Dict[int, NoqaComment]] = {
        r.facts.path: {c.line: c for c in r.noqa} for r in results
    }
    if sources.toolsets is not None and sources.toolsets.data is not None:
        text = sources.toolsets.data.decode("utf-8", "replace")
        noqa_by_path[sources.toolsets.path] = find_noqa_comments(text)
    return apply_suppressions(diagnostics, noqa_by_path, config)


def apply_suppressions(
    diagnostics: Iterable[Diagnostic],
    noqa_by_path: Dict[str, Dict[int, NoqaComment]],
    config: Config,
) -> List[Diagnostic]:
    used: Dict[Tuple[str, int], set] = {}
    kept: List[Diagnostic] = []
    for diagnostic in set(diagnostics):
        if not config.is_selected(diagnostic.code, diagnostic.path):
            continue
        comment = noqa_by_path.get(diagnostic.path, {}).get(diagnostic.line)
        if comment is not None and (comment.codes is None or diagnostic.code in comment.codes):
            used.setdefault((diagnostic.path, diagnostic.line), set()).add(diagnostic.code)
            continue
        kept.append(diagnostic)
    for path, comments in noqa_by_path.items():
        if not config.is_selected(UNUSED_NOQA, path):
            continue
        for comment in comments.values():
            if comment.codes is None:
                continue  # a bare noqa may be meant for another linter: never call it unused
            suppressed = used.get((path, comment.line), set())
            for code in comment.codes:
                if code.startswith("HRM") and code not in suppressed and config.is_selected(code, path):
                    kept.append(
                        Diagnostic(
                            path, comment.line, comment.col, UNUSED_NOQA, f"unused `# noqa` for {code}: it suppresses nothing",
                            (("code", code),),
                        )
                    )
    return sorted(kept)


def check_sources(sources: ProjectSources, config: Config) -> List[Diagnostic]:
    """Both phases, in this process. The sources' own files are read before the disk when
    their values are imported by another module."""
    from hermes_lint.evaluate.project import ProjectModules

    given = {source.path: source.data for source in sources.tool_files if source.data is not None}
    project = ProjectModules(config.project_root, given)
    results = [check_module(source, config, project) for source in sources.tool_files]
    return finish(results, sources, config)
