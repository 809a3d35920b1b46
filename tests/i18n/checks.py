"""What a reader must never read (issue 29), checked on a page's visible text: English left
untranslated on an Italian page (`untranslated`), internal ids and code slugs (`internal_ids`),
and "(s)" or "/i" plural stand-ins (`stand_ins`). Each takes a text and gives the offending
pieces, so that a failure names them; `visible_text` turns HTML into that text."""

from __future__ import annotations

import dataclasses
import enum
import importlib
import pkgutil
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from django.conf import settings

PO = Path(settings.BASE_DIR) / "locale" / "it" / "LC_MESSAGES" / "django.po"

# --- visible text ----------------------------------------------------------------------------

# not read as prose: scripts, a form's raw data, and literal tokens a person types (an import
# file's vocabulary in <code>)
_HIDDEN = {"script", "style", "noscript", "head", "textarea", "code", "kbd"}
_VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr",
}  # fmt: skip
# attributes people read: a tooltip, an image's text, a field's hint, a screen reader's label
_READ_ATTRS = ("title", "alt", "placeholder", "aria-label")
_BLOCK = {
    "p", "div", "li", "tr", "td", "th", "br", "h1", "h2", "h3", "h4", "h5", "h6", "section",
    "article", "header", "footer", "nav", "main", "ul", "ol", "dl", "dt", "dd", "table",
    "option", "label", "legend", "summary", "details", "form", "fieldset", "button", "text",
    "tspan", "figcaption", "caption", "aside", "pre", "blockquote",
}  # fmt: skip


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN and tag not in _VOID:
            self.hidden += 1
        if tag in _BLOCK:
            self.parts.append("\n")
        if not self.hidden:
            for name, value in attrs:
                if name in _READ_ATTRS and value:
                    self.parts.append(f"\n{value}\n")
            if tag == "input" and dict(attrs).get("type") in ("submit", "button"):
                self.parts.append(f"\n{dict(attrs).get('value') or ''}\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _HIDDEN:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN and self.hidden:
            self.hidden -= 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    """What a reader sees of `html`: its text and the attributes people read, without scripts,
    styles, URLs or other attributes; one line per block, spaces collapsed."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = (re.sub(r"\s+", " ", line).strip() for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)


# --- (a) English left untranslated -----------------------------------------------------------

_PLACEHOLDER = re.compile(r"%\([^)]+\)[-#0 +]*\d*(?:\.\d+)?[sdrifx]|%[sdif]|\{[a-z_]*\}")
MIN_WORDS = 3


@dataclass(frozen=True)
class English:
    """One msgid of the catalogue as a pattern: its placeholders match anything short."""

    msgid: str
    pattern: re.Pattern[str]
    probe: str  # its longest literal piece: a page without it cannot hold the msgid

    def found_in(self, text: str) -> str | None:
        if self.probe not in text:
            return None
        m = self.pattern.search(text)
        return m[0] if m else None


def english_of(msgid: str) -> English | None:
    """The pattern of a msgid worth looking for: at least MIN_WORDS words of letters outside its
    placeholders, and no markup."""
    if "<" in msgid or "\n\n" in msgid:
        return None
    pieces = _PLACEHOLDER.split(" ".join(msgid.split()))
    if len(re.findall(r"[A-Za-z]{2,}", " ".join(pieces))) < MIN_WORDS:
        return None
    literal = [re.sub(r"\\ ", r"\\s+", re.escape(p)) for p in pieces]
    body = r"[^\n]{1,80}?".join(literal)
    start = r"(?<![A-Za-z])" if pieces[0][:1].isalpha() else ""
    end = r"(?![A-Za-z])" if pieces[-1][-1:].isalpha() else ""
    probe = max((p.strip() for p in pieces), key=len)
    return English(msgid, re.compile(start + body + end), probe)


def po_entries(text: str) -> Iterator[tuple[str, str, list[str]]]:
    """(msgid, msgid_plural, msgstrs) of each live entry of a .po text."""
    from tests.test_i18n import parse_po

    for e in parse_po(text):
        if e.msgid and not e.obsolete:
            yield e.msgid, e.msgid_plural or "", list(e.msgstr.values())


def english_of_catalogue(po_text: str) -> list[English]:
    """The patterns of every msgid (and plural msgid) whose Italian differs from it."""
    out: dict[str, English] = {}
    for msgid, plural, msgstrs in po_entries(po_text):
        for english in (msgid, plural):
            if english and english not in msgstrs and any(msgstrs):
                pattern = english_of(english)
                if pattern is not None:
                    out[english] = pattern
    return list(out.values())


@cache
def catalogue_english() -> tuple[English, ...]:
    return tuple(english_of_catalogue(PO.read_text(encoding="utf-8")))


def untranslated(text: str, english: Iterable[English] | None = None) -> list[str]:
    """The English sentences of the catalogue that `text` holds verbatim."""
    found = []
    for e in catalogue_english() if english is None else english:
        hit = e.found_in(text)
        if hit is not None:
            found.append(f"{hit!r} (msgid {e.msgid!r})")
    return found


# --- (b) internal ids and codes --------------------------------------------------------------

ID_PATTERNS = (
    r"\bf\d+g\d+\b",  # a general
    r"\bd\d+u\d+\b",  # a unit
    r"\bf\d+u\d+\b",
    r"\bf\d+[ci]\d+\b",  # a command, a character
    r"(?<![\w-])h\d+(?:-\d+)?(?![\w-])",  # a holding
    r"(?<![\w-])f\d+(?![\w-])",  # a force
    r"(?<![\w-])i\d+(?![\w-])",  # a scout or other individual
    r"varga-host",
    r"\bday-\d+-[a-z]+",  # a scenario's table
    r"\bleader-emerges\b",
    r"\bwill-to-fight\b(?! test)",  # "a will-to-fight test" is English prose
)
_IDS = re.compile("|".join(f"(?:{p})" for p in ID_PATTERNS))
# codes whose English name is the code itself, hyphen and all
ENGLISH_WORDS = frozenset({"order-bearer", "standard-bearer"})
_SLUG = re.compile(r"(?<![\w/.-])[A-Za-z][a-z]*(?:-[a-z]+)+(?![\w/.-])")


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > 4:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, enum.Enum):
        yield from _strings(value.value, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k, depth + 1)
            yield from _strings(v, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _strings(v, depth + 1)
    elif hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        for name in value.__dataclass_fields__:
            yield from _strings(getattr(value, name), depth + 1)


@cache
def rule_codes() -> frozenset[str]:
    """Every hyphenated code the rules expose: the values of their enums and of their tables,
    the scenarios' event and table codes."""
    import rules
    from rules.scenarios import load_scenario

    codes: set[str] = set()
    for info in pkgutil.walk_packages(rules.__path__, "rules."):
        if ".cli" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue
            if isinstance(value, type) and issubclass(value, enum.Enum):
                codes.update(s for m in value for s in _strings(m.value))
            elif isinstance(value, type) and dataclasses.is_dataclass(value):
                # the options' defaults: "by-force", "standing-orders"
                codes.update(
                    f.default for f in dataclasses.fields(value) if isinstance(f.default, str)
                )
            elif not isinstance(value, type) and not callable(value):
                codes.update(_strings(value))
    codes.update(_strings(load_scenario("incursion")))
    return frozenset(c for c in codes if re.fullmatch(r"[a-z]+(?:-[a-z]+)+", c))


def internal_ids(text: str, codes: Iterable[str] | None = None) -> list[str]:
    """The ids (f7, f7g9, d3u1, h1, i26) and rule codes (varga-host, day-7-defenders,
    will-to-fight) `text` shows, each with a little of what surrounds it."""
    known = rule_codes() if codes is None else frozenset(codes)
    hits = list(_IDS.finditer(text))
    hits += [
        m
        for m in _SLUG.finditer(text)
        if m[0].lower() in known - ENGLISH_WORDS  # "Leader-emerges" too
        and not (m[0].lower() == "will-to-fight" and text.startswith(" test", m.end()))
    ]
    hits += [m for m in _spelled(known).finditer(text)]
    spans = {m.span(): m for m in hits}
    return [_context(text, spans[s]) for s in sorted(spans)]


@cache
def _spelled(codes: frozenset[str]) -> re.Pattern[str]:
    """The codes with their dashes read as spaces ("leader emerges", "order bearer"), the
    fallback of a name nobody wrote; those the catalogue itself uses as words left out."""
    words = "\n".join(
        w.lower() for msgid, plural, msgstrs in po_entries(PO.read_text(encoding="utf-8"))
        for w in (msgid, plural, *msgstrs)
    )  # fmt: skip
    spelled = sorted(
        (c.replace("-", " ") for c in codes if c.replace("-", " ") not in words),
        key=len,
        reverse=True,
    )
    if not spelled:
        return re.compile(r"(?!x)x")
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, spelled)) + r")(?![\w-])")


def _context(text: str, m: re.Match[str]) -> str:
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.end())
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    at = m.start() - line_start
    return f"{m[0]!r} in {line[max(0, at - 50) : at + len(m[0]) + 50]!r}"


# --- (c) plural stand-ins, (d) hyphens for minus -------------------------------------------------

_STAND_INS = re.compile(r"\w\((?:s|es|i|e)\)|(?<=[a-zà-ù])/(?:i|e)\b")


def stand_ins(text: str) -> list[str]:
    """The "(s)", "/i" and "/e" plural stand-ins of `text`: "figure(s)", "quadrato/i"."""
    return [_context(text, m) for m in _STAND_INS.finditer(text)]


_HYPHEN_MINUS = re.compile(r"(?<![\w\-−/.:])-\d")


def hyphen_minus(text: str) -> list[str]:
    """Negative numbers written with a hyphen ("territory -1"), not the minus sign "−"."""
    return [_context(text, m) for m in _HYPHEN_MINUS.finditer(text)]
