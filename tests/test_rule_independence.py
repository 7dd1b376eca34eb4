"""No module imports a rule module: a rule can be changed or removed without touching another
one. What rules share lives in shared modules (``rules/shared_examples.py``, ``model_texts.py``,
``schema_walk.py``...); the catalogue (``rules/__init__.py``) finds the rules by file name."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import List

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hermes_lint"
RULE_MODULE = re.compile(r"^hermes_lint\.rules\.hrm\d{3}_\w+$")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, name: str, is_package: bool = False) -> List[str]:
    """Every module an import statement of ``source`` (module ``name``) may load, at any depth
    (``from PACKAGE import NAME`` counts ``PACKAGE.NAME``: NAME may be a module)."""
    package = name if is_package else name.rpartition(".")[0]
    found: List[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append(module)
            found.extend(f"{module}.{alias.name}" for alias in node.names)
    return found


def rule_imports(path: Path) -> List[str]:
    name = module_name(path)
    return [
        module
        for module in imported_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
        if RULE_MODULE.match(module) and module != name
    ]


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda path: path.relative_to(PACKAGE).as_posix()
)
def test_no_module_imports_a_rule_module(path):
    assert rule_imports(path) == []


@pytest.mark.parametrize(
    "source",
    [
        "from hermes_lint.rules.hrm101_handler_returns_non_string import SHARED\n",
        "import hermes_lint.rules.hrm701_hidden_unicode as hidden\n",
        "from hermes_lint.rules import base, hrm313_property_without_type\n",
        "from .hrm701_hidden_unicode import model_texts\n",
        "from . import hrm701_hidden_unicode\n",
        "def check():\n    from hermes_lint.rules.hrm313_property_without_type import lacks_type\n",
    ],
)
def test_an_import_of_a_rule_module_is_found(source):
    path = PACKAGE / "rules" / "hrm999_example.py"
    found = [
        module
        for module in imported_modules(source, module_name(path))
        if RULE_MODULE.match(module)
    ]
    assert len(found) == 1


@pytest.mark.parametrize(
    "source",
    [
        "from hermes_lint.rules.base import Finding, Invalid, Rule\n",
        "from hermes_lint.rules.shared_examples import USUAL_HANDLERS\n",
        "from hermes_lint.rules import all_rules\n",
        "from .base import Rule\n",
    ],
)
def test_shared_modules_are_not_rule_modules(source):
    path = PACKAGE / "rules" / "hrm999_example.py"
    assert not any(RULE_MODULE.match(module) for module in imported_modules(source, module_name(path)))
