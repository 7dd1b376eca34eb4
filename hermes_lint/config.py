"""Configuration: ``[tool.hermes-lint]`` in pyproject.toml, then command-line overrides.

Unknown keys are an error: a misspelt ``ingore`` silently doing nothing is worse than a refusal.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass
from functools import lru_cache
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
    """The settings of a run: ``[tool.hermes-lint]`` with the command line's overrides
    (``project_config.load_config``); ``fingerprint`` keys what is cached on them."""

    select: Tuple[str, ...] = ("HRM",)
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    tools_dir: str = "tools"
    # Directories of plugin packages whose register(ctx) registers tools (plugin_tools).
    plugin_dirs: Tuple[str, ...] = ("plugins",)
    toolsets_file: str = "toolsets.py"
    known_dynamic_tools: Tuple[str, ...] = ()
    providers: Tuple[str, ...] = ()
    max_description_length: int = 1024
    manifest: str = "tools/manifest.json"
    # Dotted names of third-party functions that read the environment variable named by their
    # first argument (``vendor.secrets.get_secret``): HRM203 counts their calls as reads.
    env_readers: Tuple[str, ...] = ()
    # Each rule's documentation page ({code}, {version} filled in); empty: the installed page.
    docs_url: str = ""
    # Glob patterns of files and directories whose diagnostics are not reported (ruff's
    # ``exclude``/``extend-exclude``; the modules are still read for the project's model).
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    # Exclude files named on the command line too (pre-commit passes them one by one).
    force_exclude: bool = False
    # Directories, relative to the root, under which the project's own imports resolve besides
    # the root itself (``src`` for a src/ layout): ruff's ``src``.
    src: Tuple[str, ...] = ()
    # The project's root directory: names imported from its own modules are evaluated from
    # their files (never imported). Empty: every import stays unknown.
    project_root: str = ""
    # A run that finds no tool registration to check exits 1 instead of 0 (``--strict``).
    strict: bool = False

    def is_selected(self, code: str, path: Optional[str] = None) -> bool:
        """Longest matching prefix wins between select and ignore (ruff's convention)."""
        selected = _longest_prefix(code, self.select + self.extend_select)
        ignored = _longest_prefix(code, self.ignore)
        if selected < 0 or ignored >= selected:
            return False
        if path is not None:
            for pattern, codes in self.per_file_ignores:
                if fnmatch.fnmatch(path, pattern) and _longest_prefix(code, codes) >= 0:
                    return False
        return True

    def is_excluded(self, path: str) -> bool:
        """``path`` (root-relative, '/'-separated) or a directory above it matches a pattern of
        ``exclude`` or ``extend-exclude``; a pattern without '/' also matches any one name."""
        patterns = self.exclude + self.extend_exclude
        if not patterns:
            return False
        parts = path.split("/")
        prefixes = ["/".join(parts[: end]) for end in range(1, len(parts) + 1)]
        for pattern in patterns:
            pattern = pattern.rstrip("/")
            if "/" in pattern:
                if any(fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes):
                    return True
            elif any(fnmatch.fnmatchcase(part, pattern) for part in parts):
                return True
        return False

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
    "extend-select": "extend_select",
    "ignore": "ignore",
    "per-file-ignores": "per_file_ignores",
    "tools-dir": "tools_dir",
    "plugin-dirs": "plugin_dirs",
    "toolsets-file": "toolsets_file",
    "known-dynamic-tools": "known_dynamic_tools",
    "providers": "providers",
    "max-description-length": "max_description_length",
    "manifest": "manifest",
    "env-readers": "env_readers",
    "docs-url": "docs_url",
    "exclude": "exclude",
    "extend-exclude": "extend_exclude",
    "force-exclude": "force_exclude",
    "src": "src",
    "strict": "strict",
}


def _codes(value: Any, key: str, where: str = "[tool.hermes-lint]", empty_ok: bool = True) -> Tuple[str, ...]:
    """Rule codes or prefixes, each checked against the catalogue: a typo must not turn the
    linter off (``select = ["HRMX"]`` would select nothing and report nothing)."""
    label = f"{where} {key}" if key else where
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{label} must be a list of rule codes")
    codes = tuple(v.strip().upper() for v in value if v.strip())
    if not codes and not empty_ok:
        raise ConfigError(f"{label} is empty: give rule codes or prefixes such as HRM1 or HRM101")
    for code in codes:
        check_code(code, label)
    return codes


@lru_cache(maxsize=None)
def known_codes() -> Tuple[str, ...]:
    """Every rule code, from the rule modules' file names (``hrmNNN_*.py``): nothing is imported."""
    import pkgutil

    rules_dir = str(Path(__file__).with_name("rules"))
    modules = pkgutil.iter_modules([rules_dir])
    return tuple(sorted(info.name[:6].upper() for info in modules if _is_rule_module(info.name)))


def _is_rule_module(name: str) -> bool:
    return len(name) > 7 and name[:3] == "hrm" and name[3:6].isdigit() and name[6] == "_"


def check_code(code: str, where: str) -> None:
    """Raise ``ConfigError`` unless ``code`` is ``ALL``, a rule code or a prefix of one."""
    codes = known_codes()
    if code == "ALL" or any(known.startswith(code) for known in codes):
        return
    # Something shaped like a whole code is most likely a mistyped code, not a prefix.
    lengths = (6,) if len(code) == 6 else range(3, 7)
    candidates = sorted({known[:length] for known in codes for length in lengths})
    close = _closest(code, candidates)
    hint = f"did you mean {close!r}?" if close else "see `hermes-lint rules`"
    raise ConfigError(f"{where}: unknown rule code or prefix {code!r} ({hint})")


def _closest(word: str, choices: Iterable[str]) -> Optional[str]:
    """The choice most like ``word`` (difflib's ratio, at least 0.6; ties go to the longer
    common prefix, then to more characters in the same places), or None."""
    import difflib

    best, best_key = None, (0.6, -1, -1)
    for choice in choices:
        ratio = difflib.SequenceMatcher(None, word, choice).ratio()
        key = (ratio, len(os.path.commonprefix([word, choice])), sum(a == b for a, b in zip(word, choice)))
        if key >= best_key and (best is None or key > best_key):
            best, best_key = choice, key
    return best


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = _closest(word, choices)
    return f"did you mean {close!r}? " if close else ""


def leaves_root(value: str) -> bool:
    """A relative path (a setting, a cache entry) that could name a file outside the project on
    some platform (absolute, a drive, '..').

    The settings come from the repository, which is data: ``manifest = "../../x"`` must not make
    ``hermes-lint manifest`` overwrite a file elsewhere."""
    from pathlib import PurePosixPath, PureWindowsPath

    windows = PureWindowsPath(value)
    return bool(windows.anchor) or PurePosixPath(value).is_absolute() or ".." in windows.parts


def config_from_table(table: Mapping[str, Any], where: str = "[tool.hermes-lint]") -> Config:
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} ({_did_you_mean(unknown[0], _KEYS)}"
            f"known: {', '.join(sorted(_KEYS))})"
        )
    values: Dict[str, Any] = {}
    for key, value in table.items():
        attr = _KEYS[key]
        if attr in ("select", "ignore", "extend_select"):
            values[attr] = _codes(value, key, where, empty_ok=attr != "select")
        elif attr == "per_file_ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where} per-file-ignores must be a table of glob = [codes]")
            values[attr] = tuple(
                (glob, _codes(codes, f'per-file-ignores "{glob}"', where)) for glob, codes in value.items()
            )
        elif attr == "docs_url":
            values[attr] = _docs_url(value, f"{where} {key}")
        elif attr == "force_exclude":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} {key} must be true or false")
            values[attr] = value
        elif attr in ("exclude", "extend_exclude", "src"):
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{where} {key} must be a list of non-empty strings")
            if attr == "src":
                for directory in value:
                    if leaves_root(directory):
                        raise ConfigError(
                            f"{where} {key}: {directory!r} must be a directory inside the project root "
                            "(relative, without '..')"
                        )
            values[attr] = tuple(value)
        elif attr in ("known_dynamic_tools", "providers", "env_readers", "plugin_dirs"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where} {key} must be a list of strings")
            values[attr] = tuple(value)
        elif attr == "strict":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} {key} must be true or false")
            values[attr] = value
        elif attr == "max_description_length":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{where} {key} must be a positive integer")
            values[attr] = value
        else:
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{where} {key} must be a non-empty string")
            if leaves_root(value):
                raise ConfigError(
                    f"{where} {key} = {value!r}: must be a path inside the project root "
                    "(relative, without '..')"
                )
            values[attr] = value
    unknown_providers = [p for p in values.get("providers", ()) if p not in KNOWN_PROVIDERS]
    if unknown_providers:
        raise ConfigError(
            f"{where}: unknown provider {unknown_providers[0]!r} "
            f"({_did_you_mean(unknown_providers[0], KNOWN_PROVIDERS)}known: {', '.join(KNOWN_PROVIDERS)})"
        )
    return Config(**values)


def _docs_url(value: Any, label: str) -> str:
    """A URL template with ``{code}``: a link that names no rule would send every diagnostic to
    one page, and a relative path would mean nothing where the report is read."""
    from urllib.parse import urlsplit

    if not isinstance(value, str) or "{code}" not in value:
        raise ConfigError(f"{label} must be a URL with {{code}} where the rule code goes "
                          "(\"https://docs.example.com/hermes-lint/{code}.md\")")
    if urlsplit(value).scheme not in ("http", "https", "file"):
        raise ConfigError(f"{label} = {value!r}: must be an http://, https:// or file:// URL")
    return value


def read_pyproject_table(root: Path) -> Optional[Mapping[str, Any]]:
    """The ``[tool.hermes-lint]`` table of ``root/pyproject.toml``, or None."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    return _tool_table(_read_toml(pyproject), pyproject)


def loads_toml(text: str) -> Dict[str, Any]:
    """``text`` as TOML, its line endings read as ``read_text()`` reads them (CRLF and a bare CR
    are LF): the one TOML reader of the settings and of the packaging files. Raises ValueError
    (``tomllib.TOMLDecodeError``, "... (at line N, column M)") or RecursionError."""
    # Imported here: a project without pyproject.toml (and a warm run) never pays for it.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib.loads(text.replace("\r\n", "\n").replace("\r", "\n"))


def toml_error(error: ValueError) -> Tuple[str, Optional[Tuple[int, int]]]:
    """The reason a ``loads_toml`` error gives and its (line, column), None when the parser
    stopped at the end of the document (``tomllib`` says where only in its message)."""
    import re

    text = str(error)
    at = re.search(r"\s*\(at line (\d+), column (\d+)\)$", text)
    if at:
        return text[: at.start()], (int(at.group(1)), int(at.group(2)))
    return text.replace("(at end of document)", "(at the end of the file)"), None


def _read_toml(path: Path) -> Mapping[str, Any]:
    from hermes_lint.regular_files import read_regular_file

    try:
        text = read_regular_file(path).decode("utf-8")
    except (OSError, ValueError) as exc:  # not a regular file, too large, not UTF-8
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    try:
        return loads_toml(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError
        reason, at = toml_error(exc)
        raise ConfigError(f"{path}{':%d:%d' % at if at else ''}: not valid TOML: {reason}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: cannot be read: nested too deeply") from None


def _tool_table(data: Mapping[str, Any], path: Path) -> Optional[Mapping[str, Any]]:
    tool = data.get("tool", {})
    table = tool.get("hermes-lint") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.hermes-lint] must be a table")
    return table


def read_config_file(path: Path) -> Mapping[str, Any]:
    """``--config PATH``: the ``[tool.hermes-lint]`` table of a pyproject.toml, or the top-level
    keys of any other TOML file (a ``hermes-lint.toml``)."""
    if not path.is_file():
        raise ConfigError(f"--config {path}: no such file")
    data = _read_toml(path)
    table = _tool_table(data, path)
    if table is not None:
        return table
    if path.name == "pyproject.toml":
        raise ConfigError(f"--config {path}: it has no [tool.hermes-lint] table")
    return data


def require_listable(directory) -> None:
    """``ConfigError`` naming ``directory`` when it exists but cannot be listed: a tools
    directory without read permission is not a project of no tools (which would pass ``check``
    and write an empty manifest)."""
    try:
        os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return  # no tools directory: a project without tool modules
    except OSError as exc:
        raise ConfigError(f"{os.fspath(directory)}: the tools directory cannot be listed: {exc.strerror or exc}") from None
