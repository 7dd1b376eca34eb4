"""The strings of a tool definition the model reads (names, descriptions) and the characters
hidden in them that a reviewer reading the source does not see (HRM701 reports them; HRM702
looks for phrases in the text without them)."""

from __future__ import annotations

import unicodedata
from typing import Any, Iterator, List, NamedTuple, Tuple

from hermes_lint.model import Location, Registration
from hermes_lint.model.schema_walk import argument_location, locate, schema_nodes

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
    found = ctx.texts_by_registration.get(id(registration))
    recording = getattr(ctx, "located_keys", None)
    if found is None:
        # The schema keys located for the tool, kept to be noted again for each rule that
        # reads the texts (``check.tool_names`` names the tools of a finding from them).
        if not hasattr(ctx, "located_keys"):
            found = ctx.texts_by_registration[id(registration)] = (tuple(_model_texts(registration, ctx)), ())
        else:
            ctx.located_keys = []
            try:
                texts = tuple(_model_texts(registration, ctx))
                found = ctx.texts_by_registration[id(registration)] = (texts, tuple(ctx.located_keys))
            finally:
                ctx.located_keys = recording
    if recording is not None:
        recording.extend(found[1])
    return found[0]


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
