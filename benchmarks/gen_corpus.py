"""Generate a clean project of N realistic tool modules, for the speed benchmark of `check`.

    python benchmarks/gen_corpus.py N DIR [--seed S] [--real-sized]

Writes ``DIR/tools/<name>_tool.py`` for N tools, ``DIR/tools/__init__.py`` and ``DIR/toolsets.py``
listing every tool. Each tool file is 80-150 lines, shaped like the built-in tools: standard
library imports, a declarative ``check_fn`` (``return True`` or ``bool(os.getenv(...))`` with the
matching ``requires_env``), helpers, a handler that reads and validates every declared property
and returns ``json.dumps(...)`` on every path (errors as ``{"error": ...}``), and a module-level
schema with 2-5 described properties, an ``enum`` and ``required``. Schemas are written as
literals (most), with a ``**`` merge of shared properties, or built by a module function, as real
tool files do. Tools are spread over toolsets of varied sizes, some bundled by ``includes``.

With ``--real-sized``, the N files are shaped like published tool modules instead: 500-3,000
lines each, several registrations, long schemas, lambdas, helpers and classes
(``gen_real_sized.py``).

The project is clean under ``hermes-lint check`` (0 findings): it measures the common case.
Deterministic: the same N and seed write the same bytes. ``generate(n, directory, seed)`` is the
same as a function.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

MIN_LINES, MAX_LINES = 80, 150

NOUNS = [
    "invoice", "ticket", "weather", "library", "flight", "recipe", "sensor", "contract", "patient",
    "parcel", "calendar", "repository", "playlist", "warehouse", "payroll", "lease", "vehicle",
    "course", "claim", "shipment", "listing", "campaign", "device", "order",
]
VERBS = ["search", "lookup", "list", "summarise", "export", "check", "fetch", "count", "audit", "track"]
DOMAINS = [
    "billing", "support", "travel", "health", "logistics", "media", "facilities", "finance",
    "education", "devices", "marketing", "legal", "research", "operations",
]
EXTRA_IMPORTS = [
    ["re"],
    ["time"],
    ["hashlib"],
    ["pathlib"],
    ["urllib.parse"],
    ["datetime"],
    ["re", "textwrap"],
    [],
]
# One small helper per extra import, so that no import is unused (pyflakes F401).
IMPORT_HELPERS = {
    "re": 'def _words_{i}(text):\n    return re.findall(r"[\\w-]+", str(text))\n',
    "time": "def _elapsed_{i}(start):\n    return round(time.monotonic() - start, 3)\n",
    "hashlib": 'def _digest_{i}(text):\n    return hashlib.sha256(str(text).encode("utf-8")).hexdigest()[:12]\n',
    "pathlib": "def _base_name_{i}(value):\n    return pathlib.PurePosixPath(str(value)).name\n",
    "urllib.parse": 'def _quote_{i}(value):\n    return urllib.parse.quote(str(value), safe="")\n',
    "datetime": "def _today_{i}():\n    return datetime.date.today().isoformat()\n",
    "textwrap": "def _shorten_{i}(text, width=80):\n    return textwrap.shorten(str(text), width=width)\n",
}
EMOJI = ["🔎", "🧾", "📦", "📅", "🛰️", "🩺", "📚", "🚚", "💳", "🎫"]

# Property kinds: (schema lines, handler lines). ``{p}`` is the property name, ``{P}`` its
# constant prefix. Optional properties carry a default; required ones never do (HRM314).
STRING_NAMES = ["query", "text", "account", "label", "pattern", "city", "owner", "reference", "title"]
INTEGER_NAMES = ["limit", "max_results", "page", "timeout_seconds", "days", "batch_size"]
BOOLEAN_NAMES = ["include_archived", "verbose", "dry_run", "case_sensitive", "exact"]
ENUM_NAMES = ["mode", "order", "output_format", "unit", "priority"]
ENUM_VALUES = [
    ["fast", "thorough", "exact"],
    ["newest", "oldest", "relevance"],
    ["text", "markdown", "json"],
    ["metric", "imperial"],
    ["low", "normal", "high", "urgent"],
]
ARRAY_NAMES = ["tags", "fields", "ids", "regions"]
NUMBER_NAMES = ["threshold", "min_score", "ratio"]


class _Prop:
    """One schema property: how the schema declares it and how the handler reads it."""

    def __init__(self, name: str, kind: str, required: bool, rng: random.Random, noun: str):
        self.name = name
        self.kind = kind
        self.required = required
        self.const = name.upper()
        self.noun = noun
        self.enum_index = ENUM_NAMES.index(name) if kind == "enum" else 0
        self.low = rng.choice([0, 1])
        self.high = rng.choice([10, 20, 50, 100, 500])
        self.default = rng.randint(max(self.low, 1), min(self.high, 10))

    def constants(self) -> List[str]:
        if self.kind == "integer":
            return [f"{self.const}_MIN = {self.low}", f"{self.const}_MAX = {self.high}",
                    f"DEFAULT_{self.const} = {self.default}"]
        if self.kind == "enum":
            return [f"{self.const}_CHOICES = {ENUM_VALUES[self.enum_index]!r}".replace("'", '"')]
        return []

    def schema(self) -> List[str]:
        n = self.noun
        head = [f'"{self.name}": {{']
        if self.kind == "string":
            body = ['"type": "string",', f'"description": "The {self.name} to match against {n} records.",']
            if not self.required:
                body.append('"default": "",')
        elif self.kind == "integer":
            body = ['"type": "integer",', f'"description": "How many {n} entries to consider ({self.name}).",',
                    f'"minimum": {self.const}_MIN,', f'"maximum": {self.const}_MAX,']
            if not self.required:
                body.append(f'"default": DEFAULT_{self.const},')
        elif self.kind == "boolean":
            body = ['"type": "boolean",', f'"description": "Whether to apply the {self.name} option.",']
            if not self.required:
                body.append('"default": False,')
        elif self.kind == "enum":
            first = ENUM_VALUES[self.enum_index][0]
            body = ['"type": "string",', f'"description": "Which {self.name} to use for the {n} results.",',
                    f'"enum": {self.const}_CHOICES,']
            if not self.required:
                body.append(f'"default": "{first}",')
        elif self.kind == "array":
            body = ['"type": "array",', f'"description": "The {self.name} to restrict the {n} results to.",',
                    '"items": {"type": "string"},']
        else:  # number
            body = ['"type": "number",', f'"description": "The {self.name} a {n} result must reach.",',
                    '"minimum": 0,', '"maximum": 1,']
            if not self.required:
                body.append('"default": 0.5,')
        return head + ["    " + line for line in body] + ["},"]

    def read(self) -> List[str]:
        p = self.name
        err = 'return json.dumps({"error": '
        if self.kind == "string":
            if self.required:
                return [f'{p} = args.get("{p}")',
                        f"if not isinstance({p}, str) or not {p}.strip():",
                        f'    {err}"{p} must be a non-empty string"}})']
            return [f'{p} = args.get("{p}", "")', f"if not isinstance({p}, str):",
                    f'    {err}"{p} must be a string"}})']
        if self.kind == "integer":
            c = self.const
            get = f'args.get("{p}")' if self.required else f'args.get("{p}", DEFAULT_{c})'
            return [f"{p} = {get}",
                    f"if not isinstance({p}, int) or isinstance({p}, bool) or not {c}_MIN <= {p} <= {c}_MAX:",
                    f'    {err}f"{p} must be an integer between {{{c}_MIN}} and {{{c}_MAX}}"}})']
        if self.kind == "boolean":
            get = f'args.get("{p}")' if self.required else f'args.get("{p}", False)'
            return [f"{p} = {get}", f"if not isinstance({p}, bool):",
                    f'    {err}"{p} must be true or false"}})']
        if self.kind == "enum":
            first = ENUM_VALUES[self.enum_index][0]
            get = f'args.get("{p}")' if self.required else f'args.get("{p}", "{first}")'
            return [f"{p} = {get}", f"if {p} not in {self.const}_CHOICES:",
                    f'    {err}f"{p} must be one of {{{self.const}_CHOICES}}"}})']
        if self.kind == "array":
            get = f'args.get("{p}")' if self.required else f'args.get("{p}", [])'
            return [f"{p} = {get}",
                    f"if not isinstance({p}, list) or not all(isinstance(item, str) for item in {p}):",
                    f'    {err}"{p} must be a list of strings"}})']
        get = f'args.get("{p}")' if self.required else f'args.get("{p}", 0.5)'
        return [f"{p} = {get}",
                f"if not isinstance({p}, (int, float)) or isinstance({p}, bool) or not 0 <= {p} <= 1:",
                f'    {err}"{p} must be a number between 0 and 1"}})']


def _properties(rng: random.Random, noun: str) -> List[_Prop]:
    count = rng.choices([2, 3, 4, 5], weights=[30, 35, 25, 10])[0]
    props = [_Prop(rng.choice(STRING_NAMES), "string", True, rng, noun)]
    used = {props[0].name}
    enum_prop = _Prop(rng.choice(ENUM_NAMES), "enum", False, rng, noun)
    pools = [("integer", INTEGER_NAMES), ("boolean", BOOLEAN_NAMES), ("array", ARRAY_NAMES),
             ("number", NUMBER_NAMES), ("string", STRING_NAMES)]
    others: List[_Prop] = []
    while len(others) < count - 2:
        kind, names = rng.choice(pools)
        name = rng.choice(names)
        if name in used or name == enum_prop.name:
            continue
        used.add(name)
        others.append(_Prop(name, kind, rng.random() < 0.2, rng, noun))
    return props + others + [enum_prop]


HELPERS = [
    '''def _normalise_{i}(value, limit={limit}):
    """Collapse whitespace and cut ``value`` to ``limit`` words."""
    words = [word for word in str(value).split() if word]
    return " ".join(words[:limit])
''',
    '''def _score_{i}(record, needle):
    """How well ``record`` matches ``needle``: 0 (no match) to 1 (exact)."""
    text = str(record).lower()
    needle = str(needle).lower()
    if not needle:
        return 0.0
    if text == needle:
        return 1.0
    return 0.5 if needle in text else 0.0
''',
    '''def _chunk_{i}(items, size={size}):
    """Split ``items`` into lists of at most ``size`` elements."""
    chunks = []
    for start in range(0, len(items), size):
        chunks.append(list(items[start:start + size]))
    return chunks
''',
    '''def _format_row_{i}(record):
    """One result as a flat mapping the model can read."""
    return {{
        "id": str(record.get("id", "")),
        "title": str(record.get("title", ""))[:{width}],
        "updated": str(record.get("updated", "")),
    }}
''',
    '''def _dedupe_{i}(records):
    """Drop repeated records, keeping the first of each id."""
    seen = set()
    kept = []
    for record in records:
        key = record.get("id")
        if key in seen:
            continue
        seen.add(key)
        kept.append(record)
    return kept
''',
    '''def _sample_records_{i}(seed_text, count):
    """Deterministic stand-in records (the real tool would call a service here)."""
    records = []
    for number in range(count):
        records.append({{
            "id": "{noun}-%d" % number,
            "title": "%s result %d" % (seed_text, number),
            "updated": "2024-01-%02d" % (number % 28 + 1),
        }})
    return records
''',
]


class _OutOfRange(Exception):
    pass


def tool_source(index: int, rng: random.Random, toolset: str) -> Tuple[str, str]:
    """(tool name, module source) of tool ``index``: 80-150 lines (a draw that would be longer,
    e.g. five properties and several imports, is drawn again)."""
    while True:
        try:
            return _tool_source(index, random.Random(rng.getrandbits(64)), toolset)
        except _OutOfRange:
            continue


def _tool_source(index: int, rng: random.Random, toolset: str) -> Tuple[str, str]:
    noun = NOUNS[index % len(NOUNS)]
    verb = rng.choice(VERBS)
    name = f"{noun}_{verb}_{index:05d}"
    upper = name.upper()
    props = _properties(rng, noun)
    env_var = f"{noun.upper()}_{index:05d}_API_KEY" if rng.random() < 0.4 else None
    imports = sorted({"json", "logging", *(["os"] if env_var else []), *rng.choice(EXTRA_IMPORTS)})
    style = rng.choices(["literal", "merge", "builder"], weights=[70, 15, 15])[0]
    target = rng.randint(MIN_LINES + 5, MAX_LINES - 5)
    optional_helpers = [1, 2, 3, 4, 5]
    rng.shuffle(optional_helpers)

    out: List[str] = []
    add = out.append
    add(f'"""{noun.title()} {verb} tool -- {verb} {noun} records and return them as JSON.')
    add("")
    add(f"Generated tool {index} of the check benchmark; shaped like the built-in tools.")
    if env_var:
        add(f"Needs ``{env_var}``; without it the tool is left out of the model's tool list.")
    add('"""')
    add("")
    for module in imports:
        add(f"import {module}")
    add("")
    add("from tools.registry import registry")
    add("")
    add("logger = logging.getLogger(__name__)")
    add("")
    for prop in props:
        out.extend(prop.constants())
    add(f"MAX_RESULT_CHARS = {rng.choice([10_000, 20_000, 50_000])}")
    add("")
    add("")
    add("# --- Availability check ---")
    add("")
    add("")
    add(f"def check_{name}_requirements():")
    if env_var:
        add('    """Available when the service key is configured."""')
        add(f'    return bool(os.getenv("{env_var}"))')
    else:
        add('    """Always available: only the standard library is needed."""')
        add("    return True")
    add("")
    add("")
    add("# --- Helpers ---")
    add("")
    add("")
    helpers_at = len(out)
    add("# --- Handler ---")
    add("")
    add("")
    add(f"def _handle_{name}(args, **kwargs):")
    for prop in props:
        out.extend("    " + line for line in prop.read())
    if env_var:
        add(f'    api_key = os.getenv("{env_var}")')
        add("    if not api_key:")
        add(f'        return json.dumps({{"error": "{name} is not configured: {env_var} is not set"}})')
    first = props[0].name
    add("    try:")
    add(f"        normalised = _normalise_{index}({first})")
    add("    except (TypeError, ValueError) as exc:")
    add(f'        logger.warning("{name} failed: %s", exc)')
    add(f'        return json.dumps({{"error": f"{name} failed: {{exc}}"}})')
    add("    result = {")
    add(f'        "tool": "{name}",')
    for prop in props:
        add(f'        "{prop.name}": {prop.name},')
    add('        "results": [{"id": "%s-%d" % (normalised, number), "rank": number} for number in range(3)],')
    add("    }")
    add("    return json.dumps(result, ensure_ascii=False)[:MAX_RESULT_CHARS]")
    add("")
    add("")
    add("# --- Schema ---")
    add("")
    description = (f"{verb.title()} the {noun} records and return the matches with their id, title and "
                   f"last update. Use it when the user asks about {noun} data.")
    required = [prop.name for prop in props if prop.required]
    required_text = "[" + ", ".join(f'"{r}"' for r in required) + "]"
    shared = props[-1:] if style == "merge" else []
    own = props[:-1] if style == "merge" else props
    if shared:
        add(f"_SHARED_{upper}_PROPERTIES = {{")
        for prop in shared:
            out.extend("    " + line for line in prop.schema())
        add("}")
        add("")
    if style == "builder":
        add("")
        add("def _build_schema(name, description, properties, required):")
        add('    """The tool schema in the registry\'s shape."""')
        add("    return {")
        add('        "name": name,')
        add('        "description": description,')
        add('        "parameters": {"type": "object", "properties": properties, "required": required},')
        add("    }")
        add("")
        add("")
        add(f"{upper}_SCHEMA = _build_schema(")
        add(f'    "{name}",')
        add(f'    "{description}",')
        add("    {")
        for prop in own:
            out.extend("        " + line for line in prop.schema())
        add("    },")
        add(f"    {required_text},")
        add(")")
    else:
        add(f"{upper}_SCHEMA = {{")
        add(f'    "name": "{name}",')
        add('    "description": (')
        add(f'        "{verb.title()} the {noun} records and return the matches with their id, title and "')
        add(f'        "last update. Use it when the user asks about {noun} data."')
        add("    ),")
        add('    "parameters": {')
        add('        "type": "object",')
        add('        "properties": {')
        for prop in own:
            out.extend("            " + line for line in prop.schema())
        if shared:
            add(f"            **_SHARED_{upper}_PROPERTIES,")
        add("        },")
        add(f'        "required": {required_text},')
        add("    },")
        add("}")
    add("")
    add("# --- Registration ---")
    add("")
    add("registry.register(")
    add(f'    name="{name}",')
    add(f'    toolset="{toolset}",')
    add(f"    schema={upper}_SCHEMA,")
    add(f"    handler=_handle_{name},")
    add(f"    check_fn=check_{name}_requirements,")
    if env_var:
        add(f'    requires_env=["{env_var}"],')
    add(f'    emoji="{rng.choice(EMOJI)}",')
    add("    max_result_size_chars=MAX_RESULT_CHARS,")
    add(")")
    # The handler needs helper 0; optional helpers, then small filler ones, bring the file
    # to its target length.

    def helper_lines(helper: int, suffix) -> List[str]:
        text = HELPERS[helper].format(i=suffix, limit=rng.randint(8, 64), size=rng.randint(5, 50),
                                      width=rng.randint(40, 200), noun=noun)
        return text.splitlines() + ["", ""]

    helpers = helper_lines(0, index)
    for module in imports:
        if module in IMPORT_HELPERS:
            helpers += IMPORT_HELPERS[module].format(i=index).splitlines() + ["", ""]
    for helper in optional_helpers:
        lines = helper_lines(helper, index)
        if len(out) + len(helpers) + len(lines) <= target:
            helpers += lines
    extra = 0
    while len(out) + len(helpers) < MIN_LINES or len(out) + len(helpers) + 7 <= target:
        helpers += helper_lines(2, f"{index}_{extra}")
        extra += 1
    out[helpers_at:helpers_at] = helpers
    if not MIN_LINES <= len(out) <= MAX_LINES:
        raise _OutOfRange(name)
    return name, "\n".join(out) + "\n"


def _toolsets(count: int, rng: random.Random) -> List[str]:
    """Each tool's toolset: a domain-named set, sizes varying from one tool to dozens."""
    number = max(1, min(len(DOMAINS) * 8, count // 7 + 1))
    names = [f"{DOMAINS[k % len(DOMAINS)]}" + (f"_{k // len(DOMAINS)}" if k >= len(DOMAINS) else "")
             for k in range(number)]
    weights = [rng.choice([1, 2, 3, 5, 8]) for _ in names]
    chosen = names[: min(count, number)]  # no toolset left empty
    chosen += rng.choices(names, weights=weights, k=count - len(chosen))
    rng.shuffle(chosen)
    return chosen


def toolsets_source(members: Dict[str, List[str]], rng: random.Random) -> str:
    lines = ['"""Toolsets of the generated benchmark project: tool names grouped by domain."""', "",
             "TOOLSETS = {"]
    names = list(members)
    for name in names:
        lines += [f'    "{name}": {{', f'        "description": "Tools for {name.replace("_", " ")} work",',
                  '        "tools": [']
        lines += [f'            "{tool}",' for tool in members[name]]
        lines += ["        ],", '        "includes": [],', "    },"]
    # Bundles: a few toolsets that only include others (no cycles: bundles include base sets).
    bundles = max(1, len(names) // 6)
    for number in range(bundles):
        included = rng.sample(names, min(len(names), rng.randint(2, 5)))
        lines += [f'    "bundle_{number}": {{', f'        "description": "Bundle {number} of related toolsets",',
                  '        "tools": [],', '        "includes": [']
        lines += [f'            "{name}",' for name in included]
        lines += ["        ],", "    },"]
    lines += ['    "everything": {', '        "description": "Every generated tool",', '        "tools": [],',
              '        "includes": [']
    lines += [f'            "{name}",' for name in names]
    lines += ["        ],", "    },", "}"]
    return "\n".join(lines) + "\n"


# Registrations per real-sized module: mostly one or two, a few modules with many.
REGISTRATIONS_PER_MODULE = ([1, 2, 3, 4, 6, 10], [40, 25, 15, 10, 6, 4])


def generate(n: int, directory, seed: int = 0, real_sized: bool = False) -> List[Path]:
    """Write the project into ``directory``; return the tool files written, in order."""
    rng = random.Random(seed)
    root = Path(directory)
    tools_dir = root / "tools"
    tools_dir.mkdir(parents=True, exist_ok=True)
    (tools_dir / "__init__.py").write_text('"""Generated benchmark tools."""\n', encoding="utf-8")
    if real_sized:
        return _generate_real_sized(n, root, rng)
    assignments = _toolsets(n, rng)
    members: Dict[str, List[str]] = {}
    written: List[Path] = []
    for index in range(n):
        name, source = tool_source(index, rng, assignments[index])
        members.setdefault(assignments[index], []).append(name)
        path = tools_dir / f"{name}_tool.py"
        path.write_text(source, encoding="utf-8")
        written.append(path)
    ordered = {name: members[name] for name in sorted(members)}
    (root / "toolsets.py").write_text(toolsets_source(ordered, rng), encoding="utf-8")
    return written


def _generate_real_sized(n: int, root: Path, rng: random.Random) -> List[Path]:
    from gen_real_sized import real_sized_source

    counts = rng.choices(*REGISTRATIONS_PER_MODULE, k=n)
    assignments = _toolsets(sum(counts), rng)
    members: Dict[str, List[str]] = {}
    written: List[Path] = []
    start = 0
    for index, count in enumerate(counts):
        toolsets = assignments[start : start + count]
        start += count
        names, source = real_sized_source(index, random.Random(rng.getrandbits(64)), toolsets)
        for name, toolset in zip(names, toolsets):
            members.setdefault(toolset, []).append(name)
        path = root / "tools" / f"{names[0]}_tool.py"
        path.write_text(source, encoding="utf-8")
        written.append(path)
    ordered = {name: members[name] for name in sorted(members)}
    (root / "toolsets.py").write_text(toolsets_source(ordered, rng), encoding="utf-8")
    return written


def main(argv: Sequence[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help="number of tool modules")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--real-sized", action="store_true",
                        help="files shaped like published tool modules (500-3,000 lines, several tools)")
    options = parser.parse_args(argv)
    written = generate(options.n, options.directory, options.seed, options.real_sized)
    print(f"wrote {len(written)} tool modules and toolsets.py under {options.directory}")


if __name__ == "__main__":
    main()
