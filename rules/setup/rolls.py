"""The dice of the set-up, each with its rule: the climate zone and the season (R4.1.1–2),
who chooses his territory (R2.2.3), who places his holdings first (R2.3.1) and the feature of
a holding (R2.4, 2D6; a Burial Mound's relic, 1D6).

Each function takes the injected `Dice` and leaves one ledger entry per die, so that a set-up
roll made on the web can be shown with its rule and replayed from its seed.
"""

from __future__ import annotations

from rules import tables as T
from rules.dice import Dice
from rules.types import Climate, Season

# R4.1.1: 1–2 cold, 3–4 temperate, 5–6 torrid
CLIMATE_BY_ROLL: dict[int, Climate] = {
    1: Climate.COLD,
    2: Climate.COLD,
    3: Climate.TEMPERATE,
    4: Climate.TEMPERATE,
    5: Climate.TORRID,
    6: Climate.TORRID,
}

# R4.1.2: the temperate table (1–2 spring, 3 summer, 4–5 autumn, 6 winter) and the torrid one
# (1–3 great rains, 4–5 dry season; the 6 the source leaves out is dry too [SR], A-14)
SEASON_BY_ROLL: dict[Climate, dict[int, Season]] = {
    Climate.TEMPERATE: {
        1: Season.SPRING,
        2: Season.SPRING,
        3: Season.SUMMER,
        4: Season.AUTUMN,
        5: Season.AUTUMN,
        6: Season.WINTER,
    },
    Climate.TORRID: {
        1: Season.GREAT_RAINS,
        2: Season.GREAT_RAINS,
        3: Season.GREAT_RAINS,
        4: Season.DRY,
        5: Season.DRY,
        6: Season.DRY,
    },
}

# R4.1.2 cold zones are always winter; R4.1.3 [SR] deserts always the dry season: no roll
SEASON_FIXED: dict[Climate, Season] = {Climate.COLD: Season.WINTER, Climate.DESERT: Season.DRY}


def climate_roll(dice: Dice) -> Climate:
    """R4.1.1: one 1D6, once, when the map is drawn."""
    rec = dice.roll(
        purpose="setup:climate",
        rule="R4.1.1",
        judge=lambda total, _n: ("climate", {"climate": CLIMATE_BY_ROLL[total].value}),
    )
    return CLIMATE_BY_ROLL[rec.total or 0]


def season_roll(dice: Dice, climate: Climate) -> Season:
    """R4.1.2: the season of the campaign (R4.1.4: fixed for all of it). A cold zone or a
    desert has its season without a die, and nothing is recorded for it."""
    fixed = SEASON_FIXED.get(climate)
    if fixed is not None:
        return fixed
    table = SEASON_BY_ROLL[climate]
    rec = dice.roll(
        purpose=f"setup:season:{climate.value}",
        rule="R4.1.2",
        judge=lambda total, _n: ("season", {"season": table[total].value}),
    )
    return table[rec.total or 0]


def opposed_roll(dice: Dice, *, rule: str, purpose: str, first: str, second: str) -> str:
    """Both players roll 1D6, re-rolling ties until they differ ([SR] R2.2.3, R2.3.1); the
    id of the one with the higher roll. Each die is one ledger entry naming its player."""
    while True:
        a = dice.roll(purpose=f"{purpose}:{first}", rule=rule).total or 0
        b = dice.roll(purpose=f"{purpose}:{second}", rule=rule).total or 0
        if a != b:
            return first if a > b else second


# R2.4 Burial Mound: the 1D6 of the great warrior's relic (Ars Arcana 3.16.3–7, ch. 6)
BURIAL_MOUND_RELICS: dict[int, str] = {
    1: "sacred-sword",
    2: "sacred-spear",
    3: "sacred-armour",
    4: "sacred-shield",
    5: "sacred-helm",
    6: "sacred-magic-armour",
}


def holding_feature_roll(dice: Dice, holding_id: str) -> tuple[str, str | None]:
    """R2.4 [NARAN]: the owner rolls 2D6 once for each holding; a Burial Mound then rolls
    1D6 for its relic. (feature, relic or None)."""
    rec = dice.roll(
        purpose=f"setup:feature:{holding_id}",
        rule="R2.4",
        count=2,
        judge=lambda total, _n: ("holding-feature", {"feature": T.HOLDING_FEATURES[total]}),
    )
    feature = T.HOLDING_FEATURES[rec.total or 0]
    if feature != "burial-mound":
        return feature, None
    relic = dice.roll(
        purpose=f"setup:relic:{holding_id}",
        rule="R2.4",
        judge=lambda total, _n: ("relic", {"relic": BURIAL_MOUND_RELICS[total]}),
    )
    return feature, BURIAL_MOUND_RELICS[relic.total or 0]
