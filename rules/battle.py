"""Battle hand-off types: the pending battle with its pack (Phase 3 inputs) and the battle
result (Phase 4 inputs). A tabletop entry and the tactical engine produce the same result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.types import Coord, Outcome, Status


@dataclass(frozen=True, slots=True)
class UnitStart:
    """Start state of one unit (R7.8.1–3)."""

    unit_id: str
    disorganised: bool = False
    demoralised: bool = False
    ammo: int | None = None  # tokens for a missile unit, None otherwise


@dataclass(frozen=True, slots=True)
class BattleForce:
    force_id: str
    owner: str
    status: Status
    figures: int
    points: int
    entered_from: Coord | None = None  # square it came from, for scenario and retreat hints
    units: tuple[UnitStart, ...] = ()
    works_quota: int = 0  # R7.8.4: Defend only; what may still be built (R7.8.6)
    works_built: int = 0  # R7.8.6: built on this square for earlier battles


@dataclass(frozen=True, slots=True)
class BattleSide:
    side: str  # alliance id
    players: tuple[str, ...]
    forces: tuple[BattleForce, ...]
    territory: str  # territory of the battle square for this side's main player
    scouting: str  # full / doubled / partial / none (§7.5)
    scouting_modifier: int  # +2 friendly / −1 enemy (§7.5)
    role: str = ""  # attacker / defender / ambusher / ambushed … when a scenario applies

    @property
    def figures(self) -> int:
        return sum(f.figures for f in self.forces)

    @property
    def points(self) -> int:
        return sum(f.points for f in self.forces)


@dataclass(frozen=True, slots=True)
class BattlePack:
    """Everything needed to fight a battle, on the table or in the tactical engine."""

    battle_id: str
    turn: int
    square: Coord
    features: tuple[str, ...]
    setup_rule: str  # §7.6
    scenery: Mapping[str, str] = field(default_factory=dict)  # §7.7 rolls, when enabled
    scenario: str | None = None  # §7.10, when enabled
    scenario_rules: str = ""
    sides: tuple[BattleSide, ...] = ()  # exactly two: "a" (the contacting side) and "b"
    weather: str = "fine"
    weather_effects: Mapping[str, object] = field(default_factory=dict)
    gr_modifiers: Mapping[int, int] = field(default_factory=dict)  # R7.9.12 hour → modifier
    max_turns: int = 12
    contact_order: int = 1  # R6.7.5
    # R2.4 / R8.7 [NARAN]: the feature of a holding on the battle's square, when the option is
    # on: {"holding", "feature", "objects_with" (the player its objects serve, R8.7.1),
    # "characters_with" (the first owner, while he holds it, R2.4.2; "" otherwise)}
    holding_feature: Mapping[str, str] = field(default_factory=dict)
    terrain_annex: tuple[str, ...] = ()  # §7.11 [NARAN] topics for the square, when on


@dataclass(frozen=True, slots=True)
class PendingBattle:
    battle_id: str
    square: Coord
    contact_order: int
    pack: BattlePack


@dataclass(frozen=True, slots=True)
class UnitLoss:
    """Per unit (R7.1.1): figures killed, fled, left under orders (Oppose), left under
    General Retreat."""

    unit_id: str
    killed: int = 0
    fled: int = 0
    left_oppose: int = 0
    left_retreat: int = 0

    @property
    def removed(self) -> int:
        return self.killed + self.fled + self.left_oppose + self.left_retreat


@dataclass(frozen=True, slots=True)
class IndividualFate:
    individual_id: str  # an individual or a general id
    fate: str  # killed / fled


@dataclass(frozen=True, slots=True)
class BattleResult:
    """A fought battle. Either `outcomes` per side ("a"/"b" → won/stalemate/lost), or the data
    for the configured victory method: `points_lost` per side (Italian) and `wiped`."""

    battle_id: str
    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    points_lost: Mapping[str, int] = field(default_factory=dict)
    wiped: str | None = None  # "a" / "b" / "both": no figures left on the field (R7.3.1)
    units: tuple[UnitLoss, ...] = ()
    individuals: tuple[IndividualFate, ...] = ()
    ended_by_storm: bool = False  # R4.2 table: each side retreats as in a stalemate
    resolver: str = "tabletop"  # tabletop / auto
    retreat_choices: Mapping[str, Coord] = field(default_factory=dict)  # force id → square
    works_built: Mapping[str, int] = field(default_factory=dict)  # force id → points (R7.8.4)
