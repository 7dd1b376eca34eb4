"""Write hermes_lint/data/hermes_builtin_tools.json from an unpacked hermes-agent release.

    python scripts/generate_builtin_tool_catalogue.py /path/to/hermes_agent-0.19.0

The release's ``tools/*.py`` are read with hermes-lint's own extraction and the ``VALID_HOOKS``
literal of its ``hermes_cli/plugins.py`` with ``ast`` (nothing is imported); its version is read from the release's ``PKG-INFO`` (or ``pyproject.toml``). ``--check`` compares
instead of writing and exits 1 when the catalogue differs.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from hermes_lint.atomic import write_atomic
from hermes_lint.extract.builtin_tools import CATALOGUE, catalogue_text, hooks_in_plugin_loader, tools_in_directory

OUTPUT = Path(__file__).resolve().parent.parent / "hermes_lint" / "data" / CATALOGUE


def release_version(release: Path) -> str:
    for name, pattern in (("PKG-INFO", r"^Version:\s*(\S+)"), ("pyproject.toml", r'^version\s*=\s*"([^"]+)"')):
        path = release / name
        if path.is_file():
            found = re.search(pattern, path.read_text(encoding="utf-8"), re.MULTILINE)
            if found:
                return found.group(1)
    raise SystemExit(f"{release}: no PKG-INFO or pyproject.toml with a version")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path, help="an unpacked hermes-agent release (holds tools/)")
    parser.add_argument("--check", action="store_true", help="compare with the shipped catalogue")
    args = parser.parse_args(argv)
    tools = tools_in_directory(args.release / "tools")
    if not tools:
        raise SystemExit(f"{args.release}/tools: no registrations found")
    hooks = hooks_in_plugin_loader(args.release / "hermes_cli" / "plugins.py")
    if not hooks:
        raise SystemExit(f"{args.release}/hermes_cli/plugins.py: no VALID_HOOKS literal found")
    text = catalogue_text(tools, hooks, release_version(args.release))
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} differs from {args.release}", file=sys.stderr)
            return 1
        return 0
    write_atomic(OUTPUT, text.encode("utf-8"))
    print(f"{OUTPUT}: {len(tools)} tools, {len(hooks)} hooks of hermes-agent {release_version(args.release)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
