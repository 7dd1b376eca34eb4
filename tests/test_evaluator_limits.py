"""The evaluator's limits, each at its exact edge (a value at the limit is computed, one past it
refused), so that moving a limit by one or dropping a check fails a test."""

from __future__ import annotations

import pytest

from hermes_lint.evaluate import BUDGET_EXCEEDED
from hermes_lint.evaluate.limits import MAX_CALL_DEPTH, MAX_INT_BITS
from hermes_lint.model import Unresolved
from tests.test_evaluate import value_of


def call_chain(depth: int) -> str:
    """``f{depth-1}()`` calls ``f{depth-2}()``... down to ``f0()``: ``depth`` nested calls."""
    lines = ["def f0():\n    return 1"]
    lines += [f"def f{number}():\n    return f{number - 1}()" for number in range(1, depth)]
    return "\n".join(lines)


def test_calls_nest_up_to_the_depth_limit_and_no_further():
    assert MAX_CALL_DEPTH == 8
    assert value_of(f"f{MAX_CALL_DEPTH - 1}()", call_chain(MAX_CALL_DEPTH)) == 1
    refused = value_of(f"f{MAX_CALL_DEPTH}()", call_chain(MAX_CALL_DEPTH + 1))
    assert isinstance(refused, Unresolved)
    assert refused.reason == f"call depth limit ({MAX_CALL_DEPTH}) exceeded calling f0 (in f1)"


def test_power_is_sized_before_it_is_computed(monkeypatch):
    from hermes_lint.evaluate import operators

    # bit_length(2) * exponent against MAX_INT_BITS: 2 * 2048 is the limit itself
    assert MAX_INT_BITS == 4096
    assert value_of("2 ** 2048") == 2**2048
    assert value_of("2 ** 2049") == Unresolved(BUDGET_EXCEEDED, value_of("2 ** 2049").location)

    computed = []
    real = operators._Operators._arithmetic

    def recording(self, left, right, symbol, compute):
        computed.append((left, right, symbol))
        return real(self, left, right, symbol, compute)

    monkeypatch.setattr(operators._Operators, "_arithmetic", recording)
    refused = value_of("7 ** 100000")  # computed, it would take a while and 35 KB of digits
    assert isinstance(refused, Unresolved) and refused.reason == BUDGET_EXCEEDED
    assert computed == []  # refused before any arithmetic



def test_a_left_shift_is_sized_before_it_is_computed(monkeypatch):
    from hermes_lint.evaluate import operators

    # bit_length(1) + count against MAX_INT_BITS: 1 << 4095 has 4096 bits, the limit itself
    assert value_of(f"1 << {MAX_INT_BITS - 1}") == 1 << (MAX_INT_BITS - 1)
    assert value_of(f"1 << {MAX_INT_BITS}") == Unresolved(BUDGET_EXCEEDED, value_of(f"1 << {MAX_INT_BITS}").location)

    computed = []
    real = operators._Operators._integer_op

    def recording(self, left, right, symbol, compute):
        computed.append((left, right, symbol))
        return real(self, left, right, symbol, compute)

    monkeypatch.setattr(operators._Operators, "_integer_op", recording)
    refused = value_of("1 << 10_000_000")  # computed, it would build a 1.2 MB integer first
    assert isinstance(refused, Unresolved) and refused.reason == BUDGET_EXCEEDED
    assert computed == []  # refused before the shift

# Every method that changes its object, called on a part of a module constant (at module level,
# or in a function the module calls), makes the constant unknown: its value is not the literal.
MUTATING_CALLS = {
    "append": 'X["l"].append(1)', "extend": 'X["l"].extend([1])', "insert": 'X["l"].insert(0, 1)',
    "pop": 'X["l"].pop()', "remove": 'X["l"].remove(0)', "clear": 'X["l"].clear()',
    "sort": 'X["l"].sort()', "reverse": 'X["l"].reverse()',
    "update": 'X["d"].update(a=1)', "setdefault": 'X["d"].setdefault("a", 1)', "popitem": 'X["d"].popitem()',
    "add": 'X["s"].add(1)', "discard": 'X["s"].discard(0)', "difference_update": 'X["s"].difference_update({0})',
    "intersection_update": 'X["s"].intersection_update({1})',
    "symmetric_difference_update": 'X["s"].symmetric_difference_update({1})',
}
CONSTANT = 'X = {"l": [0, 2], "d": {"b": 2}, "s": {0, 2}}\n'


def test_every_mutating_method_is_covered():
    from hermes_lint.evaluate.module_index import _MUTATING_METHODS

    assert set(MUTATING_CALLS) == _MUTATING_METHODS


@pytest.mark.parametrize("method", sorted(MUTATING_CALLS))
def test_a_mutating_method_makes_the_constant_unknown(method):
    from tests.test_evaluate import constant

    at_module_level = constant(CONSTANT + MUTATING_CALLS[method] + "\n", "X")
    assert at_module_level == Unresolved("X is mutated at line 2", at_module_level.location)
    in_a_helper = constant(CONSTANT + f"def _prepare():\n    {MUTATING_CALLS[method]}\n_prepare()\n", "X")
    assert isinstance(in_a_helper, Unresolved) and "mutated" in in_a_helper.reason, in_a_helper


def test_a_method_that_does_not_mutate_keeps_the_constant():
    from tests.test_evaluate import constant

    assert constant(CONSTANT + 'Y = X["l"].copy()\nZ = X["d"].get("b")\n', "X") == {"l": [0, 2], "d": {"b": 2}, "s": {0, 2}}
