"""Objects of the project's own simple classes (``classes``): what constructing one gives, and
every class or use whose effect is not certain from the text refused with why."""

import pytest

from hermes_lint.model import Location
from tests.test_evaluate import constant, refusal, value_of

CLASSES = """
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple


class Param(NamedTuple):
    name: str
    kind: str = "string"


@dataclass
class Spec:
    name: str
    params: tuple = ()
    tags: list = field(default_factory=list)
    limit: int = field(default=5, kw_only=True)
    registry: ClassVar[dict] = {}

    def describe(self):
        return self.name.upper()


class Holder:
    def __init__(self, code, label="plain"):
        self.code = code
        self.label = label
        self.count = 0


def tagged(spec, tag):
    spec.tags.append(tag)
    return spec.tags
"""


@pytest.mark.parametrize(
    "expression, value",
    [
        ("Param('q').name", "q"),
        ("Param('q', kind='number')[1]", "number"),
        ("[n for n, _ in (Param('a'), Param('b', 'x'))]", ["a", "b"]),
        ("list(Param('a', 'b'))", ["a", "b"]),
        ("Spec('s', (Param('p'),)).params[0].kind", "string"),
        ("Spec('s').tags", []),
        ("Spec('s', limit=9).limit", 9),
        ("(tagged(Spec('a'), 1), Spec('b').tags)", ([1], [])),  # a factory's value is new each time
        ("Holder('h').label + Holder('i', 'fast').label", "plainfast"),
        ("Holder(code='h').count", 0),
        ("'yes' if Spec('s') else 'no'", "yes"),
    ],
)
def test_objects_of_simple_classes_give_their_attributes(expression, value):
    assert value_of(expression, CLASSES) == value


@pytest.mark.parametrize(
    "expression, reason",
    [
        ("Spec('a') == Spec('a')", "comparison of a Spec object"),
        ("Param('a') in (Param('a'),)", "comparison of a Param object"),
        ("{Spec('a')}", "hash of a Spec object"),
        ("str(Holder('h'))", "text of a Holder object"),
        ("Spec('a').describe()", "unsupported method Spec object.describe"),
        ("Spec('a').registry", "attribute registry of a Spec object"),
        ("Spec('a', (), [], 3)", "evaluation raises TypeError: Spec() takes 3 positional arguments but 4 were given"),
        ("Spec()", "evaluation raises TypeError: Spec() missing required argument: 'name'"),
        ("Holder('h', 'l', 'x')", "evaluation raises TypeError: __init__() takes 3 positional arguments but 4 were given"),
    ],
)
def test_what_an_object_does_beyond_its_attributes_is_refused(expression, reason):
    assert refusal(value_of(expression, CLASSES))[0] == reason


@pytest.mark.parametrize(
    "classes, reason",
    [
        ("class C(Base):\n    x: int\n", "class C has a base class"),
        ("class C(metaclass=M):\n    x: int\n", "class C has a metaclass or class keywords"),
        ("import functools\n@functools.total_ordering\nclass C:\n    x: int\n", "class C is decorated"),
        ("@dataclass\nclass C:\n    x: int\n    def __post_init__(self):\n        self.x = 1\n", "class C defines __post_init__"),
        ("@dataclass(init=False)\nclass C:\n    x: int\n", "class C is decorated"),
        ("@dataclass\nclass C:\n    x: int = field(init=False, default=1)\n", "class C: field x is not set by __init__"),
        ("@dataclass\nclass C:\n    x: int = 1\n    y: int\n",
         "class C: field y without a default follows one with a default (TypeError)"),
        ("@dataclass\nclass C:\n    N = 1\n    x: int = N\n", "class C: the default of x uses a name of the class body"),
        ("@dataclass\nclass C:\n    x: list = []\n", "class C cannot be created: field x has a mutable default (ValueError)"),
        ("class C:\n    def __init__(self, x):\n        self.x = x.upper()\n",
         "class C: __init__ does more than store its parameters (line 4)"),
        ("class C:\n    def __init__(self, *xs):\n        self.xs = xs\n", "class C: __init__ does more than store its parameters"),
        ("class C:\n    x = 1\n    def __init__(self, x):\n        self.x = x\n",
         "class C: attribute x is also bound in the class body"),
        ("class C:\n    def __getattr__(self, name):\n        return 1\n    def __init__(self, x):\n        self.x = x\n",
         "class C defines __getattr__"),
        ("class C:\n    if True:\n        x = 1\n", "class C has a statement other than fields, methods and class attributes (line 3)"),
        ("class C:\n    pass\n", "class C has no __init__"),
    ],
)
def test_a_class_whose_call_is_not_certain_is_refused_with_why(classes, reason):
    prelude = "from dataclasses import dataclass, field\n" + classes
    assert refusal(value_of("C(1)", prelude))[0] == reason


def test_a_class_defined_conditionally_or_rebound_is_not_called():
    assert refusal(value_of("C(1)", "if X:\n    class C:\n        pass\n"))[0] == "C is defined conditionally at line 2"
    assert refusal(constant("class C:\n    pass\nC = 1\nR = C.x\n", "R")) == (
        "C is reassigned at line 3", Location(3, 1)
    )
