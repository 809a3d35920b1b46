"""Set-up validations and small calculators (spec §2, §6.10–6.11, §7.2–7.3, §10, §11.2).

Validations return their problems as data (`SetupProblem`), like `validate_orders`: the
set-up form shows them while the GM types. Calculators raise `SetupError` only for inputs
that cannot describe anything (negative points, an unknown formula). Every die goes through
an injected `Dice` and leaves one ledger entry per roll.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from rules import tables as T
from rules.dice import Dice, Modifier, RollRecord
from rules.errors import RulesError
from rules.types import (
    CampaignState,
    Coord,
    Feature,
    Force,
    GameMap,
    Holding,
    Player,
    Speciality,
    Status,
    Territory,
    Unit,
    Weather,
)


class SetupError(RulesError):
    """A set-up calculator was given values that describe nothing (e.g. negative points)."""


@dataclass(frozen=True, slots=True)
class SetupProblem:
    """One broken set-up rule. `code` is stable for programs, `message` is for people."""

    code: str
    message: str
    rule: str
    subject: str | None = None  # force, holding or player id

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "rule": self.rule,
            "subject": self.subject,
        }


class _Problems:
    """Collects `SetupProblem`s for one validation."""

    def __init__(self) -> None:
        self.items: list[SetupProblem] = []

    def add(self, code: str, rule: str, message: str, subject: str | None = None) -> None:
        self.items.append(SetupProblem(code, message, rule, subject))

    def extend(self, problems: Iterable[SetupProblem]) -> None:
        self.items.extend(problems)

    def __call__(self) -> tuple[SetupProblem, ...]:
        return tuple(self.items)


def _non_negative(name: str, value: int) -> None:
    if value < 0:
        raise SetupError(f"{name} must be 0 or more, not {value}")


def chebyshev(a: Coord, b: Coord) -> int:
    """Distance in king moves (§0, A-19, A-22)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


# --- R2.5 army organisation into forces ----------------------------------------------------------

CV_MIN = 1  # a promoted leader has CV 1 (R8.6.1)


@dataclass(frozen=True, slots=True)
class ForceOrganisation:
    force_id: str
    leader_id: str | None
    leader_cv: int
    individuals: int  # generals not counted
    units: int
    figures: int
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


def validate_force_organisation(
    force: Force, *, allied_commands: Collection[str] = (), sea_folk: bool = False
) -> ForceOrganisation:
    """R2.5: a leader (highest CV) and at least one unit; every command a general with units;
    individuals ≤ units, generals not counted (A-24); allies and mercenaries never alone
    (R2.5.7) unless it is an all-sea-folk pirate force (R6.11.6, checked by
    `validate_sea_folk_force`).

    A command is allied or mercenary when its id is in `allied_commands` or all its units
    are mercenaries."""
    fid = force.id
    out = _Problems()
    units, generals = force.units, force.generals
    if not generals:
        out.add("no-leader", "R2.5.2", f"Force {fid} has no general to lead it.", fid)
    if not units:
        out.add("no-units", "R2.5.2", f"Force {fid} has no unit; it needs at least one.", fid)
    for c in force.commands:
        if c.general is None:
            out.add("command-without-general", "§1.1", f"Command {c.id} has no general.", fid)
        if not c.units:
            out.add("command-without-units", "§1.1", f"Command {c.id} has no units.", fid)
    for g in generals:
        if not CV_MIN <= g.cv <= T.CV_MAX:
            msg = f"General {g.id} has CV {g.cv}; CV runs from {CV_MIN} to {T.CV_MAX}."
            out.add("cv-out-of-range", "§1.1", msg, fid)
    if force.leader_id is not None and generals:
        best = max(g.cv for g in generals)
        chosen = next((g for g in generals if g.id == force.leader_id), None)
        if chosen is None or chosen.cv != best:
            msg = (
                f"The designated leader {force.leader_id} is not a general of force {fid} "
                f"with its highest CV ({best})."
            )
            out.add("leader-not-highest-cv", "R2.5.4", msg, fid)
    n_ind, n_units = len(force.individuals), len(units)
    if n_ind > n_units:
        msg = (
            f"Force {fid} has {n_ind} individual characters but only {n_units} unit(s); "
            "individuals may not outnumber units (generals do not count)."
        )
        out.add("too-many-individuals", "R2.5.5", msg, fid)
    regular = [
        c
        for c in force.commands
        if c.id not in allied_commands and not (c.units and all(u.mercenary for u in c.units))
    ]
    if sea_folk:
        out.extend(validate_sea_folk_force(force).problems)
    elif force.commands and not regular:
        msg = (
            f"Force {fid} holds only allied or mercenary commands; they must support a "
            "regular command."
        )
        out.add("allies-alone", "R2.5.7", msg, fid)
    leader = force.leader
    return ForceOrganisation(
        force_id=fid,
        leader_id=leader.id if leader else None,
        leader_cv=force.cv,
        individuals=n_ind,
        units=n_units,
        figures=force.figures,
        problems=out(),
    )


@dataclass(frozen=True, slots=True)
class SeaFolkForce:
    force_points: int
    limited_points: int  # cavalry, artillery and other non-foot troops
    limit: Fraction  # ⅓ of the force's points
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


# Foot troops a pirate force may field freely; everything else shares the ⅓ allowance.
SEA_FOLK_FOOT = frozenset({Speciality.INFANTRY, Speciality.MISSILE})


def validate_sea_folk_force(force: Force) -> SeaFolkForce:
    """R6.11.6 [NARAN]: a force wholly of sea-folk mercenaries may exist alone; it is foot
    only, or its cavalry and artillery together cost at most ⅓ of the force's points (TV-15).
    [SR] Mounted units, air cavalry and Terrible Creatures count with the cavalry."""
    fid = force.id
    out = _Problems()
    total = force.points
    limited = sum(u.points for u in force.units if _limited_in_pirate_force(u))
    limit = Fraction(total, 3)
    if limited > limit:
        msg = (
            f"Force {fid}: cavalry and artillery cost {limited} points, more than a third of "
            f"the force's {total} points."
        )
        out.add("sea-folk-limit", "R6.11.6", msg, fid)
    not_sea_folk = [u.id for u in force.units if not u.mercenary]
    if not_sea_folk:
        msg = f"Force {fid}: unit(s) {', '.join(not_sea_folk)} are not sea-folk mercenaries."
        out.add("not-sea-folk", "R6.11.6", msg, fid)
    return SeaFolkForce(total, limited, limit, out())


def _limited_in_pirate_force(u: Unit) -> bool:
    return u.mounted or u.speciality not in SEA_FOLK_FOOT


# --- R2.2 territory, R2.3 holdings ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Thirds:
    """The three areas along one axis (R2.2.1): `low` and `high` are the outer thirds."""

    axis: str
    low: range
    centre: range
    high: range


def territory_thirds(width: int, height: int, axis: str) -> Thirds:
    """R2.2.1: three areas along `axis` ("x" cuts columns, "y" rows); the outer two are
    equal, the centre takes the remainder. Each is as close to a third as it can be."""
    if axis not in ("x", "y"):
        raise SetupError(f"axis must be 'x' or 'y', not {axis!r}")
    if width < 1 or height < 1:
        raise SetupError(f"the map must be at least 1×1, not {width}×{height}")
    n = width if axis == "x" else height
    if n < 3:
        raise SetupError(f"a map {n} square(s) long along {axis} cannot be cut in three")
    outer = round(n / 3)
    return Thirds(axis, range(0, outer), range(outer, n - outer), range(n - outer, n))


def territory_zones(width: int, height: int, axis: str, *, low: str, high: str) -> dict[Coord, str]:
    """`GameMap.zones` for R2.2: player `low` owns the low outer third, `high` the other;
    the centre is neutral (absent)."""
    thirds = territory_thirds(width, height, axis)
    zones: dict[Coord, str] = {}
    for x in range(width):
        for y in range(height):
            i = x if axis == "x" else y
            if i in thirds.low:
                zones[(x, y)] = low
            elif i in thirds.high:
                zones[(x, y)] = high
    return zones


HOLDING_MIN_DISTANCE = 3  # R2.3.3 "not within two squares", Chebyshev
FORBIDDEN_HOLDING_TERRAIN = frozenset(
    {Feature.MOUNTAIN, Feature.FOREST, Feature.JUNGLE, Feature.SWAMP}
)  # R2.3.4; jungle counts as forest
RACE_HOLDING_TERRAIN: dict[str, frozenset[Feature]] = {  # R2.3.4 exceptions
    "dwarves": frozenset({Feature.MOUNTAIN}),
    "wood-elves": frozenset({Feature.FOREST, Feature.JUNGLE}),
    "goblins": frozenset({Feature.FOREST, Feature.JUNGLE}),
    "orcs": frozenset({Feature.SWAMP}),
}
_RACE_ALIASES = {"dwarf": "dwarves", "wood-elf": "wood-elves", "goblin": "goblins", "orc": "orcs"}


def race_key(race: str) -> str:
    """'Wood Elves', 'wood_elf' and 'wood-elves' are the same race for R2.3.4."""
    key = "-".join(race.lower().replace("_", " ").split())
    return _RACE_ALIASES.get(key, key)


def holding_spacing_ok(a: Coord, b: Coord) -> bool:
    """R2.3.3 / D-20: two holdings of one owner stand at Chebyshev distance ≥ 3."""
    return chebyshev(a, b) >= HOLDING_MIN_DISTANCE


@dataclass(frozen=True, slots=True)
class HoldingPlacement:
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


def validate_holding_placement(
    *, game_map: GameMap, players: Sequence[Player], holdings: Sequence[Holding]
) -> HoldingPlacement:
    """R2.3.2–2.3.5: each holding on the map in its owner's friendly third, on allowed
    terrain (with the race exceptions), ≥ 3 squares (Chebyshev) from the owner's other
    holdings, and exactly one capital per player."""
    out = _Problems()
    by_id = {p.id: p for p in players}
    placed: list[Holding] = []
    for h in holdings:
        player = by_id.get(h.owner)
        if player is None:
            out.add("unknown-owner", "R2.3", f"Holding {h.id} belongs to no player.", h.id)
            continue
        if not game_map.on_map(h.square):
            out.add("off-map", "R2.3", f"Holding {h.id} at {h.square} is off the map.", h.id)
            continue
        placed.append(h)
        if game_map.zones.get(h.square) != h.owner:
            msg = f"Holding {h.id} at {h.square} is not in {h.owner}'s friendly territory."
            out.add("outside-territory", "R2.3.2", msg, h.id)
        allowed = RACE_HOLDING_TERRAIN.get(race_key(player.race), frozenset())
        bad = sorted((game_map.features_at(h.square) & FORBIDDEN_HOLDING_TERRAIN) - allowed)
        if bad:
            msg = (
                f"Holding {h.id} at {h.square} stands on {', '.join(f.value for f in bad)}, "
                f"not allowed to {player.race or 'this race'}."
            )
            out.add("forbidden-terrain", "R2.3.4", msg, h.id)
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            if a.owner == b.owner and not holding_spacing_ok(a.square, b.square):
                msg = (
                    f"Holdings {a.id} and {b.id} are {chebyshev(a.square, b.square)} "
                    "square(s) apart; holdings of one owner must be at least 3 apart."
                )
                out.add("too-close", "R2.3.3", msg, b.id)
    for p in players:
        capitals = sum(h.capital for h in holdings if h.owner == p.id)
        if capitals != 1:
            msg = f"Player {p.id} has {capitals} capitals; each player has exactly one."
            out.add("capital-count", "R2.3.5", msg, p.id)
    return HoldingPlacement(out())


def validate_state_references(state: CampaignState) -> tuple[SetupProblem, ...]:
    """The ids of a state hold together: players, forces and holdings are unique, every owner
    is a player and every force and holding stands on the map. (The codec checks shapes and
    types; this checks what refers to what, before a phase trips over it.)"""
    out = _Problems()
    players = [p.id for p in state.players]
    for kind, ids in (
        ("player", players),
        ("force", [f.id for f in state.forces]),
        ("holding", [h.id for h in state.holdings]),
    ):
        for dup in sorted({i for i in ids if ids.count(i) > 1}):
            out.add("duplicate-id", "state", f"Two {kind}s share the id {dup!r}.", dup)
    known = set(players)
    for f in state.forces:
        if f.owner not in known:
            out.add(
                "unknown-owner", "state", f"Force {f.id} belongs to no player ({f.owner!r}).", f.id
            )
        if not state.map.on_map(f.square):
            out.add("off-map", "R6.4.7", f"Force {f.id} at {f.square} is off the map.", f.id)
    for h in state.holdings:
        for owner in {h.owner, h.original_owner} - known:
            out.add("unknown-owner", "state", f"Holding {h.id} names no player {owner!r}.", h.id)
        if not state.map.on_map(h.square):
            out.add("off-map", "R2.3", f"Holding {h.id} at {h.square} is off the map.", h.id)
    return out()


# --- §11.2 Incursion -----------------------------------------------------------------------------

INCURSION_RATIO = 2  # R11.2.3: the Raiders have 100 % more points
INCURSION_DEFENDER_MIN_HOLDINGS = 4  # R11.2.2: 4 or more, one of them the capital


@dataclass(frozen=True, slots=True)
class IncursionPoints:
    raider_points: int
    defender_points: int
    ratio: float


def incursion_points(
    *, raider_points: int | None = None, defender_points: int | None = None
) -> IncursionPoints:
    """R11.2.3 (TV-13): raider points = 2 × defender points; give either side."""
    if (raider_points is None) == (defender_points is None):
        raise SetupError("give exactly one of raider_points and defender_points")
    if raider_points is not None:
        _non_negative("raider points", raider_points)
        if raider_points % INCURSION_RATIO:
            raise SetupError(
                f"raider points {raider_points} are not twice a whole number of "
                "defender points (R11.2.3)"
            )
        defender_points = raider_points // INCURSION_RATIO
    else:
        assert defender_points is not None
        _non_negative("defender points", defender_points)
        raider_points = defender_points * INCURSION_RATIO
    return IncursionPoints(raider_points, defender_points, float(INCURSION_RATIO))


@dataclass(frozen=True, slots=True)
class IncursionHoldings:
    defender_holdings: int
    defender_capitals: int
    raider_holdings: int
    defender_min_holdings: int = INCURSION_DEFENDER_MIN_HOLDINGS
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


def validate_incursion_holdings(
    *, defender_holdings: Sequence[Holding], raider_holdings: Sequence[Holding]
) -> IncursionHoldings:
    """R11.2.2 (TV-14): the Raiders hold one holding, their capital; the Defender places 4
    or more holdings, exactly one of which is his capital."""
    out = _Problems()
    n_def, n_raid = len(defender_holdings), len(raider_holdings)
    d_caps = sum(h.capital for h in defender_holdings)
    if n_def < INCURSION_DEFENDER_MIN_HOLDINGS:
        msg = f"The Defender has {n_def} holding(s); he needs 4 or more."
        out.add("defender-holdings", "R11.2.2", msg)
    if d_caps != 1:
        msg = f"The Defender has {d_caps} capitals; exactly one of his holdings is his capital."
        out.add("defender-capital", "R11.2.2", msg)
    if n_raid != 1 or not raider_holdings[0].capital:
        msg = f"The Raiders have exactly one holding, their capital (got {n_raid})."
        out.add("raider-holdings", "R11.2.2", msg)
    return IncursionHoldings(
        defender_holdings=n_def,
        defender_capitals=d_caps,
        raider_holdings=n_raid,
        problems=out(),
    )


# --- R7.2 battle duration ------------------------------------------------------------------------

# [SR] The FW clock has 6 day and 6 night segments: one revolution = 12 turns, the default
# battle length (Options.battle_max_turns), and TV-07 reaches a 6th night segment.
DAY_SEGMENTS = 6
NIGHT_SEGMENTS = 6
CLOCK_SEGMENTS = DAY_SEGMENTS + NIGHT_SEGMENTS


def clock_segment(period: str, n: int) -> int:
    """Clock index 0..11 of the n-th (1-based) day or night segment."""
    if period not in ("day", "night"):
        raise SetupError(f"a clock segment is 'day' or 'night', not {period!r}")
    size = DAY_SEGMENTS if period == "day" else NIGHT_SEGMENTS
    if not 1 <= n <= size:
        raise SetupError(f"there is no {period} segment {n} (1..{size})")
    return n - 1 if period == "day" else DAY_SEGMENTS + n - 1


def segment_name(index: int) -> str:
    i = index % CLOCK_SEGMENTS
    return f"day-{i + 1}" if i < DAY_SEGMENTS else f"night-{i - DAY_SEGMENTS + 1}"


@dataclass(frozen=True, slots=True)
class TimeSpell:
    """A time spell (R7.2.3) cast in turn `cast_in_turn`: that turn is played at segment
    `to`, reached moving the hand forward (speeding time) or back (slowing it)."""

    cast_in_turn: int
    to: int
    forward: bool = True


@dataclass(frozen=True, slots=True)
class BattleDuration:
    turns: int
    segments: tuple[str, ...]  # the segment each turn was played at
    full_revolution: bool  # False when max_turns stopped the battle first


def battle_turn_count(
    *, start: int, spells: Iterable[TimeSpell] = (), max_turns: int | None = None
) -> BattleDuration:
    """R7.2.1–4 (TV-07, A-25): the battle ends when the clock hand has made one full
    revolution from `start`; a spell moves the hand before its turn is played, so that
    turn is played at the new segment (day 1–3, then night 1–6 = 9 turns). A weather storm
    (R4.2) is a forward jump of two segments and can be passed as a spell."""
    if not 0 <= start < CLOCK_SEGMENTS:
        raise SetupError(f"start segment {start} is not on the clock (0..{CLOCK_SEGMENTS - 1})")
    by_turn: dict[int, TimeSpell] = {}
    for s in spells:
        if s.cast_in_turn < 1 or s.cast_in_turn in by_turn:
            raise SetupError(f"bad or repeated spell turn {s.cast_in_turn}")
        if not 0 <= s.to < CLOCK_SEGMENTS:
            raise SetupError(f"spell target {s.to} is not on the clock")
        by_turn[s.cast_in_turn] = s
    hand = start  # unwrapped position: the revolution ends at start + 12
    played: list[str] = []
    while hand < start + CLOCK_SEGMENTS:
        if max_turns is not None and len(played) >= max_turns:
            return BattleDuration(len(played), tuple(played), False)
        spell = by_turn.get(len(played) + 1)
        if spell is not None:
            ahead = (spell.to - hand) % CLOCK_SEGMENTS  # segments forward to the target
            if spell.forward:
                hand += ahead
            elif ahead:
                hand -= CLOCK_SEGMENTS - ahead
            if hand >= start + CLOCK_SEGMENTS:
                break  # the spell itself completed the revolution
        played.append(segment_name(hand))
        hand += 1
    return BattleDuration(len(played), tuple(played), True)


# --- R7.3.6 Italian method -----------------------------------------------------------------------


def italian_draw_threshold(
    points_a: int, points_b: int | None = None, *, ars_arcana_a: int = 0, ars_arcana_b: int = 0
) -> Fraction:
    """R7.3.6 (TV-08, A-26): a stalemate when the points lost differ by at most 20 % of the
    smaller army, Ars Arcana points excluded."""
    b = points_a if points_b is None else points_b
    armies = (points_a - ars_arcana_a, b - ars_arcana_b)
    for name, v in zip(("army a", "army b"), armies, strict=True):
        _non_negative(f"{name} points without Ars Arcana", v)
    return Fraction(min(armies) * 20, 100)


# --- §6.10 terrain attrition ---------------------------------------------------------------------

ATTRITION_FORMULAS = ("d6_minus2_min0", "d6_div2", "d6_times2")


def attrition_losses(natural: int, formula: str = "d6_minus2_min0") -> int:
    """A-50: the lost operator in "1D6 2". Halving rounds down [SR]."""
    if formula == "d6_minus2_min0":
        return max(0, natural - 2)
    if formula == "d6_div2":
        return natural // 2
    if formula == "d6_times2":
        return natural * 2
    known = ", ".join(ATTRITION_FORMULAS)
    raise SetupError(f"unknown attrition formula {formula!r}; one of {known}")


@dataclass(frozen=True, slots=True)
class UnitAttrition:
    unit_id: str
    record: RollRecord
    losses: int  # killed: they take the wounded check (R6.10.2)
    figures_before: int
    deserter_check: bool  # lost more than 25 %: the rest take the deserter check (R6.10.3)


def terrain_attrition(
    dice: Dice, *, purpose: str, units: Sequence[Unit], formula: str = "d6_minus2_min0"
) -> tuple[UnitAttrition, ...]:
    """R6.10.1 [NARAN]: one 1D6 per unit of a force that crossed jungle, desert, wasteland or
    a mountain range; losses by `Options.attrition_formula`, never more than the unit has."""
    if formula not in ATTRITION_FORMULAS:
        attrition_losses(1, formula)  # raises the precise error
    out = []
    for u in units:
        rec = dice.roll(
            purpose=f"{purpose}:{u.id}", rule="R6.10.1", judge=_attrition_judge(u, formula)
        )
        losses = min(u.figures, attrition_losses(rec.value, formula))
        out.append(UnitAttrition(u.id, rec, losses, u.figures, losses * 4 > u.figures))
    return tuple(out)


def _attrition_judge(unit: Unit, formula: str) -> Callable[[int, tuple[int, ...]], str]:
    def judge(_total: int, nat: tuple[int, ...]) -> str:
        return f"{min(unit.figures, attrition_losses(nat[0], formula))} figure(s) lost"

    return judge


# --- §6.11 naval movement ------------------------------------------------------------------------


class Waters(StrEnum):
    SEA = "sea"
    LAKE = "lake"
    RIVER = "river"  # river or stream


WIND_TABLE = ((2, "contrary", -3), (4, "calm", -2), (6, "favourable", +1))  # §6.11 wind test


def naval_squares(total: int) -> int:
    """§6.11 naval table: ≤2 → 1 (A-49b), 3–5 → 2, 6–8 → 3, 9+ → 4."""
    if total <= 2:
        return 1
    if total <= 5:
        return 2
    if total <= 8:
        return 3
    return 4


@dataclass(frozen=True, slots=True)
class NavalMovementResult:
    wind: str | None  # contrary / calm / favourable on sea or lake
    wind_record: RollRecord | None
    record: RollRecord | None  # None when the force may not move (Defend, storm)
    squares_table: int
    squares: int  # after the embark/disembark reduction (R6.11.8)

    @property
    def total(self) -> int | None:
        return self.record.total if self.record else None


def naval_movement(
    dice: Dice,
    *,
    purpose: str,
    waters: Waters,
    status: Status,
    territory: Territory = Territory.NEUTRAL,
    weather: Weather = Weather.FINE,
    ships: bool = True,
    reefs: bool = False,
    rafts_with_mounts: bool = False,
    rapids: bool = False,
    upstream: bool = False,
    downstream: bool = False,
    bridge_ahead: bool = False,
    embarking: bool = False,
    disembarking: bool = False,
) -> NavalMovementResult:
    """§6.11 [NARAN, provisional]: on sea or lake a wind test first, then 1D6 + modifiers on
    the naval table. On the embarking and the disembarking turn a total ≥ 3 loses one square
    each (R6.11.8, A-49c) [SR: never below one]. Like land movement, Defend never moves and
    a storm holds a force still."""
    if upstream and downstream:
        raise SetupError("a river move goes either upstream or downstream, not both")
    if status is Status.DEFEND or weather is Weather.STORM:
        return NavalMovementResult(None, None, None, 0, 0)
    mods: list[Modifier] = []
    wind = wind_rec = None
    if T.MOVE_WEATHER[weather]:
        mods.append(Modifier(f"weather: {weather.value}", T.MOVE_WEATHER[weather]))
    if waters is Waters.RIVER:
        mods += [
            Modifier("waterfalls or rapids (portage)", -3 if rapids else 0),
            Modifier("upstream", -2 if upstream else 0),
            Modifier("bridge on the stretch", -1 if bridge_ahead else 0),
            Modifier("rafts carry mounts", -1 if rafts_with_mounts else 0),
            Modifier("downstream", +1 if downstream else 0),
        ]
    else:
        if upstream or downstream or rapids or bridge_ahead:
            raise SetupError("upstream, downstream, rapids and bridges apply on rivers only")
        wind_rec = dice.roll(
            purpose=f"{purpose}:wind", rule="§6.11 wind", judge=lambda t, _n: _wind(t)[0]
        )
        wind, wind_mod = _wind(wind_rec.value)
        mods += [
            Modifier(f"wind: {wind}", wind_mod),
            Modifier("reefs, islands or atolls", -1 if reefs else 0),
            Modifier("no ships (minor craft only)", -2 if not ships else 0),
            Modifier("rafts carry mounts", -1 if rafts_with_mounts else 0),
        ]
    if territory is Territory.ENEMY:
        mods.append(Modifier("enemy territory", T.MOVE_ENEMY_TERRITORY))
    elif territory is Territory.FRIENDLY:
        mods.append(Modifier("friendly territory", T.MOVE_FRIENDLY_TERRITORY))
    if status in (Status.UNSTEADY, Status.SHATTERED):
        mods.append(Modifier(f"force is {status.value}", T.MOVE_UNSTEADY_OR_SHATTERED))
    if status is Status.FULL_SPEED:
        mods.append(Modifier("full speed", T.MOVE_FULL_SPEED))
    rec = dice.roll(
        purpose=purpose,
        rule="§6.11",
        modifiers=mods,
        judge=lambda t, _n: f"{naval_squares(t)} square(s) by the table",
    )
    assert rec.total is not None
    table = naval_squares(rec.total)
    squares = table
    if rec.total >= 3:
        squares = max(1, table - int(embarking) - int(disembarking))
    return NavalMovementResult(wind, wind_rec, rec, table, squares)


def _wind(natural: int) -> tuple[str, int]:
    for upper, name, mod in WIND_TABLE:
        if natural <= upper:
            return name, mod
    raise SetupError(f"{natural} is not a D6 face")


# --- §10 unit orders method ----------------------------------------------------------------------


class UnitOrder(StrEnum):
    ATTACK = "attack"
    HOLD = "hold"
    OPPOSE = "oppose"
    RETREAT = "retreat"


CHAOS_ORDER = {  # R10.2 result 0: the order is misinterpreted
    UnitOrder.ATTACK: UnitOrder.HOLD,
    UnitOrder.HOLD: UnitOrder.ATTACK,
    UnitOrder.OPPOSE: UnitOrder.ATTACK,
    UnitOrder.RETREAT: UnitOrder.HOLD,
}


@dataclass(frozen=True, slots=True)
class UnitOrderResult:
    record: RollRecord
    result: str  # ok / ok-confusion / delay / delay-confusion / ignored / ignored-confused /
    # chaos / panic
    order_now: UnitOrder | None  # the order the unit now follows, when it took one
    disorganised_after: bool
    demoralised_after: bool
    routs: bool
    messenger: str  # delivered / stays / dismissed / routs
    retry_next_turn: bool

    @property
    def total(self) -> int:
        assert self.record.total is not None
        return self.record.total


def unit_order_modifiers(
    *,
    quality_mod: int,
    delivered_by: str,
    fanatic: bool = False,
    different_race: bool = False,
    unfavourable_light: bool = False,
    disorganised: bool = False,
    reactions: bool = False,
    no_leader: bool = False,
) -> list[Modifier]:
    """§10.2 modifiers; the quality modifier is FW core's (hook `fw_quality_modifier`, A-45)."""
    if delivered_by not in ("leader", "messenger"):
        raise SetupError(
            f"only the leader or a Messenger carries unit orders (R10.2.2), not {delivered_by!r}"
        )
    return [
        Modifier("unit quality (FW core)", quality_mod),
        Modifier("unit is fanatic", +1 if fanatic else 0),
        Modifier("delivered by the leader", +3 if delivered_by == "leader" else 0),
        Modifier("delivered by a Messenger", +1 if delivered_by == "messenger" else 0),
        Modifier("different race from the deliverer", -1 if different_race else 0),
        Modifier("unfavourable light", -1 if unfavourable_light else 0),
        Modifier("unit is disorganised", -1 if disorganised else 0),
        Modifier("unit is subject to reactions", -2 if reactions else 0),
        Modifier("unit has no Leader (Capo)", -2 if no_leader else 0),
    ]


_UNIT_ORDER_ROWS = {  # total: (name, accepted, disorganises, messenger, retry)
    5: ("ok-confusion", True, True, "delivered", False),
    4: ("delay", False, False, "stays", True),
    3: ("delay-confusion", False, True, "stays", True),
    2: ("ignored", False, False, "dismissed", None),  # None: only a leader may retry
    1: ("ignored-confused", False, True, "dismissed", None),
    0: ("chaos", False, True, "dismissed", False),  # "confused" read as disorganised
}


def unit_order_test(
    dice: Dice,
    *,
    purpose: str,
    quality_mod: int,
    delivered_by: str,
    order: UnitOrder | None = None,
    fanatic: bool = False,
    different_race: bool = False,
    unfavourable_light: bool = False,
    disorganised: bool = False,
    demoralised: bool = False,
    reactions: bool = False,
    no_leader: bool = False,
) -> UnitOrderResult:
    """R10.2 unit order test (D-23): 1D6 + quality modifier + modifiers, read on the p. 51
    table. Panic (< 0) demoralises the unit; an already demoralised unit routs and carries
    the messenger with it."""
    mods = unit_order_modifiers(
        quality_mod=quality_mod,
        delivered_by=delivered_by,
        fanatic=fanatic,
        different_race=different_race,
        unfavourable_light=unfavourable_light,
        disorganised=disorganised,
        reactions=reactions,
        no_leader=no_leader,
    )
    rec = dice.roll(
        purpose=purpose, rule="R10.2", modifiers=mods, judge=lambda t, _n: _unit_order_name(t)
    )
    assert rec.total is not None
    t = rec.total
    if t >= 6:
        return UnitOrderResult(
            rec, "ok", order, disorganised, demoralised, False, "delivered", False
        )
    if t < 0:
        routs = demoralised
        return UnitOrderResult(
            rec, "panic", None, True, True, routs, "routs" if routs else "dismissed", False
        )
    name, accepted, disorganises, messenger, retry = _UNIT_ORDER_ROWS[t]
    if retry is None:
        retry = delivered_by == "leader"
    if name == "chaos":
        order_now = CHAOS_ORDER[order] if order is not None else None
    else:
        order_now = order if accepted else None
    return UnitOrderResult(
        rec, name, order_now, disorganised or disorganises, demoralised, False, messenger, retry
    )


def _unit_order_name(total: int) -> str:
    if total >= 6:
        return "ok"
    if total < 0:
        return "panic"
    return _UNIT_ORDER_ROWS[total][0]


@dataclass(frozen=True, slots=True)
class CommandTestResult:
    record: RollRecord
    result: str  # ok / all-disorganised / all-demoralised / army-routs

    @property
    def total(self) -> int:
        assert self.record.total is not None
        return self.record.total


def unit_orders_command_test(
    dice: Dice,
    *,
    purpose: str,
    leader_cv: int,
    omens: str | None = None,
    promise: str | None = None,
    talismans: int = 0,
    unfavourable_light: bool = False,
    any_unit_routed: bool = False,
    any_unit_destroyed: bool = False,
    leader_dead_or_fled: bool = False,
    ambushed: bool = False,
) -> CommandTestResult:
    """R10.3 (D-24): 1D6 + leader CV + modifiers. 7+ OK; 6 all units disorganised; 5 all
    demoralised; 4 or less the whole army routs (≤ 3 not printed: as 4, A-46). Unfavourable
    light is judged at the leader's position [SR]; an ambushed side takes −1 (§7.10.5)."""
    if omens not in (None, "good", "bad"):
        raise SetupError(f"omens are good or bad, not {omens!r}")
    if promise not in (None, "kept", "not-kept"):
        raise SetupError(f"the leader's promise is kept or not-kept, not {promise!r}")
    _non_negative("talismans", talismans)
    mods = [
        Modifier("leader CV", leader_cv),
        Modifier("good omens", +1 if omens == "good" else 0),
        Modifier("bad omens", -1 if omens == "bad" else 0),
        Modifier("leader's promise kept", +1 if promise == "kept" else 0),
        Modifier("leader's promise not yet kept", -1 if promise == "not-kept" else 0),
        Modifier(f"{talismans} talisman(s) working", talismans),
        Modifier("unfavourable light", -1 if unfavourable_light else 0),
        Modifier("a unit has routed", -1 if any_unit_routed else 0),
        Modifier("a unit was destroyed", -1 if any_unit_destroyed else 0),
        Modifier("leader dead or fled", -3 if leader_dead_or_fled else 0),
        Modifier("ambushed (§7.10.5)", -1 if ambushed else 0),
    ]
    rec = dice.roll(
        purpose=purpose, rule="R10.3", modifiers=mods, judge=lambda t, _n: _command_result(t)
    )
    assert rec.total is not None
    return CommandTestResult(rec, _command_result(rec.total))


def _command_result(total: int) -> str:
    if total >= 7:
        return "ok"
    if total == 6:
        return "all-disorganised"
    if total == 5:
        return "all-demoralised"
    return "army-routs"
