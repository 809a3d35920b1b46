"""The single tests of the rulebook, each one roll (or one batch of per-figure dice) with its
ledger entry. Phases and the calculator CLI both call these, so a table is applied in exactly
one place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules import tables as T
from rules.dice import Dice, Modifier, Outcomes, RollOutcome, RollRecord, Verdict
from rules.types import Feature, Quality, Season, Status, Territory, Weather

_ENEMY = {"territory": Territory.ENEMY.value}
_FRIENDLY = {"territory": Territory.FRIENDLY.value}

# --- R5.2 force test ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ForceTestResult:
    record: RollRecord
    outcome: str  # ok / defend / confused / unsteady / shattered / destroyed
    new_status: Status | None  # None when destroyed

    @property
    def total(self) -> int:
        assert self.record.total is not None
        return self.record.total


def force_test_modifiers(
    *,
    cv: int,
    status: Status,
    features: Iterable[Feature] = (),
    territory: Territory = Territory.NEUTRAL,
    snow: int = 0,
) -> list[Modifier]:
    """R5.2 modifiers, leader CV first. Snow applies in the Incursion only (A-13): callers
    pass 0 elsewhere."""
    return list(_force_test_modifiers(cv, status, Feature.MOUNTAIN in features, territory, snow))


def _force_test_modifiers(
    cv: int, status: Status, mountain: bool, territory: Territory, snow: int
) -> tuple[Modifier, ...]:
    key = (cv, status, mountain, territory, snow)
    got = _TEST_MODS.get(key)  # the same few dozen combinations every turn: made once each
    if got is not None:
        return got
    mods = [Modifier("leader-cv", cv)]
    if status in T.FORCE_TEST_STATUS_MOD:
        mods.append(
            Modifier("force-status", T.FORCE_TEST_STATUS_MOD[status], {"status": status.value})
        )
    if mountain:
        mods.append(Modifier("mountain", T.FORCE_TEST_MOUNTAIN))
    if territory is Territory.ENEMY:
        mods.append(Modifier("territory", T.FORCE_TEST_ENEMY_TERRITORY, _ENEMY))
    elif territory is Territory.FRIENDLY:
        mods.append(Modifier("territory", T.FORCE_TEST_FRIENDLY_TERRITORY, _FRIENDLY))
    if snow:
        mods.append(Modifier("snow", -snow, {"n": snow}))
    got = tuple(mods)
    if len(_TEST_MODS) < 4096:
        _TEST_MODS[key] = got
    return got


_TEST_MODS: dict[tuple[object, ...], tuple[Modifier, ...]] = {}


def force_test_outcome(
    total: int, *, status: Status, requested: Status, mode: str = "absolute"
) -> tuple[str, Status | None]:
    """R5.2 result table with R5.2.1 (absolute result; Confused + 3 → Unsteady; option
    `no_improvement` keeps the more severe reaction)."""
    if total >= T.FORCE_TEST_OK:
        return "ok", requested
    if total >= T.FORCE_TEST_DEFEND:
        return "defend", Status.DEFEND
    if total <= 0:
        return "destroyed", None
    named = T.FORCE_TEST_REACTION[total]
    new = named
    if named is Status.CONFUSED and status is Status.CONFUSED:
        new = Status.UNSTEADY  # p. 9: a Confused force suffering a reaction becomes Unsteady
    if mode == "no_improvement" and status.is_reaction:
        new = max(new, status, key=_severity)
    return named.value, new


def _severity(s: Status) -> int:
    return {Status.CONFUSED: 1, Status.UNSTEADY: 2, Status.SHATTERED: 3}.get(s, 0)


def force_test(
    dice: Dice,
    *,
    purpose: str,
    cv: int,
    status: Status,
    requested: Status,
    features: Iterable[Feature] = (),
    territory: Territory = Territory.NEUTRAL,
    snow: int = 0,
    mode: str = "absolute",
) -> ForceTestResult:
    if not requested.is_order:
        raise ValueError(f"requested order must be full-speed, probe or defend, not {requested}")
    mods = _force_test_modifiers(cv, status, Feature.MOUNTAIN in features, territory, snow)
    box: dict[str, tuple[str, Status | None]] = {}

    def judge(total: int, _nat: tuple[int, ...]) -> RollOutcome:
        outcome, new = force_test_outcome(total, status=status, requested=requested, mode=mode)
        box["r"] = (outcome, new)
        if new is None:
            return "force-test", {"result": outcome}
        return "force-test", {"result": outcome, "status": new.value}

    rec = dice.roll(purpose=purpose, rule="R5.2", modifiers=mods, judge=judge)
    outcome, new = box["r"]
    return ForceTestResult(rec, outcome, new)


def force_test_pass_probability(
    *,
    cv: int,
    status: Status,
    features: Iterable[Feature] = (),
    territory: Territory = Territory.NEUTRAL,
    snow: int = 0,
) -> dict[str, float]:
    """Exact distribution of force-test outcomes over the six faces (for the orders page)."""
    mods = force_test_modifiers(
        cv=cv, status=status, features=features, territory=territory, snow=snow
    )
    base = sum(m.value for m in mods)
    dist: dict[str, float] = {}
    for face in range(1, 7):
        outcome, _ = force_test_outcome(face + base, status=status, requested=Status.PROBE)
        dist[outcome] = dist.get(outcome, 0) + 1 / 6
    return dist


# --- R6.2 movement --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MovementResult:
    record: RollRecord | None  # None when no roll is made (Defend, storm)
    allowance: int
    must_move: bool

    @property
    def total(self) -> int | None:
        return self.record.total if self.record else None


def force_movement_modifiers(*, status: Status, territory: Territory) -> list[Modifier]:
    """R6.2 modifiers of the force itself, on land or on water (§6.11): the territory it
    starts in, and its status."""
    return list(_force_movement_modifiers(status, territory))


def _force_movement_modifiers(status: Status, territory: Territory) -> tuple[Modifier, ...]:
    got = _FORCE_MODS.get((status, territory))
    if got is not None:
        return got
    mods: list[Modifier] = []
    if territory is Territory.ENEMY:
        mods.append(Modifier("territory", T.MOVE_ENEMY_TERRITORY, _ENEMY))
    elif territory is Territory.FRIENDLY:
        mods.append(Modifier("territory", T.MOVE_FRIENDLY_TERRITORY, _FRIENDLY))
    if status in (Status.UNSTEADY, Status.SHATTERED):
        mods.append(
            Modifier("force-status", T.MOVE_UNSTEADY_OR_SHATTERED, {"status": status.value})
        )
    if status is Status.FULL_SPEED:
        mods.append(Modifier("full-speed", T.MOVE_FULL_SPEED))
    got = _FORCE_MODS[status, territory] = tuple(mods)
    return got


# The modifiers of a starting square and of a force's own state are the same every time for
# the same features, status and territory (a few dozen combinations): computed once each.
_FORCE_MODS: dict[tuple[Status, Territory], tuple[Modifier, ...]] = {}
_TERRAIN_MODS: dict[tuple[frozenset[Feature], bool], tuple[Modifier, ...]] = {}
_TERRAIN_MODS_MAX = 4096  # distinct feature sets on a map are few; bounded all the same
_TERRAIN_ORDER = (
    Feature.MOUNTAIN,
    Feature.FOREST,
    Feature.JUNGLE,
    Feature.RIVER,
    Feature.SWAMP,
    Feature.DESERT,
    Feature.WASTELAND,
    Feature.CULTIVATED,
    Feature.HILL,
    Feature.ROAD,
    Feature.TRACK,
)


def _terrain_modifiers(features: Iterable[Feature], naran_terrain: bool) -> tuple[Modifier, ...]:
    """R6.2 modifiers of the starting square (§6.3): bridge and pass only cancel river and
    mountain; jungle counts as forest, a road makes a track redundant."""
    feats = features if isinstance(features, frozenset) else frozenset(features)
    got = _TERRAIN_MODS.get((feats, naran_terrain))
    if got is not None:
        return got
    left = set(feats)
    if Feature.JUNGLE in left and Feature.FOREST in left:
        left.discard(Feature.JUNGLE)  # jungle counts as forest: one modifier
    if Feature.TRACK in left and Feature.ROAD in left:
        left.discard(Feature.TRACK)
    mods: list[Modifier] = []
    for f in _TERRAIN_ORDER:
        if f not in left or (not naran_terrain and f in T.NARAN_FEATURES):
            continue
        if naran_terrain and (
            (f is Feature.MOUNTAIN and Feature.PASS in left)
            or (f is Feature.RIVER and Feature.BRIDGE in left)
        ):
            continue  # cancelled: a modifier of 0, which the roll leaves out
        if T.MOVE_FEATURE_MOD[f]:
            mods.append(Modifier("starts-on", T.MOVE_FEATURE_MOD[f], {"feature": f.value}))
    got = tuple(mods)
    if len(_TERRAIN_MODS) < _TERRAIN_MODS_MAX:
        _TERRAIN_MODS[feats, naran_terrain] = got
    return got


def movement_modifiers(
    *,
    status: Status,
    features: Iterable[Feature] = (),
    territory: Territory = Territory.NEUTRAL,
    weather: Weather = Weather.FINE,
    snow: int = 0,
    heavy_ground: bool = False,
    naran_terrain: bool = True,
) -> list[Modifier]:
    """R6.2: every modifier of the starting square and the force, cumulative (none of 0)."""
    feats = features if isinstance(features, frozenset) else frozenset(features)
    return list(
        _movement_modifiers(feats, status, territory, weather, snow, heavy_ground, naran_terrain)
    )


def _movement_modifiers(
    features: frozenset[Feature],
    status: Status,
    territory: Territory,
    weather: Weather,
    snow: int,
    heavy_ground: bool,
    naran_terrain: bool,
) -> tuple[Modifier, ...]:
    key = (features, status, territory, weather, snow, heavy_ground, naran_terrain)
    got = _MOVE_MODS.get(key)
    if got is not None:
        return got
    mods = [
        *_terrain_modifiers(features, naran_terrain),
        *_force_movement_modifiers(status, territory),
    ]
    if T.MOVE_WEATHER[weather]:
        mods.append(Modifier("weather", T.MOVE_WEATHER[weather], {"weather": weather.value}))
    if snow * T.MOVE_PER_SNOW_LEVEL:
        mods.append(Modifier("snow", snow * T.MOVE_PER_SNOW_LEVEL, {"n": snow}))
    if heavy_ground and T.MOVE_HEAVY_GROUND:
        mods.append(Modifier("heavy-ground", T.MOVE_HEAVY_GROUND))
    got = tuple(m for m in mods if m[1])  # a modifier of 0 is not recorded (`Dice.roll`)
    if len(_MOVE_MODS) < _TERRAIN_MODS_MAX:
        _MOVE_MODS[key] = got
    return got


_MOVE_MODS: dict[tuple[object, ...], tuple[Modifier, ...]] = {}


# R6.2's outcome: the squares the total allows
_MOVEMENT_TEXT = Outcomes(lambda total: ("squares", {"n": T.movement_allowance(total)}))


def movement_roll(
    dice: Dice,
    *,
    purpose: str,
    status: Status,
    features: Iterable[Feature] = (),
    territory: Territory = Territory.NEUTRAL,
    weather: Weather = Weather.FINE,
    snow: int = 0,
    heavy_ground: bool = False,
    naran_terrain: bool = True,
) -> MovementResult:
    """R6.2 roll and R6.4 duties. Defend never moves and a storm holds still: no roll."""
    if status is Status.DEFEND or weather is Weather.STORM:
        return MovementResult(None, 0, False)
    feats = features if isinstance(features, frozenset) else frozenset(features)
    rec, allowance, must_move = roll_movement(
        dice, purpose, status, feats, territory, weather, snow, heavy_ground, naran_terrain
    )
    return MovementResult(rec, allowance, must_move)


def roll_movement(
    dice: Dice,
    purpose: str,
    status: Status,
    features: frozenset[Feature],
    territory: Territory,
    weather: Weather,
    snow: int,
    heavy_ground: bool,
    naran_terrain: bool,
) -> tuple[RollRecord, int, bool]:
    """`movement_roll` for a force that moves (not Defend, no storm): the roll, its allowance
    and whether it must move (R6.4.5). The movement phase calls it once a force, positionally
    and without the result object."""
    mods = _movement_modifiers(
        features, status, territory, weather, snow, heavy_ground, naran_terrain
    )
    rec = dice.roll_texts(purpose, "R6.2", _MOVEMENT_TEXT, mods)
    allowance = T.movement_allowance(rec[6] or 0)  # its total (one, as it is summed)
    return rec, allowance, status is Status.FULL_SPEED and allowance >= 1


# --- §4 weather ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WeatherResult:
    record: RollRecord
    weather: Weather

    @property
    def total(self) -> int:
        return max(1, min(6, self.record.total or 0))


def weather_test(dice: Dice, *, purpose: str, season: Season) -> WeatherResult:
    """R4.2: 1D6 + season modifier, clamped to 1..6 (R4.2.3)."""
    mods = [Modifier("season", T.SEASON_MOD[season], {"season": season.value})]
    rec = dice.roll(
        purpose=purpose,
        rule="R4.2",
        modifiers=mods,
        judge=lambda t, _n: ("weather", {"weather": T.weather_row(t).value}),
    )
    assert rec.total is not None
    return WeatherResult(rec, T.weather_row(rec.total))


# --- §8.1 wounded / §8.2 deserters ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FigureCheck:
    record: RollRecord | None
    checked: int
    kept: int  # recovered / returned
    lost: int  # dead / deserted


def _figure_check(
    dice: Dice,
    *,
    purpose: str,
    rule: str,
    count: int,
    mods: list[Modifier],
    outcome: str,
    kept_word: str,
    lost_word: str,
) -> FigureCheck:
    """Per-figure 1D6: natural 1 lost, natural 6 kept, otherwise modified 4+ kept."""
    if count <= 0:
        return FigureCheck(None, 0, 0, 0)
    net = sum(m.value for m in mods)
    box: dict[str, int] = {}

    def judge(_t: int, nat: tuple[int, ...]) -> Verdict:
        details: list[dict[str, Any]] = []
        kept = 0
        for n in nat:
            if n == 1:
                details.append({"die": 1, "fate": lost_word, "natural": True})
            elif n == 6:
                details.append({"die": 6, "fate": kept_word, "natural": True})
                kept += 1
            else:
                m = n + net
                ok = m >= T.RECOVER_AT
                kept += ok
                details.append({"die": n, "total": m, "fate": kept_word if ok else lost_word})
        box["kept"] = kept
        return outcome, {kept_word: kept, lost_word: len(nat) - kept}, details

    rec = dice.roll(
        purpose=purpose, rule=rule, count=count, modifiers=mods, judge=judge, summed=False
    )
    kept = box["kept"]
    return FigureCheck(rec, count, kept, count - kept)


def wounded_modifiers(territory: Territory, ambush: str | None = None) -> list[Modifier]:
    mods = []
    tmod = T.WOUNDED_TERRITORY_MOD[territory.value]
    if tmod:
        mods.append(Modifier("territory", tmod, {"territory": territory.value}))
    if ambush:
        mods.append(Modifier("ambush", T.AMBUSH_MOD[ambush], {"ambush": ambush}))
    return mods


def wounded_check(
    dice: Dice,
    *,
    purpose: str,
    killed: int,
    territory: Territory = Territory.NEUTRAL,
    ambush: str | None = None,
) -> FigureCheck:
    """R8.1 for a side that won or stalemated (callers skip it for a loser, R8.1.1)."""
    return _figure_check(
        dice,
        purpose=purpose,
        rule="R8.1",
        count=killed,
        mods=wounded_modifiers(territory, ambush),
        outcome="wounded",
        kept_word="recovered",
        lost_word="dead",
    )


def deserter_modifiers(
    quality: Quality, *, shattered: bool = False, ambush: str | None = None
) -> list[Modifier]:
    mods = []
    q = T.DESERTER_QUALITY_MOD[quality]
    if q:
        mods.append(Modifier("quality", q, {"quality": quality.value}))
    if shattered:
        mods.append(Modifier("shattered", T.DESERTER_SHATTERED_MOD))
    if ambush:
        mods.append(Modifier("ambush", T.AMBUSH_MOD[ambush], {"ambush": ambush}))
    return mods


def deserter_check(
    dice: Dice,
    *,
    purpose: str,
    figures: int,
    quality: Quality,
    shattered: bool = False,
    ambush: str | None = None,
) -> FigureCheck:
    """R8.2.5–6 (mercenaries of a losing side desert without a roll: R8.2.3, callers)."""
    return _figure_check(
        dice,
        purpose=purpose,
        rule="R8.2",
        count=figures,
        mods=deserter_modifiers(quality, shattered=shattered, ambush=ambush),
        outcome="deserters",
        kept_word="returned",
        lost_word="deserted",
    )


# --- §9.1 will to fight --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WillToFightInputs:
    won: int = 0
    lost: int = 0
    held: int = 0  # enemy holdings taken and still held, other than the enemy capital
    holdings_lost: int = 0  # own holdings the enemy took and still holds, other than capital
    enemy_capital: bool = False
    capital_lost: bool = False
    snow: int = 0


def will_to_fight_modifiers(i: WillToFightInputs, *, as_printed: bool = False) -> list[Modifier]:
    per_win = 3 if as_printed else 1  # A-03: table +1 governs
    mods = [
        Modifier("battles-won", per_win * i.won, {"n": i.won}),
        Modifier("battles-lost", -i.lost, {"n": i.lost}),
        Modifier("enemy-holdings-held", i.held, {"n": i.held}),
        Modifier("own-holdings-lost", -i.holdings_lost, {"n": i.holdings_lost}),
    ]
    if i.enemy_capital:
        mods.append(Modifier("enemy-capital-held", +3))
    if i.capital_lost:
        mods.append(Modifier("own-capital-lost", -3))
    if i.snow:
        mods.append(Modifier("snow", -i.snow, {"n": i.snow}))
    return mods


def will_to_fight(
    dice: Dice, *, purpose: str, inputs: WillToFightInputs, as_printed: bool = False
) -> tuple[RollRecord, bool]:
    """R9.1: total ≥ 0 passes, < 0 is complete disaster (A-04)."""
    rec = dice.roll(
        purpose=purpose,
        rule="R9.1",
        modifiers=will_to_fight_modifiers(inputs, as_printed=as_printed),
        judge=lambda t, _n: "passed" if t >= 0 else "disaster",
    )
    assert rec.total is not None
    return rec, rec.total >= 0


# --- §9.3 reinforcements ------------------------------------------------------------------------


def reinforcement_points(
    *, initial_points: int, holdings: int, capital: bool, capital_also_two_percent: bool = False
) -> int:
    """R9.3.10–11: 2 % of the initial points per holding controlled other than the own capital,
    10 % for the own capital (A-40; the alternative adds 2 % for the capital too)."""
    pct = T.REINF_PER_HOLDING_PCT * holdings
    if capital:
        pct += T.REINF_CAPITAL_PCT + (T.REINF_PER_HOLDING_PCT if capital_also_two_percent else 0)
    return initial_points * pct // 100


# --- small tables ---------------------------------------------------------------------------------


def countermarch(status: Status) -> tuple[bool, Status | None]:
    """R6.5.2 / R6.5.4: Defend and Shattered cannot; otherwise escalate."""
    if status in (Status.DEFEND, Status.SHATTERED):
        return False, None
    return True, T.escalate(status)


def post_battle_reaction(status: Status) -> Status:
    """R8.5 (third row inferred, A-08)."""
    return T.escalate(status)


def ammo_tokens(dice: Dice, *, purpose: str, status: Status) -> tuple[int, RollRecord | None]:
    """R7.8.3: 6 normally; Confused 1D6; Unsteady ⌈1D6/2⌉. A Shattered force never fights."""
    if status is Status.SHATTERED:
        raise ValueError("a Shattered force never fights: it collapses on contact (§1.3)")
    if status is Status.CONFUSED:
        rec = dice.roll(purpose=purpose, rule="R7.8.3", judge=lambda t, _n: ("tokens", {"n": t}))
        return rec.value, rec
    if status is Status.UNSTEADY:
        rec = dice.roll(
            purpose=purpose,
            rule="R7.8.3",
            judge=lambda t, _n: ("tokens-half", {"n": math.ceil(t / 2)}),
        )
        return math.ceil(rec.value / 2), rec
    return 6, None


def battle_result(
    *,
    method: str,
    points_a: int,
    points_b: int,
    lost_a: int,
    lost_b: int,
    wiped: str | None = None,
) -> str:
    """R7.3: returns a-wins / b-wins / stalemate. Core: only wiping out decides (R7.3.1–4);
    Italian: |lost_a − lost_b| ≤ 20 % of the smaller army is a stalemate (R7.3.6, A-26)."""
    if wiped == "both":
        return "stalemate"  # R7.3.4
    if wiped == "a":
        return "b-wins"
    if wiped == "b":
        return "a-wins"
    if method == "core":
        return "stalemate"
    if method == "italian":
        threshold = min(points_a, points_b) * 20 / 100
        if abs(lost_a - lost_b) <= threshold:
            return "stalemate"
        return "a-wins" if lost_a < lost_b else "b-wins"
    raise ValueError(
        f"battle result method {method!r} cannot be computed here: the English method needs "
        "the FW core victory-point score (R7.3.5); enter the outcome directly"
    )


def gr_command_test_modifier(hour: int) -> int:
    """R7.9.12: −3/−2/−1 in the first three hours, 0 after."""
    return T.GR_HOUR_MOD.get(hour, 0)


def field_works_quota(figures: int) -> int:
    """R7.8.4: up to 1 point per figure (TV-02)."""
    return figures


def event_roll(dice: Dice, *, purpose: str) -> tuple[RollRecord, str]:
    """§9.4.1 general 3D6 table (reconstructed alignment, A-05)."""
    rec = dice.roll(
        purpose=purpose,
        rule="§9.4.1",
        count=3,
        judge=lambda t, _n: ("event", {"event": T.GENERAL_EVENTS[t]}),
    )
    return rec, T.GENERAL_EVENTS[rec.total or 0]


def clamp_cv_event(cv: int, event: str) -> int:
    """D-18: leader emerges +1 (max 6); leader stress min(cv, 2) (A-42)."""
    if event == "leader-emerges":
        return min(T.CV_MAX, cv + 1)
    if event == "leader-stress":
        return min(cv, T.CV_STRESS)
    return cv
