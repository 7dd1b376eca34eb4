"""The reference runtime (``tools.registry``) and the built-in tools (``tools/*_tool.py``)."""
