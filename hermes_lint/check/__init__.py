"""Check: run the rules over the model — the module phase per file (in parallel, cached), then
the project phase over every module's facts; ``# noqa`` suppression (the comments' grammar is
``hermes_lint.noqa``)."""
