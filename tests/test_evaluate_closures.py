"""The static evaluator on nested functions: a ``def`` run in a function body is a value that
can be returned, stored and called with its closure; rows naming one say which def it is; and
evaluating at a point of a function body keeps an unknown unknown where it matters."""

import ast
import textwrap

from hermes_lint.evaluate import ModuleEvaluator, split_source_lines
from hermes_lint.model import Location, Unresolved


def evaluator_for(source: str) -> ModuleEvaluator:
    source = textwrap.dedent(source)
    return ModuleEvaluator(ast.parse(source), split_source_lines(source))


def test_a_returned_closure_called_later_sees_its_frame_as_it_is_then():
    evaluator = evaluator_for("""
    def make(prefix, suffix="!"):
        def label(name, mark=suffix):
            return prefix + name + mark + tail
        tail = "."
        return label

    RESULT = make("tool_")("clock")
    """)
    # `tail` is bound after the def: the call sees it (late binding); the default is the def's
    assert evaluator.constant("RESULT") == "tool_clock!."


def test_a_closure_reading_a_name_before_its_frame_binds_it_is_refused():
    evaluator = evaluator_for("""
    def make():
        def label():
            return tail
        first = label()
        tail = "."
        return first

    RESULT = make()
    """)
    assert evaluator.constant("RESULT") == Unresolved(
        "local variable tail is used before it is assigned (in label)", Location(4, 16)
    )


def test_rows_name_nested_functions_by_their_qualified_name():
    source = """
    def make(client):
        def handle(args, **kw):
            return client.run(args)
        async def poll(args, **kw):
            return "x"
        return [("run", handle), ("poll", poll), ("help", helper)]

    def helper(args, **kw):
        return "help"
    """
    evaluator = evaluator_for(source)
    function = evaluator._tree.body[0]
    rows = evaluator.evaluate_in_body(function, function.body[-1], function.body[-1].value)
    assert [(name, evaluator.own_function(value)) for name, value in rows] == [
        ("run", "make.<locals>.handle"), ("poll", "make.<locals>.poll"), ("help", "helper"),
    ]
    # evaluated as a plain value, a table holding functions is unknown
    assert isinstance(evaluator_for(textwrap.dedent(source) + "\nRESULT = make(None)\n").constant("RESULT"), Unresolved)


def test_a_value_computed_at_run_time_is_a_hole_only_where_nothing_it_reaches_can_change():
    source = """
    def register(ctx, settings):
        table = {"a": 1}
        token = settings.token
        note = settings.remember(table)
        return table
    """
    evaluator = evaluator_for(source)
    function = evaluator._tree.body[0]
    last = function.body[-1]
    # `settings.remember(table)` may change `table`: refused, never the table's first value
    assert evaluator.evaluate_in_body(function, last, last.value) == Unresolved(
        "parameter settings of register", Location(2, 19)
    )
    trimmed = evaluator_for(source.replace("        note = settings.remember(table)\n", ""))
    function = trimmed._tree.body[0]
    last = function.body[-1]
    assert trimmed.evaluate_in_body(function, last, last.value) == {"a": 1}
    # a hole that reaches the result makes it unknown
    assert trimmed.evaluate_in_body(function, last, ast.parse("[table, token]", mode="eval").body) == Unresolved(
        "parameter settings of register", Location(2, 19)
    )


def test_a_closure_held_by_a_module_constant_cannot_change_what_it_sees():
    # Python gives A == 1 and B == 2; a value that depended on which constant is asked first
    # would be a guess: calling it is refused, whichever comes first
    source = """
    def make():
        count = []
        def bump():
            count.append(1)
            return len(count)
        return bump

    BUMP = make()
    A = BUMP()
    B = BUMP()
    """
    refused = Unresolved("mutates the value of module constant BUMP (in bump)", Location(5, 9))
    evaluator = evaluator_for(source)
    assert (evaluator.constant("B"), evaluator.constant("A")) == (refused, refused)
    # a closure made and called within one evaluation changes only what that evaluation made
    assert evaluator_for(textwrap.dedent(source) + "\nC = make()() + make()()\n").constant("C") == 2
