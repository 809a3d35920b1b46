"""Data tables of the tactical engine besides the unit profiles: terrain effects, the
commander AI's thresholds, and the engine's fixed numbers. Each cites the rule it models;
[SR-T] marks a decision of the engine where the campaign rules delegate to FW core.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- the Drakerys Action Table (§10.4) ------------------------------------------------------


def threshold(action: int, opposition: int) -> int:
    """§10.4 Action Table: the D10 face needed, clamp(6 − (action − opposition), 2, 10)."""
    t = 6 - (action - opposition)
    return 2 if t < 2 else 10 if t > 10 else t


MORALE_BASE_DICE = 2  # §10.4 morale: 2D10 …
MORALE_DICE_PER = 5  # … + 1D10 per full 5 warriors still in the unit
STRESS_CAP = 3  # [SR-T] more tokens change nothing
RALLY_OPPOSITION = 3  # [SR-T] a disorganised unit out of combat rallies on Willpower vs 3 …
RALLY_OPPOSITION_DEMORALISED = 4  # … a demoralised one on Willpower vs 4 (to disorganised)
RALLY_IN_COMBAT = 1  # … one harder for a unit in a combat
LONG_RANGE = 2  # §10.4 shooting: +1 Opposition per full 10 cm: over the front, ~25 cm [SR-T]
SHORT_RANGE = 1  # … from the front line, ~10 cm
SUPPORT_POWER = 1  # §10.4: supporting warriors attack with Power 1 …
SUPPORT_PER = 2  # … [SR-T] but only one in two of the rank behind reaches the enemy
FLANK_BONUS = 1  # [SR-T] +1 Combat for a unit attacking a combat it overlaps (a flank)
WORKS_OPPOSITION = 1  # [SR-T] R7.8.4 stakes/palisades: +1 Opposition to attacks and shots
COLUMN_PENALTY = 1  # [SR-T] −1 Combat while caught in column (ambush, flank attack)
COLUMN_TURNS = 2  # [SR-T] a column needs two turns to form a line
COLUMN_RATE = 2  # [SR-T] units per side arriving each turn in a Chance Encounter column
APPROACH_TURNS = 1  # [SR-T] the armies close during the first turn: missiles only
RESERVE_SHARE = 4  # [SR-T] one front unit in four is kept in reserve (from 4 front units)

# --- terrain of the battle square (§7.6, §7.11) ---------------------------------------------


@dataclass(frozen=True, slots=True)
class TerrainEffect:
    rule: str
    horse_combat: int = 0  # Combat of mounted (non-flying) units
    horse_charge: bool = True  # may mounted units charge?
    charge: bool = True  # may anybody charge?
    cover: int = 0  # Opposition to every shot (targets in cover)
    initiative: int = 0  # every unit
    front_width: int | None = None  # combats in the front line (the rest wait in reserve)
    high_ground: int = 0  # advantage for a Defend side's combats
    crossing: int = 0  # Combat of attacking units in their first contact turn
    note: str = ""


TERRAIN: dict[str, TerrainEffect] = {
    "forest": TerrainEffect(
        "§7.6, §7.11",
        horse_combat=-1,
        horse_charge=False,
        cover=1,
        note="woods disorganise formed troops and give cover; horses cannot charge",
    ),
    "jungle": TerrainEffect(
        "§7.11",
        horse_combat=-2,
        horse_charge=False,
        cover=1,
        note="no cavalry movement in jungle: riders fight as poor infantry",
    ),
    "swamp": TerrainEffect(
        "§7.6, §7.7.3",
        horse_combat=-1,
        charge=False,
        initiative=-1,
        note="nobody charges through a swamp; everyone is slower",
    ),
    "river": TerrainEffect(
        "§7.6",
        crossing=-1,
        note="one feature must be a river: the attacker fights its first clash crossing it",
    ),
    "hill": TerrainEffect(
        "§7.6, §7.7.1",
        high_ground=1,
        note="the defender holds the high ground",
    ),
    "mountain": TerrainEffect(
        "§7.6",
        horse_combat=-1,
        horse_charge=False,
        front_width=4,
        note="a 60 × 120 cm battlefield: four combats wide at most",
    ),
}

# --- the commander AI (§7.9) ----------------------------------------------------------------

GR_RATIO = 0.5  # [SR-T] consider General Retreat below half the enemy's strength …
GR_SPENT = 0.5  # … once the army has lost half its own starting strength …
GR_DESPERATE = 0.25  # … and order it whatever the command-test risk below a quarter
GR_MAX_ROUT_RISK = 1 / 3  # [SR-T] otherwise only when the R7.9.12 test routs at most half the time
GR_PACE_TURNS = 2  # [SR-T] losses are measured over the last two turns
# Strength of a unit for the AI: figures × profile value × condition.
CONDITION_STRESS = 0.1
CONDITION_DISORGANISED = 0.15
CONDITION_DEMORALISED = 0.15

# --- command tests (§10.3 table, R7.9.1, R7.9.12, §7.10.5–6) --------------------------------

COMMAND_OK = 7  # 7+ the command is OK
COMMAND_DISORGANISED = 6  # 6 all its units disorganised
COMMAND_DEMORALISED = 5  # 5 all its units demoralised; 4 or less it routs
COMMAND_ROUTED_MOD = -1  # any unit has routed (fled)
COMMAND_DESTROYED_MOD = -1  # any unit completely destroyed
COMMAND_AMBUSHED_MOD = -1  # §7.10.5 the ambushed side

# --- individuals when their side collapses [SR-T] -------------------------------------------

FATE_KILLED_MAX = 2  # 1D6 (+1 mounted): 1–2 killed, 3+ fled
