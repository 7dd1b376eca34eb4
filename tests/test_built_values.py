"""Module-level values built by statements after their assignment (``built_values``): each step
applied in order gives the value import leaves; any other change keeps the name unknown."""

import pytest

from hermes_lint.model import Location
from tests.test_evaluate import constant, evaluator_for, refusal


@pytest.mark.parametrize(
    "source, value",
    [
        ("X = [1]\nX += [2]\n", [1, 2]),
        ("X = [1]\nX.append(2)\nX.extend((3, 4))\nX.insert(0, 0)\n", [0, 1, 2, 3, 4]),
        ("X = [1, 2, 3]\nX.pop()\nX.remove(1)\n", [2]),
        ("X = {'a': 1}\nX.update({'b': 2}, c=3)\nX |= {'d': 4}\n", {"a": 1, "b": 2, "c": 3, "d": 4}),
        ("X = {'a': 1, 'b': 2}\nX.pop('a')\ndel X['b']\nX['c'] = 3\nX.setdefault('c', 4)\n", {"c": 3}),
        ("X = [0, 1]\nX[0] = 9\ndel X[1]\n", [9]),
        ("X = 'a'\nX += 'b'\n", "ab"),
        ("A = [{'n': 1}]\nX = [*A]\nX += A\n", [{"n": 1}, {"n": 1}]),  # X is a new list: A unchanged
        ("X = {}\nX['k'] = 1\nY = X\n", {"k": 1}),
    ],
)
def test_steps_directly_in_the_module_body_are_applied_in_order(source, value):
    assert constant(source, "X") == value


def test_what_a_step_puts_in_is_evaluated_at_its_own_place():
    source = """
    X = ["a"]
    B = ["b"]
    X.extend(B)
    Y = X + ["c"]
    """
    ev = evaluator_for(source)
    assert ev.constant("Y") == ["a", "b", "c"]
    assert ev.constant("B") == ["b"]  # extend copies B's items: B is not changed


@pytest.mark.parametrize(
    "source, reason, location",
    [
        # a step under a branch, in a loop or a class body is not seen in order
        ("X = [1]\nif True:\n    X.append(2)\n", "X is mutated at line 3", Location(3, 5)),
        ("X = [1]\nfor _ in ():\n    X += [2]\n", "X is reassigned at line 3", Location(3, 5)),
        ("X = {}\nclass C:\n    X['k'] = 1\n", "X is mutated at line 3", Location(3, 5)),
        # a function the import runs
        ("X = [1]\nX.append(2)\ndef f():\n    X.append(3)\nf()\n", "X is mutated at line 5 (by f())", Location(5, 1)),
        # a part of it changed, or the popped value kept
        ("X = {'p': []}\nX['p'].append(1)\n", "X is mutated at line 2", Location(2, 1)),
        ("X = {'p': {}}\nX['p']['k'] = 1\n", "X is mutated at line 2", Location(2, 1)),
        ("X = {'a': 1}\nY = X.pop('a')\n", "X is mutated at line 2", Location(2, 5)),
        # the object is another name's: the steps change that one too
        ("A = []\nX = A\nX.append(1)\n", "A may be mutated through X at line 3", Location(3, 1)),
        ("X = Y = []\nX.append(1)\n", "X is mutated at line 2", Location(2, 1)),
        # a step before the assignment
        ("X.append(1)\nX = []\n", "X is mutated at line 1", Location(1, 1)),
        # changed through an alias or a loop variable after the steps
        ("X = [{}]\nX.append({})\nfor s in X:\n    s['k'] = 1\n", "X may be mutated through s at line 4", Location(4, 5)),
    ],
)
def test_any_other_change_keeps_the_name_unknown(source, reason, location):
    assert refusal(constant(source, "X")) == (reason, location)


def test_what_a_step_put_in_is_tainted_when_the_built_name_is_changed_otherwise():
    source = """
    A = {"k": 1}
    X = []
    X.append(A)
    X[0]["k"] = 2
    """
    assert refusal(constant(source, "A")) == ("A may be mutated through X at line 4", Location(4, 1))


def test_a_module_statement_reads_a_built_name_only_once_it_is_complete():
    source = """
    X = [1]
    EARLY = len(X)
    X.append(2)
    LATE = len(X)
    """
    ev = evaluator_for(source)
    assert refusal(ev.constant("EARLY")) == ("X is used before it is changed at line 4", Location(3, 13))
    assert ev.constant("LATE") == 2


def test_a_step_that_python_refuses_is_a_refusal_at_the_step():
    assert refusal(constant("X = {}\nX += {}\n", "X")) == (
        "evaluation raises TypeError: unsupported operand type(s) for +: 'dict' and 'dict'",
        Location(2, 1),
    )
    assert refusal(constant("X = [1]\nX.sort()\n", "X")) == ("unsupported method list.sort", Location(2, 1))


def test_a_project_module_value_changed_by_the_importing_module_is_unknown_there(tmp_path):
    from hermes_lint.evaluate import ModuleEvaluator, split_source_lines
    from hermes_lint.evaluate.project import ProjectModules
    import ast

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "tables.py").write_text("ROWS = [1]\nROWS.append(2)\n")
    importer = "from . import tables\n\ntables.ROWS.append(3)\nSEEN = tables.ROWS\nKEPT = tables.ROWS[0]\n"
    (tmp_path / "pkg" / "__init__.py").write_text(importer)
    ev = ModuleEvaluator(
        ast.parse(importer), split_source_lines(importer), module="pkg", is_package=True,
        project=ProjectModules(str(tmp_path)),
    )
    assert refusal(ev.constant("SEEN")) == ("tables is mutated at line 3", Location(3, 1))
    assert refusal(ev.constant("KEPT")) == ("tables is mutated at line 3", Location(3, 1))
    clean = "from . import tables\n\nSEEN = tables.ROWS\nITEMS = list(tables.ROWS.copy())\n"
    ev = ModuleEvaluator(
        ast.parse(clean), split_source_lines(clean), module="pkg", is_package=True, project=ProjectModules(str(tmp_path)),
    )
    assert ev.constant("SEEN") == [1, 2]
    assert ev.constant("ITEMS") == [1, 2]
