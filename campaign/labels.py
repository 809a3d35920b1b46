"""The one place for the names people read of the rules' values: statuses, terrain, weather,
qualities, specialities, characters, battle scenarios … in the active language.

Every table is keyed by the rules enum (a `StrEnum`, so its plain value finds the same entry);
`label(table, value)` reads one and falls back to the value itself, so that a value the table
does not know (an old export, a scenario's own) still shows. The names are the rulebook's, as a
heading or table cell shows them; `in_sentence` lowers the first letter for the middle of a
sentence. Phrases that only fit a sentence ("a storm", "reached a stalemate") belong to the
sentences that use them (`campaign.sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from rules import (
    Climate,
    Feature,
    IndividualKind,
    Outcome,
    Quality,
    Season,
    Speciality,
    Status,
    Territory,
    Weather,
)

STATUS: Mapping[str, Any] = {  # R5: the five statuses and the Shattered reaction
    Status.FULL_SPEED: gettext_lazy("Full Speed"),
    Status.PROBE: gettext_lazy("Probe"),
    Status.DEFEND: gettext_lazy("Defend"),
    Status.CONFUSED: gettext_lazy("Confused"),
    Status.UNSTEADY: gettext_lazy("Unsteady"),
    Status.SHATTERED: gettext_lazy("Shattered"),
}
# the one letter drawn on a force's counter on the map
STATUS_MARKER: Mapping[str, Any] = {
    Status.FULL_SPEED: pgettext_lazy("status counter for Full Speed", "F"),
    Status.PROBE: pgettext_lazy("status counter for Probe", "P"),
    Status.DEFEND: pgettext_lazy("status counter for Defend", "D"),
    Status.CONFUSED: pgettext_lazy("status counter for Confused", "C"),
    Status.UNSTEADY: pgettext_lazy("status counter for Unsteady", "U"),
    Status.SHATTERED: pgettext_lazy("status counter for Shattered", "S"),
}


def battle_number(key: object) -> str:
    """A battle's rules id ("t3-b1") as people number it: "1 of turn 3", to follow the word
    "battle" ("battle %(id)s"); an id of another shape as it is."""
    m = re.fullmatch(r"t(\d+)-b(\d+)", str(key))
    if m is None:
        return str(key)
    return gettext("%(n)s of turn %(turn)s") % {"n": m[2], "turn": m[1]}


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


# why a side tests its will to fight (R9.1): the triggers the rules record, as phrases
WTF_TRIGGER: Mapping[str, Any] = {
    "lost-battle": gettext_lazy("a lost battle"),
    "holding-lost": gettext_lazy("a holding lost"),
    "all-forces-lost": gettext_lazy("every force lost"),
    "force-test-disaster": gettext_lazy("a disastrous force test"),
}


FEATURE: Mapping[str, Any] = {  # §6.3 terrain
    Feature.OPEN: gettext_lazy("Open ground"),
    Feature.UNCULTIVATED: gettext_lazy("Uncultivated land"),
    Feature.CULTIVATED: gettext_lazy("Cultivated land"),
    Feature.HILL: gettext_lazy("Hill"),
    Feature.FOREST: gettext_lazy("Forest"),
    Feature.JUNGLE: gettext_lazy("Jungle"),
    Feature.MOUNTAIN: gettext_lazy("Mountain"),
    Feature.SWAMP: gettext_lazy("Swamp"),
    Feature.DESERT: gettext_lazy("Desert"),
    Feature.WASTELAND: gettext_lazy("Wasteland"),
    Feature.RIVER: gettext_lazy("River"),
    Feature.ROAD: gettext_lazy("Road"),
    Feature.TRACK: gettext_lazy("Caravan track"),
    Feature.BRIDGE: gettext_lazy("Bridge"),
    Feature.PASS: gettext_lazy("Mountain pass"),
    Feature.SEA: gettext_lazy("Sea"),
    Feature.LAKE: gettext_lazy("Lake"),
    Feature.NAVIGABLE: gettext_lazy("Navigable river (boats and rafts)"),
    Feature.SHIP_NAVIGABLE: gettext_lazy("River navigable by ships"),
    Feature.RAPIDS: gettext_lazy("Rapids or waterfall"),
    Feature.RIVER_MOUTH: gettext_lazy("River mouth (the river flows out here)"),
    Feature.REEFS: gettext_lazy("Reefs, islands or atolls"),
}
WEATHER: Mapping[str, Any] = {  # R4.2
    Weather.FINE: gettext_lazy("Fine"),
    Weather.LIGHT_RAIN: gettext_lazy("Light rain"),
    Weather.HEAVY_RAIN: gettext_lazy("Heavy rain"),
    Weather.STORM: gettext_lazy("Storm"),
}
TERRITORY: Mapping[str, Any] = {  # R2.2, always read inside a sentence
    Territory.FRIENDLY: gettext_lazy("friendly territory"),
    Territory.NEUTRAL: gettext_lazy("neutral territory"),
    Territory.ENEMY: gettext_lazy("enemy territory"),
}
CLIMATE: Mapping[str, Any] = {
    Climate.COLD: gettext_lazy("Cold"),
    Climate.TEMPERATE: gettext_lazy("Temperate"),
    Climate.TORRID: gettext_lazy("Torrid"),
    Climate.DESERT: gettext_lazy("Desert"),
}
SEASON: Mapping[str, Any] = {
    Season.SPRING: gettext_lazy("Spring"),
    Season.SUMMER: gettext_lazy("Summer"),
    Season.AUTUMN: gettext_lazy("Autumn"),
    Season.WINTER: gettext_lazy("Winter"),
    Season.GREAT_RAINS: gettext_lazy("Great rains"),
    Season.DRY: gettext_lazy("Dry season"),
}
QUALITY: Mapping[str, Any] = {
    Quality.LEVY: gettext_lazy("Levy"),
    Quality.AVERAGE: gettext_lazy("Average"),
    Quality.VETERAN: gettext_lazy("Veteran"),
    Quality.ELITE: gettext_lazy("Elite"),
}
SPECIALITY: Mapping[str, Any] = {
    Speciality.INFANTRY: gettext_lazy("Infantry"),
    Speciality.MISSILE: gettext_lazy("Missile troops"),
    Speciality.ARTILLERY: gettext_lazy("Artillery"),
    Speciality.CAVALRY: gettext_lazy("Cavalry"),
    Speciality.AIR_CAVALRY: gettext_lazy("Air cavalry"),
    Speciality.TERRIBLE_CREATURE: gettext_lazy("Terrible creature"),
}
INDIVIDUAL_KIND: Mapping[str, Any] = {
    IndividualKind.HERO: gettext_lazy("Hero"),
    IndividualKind.DESTROYER: gettext_lazy("Destroyer"),
    IndividualKind.SPECIAL_FIGHTER: gettext_lazy("Special fighter"),
    IndividualKind.DRUID: gettext_lazy("Druid"),
    IndividualKind.WIZARD: gettext_lazy("Wizard"),
    IndividualKind.PRIEST: gettext_lazy("Priest"),
    IndividualKind.ENCHANTRESS: gettext_lazy("Enchantress"),
    IndividualKind.SEER: gettext_lazy("Seer"),
    IndividualKind.STANDARD_BEARER: gettext_lazy("Standard-bearer"),
    IndividualKind.HERALD: gettext_lazy("Herald"),
    IndividualKind.SCOUT: gettext_lazy("Scout"),
    IndividualKind.MESSENGER: gettext_lazy("Messenger"),
    IndividualKind.ORDER_BEARER: gettext_lazy("Order-bearer"),
}
HOLDING_FEATURE: Mapping[str, Any] = {  # R2.3.5 special features of a holding
    "sacred-wood": gettext_lazy("Sacred wood"),
    "tower-of-magic": gettext_lazy("Tower of magic"),
    "stonehenge-temple": gettext_lazy("Stonehenge temple"),
    "sanctuary": gettext_lazy("Sanctuary"),
    "burial-mound": gettext_lazy("Burial mound"),
    "village": gettext_lazy("Village"),
    "city": gettext_lazy("City"),
    "mine": gettext_lazy("Precious-metal mine"),
}
RELIC: Mapping[str, Any] = {  # R2.4 a Burial Mound's relic (1D6)
    "sacred-sword": gettext_lazy("the Sacred Sword (Ars Arcana 3.16.3)"),
    "sacred-spear": gettext_lazy("the Sacred Spear (Ars Arcana 3.16.4)"),
    "sacred-armour": gettext_lazy("the Sacred Armour (Ars Arcana 3.16.5)"),
    "sacred-shield": gettext_lazy("the Sacred Shield (Ars Arcana 3.16.6)"),
    "sacred-helm": gettext_lazy("the Sacred Helm (Ars Arcana 3.16.7)"),
    "sacred-magic-armour": gettext_lazy("the Sacred Magic Armour (Ars Arcana ch. 6)"),
}
OUTCOME: Mapping[str, Any] = {  # a side's battle outcome (§7.3)
    Outcome.WON: gettext_lazy("Won"),
    Outcome.STALEMATE: gettext_lazy("Stalemate"),
    Outcome.LOST: gettext_lazy("Lost"),
}
FATE: Mapping[str, Any] = {  # a general's or character's fate in a battle (R7.1.1)
    "killed": gettext_lazy("killed"),
    "fled": gettext_lazy("fled"),
}
SCOUTING: Mapping[str, Any] = {  # §7.5
    "doubled": gettext_lazy("doubled scouting"),
    "full": gettext_lazy("full scouting"),
    "partial": gettext_lazy("partial scouting"),
    "none": gettext_lazy("no scouting"),
}
BATTLE_ROLE: Mapping[str, Any] = {
    "attacker": gettext_lazy("attacker"),
    "defender": gettext_lazy("defender"),
    "ambusher": gettext_lazy("ambusher"),
    "ambushed": gettext_lazy("ambushed"),
}
SCENARIO: Mapping[str, Any] = {  # §7.10 battle scenarios
    "raid": gettext_lazy("Raid (§7.10.1)"),
    "breakthrough": gettext_lazy("Breakthrough (§7.10.2)"),
    "chance-encounter": gettext_lazy("Chance Encounter (§7.10.3)"),
    "flank-attack": gettext_lazy("Flank Attack (§7.10.4)"),
    "ambush": gettext_lazy("Ambush (§7.10.5)"),
    "final-massacre": gettext_lazy("Final Massacre (§7.10.6)"),
}
SCENERY: Mapping[str, Any] = {  # §7.7 the Naran scenery tables
    "geography": gettext_lazy("Geography (§7.7.1)"),
    "vegetation": gettext_lazy("Vegetation (§7.7.2)"),
    "hydrography": gettext_lazy("Hydrography (§7.7.3)"),
    "special-feature": gettext_lazy("Special feature (§7.7.4)"),
    "artificial-works": gettext_lazy("Artificial works (§7.7.5)"),
}
PHASE: Mapping[str, Any] = {  # the phase a ledger roll belongs to (its purpose's prefix)
    "weather": gettext_lazy("Weather"),
    "orders": gettext_lazy("Orders"),
    "movement": gettext_lazy("Movement"),
    "battle": gettext_lazy("Battle"),
    "after": gettext_lazy("After the battle"),
    "attrition": gettext_lazy("Attrition"),
    "will-to-fight": gettext_lazy("Will to fight"),
    "events": gettext_lazy("Events"),
}


# why a campaign ended (`CampaignState.ended`; "<role>-win" is built from a scenario role),
# in a few words, and (ENDED_HOW) as the end page explains it
ENDED: dict[str, Any] = {
    "will-to-fight": gettext_lazy("Will to fight"),
    "all-surrendered": gettext_lazy("Every side surrendered"),
    "raiders-win": gettext_lazy("The Raiders brought their loot home"),
    "honourable-withdrawal": gettext_lazy("Honourable withdrawal"),
}
ENDED_HOW: dict[str, Any] = {
    "will-to-fight": gettext_lazy(
        "Every other side failed its will-to-fight test and surrendered (R9.1, R11.7.1)."
    ),
    "all-surrendered": gettext_lazy(
        "Every side failed its will-to-fight test at once: no one is left to win (R9.1)."
    ),
    "raiders-win": gettext_lazy(
        "The Raiders brought a force carrying loot into their capital's square (R11.7.2)."
    ),
    "honourable-withdrawal": gettext_lazy(
        "The campaign reached its last day: both sides withdrew with honour, a draw (R11.7.3)."
    ),
}

# OrderRefused reasons as the engine writes them (rules.phases.movement/force_tests)
REFUSAL = {
    "sacking exists only in the Incursion scenario": gettext_lazy(
        "sacking exists only in the Incursion scenario"
    ),
    "only the Raiders carry off loot": gettext_lazy("only the Raiders carry off loot"),
    "the force does not stand on an enemy holding it captured (L-a)": gettext_lazy(
        "the force does not stand on an enemy holding it captured"
    ),
    "a force under Full Speed may not declare a sack (rule 3)": gettext_lazy(
        "a force under Full Speed may not declare a sack"
    ),
    "a force carrying loot may not receive Full Speed": gettext_lazy(
        "a force carrying loot may not receive Full Speed"
    ),
    "only cavalry, chariots and flyers may receive Probe": gettext_lazy(
        "only cavalry, chariots and flyers may receive Probe"
    ),
}


def label(table: Mapping[str, Any], value: Any) -> str:
    """The name of `value` in `table` (an enum member or its plain value), in the active
    language; the value itself, dashes read as spaces, when the table does not know it."""
    if value is None:
        return "—"
    key = value.value if isinstance(value, Enum) else value
    found = table.get(key)
    return str(found) if found is not None else str(key).replace("-", " ")


def in_sentence(text: str) -> str:
    """A name for the middle of a sentence: its first letter in lower case."""
    return text[:1].lower() + text[1:]


def features_label(features: Iterable[str]) -> str:
    """The terrain of a square, for a sentence: "hill, road"; open ground when it has none."""
    names = [in_sentence(label(FEATURE, f)) for f in sorted(features)]
    return ", ".join(names) or in_sentence(label(FEATURE, Feature.OPEN))


def choices(
    table: Mapping[str, Any], members: Iterable[Enum] | None = None
) -> list[tuple[str, Any]]:
    """(value, name) pairs for a form or model field, in the table's order (or `members`')."""
    keys = [m.value for m in members] if members is not None else list(table)
    return [(str(k), table[k]) for k in keys]


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
