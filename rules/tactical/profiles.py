"""Unit profiles for the tactical engine: the roster's speciality, quality and missile/mounted
flags mapped onto the Drakerys characteristics of spec §10.4 [DRAKERYS].

The campaign rules (and FW core) give no numbers a simulation can use, so this table is the
engine's one big judgement call. It is data, with a rationale per row, so that a GM can read
it, disagree with a row, and see exactly what changes. A profile is the speciality row (the
Average warrior of that kind) plus the quality row's modifiers, plus the small missile and
mounted adjustments at the end.

Characteristics (Drakerys p. 10–12, 19–21):
- power: D10s per warrior in contact (warriors behind them support with 1 D10 each);
- combat / shooting: the Action value of attack and shooting rolls (0 = cannot shoot);
- strength / resistance: Action and Opposition of wound rolls;
- health: wounds that remove one warrior;
- willpower: the Action value of morale tests;
- initiative: who strikes first in a combat;
- shot_strength / saturation: the missile weapon's Strength, and the Opposition of the morale
  test of a unit that lost warriors to it;
- frontage: warriors in contact in one engagement (the next `frontage` support);
- charge_power: extra D10s per warrior in contact when charging;
- fear: Opposition added to the morale tests of enemies fighting it (Drakerys Intimidation);
- line: where the commander deploys it (front, support or flank);
- value: worth of one warrior for the commander AI's strength estimate (no effect on dice).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from rules.types import Quality, Speciality, Unit

FRONT, SUPPORT, FLANK = "front", "support", "flank"


@dataclass(frozen=True, slots=True)
class Profile:
    power: int
    combat: int
    shooting: int
    strength: int
    resistance: int
    health: int
    willpower: int
    initiative: int
    shot_strength: int
    saturation: int
    frontage: int
    charge_power: int
    flyer: bool
    fear: int
    line: str
    value: float


@dataclass(frozen=True, slots=True)
class SpecialityRow:
    profile: Profile
    rationale: str


@dataclass(frozen=True, slots=True)
class QualityRow:
    combat: int
    shooting: int
    resistance: int
    willpower: int
    initiative: int
    value: float  # multiplies the speciality's value
    rationale: str


# The Average warrior of each speciality (R8.3.1 specialities). Kept compact: one row each.
# fmt: off
SPECIALITIES: dict[Speciality, SpecialityRow] = {
    Speciality.INFANTRY: SpecialityRow(
        Profile(
            power=1, combat=3, shooting=0, strength=3, resistance=3, health=1, willpower=2,
            initiative=3, shot_strength=0, saturation=0, frontage=4, charge_power=0,
            flyer=False, fear=0, line=FRONT, value=1.0,
        ),
        "The line of battle and the Drakerys baseline: Combat, Strength and Resistance 3, one "
        "D10 per warrior; four warriors in contact, and one D10 for every two of the next four "
        "in support; Willpower 2, so that a beaten unit can break.",
    ),
    Speciality.MISSILE: SpecialityRow(
        Profile(
            power=1, combat=2, shooting=3, strength=3, resistance=2, health=1, willpower=2,
            initiative=3, shot_strength=3, saturation=2, frontage=4, charge_power=0,
            flyer=False, fear=0, line=SUPPORT, value=0.9,
        ),
        "Bowmen: the weapon table's bow (Strength 3) at Saturation 2; they shoot from the "
        "support line over the front (+2 Opposition for the range); light armour (Resistance "
        "2) and poor hand-to-hand (Combat 2).",
    ),
    Speciality.ARTILLERY: SpecialityRow(
        Profile(
            power=1, combat=1, shooting=2, strength=2, resistance=2, health=1, willpower=2,
            initiative=2, shot_strength=6, saturation=3, frontage=4, charge_power=0,
            flyer=False, fear=0, line=SUPPORT, value=1.5,
        ),
        "War machines and crews: one heavy shot per figure (Strength 6, Saturation 3, above "
        "the heavy crossbow of the weapon table) but inaccurate (Shooting 2); the crews barely "
        "fight (Combat 1).",
    ),
    Speciality.CAVALRY: SpecialityRow(
        Profile(
            power=1, combat=3, shooting=0, strength=3, resistance=3, health=2, willpower=2,
            initiative=4, shot_strength=0, saturation=0, frontage=3, charge_power=1,
            flyer=False, fear=0, line=FLANK, value=1.8,
        ),
        "Horsemen on the flanks: rider and mount take two wounds (Health 2), strike first "
        "(Initiative 4) and add a D10 per warrior on the charge; wider bases, so three in "
        "contact.",
    ),
    Speciality.AIR_CAVALRY: SpecialityRow(
        Profile(
            power=1, combat=3, shooting=0, strength=3, resistance=3, health=2, willpower=2,
            initiative=5, shot_strength=0, saturation=0, frontage=3, charge_power=1,
            flyer=True, fear=0, line=FLANK, value=2.0,
        ),
        "Flyers: cavalry that is faster still (Initiative 5); when no enemy horse or flyer "
        "holds them on the flank they fly over the front onto the support line (missiles, "
        "artillery).",
    ),
    Speciality.TERRIBLE_CREATURE: SpecialityRow(
        Profile(
            power=4, combat=4, shooting=0, strength=5, resistance=5, health=4, willpower=3,
            initiative=2, shot_strength=0, saturation=0, frontage=3, charge_power=0,
            flyer=False, fear=1, line=FRONT, value=6.0,
        ),
        "Monsters: each figure is a Drakerys Monster (Power 4, Strength 5, Resistance 5, "
        "Health 4) but slow (Initiative 2); Intimidation gives its enemies +1 Opposition to "
        "their morale tests.",
    ),
}

# fmt: on

# Quality modifiers (the four qualities of the roster, R8.2 deserter modifiers +0..+3).
# fmt: off
QUALITIES: dict[Quality, QualityRow] = {
    Quality.LEVY: QualityRow(
        combat=-1, shooting=-1, resistance=0, willpower=-1, initiative=-1, value=0.6,
        rationale="Raw conscripts: hit less often, break sooner and are slower to strike; "
        "their weapons and armour are the same as anybody's.",
    ),
    Quality.AVERAGE: QualityRow(
        combat=0, shooting=0, resistance=0, willpower=0, initiative=0, value=1.0,
        rationale="The speciality row as written.",
    ),
    Quality.VETERAN: QualityRow(
        combat=1, shooting=1, resistance=0, willpower=1, initiative=0, value=1.4,
        rationale="Drilled and blooded: one column better on the Action Table to hit and to "
        "hold.",
    ),
    Quality.ELITE: QualityRow(
        combat=2, shooting=1, resistance=1, willpower=2, initiative=1, value=1.9,
        rationale="Picked troops: the best fighters with the best armour and nerve, and "
        "quicker to strike.",
    ),
}

# fmt: on

# A unit of another speciality flagged `missile` (javelins, throwing axes, short bows): it
# shoots with Combat − 1 at its own Strength, Saturation 1, only while not in a combat.
THROWN_SHOOTING_FROM_COMBAT = -1
THROWN_SATURATION = 1
# A unit flagged `mounted` whose speciality is not mounted already (mounted infantry, riders
# of beasts): +1 Health, +1 Initiative.
MOUNTED_HEALTH = 1
MOUNTED_INITIATIVE = 1
MOUNTED_SPECIALITIES = frozenset({Speciality.CAVALRY, Speciality.AIR_CAVALRY})


@cache
def profile(speciality: Speciality, quality: Quality, missile: bool, mounted: bool) -> Profile:
    """The profile of a warrior of this speciality and quality (cached: a handful exist)."""
    base = SPECIALITIES[speciality].profile
    q = QUALITIES[quality]
    shooting, shot_strength, saturation = base.shooting, base.shot_strength, base.saturation
    if shooting:
        shooting += q.shooting
    elif missile:
        shooting = base.combat + q.combat + THROWN_SHOOTING_FROM_COMBAT
        shot_strength, saturation = base.strength, THROWN_SATURATION
    health, initiative = base.health, base.initiative + q.initiative
    if mounted and speciality not in MOUNTED_SPECIALITIES:
        health += MOUNTED_HEALTH
        initiative += MOUNTED_INITIATIVE
    return Profile(
        power=base.power,
        combat=base.combat + q.combat,
        shooting=max(shooting, 0),
        strength=base.strength,
        resistance=base.resistance + q.resistance,
        health=health,
        willpower=base.willpower + q.willpower,
        initiative=initiative,
        shot_strength=shot_strength,
        saturation=saturation,
        frontage=base.frontage,
        charge_power=base.charge_power,
        flyer=base.flyer,
        fear=base.fear,
        line=base.line,
        value=base.value * q.value,
    )


def unit_profile(unit: Unit) -> Profile:
    return profile(unit.speciality, unit.quality, unit.has_missiles, unit.mounted)


def table_rows() -> list[dict[str, object]]:
    """The table as plain rows (docs, CLI, a GM page): one per speciality, then quality."""
    rows: list[dict[str, object]] = []
    for spec, row in SPECIALITIES.items():
        p = row.profile
        rows.append(
            {
                "row": spec.value,
                "power": p.power,
                "combat": p.combat,
                "shooting": p.shooting,
                "strength": p.strength,
                "resistance": p.resistance,
                "health": p.health,
                "willpower": p.willpower,
                "initiative": p.initiative,
                "contact": p.frontage,
                "shot": f"{p.shot_strength}/{p.saturation}" if p.shooting else "-",
                "charge": p.charge_power,
                "fear": p.fear,
                "line": p.line,
                "rationale": row.rationale,
            }
        )
    for qual, qrow in QUALITIES.items():
        rows.append(
            {
                "row": qual.value,
                "combat": qrow.combat,
                "shooting": qrow.shooting,
                "resistance": qrow.resistance,
                "willpower": qrow.willpower,
                "initiative": qrow.initiative,
                "rationale": qrow.rationale,
            }
        )
    return rows
