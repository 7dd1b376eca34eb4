"""Internals of the shared handler analysis (hermes_lint/analysis/) that rule examples do not pin."""

from __future__ import annotations

import inspect

import pytest

from hermes_lint.config import Config
from hermes_lint.extract.module_context import build_module_context
from hermes_lint.model.parsing import parse_module
from hermes_lint.model.semantic import CALL_DEPTH
from hermes_lint.analysis.handlers import HandlerAnalyzer, analyses

HEADER = """
import json, sys, asyncio, logging
from tools.registry import registry, tool_error, tool_result
from tools.common import helper, finish
logger = logging.getLogger(__name__)
"""


def context(body: str, register: str = ""):
    source = inspect.cleandoc(HEADER) + "\n" + body + "\n" + register + "\n"
    _, ctx = build_module_context(parse_module("tools/x_tool.py", source.encode()), Config())
    return ctx


def facts(body: str, name: str = "h"):
    return HandlerAnalyzer.of(context(body)).facts(name)


def result(body: str, name: str = "h"):
    return HandlerAnalyzer.of(context(body)).function_result(name, 0)


def single_analysis(body: str, handler: str = "h"):
    ctx = context(body, f'registry.register(name="t", toolset="s", schema={{}}, handler={handler})')
    (analysis,) = analyses(ctx)
    return analysis


# --- falling off the end ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, falls_off",
    [
        ("def h(a):\n    x = 1", True),
        ("def h(a):\n    if a:\n        return 'x'", True),
        ("def h(a):\n    if a:\n        return 'x'\n    else:\n        return 'y'", False),
        ("def h(a):\n    for x in a:\n        print(x)", True),
        ("def h(a):\n    for x in a:\n        if x:\n            break\n        return 'x'", True),
        # a retry loop: it may return on its last attempt (unsure: not reported)
        ("def h(a):\n    for i in range(3):\n        try:\n            return helper()\n"
         "        except OSError:\n            if i == 2:\n                return 'x'", False),
        ("def h(a):\n    while a:\n        a -= 1\n    ", True),
        ("def h(a):\n    while True:\n        return 'x'", False),
        ("def h(a):\n    while True:\n        if a:\n            break\n    ", True),
        ("def h(a):\n    while True:\n        for x in a:\n            break", False),  # inner break
        ("def h(a):\n    if a:\n        return 'x'\n    sys.exit(1)", False),
        ("def h(a):\n    if a:\n        return 'x'\n    finish()", False),  # may never return
        ("def h(a):\n    if a:\n        return 'x'\n    logger.error('no')", True),
        ("def h(a):\n    if a:\n        return 'x'\n    self.fail('no')", False),
        ("def _fail():\n    raise ValueError\ndef h(a):\n    if a:\n        return 'x'\n    _fail()", False),
        ("def _log():\n    print('x')\ndef h(a):\n    if a:\n        return 'x'\n    _log()", True),
        ("def h(a):\n    try:\n        return helper()\n    except Exception:\n        logger.exception('x')", True),
        ("def h(a):\n    try:\n        return 'x'\n    except Exception:\n        pass", False),  # cannot raise
        ("def h(a):\n    try:\n        return helper()\n    finally:\n        print('x')", False),
        ("def h(a):\n    with open(a) as f:\n        return f.read()", False),
        ("def h(a):\n    assert False", False),
        ("def h(a):\n    match a:\n        case 1:\n            return 'x'\n        case _:\n            return 'y'", False),
        ("def h(a):\n    match a:\n        case 1:\n            return 'x'", True),
        ("def h(a):\n    if True:\n        return 'x'", False),
    ],
)
def test_end_reachable_only_when_certain(body, falls_off):
    assert (facts(body).falls_off_line is not None) is falls_off


# --- raises -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, uncaught",
    [
        ("raise ValueError('x')", 1),
        ("try:\n    raise ValueError('x')\nexcept Exception:\n    pass", 0),
        ("try:\n    raise ValueError('x')\nexcept:\n    pass", 0),
        ("try:\n    raise FileNotFoundError('x')\nexcept OSError:\n    pass", 0),
        ("try:\n    raise ValueError('x')\nexcept (KeyError, ValueError):\n    pass", 0),
        ("try:\n    raise ValueError('x')\nexcept KeyError:\n    pass", 1),
        ("try:\n    raise MyError('x')\nexcept KeyError:\n    pass", 0),  # MyError may subclass KeyError
        ("try:\n    raise MyError('x')\nexcept MyBase:\n    pass", 0),
        ("try:\n    helper()\nexcept KeyError:\n    raise", 1),
        ("try:\n    helper()\nexcept KeyError as e:\n    raise ValueError('x') from e", 1),
        ("try:\n    try:\n        helper()\n    except KeyError:\n        raise\nexcept Exception:\n    pass", 0),
        ("try:\n    pass\nfinally:\n    raise ValueError('x')", 1),
        ("try:\n    pass\nexcept Exception:\n    pass\nelse:\n    raise ValueError('x')", 1),
        ("def inner():\n    raise ValueError('x')", 0),
        ("with suppress(ValueError):\n    raise ValueError('x')", 0),
        ("with open('f'):\n    raise ValueError('x')", 1),
    ],
)
def test_uncaught_raises(body, uncaught):
    source = "def h(a, **kw):\n" + "\n".join("    " + line for line in body.splitlines()) + "\n    return 'x'"
    assert len(facts(source).uncaught_raises) == uncaught


# --- return kinds -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, kind, what",
    [
        ("json.dumps({})", "string", ""),
        ("tool_error('x')", "string", ""),
        ("tool_result(x=1)", "string", ""),
        ("f'{a}'", "string", ""),
        ("'a' + 'b'", "string", ""),
        ("'%s' % a", "string", ""),
        ("', '.join(a)", "string", ""),
        ("str(a)", "string", ""),
        ("{'_multimodal': True, 'content': []}", "string", ""),  # the envelope: an accepted result
        ("{'a': 1}", "other", "a dict"),
        ("[a]", "other", "a list"),
        ("1.5", "other", "a number"),
        ("True", "other", "a bool"),
        ("None", "other", "None"),
        ("b'x'", "other", "bytes"),
        ("dict(a=1)", "other", "a dict"),
        ("helper(a)", "unknown", ""),
        ("a.text", "unknown", ""),
        ("a", "unknown", ""),
        ("a or 'x'", "unknown", ""),
        ("'x' if a else {}", "other", "a dict"),
    ],
)
def test_expression_kinds(expr, kind, what):
    got = result(f"def h(a):\n    return {expr}")
    assert (got.kind, got.what) == (kind, what)


def test_variables_assigned_only_strings_or_only_dicts():
    assert result("def h(a):\n    r = 'x'\n    if a:\n        r = json.dumps(a)\n    return r").kind == "string"
    assert result("def h(a):\n    r = {}\n    r['k'] = 1\n    return r").what == "a dict"
    # a dict replaced by its JSON: which one is returned depends on the path
    assert result("def h(a):\n    r = {}\n    r = json.dumps(r)\n    return r").kind == "unknown"
    assert result("def h(a):\n    for r in a:\n        pass\n    return r").kind == "unknown"


def test_shadowed_helpers_are_unknown():
    assert result("def h(json):\n    return json.dumps(1)").kind == "unknown"
    assert result("def h(a):\n    str = helper\n    return str(a)").kind == "unknown"


def test_followed_functions_and_bounds():
    chain = "\n".join(f"def f{i}(a):\n    return f{i + 1}(a)" for i in range(CALL_DEPTH + 2))
    chain += f"\ndef f{CALL_DEPTH + 2}(a):\n    return {{}}"
    assert result(chain, "f0").kind == "unknown"  # deeper than the bound
    assert result(chain, f"f{CALL_DEPTH - 1}").what == "a dict"
    recursive = "def f(a):\n    return g(a)\ndef g(a):\n    if a:\n        return f(a - 1)\n    return 'x'"
    assert result(recursive, "f").kind == "unknown"  # no infinite recursion, no guess


def test_functions_defined_twice_or_decorated_are_unknown():
    twice = "def f(a):\n    return {}\nif a:\n    def f(a):\n        return 'x'\ndef h(a):\n    return f(a)"
    assert result(twice).kind == "unknown"
    decorated = "@helper\ndef f(a):\n    return {}\ndef h(a):\n    return f(a)"
    assert result(decorated).kind == "unknown"


def test_async_callee_is_awaitable_and_followed_when_awaited():
    body = "async def f(a):\n    return {}\ndef h(a):\n    return f(a)\nasync def g(a):\n    return await f(a)"
    assert result(body).kind == "awaitable"
    assert result(body, "g").what == "a dict"


# --- args -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, reads, visible",
    [
        ("return str(args.get('a'))", ["a"], True),
        ("return str(args['a'], 'b' in args, args.pop('c', 1), args.setdefault('d', 1))", ["a", "b", "c", "d"], True),
        ("if not args or not isinstance(args, dict):\n    return ''\nreturn str(args.get('a'))", ["a"], True),
        ("logger.info('args %s', args)\nreturn str(args.get('a'))", ["a"], True),
        ("args = args or {}\nreturn str(args.get('a'))", ["a"], True),
        ("args = args['inner']\nreturn str(args.get('a'))", [], False),
        ("params = args\nreturn str(params.get('a'))", ["a"], True),  # an alias bound once
        ("params = args\nparams = {}\nreturn str(params.get('a'))", [], False),  # rebound: unknown
        ("return str(helper(args))", [], False),
        ("return str(dict(**args))", [], False),
        ("return str(list(args.items()))", [], False),
        ("return str([args.get(k) for k in ('a', 'b')])", [], False),
        ("return str([x for x in args])", [], False),
        ("return f'{args}'", [], False),
        ("args['a'] = 1\nreturn ''", [], False),
        ("def inner(args):\n    return args.get('z')\nreturn str(args.get('a'))", ["a"], True),
        ("return str([args.get('z') for args in helper()])", [], True),  # another ``args``
        ("def inner():\n    return args.get('z')\nreturn str(args.get('a'))", ["a", "z"], True),
    ],
)
def test_args_reads_and_visibility(body, reads, visible):
    source = "def h(args, **kw):\n" + "\n".join("    " + line for line in body.splitlines())
    analysis = single_analysis(source)
    assert sorted(r.key for r in analysis.args.reads) == sorted(reads)
    assert analysis.args.all_visible is visible


def test_args_followed_into_module_functions():
    source = (
        "def _inner(params, extra=None):\n    return str(params.get('b'))\n"
        "def _impl(x, args):\n    return _inner(args) + str(args['a'])\n"
        "def h(args, **kw):\n    return _impl(1, args=args)"
    )
    analysis = single_analysis(source)
    assert sorted(r.key for r in analysis.args.reads) == ["a", "b"]
    assert analysis.args.all_visible
    assert analysis.args.functions == {"h", "_impl", "_inner"}


def test_args_into_star_parameters_or_other_modules_is_not_visible():
    star = "def _impl(*rest):\n    return ''\ndef h(args, **kw):\n    return _impl(args)"
    assert not single_analysis(star).args.all_visible
    lam = single_analysis("", handler="lambda args, **kw: helper(args.get('a'), args)")
    assert [r.key for r in lam.args.reads] == ["a"] and not lam.args.all_visible


def test_analysis_is_computed_once_per_module():
    # Rules share one analysis (and tell shared handlers apart by node identity); the engine
    # releases the context after each module, which drops the analyzer with it.
    ctx = context("def h(args, **kw):\n    return str(args.get('q'))",
                  'registry.register(name="a", toolset="s", schema={}, handler=h)\n'
                  'registry.register(name="b", toolset="s", schema={}, handler=lambda args, **kw: h(args))')
    analyzer = HandlerAnalyzer.of(ctx)
    assert HandlerAnalyzer.of(ctx) is analyzer
    first, second = analyses(ctx)
    assert [id(a) for a in analyses(ctx)] == [id(first), id(second)]
    assert first.primary[0].facts is second.primary[0].facts  # `h` analysed once, for both
    assert analyzer.return_kinds(first.primary[0].facts) is analyzer.return_kinds(first.primary[0].facts)
    ctx.release()
    assert HandlerAnalyzer.of(ctx) is not analyzer


def test_unknown_handlers_give_no_facts():
    for handler in ("helper", "registry.thing", "helper()", "None"):
        analysis = single_analysis("", handler=handler)
        assert not analysis.known and analysis.primary == [] and not analysis.args.all_visible


# --- narrowing: a None that a test rules out ----------------------------------------------------

_MAYBE = "def g(a):\n    if a:\n        return 'x'\n    return None\n"


@pytest.mark.parametrize(
    "body, kind, what",
    [
        ("e = g(a)\nif e:\n    return e\nreturn 'y'", "string", ""),
        ("e = g(a)\nif e is not None:\n    return e\nreturn 'y'", "string", ""),
        ("e = g(a)\nif isinstance(e, str):\n    return e\nreturn 'y'", "string", ""),
        ("e = g(a)\nreturn e if e else 'x'", "string", ""),
        ("e = g(a)\nif e is None:\n    return 'n'\nreturn e", "string", ""),
        ("e = g(a)\nif not e:\n    raise ValueError\nreturn e", "string", ""),
        ("e = g(a)\nif e is None or a:\n    return 'n'\nreturn e", "string", ""),
        ("e = g(a)\nassert e is not None\nreturn e", "string", ""),
        ("e = g(a)\nif a:\n    return 'n'\nelif e is None:\n    return 'n'\nreturn e", "string", ""),
        ("for i in a:\n    e = g(i)\n    if e is None:\n        continue\n    return e\nreturn 'z'", "string", ""),
        # the None still reaches the return
        ("e = g(a)\nreturn e", "other", "None"),
        ("e = g(a)\nif e is None:\n    print('x')\nreturn e", "other", "None"),  # the guard goes on
        ("e = g(a)\nif e:\n    return 'y'\nreturn e", "other", "None"),
        ("e = g(a)\nif e is not None:\n    pass\nelse:\n    return e\nreturn 'y'", "other", "None"),
        ("e = g(a)\nreturn e if e is None else 'x'", "other", "None"),
        ("e = g(a)\nif a:\n    return e\nreturn 'y'", "other", "None"),  # another name tested
        ("e = g(a)\nif e and a:\n    return 'n'\nreturn e", "other", "None"),
        ("e = g(a)\nif a:\n    pass\nelif e is None:\n    return 'n'\nreturn e", "other", "None"),
        # rebound after the test
        ("e = g(a)\nif e is None:\n    return 'n'\ne = g(a)\nreturn e", "other", "None"),
        ("e = g(a)\nif e:\n    e = g(e)\n    return e\nreturn 'n'", "other", "None"),
        ("e = g(a)\nif e is None:\n    return 'n'\nfor i in a:\n    if i:\n        return e\n    e = None\nreturn 'z'",
         "other", "None"),
    ],
)
def test_tests_on_a_variable_rule_out_none(body, kind, what):
    source = _MAYBE + "def h(a):\n" + "\n".join("    " + line for line in body.splitlines())
    got = result(source)
    assert (got.kind, got.what) == (kind, what)


def test_narrowing_keeps_other_non_strings():
    source = "def g(a):\n    if a:\n        return {}\n    return None\n" \
             "def h(a):\n    e = g(a)\n    if e:\n        return e\n    return 'y'"
    assert result(source).what == "a dict"


_FINISH = "def g(n, err=None):\n    return None if err is None else tool_error(err)\n"


@pytest.mark.parametrize(
    "source, kind",
    [
        (_FINISH + "def h(a):\n    return g('b', f'failed: {a}')", "string"),
        (_FINISH + "def h(a):\n    return g('b', err='x')", "string"),
        ("def g(err=None):\n    if err is None:\n        return None\n    return tool_error(err)\n"
         "def h(a):\n    return g('x')", "string"),
        ("def g(err=None):\n    if err:\n        return tool_error(err)\n    print(1)\n"
         "def h(a):\n    return g('x')", "string"),  # the end needs `err` falsy
        # the None path can run
        (_FINISH + "def h(a):\n    return g('b')", "other"),
        (_FINISH + "def h(a):\n    return g('b', a)", "other"),  # not certainly truthy
        ("def g(n, err=None):\n    return None if not err else tool_error(err)\n"
         "def h(a):\n    return g('b', '')", "other"),
        ("def g(err=None):\n    err = helper(err)\n    return None if err is None else 'x'\n"
         "def h(a):\n    return g('x')", "other"),  # the parameter is rebound
        ("def g(err=None):\n    if err:\n        return tool_error(err)\n    print(1)\n"
         "def h(a):\n    return g()", "other"),
    ],
)
def test_none_that_depends_on_an_argument(source, kind):
    assert result(source).kind == kind


# --- event-loop bridges -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, reported",
    [
        ("return asyncio.run(c)", True),
        # a loop started in the probe's `except RuntimeError:` runs only where none runs: not reported;
        # in a block catching another exception, or after a try doing more than the probe: reported
        ("try:\n    asyncio.get_running_loop()\nexcept RuntimeError:\n    return asyncio.run(c)\nreturn 'x'", False),
        ("try:\n    asyncio.get_running_loop()\nexcept Exception:\n    return asyncio.run(c)\nreturn 'x'", True),
        ("try:\n    asyncio.get_running_loop()\n    c.send(None)\nexcept RuntimeError:\n    return asyncio.run(c)\nreturn 'x'", True),
        ("try:\n    asyncio.get_running_loop()\nexcept RuntimeError:\n    pass\nreturn asyncio.run(c)", True),
        ("loop = helper()\nif loop.is_running():\n    return 'x'\nreturn asyncio.run(c)", True),
        ("if asyncio._get_running_loop() is None:\n    return asyncio.run(c)\nreturn 'x'", True),
        # get_event_loop() returns the running loop: no probe; get_running_loop() outside a try neither
        ("try:\n    loop = asyncio.get_event_loop()\nexcept RuntimeError:\n    loop = None\n"
         "return loop.run_until_complete(c)", True),
        ("loop = asyncio.get_running_loop()\nreturn asyncio.run(c)", True),
    ],
)
def test_loop_bridges_are_event_loop_calls(body, reported):
    source = "def h(c):\n" + "\n".join("    " + line for line in body.splitlines())
    assert bool(facts(source).event_loop_calls) is reported


# --- aliases in an ``or`` -----------------------------------------------------------------------


def test_or_chain_reads_know_their_alternates():
    analysis = single_analysis(
        "def h(args, **kw):\n"
        "    name = args.get('filename') or args.get('title') or args['label'] or 'x'\n"
        "    other = kw.get('a') or args.get('solo')\n"
        "    return str(name) + str(other)"
    )
    alternates = {r.key: set(r.alternates) for r in analysis.args.reads}
    assert alternates == {
        "filename": {"title", "label"}, "title": {"filename", "label"}, "label": {"filename", "title"},
        "solo": set(),  # `kw` is another dict
    }
