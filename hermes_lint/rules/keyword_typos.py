"""A registry keyword the call misspells (``check_func=`` for ``check_fn=``): the rules whose
finding it explains (HRM201, HRM306) say so rather than advise writing what is already written.
The suggestion is HRM004's own: the closest parameter of the registry contract (difflib)."""

from __future__ import annotations

from typing import Optional

from hermes_lint.project.registry_contract import BUILTIN


def misspelt_keyword(registration, contract, parameter: str) -> Optional[str]:
    """The unknown keyword of ``registration`` whose closest parameter is ``parameter``, or None."""
    contract = contract or BUILTIN
    if contract.any_keyword or parameter not in contract.parameters:
        return None
    for keyword in registration.keywords:
        if keyword.name not in contract.parameters:
            import difflib  # only for a keyword the contract does not have
            if difflib.get_close_matches(keyword.name, contract.parameters, n=1) == [parameter]:
                return keyword.name
    return None


def misspelt_hint(keyword: str, parameter: str) -> str:
    return f"`{keyword}=` is not a parameter: did you mean `{parameter}=`?"
