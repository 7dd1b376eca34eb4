"""The loader's checks that a start from a fresh manifest exactly as generated does not need.

A manifest whose digest matches its bytes is what ``hermes-lint manifest`` rendered, which always
passes the validation here, and ``tools.manifest_loader`` uses it as it is. Any other (edited by
hand, damaged, of format version 1 to 3) comes here before anything is registered: its JSON
decoded with the exact error, the shipped JSON Schema applied (``tools.manifest_schema``), the
fields a format version does not have refused, the check forms of versions 1 to 3 translated to
the templates version 4 writes (``translate_checks``), and the cross-references a schema cannot
state checked. So do manifests with import-only modules (each must be a tool module) and modules whose
values were read from other files (stale when one of those changed). Kept out of the loader,
which every start compiles (often without a ``.pyc``).
"""

from __future__ import annotations

import json
import os

from hermes_lint.discovery import read_regular_file
from tools.manifest_plan import CHECK_KINDS, ManifestError, _finite_float, _NonFinite, _refuse_constant

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    from tools.manifest_plan import JSONObject, ManifestPlan, ToolFile, _Digest


def decode_json(where: str, text: str) -> object:
    """``text`` decoded as ``json.loads`` does, non-finite numbers refused; ``ManifestError``
    saying how it is broken."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except _NonFinite as exc:
        raise ManifestError(f"{where} is corrupt: it holds the non-finite number {exc}") from None
    except RecursionError:
        raise ManifestError(f"{where} is corrupt: nested too deeply") from None
    except ValueError as exc:
        # A manifest is one JSON object: text that stops before its closing brace was cut.
        end = text.rstrip()
        truncated = getattr(exc, "msg", "") != "Extra data" and (  # trailing garbage: corrupt
            getattr(exc, "pos", 0) >= len(end) or not end.endswith("}")
        )
        state = "is truncated" if truncated else "is corrupt"
        detail = getattr(exc, "msg", str(exc))
        raise ManifestError(
            f"{where} {state}: not valid JSON ({detail} at line {getattr(exc, 'lineno', 1)} "
            f"column {getattr(exc, 'colno', 1)})"
        ) from None


def check_format(plan: ManifestPlan, data: JSONObject, version: object) -> None:
    """The shipped JSON Schema, and the fields a format version added absent from older ones."""
    from tools.manifest_schema import manifest_problem

    problem = manifest_problem(data)
    if problem is not None:
        plan._corrupt(problem)
    if version == 1 and any("holes" in tool for tool in data["tools"].values()):
        plan._corrupt("format version 1 has no holes")
    if version not in (3, 4) and "digest" in data:
        plan._corrupt(f"format version {version} has no digest")
    old = version != 4  # the schema allows versions 1 to 4 only
    kinds = (*_OLD_CHECKS, "template", "import") if old else CHECK_KINDS
    for name, tool in data["tools"].items():
        kind = tool["check"]["kind"]
        if kind not in kinds:
            plan._corrupt(f"tools[{name!r}].check has the kind {kind!r}, which format version "
                          f"{version} does not have")
    if old:
        translate_checks(data["tools"])


# The declarative checks of format versions 1 to 3 that version 4 states as templates.
_OLD_CHECKS = ("always", "env", "module")


def translate_checks(tools: dict[str, JSONObject]) -> None:
    """Each check of the forms format versions 1 to 3 had besides ``template`` and ``import``,
    replaced by what the generator now writes for it, so the runtime evaluates one form:
    ``always`` is no check_fn (``none``: version 3 never called a check of that form), ``env``
    the truth of each variable (``all``: set and not empty) or of its being set (``present``),
    ``module`` whether ``find_spec`` finds the top-level name."""
    for tool in tools.values():
        check = tool["check"]
        kind = check["kind"]
        if kind == "always":
            tool["check"] = {"kind": "none"}
        elif kind in ("env", "module"):
            if kind == "module":
                tests = [_is_set({"find_spec": check["name"]})]
            else:
                tests = [{"env": name} for name in check["all"]]
                tests += [_is_set({"env": name}) for name in check.get("present", ())]
            template = tests[0] if len(tests) == 1 else {"and": tests} if tests else {"const": True}
            tool["check"] = {"kind": "template", "template": template}


def _is_set(template: JSONObject) -> JSONObject:
    return {"not": {"is_none": template}}


def check_references(plan: ManifestPlan) -> None:
    """What the schema cannot say: names and paths that must agree with each other."""
    from hermes_lint.discovery import SKIPPED_FILE_NAMES

    for module, record in plan.modules.items():
        unrecorded = [read for read in record.get("reads", ()) if read not in plan.sources]
        if unrecorded:
            plan._corrupt(f"module {module!r} reads {unrecorded[0]!r}, which has no source hash")
    for records in (plan.modules, plan.import_only):
        for module, record in records.items():
            stem = module[len(plan.package) + 1:]
            if f"{stem}.py" in SKIPPED_FILE_NAMES:
                plan._refuse(f"it names module {module!r}, which is never a tool module")
            expected = f"{plan.tools_dir}/{stem}.py"
            if record["path"] != expected:
                plan._refuse(f"module {module!r} is recorded at {record['path']!r}, not {expected!r}")
            if expected not in plan.sources:
                plan._corrupt(f"module {module!r} has no source hash")
    both = set(plan.modules) & set(plan.import_only)
    if both:
        plan._corrupt(f"module {sorted(both)[0]!r} is both frozen and import-only")
    for name, tool in plan.tools.items():
        _check_tool(plan, name, tool)
    plan.check_own_modules()
    listed = {n for record in plan.modules.values() for n in record["tools"]}
    unlisted = sorted(set(plan.tools) - listed)
    if unlisted:
        plan._corrupt(f"tool {unlisted[0]!r} is not listed by its module")


def _check_tool(plan: ManifestPlan, name: str, tool: JSONObject) -> None:
    if tool["name"] != name:
        plan._corrupt(f"tools[{name!r}] is not a tool of that name")
    if tool["module"] not in plan.modules:
        plan._corrupt(f"tools[{name!r}].module {tool['module']!r} is not a frozen module")
    check = tool["check"]
    if check["kind"] == "template":
        from tools.manifest_template_checks import check_template

        problem = check_template(check["template"])
        if problem is not None:
            plan._corrupt(f"tools[{name!r}].check {problem}")
    handler = tool["handler"]
    # A plain name of the tool's own module only: a dotted path could reach another
    # module through the tool module's imports (`os.system`).
    if isinstance(handler, dict) and handler["module"] != tool["module"]:
        plan._refuse(f"tools[{name!r}].handler is not a function of module {tool['module']!r}")
    check_holes(plan, name, tool)


def check_holes(plan: ManifestPlan, name: str, tool: JSONObject) -> None:
    """What a tool's holes must be before a template is evaluated or put into the schema; also
    run on a manifest exactly as generated, whose schema validation is skipped."""
    holes = tool.get("holes", ())
    if any("reason" in hole for hole in holes) and not tool["import_for_definitions"]:
        plan._corrupt(f"tools[{name!r}] has a hole only its module can fill but is not "
                      "import_for_definitions")
    if holes:
        from tools.manifest_holes import hole_target_problem
        from tools.manifest_template_checks import check_template

        for index, hole in enumerate(holes):
            if ("template" in hole) == ("reason" in hole):
                plan._corrupt(f"tools[{name!r}].holes[{index}] has both a template and a reason, "
                              "or neither")
            problem = hole_target_problem(tool["schema"], hole["path"], "template" in hole)
            if problem is None and "template" in hole:
                problem = check_template(hole["template"])
            if problem is not None:
                plan._corrupt(f"tools[{name!r}].holes[{index}] {problem}")


def check_import_only(plan: ManifestPlan, files: list[ToolFile], contents: dict[str, bytes],
                      stale: set[str]) -> None:
    """Refuse an ``import_only`` module whose (fresh) source is not a tool module: the
    manifest must not make the runtime import a helper that discovery never would."""
    from hermes_lint.discovery import source_registers_tools

    for _path, name in files:
        module = f"{plan.package}.{name[len(plan.tools_dir) + 1:-3]}"
        if module in plan.import_only and name not in stale:
            if not source_registers_tools(contents[name]):
                plan._refuse(f"import-only module {module!r} registers no tool at top level")


def stale_reads(plan: ManifestPlan, files: list[ToolFile], already: set[str],
                sha256: Callable[[bytes], _Digest]) -> list[tuple[str, str]]:
    """A frozen module whose values came from other project files (``reads``) is stale
    when one of them changed: its frozen schemas may no longer be what it registers."""
    root = os.path.dirname(files[0][0]) if files else "."
    for _ in plan.tools_dir.split("/"):
        root = os.path.dirname(root)
    digests: dict[str, str | None] = {}
    stale: list[tuple[str, str]] = []
    for record in plan.modules.values():
        if record["path"] in already:
            continue
        for read in record.get("reads", ()):
            if read not in digests:
                try:
                    data = read_regular_file(os.path.join(root, *read.split("/")))
                    digests[read] = sha256(data).hexdigest()
                except OSError:
                    digests[read] = None
            if digests[read] != plan.sources.get(read):
                stale.append((record["path"], f"{read} changed"))
                break
    return stale
