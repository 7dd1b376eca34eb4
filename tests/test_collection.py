"""A checked file leaves nothing for the cyclic garbage collector: its syntax tree and analyses
are freed by reference counting as soon as ``check_module`` returns (``check.collection``
runs no collection while a file is checked, so a cycle would keep a whole tree alive)."""

import gc
import hashlib

import pytest

from hermes_lint.check.engine import SourceFile, check_module
from hermes_lint.config import Config

# NAME's value is refused (an undefined function is called) and the refusal is cached by the
# evaluator, with the exception's traceback unless it is dropped.
REFUSED_NAME = b'''from tools.registry import registry

NAME = unknown_helper()
SCHEMA = {"name": "lookup", "description": "Look up.", "parameters": {"type": "object", "properties": {}}}


def handle(args, **kwargs):
    return "ok"


def check():
    return True


registry.register(name=NAME, toolset="t", schema=SCHEMA, handler=handle, check_fn=check)
'''


@pytest.fixture
def saved_garbage():
    """What each collection finds is kept in ``gc.garbage`` instead of freed."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_cached_refusal_leaves_no_cycle(saved_garbage):
    result = check_module(SourceFile("tools/lookup_tool.py", REFUSED_NAME), Config())
    gc.collect()
    (registration,) = result.facts.registrations
    assert registration.name.reason == "call to undefined function unknown_helper"
    assert saved_garbage == []


def test_the_collector_runs_again_after_a_file(saved_garbage):
    was_enabled = gc.isenabled()
    check_module(SourceFile("tools/lookup_tool.py", REFUSED_NAME), Config())
    assert gc.isenabled() == was_enabled


def test_a_paused_collector_stays_paused():
    gc.disable()
    try:
        check_module(SourceFile("tools/lookup_tool.py", REFUSED_NAME), Config())
        assert not gc.isenabled()
    finally:
        gc.enable()


# The schema is read from another module of the project: the module's evaluator keeps an
# evaluator of that module, which points back at the one that imports it.
IMPORTING_SCHEMA = b'''from tools.registry import registry
from tools.shared import SCHEMA


def handle(args, **kwargs):
    return "ok"


registry.register(name="lookup", toolset="t", schema=SCHEMA, handler=handle, check_fn=lambda: True)
'''
SHARED = b'''SCHEMA = {"name": "lookup", "description": "Look up.", "parameters": {"type": "object", "properties": {}}}
'''


def test_an_imported_module_s_evaluator_leaves_no_cycle(tmp_path, saved_garbage):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "shared.py").write_bytes(SHARED)
    result = check_module(SourceFile("tools/lookup_tool.py", IMPORTING_SCHEMA), Config(project_root=str(tmp_path)))
    gc.collect()
    (registration,) = result.facts.registrations
    assert registration.schema["description"] == "Look up."
    assert dict(result.facts.read_modules)["tools/shared.py"] == hashlib.sha256(SHARED).hexdigest()
    assert saved_garbage == []
