"""The frozen tool manifest: generated from the extracted facts, never by importing.

``generate(sources, config)`` reads each tool module once (parse → facts → check forms) and
returns either the manifest's exact bytes or the problems that would make it wrong. The bytes
are deterministic — sorted keys, two-space indentation, UTF-8, one trailing newline, paths
relative to the project root, no timestamps — so two runs, on two machines, write the same file
and ``--check`` is a byte comparison.

What a module becomes:
- a *frozen* module: each registration's name, toolset, schema, keyword values, handler
  reference and check form are known; the runtime registers its tools without importing it;
- an *import-only* module (``import_only``, with the reasons): something about a registration is
  not statically known or not representable in JSON (HRM003's cases, an ``Unresolved`` keyword
  value, a register() call the runtime would reject with ``TypeError``, a handler or check that
  is not a plain name of the module...); the runtime imports it, exactly as import discovery
  would, so the registry ends up the same either way;
- every candidate file, tool module or not, is listed in ``sources`` with its sha256, so the
  runtime can tell a changed, added or removed file.

A schema with unknown parts (holes: a description naming the home directory, a number read
from the environment) is frozen with its known structure. Each hole is listed under the tool's
``holes`` with its JSON path: a hole with a ``template`` (environment variables with defaults,
``int``/``str``, formatting) is computed by the runtime at load, without importing; any other
hole (or a schema whose structure is unknown) marks the tool ``import_for_definitions``: its
module is imported when that tool's definition is first requested, never at start-up.

The first key is ``digest``: the sha256 of the file without that line (``sed 2d manifest.json |
sha256sum``). A runtime that finds it matching knows the file is exactly what this generator
wrote, which the manifest's schema and cross-references always accept, and skips validating
it; a manifest edited by hand no longer matches and is validated in full. That is format
version 4 (version 2 added holes, 3 the digest, 4 made every check evaluated without importing a
template: ``none``, ``template`` or ``import``); runtimes that read only versions 1 to 3 refuse it
as newer, and ``discover_builtin_tools`` there falls back to import discovery with a warning.

Errors that would make the manifest wrong refuse generation, as hassfest's generate mode refuses
while validation errors remain — and as there, the generator runs the validator: ``check``'s own
rules under ``BLOCKING_CODES`` (an invalid schema, a tool name registered twice, toolsets that
cannot be resolved), so both say the same thing. A run-time value never does.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hermes_lint import __version__
from hermes_lint.config import Config
from hermes_lint.manifest.freeze import freeze_module
from hermes_lint.manifest.inputs import STALE  # HRM501, asked before anything is generated
from hermes_lint.model.parsing import parse_module
from hermes_lint.model import Diagnostic
from hermes_lint.project.toolset_resolution import ToolsetCycle, registered_by_toolset, resolve_toolset, toolsets_table

FORMAT = "hermes-tool-manifest"
FORMAT_VERSION = 4  # 2 added holes, 3 the digest, 4 checks as templates only
# The first key of every manifest: the sha256 of the rest of the file (see ``render``).
DIGEST_KEY = "digest"
# The runtime imports tool modules as ``tools.<stem>`` (tools.registry.discover_builtin_tools).
PACKAGE = "tools"
# The findings of `check` that would make a manifest wrong (the generator runs the validator,
# so both say the same thing): an invalid schema, a tool name twice, unresolvable toolsets.
BLOCKING_CODES = ("HRM302", "HRM401", "HRM402", "HRM405")
STALE_MESSAGE = "manifest is out of date, run `hermes-lint manifest`"

@dataclass
class Generated:
    """The outcome of a generation: the manifest (``data`` and its ``text`` bytes) or, when
    ``problems`` is not empty, the reasons it was not produced (``text`` is then None)."""

    data: Optional[dict]
    text: Optional[bytes]
    problems: List[Diagnostic] = field(default_factory=list)
    # Files left out, with why (a syntax error: runtime discovery cannot read them either).
    skipped: List[Diagnostic] = field(default_factory=list)
    # Other project files the result depends on: sha256 of each read, "" of each looked for.
    inputs: Dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def produced(self) -> Tuple[dict, bytes]:
        """``data`` and ``text`` of a manifest that was generated (``ok``)."""
        if self.data is None or self.text is None:
            raise ValueError("no manifest was generated: " + "; ".join(d.message for d in self.problems))
        return self.data, self.text


def render(data: dict) -> bytes:
    """The manifest's canonical bytes: ``data`` without its digest, rendered, and the digest of
    those bytes inserted as the first key (keys are sorted and ``digest`` sorts first, so the
    result is also ``data`` with that digest rendered the same way)."""
    return _digest_and_bytes(data)[1]


def _digest_and_bytes(data: dict) -> Tuple[str, bytes]:
    body = _render_json({key: value for key, value in data.items() if key != DIGEST_KEY})
    digest = hashlib.sha256(body).hexdigest()
    return digest, b'{\n  "%s": "%s",\n' % (DIGEST_KEY.encode(), digest.encode()) + body[2:]


def _render_json(data: dict) -> bytes:
    text = json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def generate_for_root(root: Path, config: Config) -> Generated:
    """Generate from the files under ``root`` that ``manifest_inputs`` names."""
    from hermes_lint.manifest.inputs import manifest_inputs, manifest_sites

    return generate(manifest_inputs(root, config), config, manifest_sites(root, config))


def generate(sources, config: Config, plugin_project: Optional[Any] = None) -> Generated:
    """Generate from ``ProjectSources`` (files already read; nothing is imported or executed);
    ``plugin_project``: the ``ProjectSites`` of a plugin project, whose plugins' registrations
    are frozen instead of tool modules' (``plugin_manifest``)."""
    from dataclasses import replace

    from hermes_lint.check.engine import check_module, finish, module_result
    from hermes_lint.extract.module_context import build_module_context
    from hermes_lint.evaluate.project import ProjectModules

    # The generator runs the validator: check's own rules under BLOCKING_CODES, on the contexts
    # built here for freezing (one parse per file), so both say the same thing.
    blocking = replace(config, select=BLOCKING_CODES, extend_select=(), ignore=(), per_file_ignores=())
    project = ProjectModules(config.project_root, {s.path: s.data for s in sources.tool_files if s.data is not None}, config.src)
    results = []
    problems: List[Diagnostic] = []
    skipped: List[Diagnostic] = []
    source_hashes: Dict[str, str] = {}
    modules: Dict[str, dict] = {}
    import_only: Dict[str, dict] = {}
    tools: Dict[str, dict] = {}
    inputs: Dict[str, str] = {}
    frozen_modules: List[Tuple[str, str, list, list, Dict[str, str]]] = []  # in file order

    for source in sources.tool_files:
        if source.data is None:
            results.append(check_module(source, blocking))
            problems.append(
                Diagnostic(source.path, 1, 1, "HRM001", f"cannot be read: {source.read_error}; its hash cannot be recorded")
            )
            continue
        parsed = parse_module(source.path, source.data)
        source_hashes[source.path] = parsed.sha256
        facts, ctx = build_module_context(parsed, config, project)
        try:  # freeze first: module_result releases the context's analyses
            if facts.parse_error is not None:
                skipped.append(facts.parse_error)
            plugin_module = bool(facts.unread_plugin_calls) or any(r.plugin for r in facts.registrations)
            if ctx is None or not (facts.registers_tools or (plugin_project is not None and plugin_module)):
                continue  # runtime discovery never imports it either
            stem = PurePosixPath(source.path).stem
            module = f"{PACKAGE}.{stem}"
            if plugin_project is not None and plugin_module:
                from hermes_lint.manifest.plugin_manifest import module_name as plugin_module_name

                module = plugin_module_name(source.path, plugin_project)
            elif not stem.isidentifier():
                problems.append(
                    Diagnostic(source.path, 1, 1, "HRM003",
                               f"file name `{stem}.py` is not a Python identifier, so the manifest cannot "
                               f"name its module `{module}`; rename the file")
                )
                continue
            frozen, reasons, module_problems = freeze_module(ctx, facts, module)
            if plugin_project is not None:
                # A call that cannot be read registers tools the manifest would not list: the
                # module is not frozen, so that `diff` calls its tools unknown, never removed.
                reasons.extend(f"line {location.line}: {reason}" for location, reason in facts.unread_plugin_calls)
            # Files of the project values were read from, schemas' and checks' alike.
            reads = ctx.evaluator.read_modules()
            reads.pop(source.path, None)
            source_hashes.update(reads)
            inputs.update(ctx.evaluator.read_modules(inspected=True))
            if reasons:
                # Imported at run time, like import discovery: its schemas are not frozen, so
                # what would be wrong with freezing them does not block the manifest.
                import_only[module] = {"path": source.path, "reasons": reasons}
                continue
            frozen_modules.append((module, source.path, frozen, module_problems, reads))
        finally:
            results.append(module_result(parsed, facts, ctx, blocking))
    shared = {} if plugin_project is not None else _registered_more_than_once(frozen_modules)
    for module, path, frozen, module_problems, reads in frozen_modules:
        names = [tool["name"] for tool, _ in frozen]
        if any(name in shared for name in names):
            import_only[module] = {"path": path, "reasons": [_shared_reason(name, path, shared[name])
                                                             for name in dict.fromkeys(names) if name in shared]}
            continue
        problems.extend(module_problems)
        modules[module] = {"path": path, "tools": names}
        if reads:  # the runtime imports the module instead when one of them changed
            modules[module]["reads"] = sorted(reads)
        for tool, _registration in frozen:
            tools.setdefault(tool["name"], tool)
    problems.extend(d for d in finish(results, sources, blocking) if d.code in BLOCKING_CODES)

    toolsets, toolsets_problems = _resolved_toolsets(sources, source_hashes, tools)
    problems.extend(toolsets_problems)
    if problems:
        return Generated(None, None, sorted(set(problems)), skipped)
    data = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "generator": f"hermes-lint {__version__}",
        "package": PACKAGE,
        "tools_dir": PurePosixPath(config.tools_dir).as_posix(),
        "sources": source_hashes,
        "modules": modules,
        "import_only": import_only,
        "tools": tools,
        "toolsets": toolsets,
    }
    if plugin_project is not None:
        from hermes_lint.manifest.plugin_manifest import plugin_fields

        data.update(plugin_fields(plugin_project, tools))
    digest, text = _digest_and_bytes(data)
    data = {DIGEST_KEY: digest, **data}
    listed = {source.path for source in sources.tool_files}
    return Generated(data, text, [], skipped, {p: h for p, h in inputs.items() if p not in listed})


def _registered_more_than_once(frozen_modules) -> Dict[str, List[str]]:
    """Tool name -> the files registering it, for names registered more than once (by two
    modules, or twice by one). The manifest holds one record per name, but which registration
    the registry keeps (the later one replaces an earlier one of its toolset, or of another with
    ``override=True``) is decided as the modules run, in file order: such modules are imported,
    as without a manifest, and the runtime's table is what import discovery makes of them."""
    files: Dict[str, List[str]] = {}
    for _module, path, frozen, _problems, _reads in frozen_modules:
        for tool, _registration in frozen:
            files.setdefault(tool["name"], []).append(path)
    return {name: paths for name, paths in files.items() if len(paths) > 1}


def _shared_reason(name: str, path: str, paths: List[str]) -> str:
    others = sorted(set(paths) - {path})
    where = f"by {' and '.join(others)} too" if others else "twice"
    return (f"tool `{name}` is registered {where}: which registration the registry keeps is decided as the "
            "modules run, so they are imported")


# --------------------------------------------------------------------------- toolsets


def _resolved_toolsets(sources, source_hashes: Dict[str, str], tools: Dict[str, dict]):
    """(``{toolset: [tool names]}`` resolved with includes — and with the ``tools`` registered
    under each when toolsets.py's resolution merges the registry —, or None when toolsets.py
    cannot be read statically; problems). Records toolsets.py's hash in ``source_hashes``."""
    from hermes_lint.check.engine import read_toolsets_facts

    if sources.toolsets is None:
        return {}, []
    if sources.toolsets.data is None:
        return None, [Diagnostic(sources.toolsets.path, 1, 1, "HRM001",
                                 f"cannot be read: {sources.toolsets.read_error}; its hash cannot be recorded")]
    source_hashes[sources.toolsets.path] = hashlib.sha256(sources.toolsets.data).hexdigest()
    facts, diagnostics = read_toolsets_facts(sources.toolsets)
    if diagnostics or facts is None:  # facts is None only for a file that cannot be read
        return None, list(diagnostics)
    table = _toolsets_table(facts)
    if table is None:
        return None, []
    resolved: Dict[str, List[str]] = {}
    registered = None
    if facts.merges_registry:
        registered = registered_by_toolset((tool["name"], tool["toolset"]) for tool in tools.values())
    for name in table:
        try:
            resolved[name] = resolve_toolset(name, table, registered)
        except ToolsetCycle:
            pass  # HRM405 reports it (BLOCKING_CODES), so no manifest is written
    return resolved, []


def _toolsets_table(facts) -> Optional[Dict[str, dict]]:
    return toolsets_table(facts)


# --------------------------------------------------------------------------- freshness


def stale_diagnostic(display_path: str) -> Diagnostic:
    return Diagnostic(display_path, 1, 1, STALE, STALE_MESSAGE)


def read_current(path: Path) -> Optional[bytes]:
    """The manifest on disk, or None when there is none (``OSError`` when it is not a regular
    file or too large to be one)."""
    from hermes_lint.regular_files import read_regular_file

    try:
        return read_regular_file(path)
    except FileNotFoundError:
        return None


def is_fresh(current: Optional[bytes], generated: Generated) -> bool:
    return current is not None and generated.text is not None and current == generated.text


def diff(current: Optional[bytes], generated: bytes, display_path: str) -> str:
    """A unified diff from the file on disk to what would be generated ('' when equal)."""
    old = current.decode("utf-8", "replace").splitlines(keepends=True) if current is not None else []
    new = generated.decode("utf-8").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old, new,
        fromfile=f"{display_path} (on disk)" if current is not None else "/dev/null",
        tofile=f"{display_path} (generated)",
    )
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return text


def check_manifest(root: Path, config: Config, target: Path) -> List[Diagnostic]:
    """What ``hermes-lint manifest --check`` reports: the errors that block generation, else
    HRM501 at the manifest when its bytes differ from what would be generated (or it is
    missing), else nothing."""
    generated = generate_for_root(root, config)
    if not generated.ok:
        return list(generated.problems)
    if is_fresh(read_current(target), generated):
        return []
    try:
        shown = target.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = str(target)
    return [stale_diagnostic(shown)]


def summary(data: dict) -> str:
    """``74 tools: 70 frozen, 4 resolved at import; 1 import-only module: tools.x``.

    "Resolved at import": the tool's definition (its schema) needs its module imported; a
    ``check_fn`` that must be imported to run is counted apart, it is about availability."""
    tools = data["tools"]
    at_import = sum(1 for tool in tools.values() if _definition_import_reasons(tool))
    text = f"{_count(len(tools), 'tool')}: {len(tools) - at_import} frozen, {at_import} resolved at import"
    checks = sum(1 for tool in tools.values() if tool["check"]["kind"] == "import")
    if checks:
        text += f"; {_count(checks, 'check')} imported to run"
    imported = len(data["import_only"])
    if imported:
        text += f"; {_count(imported, 'import-only module')}: {', '.join(sorted(data['import_only']))}"
    return text


def import_lines(data: dict) -> List[str]:
    """One line per tool whose definition needs its module imported, with the reason."""
    lines = []
    for name, tool in sorted(data["tools"].items()):
        reasons = _definition_import_reasons(tool)
        if reasons:
            lines.append(f"{tool['module']}: tool `{name}` is resolved at import: {'; '.join(reasons)}")
    return lines


def _definition_import_reasons(tool: dict) -> List[str]:
    reasons = [hole["reason"] for hole in tool.get("holes", ()) if "reason" in hole]
    if tool["dynamic_schema_overrides"]:
        reasons.append("dynamic_schema_overrides= is computed at run time")
    return reasons


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


__all__: Sequence[str] = (
    "FORMAT",
    "FORMAT_VERSION",
    "check_manifest",
    "Generated",
    "STALE",
    "STALE_MESSAGE",
    "diff",
    "generate",
    "generate_for_root",
    "is_fresh",
    "read_current",
    "render",
    "resolve_toolset",
    "stale_diagnostic",
    "summary",
)
