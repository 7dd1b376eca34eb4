"""Running the examples of a rule whose findings come from a whole command rather than the
engine over the example's files (``Rule.examples_run_by``): each example is written to a
temporary directory as a project and the command runs on it as a user would run it.

- "check": a plugin rule's example is a small plugin project (``rules.plugin_examples``),
  checked with ``run_project``, so that plugin recognition, ``register(ctx)`` following and
  plugin.yaml reading are all exercised; ``example_path`` is where its ``code`` goes;
- "manifest --check": HRM501's example code is the tool module; ``options["manifest_of"]``,
  when given, is the tool module the manifest on disk was generated from (the same code: fresh;
  older code: stale); without it there is no manifest on disk.

Above ``check`` and ``manifest``, which the rules themselves never import.
"""

from __future__ import annotations

import inspect
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, List

from hermes_lint.rules.base import EXAMPLE_PATH


def run_example(rule: Any, example: Any) -> List[Any]:
    """``rule``'s diagnostics on ``example``, from the command ``rule.examples_run_by`` names."""
    if rule.examples_run_by == "check":
        return run_plugin_example(rule, example)
    if rule.examples_run_by == "manifest --check":
        return run_manifest_example(rule, example)
    raise ValueError(f"{rule.code}: its examples run through the engine, not a command")


def run_plugin_example(rule: Any, example: Any) -> List[Any]:
    """``rule``'s diagnostics on the example's project."""
    from hermes_lint.project_check import run_project
    from hermes_lint.config import config_from_table

    config = config_from_table({"select": [rule.code], **example.options})
    with tempfile.TemporaryDirectory(prefix=f"{rule.code.lower()}-example-") as directory:
        root = Path(directory)
        files = {**example.files, rule.example_path: example.code}
        _write_project(root, files)
        found = run_project(root, replace(config, project_root=str(root)))
    return [d for d in found if d.code == rule.code]


def run_manifest_example(rule: Any, example: Any) -> List[Any]:
    """The HRM501 diagnostics of ``manifest --check`` on the example's project."""
    from hermes_lint.config import config_from_table
    from hermes_lint.manifest.generate import check_manifest, generate_for_root

    options = dict(example.options)
    manifest_of = options.pop("manifest_of", None)
    config = config_from_table(options)
    with tempfile.TemporaryDirectory(prefix="hrm501-example-") as directory:
        root = Path(directory)
        (root / "tools").mkdir()
        files = {path: text for path, text in example.files.items()}
        if manifest_of is not None:
            _write_project(root, {**files, EXAMPLE_PATH: manifest_of})
            generated = generate_for_root(root, config)
            if generated.text is None:
                raise ValueError(f"example manifest cannot be generated: {generated.problems}")
            (root / config.manifest).write_bytes(generated.text)
        _write_project(root, {**files, EXAMPLE_PATH: example.code})
        found: List = check_manifest(root, config, root / config.manifest)
    return [d for d in found if d.code == rule.code]


def _write_project(root: Path, files: dict) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(inspect.cleandoc(text) + "\n", encoding="utf-8")
