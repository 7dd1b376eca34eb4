"""Generate a project of N realistic tool modules (for the manifest benchmark and tests).

    python benchmarks/gen_tools.py N DIR [--import-checks FRACTION] [--variety]

Writes ``DIR/tools/gen_NNNN_tool.py`` (80–150 lines each, standard-library imports such as the
built-in tools use: json, logging, os, re, subprocess, tempfile, urllib, pathlib...) and
``DIR/toolsets.py`` listing every tool, in groups of ten toolsets. Deterministic: the same
arguments write the same bytes.

Checks are declarative by default — ``return True`` (60%), an environment variable (30%: set
``GEN_NNNN_KEY`` to make the tool available) or ``importlib.util.find_spec`` (10%) — so loading
by manifest imports no module. ``--import-checks 0.1`` gives that fraction a check of kind
``import`` (``os.path.isdir(...)``, which a manifest cannot evaluate). ``--variety`` also mixes in lambda handlers, an ``and`` of
two variables, a ``"X" in os.environ`` check, a check calling another function, an async handler
and ``dynamic_schema_overrides``: the shapes the manifest must reproduce exactly.

The modules are imported as ``tools.gen_NNNN_tool``: put ``DIR/tools`` on ``tools.__path__``.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import List

IMPORT_SETS = [
    ["json", "logging", "os", "re"],
    ["json", "logging", "os", "subprocess", "tempfile"],
    ["json", "logging", "os", "urllib.error", "urllib.request"],
    ["json", "logging", "os", "fnmatch", "pathlib"],
    ["json", "logging", "os", "threading", "time"],
    ["json", "logging", "os", "signal", "sys"],
]

HEADER = '''"""{title} -- generated tool {index} for the manifest benchmark.

Looks up {noun} records and formats them; the body is filler of the size real tools have.
"""

{imports}

from tools.registry import registry{extra_registry_import}

logger = logging.getLogger(__name__)

DEFAULT_LIMIT = {limit}
MAX_LIMIT = {max_limit}
MODES = ["fast", "thorough", "exact"]
_BASE_PROPERTIES = {{
    "query": {{
        "type": "string",
        "description": "What to look for in the {noun} records.",
    }},
}}


# --- Availability check ---

{check_def}
'''

HELPER = '''
def _helper_{index}_{k}(value, limit=DEFAULT_LIMIT):
    """Normalise one {noun} value ({k})."""
    text = str(value).strip()
    if len(text) > limit:
        text = text[:limit]
    parts = [part for part in text.split() if part]
    return " ".join(parts[:limit])
'''

HANDLER = '''

# --- Handler ---


{async_kw}def _handle_{name}(args, **kwargs):
    query = args.get("query")
    limit = args.get("limit", DEFAULT_LIMIT)
    if not isinstance(query, str) or not query.strip():
        return json.dumps({{"error": "query must be a non-empty string"}})
    if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        return json.dumps({{"error": f"limit must be between 1 and {{MAX_LIMIT}}"}})
    try:
        items = [{first_helper}(f"{{query}} {{n}}") for n in range(limit)]
    except Exception as exc:
        logger.debug("{name} failed", exc_info=True)
        return json.dumps({{"error": str(exc)}})
    return json.dumps({{"tool": "{name}", "items": items, "mode": args.get("mode", "fast")}})


# --- Schema ---

{upper}_SCHEMA = {{
    "name": "{name}",
    "description": (
        "Search the {noun} records and return up to limit matches. "
        "Use it when the user asks about {noun} data."
    ),
    "parameters": {{
        "type": "object",
        "properties": {{
            **_BASE_PROPERTIES,
            "limit": {{
                "type": "integer",
                "description": "How many matches to return.",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "default": DEFAULT_LIMIT,
            }},
            "mode": {{
                "type": "string",
                "description": "How hard to search.",
                "enum": MODES,
                "default": "fast",
            }},
        }},
        "required": ["query"],
    }},
}}

{extra_defs}
# --- Registration ---

registry.register(
    name="{name}",
    toolset="{toolset}",
    schema={upper}_SCHEMA,
    handler={handler_ref},
    check_fn={check_ref},{requires_env}{extra_keywords}
    emoji="🔧",
    max_result_size_chars={max_chars},
)
'''

NOUNS = ["invoice", "ticket", "weather", "library", "flight", "recipe", "sensor", "contract", "patient", "parcel"]


def _check(index: int, name: str, rng: random.Random, import_fraction: float, variety: bool):
    """(check definition source, check_fn reference, env variables it requires, imports it needs)."""
    env = f"GEN_{index:04d}_KEY"
    func = f"check_{name}_requirements"
    if rng.random() < import_fraction:
        body = '    """Available when the root directory is one."""\n    return os.path.isdir("/")\n'
        return f"def {func}():\n{body}", func, [], []
    slot = index % 10
    if variety and slot == 1:
        second = f"GEN_{index:04d}_SECRET"
        body = f'    return os.getenv("{env}") and os.environ.get("{second}")\n'
        return f"def {func}():\n{body}", func, [env, second], []
    if variety and slot == 3:
        return f"def {func}():\n    return \"{env}\" in os.environ\n", func, [env], []
    if variety and slot == 4:
        text = (
            f"def _{func}_impl():\n    return bool(os.getenv(\"{env}\"))\n\n\n"
            f"def {func}():\n    return _{func}_impl()\n"
        )
        return text, func, [env], []
    if variety and slot == 6:
        return "", f'lambda: bool(os.getenv("{env}"))', [env], []
    if variety and slot == 9:
        variable = f"GEN_{index:04d}_SHELL"
        body = (f'    """Available when the shell {variable} names (default sh) is on PATH."""\n'
                f'    return shutil.which(os.getenv("{variable}", "sh")) is not None\n')
        return f"def {func}():\n{body}", func, [], ["shutil"]
    if slot in (2, 5, 7):
        body = f'    """Available when {env} is set."""\n    return bool(os.getenv("{env}"))\n'
        return f"def {func}():\n{body}", func, [env], []
    if slot == 8:
        package = "json" if index % 20 == 8 else f"gen_missing_package_{index:04d}"
        body = f'    """Available when {package} is installed."""\n    return importlib.util.find_spec("{package}") is not None\n'
        return f"def {func}():\n{body}", func, [], ["importlib.util"]
    body = '    """Always available: only the standard library is needed."""\n    return True\n'
    return f"def {func}():\n{body}", func, [], []


def tool_source(index: int, rng: random.Random, import_fraction: float = 0.0, variety: bool = False) -> str:
    name = f"gen_{index:04d}"
    noun = NOUNS[index % len(NOUNS)]
    check_def, check_ref, env_names, check_imports = _check(index, name, rng, import_fraction, variety)
    imports = sorted(set(IMPORT_SETS[index % len(IMPORT_SETS)]) | set(check_imports) | {"json", "logging", "os"})
    helpers = "".join(HELPER.format(index=index, k=k, noun=noun) for k in range(rng.randint(1, 6)))
    handler_ref = f"_handle_{name}"
    extra_keywords = ""
    extra_defs = ""
    async_kw = ""
    extra_registry_import = ""
    if variety and index % 10 == 5:
        handler_ref = f"lambda args, **kw: _handle_{name}(args, **kw)"
    if variety and index % 10 == 7:
        async_kw = "async "
        extra_keywords += "\n    is_async=True,"
    if variety and index % 10 == 9:
        extra_defs = (
            f"\ndef _{name}_overrides():\n"
            f'    return {{"description": "Search the {noun} records (limit " + str(MAX_LIMIT) + ")."}}\n\n'
        )
        extra_keywords += f"\n    dynamic_schema_overrides=_{name}_overrides,"
    requires_env = f"\n    requires_env={env_names!r}," if env_names else ""
    source = HEADER.format(
        title=f"{noun.title()} {index}",
        index=index,
        noun=noun,
        imports="\n".join(f"import {module}" for module in imports),
        extra_registry_import=extra_registry_import,
        limit=5 + index % 7,
        max_limit=20 + index % 13,
        check_def=check_def,
    )
    source += helpers
    source += HANDLER.format(
        name=name,
        upper=name.upper(),
        noun=noun,
        toolset=f"gen_group_{index // 10:03d}",
        handler_ref=handler_ref,
        check_ref=check_ref,
        requires_env=requires_env.replace("'", '"'),
        extra_keywords=extra_keywords,
        extra_defs=extra_defs,
        async_kw=async_kw,
        first_helper=f"_helper_{index}_0",
        max_chars=10_000 + index,
    )
    return source


def toolsets_source(count: int) -> str:
    lines = ['"""Toolsets of the generated benchmark project."""', "", "TOOLSETS = {"]
    for group in range((count + 9) // 10):
        lines.append(f'    "gen_group_{group:03d}": {{')
        lines.append(f'        "description": "Generated tools {group * 10} to {min(count, group * 10 + 10) - 1}",')
        lines.append('        "tools": [')
        for index in range(group * 10, min(count, group * 10 + 10)):
            lines.append(f'            "gen_{index:04d}",')
        lines.append("        ],")
        lines.append('        "includes": [],')
        lines.append("    },")
    lines.append('    "gen_all": {')
    lines.append('        "description": "Every generated tool",')
    lines.append('        "tools": [],')
    lines.append('        "includes": [')
    for group in range((count + 9) // 10):
        lines.append(f'            "gen_group_{group:03d}",')
    lines.append("        ],")
    lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate_corpus(root: Path, count: int, *, import_fraction: float = 0.0, variety: bool = False,
                    seed: int = 0) -> List[str]:
    """Write the project under ``root``; return the tool names in file order."""
    rng = random.Random(seed)
    tools_dir = Path(root) / "tools"
    tools_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for index in range(count):
        source = tool_source(index, rng, import_fraction, variety)
        (tools_dir / f"gen_{index:04d}_tool.py").write_text(source, encoding="utf-8")
        names.append(f"gen_{index:04d}")
    (Path(root) / "toolsets.py").write_text(toolsets_source(count), encoding="utf-8")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--import-checks", type=float, default=0.0, metavar="FRACTION")
    parser.add_argument("--variety", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    names = generate_corpus(options.directory, options.count, import_fraction=options.import_checks,
                            variety=options.variety, seed=options.seed)
    print(f"wrote {len(names)} tool modules under {options.directory / 'tools'}")


if __name__ == "__main__":
    main()
