"""Scaffold: the commands that create a project's files from templates — ``new-tool``
(``tool``: a tool module, listed in toolsets.py with a libcst edit), ``new-plugin`` and a plugin's
new tool (``plugin``, ``plugin_register_edit``), ``init``'s copy of the reference runtime
(``reference_runtime``) — never overwriting a file, writing atomically."""
