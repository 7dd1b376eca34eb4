"""Which files' findings a run over some files reports (``check PATHS``, ``check --changed``).

A finding is about more than the file it is located in: a tool module's schema may be a constant
of ``tools/weather_schema.py``, so a commit that changes only that file changes the tool's
findings; and a finding about a key of that schema is located in that file, while the change
that caused it may be in the tool module. So PATHS stand for:

- the given files (and directories) themselves;
- every module whose facts were read from one of them (``ModuleFacts.read_modules``: values
  evaluated across modules, the registry contract, and the files whose absence decided an
  import, so that deleting a file brings in the modules that imported it);
- the files those modules read, where their findings may be located.

Project rules depend on the whole project: ``check --changed`` reports their findings wherever
they are (``reported_everywhere``). HRM501 is not among them: the manifest hook
(``manifest --check``) runs on every commit for it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from hermes_lint.config import Config

if TYPE_CHECKING:
    from hermes_lint.check.engine import ModuleResult
    from hermes_lint.evaluate.project import ProjectModules


def reported_everywhere(code: str) -> bool:
    """Whether ``code`` is a rule that looks at the whole project: a change anywhere (a tool
    deleted, a name removed from toolsets.py) can make it report in a file the change did not
    touch. Only that rule is imported (a run with no finding imports none)."""
    from hermes_lint.rules import rule_by_code

    try:
        return rule_by_code(code).scope == "project"
    except KeyError:
        return False


def given_relative(root: Path, paths: Sequence[str]) -> Tuple[str, ...]:
    """The PATHS inside ``root`` as '/'-separated relative paths, including files that no longer
    exist (a commit that deletes a file passes its name: its importers are affected)."""
    found: List[str] = []
    for given in paths:
        try:
            found.append(Path(given).resolve().relative_to(root).as_posix())
        except ValueError:
            continue  # outside the project
    return tuple(found)


def affected_paths(wanted: Tuple[str, ...], reads: Mapping[str, Sequence[str]]) -> Tuple[str, ...]:
    """``wanted`` and the files a change of them affects (see the module docstring), sorted;
    ``reads``: each tool module's path -> the project files its facts were read from
    (``module_reads``)."""
    found = set(wanted)
    for module, read in reads.items():
        if covers(module, wanted) or any(covers(path, wanted) for path in read):
            found.add(module)
            found.update(read)
    return tuple(sorted(found))


def module_reads(results: Iterable["ModuleResult"]) -> Dict[str, Tuple[str, ...]]:
    """Each module's path -> the project files its facts and findings were read from."""
    return {result.facts.path: tuple(path for path, _ in result.facts.read_modules) for result in results}


def covers(path: str, wanted: Tuple[str, ...]) -> bool:
    """``path`` is one of ``wanted`` or inside one of its directories ("." is the whole root)."""
    return any(path == given or given == "." or path.startswith(given.rstrip("/") + "/") for given in wanted)


def project_reads(root: Path, config: Config, *, jobs: Optional[int] = 1, use_cache: bool = False) -> Dict[str, Tuple[str, ...]]:
    """``module_reads`` of the project at ``root`` (from the cache where unchanged)."""
    from hermes_lint.check.runner import module_results

    results, _ = module_results(root, config, jobs=jobs, use_cache=use_cache, project_rules_only=True)
    return module_reads(results)


def expand(
    root: Path, wanted: Tuple[str, ...], paths: Sequence[str], changed: bool, reads: Mapping[str, Sequence[str]]
) -> Tuple[str, ...]:
    """The CLI's ``wanted`` (the PATHS that exist, relative) widened by ``affected_paths``; with
    ``changed``, the PATHS that no longer exist count too (a deleted file's importers)."""
    if changed:
        wanted = wanted + given_relative(root, [path for path in paths if not Path(path).exists()])
    return affected_paths(wanted, reads)


def with_buffer(
    results: Sequence["ModuleResult"], root: Path, config: Config, relative: str, data: bytes,
    project: Optional["ProjectModules"] = None,
) -> List["ModuleResult"]:
    """``results`` with the modules that read values from ``relative`` checked again, reading
    ``data`` (an editor's buffer) as its text: their findings about its keys follow the buffer.
    ``project``: the project's modules with that buffer in place, when the caller has them."""
    readers = {r.facts.path for r in results if any(path == relative for path, _ in r.facts.read_modules)}
    if not readers:
        return list(results)
    from hermes_lint.check.engine import check_module, read_source
    from hermes_lint.evaluate.project import ProjectModules

    if project is None:
        project = ProjectModules(str(root), {relative: data}, config.src)
    return [
        check_module(read_source(root, r.facts.path), config, project) if r.facts.path in readers else r
        for r in results
    ]


# A dict key that tool schemas have: a file without one holds no key a finding could be about.
_SCHEMA_KEY = re.compile(r"""["'](?:type|properties|description|items|enum|required|name|parameters)["']\s*:""")


def may_hold_schema_keys(text: str) -> bool:
    """Whether a file that registers nothing may hold schema keys of another module's tools
    (cheap: editors ask about every Python file)."""
    return _SCHEMA_KEY.search(text) is not None
