"""The words of the dice ledger: what a roll was for, its modifiers' reasons, its outcome and
its per-die details, in the active language."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from campaign.text.labels import (
    FEATURE,
    PHASE,
    QUALITY,
    SEASON,
    STATUS,
    TERRITORY,
    WEATHER,
    in_sentence,
    label,
)

# what a ledger roll was for, by its purpose: "<phase>:<kind>" where the kind is the first
# words of the purpose's last part ("movement:initiative-r1": initiative)
ROLL_KIND: Mapping[str, Any] = {
    "weather:map": gettext_lazy("Weather over the map"),
    "weather:force": gettext_lazy("Weather of one force"),
    "orders:first-player": gettext_lazy("Who tests his forces first"),
    "orders:force": gettext_lazy("Force test"),
    "movement:initiative": gettext_lazy("Initiative"),
    "movement:force": gettext_lazy("Movement total"),
    "battle:scenery": gettext_lazy("Scenery"),
    "battle:ammo": gettext_lazy("Ammunition"),
    "after:wounded": gettext_lazy("Wounded who recover"),
    "after:deserters": gettext_lazy("Deserters"),
    "attrition:wounded": gettext_lazy("Wounded who recover"),
    "attrition:deserters": gettext_lazy("Deserters"),
    "will-to-fight:player": gettext_lazy("Will to fight"),
    "events:snow-day": gettext_lazy("Snow"),
    "events:day": gettext_lazy("Random event"),
    "events:general": gettext_lazy("Event for a general"),
}


def roll_kind(purpose: str) -> str:
    """What a roll was for, from its purpose ("movement:initiative-r1": "Initiative"); the
    phase's name for a purpose the table does not know."""
    phase = purpose.split(":", 1)[0]
    last = purpose.rsplit(":", 1)[-1]
    for key in sorted((k for k in ROLL_KIND if k.startswith(f"{phase}:")), key=len, reverse=True):
        kind = key.split(":", 1)[1]
        if last == kind or last.startswith(f"{kind}-"):
            return str(ROLL_KIND[key])
    return label(PHASE, phase)


# --- the rules' own words in the dice ledger ---------------------------------------------------
# The rules engine writes a roll's modifier reasons, outcome and per-die details in English
# ("leader CV", "2 recovered, 1 dead", "4→5: recovered"). These read them back, by their
# shapes, in the active language; a text of a shape not known here is shown as it is.

ROLL_REASON: Mapping[str, Any] = {
    "leader CV": gettext_lazy("leader's command value"),
    "leader": gettext_lazy("leader"),
    "full speed": gettext_lazy("Full Speed order"),
    "on a mountain square": gettext_lazy("on a mountain square"),
    "mountain (cancelled by pass)": gettext_lazy("mountain (cancelled by the pass)"),
    "river (cancelled by bridge)": gettext_lazy("river (cancelled by the bridge)"),
    "heavy ground": gettext_lazy("heavy ground"),
    "mounted": gettext_lazy("mounted"),
    "in rotta (shattered)": gettext_lazy("in rout (Shattered)"),
    "holds the enemy capital": gettext_lazy("holds the enemy capital"),
    "own capital held by the enemy": gettext_lazy("own capital held by the enemy"),
    "ambushed (§7.10.5)": gettext_lazy("ambushed (§7.10.5)"),
    "a unit has routed (§10.3)": gettext_lazy("a unit has routed (§10.3)"),
    "a unit was destroyed (§10.3)": gettext_lazy("a unit was destroyed (§10.3)"),
    "unfavourable light": gettext_lazy("unfavourable light"),
    "good omens": gettext_lazy("good omens"),
    "bad omens": gettext_lazy("bad omens"),
    # the unit-orders method's tests (R10.2, R10.3)
    "leader's promise kept": gettext_lazy("the leader's promise kept"),
    "leader's promise not yet kept": gettext_lazy("the leader's promise not yet kept"),
    "a unit has routed": gettext_lazy("a unit has routed"),
    "a unit was destroyed": gettext_lazy("a unit was destroyed"),
    "leader dead or fled": gettext_lazy("the leader dead or fled"),
    "unit quality (FW core)": gettext_lazy("the unit's quality (FW core)"),
    "unit is fanatic": gettext_lazy("the unit is Fanatic"),
    "delivered by the leader": gettext_lazy("delivered by the leader"),
    "delivered by a Messenger": gettext_lazy("delivered by a Messenger"),
    "different race from the deliverer": gettext_lazy("of another race than the deliverer"),
    "unit is disorganised": gettext_lazy("the unit is disorganised"),
    "unit is subject to reactions": gettext_lazy("the unit is subject to reactions"),
    "unit has no Leader (Capo)": gettext_lazy("the unit has no Leader (Capo)"),
}
FIGURE_FATE: Mapping[str, Any] = {  # one die of a wounded (R8.1) or deserter (R8.2) check
    "recovered": gettext_lazy("recovered"),
    "dead": gettext_lazy("dead"),
    "returned": gettext_lazy("returned"),
    "deserted": gettext_lazy("deserted"),
}
FIGURE_FATE_ONE: Mapping[str, Any] = {  # the same, of one die: one figure
    "recovered": pgettext_lazy("one figure", "recovered"),
    "dead": pgettext_lazy("one figure", "dead"),
    "returned": pgettext_lazy("one figure", "returned"),
    "deserted": pgettext_lazy("one figure", "deserted"),
}
FORCE_TEST_RESULT: Mapping[str, Any] = {  # R5.2, as the ledger's outcome names it
    "ok": gettext_lazy("order received"),
    "defend": gettext_lazy("Defend"),
    "destroyed": gettext_lazy("complete disaster: the force is destroyed"),
}


def _n(m: re.Match[str]) -> int:
    return int(m["n"])


def _low(table: Mapping[str, Any], value: str) -> str:
    return in_sentence(label(table, value))


_REASONS: tuple[tuple[re.Pattern[str], Any], ...] = (
    (
        re.compile(r"(?P<n>\d+) talisman\(s\) working"),
        lambda m: (
            ngettext("%(n)d talisman working", "%(n)d talismans working", _n(m)) % {"n": _n(m)}
        ),
    ),
    (re.compile(r"(?P<t>friendly|enemy|neutral) territory"), lambda m: label(TERRITORY, m["t"])),
    (
        re.compile(r"force is (?P<s>[a-z-]+)"),
        lambda m: gettext("the force is %(status)s") % {"status": label(STATUS, m["s"])},
    ),
    (
        re.compile(r"starts on (?P<f>[a-z-]+)"),
        lambda m: gettext("starts on %(feature)s") % {"feature": _low(FEATURE, m["f"])},
    ),
    (
        re.compile(r"weather: (?P<w>[a-z-]+)"),
        lambda m: gettext("weather: %(weather)s") % {"weather": _low(WEATHER, m["w"])},
    ),
    (
        re.compile(r"season: (?P<s>[a-z-]+)"),
        lambda m: gettext("season: %(season)s") % {"season": _low(SEASON, m["s"])},
    ),
    (
        re.compile(r"quality: (?P<q>[a-z-]+)"),
        lambda m: gettext("quality: %(quality)s") % {"quality": _low(QUALITY, m["q"])},
    ),
    (
        re.compile(r"ambush: (?P<a>.+)"),
        lambda m: gettext("ambush: %(ambush)s") % {"ambush": m["a"]},
    ),
    (
        re.compile(r"(?P<n>\d+) battle\(s\) won"),
        lambda m: ngettext("%(n)d battle won", "%(n)d battles won", _n(m)) % {"n": _n(m)},
    ),
    (
        re.compile(r"(?P<n>\d+) battle\(s\) lost"),
        lambda m: ngettext("%(n)d battle lost", "%(n)d battles lost", _n(m)) % {"n": _n(m)},
    ),
    (
        re.compile(r"(?P<n>\d+) enemy holding\(s\) held"),
        lambda m: (
            ngettext("%(n)d enemy holding held", "%(n)d enemy holdings held", _n(m)) % {"n": _n(m)}
        ),
    ),
    (
        re.compile(r"(?P<n>\d+) own holding\(s\) lost"),
        lambda m: (
            ngettext("%(n)d own holding lost", "%(n)d own holdings lost", _n(m)) % {"n": _n(m)}
        ),
    ),
    (
        re.compile(r"snow \((?P<n>\d+) level\(s\)(, §11\.5)?\)"),
        lambda m: (
            ngettext("snow (%(n)d level, §11.5)", "snow (%(n)d levels, §11.5)", _n(m))
            % {"n": _n(m)}
        ),
    ),
)
_OUTCOMES: tuple[tuple[re.Pattern[str], Any], ...] = (
    (re.compile(r"rolled (?P<n>\d+)"), lambda m: gettext("rolled %(n)s") % {"n": m["n"]}),
    (re.compile(r"initiative (?P<n>-?\d+)"), lambda m: gettext("initiative %(n)s") % {"n": m["n"]}),
    (
        re.compile(r"tie re-roll (?P<n>-?\d+)"),
        lambda m: gettext("tie, rolled again: %(n)s") % {"n": m["n"]},
    ),
    (
        re.compile(r"(?P<n>\d+) square\(s\)"),
        lambda m: ngettext("%(n)d square", "%(n)d squares", _n(m)) % {"n": _n(m)},
    ),
    (
        re.compile(r"(?P<n>\d+) token\(s\) \(half, rounded up\)"),
        lambda m: (
            ngettext("%(n)d token (half, rounded up)", "%(n)d tokens (half, rounded up)", _n(m))
            % {"n": _n(m)}
        ),
    ),
    (
        re.compile(r"(?P<n>\d+) token\(s\)"),
        lambda m: ngettext("%(n)d token", "%(n)d tokens", _n(m)) % {"n": _n(m)},
    ),
    (
        re.compile(r"(?P<k>\d+) (?P<kw>recovered|returned), (?P<l>\d+) (?P<lw>dead|deserted)"),
        lambda m: (
            gettext("%(kept)s %(kept_word)s, %(lost)s %(lost_word)s")
            % {
                "kept": m["k"],
                "kept_word": label(FIGURE_FATE, m["kw"]),
                "lost": m["l"],
                "lost_word": label(FIGURE_FATE, m["lw"]),
            }
        ),
    ),
    (re.compile(r"passed"), lambda m: gettext("passed")),
    (re.compile(r"complete disaster"), lambda m: gettext("complete disaster")),
    (
        re.compile(r"(?P<r>[a-z]+) → (?P<s>[a-z-]+)"),
        lambda m: (
            gettext("%(result)s: now %(status)s")
            % {
                "result": label({**FORCE_TEST_RESULT, **STATUS}, m["r"]),
                "status": label(STATUS, m["s"]),
            }
        ),
    ),
    (re.compile(r"destroyed"), lambda m: label(FORCE_TEST_RESULT, "destroyed")),
)
_DETAIL = re.compile(
    r"(?P<die>\d+)(→(?P<mod>-?\d+))?: (?P<w>recovered|dead|returned|deserted)"
    r"(?P<nat> \(natural \d\))?"
)


def _reworded(patterns: Iterable[tuple[re.Pattern[str], Any]], text: str) -> str | None:
    for pattern, words in patterns:
        m = pattern.fullmatch(text)
        if m is not None and words is not None:
            return str(words(m))
    return None


def roll_reason(reason: str) -> str:
    """A modifier's reason as the rules wrote it, in the active language."""
    if reason in ROLL_REASON:
        return str(ROLL_REASON[reason])
    return _reworded(_REASONS, reason) or reason


def roll_outcome(outcome: str) -> str:
    """A roll's outcome as the rules wrote it, in the active language (a weather row by its
    name, the force test by its result)."""
    if outcome in WEATHER:
        return label(WEATHER, outcome)
    return _reworded(_OUTCOMES, outcome) or outcome


def roll_detail(detail: str) -> str:
    """One die of a figure check ("4→5: recovered", "1: dead (natural 1)") in words."""
    m = _DETAIL.fullmatch(detail)
    if m is None:
        return detail
    word = label(FIGURE_FATE_ONE, m["w"])
    if m["nat"]:
        return gettext("%(die)s: %(fate)s (a natural %(die)s)") % {"die": m["die"], "fate": word}
    if m["mod"] is not None:
        return gettext("%(die)s, modified %(total)s: %(fate)s") % {
            "die": m["die"],
            "total": m["mod"],
            "fate": word,
        }
    return gettext("%(die)s: %(fate)s") % {"die": m["die"], "fate": word}
