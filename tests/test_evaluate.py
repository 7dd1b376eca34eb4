"""The static evaluator: what it computes, what it refuses (and why, and where), where values come
from, and that it never runs the analysed code."""

import ast
import textwrap

import pytest

from hermes_lint.evaluate import BUDGET_EXCEEDED, ModuleEvaluator, split_source_lines
from hermes_lint.model import Location, Unresolved


def evaluator_for(source: str, **options) -> ModuleEvaluator:
    source = textwrap.dedent(source)
    return ModuleEvaluator(ast.parse(source), split_source_lines(source), **options)


def constant(source: str, name: str, **options):
    return evaluator_for(source, **options).constant(name)


def value_of(expression: str, prelude: str = "", **options):
    """Evaluate ``expression`` as the value of the last statement of a module."""
    return constant(textwrap.dedent(prelude) + f"\nRESULT = {expression}\n", "RESULT", **options)


def refusal(result) -> tuple:
    assert isinstance(result, Unresolved), result
    return result.reason, result.location


# ---------------------------------------------------------------------------------------------
# Literals, names and operators


def test_literal_schema_constant():
    source = """
    SCHEMA = {"name": "weather", "parameters": {"type": "object", "required": ["city"]}, "n": (1, 2.5, None, True)}
    """
    assert constant(source, "SCHEMA") == {
        "name": "weather",
        "parameters": {"type": "object", "required": ["city"]},
        "n": (1, 2.5, None, True),
    }


def test_names_of_module_constants_are_resolved_through_other_constants():
    source = """
    CITY = {"type": "string"}
    PROPS = {"city": CITY}
    SCHEMA = {"properties": PROPS, "flags": [True, False, None]}
    """
    assert constant(source, "SCHEMA") == {"properties": {"city": {"type": "string"}}, "flags": [True, False, None]}


def test_annotated_constant_and_tuple_unpacking_of_a_literal_tuple():
    source = """
    from typing import Dict
    SCHEMA: Dict[str, str] = {"type": "object"}
    NAME, TOOLSET = "weather", "web"
    """
    ev = evaluator_for(source)
    assert ev.constant("SCHEMA") == {"type": "object"}
    assert ev.constant("NAME") == "weather"
    assert ev.constant("TOOLSET") == "web"


def test_string_concatenation_and_implicit_concatenation():
    assert value_of('"Get the " + "weather" " for a city"') == "Get the weather for a city"


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('f"tool {NAME}"', "tool weather"),
        ('f"{NAME!r}"', "'weather'"),
        ('f"{NAME!s:>9}|"', "  weather|"),
        ('f"{ACCENT!a}"', "'\\xe9'"),
        ('f"{COUNT:03d}-{RATIO:.2f}"', "007-0.50"),
        ('f"{COUNT:{WIDTH}}"', "    7"),
        ('f"{LIMITS}"', "[1, 2]"),
    ],
)
def test_f_strings_with_conversions_and_format_specs(expression, expected):
    prelude = 'NAME = "weather"\nACCENT = "é"\nCOUNT = 7\nRATIO = 0.5\nWIDTH = 5\nLIMITS = [1, 2]'
    assert value_of(expression, prelude) == expected


def test_dict_unpacking_and_merge_operator():
    prelude = """
    BASE = {"type": "object", "additionalProperties": False}
    EXTRA = {"additionalProperties": True, "x": 1}
    """
    assert value_of('{**BASE, "properties": {}, **EXTRA}', prelude) == {
        "type": "object",
        "additionalProperties": True,
        "properties": {},
        "x": 1,
    }
    assert value_of("BASE | EXTRA", prelude) == {"type": "object", "additionalProperties": True, "x": 1}


def test_starred_items_in_lists_tuples_and_sets():
    prelude = 'A = ["a", "b"]\nB = ("c",)'
    assert value_of('[*A, "x", *B]', prelude) == ["a", "b", "x", "c"]
    assert value_of("(*A, *B)", prelude) == ("a", "b", "c")
    assert value_of('{*A, "x"}', prelude) == {"a", "b", "x"}


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('"ab" * 3', "ababab"),
        ("[0] * 3", [0, 0, 0]),
        ("2 * (1,)", (1, 1)),
        ('"x" * -1', ""),
        ("[1] + [2]", [1, 2]),
        ("(1,) + (2,)", (1, 2)),
        ('"%s=%03d" % ("n", 7)', "n=007"),
        ('"%(a)s/%(b)r" % {"a": 1, "b": "x"}', "1/'x'"),
        ('"100%%"  % ()', "100%"),
        ("7 // 2 + 7 % 3 - 2 ** 3 + 1 / 4", 3 + 1 - 8 + 0.25),
        ("1 << 4 | 1 & 3 ^ 2", 16 | (1 & 3 ^ 2)),
        ("2 ** 31 - 1", 2147483647),
        ("{1, 2} - {2} ", {1}),
    ],
)
def test_binary_operators(expression, expected):
    assert value_of(expression) == expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("-5", -5),
        ("not []", True),
        ("~0", -1),
        ('"" or "default"', "default"),
        ('"a" and "b"', "b"),
        ("None or 0 or []", []),
        ("1 < 2 <= 2 != 3", True),
        ("1 < 2 > 3", False),
        ('"a" in ["a", "b"]', True),
        ('"k" not in {"k": 1}', False),
        ('"ell" in "hello"', True),
        ("None is None", True),
        ("X is not None", True),
        ('"yes" if X else "no"', "yes"),
        ('"yes" if [] else "no"', "no"),
    ],
)
def test_unary_boolean_comparison_and_conditional_expressions(expression, expected):
    assert value_of(expression, "X = 1") == expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('D["a"]', 1),
        ("L[-1]", "c"),
        ("L[1:]", ["b", "c"]),
        ("L[::-1]", ["c", "b", "a"]),
        ('"hello"[1:3]', "el"),
        ("T[0]", 10),
        ('D["nested"]["x"]', [1]),
    ],
)
def test_subscripts_of_known_values(expression, expected):
    prelude = 'D = {"a": 1, "nested": {"x": [1]}}\nL = ["a", "b", "c"]\nT = (10, 20)'
    assert value_of(expression, prelude) == expected


# ---------------------------------------------------------------------------------------------
# Comprehensions


def test_list_set_dict_and_generator_comprehensions_with_filters():
    prelude = 'NAMES = ["web_search", "terminal", "web_extract"]'
    assert value_of('[n.upper() for n in NAMES if n.startswith("web")]', prelude) == ["WEB_SEARCH", "WEB_EXTRACT"]
    assert value_of("{len(n) for n in NAMES}", prelude) == {10, 8, 11}
    assert value_of("{n: i for i, n in enumerate(NAMES) if i != 1}", prelude) == {"web_search": 0, "web_extract": 2}
    assert value_of("sum(len(n) for n in NAMES)", prelude) == 29
    assert value_of("[(a, b) for a in [1, 2] for b in 'xy' if a != 2 or b == 'y']") == [(1, "x"), (1, "y"), (2, "y")]


def test_dict_comprehension_over_a_module_list_of_literal_schemas():
    source = """
    _ALL = [
        {"name": "read", "description": "Read a file"},
        {"name": "write", "description": "Write a file"},
    ]
    SCHEMAS = {s["name"]: s for s in _ALL}
    WRITE = SCHEMAS["write"]
    """
    ev = evaluator_for(source)
    assert ev.constant("WRITE") == {"name": "write", "description": "Write a file"}
    assert ev.locations_of(ev.constant("WRITE")) == {
        ("name",): Location(4, 6),
        ("description",): Location(4, 23),
    }
    assert ev.locations_of(ev.constant("SCHEMAS"))[("read",)] == Location(6, 12)  # the key expression


def test_comprehension_variables_do_not_leak_into_module_names():
    source = """
    X = [n for n in [1, 2]]
    Y = n
    """
    assert refusal(constant(source, "Y")) == ("undefined name n", Location(3, 5))


# ---------------------------------------------------------------------------------------------
# Builtins and methods


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('dict(a=1, b="x")', {"a": 1, "b": "x"}),
        ('dict(BASE, extra=True)', {"type": "object", "extra": True}),
        ('dict([("k", 1)], z=0)', {"k": 1, "z": 0}),
        ('dict(zip(["a", "b"], [1, 2]))', {"a": 1, "b": 2}),
        ("list(BASE)", ["type"]),
        ('tuple("ab")', ("a", "b")),
        ("set([1, 1, 2])", {1, 2}),
        ('sorted(["b", "a", "c"], reverse=True)', ["c", "b", "a"]),
        ("len(BASE)", 1),
        ("str(12)", "12"),
        ('str({"a": [1]})', "{'a': [1]}"),
        ('int("42")', 42),
        ('int("ff", 16)', 255),
        ('float("1.5")', 1.5),
        ("bool([])", False),
        ("min([3, 1, 2])", 1),
        ("max(3, 9, 4)", 9),
        ("max([], default=0)", 0),
        ("sum([1, 2, 3], 10)", 16),
        ("any([0, 1])", True),
        ("all([])", True),
        ('list(enumerate("ab", start=1))', [(1, "a"), (2, "b")]),
        ("list(zip([1, 2], 'ab'))", [(1, "a"), (2, "b")]),
        ("list(range(1, 10, 4))", [1, 5, 9]),
        ("list(reversed([1, 2]))", [2, 1]),
        ("abs(-3)", 3),
        ("round(2.675, 2)", 2.67),
        ("round(7.5)", 8),
    ],
)
def test_pure_builtins(expression, expected):
    assert value_of(expression, 'BASE = {"type": "object"}') == expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ('", ".join(["a", "b"])', "a, b"),
        ('"{} and {name}".format(1, name="x")', "1 and x"),
        ('"{0[k]}-{1!r:>5}".format({"k": "v"}, "z")', "v-  'z'"),
        ('"Web".upper() + "Web".lower()', "WEBweb"),
        ('"  x ".strip() + "xx".lstrip("x") + "ab ".rstrip()', "xab"),
        ('"a-b".replace("-", "_")', "a_b"),
        ('"a,b,,c".split(",")', ["a", "b", "", "c"]),
        ('"a b c".split(maxsplit=1)', ["a", "b c"]),
        ('"file.py".endswith((".py", ".txt")) and "file".startswith("fi")', True),
        ('"hello world".title() + "|" + "hello".capitalize()', "Hello World|Hello"),
        ('D.get("a") + D.get("z", 10)', 11),
        ("list(D.keys()) + list(D.values())", ["a", 1]),
        ("list(D.items())", [("a", 1)]),
        ("D.copy()", {"a": 1}),
        ("L.copy()", [3, 1]),
        ("L.index(1) + L.count(3)", 2),
    ],
)
def test_string_dict_and_list_methods(expression, expected):
    assert value_of(expression, 'D = {"a": 1}\nL = [3, 1]') == expected


def test_copy_module_functions_are_understood():
    prelude = """
    import copy
    BASE = {"properties": {"a": 1}}
    """
    assert value_of("copy.deepcopy(BASE)", prelude) == {"properties": {"a": 1}}
    assert value_of("copy.copy(BASE)", prelude) == {"properties": {"a": 1}}


def test_module_function_shadowing_a_builtin_is_called_instead():
    source = """
    def len(value):
        return 99
    N = len([1])
    """
    assert constant(source, "N") == 99


# ---------------------------------------------------------------------------------------------
# Calls to functions of the same module


BUILD_SCHEMA = """
_COMMON = {"task_id": {"type": "string", "description": "Task id"}}

def _build_schema(name, description, extra_props=None, *, required=()):
    \"\"\"One schema: the common properties plus the tool's own.\"\"\"
    props = dict(_COMMON)
    if extra_props:
        props.update(extra_props)
    schema = {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": props},
    }
    if required:
        schema["parameters"]["required"] = list(required)
    return schema

READ = _build_schema("read", "Read a file", {"path": {"type": "string"}}, required=["path"])
LIST = _build_schema("list", "List tasks")
"""


def test_module_helper_function_returning_a_schema():
    ev = evaluator_for(BUILD_SCHEMA)
    assert ev.constant("READ") == {
        "name": "read",
        "description": "Read a file",
        "parameters": {
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "Task id"},
                "path": {"type": "string"},
            },
            "required": ["path"],
        },
    }
    assert ev.constant("LIST")["parameters"] == {
        "type": "object",
        "properties": {"task_id": {"type": "string", "description": "Task id"}},
    }
    # the helper copied _COMMON before updating it: the constant is untouched
    assert ev.constant("_COMMON") == {"task_id": {"type": "string", "description": "Task id"}}


def test_locations_inside_a_helper_built_schema():
    ev = evaluator_for(BUILD_SCHEMA)
    locations = ev.locations_of(ev.constant("READ"))
    assert locations[("name",)] == Location(10, 9)
    assert locations[("parameters", "properties", "task_id")] == Location(2, 12)  # from _COMMON
    assert locations[("parameters", "properties", "task_id", "type")] == Location(2, 24)
    assert locations[("parameters", "properties", "path")] == Location(18, 46)  # the caller's literal
    assert locations[("parameters", "required")] == Location(15, 30)  # the subscript key
    assert ("parameters", "required", 0) in locations


def test_parameters_bind_positionally_by_keyword_with_defaults_and_var_arguments():
    source = """
    def f(a, b=2, /, c=3, *rest, d, e=5, **extra):
        return [a, b, c, rest, d, e, extra]
    R1 = f(1, d=4)
    R2 = f(1, 20, 30, 40, 50, d=4, e=6, z=7)
    R3 = f(*[1, 2], **{"d": 0, "c": 9})
    """
    ev = evaluator_for(source)
    assert ev.constant("R1") == [1, 2, 3, (), 4, 5, {}]
    assert ev.constant("R2") == [1, 20, 30, (40, 50), 4, 6, {"z": 7}]
    assert ev.constant("R3") == [1, 2, 9, (), 0, 5, {}]


def test_function_bodies_with_if_elif_else_for_break_continue_and_augmented_assignment():
    source = """
    def classify(values):
        out = []
        total = 0
        for v in values:
            if v < 0:
                continue
            elif v > 100:
                break
            else:
                total += v
            out.append(v)
        else:
            out.insert(0, "complete")
        return out, total

    def nothing():
        pass

    A = classify([1, -2, 3])
    B = classify([1, 200, 3])
    C = nothing()
    """
    ev = evaluator_for(source)
    assert ev.constant("A") == (["complete", 1, 3], 4)
    assert ev.constant("B") == ([1], 1)
    assert ev.constant("C") is None


def test_local_containers_can_be_mutated_with_the_supported_methods():
    source = """
    def build():
        items = ["b"]
        items.extend(["c", "d"])
        items.insert(0, "a")
        last = items.pop()
        table = {}
        table.setdefault("k", []).append(1)
        table["n"] = len(items)
        table.update({"x": 1}, y=2)
        table.pop("x")
        items += ["z"]
        items.remove("b")
        return items, last, table
    R = build()
    """
    assert constant(source, "R") == (["a", "c", "z"], "d", {"k": [1], "n": 3, "y": 2})


def test_helpers_calling_helpers_and_taking_functions_as_arguments():
    source = """
    def prop(kind, text):
        return {"type": kind, "description": text}

    def apply(fn, *args):
        return fn(*args)

    def schema():
        return {"city": prop("string", "City"), "days": apply(prop, "integer", "Days")}

    R = schema()
    """
    assert constant(source, "R") == {
        "city": {"type": "string", "description": "City"},
        "days": {"type": "integer", "description": "Days"},
    }


def test_real_world_toolset_helpers_with_keyword_only_flags_and_star_arguments():
    source = """
    _CORE = ["web_search", "terminal", "kanban_show", "browser_click"]
    _HA = ["ha_get"]

    def _ts(description, tools=(), includes=(), **extra):
        return {"description": description, "tools": list(tools), "includes": list(includes), **extra}

    def _core_without(*excluded, kanban=True):
        return [t for t in _CORE if t not in excluded and (kanban or not t.startswith("kanban_"))]

    CODING = _ts("Coding", _core_without("terminal", *_HA, kanban=False), posture=True)
    """
    ev = evaluator_for(source)
    coding = ev.constant("CODING")
    assert coding == {"description": "Coding", "tools": ["web_search", "browser_click"], "includes": [], "posture": True}
    locations = ev.locations_of(coding)
    assert locations[("tools", 0)] == Location(2, 10)  # filtered items keep their place in _CORE
    assert locations[("tools", 1)] == Location(2, 51)
    assert locations[("posture",)] == Location(11, 71)  # the keyword argument


# ---------------------------------------------------------------------------------------------
# What makes a name a constant, and the refusals


@pytest.mark.parametrize(
    "source, reason, location",
    [
        ("SCHEMA = {}\nSCHEMA = {'a': 1}\n", "SCHEMA is reassigned at line 2", Location(2, 1)),
        ("SCHEMA = {}\nif True:\n    SCHEMA |= {}\n", "SCHEMA is reassigned at line 3", Location(3, 5)),
        ("SCHEMA = {}\nfor SCHEMA in []: pass\n", "SCHEMA is reassigned at line 2", Location(2, 1)),
        ("SCHEMA = {}\nimport SCHEMA\n", "imported name SCHEMA", Location(2, 1)),
        ("SCHEMA = {}\ndef SCHEMA(): pass\n", "SCHEMA is reassigned at line 2", Location(2, 1)),
        ("SCHEMA = {}\ndel SCHEMA\n", "SCHEMA is deleted at line 2", Location(2, 1)),
        ("SCHEMA = {}\nif True:\n    SCHEMA = {}\n", "SCHEMA is reassigned at line 3", Location(3, 5)),
        ("try:\n    SCHEMA = {}\nexcept Exception:\n    pass\n", "SCHEMA is assigned conditionally at line 2", Location(2, 5)),
        ("SCHEMA = {}\ntry:\n    SCHEMA['x'] = 1\nfinally:\n    pass\n", "SCHEMA is mutated at line 3", Location(3, 5)),
        ("BASE = {}\nSCHEMA = BASE\nSCHEMA.update(x=1)\n", "BASE may be mutated through SCHEMA at line 3", Location(3, 1)),
        ("SCHEMA = {'p': []}\nSCHEMA['p'].append(1)\n", "SCHEMA is mutated at line 2", Location(2, 1)),
        ("SCHEMA = {'a': 1}\nfor _ in ():\n    del SCHEMA['a']\n", "SCHEMA is mutated at line 3", Location(3, 5)),
        ("SCHEMA = {}\nSCHEMA.x = 1\n", "SCHEMA is mutated at line 2", Location(2, 1)),
        ("SCHEMA = {}\nx = SCHEMA.pop('a', None)\n", "SCHEMA is mutated at line 2", Location(2, 5)),
        ("SCHEMA = {}\nclass C:\n    SCHEMA['x'] = 1\n", "SCHEMA is mutated at line 3", Location(3, 5)),
        (
            "SCHEMA = {}\ndef f():\n    global SCHEMA\n    SCHEMA = 1\n",
            "SCHEMA is declared global in function f (line 3)",
            Location(3, 5),
        ),
        ("SCHEMA = {}\nfrom other import *\n", "SCHEMA may be rebound by a star import at line 2", Location(2, 1)),
        ("SCHEMA = {}\nglobals()['X'] = 1\n", "module names are changed dynamically (globals() at line 2)", Location(2, 1)),
        ("for SCHEMA in [{}]:\n    pass\n", "SCHEMA is bound by a for loop at line 1", Location(1, 1)),
        ("with open('f') as SCHEMA:\n    pass\n", "SCHEMA is bound by a with statement at line 1", Location(1, 1)),
        ("A, SCHEMA = make()\n", "SCHEMA is bound by unpacking at line 1", Location(1, 1)),
    ],
)
def test_names_that_are_not_constants(source, reason, location):
    assert refusal(constant(source, "SCHEMA")) == (reason, location)


def test_mutation_through_an_alias_or_a_loop_variable_taints_the_original():
    source = """
    BASE = {"type": "object"}
    ALIAS = BASE
    ALIAS["x"] = 1
    A = B = {}
    B["y"] = 2
    SCHEMAS = [{"name": "a"}]
    for s in SCHEMAS:
        s["strict"] = True
    """
    ev = evaluator_for(source)
    assert refusal(ev.constant("BASE")) == ("BASE may be mutated through ALIAS at line 4", Location(4, 1))
    assert refusal(ev.constant("A")) == ("A may be mutated through B at line 6", Location(6, 1))
    assert refusal(ev.constant("SCHEMAS")) == ("SCHEMAS may be mutated through s at line 9", Location(9, 5))


def test_module_level_calls_of_functions_that_mutate_globals_taint_them():
    source = """
    SCHEMAS = {}
    NAMES = []
    REGISTRY = {}

    def _add(name, description):
        SCHEMAS[name] = {"name": name, "description": description}

    def _add_all():
        _add("b", "B")

    def _append_to(target, item):
        target.append(item)

    def register(fn):
        REGISTRY[fn.__name__] = fn
        return fn

    _add("a", "A")
    _append_to(NAMES, "x")

    @register
    def handler(args):
        return ""
    """
    ev = evaluator_for(source)
    assert refusal(ev.constant("SCHEMAS")) == ("SCHEMAS is mutated at line 19 (by _add())", Location(19, 1))
    assert refusal(ev.constant("NAMES")) == ("NAMES is mutated at line 20 (by _append_to())", Location(20, 1))
    assert refusal(ev.constant("REGISTRY")) == ("REGISTRY is mutated at line 22 (by register())", Location(22, 2))


def test_mutation_through_locals_of_a_function_called_at_module_level():
    source = """
    BASE = {"properties": {"a": 1}}
    OTHER = {"x": 1}
    SAFE = {"y": 1}

    def alias():
        d = BASE
        d["b"] = 2

    def nested_of_copy():
        d = dict(OTHER)
        d["x"] = 2           # the copy itself: OTHER unchanged

    def nested_literal():
        schema = {"parameters": {"props": SAFE}}
        schema["parameters"]["required"] = []   # a dict built here
        return schema

    def apply(fn, *args):
        return fn(*args)

    def add_key(target):
        target["k"] = 1

    alias()
    nested_of_copy()
    nested_literal()
    HANDLERS = {"add": add_key}
    apply(add_key, SAFE_TOO)
    """
    ev = evaluator_for(source.replace("SAFE_TOO", "OTHER"))
    assert refusal(ev.constant("BASE")) == ("BASE is mutated at line 25 (by alias())", Location(25, 1))
    assert refusal(ev.constant("OTHER")) == ("OTHER is mutated at line 29 (by add_key())", Location(29, 1))
    assert ev.constant("SAFE") == {"y": 1}


def test_a_handler_that_changes_its_arguments_does_not_taint_the_schema_registered_with_it():
    source = """
    from tools.registry import registry
    from search import run_search
    LIMIT = 50
    SCHEMA = {"name": "search", "parameters": {"type": "object", "properties": {}}}

    def handler(args, **kwargs):
        args.setdefault("limit", LIMIT)
        results = run_search(args, LIMIT)   # may return what it was given: LIMIT is a number
        results.append("done")
        return str(results)

    registry.register(name="search", toolset="web", schema=SCHEMA, handler=handler)
    """
    ev = evaluator_for(source)
    assert ev.constant("SCHEMA") == {"name": "search", "parameters": {"type": "object", "properties": {}}}
    assert ev.constant("LIMIT") == 50


def test_a_handler_runs_after_import_so_its_changes_do_not_count():
    # the manifest and the rules need the values the module has once imported
    source = """
    from tools.registry import registry
    DEFAULTS = {"limit": 10}

    def handler(args, **kwargs):
        DEFAULTS["seen"] = True
        return ""

    registry.register(name="t", toolset="s", schema={}, handler=handler)
    """
    assert constant(source, "DEFAULTS") == {"limit": 10}


def test_functions_handed_to_builtins_that_call_them_run_at_import():
    source = """
    SCHEMAS = [{"name": "a"}]

    def mark(schema):
        schema["strict"] = True
        return schema

    MARKED = list(map(mark, SCHEMAS))
    """
    assert refusal(constant(source, "SCHEMAS")) == ("SCHEMAS is mutated at line 8 (by mark())", Location(8, 15))


def test_code_under_a_main_guard_never_runs_on_import_so_it_binds_and_mutates_nothing():
    source = """
    TOOLSETS = {"web": {"tools": ["web_search"]}}
    NAME = "web_search"
    LIMITS = [1, 2]

    def create_custom_toolset(name, tools):
        TOOLSETS[name] = {"tools": tools}

    def _debug():
        global NAME
        NAME = "debug"

    if __name__ == "__main__":
        create_custom_toolset("demo", ["web_search"])
        TOOLSETS["web"]["tools"].append("x")
        NAME = "other"
        LIMITS.clear()
        ONLY_IN_MAIN = 1
    """
    ev = evaluator_for(source)
    assert ev.constant("TOOLSETS") == {"web": {"tools": ["web_search"]}}
    assert ev.constant("LIMITS") == [1, 2]
    assert not ev.is_bound("ONLY_IN_MAIN")
    # a function that is never called and is not under the guard still counts (global)
    assert refusal(ev.constant("NAME")) == ("NAME is declared global in function _debug (line 10)", Location(10, 5))


@pytest.mark.parametrize(
    "guard, runs_on_import",
    [
        ('if __name__ == "__main__":\n    X["a"] = 2\n', ""),
        ('if "__main__" == __name__:\n    X["a"] = 2\n', ""),
        ('if __name__ != "__main__":\n    pass\nelse:\n    X["a"] = 2\n', ""),
        ('if __name__ == "__main__":\n    pass\nelse:\n    X["a"] = 2\n', "X is mutated at line 5"),
        ('if __name__ != "__main__":\n    X["a"] = 2\n', "X is mutated at line 3"),
        ('if __name__ == "tools.x":\n    X["a"] = 2\n', "X is mutated at line 3"),
        ('try:\n    pass\nfinally:\n    if __name__ == "__main__":\n        X["a"] = 2\n', ""),
    ],
)
def test_only_the_branch_of_a_main_guard_that_never_runs_on_import_is_ignored(guard, runs_on_import):
    result = constant("X = {\"a\": 1}\n" + guard, "X")
    if runs_on_import:
        assert refusal(result)[0] == runs_on_import
    else:
        assert result == {"a": 1}


def test_functions_that_are_never_called_at_module_level_do_not_taint():
    source = """
    SCHEMAS = {"a": 1}
    def later(name):
        SCHEMAS[name] = 2
    """
    assert constant(source, "SCHEMAS") == {"a": 1}


def test_a_name_used_before_its_assignment_is_refused():
    source = """
    SCHEMA = {"properties": PROPS}
    PROPS = {}
    """
    assert refusal(constant(source, "SCHEMA")) == ("PROPS is used before it is assigned (line 3)", Location(2, 25))


def test_a_helper_called_before_it_is_defined_is_refused():
    source = """
    R = helper()
    def helper():
        return 1
    """
    assert refusal(constant(source, "R")) == ("helper is called before it is assigned (line 3)", Location(2, 5))


@pytest.mark.parametrize(
    "prelude, expression, reason, location",
    [
        ("from schemas import build_schema", "build_schema()", "call to imported function build_schema", (2, 10)),
        ("import other", "other.SCHEMA", "attribute of another module: other.SCHEMA", (2, 10)),
        ("import json", 'json.dumps({})', "call to imported function json.dumps", (2, 10)),
        ("from other import SCHEMA", "SCHEMA", "imported name SCHEMA (other.SCHEMA)", (2, 10)),
        ("import os", 'os.environ["KEY"]', "environment read", (2, 10)),
        ("import os", 'os.environ.get("KEY", "")', "environment variable KEY", (2, 10)),
        ("import os", 'os.getenv("KEY")', "environment variable KEY", (2, 10)),
        ("import os as system", 'system.environ.get("KEY").lower()', "environment variable KEY", (2, 10)),
        ("from os import environ", 'environ["KEY"]', "environment read", (2, 10)),
        ("from os import getenv", 'getenv("KEY")', "environment variable KEY", (2, 10)),
        ("", 'open("f").read()', "call to builtin open", (2, 10)),
        ("", "print(1)", "call to builtin print", (2, 10)),
        ("", "undefined_helper()", "call to undefined function undefined_helper", (2, 10)),
        ("", "MISSING", "undefined name MISSING", (2, 10)),
        ("", "__name__", "module attribute __name__", (2, 10)),
        ("", "id", "builtin id is not supported", (2, 10)),
        ("class Schema: pass", "Schema()", "class Schema has no __init__", (2, 10)),
        ("async def f(): pass", "f()", "call to async function f", (2, 10)),
        ("def f(): pass", "f", "function f used as a value", (2, 10)),
        ("", "lambda: 1", "unsupported expression: lambda", (2, 10)),
        ("", '"x".encode()', "unsupported method str.encode", (2, 10)),
        ("", '"x".upper', "attribute upper of a str", (2, 10)),
        ("", 'b"bytes"', "bytes is not a plain value", (2, 10)),
        ("", '{"k": 1}["missing"]', "evaluation raises KeyError: 'missing'", (2, 10)),
        ("", '"a" + 1', "evaluation raises TypeError: unsupported operand type(s) for +: 'str' and 'int'", (2, 10)),
        ("", "1 / 0", "evaluation raises ZeroDivisionError: division by zero", (2, 10)),
        ("", '"x" is "x"', "identity comparison (is) of values other than None/True/False", (2, 10)),
        ("", 'sorted(["a"], key=len)', "unsupported keyword argument key= for sorted", (2, 10)),
        ("", "[n for n in {'b', 'a'}]", "iteration order of a set of strings varies between runs", (2, 22)),
        ("", "sorted({'b', 'a'})", None, None),
    ],
)
def test_refusals_name_what_stopped_the_evaluation(prelude, expression, reason, location):
    result = value_of(expression, prelude)
    if reason is None:  # the order-insensitive counterpart of the case above
        assert result == ["a", "b"]
        return
    assert refusal(result) == (reason, Location(*location) if location else None)


def test_an_unresolved_constant_propagates_its_own_reason_and_location():
    source = """
    import os
    KEY = os.environ["KEY"]
    SCHEMA = {"description": KEY}
    """
    assert refusal(constant(source, "SCHEMA")) == ("environment read", Location(3, 7))


# ---------------------------------------------------------------------------------------------
# Module functions that cannot be run


@pytest.mark.parametrize(
    "body, reason, location",
    [
        ('data = open("schema.json").read()\n    return data', "call to builtin open (in helper)", (3, 12)),
        ("import json\n    return {}", "unsupported statement: import (in helper)", (3, 5)),
        ('try:\n        return open("x")\n    except OSError:\n        return 2', "call to builtin open (in helper)", (4, 16)),
        ("while True:\n        pass", "unsupported statement: while loop (in helper)", (3, 5)),
        ('with open("x") as f:\n        return 1', "unsupported statement: with (in helper)", (3, 5)),
        ("@staticmethod\n    def inner():\n        pass\n    return 1", "builtin staticmethod is not supported (in helper)", (3, 6)),
        ("raise ValueError('no')", "unsupported statement: raise (in helper)", (3, 5)),
        ('import os\n    return os.environ["X"]', "environment read (in helper)", (4, 12)),  # a local import of os is os
        ("return SETTINGS.value", "attribute of another module: SETTINGS.value (in helper)", (3, 12)),
        ("return missing_local", "undefined name missing_local (in helper)", (3, 12)),
        ("x = x + 1\n    return x", "local variable x is used before it is assigned (in helper)", (3, 9)),
        ("global STATE\n    return 1", "helper contains a global declaration", (3, 5)),
        ("yield 1", "helper contains yield (it is a generator)", (3, 5)),
        ("assert False, 'nope'", "assertion fails (in helper)", (3, 5)),
    ],
)
def test_helpers_whose_bodies_leave_the_supported_subset(body, reason, location):
    source = f"import settings as SETTINGS\ndef helper():\n    {body}\nR = helper()\n"
    assert refusal(constant(source, "R")) == (reason, Location(*location))


def test_only_branches_that_run_matter_in_a_helper():
    source = """
    def helper(debug=False):
        if debug:
            return open("debug.json").read()
        return {"ok": True}
    R = helper()
    """
    assert constant(source, "R") == {"ok": True}


def test_decorated_functions_are_not_called():
    source = """
    import functools
    @functools.lru_cache()
    def helper():
        return 1
    R = helper()
    """
    assert refusal(constant(source, "R")) == ("call to decorated function helper", Location(6, 5))


def test_conditionally_defined_functions_are_not_called():
    source = """
    import sys
    if sys.platform == "win32":
        def helper():
            return 1
    R = helper()
    """
    assert refusal(constant(source, "R")) == ("helper is defined conditionally at line 4", Location(4, 5))


def test_wrong_arguments_to_a_helper_are_what_python_would_raise():
    source = """
    def helper(a, *, b):
        return a
    R1 = helper(1)
    R2 = helper(1, 2, b=3)
    R3 = helper(1, b=2, c=3)
    """
    ev = evaluator_for(source)
    assert refusal(ev.constant("R1")) == (
        "evaluation raises TypeError: helper() missing required keyword-only argument: 'b'",
        Location(4, 6),
    )
    assert refusal(ev.constant("R2"))[0] == (
        "evaluation raises TypeError: helper() takes 1 positional arguments but 2 were given"
    )
    assert refusal(ev.constant("R3"))[0] == "evaluation raises TypeError: helper() got an unexpected keyword argument 'c'"


def test_a_helper_may_not_mutate_a_module_constant():
    source = """
    _COMMON = {"a": 1}
    def helper(extra):
        props = _COMMON          # no copy: Python would change _COMMON itself
        props.update(extra)
        return props
    R = helper({"b": 2})
    """
    ev = evaluator_for(source)
    assert refusal(ev.constant("_COMMON")) == ("_COMMON is mutated at line 7 (by helper())", Location(7, 5))
    assert refusal(ev.constant("R")) == ("_COMMON is mutated at line 7 (by helper()) (in helper)", Location(7, 5))


def test_a_helper_run_only_from_a_function_body_may_not_mutate_a_module_constant_either():
    source = """
    _COMMON = {"a": 1}
    def helper():
        props = _COMMON
        props["b"] = 2
        return props
    def handler(args):
        return helper()
    """
    tree = ast.parse(textwrap.dedent(source))
    ev = ModuleEvaluator(tree)
    call = tree.body[2].body[0].value  # helper() inside the handler: never run at import
    assert refusal(ev.evaluate(call)) == ("mutates the value of module constant _COMMON (in helper)", Location(5, 5))
    assert ev.constant("_COMMON") == {"a": 1}


def test_a_helper_may_not_mutate_a_shared_default_value():
    source = """
    def helper(x, seen=[]):
        seen.append(x)
        return seen
    R = helper(1)
    """
    assert refusal(constant(source, "R")) == ("mutates the value of a default value of helper (in helper)", Location(3, 5))


def test_nested_values_of_a_shallow_copy_still_belong_to_the_constant():
    source = """
    BASE = {"properties": {}}
    def helper():
        schema = dict(BASE)
        schema["properties"]["x"] = 1   # changes BASE["properties"] in Python
        return schema
    R = helper()
    """
    assert refusal(constant(source, "BASE")) == ("BASE is mutated at line 7 (by helper())", Location(7, 5))


# ---------------------------------------------------------------------------------------------
# Bounds: budget, sizes, depth


def test_recursion_of_module_functions_is_bounded():
    source = """
    def depth(n):
        return depth(n + 1)
    R = depth(0)
    """
    assert refusal(constant(source, "R")) == ("call depth limit (8) exceeded calling depth (in depth)", Location(3, 12))


def test_long_loops_exceed_the_step_budget():
    source = """
    def spin():
        total = 0
        for i in range(90000):
            total += i
        return total
    R = spin()
    """
    result = constant(source, "R")
    assert isinstance(result, Unresolved)
    assert result.reason == f"{BUDGET_EXCEEDED} (in spin)"
    assert constant(source, "R", step_budget=1_000_000) == sum(range(90000))


@pytest.mark.parametrize(
    "expression",
    [
        '"x" * 10**9',
        "[0] * 10**9",
        "list(range(10**9))",
        '"ab" * 600_000 + "cd" * 600_000',
        '"-".join(["x" * 1000] * 2000)',
        '("a" * 1000).replace("a", "b" * 2000)',
        "10 ** 100000",
        "1 << 100000",
        "2 ** 4000 * 2 ** 4000",
        'f"{1:>100000}"',
        '"%100000s" % "x"',
        '"{:100000}".format("x")',
    ],
)
def test_huge_values_are_refused_before_they_are_built(expression):
    assert refusal(value_of(expression))[0] == BUDGET_EXCEEDED


def test_exponential_sharing_is_refused_at_the_boundary():
    prelude = """
    A = ["x" * 1000] * 1000
    B = [A] * 1000
    """
    assert refusal(value_of("B", prelude))[0] == BUDGET_EXCEEDED
    assert refusal(value_of("str(B)", prelude))[0] == BUDGET_EXCEEDED


def test_deeply_nested_expressions_are_unresolved_not_a_crash():
    source = "X = " + " + ".join(["1"] * 900) + "\n"  # parses, but nests 900 BinOps deep
    ev = ModuleEvaluator(ast.parse(source))
    assert refusal(ev.constant("X")) == ("expression nested too deeply", Location(1, 5))
    assert ev.constant("X") == ev.constant("X")  # and again: nothing was left half-done


def test_each_constant_gets_a_fresh_budget_so_results_do_not_depend_on_call_order():
    # each list costs ~12,000 of the 20,000 steps: together they would not fit in one budget
    source = """
    BIG1 = [i for i in range(6000)]
    BIG2 = [i for i in range(6000)]
    BOTH = len(BIG1) + len(BIG2)
    """
    first = evaluator_for(source)
    assert first.constant("BOTH") == 12000
    second = evaluator_for(source)
    assert len(second.constant("BIG1")) == 6000
    assert second.constant("BOTH") == 12000


def test_the_evaluator_as_a_whole_has_a_total_budget():
    source = "\n".join(f"C{i} = [j for j in range(400)]" for i in range(10))
    ev = evaluator_for(source, step_budget=1000, total_step_budget=3000)
    results = [ev.constant(f"C{i}") for i in range(10)]
    assert results[0] == list(range(400))
    assert refusal(results[-1])[0] == BUDGET_EXCEEDED


# ---------------------------------------------------------------------------------------------
# Locations


def test_locations_of_keys_nested_paths_and_list_items():
    source = """
    SCHEMA = {
        "name": "weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
    """
    ev = evaluator_for(source)
    assert ev.locations_of(ev.constant("SCHEMA")) == {
        ("name",): Location(3, 5),
        ("parameters",): Location(4, 5),
        ("parameters", "type"): Location(5, 9),
        ("parameters", "properties"): Location(6, 9),
        ("parameters", "properties", "city"): Location(6, 24),
        ("parameters", "properties", "city", "type"): Location(6, 33),
        ("parameters", "required"): Location(7, 9),
        ("parameters", "required", 0): Location(7, 22),
    }


def test_merged_dicts_keep_the_locations_of_the_dicts_they_came_from():
    source = """
    BASE = {"type": "object"}
    MORE = dict(strict=True)
    SCHEMA = {**BASE, "properties": {}} | MORE
    """
    ev = evaluator_for(source)
    assert ev.locations_of(ev.constant("SCHEMA")) == {
        ("type",): Location(2, 9),
        ("properties",): Location(4, 19),
        ("strict",): Location(3, 13),
    }


def test_list_items_keep_locations_through_concatenation_starred_and_slices():
    source = """
    A = ["a", "b"]
    B = A + ["c"]
    C = [*A[1:], "d"]
    """
    ev = evaluator_for(source)
    assert ev.locations_of(ev.constant("B")) == {(0,): Location(2, 6), (1,): Location(2, 11), (2,): Location(3, 10)}
    assert ev.locations_of(ev.constant("C")) == {(0,): Location(2, 11), (1,): Location(4, 14)}


def test_columns_are_characters_not_utf8_bytes():
    source = 'DESC = "Météo à Zürich"; SCHEMA = {"description": DESC, "é": 1}\nBAD = "日本" + 1\n'
    ev = ModuleEvaluator(ast.parse(source), split_source_lines(source))
    assert ev.locations_of(ev.constant("SCHEMA")) == {("description",): Location(1, 36), ("é",): Location(1, 57)}
    assert refusal(ev.constant("BAD"))[1] == Location(2, 7)
    # without the source lines the byte offset is all there is
    raw = ModuleEvaluator(ast.parse(source))
    assert raw.locations_of(raw.constant("SCHEMA"))[("é",)] == Location(1, 61)


def test_split_source_lines_numbers_lines_as_python_does():
    assert split_source_lines("a\u2028b\x0cc\r\nd\re\n") == ["a\u2028b\x0cc", "d", "e", ""]


def test_values_the_evaluator_did_not_build_have_no_locations():
    ev = evaluator_for("X = 1\n")
    assert ev.locations_of({"a": [1]}) == {}
    assert ev.locations_of("text") == {}


# ---------------------------------------------------------------------------------------------
# Scope of evaluate(): where a node runs


def test_an_expression_in_a_function_body_sees_module_constants_not_its_locals():
    source = """
    KEY = "city"
    def handler(args, **kwargs):
        value = args.get(KEY)
        return value
    """
    tree = ast.parse(textwrap.dedent(source))
    ev = ModuleEvaluator(tree)
    call = tree.body[1].body[0].value
    assert ev.evaluate(call.args[0]) == "city"
    assert refusal(ev.evaluate(call)) == ("local variable args of handler", Location(4, 13))


def test_a_function_body_may_use_constants_assigned_after_the_def():
    source = """
    def handler(args):
        return args.get(KEY)
    KEY = "city"
    """
    tree = ast.parse(textwrap.dedent(source))
    assert ModuleEvaluator(tree).evaluate(tree.body[0].body[0].value.args[0]) == "city"


def test_evaluate_a_register_keyword_at_its_place_in_the_module():
    source = """
    from tools.registry import registry
    registry.register(name=NAME, schema={"name": NAME})
    NAME = "late"
    """
    tree = ast.parse(textwrap.dedent(source))
    call = tree.body[1].value
    assert refusal(ModuleEvaluator(tree).evaluate(call.keywords[1].value)) == (
        "NAME is used before it is assigned (line 4)",
        Location(3, 46),
    )


def test_evaluate_returns_literal_scalars_directly_and_results_are_stable():
    tree = ast.parse('SCHEMA = {"a": [1]}\nX = SCHEMA\n')
    ev = ModuleEvaluator(tree)
    assert ev.evaluate(ast.parse('"plain"').body[0].value) == "plain"
    assert ev.evaluate(tree.body[1].value) == {"a": [1]}
    assert ev.evaluate(tree.body[1].value) == ev.constant("SCHEMA")


# ---------------------------------------------------------------------------------------------
# Safety: the analysed code never runs


def test_evaluating_constants_executes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = """
    import os, subprocess
    open("created-at-import.txt", "w").write("x")
    HANDLE = open("created-by-constant.txt", "w")
    RUN = subprocess.run(["touch", "created-by-subprocess.txt"])
    SYSTEM = os.system("touch created-by-system.txt")
    IMPORTED = __import__("os").system("touch created-by-import.txt")
    EXEC = exec("open('created-by-exec.txt', 'w')")

    def helper():
        open("created-by-helper.txt", "w").write("x")
        return {"a": 1}

    SCHEMA = helper()
    SAFE = {"name": "ok"}
    """
    ev = evaluator_for(source)
    for name in ("HANDLE", "RUN", "SYSTEM", "IMPORTED", "EXEC", "SCHEMA"):
        assert isinstance(ev.constant(name), Unresolved), name
    for stmt in ast.parse(textwrap.dedent(source)).body:  # and every expression of the module
        for node in ast.walk(stmt):
            if isinstance(node, ast.expr):
                ev.evaluate(node)
    assert list(tmp_path.iterdir()) == []


def test_module_names_changed_by_exec_make_every_constant_unresolved():
    source = """
    SAFE = {"name": "ok"}
    exec("SAFE = 1")
    """
    assert refusal(constant(source, "SAFE")) == (
        "module names are changed dynamically (exec() at line 3)",
        Location(3, 1),
    )


def test_try_whose_body_raises_nothing_runs_else_and_finally():
    source = """
    def pick():
        try:
            value = {"mode": "fast"}
        except KeyError:
            return {"mode": "never"}
        else:
            value["seen"] = True
        finally:
            marker = 1
        return value

    SCHEMA = pick()
    """
    assert constant(source, "SCHEMA") == {"mode": "fast", "seen": True}


def test_try_whose_body_cannot_be_evaluated_is_refused_with_the_body_s_reason():
    source = """
    import json

    def load():
        try:
            return json.load(open("config.json"))
        except OSError:
            return {}

    SCHEMA = load()
    """
    assert refusal(constant(source, "SCHEMA"))[0] == "call to imported function json.load (in load)"


@pytest.mark.parametrize("expression", ["not [int('')]", "not [(0).upper()]", "not [(-'')]", "len({'k': int('x')})"])
def test_a_part_that_certainly_raises_makes_the_whole_value_unknown_even_partially(expression):
    # Python never builds the list: the value must not be computed around a hole
    source = f"RESULT = {expression}\n"
    assert isinstance(constant(source, "RESULT"), Unresolved)
    assert isinstance(evaluator_for(source).constant("RESULT", partial=True), Unresolved)


def test_strict_evaluation_makes_no_hole_a_later_operation_could_consume():
    source = "from vendor import home\nRESULT = not [home()]\n"
    assert refusal(constant(source, "RESULT"))[0] == "call to imported function home"
    partial = evaluator_for(source)
    assert partial.constant("RESULT", partial=True) is False  # a hole is a value, not a raise
    assert refusal(partial.constant("RESULT"))[0] == "call to imported function home"  # own cache
