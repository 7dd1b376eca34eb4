"""Configuration: ``[tool.hermes-lint]`` in pyproject.toml, then command-line overrides.

Unknown keys are an error: a misspelt ``ingore`` silently doing nothing is worse than a refusal.
"""

from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple

# Provider rules (HRM6xx) only speak when a provider is chosen; these are the known targets.
KNOWN_PROVIDERS = (
    "openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "moonshot", "mcp", "llamacpp", "perplexity",
)


class ConfigError(Exception):
    """A configuration the user must fix (exit 2)."""


@dataclass(frozen=True)
class Config:
    select: Tuple[str, ...] = ("HRM",)
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    tools_dir: str = "tools"
    toolsets_file: str = "toolsets.py"
    known_dynamic_tools: Tuple[str, ...] = ()
    providers: Tuple[str, ...] = ()
    max_description_length: int = 1024
    manifest: str = "tools/manifest.json"
    # Dotted names of third-party functions that read the environment variable named by their
    # first argument (``vendor.secrets.get_secret``): HRM203 counts their calls as reads.
    env_readers: Tuple[str, ...] = ()
    # The project's root directory: names imported from its own modules are evaluated from
    # their files (never imported). Empty: every import stays unknown.
    project_root: str = ""

    def is_selected(self, code: str, path: Optional[str] = None) -> bool:
        """Longest matching prefix wins between select and ignore (ruff's convention)."""
        selected = _longest_prefix(code, self.select)
        ignored = _longest_prefix(code, self.ignore)
        if selected < 0 or ignored >= selected:
            return False
        if path is not None:
            for pattern, codes in self.per_file_ignores:
                if fnmatch.fnmatch(path, pattern) and _longest_prefix(code, codes) >= 0:
                    return False
        return True

    def fingerprint(self) -> str:
        """A stable text of every setting, for cache keys."""
        return repr(self)


def _longest_prefix(code: str, prefixes: Iterable[str]) -> int:
    best = -1
    for prefix in prefixes:
        if prefix == "ALL" or code.startswith(prefix):
            best = max(best, 0 if prefix == "ALL" else len(prefix))
    return best


_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "per-file-ignores": "per_file_ignores",
    "tools-dir": "tools_dir",
    "toolsets-file": "toolsets_file",
    "known-dynamic-tools": "known_dynamic_tools",
    "providers": "providers",
    "max-description-length": "max_description_length",
    "manifest": "manifest",
    "env-readers": "env_readers",
}


def _codes(value: Any, key: str) -> Tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.hermes-lint] {key} must be a list of rule codes")
    return tuple(v.strip().upper() for v in value if v.strip())


def _leaves_root(value: str) -> bool:
    """A path setting that could name a file outside the project (absolute, a drive, '..').

    The settings come from the repository, which is data: ``manifest = "../../x"`` must not make
    ``hermes-lint manifest`` overwrite a file elsewhere."""
    from pathlib import PurePosixPath, PureWindowsPath

    windows = PureWindowsPath(value)
    return bool(windows.anchor) or PurePosixPath(value).is_absolute() or ".." in windows.parts


def config_from_table(table: Mapping[str, Any], where: str = "[tool.hermes-lint]") -> Config:
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})"
        )
    values: Dict[str, Any] = {}
    for key, value in table.items():
        attr = _KEYS[key]
        if attr in ("select", "ignore"):
            values[attr] = _codes(value, key)
        elif attr == "per_file_ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where} per-file-ignores must be a table of glob = [codes]")
            values[attr] = tuple((glob, _codes(codes, key)) for glob, codes in value.items())
        elif attr in ("known_dynamic_tools", "providers", "env_readers"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where} {key} must be a list of strings")
            values[attr] = tuple(value)
        elif attr == "max_description_length":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{where} {key} must be a positive integer")
            values[attr] = value
        else:
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{where} {key} must be a non-empty string")
            if _leaves_root(value):
                raise ConfigError(
                    f"{where} {key} = {value!r}: must be a path inside the project root "
                    "(relative, without '..')"
                )
            values[attr] = value
    unknown_providers = [p for p in values.get("providers", ()) if p not in KNOWN_PROVIDERS]
    if unknown_providers:
        raise ConfigError(
            f"{where}: unknown provider {unknown_providers[0]!r} (known: {', '.join(KNOWN_PROVIDERS)})"
        )
    return Config(**values)


def read_pyproject_table(root: Path) -> Optional[Mapping[str, Any]]:
    """The ``[tool.hermes-lint]`` table of ``root/pyproject.toml``, or None."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    # Imported here: a project without pyproject.toml (and a warm run) never pays for it.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: cannot be read: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{pyproject}: cannot be read: nested too deeply") from None
    table = data.get("tool", {}).get("hermes-lint")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.hermes-lint] must be a table")
    return table


def load_config(root: Path, **overrides: Any) -> Config:
    """The project's configuration with command-line ``overrides`` (None values ignored)."""
    table = read_pyproject_table(root)
    config = config_from_table(table) if table else Config()
    changes = {key: value for key, value in overrides.items() if value is not None}
    if "select" in changes:
        changes["select"] = _codes(list(changes["select"]), "--select")
    if "ignore" in changes:
        # The command line adds to the configured ignores rather than replacing them.
        changes["ignore"] = config.ignore + _codes(list(changes["ignore"]), "--ignore")
    if "providers" in changes:
        config_from_table({"providers": list(changes["providers"])}, where="--provider")
        changes["providers"] = tuple(changes["providers"])
    changes.setdefault("project_root", str(root))
    return replace(config, **changes)


def find_root(start: Path) -> Optional[Path]:
    """The nearest directory at or above ``start`` holding toolsets.py or a [tool.hermes-lint] table."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / "toolsets.py").is_file():
            return candidate
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                if "[tool.hermes-lint" in pyproject.read_text(encoding="utf-8", errors="replace"):
                    return candidate
            except OSError:
                pass
    return None
