"""The rule catalogue, collected from the ``hrmNNN_*.py`` modules of this package.

Each module holds one rule (its code is in the file name, as in hassfest's newer validators), so
adding a rule is adding a file; codes are a public contract and never change meaning.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from typing import Dict, Tuple, Type

from hermes_lint.rules.base import Rule

_RULE_MODULE = re.compile(r"^hrm\d{3}_\w+$")


@lru_cache(maxsize=None)
def all_rules() -> Tuple[Type[Rule], ...]:
    """Every rule class, sorted by code."""
    found: Dict[str, Type[Rule]] = {}
    for info in pkgutil.iter_modules(__path__):
        if not _RULE_MODULE.match(info.name):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule:
                if value.__module__ != module.__name__:
                    continue  # imported from elsewhere, e.g. a shared base class
                if value.code in found:
                    raise RuntimeError(f"rule code {value.code} defined twice")
                found[value.code] = value
    return tuple(found[code] for code in sorted(found))


@lru_cache(maxsize=None)
def rule_by_code(code: str) -> Type[Rule]:
    """The rule of ``code``, importing its module alone (the code is in its file name): a run
    that asks about the codes it reports does not import every rule."""
    prefix = f"{code.lower()}_"
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith(prefix) and _RULE_MODULE.match(info.name):
            module = importlib.import_module(f"{__name__}.{info.name}")
            for value in vars(module).values():
                if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__:
                    if value.code == code:
                        return value
    for rule in all_rules():  # a rule whose module is named otherwise (never, by convention)
        if rule.code == code:
            return rule
    raise KeyError(code)
