"""Extract: turn each parsed module into plain, frozen facts (``ModuleFacts``), over the module's
semantic model and the project's registration sites. Nothing is imported or executed.

- ``module_context``: one module's evaluator, semantic model, registry contract and facts,
  built once (``build_module_context``) for the rules, the manifest and the cache;
- ``module_facts``: the facts themselves (``extract_facts``): registrations, misplaced
  ``register`` calls, environment reads;
- ``builtin_tools``: Hermes's own tool names and hooks, read with the same extraction.
"""
