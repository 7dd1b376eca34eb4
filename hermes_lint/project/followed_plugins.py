"""What following a plugin's ``register`` found (``plugin_register.follow_plugin``): the
functions that receive its context and what could not be followed. Plain data, apart from the
following itself, so that a run that reads them back from a record (``sites_codec``) does not
import the name resolution that produced them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

from hermes_lint.project.plugins import PluginSpec


@dataclass(frozen=True)
class RegisterFunction:
    """A function that receives the plugin context (``receives="ctx"``) or the context's
    ``register_tool`` (``"register_tool"``) in ``parameter`` when the loader calls ``register``."""

    plugin: str
    path: str  # the module's file, relative to the project root
    function: str  # qualified name in that module: "register", "Plugin.register", "_add_tools"
    parameter: str
    receives: str
    line: int  # of its ``def``
    # each call that hands it the context, when all are calls of the function by name: (line,
    # col) in its own module, (line, col, path, dotted module, ((parameter, name), ...)) in
    # another, naming the module-level names it passes (``plugin_arguments``); else None
    call_sites: Optional[Tuple[Tuple[Any, ...], ...]] = None


@dataclass(frozen=True)
class Unfollowed:
    """Where the context (or its ``register_tool``) goes somewhere that cannot be read."""

    plugin: str
    path: str
    line: int
    col: int
    reason: str


@dataclass(frozen=True)
class FollowedPlugin:
    spec: PluginSpec
    functions: Tuple[RegisterFunction, ...]
    unfollowed: Tuple[Unfollowed, ...]
    # Why the loader would call no ``register(ctx)`` (None: it calls ``functions[0]``, or no
    # module was found, which ``spec.register_module`` says).
    problem: Optional[str] = None
    read: Tuple[str, ...] = ()  # every module file read to follow ``register``
