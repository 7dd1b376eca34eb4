from __future__ import annotations

import unicodedata
from typing import Iterator, List, Tuple

from hermes_lint.model.context import ModuleContext
from hermes_lint.model.texts import TAG_FIRST, hidden_characters, model_texts
from hermes_lint.rules.base import Finding, Invalid, Rule


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
