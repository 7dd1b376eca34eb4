"""When Python's cyclic garbage collector runs during a check.

A run allocates millions of objects that reference counting frees (each file's syntax tree and
analyses: ``engine.check_module`` breaks their one cycle) or that live to the end (every
module's facts: ~25 KB each). The collector, left alone, scans both over and over: it is
triggered by allocations, and a file's syntax tree (100,000 nodes for a 3,000-line module) is
allocated at once and alive until the file is done, so it was scanned by a young collection
and again by an older one, to find nothing. At 10,000 files, decoding the cache entries took
5.7 s with the collector and 2.5 s without, the project phase 1.4 s and 0.5 s. So:

- checking one file (``one_file``), the collector does not run; what the file left behind is
  collected once at the end, among the few objects allocated for it that are still alive (the
  tree is gone by then, freed by reference counting);
- between files, the youngest generation is collected every 10,000 allocations instead of 700
  (``threshold``); while decoding cache entries or receiving the workers' results (plain data,
  in which no cycle can arise), not at all (``paused``);
- what must live to the end is frozen (``gc.freeze``: left out of every later collection) once
  it exists (``settle``), until the run returns (``freezing``). A program that freezes objects
  itself is left alone.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

_frozen_here = False


def settle() -> None:
    """Leave everything alive now out of later collections (until ``freezing`` ends)."""
    global _frozen_here
    if _frozen_here or gc.get_freeze_count() == 0:
        gc.freeze()
        _frozen_here = True


@contextmanager
def freezing() -> Iterator[None]:
    """At a public entry point: whatever ``settle`` froze inside is unfrozen at the end."""
    global _frozen_here
    outermost = not _frozen_here
    try:
        yield
    finally:
        if outermost and _frozen_here:
            gc.unfreeze()
            _frozen_here = False


@contextmanager
def threshold(first: int = 10_000) -> Iterator[None]:
    former = gc.get_threshold()
    gc.set_threshold(max(former[0], first), *former[1:])
    try:
        yield
    finally:
        gc.set_threshold(*former)


@contextmanager
def paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def one_file() -> Iterator[None]:
    """Checking one file: no collection until it is done, then one of the objects allocated
    since it began (all in the youngest generation while the collector is off), which holds
    any cycle the file's analyses left. A caller that paused the collector keeps it paused."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)


def worker_gc() -> None:
    """Worker processes: forked while this process waits with collection paused."""
    gc.enable()
    former = gc.get_threshold()
    gc.set_threshold(max(former[0], 10_000), *former[1:])
