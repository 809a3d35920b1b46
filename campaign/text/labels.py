"""The one place for the names people read of the rules' values: statuses, terrain, weather,
qualities, specialities, characters, battle scenarios … in the active language.

Every table is keyed by the rules enum (a `StrEnum`, so its plain value finds the same entry);
`label(table, value)` reads one and falls back to the value itself, so that a value the table
does not know (an old export, a scenario's own) still shows. The names are the rulebook's, as a
heading or table cell shows them; `in_sentence` lowers the first letter for the middle of a
sentence. Phrases that only fit a sentence ("a storm", "reached a stalemate") belong to the
sentences that use them (`campaign.text.sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

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
