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
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Type

from hermes_lint.check.collection import one_file
from hermes_lint.config import Config
from hermes_lint.model.context import ModuleContext, ProjectContext
from hermes_lint.extract.module_context import build_module_context
from hermes_lint.model.parsing import ParsedModule, parse_module
from hermes_lint.model import Diagnostic, ModuleFacts
from hermes_lint.noqa import HERMES_LINT, NoqaComment, find_noqa_comments
from hermes_lint.check.tool_names import attributed, merged_across_modules, named
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


@lru_cache(maxsize=16)
def _reads_environment(config: Config) -> bool:
    """Whether a selected module rule reads the environment reads (``Rule.reads_environment``):
    otherwise they are not extracted (the cache keys its entries on the settings, selection
    included, so such facts are never reused by a run that selects more)."""
    return any(rule.reads_environment for rule in _selected_rules(config, "module"))


def extract_module_facts(source: SourceFile, config: Config) -> ModuleFacts:
    """Only the extracted facts of one file (no rules run): for scaffolding and the manifest."""
    if source.data is None:
        return check_module(source, config).facts
    facts, _ = build_module_context(parse_module(source.path, source.data), config)
    return facts


def check_module(source: SourceFile, config: Config, project: Optional[Any] = None) -> ModuleResult:
    """Phase 1 for one file: facts, module-rule diagnostics and noqa comments."""
    with one_file():  # collected when its syntax tree and analyses are gone: see ``collection``
        return _checked_module(source, config, project)


def _checked_module(source: SourceFile, config: Config, project: Optional[Any]) -> ModuleResult:
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
    # A module that plugin discovery followed, or that another module imports, may have been
    # parsed already: the same bytes are parsed once.
    parsed = _parsed_before(source, config)
    if parsed is None:
        parsed = parse_module(source.path, source.data)
    facts, ctx = build_module_context(parsed, config, project, environment=_reads_environment(config))
    return module_result(parsed, facts, ctx, config)


def _parsed_before(source: SourceFile, config: Config) -> Optional[ParsedModule]:
    """The parse of these bytes this process made already, reading the project
    (``evaluate.project.parsed_again``), if it did."""
    import sys

    if not config.project_root or "hermes_lint.evaluate.project" not in sys.modules:
        return None
    from hermes_lint.evaluate.project import parsed_again

    assert source.data is not None
    return parsed_again(config.project_root, source.path, source.data)


def module_result(parsed: ParsedModule, facts: ModuleFacts, ctx: Optional[ModuleContext], config: Config) -> ModuleResult:
    """The module rules selected by ``config`` run over a built context (``build_module_context``);
    the context's analyses are released afterwards, so use it for anything else first."""
    diagnostics: List[Diagnostic] = []
    if facts.parse_error is not None:
        diagnostics.append(facts.parse_error)
    if ctx is not None:
        try:
            for rule_class in selected_rules(config, "module"):
                ctx.located_keys = []
                found = attributed(rule_class().check(ctx), ctx.located_keys)
                for finding, message in named(found, parsed.path):
                    diagnostics.append(
                        Diagnostic(
                            finding.path or finding.location.path or parsed.path,
                            finding.location.line,
                            finding.location.col,
                            rule_class.code,
                            message,
                            finding.fix_data,
                        )
                    )
                ctx.located_keys = None
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
    foreign: Set[Diagnostic] = set()  # module findings located in another file than their module's
    for result in results:
        diagnostics.extend(result.diagnostics)
        foreign.update(d for d in result.diagnostics if d.path != result.facts.path)
    project = ProjectContext(tuple(r.facts for r in results), toolsets_facts, config, root=sources.root)
    for rule_class in selected_rules(config, "project"):
        for finding in rule_class().check(project):
            assert finding.path is not None, f"{rule_class.code}: a project finding names its file"
            diagnostics.append(
                Diagnostic(
                    finding.location.path or finding.path,
                    finding.location.line,
                    finding.location.col,
                    rule_class.code,
                    finding.message,
                    finding.fix_data,
                )
            )
    return merged_across_modules(diagnostics, foreign) if foreign else diagnostics


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
    given = {source.path: source.data for source in sources.tool_files}
    for path in sorted({path for r in results for path, sha256 in r.facts.read_modules if sha256}):
        if path not in noqa_by_path:
            # A schema key of another module is reported there: a `# noqa` there silences it.
            noqa_by_path[path] = _noqa_of_file(config, path, given.get(path))
    return apply_suppressions(diagnostics, noqa_by_path, config)


def _noqa_of_file(config: Config, path: str, data: Optional[bytes]) -> Dict[int, NoqaComment]:
    """The ``# noqa`` comments of a project file that tool modules read values from (``data``,
    else the file on disk: the sha256 recorded in ``read_modules`` pins it for the cache)."""
    from hermes_lint.noqa import may_have_noqa
    from hermes_lint.regular_files import read_regular_file

    if data is None and config.project_root:
        try:
            data = read_regular_file(Path(config.project_root) / path)
        except OSError:
            return {}
    text = data.decode("utf-8", "replace") if data is not None else ""
    return find_noqa_comments(text) if may_have_noqa(text) else {}


def apply_suppressions(
    diagnostics: Iterable[Diagnostic],
    noqa_by_path: Dict[str, Dict[int, NoqaComment]],
    config: Config,
) -> List[Diagnostic]:
    used: Dict[Tuple[str, int], set] = {}
    kept: List[Diagnostic] = []
    file_level = {
        path: [c for c in comments.values() if c.file_level] for path, comments in noqa_by_path.items()
    }
    for diagnostic in set(diagnostics):
        if not config.is_selected(diagnostic.code, diagnostic.path):
            continue
        comment = noqa_by_path.get(diagnostic.path, {}).get(diagnostic.line)
        if comment is None or comment.file_level or not comment.suppresses(diagnostic.code):
            comment = next((c for c in file_level.get(diagnostic.path, ()) if c.suppresses(diagnostic.code)), None)
        if comment is not None:
            used.setdefault((diagnostic.path, comment.line), set()).add(diagnostic.code)
            continue
        kept.append(diagnostic)
    for path, comments in noqa_by_path.items():
        if not config.is_selected(UNUSED_NOQA, path):
            continue
        for comment in comments.values():
            suppressed = used.get((path, comment.line), set())
            if comment.codes is None:
                # A bare `# noqa` or `# flake8: noqa` may be meant for another linter: never
                # called unused. `# hermes-lint: noqa` is addressed to this one.
                if comment.file_level == HERMES_LINT and not suppressed:
                    kept.append(Diagnostic(path, comment.line, comment.col, UNUSED_NOQA,
                                           f"unused {comment.describe()}: it suppresses nothing in this file",
                                           (("form", HERMES_LINT),)))
                continue
            for code in comment.codes:
                if (
                    code.startswith("HRM")
                    and not any(found.startswith(code) for found in suppressed)
                    and config.is_selected(code, path)
                ):
                    kept.append(
                        Diagnostic(
                            path, comment.line, comment.col, UNUSED_NOQA,
                            f"unused {comment.describe()} for {code}: it suppresses nothing",
                            (("code", code), ("form", comment.file_level or "line")),
                        )
                    )
    return sorted(kept)


def check_sources(sources: ProjectSources, config: Config) -> List[Diagnostic]:
    """Both phases, in this process. The sources' own files are read before the disk when
    their values are imported by another module."""
    from hermes_lint.evaluate.project import ProjectModules

    given = {source.path: source.data for source in sources.tool_files if source.data is not None}
    project = ProjectModules(config.project_root, given, config.src)
    results = [check_module(source, config, project) for source in sources.tool_files]
    return finish(results, sources, config)
