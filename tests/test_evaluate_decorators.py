"""The static evaluator on decorated functions: decorators applied bottom-up where the ``def``
runs, ``functools.wraps``, attributes set on function values and read back with ``getattr``, and
the in-place changes of a module name only function bodies change (dropped when they cannot
fail, refused when they may)."""

import ast
import textwrap

from hermes_lint.evaluate import ModuleEvaluator, split_source_lines
from hermes_lint.model import Location, Unresolved

TAG = """
import functools
from functools import wraps


def tag(label):
    def apply(fn):
        fn.label = label
        return fn
    return apply


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    wrapper.logged = True
    return wrapper


def plain(fn):
    @wraps(fn)
    def inner():
        return fn() + 1
    return inner
"""


def evaluator_for(source: str) -> ModuleEvaluator:
    source = textwrap.dedent(source)
    return ModuleEvaluator(ast.parse(source), split_source_lines(source))


def constant(source: str, name: str = "R"):
    return evaluator_for(source).constant(name)


def refusal(result) -> tuple:
    assert isinstance(result, Unresolved), result
    return result.reason, result.location


def test_a_decorated_function_is_what_its_decorators_return_applied_bottom_up():
    source = TAG + """
@tag("outer")
@tag("inner")
def handle():
    return 2

R = (handle.label, handle())
"""
    # `tag("inner")` runs first, then `tag("outer")` sets the label again
    assert constant(source) == ("outer", 2)


def test_functools_wraps_gives_the_wrapper_the_wrapped_functions_attributes():
    source = TAG + """
@logged
@tag("a")
def handle(x):
    return x * 2

R = (handle.label, handle.logged, handle(4), getattr(handle, "missing", None))
"""
    assert constant(source) == ("a", True, 8, None)


def test_wraps_imported_from_functools_and_a_call_of_the_wrapper():
    source = TAG + """
@plain
def three():
    return 3

R = three()
"""
    assert constant(source) == 4


def test_getattr_without_a_default_of_an_attribute_no_code_set_raises():
    source = TAG + """
def handle():
    return 1

R = getattr(handle, "label")
"""
    assert refusal(constant(source)) == (
        "evaluation raises AttributeError: function handle has no attribute 'label'", Location(30, 5))


def test_the_attributes_of_a_function_its_module_sets_one_on_are_unknown():
    source = """
def handle():
    return 1

handle.label = "x"
R = getattr(handle, "other", None)
"""
    assert refusal(constant(source)) == ("the attributes of function handle (its module sets some)", Location(6, 5))


def test_a_decorator_the_evaluator_cannot_run_makes_the_function_unknown():
    source = """
from elsewhere import cached

@cached
def handle():
    return 1

R = getattr(handle, "label", None)
S = handle()
"""
    evaluator = evaluator_for(source)
    assert refusal(evaluator.constant("R")) == (
        "handle is decorated, and its decorators cannot be evaluated: imported name cached (elsewhere.cached)",
        Location(8, 5),
    )
    assert refusal(evaluator.constant("S")) == ("call to decorated function handle", Location(9, 5))


def test_a_decorated_nested_function_takes_its_decorators():
    source = TAG + """
def make():
    @tag("nested")
    def inner():
        return 5
    return inner

R = (make().label, make()())
"""
    assert constant(source) == ("nested", 5)


WRITE_ONLY = """
SEEN = set()
NAMES = []
TABLE = {}


def note(name):
    SEEN.add(name)
    NAMES.append(name)
    TABLE[name] = len(name)
    return name.upper()
"""


def test_changes_that_cannot_fail_of_names_only_function_bodies_change_are_dropped():
    # nothing of the module reads SEEN, NAMES or TABLE: no value computed here depends on them
    assert constant(WRITE_ONLY + "R = note('a') + note('b')\n") == "AB"


def test_a_change_that_may_fail_is_refused():
    source = WRITE_ONLY.replace("SEEN.add(name)", "SEEN.remove(name)") + "R = note('a')\n"
    assert refusal(constant(source)) == (
        "SEEN is changed in place by function note (line 8), maybe at another module's import: what it "
        "holds depends on the code that ran before; this change of it may fail (in note)", Location(8, 5))


def test_an_unhashable_value_added_to_a_set_is_refused():
    # `SEEN.add(["a"])` raises TypeError in Python: not a change that cannot fail
    assert refusal(constant(WRITE_ONLY + "R = note(['a'])\n")) == (
        "SEEN is changed in place by function note (line 8), maybe at another module's import: what it "
        "holds depends on the code that ran before; this change of it may fail (in note)", Location(8, 5))


def test_a_name_its_module_also_reads_is_not_dropped_from():
    # `seen` reads SEEN: a change of it is the module's own (here made at import by `note('a')`)
    source = WRITE_ONLY + "def seen():\n    return sorted(SEEN)\n\nR = note('a')\nS = seen()\n"
    evaluator = evaluator_for(source)
    assert refusal(evaluator.constant("R")) == ("SEEN is mutated at line 15 (by note()) (in note)", Location(15, 5))
    assert refusal(evaluator.constant("S")) == ("SEEN is mutated at line 15 (by note()) (in seen)", Location(15, 5))
