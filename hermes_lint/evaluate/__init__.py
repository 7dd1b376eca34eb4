"""A small, bounded, safe static evaluator over one module's own AST.

Tool files build their schemas in code: constants, ``+`` and f-strings, ``**`` merges, helper
functions such as ``_build_schema("name", "desc", props)``, comprehensions over lists of literal
schemas. ``ModuleEvaluator`` computes those values from the syntax tree alone. It never calls
``eval``, never imports, never runs the analysed code: it interprets a small subset of Python over
plain values (str, int, float, bool, None, list, dict, tuple, set) and refuses everything else with
an ``Unresolved`` that says what stopped it and where.

Guarantees the rest of the toolkit relies on:

- *Never guessed.* Values are those a module has once imported. A module constant is a name
  bound exactly once, by a top-level assignment, never rebound, never declared ``global``, and
  never mutated while the module is imported: not by a statement (``X[k] = v``, ``X.update()``),
  not through an alias (``Y = X; Y.append()``, ``for s in X: s[k] = v``), and not by a module
  function that import runs (called at module level, a decorator, passed to ``map``/``sorted``
  or to another module function), followed through its locals and the functions it calls. A
  number, string or tuple of them cannot be mutated and is never refused for it. Functions that
  only run later (a handler given to ``registry.register``) do not count. Evaluating a helper that
  would change a constant's value is refused too (Python would change the constant). The body
  of ``if __name__ == "__main__":`` never runs on import: what it binds or mutates is ignored.
  Not seen: mutation by imported code, or through functions stored in containers and called from
  there at import time. A name only function bodies of its module change in place, and that it
  never reads otherwise, is write-only (``function_values``): such a change the evaluator runs is
  dropped when it cannot fail, and reading the name from another module is refused.
- *Bounded.* Each public call gets ``step_budget`` node evaluations; an evaluator as a whole gets
  ``total_step_budget``; strings, lists, integers, format widths and call depth are capped. Large
  results are refused *before* they are built (``"x" * 10**9`` allocates nothing).
- *Deterministic.* Each constant is evaluated once, with a fresh budget, so a result never
  depends on the order of calls. Iterating a set of strings (its order varies between runs) is
  refused.
- *Located.* Every dict key and list item the evaluator builds remembers the node it came from;
  ``locations_of`` turns that into JSON paths and 1-based character columns.

Values handed out are shared: a module constant is computed once and the same object is
returned each time it is asked for. Callers must not mutate results (copy them first).

Layout (``ModuleEvaluator`` is assembled from one mixin per concern):

- ``state``: what the mixins share, typed: the attributes, and the methods they call on each other
- ``evaluator``: the public entry points, module names and scopes, the node dispatch table
- ``module_index``: what the module binds, and whether anything rebinds or mutates it
- ``expressions``, ``operators``, ``text``: expression handlers
- ``calls``, ``statements``: calls, module-function bodies, the no-mutation-of-constants rule
- ``local_scopes``: nested functions (closures), when a node runs, values at a point of a body
- ``function_values``: decorators, ``functools.wraps``, attributes of functions, write-only names
- ``builtin_functions``, ``methods``: the supported builtins and methods of plain values
- ``bounds``, ``limits``: budget and size caps; ``locations``: where values come from
- ``values``, ``syntax``: internal value types; questions about the syntax tree
"""

from .evaluator import ModuleEvaluator
from .limits import BUDGET_EXCEEDED
from ..model.parsing import split_source_lines

__all__ = ["ModuleEvaluator", "split_source_lines", "BUDGET_EXCEEDED"]
