"""``hermes-lint lsp``: the language server an editor starts (``server``), over the rules of
``hermes-lint check`` on the open buffers (``documents``), with fixes as code actions
(``actions``, ``code_actions``) and the rules' pages on hover (``rule_pages``)."""
