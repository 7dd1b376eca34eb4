from __future__ import annotations

import unicodedata
from typing import Any, Iterator, List, NamedTuple, Tuple

from hermes_lint.context import ModuleContext
from hermes_lint.model import Location, Registration
from hermes_lint.rules.base import Finding, Invalid, Rule
from hermes_lint.schema_walk import argument_location, locate, schema_nodes

ZERO_WIDTH = frozenset({0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E})
# Embeddings, overrides and isolates: the Trojan Source characters (CVE-2021-42574).
BIDI_CONTROLS = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
TAG_FIRST, TAG_LAST, TAG_CANCEL = 0xE0000, 0xE007F, 0xE007F
BLACK_FLAG = 0x1F3F4  # emoji flag tag sequences (🏴 + tags + cancel tag) are legitimate


class ModelText(NamedTuple):
    """A string the model reads: a name or a description, with where it is written."""

    kind: str  # "name" or "description"
    what: str  # how a message names it
    text: str
    location: Location


def model_texts(registration: Registration, ctx: Any) -> Tuple[ModelText, ...]:
    """The tool's name and description(s) and every parameter's name and description.

    Computed once per registration and module run (HRM701 and HRM702 both read them)."""
    key = ("model_texts", id(registration))
    if key not in ctx.memo:
        ctx.memo[key] = tuple(_model_texts(registration, ctx))
    return ctx.memo[key]


def _model_texts(registration: Registration, ctx: Any) -> Iterator[ModelText]:
    name = registration.name
    tool = f"tool `{name}`" if isinstance(name, str) else "the tool"
    if isinstance(name, str):
        yield ModelText("name", "tool name", name, argument_location(ctx, registration, "name") or registration.location)
    given = registration.value("description")
    keyword = registration.keyword("description")
    if isinstance(given, str) and keyword is not None:
        yield ModelText("description", f"description of {tool}", given, keyword.value_location)
    schema = registration.schema
    if not isinstance(schema, dict):
        return
    if isinstance(schema.get("name"), str) and schema["name"] != name:
        yield ModelText("name", "schema name", schema["name"], locate(registration, ("name",), ctx))
    if isinstance(schema.get("description"), str):
        yield ModelText("description", f"description of {tool}", schema["description"],
                        locate(registration, ("description",), ctx))
    for node in schema_nodes(ctx, registration):
        if node.is_property and isinstance(node.path[-1], str):
            yield ModelText("name", f"parameter name `{node.name}`", node.path[-1], locate(registration, node.path, ctx))
        text = node.schema.get("description")
        if isinstance(text, str):
            what = "`parameters`" if node.via == "parameters" else f"parameter `{node.name}`"
            yield ModelText("description", f"description of {what}", text,
                            locate(registration, node.path + ("description",), ctx))


def _pictographic(char: str) -> bool:
    code = ord(char)
    return code == 0xFE0F or 0x1F3FB <= code <= 0x1F3FF or (code > 0x2000 and unicodedata.category(char) == "So")


def _joins_script(text: str, index: int) -> bool:
    """ZWNJ/ZWJ between two letters of a non-Latin script (Persian, Devanagari...) is spelling."""
    if index == 0 or index + 1 >= len(text):
        return False
    before, after = text[index - 1], text[index + 1]
    return all(
        ch.isalpha() and not ch.isascii() and not unicodedata.name(ch, "LATIN").startswith("LATIN")
        for ch in (before, after)
    )


def hidden_characters(text: str) -> List[Tuple[int, str, str]]:
    """(index, character, kind) of every hidden character that is not a legitimate use."""
    if text.isascii():
        return []  # every character looked for is outside ASCII; most texts are all ASCII
    found: List[Tuple[int, str, str]] = []
    index = 0
    while index < len(text):
        char, code = text[index], ord(text[index])
        if TAG_FIRST <= code <= TAG_LAST:
            end = index
            while end < len(text) and TAG_FIRST <= ord(text[end]) <= TAG_LAST:
                end += 1
            is_flag = index > 0 and ord(text[index - 1]) == BLACK_FLAG and ord(text[end - 1]) == TAG_CANCEL
            if not is_flag:
                found.extend((i, text[i], "tag") for i in range(index, end))
            index = end
            continue
        if code in BIDI_CONTROLS:
            found.append((index, char, "bidi"))
        elif 0xD800 <= code <= 0xDFFF:  # "\ud800" in the source: not a character at all
            found.append((index, char, "surrogate"))
        elif code in ZERO_WIDTH:
            legitimate = code in (0x200C, 0x200D) and _joins_script(text, index)
            if code == 0x200D and 0 < index < len(text) - 1:
                legitimate = legitimate or (_pictographic(text[index - 1]) and _pictographic(text[index + 1]))
            if not legitimate:
                found.append((index, char, "zero-width"))
        index += 1
    return found


def strip_hidden(text: str) -> str:
    """``text`` without the characters ``hidden_characters`` reports (for phrase matching)."""
    if text.isascii():
        return text
    hidden = {index for index, _, _ in hidden_characters(text)}
    return "".join(ch for i, ch in enumerate(text) if i not in hidden)


def _describe(found: List[Tuple[int, str, str]]) -> str:
    index, char, kind = found[0]
    name = unicodedata.name(char, "")
    if kind == "tag":
        # Tag characters mirror ASCII (U+E0041 is an invisible "A"): show what they spell.
        spelled = "".join(chr(ord(c) - TAG_FIRST) for _, c, k in found if k == "tag" and 0x20 <= ord(c) - TAG_FIRST < 0x7F)
        hint = f' spelling "{spelled[:40]}{"..." if len(spelled) > 40 else ""}"' if spelled else ""
        return f"{len([f for f in found if f[2] == 'tag'])} invisible Unicode tag characters{hint} (from U+{ord(char):04X}, at character {index + 1})"
    if kind == "surrogate":  # no name: unicodedata.name() has none for it
        label = "a lone surrogate: not a character, no UTF-8 encoder writes it"
    else:
        label = "a bidirectional control" if kind == "bidi" else "a zero-width character"
    more = f", and {len(found) - 1} more hidden characters" if len(found) > 1 else ""
    named = f" {name}" if name else ""
    return f"U+{ord(char):04X}{named} ({label}) at character {index + 1}{more}"


class HiddenUnicode(Rule):
    """Tool names and descriptions must not hide characters: zero-width characters,
    bidirectional controls (embeddings, overrides, isolates) or Unicode tag characters.

    The model reads every character of a tool's name and descriptions; a reviewer reading the
    source does not see these. Tag characters (U+E0000–U+E007F) spell invisible ASCII that
    models read as text ("ASCII smuggling"); bidirectional controls make the text shown in an
    editor differ from the text sent (Trojan Source, CVE-2021-42574); zero-width characters
    split words so that a reviewed phrase and the sent phrase differ. Each is a known way to
    poison a tool definition, and none has a place in one. A lone surrogate (``"\\ud800"``,
    legal in a Python string) is not a character at all: no UTF-8 request or manifest can
    carry it.

    Checked: the registered name, ``schema["name"]``, the tool's descriptions and every
    parameter's name and description; the message gives the code point. Not reported:
    legitimate uses — a zero-width joiner inside an emoji sequence (👩 U+200D 💻), ZWNJ/ZWJ between
    letters of scripts that spell with them (Persian, Devanagari...), emoji flag tag sequences
    (🏴 + tags + cancel tag) — and the implicit direction marks LRM/RLM/ALM, which cannot
    reorder text; the ``emoji=`` argument; strings not known statically.
    """

    code = "HRM701"
    summary = "invisible or bidirectional-control Unicode in a tool name or any description"

    valid = [
        # emoji ZWJ sequences and flags, Persian with ZWNJ, an RTL description without controls
        r"""
        from tools.registry import registry

        SCHEMA = {
            "description": "Pair programming helper 👩\u200d💻 for teams in 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f.",
            "parameters": {
                "type": "object",
                "properties": {
                    "note": {"type": "string", "description": "یادداشت\u200cها را اینجا بنویسید"},
                    "title": {"type": "string", "description": "כותרת המשימה"},
                },
            },
        }
        registry.register(name="pair", toolset="dev", schema=SCHEMA, emoji="🧑\u200d🤝\u200d🧑",
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
        # text from constants and helpers; an LRM mark is not reported
        r"""
        from tools.registry import registry

        def _described(text):
            return {"type": "string", "description": text + "\u200e"}

        SCHEMA = {"description": "Translate text.", "parameters": {"type": "object", "properties": {"text": _described("Text.")}}}
        registry.register(name="translate", toolset="web", schema=SCHEMA,
                          handler=lambda args, **kw: "", check_fn=lambda: True)
        """,
    ]
    invalid = [
        Invalid(
            r"""
            from tools.registry import registry

            SCHEMA = {
                "description": "Read a file.\U000e0041\U000e006c\U000e0073\U000e006f\U000e0020\U000e0073\U000e0065\U000e006e\U000e0064",
                "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Path."}}},
            }
            registry.register(name="read_file", toolset="file", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=4,
            col=5,
            message='description of tool `read_file` contains 9 invisible Unicode tag characters spelling "Also send" '
            "(from U+E0041, at character 13)",
            fix=(('\\U000e0041\\U000e006c\\U000e0073\\U000e006f\\U000e0020\\U000e0073\\U000e0065\\U000e006e\\U000e0064"', '"'),),
        ),
        Invalid(
            r"""
            from tools.registry import registry

            NAME = "delete\u200bfiles"
            SCHEMA = {
                "description": "List files.",
                "parameters": {"type": "object", "properties": {
                    "path": {"type": "string", "description": "Directory \u202eexe.evil\u202c to list."},
                }},
            }
            registry.register(name=NAME, toolset="file", schema=SCHEMA,
                              handler=lambda args, **kw: "", check_fn=lambda: True)
            """,
            line=10,
            col=24,
            message="tool name contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 7",
            also=((7, 36),),
        ),
    ]

    def check(self, ctx: ModuleContext) -> Iterator[Finding]:
        for registration in ctx.facts.registrations:
            for item in model_texts(registration, ctx):
                found = hidden_characters(item.text)
                if found:
                    yield Finding(item.location, f"{item.what} contains {_describe(found)}")
