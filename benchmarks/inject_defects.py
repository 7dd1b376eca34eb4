"""Inject one fixable defect per tool module of a generated corpus (``gen_corpus.py``), for the
fix benchmark and the corpus test of ``check --fix --unsafe-fixes``.

    python benchmarks/inject_defects.py DIR

Each kind is a one-line edit that makes exactly one rule with a fix speak (cycling through the
kinds; a file a kind does not fit gets the next one), and HRM404: one tool taken out of
toolsets.py. Most fixes give the clean file back byte for byte (``DEFECTS[code][1]``).
Deterministic: the same corpus gets the same defects.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Callable, Dict, Optional


def _optional_with_default(text: str) -> Optional[str]:
    """A property of the module's literal schema that has a default (so it is not required)."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "properties" and isinstance(value, ast.Dict):
                    for name, prop in zip(value.keys, value.values):
                        if isinstance(prop, ast.Dict) and any(
                            isinstance(k, ast.Constant) and k.value == "default" for k in prop.keys
                        ):
                            return name.value
    return None


def _sub(pattern: str, replacement) -> Callable[[str], Optional[str]]:
    def mutate(text: str) -> Optional[str]:
        new, count = re.subn(pattern, replacement, text, count=1, flags=re.MULTILINE)
        return new if count else None

    return mutate


def _add_required_default(text: str) -> Optional[str]:
    name = _optional_with_default(text)
    if name is None:
        return None
    return _sub(r'^(\s+"required": \[[^\]\n]+)\]', lambda m: f'{m.group(1)}, "{name}"]')(text)


# code -> (mutation, whether the fix gives the clean file back exactly)
DEFECTS: Dict[str, tuple] = {
    "HRM202": (_sub(r"^(    check_fn=check_\w+_requirements),$", r"\1(),"), True),
    "HRM004": (_sub(r"^    check_fn=", "    check_func="), True),
    "HRM105": (_sub(r"^def (_handle_\w+\(args)", r"async def \1"), False),
    "HRM900": (_sub(r"^import json$", "import json  # noqa: HRM101"), True),
    "HRM303": (_sub(r'^(    "name": "\w+)",$', r'\1_old",'), True),
    "HRM305": (_sub(r'^(\s+"required": \[[^\]\n]+)\]', r'\1, "missing_param"]'), True),
    "HRM314": (_add_required_default, True),
    "HRM101": (_sub(r"^(\s+return )json\.dumps\((\{[^\n]*\})\)$", r"\1\2"), True),
    "HRM203": (_sub(r'^(    requires_env=\[)"\w+"(\],)$', r"\1\2"), True),
}


def inject(root: Path) -> Dict[str, str]:
    """Inject one defect per file, cycling through DEFECTS (a file the mutation does not fit
    gets the next kind); HRM404: a tool taken out of toolsets.py. Returns path -> code."""
    injected: Dict[str, str] = {}
    codes = list(DEFECTS)
    turn = 0
    for path in sorted((root / "tools").glob("*_tool.py")):
        text = path.read_text(encoding="utf-8")
        for attempt in range(len(codes)):
            code = codes[(turn + attempt) % len(codes)]
            new = DEFECTS[code][0](text)
            if new is not None and new != text:
                path.write_text(new, encoding="utf-8")
                injected[path.relative_to(root).as_posix()] = code
                turn = (turn + attempt + 1) % len(codes)
                break
    toolsets = root / "toolsets.py"
    listed = re.findall(r'^            "(\w+)",$', toolsets.read_text(encoding="utf-8"), flags=re.MULTILINE)
    removed = listed[len(listed) // 2]
    toolsets.write_text(toolsets.read_text(encoding="utf-8").replace(f'            "{removed}",\n', "", 1))
    injected["toolsets.py"] = "HRM404"
    return injected


if __name__ == "__main__":
    injected = inject(Path(sys.argv[1]))
    counts: Dict[str, int] = {}
    for code in injected.values():
        counts[code] = counts.get(code, 0) + 1
    print(", ".join(f"{code}: {count}" for code, count in sorted(counts.items())))
