"""Property-based tests (hypothesis): the evaluator agrees with CPython, the cache never changes a
result, a manifest survives its round trip, HRM305's pattern decision agrees with ``re``.

Bounded example counts and no deadline: the whole file runs in seconds on a loaded machine.
"""

from __future__ import annotations

import ast
import builtins
import json
import math
import re
import warnings
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hermes_lint.config import Config
from hermes_lint.evaluate import ModuleEvaluator, split_source_lines
from hermes_lint.model import Unresolved
from hermes_lint.rules.hrm305_required_not_declared import _literal_match

BOUNDED = settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# --------------------------------------------------------------------------- the evaluator

_atoms = st.one_of(
    st.integers(-1000, 1000).map(repr),
    st.sampled_from(["0", "1", "2", "-1", "True", "False", "None", "0.5", "-2.5", "3.0"]),
    st.text(alphabet="ab_-. ", max_size=4).map(repr),
)

_BINARY = ["+", "-", "*", "//", "%", "**", "/", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in", "is", "&", "|", "^", "<<", ">>"]


def _compound(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(_BINARY), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["-", "not ", "+", "~"]), children).map(lambda t: f"({t[0]}{t[1]})"),
        st.lists(children, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(children, max_size=3).map(lambda items: "(" + "".join(f"{i}, " for i in items) + ")"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(children, children).map(lambda t: f"{{{t[0]}: {t[1]}}}"),
        st.tuples(st.sampled_from(["len", "str", "bool", "int", "abs", "sorted", "list", "tuple", "min", "max"]), children).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        st.tuples(children, st.sampled_from(["upper()", "strip()", "split()", "lower()", "title()", "count('a')"])).map(
            lambda t: f"({t[0]}).{t[1]}"
        ),
        st.tuples(children, children).map(lambda t: f"({t[0]})[{t[1]}]"),
    )


expressions = st.recursive(_atoms, _compound, max_leaves=8)

_NUMERIC = ["+", "-", "*", "//", "%", "**", "/", "<", "==", "&", "|", "^", "<<", ">>"]
arithmetic = st.recursive(
    st.one_of(st.integers(-20, 20).map(repr), st.sampled_from(["0.5", "-2.5", "3.0", "True", "1e300"])),
    lambda children: st.tuples(children, st.sampled_from(_NUMERIC), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    max_leaves=5,
)


def _same(ours, theirs) -> bool:
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, float) and math.isnan(ours):
        return math.isnan(theirs)
    if isinstance(ours, (list, tuple)):
        return len(ours) == len(theirs) and all(_same(a, b) for a, b in zip(ours, theirs))
    if isinstance(ours, dict):
        return list(ours) == list(theirs) and all(_same(ours[k], theirs[k]) for k in ours)
    return ours == theirs


@BOUNDED
@given(st.one_of(arithmetic, expressions))
def test_the_evaluator_agrees_with_cpython_or_refuses(expression):
    source = f"RESULT = {expression}\n"
    try:
        tree = ast.parse(source)
    except SyntaxError:
        assume(False)
    ours = ModuleEvaluator(tree, split_source_lines(source)).constant("RESULT")
    if isinstance(ours, Unresolved):
        return  # refusing is always allowed (a bound, or a form it does not evaluate)
    # Only what the evaluator computed within its bounds is run (CPython has none: `9 ** 9 ** 9`).
    # The expression is built above from literals and builtins: safe to run in a test.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs = eval(expression, {"__builtins__": builtins})  # noqa: S307
        except Exception as exc:
            raise AssertionError(f"{expression} raises {exc!r} in CPython; the evaluator gave {ours!r}") from None
    assert _same(ours, theirs), (expression, ours, theirs)


# --------------------------------------------------------------------------- HRM305 patterns

_pattern_chars = st.sampled_from(list("ab_x.$^*+?()[]|\\-") + ["\\.", "\\$", "\\-", "\\d"])


@BOUNDED
@given(st.lists(_pattern_chars, max_size=6).map("".join), st.text(alphabet="ab_x.$-\n", max_size=6))
def test_a_decided_pattern_agrees_with_re(pattern, name):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set": a future change of `[[`
            expected = re.search(pattern, name) is not None
    except re.error:
        expected = None
    decided = _literal_match(pattern, name)
    if decided is not None:
        assert expected is not None, pattern
        assert decided == expected, (pattern, name)


# --------------------------------------------------------------------------- cache and manifest


def _tool_module(number: int, description: str, required: bool) -> str:
    return (
        "from tools.registry import registry\n\n"
        f"SCHEMA = {{'name': 'tool{number}', 'description': {description!r}, 'parameters': "
        "{'type': 'object', 'properties': {'q': {'type': 'string', 'description': 'Q.'}}, "
        f"'required': {['q', 'r'] if required else ['q']!r}}}}}\n\n"
        "def handle(args, **kwargs):\n    return '{}'\n\n"
        f"registry.register(name='tool{number}', toolset='demo', schema=SCHEMA, handler=handle, check_fn=lambda: True)\n"
    )


_modules = st.lists(
    st.tuples(st.text(alphabet="ab .é", min_size=1, max_size=8), st.booleans()), min_size=1, max_size=4
)


def _write_project(root: Path, modules) -> None:
    (root / "tools").mkdir(parents=True, exist_ok=True)
    for path in (root / "tools").glob("*.py"):
        path.unlink()
    names = []
    for number, (description, required) in enumerate(modules):
        (root / "tools" / f"t{number}_tool.py").write_text(_tool_module(number, description, required), encoding="utf-8")
        names.append(f"tool{number}")
    (root / "toolsets.py").write_text(f"TOOLSETS = {{'demo': {{'description': 'D', 'tools': {names!r}, 'includes': []}}}}\n")


@FEW
@given(st.lists(_modules, min_size=1, max_size=3))
def test_the_cache_never_changes_a_result(tmp_path_factory, runs):
    from hermes_lint.project_check import run_project

    root = tmp_path_factory.mktemp("project")
    for modules in runs:  # one edit after another, the cache kept between them
        _write_project(root, modules)
        assert run_project(root, Config(), use_cache=True) == run_project(root, Config())


@FEW
@given(_modules)
def test_a_generated_manifest_round_trips(tmp_path_factory, modules):
    from hermes_lint.manifest.generate import generate_for_root
    from hermes_lint.manifest.diff import label_changes, load_manifest

    root = tmp_path_factory.mktemp("project")
    _write_project(root, modules)
    generated = generate_for_root(root, Config())
    assert generated.ok, generated.problems
    (root / "m.json").write_bytes(generated.text)
    loaded = load_manifest(root / "m.json")
    assert loaded == generated.data == json.loads(generated.text)
    assert label_changes(loaded, generated.data) == []
    assert sorted(loaded["tools"]) == [f"tool{number}" for number in range(len(modules))]
    assert generate_for_root(root, Config()).text == generated.text  # deterministic bytes
