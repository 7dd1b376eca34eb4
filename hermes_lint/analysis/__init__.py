"""Handler analysis shared by HRM101–HRM109: what a handler returns, raises and reads.

``HandlerAnalyzer.of(ctx)`` is computed once per module; ``analyses(ctx)`` gives every
registration's ``HandlerAnalysis``. What it resolves: a named ``def`` handler of the module; a
lambda (written in place or assigned to a module name), followed into the module function its
body calls; and, for return values, ``return other_module_function(...)`` followed up to
``CALL_DEPTH`` calls deep (``model.semantic``, shared with every analysis). Anything from another module, an attribute, a decorated function or a
function defined more than once is *unknown*, and unknown never gives a diagnostic.

Modules, from the bottom up (a function's own scope, its parameters and bindings, is
``model.scopes``, which the semantic model's ``local_names`` reads too):

- ``raises``: which ``raise`` no enclosing ``try`` of the function can catch;
- ``reachability``: whether the end of a function is certainly reached (falls off = returns
  None); when in doubt (a call that may never return, ``while True``) it is not;
- ``event_loops``: calls that start an event loop (``asyncio.run``, ``run_until_complete``);
- ``functions``: ``FunctionFacts`` of each module function, and name resolution inside it;
- ``narrowing``: what the tests a path has passed prove (a None ruled out);
- ``return_kinds``: the ``ValueKind`` of every return (string, envelope, awaitable, other);
- ``argument_reads``: the constant keys read from ``args``, following it into module
  functions, and whether every use is visible;
- ``handlers``: one registration's handler put together from the above;
- ``schema_properties``: the properties a registration's schema declares, and whether fixed.
- ``enum_dispatch``: which values of a schema ``enum`` a handler's ``if``/``elif`` dispatch
  returns for (HRM101).
"""
