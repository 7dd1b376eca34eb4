"""One module's context, built once: its evaluator, semantic model, registry contract and
extracted facts, for the module rules, the manifest and the cache."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from hermes_lint.config import Config
from hermes_lint.extract.module_facts import extract_facts
from hermes_lint.model import ModuleFacts
from hermes_lint.model.context import ModuleContext, ModuleIndex
from hermes_lint.model.parsing import ParsedModule, compile_checked
from hermes_lint.model.semantic import SemanticModel


def build_module_context(
    parsed: ParsedModule, config: Config, project: Optional[Any] = None, environment: bool = True
) -> Tuple[ModuleFacts, Optional[ModuleContext]]:
    """``project``: the ``ProjectModules`` imported names are read from (default: the files
    under ``config.project_root``). ``environment=False``: without the environment reads
    (``ModuleFacts.env_reads`` empty), for a check whose selected rules do not read them."""
    from hermes_lint.evaluate import ModuleEvaluator
    from hermes_lint.evaluate.project import project_modules
    from hermes_lint.project.registry_contract import module_contract
    from hermes_lint.project.registration_sites import entries_of, sites_for_config

    if parsed.tree is None:
        return extract_facts(parsed, None), None
    if project is None and config.project_root:
        project = project_modules(config.project_root, config.src)
    sites = sites_for_config(config, project)
    entries = entries_of(sites, parsed.path)
    if entries:  # a plugin's register module: imported by Hermes, so compiled as a tool module is
        parsed = compile_checked(parsed)
    tree = parsed.tree
    if tree is None:
        return extract_facts(parsed, None), None
    index = ModuleIndex(tree, parsed.text)
    from hermes_lint.project.plugin_names import dotted_name

    # The name the module is imported by (``pkg`` for ``pkg/__init__.py``, ``src/`` dropped):
    # what its relative imports are resolved against.
    name, is_package = dotted_name(parsed.path), parsed.path.endswith("__init__.py")
    evaluator = ModuleEvaluator(
        tree, parsed.lines, module=name, is_package=is_package, project=project
    )
    semantic = SemanticModel(tree, parsed.text, index, evaluator)
    unfollowed = sites.unfollowed_in(parsed.path) if sites is not None else ()
    contract = module_contract(tree, index, parsed.path, config, project, entries)
    facts = extract_facts(parsed, semantic, config.env_readers, contract, entries, unfollowed, environment)
    ctx = ModuleContext(
        path=parsed.path,
        text=parsed.text,
        lines=parsed.lines,
        tree=tree,
        semantic=semantic,
        facts=facts,
        config=config,
        contract=contract,
    )
    return facts, ctx
