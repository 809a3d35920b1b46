"""The rulebook's tables as data. Each cites its rule id and printed page."""

from __future__ import annotations

from rules.types import Climate, Feature, Quality, Season, Status, Weather

# --- R5.2 force test (p. 15) ----------------------------------------------------------------
FORCE_TEST_STATUS_MOD: dict[Status, int] = {
    Status.SHATTERED: -3,
    Status.UNSTEADY: -2,
    Status.CONFUSED: -1,
}
FORCE_TEST_MOUNTAIN = -3  # R5.2; a pass does not cancel it
FORCE_TEST_ENEMY_TERRITORY = -1
FORCE_TEST_FRIENDLY_TERRITORY = +2
FORCE_TEST_OK = 6  # 6+: requested order
FORCE_TEST_DEFEND = 4  # 4–5: Defend
# 3 Confused, 2 Unsteady, 1 Shattered, ≤0 destroyed
FORCE_TEST_REACTION: dict[int, Status] = {
    3: Status.CONFUSED,
    2: Status.UNSTEADY,
    1: Status.SHATTERED,
}

# --- R6.2 movement (p. 17; Naran p. 17, 30–31) ------------------------------------------------
# Feature modifiers of the starting square; cancellations handled in rules.checks.
MOVE_FEATURE_MOD: dict[Feature, int] = {
    Feature.MOUNTAIN: -3,  # cancelled by PASS
    Feature.FOREST: -2,
    Feature.JUNGLE: -2,  # jungle counts as forest (§6.3)
    Feature.RIVER: -1,  # cancelled by BRIDGE
    Feature.SWAMP: -1,
    Feature.DESERT: -1,  # Naran
    Feature.WASTELAND: -1,  # Naran
    Feature.CULTIVATED: -1,  # Naran
    Feature.HILL: -2,  # Naran
    Feature.ROAD: +1,  # Naran
    Feature.TRACK: +1,  # Naran
}
NARAN_FEATURES = frozenset(
    {
        Feature.DESERT,
        Feature.WASTELAND,
        Feature.CULTIVATED,
        Feature.HILL,
        Feature.ROAD,
        Feature.TRACK,
        Feature.BRIDGE,
        Feature.PASS,
        Feature.UNCULTIVATED,
    }
)
MOVE_ENEMY_TERRITORY = -1
MOVE_FRIENDLY_TERRITORY = +1
MOVE_UNSTEADY_OR_SHATTERED = -2
MOVE_FULL_SPEED = +2
MOVE_WEATHER: dict[Weather, int] = {
    Weather.FINE: 0,
    Weather.LIGHT_RAIN: -1,
    Weather.HEAVY_RAIN: -2,
    Weather.STORM: 0,  # storm: no movement at all (R4.2 table)
}
MOVE_PER_SNOW_LEVEL = -1  # R4.3.1, §11.5
MOVE_HEAVY_GROUND = -1  # R4.3.3


def movement_allowance(total: int) -> int:
    """R6.2 result table: ≤2 → 0, 3–5 → 1, 6–8 → 2, 9+ → 3."""
    if total <= 2:
        return 0
    if total <= 5:
        return 1
    if total <= 8:
        return 2
    return 3


# --- R6.5.4 / R8.5 / §1.3 escalation ----------------------------------------------------------
def escalate(status: Status) -> Status:
    """Suffering a reaction (§1.3): any order → Confused → Unsteady → Shattered."""
    if status.is_order:
        return Status.CONFUSED
    if status is Status.CONFUSED:
        return Status.UNSTEADY
    return Status.SHATTERED


# --- §4 weather (Naran p. 11–12) -------------------------------------------------------------
SEASON_MOD: dict[Season, int] = {
    Season.SPRING: +1,
    Season.SUMMER: 0,
    Season.AUTUMN: +1,  # table governs (A-14b); the p. 13 example uses +2
    Season.WINTER: +2,
    Season.GREAT_RAINS: +2,
    Season.DRY: 0,
}
CLIMATE_TABLE = ((2, Climate.COLD), (4, Climate.TEMPERATE), (6, Climate.TORRID))  # R4.1.1
TEMPERATE_SEASONS = ((2, Season.SPRING), (3, Season.SUMMER), (5, Season.AUTUMN), (6, Season.WINTER))
TORRID_SEASONS = ((3, Season.GREAT_RAINS), (6, Season.DRY))  # 6 missing → dry (R4.1.2 SR)


def weather_row(total: int) -> Weather:
    """R4.2 table, after clamping to 1..6 (R4.2.3)."""
    t = max(1, min(6, total))
    if t <= 3:
        return Weather.FINE
    return {4: Weather.LIGHT_RAIN, 5: Weather.HEAVY_RAIN, 6: Weather.STORM}[t]


WEATHER_BATTLE_EFFECTS: dict[Weather, dict[str, int | str | bool]] = {
    Weather.FINE: {},
    Weather.LIGHT_RAIN: {"missile_to_hit": -1},
    Weather.HEAVY_RAIN: {
        "missile_to_hit": -2,
        "melee_to_hit": -2,
        "unit_move": "-1/4",
        "command_zone_cm": -5,
        "change_orders_test": -1,
        "light_signals": False,
    },
    Weather.STORM: {"battle_interrupted": True},
}

# --- §8.1 wounded / §8.2 deserters ---------------------------------------------------------------
WOUNDED_TERRITORY_MOD = {"friendly": +1, "neutral": 0, "enemy": -1}
DESERTER_QUALITY_MOD: dict[Quality, int] = {
    Quality.LEVY: 0,
    Quality.AVERAGE: +1,
    Quality.VETERAN: +2,
    Quality.ELITE: +3,
}
DESERTER_SHATTERED_MOD = -1  # "in rotta"
AMBUSH_MOD = {"ambusher": +1, "ambushed": -1}  # §7.10.5
RECOVER_AT = 4  # 4–6 recovered / returns; 1–3 dead / deserted

# --- §7.9 General Retreat command test by hour (R7.9.12) ---------------------------------------
GR_HOUR_MOD = {1: -3, 2: -2, 3: -1}

# --- §9.3 reinforcements ----------------------------------------------------------------------
REINF_PER_HOLDING_PCT = 2  # R9.3.10
REINF_CAPITAL_PCT = 10  # R9.3.11
REINF_ALLOWED_QUALITIES = frozenset({Quality.LEVY, Quality.AVERAGE, Quality.VETERAN})  # R9.3.2

# --- §9.4.1 general events 3D6 (reconstructed, A-05) --------------------------------------------
GENERAL_EVENTS: dict[int, str] = {
    3: "none",
    4: "none",
    5: "reinforcements-50",
    6: "reinforcements-100",
    7: "reinforcements-150",
    8: "reinforcements-100-reroll",
    9: "hero-arrives",
    10: "hero-rouses-people",
    11: "leader-stress",
    12: "scouts",
    13: "leader-emerges",
    14: "individual-emerges",
    15: "magic-item",
    16: "ars-arcana-200",
    17: "wizard-magic-points",
    18: "wizard-joins",
}
EVENT_POINTS = {
    "reinforcements-50": 50,
    "reinforcements-100": 100,
    "reinforcements-150": 150,
    "reinforcements-100-reroll": 100,
    "hero-rouses-people": 100,
}
# §9.4.2 tribal 1D6
TRIBAL_EVENTS = {
    1: "none",
    2: "none",
    3: "none",
    4: "none",
    5: "spirit-rations",
    6: "poisoned-arrows",
}
# §9.4.3 catastrophe 1D6
CATASTROPHE_EVENTS = {
    1: "none",
    2: "none",
    3: "storm",
    4: "epidemic-holding",
    5: "epidemic-capital",
    6: "catastrophe-square",
}
CV_MAX = 6  # p. 40
CV_STRESS = 2

# --- §7.6 battlefield set-up from the map square ----------------------------------------------
SETUP_RULES: dict[Feature, str] = {
    Feature.FOREST: (
        "Forest (§7.6): double the number of forest features; all other terrain features "
        "must be woods."
    ),
    Feature.JUNGLE: (
        "Jungle counts as forest (§6.3, §7.6): double the number of forest features; all "
        "other terrain features must be woods (jungle rules of §7.11 when enabled)."
    ),
    Feature.MOUNTAIN: (
        "Mountain (§7.6): battlefield 60 × 120 cm (2 ft × 4 ft) with 1D6 terrain features."
    ),
    Feature.RIVER: "River (§7.6): one terrain feature must be a river.",
    Feature.SWAMP: "Swamp (§7.6): all other terrain features must be swamps.",
    Feature.HILL: "Hill [SR] (§7.6): set up as hilly geography (§7.7.1 row 3–4): at least 4 hills.",
}
SETUP_ALTERNATE = {
    Feature.FOREST: (
        "Forest (§7.6, alternate reading): double the number of forest features; every "
        "second other feature is a wood."
    ),
    Feature.SWAMP: "Swamp (§7.6, alternate reading): every second other feature is a swamp.",
}
SETUP_PLAIN = "Plain (§7.6): set up the battlefield as per FW core (180 × 120 cm)."

# --- §7.7 random scenery (Naran) ----------------------------------------------------------------
GEOGRAPHY = {1: "flat", 2: "flat", 3: "hilly", 4: "hilly", 5: "mountainous", 6: "mountainous"}
VEGETATION = {
    1: "grassland",
    2: "grassland",
    3: "cultivated-fields",
    4: "wood",
    5: "forest-or-jungle",
    6: "desert-or-wasteland",
}
HYDROGRAPHY = {1: "river", 2: "river", 3: "marsh", 4: "lake", 5: "swamp", 6: "swamp"}
SPECIAL_FEATURES = {
    1: "volcano",
    2: "dunes",
    3: "boulders",
    4: "isolated-mountain",
    5: "glacier-or-chasm",
    6: "glacier-or-chasm",
}
ARTIFICIAL_WORKS = {
    2: "mine-ruins-cemetery",
    3: "farm-or-village",
    4: "isolated-temple",
    5: "isolated-tower",
    6: "sanctuary",
    7: "burial-mound",
    8: "road",
    9: "bridge",
    10: "mountain-pass",
    11: "barrier",
    12: "barrier",
}

# --- §2.4 holding features 2D6 (Naran) ------------------------------------------------------------
HOLDING_FEATURES = {
    2: "sacred-wood",
    3: "tower-of-magic",
    4: "tower-of-magic",
    5: "stonehenge-temple",
    6: "stonehenge-temple",
    7: "sanctuary",
    8: "sanctuary",
    9: "burial-mound",
    10: "village",
    11: "city",
    12: "mine",
}
# §7.11 [NARAN] the battle-terrain annex (Appendices 1 and 3, p. 53–61): its topics, in the
# annex's order, and the square features that bring each to the table
TERRAIN_ANNEX: tuple[tuple[str, frozenset[str]], ...] = (
    ("forest-vs-jungle", frozenset({"forest", "jungle"})),
    ("woods-as-terrain", frozenset({"forest", "jungle"})),
    ("moving-in-woods", frozenset({"forest", "jungle"})),
    ("visibility", frozenset({"forest", "jungle"})),
    ("fighting-in-woods", frozenset({"forest", "jungle"})),
    ("command-radius", frozenset({"forest", "jungle"})),
    ("jungle-dangers", frozenset({"jungle"})),
    ("killer-trees", frozenset({"jungle"})),
    ("plateau", frozenset({"hill", "mountain"})),
    ("rocky-crest", frozenset({"hill", "mountain"})),
    ("slippery-slope", frozenset({"hill", "mountain"})),
    ("cave", frozenset({"mountain"})),
    ("djebel", frozenset({"desert"})),
    ("quicksand", frozenset({"desert", "swamp"})),
)

ARS_ARCANA_FEATURES = frozenset(
    {"sacred-wood", "tower-of-magic", "stonehenge-temple", "sanctuary", "burial-mound"}
)  # R8.7.1


def lookup[R](table: tuple[tuple[int, R], ...], value: int) -> R:
    """First row whose upper bound is ≥ value."""
    for upper, result in table:
        if value <= upper:
            return result
    return table[-1][1]
