"""The check_fn cache of a ``ToolRegistry``: each check *function* probed at most once per TTL,
a failure within the grace window after its last success answering True.

Run by every ``get_definitions`` (a start builds the definitions once), so it is imported on
the first check and kept small. The windows are ``tools.registry``'s ``_CHECK_FN_TTL_SECONDS``
and ``_CHECK_FN_FAILURE_GRACE_SECONDS`` (upstream's names), read at each call so that patching
them works as there; the clock is the registry's, else ``tools.registry.time.monotonic``.
"""

from __future__ import annotations

from tools import registry as _registry
from tools.registry import _logger

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    from tools.registry import ToolRegistry
    from tools.tool_entry import ToolEntry


def available(registry: ToolRegistry, entry: ToolEntry, checked: dict[int, bool] | None = None) -> bool:
    """``entry``'s check, probed through the cache; ``checked`` memoizes one pass (a failure in
    the grace window is not cached, and one pass must not probe it twice)."""
    fn = entry.check_fn
    if fn is None:
        return True
    if checked is None:
        return registry._check_fn_cached(fn)
    key = id(fn)
    if key not in checked:
        checked[key] = registry._check_fn_cached(fn)
    return checked[key]


def check_fn_cached(registry: ToolRegistry, fn: Callable[[], object]) -> bool:
    """``bool(fn())``, probed at most once per TTL per check function.

    A probe that raises counts as False (logged). A failing probe within the grace window
    after the function's last success answers True and is not cached (the next request
    probes again); past it, the failure is cached like a success.
    """
    now = registry._clock() if registry._clock is not None else _registry.time.monotonic()
    key = _check_key(fn)
    with registry._check_lock:
        cached = registry._check_results.get(key)
    if cached is not None and now - cached[0] < _registry._CHECK_FN_TTL_SECONDS:
        return cached[1]
    passed, failure = _probe(fn)
    with registry._check_lock:
        if passed:
            registry._check_last_good[key] = now
            registry._check_results[key] = (now, True, fn)
            return True
        last_good = registry._check_last_good.get(key)
        in_grace = last_good is not None and now - last_good < _registry._CHECK_FN_FAILURE_GRACE_SECONDS
        if not in_grace:
            registry._check_results[key] = (now, False, fn)
    if in_grace:
        _logger().warning("check_fn %s %s within %.0f s of its last success; its tools stay "
                          "available", _callable_name(fn), failure,
                          _registry._CHECK_FN_FAILURE_GRACE_SECONDS)
    elif failure is not _RETURNED_FALSE:
        # A plain False (a key not configured) is the everyday case, and logging costs
        # start-up time: only a check that raised is worth a warning.
        _logger().warning("check_fn %s %s; its tools are unavailable", _callable_name(fn),
                          failure)
    return in_grace


def _check_key(fn: object) -> object:
    """The cache key of a check function: itself, or its id when it is not hashable."""
    try:
        hash(fn)
    except TypeError:
        return ("unhashable", id(fn))
    return fn


def _callable_name(fn: object) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)


_RETURNED_FALSE = "returned False"


def _probe(fn: Callable[[], object]) -> tuple[bool, str]:
    """``(bool(fn()), what went wrong)``; an exception is a failure, never raised."""
    try:
        return bool(fn()), _RETURNED_FALSE
    except Exception as exc:
        return False, f"raised {type(exc).__name__}: {exc}"
