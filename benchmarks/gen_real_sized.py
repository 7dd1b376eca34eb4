"""Tool modules shaped like real ones: the ``--real-sized`` mode of ``gen_corpus.py``.

Published agent tool modules are 500-4,000 lines: several registrations per file (some with
``lambda`` handlers adapting ``args`` to a keyword-argument implementation), long schemas with
descriptions written as implicitly concatenated strings, nested object and array properties, a
shared property built by a module function, optional imports with ``lambda`` fallbacks (and
their ``# noqa`` comments), and mostly code that is not about registration at all: helper
functions, a class or two, constants. This module writes fresh code of that shape (no real code
is copied): each file 500-3,000 lines, sizes drawn log-uniformly, like a real tools directory's,
and the project stays clean under ``hermes-lint check``.
"""

from __future__ import annotations

import math
import random
from typing import List, Tuple

MIN_LINES, MAX_LINES = 500, 3000

AREAS = ["browser", "kanban", "memory", "terminal", "vision", "calendar", "archive", "search",
         "mailbox", "notebook", "ledger", "sensor", "gallery", "planner", "inventory", "transit"]
ACTIONS = ["show", "list", "create", "update", "close", "fetch", "scan", "sync", "export", "summarise",
           "navigate", "snapshot", "attach", "resolve"]
EMOJI = ["📋", "🔎", "🧭", "📦", "🗂️", "🛰️", "🧮", "📨"]
SENTENCES = [
    "Read the record's full state: title, body, owner, linked records and recent events.",
    "Use this to orient yourself before changing anything, especially when retrying.",
    "The response includes a pre-formatted summary suitable for quoting verbatim.",
    "Results are ordered by relevance unless an explicit order is requested.",
    "Large results are truncated; ask for a narrower range instead of paging blindly.",
    "Identifiers are stable across sessions and may be stored for later calls.",
    "Errors are returned as a JSON object with an `error` key and never raised.",
    "Timestamps are ISO 8601 in UTC; durations are given in seconds.",
]

HELPER_TEMPLATES = [
    '''def _normalise_{s}(value: str, limit: int = {n}) -> str:
    """Collapse whitespace and cut ``value`` to ``limit`` characters."""
    text = " ".join(str(value).split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"
''',
    '''def _parse_window_{s}(spec, default: int = {n}) -> int:
    """A time window such as ``90``, ``"15m"`` or ``"2h"``, in seconds."""
    if spec is None:
        return default
    if isinstance(spec, int):
        return max(0, spec)
    text = str(spec).strip().lower()
    units = {{"s": 1, "m": 60, "h": 3600, "d": 86400}}
    try:
        if text and text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        return int(float(text))
    except ValueError:
        logger.debug("bad window %r, using %d", spec, default)
        return default
''',
    '''def _group_by_{s}(records, key: str = "status"):
    """Records grouped by ``key``, groups in first-seen order."""
    groups = {{}}
    for record in records:
        groups.setdefault(record.get(key, "unknown"), []).append(record)
    return [{{"key": name, "count": len(items), "items": items}} for name, items in groups.items()]
''',
    '''def _redact_{s}(text: str) -> str:
    """Hide anything that looks like a secret before it reaches the model."""
    patterns = (
        r"(?i)(api[_-]?key|token|secret)[=:]\\s*\\S+",
        r"\\b[A-Za-z0-9]{{32,}}\\b",
    )
    for pattern in patterns:
        text = re.sub(pattern, "[redacted]", text)
    return text
''',
    '''def _render_table_{s}(rows, columns=("id", "title", "status")) -> str:
    """A plain-text table of ``rows`` (mappings), one line per row."""
    if not rows:
        return "(no rows)"
    widths = [max(len(str(row.get(column, ""))) for row in rows) for column in columns]
    widths = [max(width, len(column)) for width, column in zip(widths, columns)]
    header = "  ".join(column.ljust(width) for column, width in zip(columns, widths))
    lines = [header, "  ".join("-" * width for width in widths)]
    for row in rows:
        lines.append("  ".join(str(row.get(c, "")).ljust(w) for c, w in zip(columns, widths)))
    return "\\n".join(lines)
''',
    '''def _retry_{s}(action, attempts: int = {k}, delay: float = 0.{k}):
    """Call ``action`` until it succeeds or ``attempts`` run out; the last error is raised."""
    last_error = None
    for attempt in range(attempts):
        try:
            return action()
        except (OSError, TimeoutError) as exc:
            last_error = exc
            logger.info("attempt %d of %d failed: %s", attempt + 1, attempts, exc)
            time.sleep(delay * (2 ** attempt))
    raise RuntimeError(f"gave up after {{attempts}} attempts") from last_error
''',
    '''def _merge_settings_{s}(base: dict, override: dict) -> dict:
    """``base`` updated by ``override``, nested mappings merged rather than replaced."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge_settings_{s}(merged[key], value)
        else:
            merged[key] = value
    return merged
''',
    '''def _cache_path_{s}(name: str) -> pathlib.Path:
    """Where results named ``name`` are kept between calls."""
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:{k}]
    base = pathlib.Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser()
    return base / "{area}" / f"{{digest}}.json"
''',
    '''def _load_cached_{s}(name: str, max_age: int = {n}):
    """The cached result named ``name`` when younger than ``max_age`` seconds, else None."""
    path = _cache_path_{s}(name)
    try:
        if time.time() - path.stat().st_mtime > max_age:
            return None
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None
''',
    '''def _sorted_records_{s}(records, order: str = "newest"):
    """``records`` in the requested order; unknown orders keep the input order."""
    keys = {{
        "newest": lambda record: record.get("updated", ""),
        "oldest": lambda record: record.get("updated", ""),
        "title": lambda record: str(record.get("title", "")).lower(),
    }}
    if order not in keys:
        return list(records)
    return sorted(records, key=keys[order], reverse=order == "newest")
''',
]

CLASS_TEMPLATE = '''class _{Area}Session{s}:
    """A connection to the {area} service, opened lazily and reused between calls."""

    def __init__(self, endpoint: str, timeout: float = {k}.0):
        self.endpoint = endpoint.rstrip("/")
        self.timeout = timeout
        self._opened = False
        self._calls = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{area} session {{self.endpoint}} calls={{self._calls}}>"

    def _open(self) -> None:
        with self._lock:
            if not self._opened:
                logger.debug("opening %s", self.endpoint)
                self._opened = True

    def request(self, path: str, params=None) -> dict:
        """One request; the result is a mapping, errors included."""
        self._open()
        self._calls += 1
        query = urllib.parse.urlencode(sorted((params or {{}}).items()))
        url = f"{{self.endpoint}}/{{path.lstrip('/')}}" + (f"?{{query}}" if query else "")
        return {{"url": url, "status": 200, "items": []}}

    def close(self) -> None:
        with self._lock:
            self._opened = False


'''

PROPERTY_KINDS = [
    ('"{p}": {{\n    "type": "string",\n    "description": (\n        "{d1} "\n        "{d2}"\n    ),\n}},', "str"),
    ('"{p}": {{\n    "type": "integer",\n    "description": "{d1}",\n    "minimum": 1,\n    "maximum": {n},\n}},',
     "int"),
    ('"{p}": {{\n    "type": "boolean",\n    "description": "{d1}",\n    "default": False,\n}},', "bool"),
    ('"{p}": {{\n    "type": "string",\n    "enum": ["newest", "oldest", "title"],\n'
     '    "description": "{d1}",\n}},', "enum"),
    ('"{p}": {{\n    "type": "array",\n    "items": {{"type": "string"}},\n    "description": "{d1}",\n}},', "list"),
    ('"{p}": {{\n    "type": "object",\n    "description": "{d1}",\n    "properties": {{\n'
     '        "since": {{"type": "string", "description": "Start, ISO 8601."}},\n'
     '        "until": {{"type": "string", "description": "End, ISO 8601."}},\n    }},\n}},', "dict"),
]
PROPERTY_NAMES = ["query", "record_id", "limit", "include_archived", "order", "labels", "window", "owner",
                  "title", "body", "page", "verbose", "fields", "note", "target"]


def _sentence(rng: random.Random) -> str:
    return rng.choice(SENTENCES).replace('"', "'")


def _lines_target(rng: random.Random) -> int:
    """Log-uniform between the bounds: most files near the low end, a few very long."""
    return int(math.exp(rng.uniform(math.log(MIN_LINES + 60), math.log(MAX_LINES - 150))))


def _tool_block(area: str, action: str, suffix: str, toolset: str, rng: random.Random,
                shared: str) -> Tuple[str, List[str]]:
    """(tool name, lines of its constants, schema, handler and registration)."""
    name = f"{area}_{action}_{suffix}"
    upper = name.upper()
    props = rng.sample(PROPERTY_NAMES, rng.randint(3, 8))
    kinds = [PROPERTY_KINDS[rng.randrange(len(PROPERTY_KINDS))] for _ in props]
    kinds[0] = PROPERTY_KINDS[0]  # the required one: a string, without a default (HRM314)
    required = [props[0]]
    out: List[str] = []
    add = out.append
    add(f"{upper}_SCHEMA = {{")
    add(f'    "name": "{name}",')
    add('    "description": (')
    for _ in range(rng.randint(3, 7)):
        add(f'        "{_sentence(rng)} "')
    add(f'        "{_sentence(rng)}"')
    add("    ),")
    add('    "parameters": {')
    add('        "type": "object",')
    add('        "properties": {')
    for prop, (template, _) in zip(props, kinds):
        text = template.format(p=prop, d1=_sentence(rng), d2=_sentence(rng), n=rng.choice([20, 50, 100, 500]))
        out.extend("            " + line for line in text.split("\n"))
    add(f'            "scope": {shared}(),')
    add("        },")
    add(f'        "required": {required!r},'.replace("'", '"'))
    add("    },")
    add("}")
    add("")
    add("")
    lambda_handler = rng.random() < 0.35
    impl = f"_{name}_impl" if lambda_handler else f"_handle_{name}"
    if lambda_handler:
        params = ", ".join(f"{prop}=None" for prop in props)
        add(f"def {impl}({params}, scope=None, task_id=None):")
    else:
        add(f"def {impl}(args: dict, **kw) -> str:")
    add(f'    """{action.title()} {area} records; the result is JSON, errors as ``{{"error": ...}}``."""')
    if not lambda_handler:
        for prop in props + ["scope"]:
            add(f'    {prop} = args.get("{prop}")')
    first = props[0]
    add(f"    if not {first}:")
    add(f'        return json.dumps({{"error": "{first} is required"}})')
    add("    started = time.monotonic()")
    add("    try:")
    add("        session = _session_for(task_id)" if lambda_handler else '        session = _session_for(kw.get("task_id"))')
    add(f'        reply = session.request("/{area}/{action}", {{"q": str({first}), "scope": scope}})')
    add("    except (OSError, ValueError) as exc:")
    add(f'        logger.warning("{name} failed: %s", exc)')
    add(f'        return json.dumps({{"error": f"{name} failed: {{exc}}"}})')
    add('    items = [item for item in reply.get("items", []) if item]')
    add("    result = {")
    add(f'        "tool": "{name}",')
    for prop in props:
        add(f'        "{prop}": {prop},')
    add('        "count": len(items),')
    add('        "elapsed": round(time.monotonic() - started, 3),')
    add("    }")
    add("    return json.dumps(result, ensure_ascii=False)")
    add("")
    add("")
    registration = [
        "registry.register(",
        f'    name="{name}",',
        f'    toolset="{toolset}",',
        f"    schema={upper}_SCHEMA,",
    ]
    if lambda_handler:
        call = ", ".join(f'{prop}=args.get("{prop}")' for prop in props)
        registration += [
            f"    handler=lambda args, **kw: {impl}(",
            f'        {call}, scope=args.get("scope"), task_id=kw.get("task_id")',
            "    ),",
        ]
    else:
        registration.append(f"    handler={impl},")
    registration += [f"    check_fn=_check_{area}_available,", f'    emoji="{rng.choice(EMOJI)}",', ")", ""]
    return name, out, registration


def real_sized_source(index: int, rng: random.Random, toolsets: List[str]) -> Tuple[List[str], str]:
    """(tool names, module source) of module ``index``: ``len(toolsets)`` registrations, one per
    toolset given, in a file of 500-3,000 lines."""
    area = AREAS[index % len(AREAS)]
    suffix = f"{index:05d}"
    target = _lines_target(rng)
    out: List[str] = []
    add = out.append
    add(f'"""{area.title()} tools, module {index} of the real-sized benchmark corpus.')
    add("")
    add("Shaped like a published agent's tool module: several registrations, long schemas,")
    add("helpers and classes that have nothing to do with registration. Generated code.")
    add('"""')
    add("")
    add("from __future__ import annotations")
    add("")
    for module in ["hashlib", "json", "logging", "os", "pathlib", "re", "threading", "time", "urllib.parse"]:
        add(f"import {module}")
    add("")
    add("from tools.registry import registry")
    add("")
    add("logger = logging.getLogger(__name__)")
    add("")
    add("try:")
    add(f"    from tools.{area}_policy import check_access as _check_access")
    add("except ImportError:")
    add("    _check_access = lambda target: None  # noqa: E731 - no policy module: allow")
    add("try:")
    add(f"    from tools.{area}_safety import is_safe as _is_safe, normalise as _normalise_target")
    add("except ImportError:")
    add("    _is_safe = lambda target: False  # noqa: E731 - fail closed")
    add("    _normalise_target = lambda target: target  # noqa: E731")
    add("")
    add(f'_ENDPOINT = os.environ.get("{area.upper()}_{suffix}_ENDPOINT", "https://{area}.invalid/api")')
    add(f"_DEFAULT_LIMIT = {rng.choice([10, 20, 50])}")
    add(f"_MAX_BODY_CHARS = {rng.choice([4000, 8000, 16000])}")
    add("_SESSIONS = {}")
    add("")
    add("")
    head_end = len(out)
    shared = f"_scope_property_{suffix}"
    add(f"def {shared}():")
    add('    """The ``scope`` property every tool of this module accepts."""')
    add("    return {")
    add('        "type": "string",')
    add('        "enum": ["mine", "team", "all"],')
    add('        "description": "Whose records to consider; defaults to the caller\'s own.",')
    add("    }")
    add("")
    add("")
    add(f"def _check_{area}_available() -> bool:")
    add('    """Available when the service endpoint is configured."""')
    add("    return bool(_ENDPOINT)")
    add("")
    add("")
    add(f"def _session_for(task_id=None) -> _{area.title()}Session{suffix}:")
    add('    """The session of ``task_id`` (one per task), created on first use."""')
    add("    key = task_id or \"default\"")
    add("    if key not in _SESSIONS:")
    add(f"        _SESSIONS[key] = _{area.title()}Session{suffix}(_ENDPOINT)")
    add("    return _SESSIONS[key]")
    add("")
    add("")
    names: List[str] = []
    registrations: List[str] = []
    actions = rng.sample(ACTIONS, len(toolsets))
    for number, (action, toolset) in enumerate(zip(actions, toolsets)):
        name, block, registration = _tool_block(area, action, f"{suffix}_{number}", toolset, rng, shared)
        names.append(name)
        out.extend(block)
        registrations.extend(registration)
    add("# --- Registration ---")
    add("")
    out.extend(registrations)
    # Helpers and classes fill the file to its target length, placed before the tools.
    filler: List[str] = CLASS_TEMPLATE.format(Area=area.title(), area=area, s=suffix, k=rng.randint(2, 9)).split("\n")
    helper = 0
    while len(out) + len(filler) < target:
        template = HELPER_TEMPLATES[rng.randrange(len(HELPER_TEMPLATES))]
        if "_load_cached_" in template:  # it calls the cache-path helper of the same suffix
            filler += HELPER_TEMPLATES[7].format(s=f"{suffix}_{helper}", n=0, k=rng.randint(8, 16), area=area).split("\n") + [""]
        filler += template.format(s=f"{suffix}_{helper}", n=rng.randint(40, 400), k=rng.randint(2, 9),
                                  area=area).split("\n") + [""]
        helper += 1
    out[head_end:head_end] = filler
    return names, "\n".join(out).rstrip("\n") + "\n"
