"""The tactical engine: one battle fought as abstract engagements, on the Drakerys resolution
system of spec §10.4, returning a `BattleResult` in the shape of a tabletop entry (R7.1, R7.3).

No table geometry. Each side deploys a front line (infantry, creatures), a support line
(missiles, artillery), two flanks (cavalry, flyers) and a reserve (one front unit in four).
Each battle turn (one clock period, R7.2) runs:

1. weather (R4.2.2, with `weather_phase`): a storm skips the turn, the clock jumps two
   periods, and at the penultimate turn the battle ends;
2. lines: reserves fill gaps in the front, columns arrive (§7.10.3);
3. engagements: front units pair off in order; extra units overlap the ends of the enemy line
   (flank attacks); flank pairs fight each other; unopposed flyers fall on the support line;
4. shooting (simultaneous): every unit with missiles and ammunition (R7.8.3) that is not in a
   combat shoots an enemy that is not in one; a target that loses warriors tests morale
   against the weapon's Saturation;
5. combats: attack, wound and casualty steps in Initiative order, then the advantage, and the
   losers test morale: 0 successes disperse the unit (its figures fled), 1 or 2 give it a
   Stress token;
6. end of turn: every unit sheds a Stress token (the Drakerys HQ phase) and disordered units
   try to rally; General Retreat units leave; the commander AI may order a General Retreat
   (§7.9), with its command test.

A side with no figures left on the field has lost (R7.3.1); at the end of `max_turns` the
campaign's victory method decides (R7.3). Every die goes through the injected `Dice`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from rules import tables as RT
from rules.battle import BattleResult, BattleSide, IndividualFate, UnitLoss
from rules.checks import battle_result, weather_test
from rules.dice import Dice, Modifier, RollOutcome, RollRecord
from rules.tactical import tables as T
from rules.tactical.inputs import BattleInput, check_input
from rules.tactical.profiles import FLANK, FRONT, SUPPORT, Profile, unit_profile
from rules.types import Command, Force, Outcome, Season, Status, Weather

ATTACK, DEFEND, OPPOSE = "attack", "defend", "oppose"
SIDE_KEYS = ("a", "b")
DEFAULT_AMMO = 6  # R7.8.3: any order


# --- compiled input (built once per input, shared by every run of a simulation) -------------


@dataclass(frozen=True, slots=True)
class UnitSpec:
    uid: str
    force_id: str
    command_id: str
    prof: Profile
    figures: int
    ppf: int
    disorganised: bool
    demoralised: bool
    ammo: int  # tokens; 0 for a unit without missiles
    stance: str
    shattered: bool
    works: bool  # its force built field works (R7.8.4)


@dataclass(frozen=True, slots=True)
class CommandSpec:
    command_id: str
    general_id: str | None
    cv: int


@dataclass(frozen=True, slots=True)
class PersonSpec:
    pid: str
    command_id: str | None  # a general's command; None for an individual character
    mounted: bool
    points: int


@dataclass(frozen=True, slots=True)
class SideSpec:
    key: str
    units: tuple[UnitSpec, ...]
    commands: tuple[CommandSpec, ...]
    people: tuple[PersonSpec, ...]
    layout: str  # lines / column / caught / single (§7.10)
    march: tuple[int, ...]  # unit indexes in marching order (columns)
    role: str
    scouting: str
    scouting_modifier: int
    points: int
    quotas: tuple[tuple[str, int], ...]  # force id → field-works quota (R7.8.4)
    no_retreat: bool  # §7.10.6: no General Retreat
    ambushed: bool


@dataclass(frozen=True, slots=True)
class Setup:
    battle_id: str
    sides: tuple[SideSpec, SideSpec]
    max_turns: int
    method: str
    weather: Weather
    effects: Mapping[str, object]
    weather_phase: bool
    season: Season
    storm_ends: bool
    terrain: T.TerrainEffect
    scenario: str | None
    gr_modifiers: Mapping[int, int]
    chance_switch: bool  # §7.10.3: all on Oppose until the enemy is sighted


def compile_input(inp: BattleInput) -> Setup:
    """Check the input and turn it into the engine's plain, picklable set-up."""
    check_input(inp)
    pack, opts = inp.pack, inp.options
    scenario = pack.scenario
    roles = [s.role for s in pack.sides]
    stances = [_side_stance(scenario, role) for role in roles]
    sides = []
    for i, side in enumerate(pack.sides):
        forces = [inp.force(bf.force_id) for bf in side.forces]
        sides.append(_side_spec(SIDE_KEYS[i], side, forces, stances[i], scenario))
    # [SR-T] when nobody would advance (both on Defend), the side that made contact attacks.
    if not any(u.stance == ATTACK for s in sides for u in s.units) and not scenario:
        a = sides[0]
        sides[0] = replace(a, units=tuple(replace(u, stance=ATTACK) for u in a.units))
    effects = dict(pack.weather_effects)
    return Setup(
        battle_id=pack.battle_id,
        sides=(sides[0], sides[1]),
        max_turns=pack.max_turns,
        method=opts.battle_result_method,
        weather=Weather(pack.weather),
        effects=effects,
        weather_phase=opts.weather_phase,
        season=opts.season,
        storm_ends=bool(effects.get("battle_ends_as_stalemate")) or opts.storm_ends_battle,
        terrain=_terrain(pack.features),
        scenario=scenario,
        gr_modifiers={int(k): int(v) for k, v in pack.gr_modifiers.items()},
        chance_switch=scenario == "chance-encounter",
    )


def _side_stance(scenario: str | None, role: str) -> str | None:
    """The orders a special scenario imposes on a side (§7.10), None when its forces' own
    statuses decide."""
    if scenario in ("ambush", "flank-attack"):
        return ATTACK if role in ("ambusher", "attacker") else OPPOSE
    if scenario == "final-massacre":
        return DEFEND if role == "defender" else ATTACK
    if scenario == "breakthrough":
        return DEFEND if role == "defender" else OPPOSE
    if scenario == "chance-encounter":
        return OPPOSE
    return None


def _layout(scenario: str | None, role: str) -> str:
    if scenario == "chance-encounter":
        return "column"  # §7.10.3: both in column, arriving a few units a turn
    if scenario == "breakthrough":
        return "single" if role == "defender" else "column"  # §7.10.2
    if scenario == "ambush" and role == "ambushed":
        return "caught"  # §7.10.5: the whole column is under attack
    if scenario == "flank-attack" and role == "defender":
        return "caught"  # §7.10.4
    return "lines"


def _side_spec(
    key: str, side: BattleSide, forces: list[Force], stance: str | None, scenario: str | None
) -> SideSpec:
    starts = {us.unit_id: us for bf in side.forces for us in bf.units}
    units: list[UnitSpec] = []
    commands: list[CommandSpec] = []
    people: list[PersonSpec] = []
    quotas: list[tuple[str, int]] = []
    march: list[int] = []
    for bf, f in zip(side.forces, forces, strict=True):
        own_stance = stance or (DEFEND if bf.status is Status.DEFEND else ATTACK)
        if bf.works_quota:
            quotas.append((f.id, bf.works_quota))
        # §7.10.3: the leader's command marches second, behind a vanguard.
        cmds = list(f.commands)
        leader = f.leader
        if leader is not None and len(cmds) > 1:
            lead = next(c for c in cmds if c.general is not None and c.general.id == leader.id)
            rest = [c for c in cmds if c is not lead]
            cmds = [rest[0], lead, *rest[1:]]
        order_of = {c.id: n for n, c in enumerate(cmds)}
        first = len(units)
        for c in f.commands:
            commands.append(CommandSpec(c.id, c.general.id if c.general else None, _cv(c)))
            if c.general is not None:
                g = c.general
                people.append(PersonSpec(g.id, c.id, g.mounted, g.points))
            for u in c.units:
                us = starts.get(u.id)
                prof = unit_profile(u)
                ammo = 0
                if prof.shooting:
                    ammo = us.ammo if us is not None and us.ammo is not None else DEFAULT_AMMO
                units.append(
                    UnitSpec(
                        uid=u.id,
                        force_id=f.id,
                        command_id=c.id,
                        prof=prof,
                        figures=u.figures,
                        ppf=u.points_per_figure,
                        disorganised=bool(us and (us.disorganised or us.demoralised)),
                        demoralised=bool(us and us.demoralised),
                        ammo=ammo,
                        stance=own_stance,
                        shattered=bf.status is Status.SHATTERED,
                        works=bool(bf.works_quota),
                    )
                )
        idx = list(range(first, len(units)))
        idx.sort(key=lambda n: order_of[units[n].command_id])  # stable within a command
        march.extend(idx)
        for ind in f.individuals:
            people.append(PersonSpec(ind.id, None, ind.mounted, ind.points))
    role = side.role
    return SideSpec(
        key=key,
        units=tuple(units),
        commands=tuple(commands),
        people=tuple(people),
        layout=_layout(scenario, role),
        march=tuple(march),
        role=role,
        scouting=side.scouting,
        scouting_modifier=side.scouting_modifier,
        points=side.points,
        quotas=tuple(quotas),
        no_retreat=scenario == "final-massacre",
        ambushed=scenario == "ambush" and role == "ambushed",
    )


def _cv(c: Command) -> int:
    return c.general.cv if c.general is not None else 0


def _terrain(features: Iterable[str]) -> T.TerrainEffect:
    """The combined effect of the square's features (§7.6)."""
    effects = [T.TERRAIN[f] for f in features if f in T.TERRAIN]
    if not effects:
        return T.TerrainEffect("")
    widths = [e.front_width for e in effects if e.front_width]
    return T.TerrainEffect(
        rule=", ".join(dict.fromkeys(e.rule for e in effects)),
        horse_combat=sum(e.horse_combat for e in effects),
        horse_charge=all(e.horse_charge for e in effects),
        charge=all(e.charge for e in effects),
        cover=max(e.cover for e in effects),
        initiative=sum(e.initiative for e in effects),
        front_width=min(widths) if widths else None,
        high_ground=max(e.high_ground for e in effects),
        crossing=sum(e.crossing for e in effects),
    )


# --- the outcome ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TacticalOutcome:
    """The battle result, with what the engine did: `turns` is the clock period reached,
    `played` the turns actually fought, `log` the engine's decisions with their rule ids, and
    the figures on the field at the start and at the end, per side."""

    result: BattleResult
    turns: int
    played: int
    log: tuple[str, ...] = ()
    start_figures: Mapping[str, int] = field(default_factory=dict)
    end_figures: Mapping[str, int] = field(default_factory=dict)


# --- run-time state (local to one run, never returned) --------------------------------------


class _Unit:
    __slots__ = (
        "spec", "uid", "key", "p", "figs", "wounds", "stress", "disorg", "demor", "ammo",
        "stance", "gone", "killed", "fled", "left_oppose", "left_retreat", "combat", "flank",
        "charging", "was_engaged", "column_until", "leave_at", "leave_as", "horse", "side",
        "prefix", "protected", "terms",
    )  # fmt: skip

    def __init__(self, spec: UnitSpec, side: _Side, prefix: str) -> None:
        self.spec = spec
        self.uid = spec.uid
        self.key = side.key
        self.side = side
        self.p = spec.prof
        self.figs = spec.figures
        self.wounds = 0
        self.stress = 0
        self.disorg = spec.disorganised
        self.demor = spec.demoralised
        self.ammo = spec.ammo
        self.stance = spec.stance
        self.gone = self.figs <= 0
        self.killed = self.fled = self.left_oppose = self.left_retreat = 0
        self.combat: list[list[_Unit]] | None = None
        self.flank = False
        self.charging = False
        self.was_engaged = False
        self.column_until = 0
        self.leave_at = 0
        self.leave_as = ""
        self.horse = self.p.line == FLANK and not self.p.flyer
        self.prefix = f"{prefix}{spec.uid}"
        self.protected = False  # behind field works (R7.8.4)
        self.terms: _Terms  # set by _Battle when it keeps a ledger


class _Side:
    __slots__ = (
        "spec", "key", "units", "front", "support", "left", "right", "reserve",
        "road", "withdrawing", "retreating", "routed_any", "destroyed_any", "history",
        "fates", "orderly", "enemy", "priority", "start_strength", "reformed",
    )  # fmt: skip

    def __init__(self, spec: SideSpec, prefix: str) -> None:
        self.spec = spec
        self.key = spec.key
        self.units = [_Unit(u, self, prefix) for u in spec.units]
        self.front: list[_Unit] = []
        self.support: list[_Unit] = []
        self.left: list[_Unit] = []
        self.right: list[_Unit] = []
        self.reserve: list[_Unit] = []
        self.road: list[tuple[int, _Unit]] = []  # (arrival turn, unit), column order
        self.withdrawing: list[_Unit] = []
        self.retreating = False
        self.routed_any = False
        self.destroyed_any = False
        self.history: list[float] = []
        self.fates: dict[str, str] = {}
        self.orderly = False
        self.enemy: _Side
        self.priority = False  # has the charge when both sides would charge
        self.start_strength = 0.0
        self.reformed = False  # a caught column has formed its lines

    def on_field(self) -> list[_Unit]:
        return [u for u in self.units if not u.gone]


# --- the Action Table roll ------------------------------------------------------------------

# The faces of a D10 under a threshold, deleted with `bytes.translate`: what is left are the
# successes (C speed, where a Python comparison per die cost more than the dice).
_BELOW = {t: bytes(range(1, t)) for t in range(2, 11)}
_PLURALS = {"hit": "hits", "wound": "wounds", "success": "successes"}  # outcome codes
# Builds a ledger entry without the named tuple's Python-level `__new__`.
_new_record = tuple.__new__


def _below(thr: int) -> bytes:
    """`_BELOW` for any threshold (≤ 1: every face succeeds; ≥ 11: none does)."""
    return _BELOW.get(thr) or bytes(range(1, max(1, min(thr, 11))))


# Outcomes by (noun, threshold, successes, criticals): a few hundred distinct ones recur
# thousands of times a battle, each (code, values) made once and shared by its entries (never
# mutated). Bounded, in case of unusual callers.
_OUTCOMES: dict[tuple[str, int, int, int], RollOutcome] = {}
_OUTCOMES_MAX = 4096


def _outcome(noun: str, thr: int, n: int, c: int) -> RollOutcome:
    """("hits", {"n": 4, "on": 5, "crit": 1}): 4 hits on 5+, 1 critical, the ledger's outcome
    of an Action Table roll (no "crit" when there is none)."""
    values = {"n": n, "on": thr, "crit": c} if c else {"n": n, "on": thr}
    got = (_PLURALS[noun], values)
    if len(_OUTCOMES) < _OUTCOMES_MAX:
        _OUTCOMES[noun, thr, n, c] = got
    return got


def _count(faces: Callable[[int, int], bytes], count: int, thr: int) -> int:
    """Successes of `count` D10 on `thr`+ with their criticals, nothing recorded (the
    simulation's fast path: the same dice as `_logged`)."""
    if count <= 0:
        return 0
    below = _BELOW.get(thr) or _below(thr)
    nat = faces(count, 10)
    s = len(nat.translate(None, below))
    c = nat.count(10)
    while c:
        nat = faces(c, 10)
        s += len(nat.translate(None, below))
        c = nat.count(10)
    return s


def _logged(
    dice: Dice,
    purpose: str,
    rule: str,
    count: int,
    thr: int,
    noun: str,
    mods: tuple[Modifier, ...],
) -> int:
    """`_count` with its ledger entries: one for the roll (with `mods`, its non-zero Action and
    Opposition terms), one per round of critical dice; each outcome reads e.g. `4 hits on
    5+, 1 critical`. The entries are those `Dice.roll` made with a judge, built directly
    (no judge callback, no keyword call: ~900 a battle)."""
    if count <= 0:
        return 0
    faces, ledger = dice.faces, dice.ledger
    below = _BELOW.get(thr) or _below(thr)
    nat = faces(count, 10)
    n = len(nat.translate(None, below))
    c = nat.count(10)
    code, values = _OUTCOMES.get((noun, thr, n, c)) or _outcome(noun, thr, n, c)
    entry = (len(ledger) + 1, purpose, rule, 10, tuple(nat), mods, None, code, values, ())
    ledger.append(_new_record(RollRecord, entry))
    if not c:
        return n
    s = n
    purpose += ":critical"
    while c:
        nat = faces(c, 10)
        n = len(nat.translate(None, below))
        c = nat.count(10)
        code, values = _OUTCOMES.get((noun, thr, n, c)) or _outcome(noun, thr, n, c)
        entry = (
            len(ledger) + 1, purpose, "§10.4 critical", 10, tuple(nat), (), None, code, values, (),
        )  # fmt: skip
        ledger.append(_new_record(RollRecord, entry))
        s += n
    return s


def action_roll(
    dice: Dice,
    *,
    purpose: str,
    rule: str,
    count: int,
    threshold: int,
    noun: str = "success",
    modifiers: list[Modifier] | None = None,
    ledger: bool = True,
) -> int:
    """One Action Table roll (§10.4): `count` D10, each die ≥ `threshold` a success; every
    natural 10 rolls one extra D10 for the same test (a critical; extra dice may crit again,
    [SR]). One ledger entry for the roll, one per round of critical dice. With
    `ledger=False` the same dice are read and nothing is recorded (the simulation's fast
    path: same dice, same count)."""
    if not ledger:
        return _count(dice.faces, count, threshold)
    mods = tuple(m for m in modifiers if m.value) if modifiers else ()
    return _logged(dice, purpose, rule, count, threshold, noun, mods)


def _number(effects: Mapping[str, object], key: str) -> int:
    """A numeric weather effect (R4.2), 0 when absent. A pack's effects are JSON, so a
    number may come as text; anything else is no number, as `int()` says."""
    value = effects.get(key, 0)
    if not isinstance(value, int | float | str):
        raise TypeError(f"weather effect {key!r} is not a number: {value!r}")
    return int(value)


def _mod(reason: str, value: int, params: Mapping[str, str] | None = None) -> Modifier | None:
    """A ledger term of an Action − Opposition; None when zero (the ledger lists the non-zero
    terms only, and `filter(None, …)` drops the Nones)."""
    return Modifier(reason, value, params) if value else None


# Terms that never change (built once, not per roll).
_M_CHARGE = _mod("charge", 1)
_M_FLANK = _mod("flank-attack", T.FLANK_BONUS)
_M_COLUMN = _mod("in-column", -T.COLUMN_PENALTY)
_M_WORKS = _mod("field-works", -T.WORKS_OPPOSITION)
_M_DEMORALISED = _mod("demoralised", -1)
_M_RANGE = {r: _mod("range", -r) for r in (T.SHORT_RANGE, T.LONG_RANGE)}


class _Terms:
    """A unit's own ledger terms (its profile does not change during a battle), built once
    per battle when the ledger is kept."""

    __slots__ = (
        "combat", "vs_combat", "strength", "vs_resistance", "shooting", "shot_strength",
        "willpower",
    )  # fmt: skip

    def __init__(self, uid: str, p: Profile) -> None:
        self.combat = _mod("combat", p.combat)
        self.vs_combat = _mod("enemy-combat", -p.combat, {"unit": uid})
        self.strength = _mod("strength", p.strength)
        self.vs_resistance = _mod("enemy-resistance", -p.resistance, {"unit": uid})
        self.shooting = _mod("shooting", p.shooting)
        self.shot_strength = _mod("weapon-strength", p.shot_strength)
        self.willpower = _mod("willpower", p.willpower)


class _Battle:
    def __init__(self, setup: Setup, dice: Dice, ledger: bool) -> None:
        self.s = setup
        self.dice = dice
        self.ledger = ledger
        self.bid = setup.battle_id
        prefix = f"battle:{self.bid}:"
        self.sides = (_Side(setup.sides[0], prefix), _Side(setup.sides[1], prefix))
        self.sides[0].enemy, self.sides[1].enemy = self.sides[1], self.sides[0]
        self.t = 0
        self.log: list[str] = []
        self.terrain = terr = setup.terrain
        self.faces = dice.faces
        self.missile_mod = 0
        self.melee_mod = 0
        # The ledger's terms, built once rather than per roll.
        self.m_missile: Modifier | None = None
        self.m_melee: Modifier | None = None
        self.m_ground = _mod("horse-terrain", terr.horse_combat)
        self.m_crossing = _mod("river-crossing", terr.crossing)
        self.m_cover = _mod("cover", -terr.cover)
        if ledger:
            for side in self.sides:
                for u in side.units:
                    u.terms = _Terms(u.uid, u.p)

    # --- dice ------------------------------------------------------------------------------

    def _d6(self, purpose: str, rule: str, mods: list[Modifier] | None = None) -> int:
        if not self.ledger:
            return self.dice.naturals(1, 6)[0] + sum(m.value for m in mods or ())
        rec = self.dice.roll(purpose=purpose, rule=rule, modifiers=mods or ())
        return rec.total if rec.total is not None else rec.value

    # --- the battle ------------------------------------------------------------------------

    def run(self) -> TacticalOutcome:
        s = self.s
        start = {side.key: sum(u.figs for u in side.units) for side in self.sides}
        for side in self.sides:
            self._shattered(side)
        weather = s.weather
        self._weather(weather)
        self._deploy()
        ended_by_storm = False
        t = 1
        played = 0
        last = 0
        first = True  # the first clock period (its weather is the pack's)
        if self._wiped_any():
            t = 0
        while 1 <= t <= s.max_turns:
            if not first and s.weather_phase:  # R4.2.2: a weather test every battle turn
                weather = self._weather_test(t)
                self._weather(weather)
            if weather is Weather.STORM:
                if s.storm_ends or t >= s.max_turns - 1:
                    self.log.append(f"turn {t}: a storm ends the battle (R4.2, A-60)")
                    ended_by_storm = True
                    last = t
                    break
                self.log.append(
                    f"turn {t}: a storm interrupts the battle; the clock jumps two periods (R4.2)"
                )
                if first and not s.weather_phase:
                    # [SR-T] without battle-turn weather tests the storm lasts one turn only.
                    weather = Weather.HEAVY_RAIN
                    self._weather(weather)
                t += 2
                first = False
                continue
            opening = played == 0
            if opening and s.scenario == "ambush":
                ambusher = self._role_side("ambusher")
                if ambusher is not None:
                    self._shooting(t, only=ambusher, extra=True)
            self._turn(t, opening)
            first = False
            played += 1
            last = t
            if self._wiped_any():
                break
            t += 1
        return self._finish(start, max(last, 0), played, ended_by_storm)

    def _weather_test(self, t: int) -> Weather:
        if self.ledger:
            purpose = f"battle:{self.bid}:t{t}:weather"
            return weather_test(self.dice, purpose=purpose, season=self.s.season).weather
        return RT.weather_row(self.dice.naturals(1, 6)[0] + RT.SEASON_MOD[self.s.season])

    def _weather(self, weather: Weather) -> None:
        s = self.s
        effects = s.effects if weather is s.weather else RT.WEATHER_BATTLE_EFFECTS[weather]
        self.missile_mod = _number(effects, "missile_to_hit")  # R4.2: −1/−2 to missiles
        self.melee_mod = _number(effects, "melee_to_hit")  # R4.2: −2 in melee, heavy rain
        self.m_missile = _mod("battle-weather", self.missile_mod)
        self.m_melee = _mod("battle-weather", self.melee_mod)

    def _role_side(self, role: str) -> _Side | None:
        for side in self.sides:
            if side.spec.role == role:
                return side
        return None

    def _shattered(self, side: _Side) -> None:
        """A Shattered force never fights: engaged, it collapses (§1.3, R6.7.8)."""
        for u in side.units:
            if u.spec.shattered and not u.gone:
                u.fled += u.figs
                u.figs = 0
                u.gone = True
                side.routed_any = True

    # --- deployment ------------------------------------------------------------------------

    def _deploy(self) -> None:
        s = self.s
        for side in self.sides:
            self._deploy_side(side)
        # Who has the charge when both sides would charge: the scouting winner (§7.5) or,
        # in a Chance Encounter, the side that deploys first (§7.10.3) [SR-T].
        if s.scenario == "chance-encounter":
            rolls = [
                self._d6(f"battle:{self.bid}:deploy-first-{side.key}", "§7.10.3")
                for side in self.sides
            ]
            if rolls[0] != rolls[1]:
                winner = self.sides[0 if rolls[0] > rolls[1] else 1]
                winner.priority = True
                self.log.append(f"side {winner.key} deploys its first command first (§7.10.3)")
        elif not s.scenario:
            scores = [self._scout(side) for side in self.sides]
            if scores[0] != scores[1]:
                ranked = [-99 if x is None else x for x in scores]
                i = 0 if ranked[0] > ranked[1] else 1
                winner = self.sides[i]
                winner.priority = True
                self._counter_deploy(winner)
                self.log.append(
                    f"side {winner.key} wins the scouting ({scores[i]} against "
                    f"{scores[1 - i] if scores[1 - i] is not None else 'no scouting'}) and "
                    "deploys second, matching its best units against the enemy's weakest (§7.5)"
                )
        for side in self.sides:
            self._place_works(side)
            side.start_strength = self._side_strength(side)
        self._describe()

    def _describe(self) -> None:
        """The set-up in the log: scenario, terrain, weather, lines, start states, works."""
        s = self.s
        if s.scenario:
            roles = ", ".join(f"side {x.key} {x.spec.role}" for x in self.sides if x.spec.role)
            self.log.append(f"scenario {s.scenario} (§7.10)" + (f": {roles}" if roles else ""))
        if s.terrain.rule:
            self.log.append(f"terrain: {s.terrain.rule}")
        if self.missile_mod or self.melee_mod:
            self.log.append(
                f"weather {s.weather.value}: missiles {self.missile_mod:+d}, melee "
                f"{self.melee_mod:+d} (R4.2)"
            )
        for side in self.sides:
            units = [u for u in side.units if not u.gone]
            lines = (
                f"front {len(side.front)}, support {len(side.support)}, flanks "
                f"{len(side.left) + len(side.right)}, reserve {len(side.reserve)}"
            )
            if side.road:
                lines = f"in column, arriving {T.COLUMN_RATE} units a turn"
            text = f"side {side.key}: {len(units)} units, {sum(u.figs for u in units)} figures; "
            text += lines
            dis = sum(1 for u in units if u.disorg and not u.demor)
            dem = sum(1 for u in units if u.demor)
            if dis:
                text += f"; {dis} disorganised (Confused, R7.8.1)"
            if dem:
                text += f"; {dem} demoralised (Unsteady, R7.8.2)"
            shooters = [u for u in units if u.p.shooting]
            if shooters:
                ammo = ", ".join(f"{u.uid} {u.ammo}" for u in shooters)
                text += f"; ammunition {ammo} (R7.8.3)"
            covered = [u for u in side.front if u.protected]
            if covered:
                text += (
                    f"; field works cover {len(covered)} front units, "
                    f"{sum(u.figs for u in covered)} figures (R7.8.4)"
                )
            gone = [u.uid for u in side.units if u.spec.shattered]
            if gone:
                text += f"; Shattered, collapses at once: {', '.join(gone)} (R6.7.8)"
            self.log.append(text)

    def _scout(self, side: _Side) -> int | None:
        """§7.5 [SR-T]: 1D6 (doubled for Defend, halved up for partial scouting) + the
        territory modifier; an Unsteady force cannot scout."""
        kind = side.spec.scouting
        if kind == "none":
            return None
        n = self._d6(f"battle:{self.bid}:scouting-{side.key}", "§7.5")
        value = {"doubled": 2 * n, "full": n, "partial": (n + 1) // 2}.get(kind, n)
        return value + side.spec.scouting_modifier

    def _deploy_side(self, side: _Side) -> None:
        spec = side.spec
        units = [u for u in side.units if not u.gone]
        if spec.layout == "column":
            order = [side.units[i] for i in spec.march if not side.units[i].gone]
            side.road = [(1 + n // T.COLUMN_RATE, u) for n, u in enumerate(order)]
            return
        if spec.layout == "caught":
            order = [side.units[i] for i in spec.march if not side.units[i].gone]
            side.front = order
            for u in order:
                u.column_until = T.COLUMN_TURNS  # the first turns, still in column
            return
        if spec.layout == "single":
            side.front = units  # §7.10.2: a single line, nobody behind another
            return
        for u in units:
            self._place(side, u)
        self._form(side, initial=True)

    def _place(self, side: _Side, u: _Unit) -> None:
        line = u.p.line
        if line == FRONT:
            side.front.append(u)
        elif line == SUPPORT:
            side.support.append(u)
        elif len(side.left) <= len(side.right):
            side.left.append(u)
        else:
            side.right.append(u)

    def _form(self, side: _Side, initial: bool = False) -> None:
        """Complete the lines: an army without infantry fights with its horse or its
        missiles in front [SR-T]; a quarter of a long front waits in reserve; a narrow field
        (mountain) holds fewer combats."""
        if not side.front:
            if side.left or side.right:
                side.front, side.left, side.right = side.left + side.right, [], []
            elif side.support:
                side.front, side.support = side.support, []
        if initial:
            n = len(side.front)
            keep = n - (n // T.RESERVE_SHARE if n >= T.RESERVE_SHARE else 0)
            width = self.terrain.front_width
            if width is not None:
                keep = min(keep, width)
            side.reserve = side.front[keep:] + side.reserve
            side.front = side.front[:keep]

    def _counter_deploy(self, winner: _Side) -> None:
        """The scouting winner deploys second: its strongest front units face the enemy's
        weakest (§7.5) [SR-T]."""
        enemy = winner.enemy
        k = min(len(winner.front), len(enemy.front))
        if k < 2:
            return
        weakest = sorted(range(k), key=lambda i: (self._strength(enemy.front[i]), i))
        mine = sorted(winner.front, key=lambda u: -self._strength(u))
        slots: list[_Unit | None] = [None] * k
        for j, i in enumerate(weakest):
            slots[i] = mine[j]
        winner.front = [u for u in slots if u is not None] + mine[k:]

    def _place_works(self, side: _Side) -> None:
        """R7.8.4: the works cover the front of each Defend force up to its quota (1 point per
        figure): a front slot is protected while its force's quota covers its figures."""
        budget = dict(side.spec.quotas)
        for u in side.front:
            left = budget.get(u.spec.force_id, 0)
            if u.spec.works and u.stance == DEFEND and 0 < u.figs <= left:
                budget[u.spec.force_id] = left - u.figs
                u.protected = True

    # --- one turn --------------------------------------------------------------------------

    def _turn(self, t: int, opening: bool) -> None:
        s = self.s
        self.t = t
        if s.chance_switch and not opening:  # §7.10.3: orders changed on sighting the enemy
            for side in self.sides:
                for u in side.units:
                    if u.stance == OPPOSE and not u.leave_at:
                        u.stance = ATTACK
        for side in self.sides:
            if side.spec.layout == "caught" and not side.reformed and t > T.COLUMN_TURNS:
                self._reform(side)  # [SR-T] the column has formed its lines
            self._fill(side, t)
        for side in self.sides:
            for u in side.units:
                u.combat = None
                u.flank = False
                u.charging = False
        # [SR-T] the armies close during the opening turn (missiles only), except where a
        # scenario starts in contact (ambush, flank attack, chance encounter).
        melee = not (opening and s.scenario in (None, "final-massacre", "breakthrough"))
        combats = self._engagements() if melee else []
        self._shooting(t)
        for c in combats:
            self._combat(c, t)
        self._end_of_turn(t)

    def _reform(self, side: _Side) -> None:
        side.reformed = True
        units = [u for u in side.front if not u.gone]
        side.front = []
        for u in units:
            self._place(side, u)
        self._form(side, initial=True)

    def _fill(self, side: _Side, t: int) -> None:
        """Gaps in the front are filled from the reserve (works stay with the slot); columns
        arrive (§7.10.3)."""
        front = []
        reserve = [u for u in side.reserve if not u.gone]
        for u in side.front:
            if u.gone or u.leave_as == "retreat":
                if reserve:
                    new = reserve.pop(0)
                    new.protected = u.protected
                    front.append(new)
                continue
            front.append(u)
        side.front, side.reserve = front, reserve
        side.support = [u for u in side.support if not u.gone]
        side.left = [u for u in side.left if not u.gone]
        side.right = [u for u in side.right if not u.gone]
        if side.road:
            arrived = [u for when, u in side.road if when <= t and not u.gone]
            side.road = [(when, u) for when, u in side.road if when > t]
            for u in arrived:
                self._place(side, u)
        if not side.front and side.reserve:
            side.front, side.reserve = side.reserve, []
        if not side.front:
            self._form(side)

    def _engagements(self) -> list[list[list[_Unit]]]:
        """Pair the lines into combats (see the module docstring)."""
        a, b = self.sides
        combats: list[list[list[_Unit]]] = []
        k = min(len(a.front), len(b.front))
        for i in range(k):
            self._engage(combats, a.front[i], b.front[i])
        for x, y in ((a.left, b.right), (a.right, b.left)):
            for i in range(min(len(x), len(y))):
                self._engage(combats, x[i], y[i])
        for side in self.sides:
            self._overlap(combats, side, k)
            self._unopposed_flanks(combats, side)
        return combats

    def _overlap(self, combats: list[list[list[_Unit]]], side: _Side, k: int) -> None:
        """Front units beyond the first `k` (the paired ones) overlap the end of the enemy
        line, from its last unit inwards (flank attacks); a column cannot wrap round it. With
        no enemy front they fall on what is left of the enemy (`_fallback`)."""
        enemy = side.enemy
        ek = len(enemy.front)
        for j, u in enumerate(side.front[k:]):
            if u.column_until >= self.t:
                continue  # a column cannot wrap round the enemy line
            if ek:
                self._join(combats, u, enemy.front[(ek - 1 - j) % ek], True)
            else:
                self._join_fallback(combats, u, enemy, j)

    def _unopposed_flanks(self, combats: list[list[list[_Unit]]], side: _Side) -> None:
        """Unopposed flyers fall on the enemy support line; unopposed horse strike the end of
        the enemy line on their own side (each side counts its slots from its left: the same
        rule for both, whatever gaps open), or what is left of the enemy (`_fallback`)."""
        enemy = side.enemy
        for mine, theirs, end in ((side.left, enemy.right, 0), (side.right, enemy.left, -1)):
            for j, u in enumerate(mine[len(theirs) :]):
                if u.p.flyer and enemy.support:
                    self._join(combats, u, enemy.support[j % len(enemy.support)], True)
                elif enemy.front:
                    self._join(combats, u, enemy.front[end], True)
                else:
                    self._join_fallback(combats, u, enemy, j)

    @staticmethod
    def _engage(combats: list[list[list[_Unit]]], x: _Unit, y: _Unit) -> None:
        """A new combat of `x` and `y`, side a's units first."""
        c = [[x], [y]] if x.key == "a" else [[y], [x]]
        combats.append(c)
        x.combat = y.combat = c

    @classmethod
    def _join(cls, combats: list[list[list[_Unit]]], u: _Unit, target: _Unit, flank: bool) -> None:
        """`u`, if not yet engaged, attacks `target`: a new combat (in flank if `flank`) if
        the target is free, else it joins the target's combat, always in flank."""
        if u.combat is not None:
            return
        if target.combat is None:
            cls._engage(combats, u, target)
            u.flank = flank
            return
        c = target.combat
        c[0 if u.key == "a" else 1].append(u)
        u.combat = c
        u.flank = True

    @classmethod
    def _join_fallback(
        cls, combats: list[list[list[_Unit]]], u: _Unit, enemy: _Side, j: int
    ) -> None:
        """`u`, the `j`-th of the unopposed units, attacks what `_fallback` finds left of the
        enemy, if anything (not in flank)."""
        target = cls._fallback(enemy, j)
        if target is not None:
            cls._join(combats, u, target, False)

    @staticmethod
    def _fallback(enemy: _Side, j: int) -> _Unit | None:
        """With no enemy front left, attack what remains: support, flanks, reserve."""
        pool = [u for u in (*enemy.support, *enemy.left, *enemy.right, *enemy.reserve)]
        pool = [u for u in pool if not u.gone]
        return pool[j % len(pool)] if pool else None

    # --- shooting --------------------------------------------------------------------------

    def _shooting(self, t: int, only: _Side | None = None, extra: bool = False) -> None:
        """§10.4 shooting, both sides at once: hits and wounds are rolled against the
        targets as they stood, then applied; then the morale tests (Saturation)."""
        sides = (only,) if only is not None else self.sides
        shots: list[tuple[_Unit, _Unit, int]] = []
        for side in sides:
            enemy = side.enemy
            targets = [
                u
                for u in (*enemy.front, *enemy.left, *enemy.right, *enemy.support)
                if u.combat is None and not u.gone
            ]
            if not targets:
                continue
            n = 0
            for u in (*side.support, *side.left, *side.right, *side.front):
                if u.gone or u.combat is not None or not u.p.shooting or u.ammo <= 0:
                    continue
                target = targets[n % len(targets)]
                n += 1
                wounds = self._shoot(u, target, t, side, extra)
                if wounds:
                    shots.append((u, target, wounds))
        hurt: dict[str, tuple[_Unit, int]] = {}
        for u, target, wounds in shots:
            if target.gone:
                continue
            if self._wound(target, wounds):
                sat = max(hurt.get(target.uid, (target, 0))[1], u.p.saturation)
                hurt[target.uid] = (target, sat)
        for target, sat in hurt.values():
            if not target.gone:
                self._morale(target, sat, f"t{t}:morale-shot", "saturation")

    def _shoot(self, u: _Unit, target: _Unit, t: int, side: _Side, extra: bool) -> int:
        u.ammo -= 1  # R7.8.3: one token per shooting phase
        p = u.p
        long_range = T.SHORT_RANGE if u in side.front else T.LONG_RANGE
        cover = self.terrain.cover
        works = T.WORKS_OPPOSITION if target.protected else 0
        state = u.stress + u.disorg + u.demor
        action = p.shooting + self.missile_mod - state
        opposition = long_range + cover + works
        thr = T.threshold(action, opposition)
        rule = "§7.10.5 extra missile phase" if extra else "§10.4 shooting"
        dice = min(u.figs, 2 * p.frontage) * p.power
        wthr = T.threshold(p.shot_strength, target.p.resistance)
        if not self.ledger:
            hits = _count(self.faces, dice, thr)
            return _count(self.faces, hits, wthr)
        step = "extra-shot" if extra else f"t{t}:shoot"
        ut = u.terms
        mods = (
            ut.shooting,
            self.m_missile,
            _mod("stress", -state) if state else None,
            _M_RANGE[long_range],
            self.m_cover,
            _M_WORKS if works else None,
        )
        purpose = f"{u.prefix}:{step}-{target.uid}"
        hits = _logged(self.dice, purpose, rule, dice, thr, "hit", tuple(filter(None, mods)))
        if not hits:
            return 0
        wmods = tuple(filter(None, (ut.shot_strength, target.terms.vs_resistance)))
        purpose = f"{u.prefix}:{step}-wound"
        return _logged(self.dice, purpose, "§10.4 wound", hits, wthr, "wound", wmods)

    # --- melee -----------------------------------------------------------------------------

    def _combat(self, c: list[list[_Unit]], t: int) -> None:
        """§10.4 melee: attacks in Initiative order (ties strike together), then the
        combat advantage and the losers' morale tests."""
        ca, cb = c
        self._charges(ca, cb)
        self._charges(cb, ca)
        self._one_charge(ca, cb)
        dealt = self._strikes(ca, cb, t)
        alive_a = [u for u in ca if not u.gone]
        alive_b = [u for u in cb if not u.gone]
        for u in (*ca, *cb):
            if not u.gone:
                u.was_engaged = True
        if not alive_a or not alive_b:
            return
        hill = self.terrain.high_ground
        adv_a = self._advantage(alive_a, alive_b, dealt[0], dealt[1], hill)
        adv_b = self._advantage(alive_b, alive_a, dealt[1], dealt[0], hill)
        if adv_a == adv_b:
            return  # Drakerys: a tie makes both winners
        losers, winners = (alive_b, alive_a) if adv_a > adv_b else (alive_a, alive_b)
        fear = max(u.p.fear for u in winners)
        diff = abs(adv_a - adv_b)
        for u in losers:
            self._morale(u, diff + fear, f"t{t}:morale", "advantage")

    def _one_charge(self, ca: list[_Unit], cb: list[_Unit]) -> None:
        """[SR-T] Where both sides of a combat would charge, only the side with the initiative
        (scouting) does; if neither has it, nobody charges."""
        if any([u.charging for u in ca]) and any([u.charging for u in cb]):
            keep = ca if self.sides[0].priority else cb if self.sides[1].priority else None
            for u in (*ca, *cb):
                if keep is None or u not in keep:
                    u.charging = False

    def _strikes(self, ca: list[_Unit], cb: list[_Unit], t: int) -> list[int]:
        """§10.4 attacks in Initiative order, +1 per friendly unit engaged with the same enemy;
        the order is (−initiative, position): ties keep side a's units before side b's, but
        strike together (their wounds land after all of them have attacked). Each attacks
        the first enemy still standing. Returns the wounds dealt by side a and side b."""
        ti = self.terrain.initiative
        bonus = (len(ca) - 1, len(cb) - 1)
        # (List comprehensions, not generators, in the hot loops: Python 3.12 inlines them.)
        order = sorted(
            [
                (-(u.p.initiative + ti + u.charging + bonus[u.key == "b"]), n, u)
                for n, u in enumerate([*ca, *cb])
            ]
        )
        dealt = [0, 0]
        i, count = 0, len(order)
        while i < count:
            level = order[i][0]
            pending: list[tuple[_Unit, int]] = []
            while i < count and order[i][0] == level:
                u = order[i][2]
                i += 1
                if u.gone:
                    continue
                for target in cb if u.key == "a" else ca:
                    if not target.gone:
                        break
                else:
                    continue
                w = self._attack(u, target, t)
                if w:
                    pending.append((target, w))
                    dealt[u.key == "b"] += w
            for target, w in pending:
                if not target.gone:
                    self._wound(target, w)
        return dealt

    def _charges(self, mine: list[_Unit], theirs: list[_Unit]) -> None:
        target = None
        for e in theirs:  # a plain loop: no generator for the usual one-unit side
            if not e.gone:
                target = e
                break
        terr = self.terrain
        for u in mine:
            u.charging = (
                u.stance == ATTACK
                and not u.was_engaged
                and not u.disorg
                and not u.demor
                and u.column_until < self.t
                and terr.charge
                and (terr.horse_charge or not u.horse)
                and target is not None
                and not target.protected  # stakes stop a charge (R7.8.4) [SR-T]
            )

    def _attack(self, u: _Unit, target: _Unit, t: int) -> int:
        p = u.p
        terr = self.terrain
        front = min(u.figs, p.frontage)
        support = (min(u.figs - front, p.frontage) + T.SUPPORT_PER - 1) // T.SUPPORT_PER
        dice = front * (p.power + (p.charge_power if u.charging else 0)) + support * T.SUPPORT_POWER
        charge = 1 if u.charging else 0
        column = T.COLUMN_PENALTY if u.column_until >= t else 0
        # A column cannot wrap round the enemy; a unit caught in column is taken in flank.
        flank = T.FLANK_BONUS if (u.flank and not column) or target.column_until >= t else 0
        state = u.disorg + u.demor  # Stress weighs on shooting and the advantage only
        ground = terr.horse_combat if u.horse else 0
        crossing = terr.crossing if (u.stance == ATTACK and not u.was_engaged) else 0
        works = T.WORKS_OPPOSITION if target.protected else 0
        action = p.combat + charge + flank + self.melee_mod + ground + crossing - state - column
        opposition = target.p.combat + works
        thr = T.threshold(action, opposition)
        wthr = T.threshold(p.strength, target.p.resistance)
        if not self.ledger:
            hits = _count(self.faces, dice, thr)
            return _count(self.faces, hits, wthr)
        ut, tt = u.terms, target.terms
        mods = (
            ut.combat,
            _M_CHARGE if charge else None,
            _M_FLANK if flank else None,
            self.m_melee,
            self.m_ground if ground else None,
            self.m_crossing if crossing else None,
            _mod("disorder", -state) if state else None,
            _M_COLUMN if column else None,
            tt.vs_combat,
            _M_WORKS if works else None,
        )
        purpose = f"{u.prefix}:t{t}:attack-{target.uid}"
        hits = _logged(
            self.dice, purpose, "§10.4 attack", dice, thr, "hit", tuple(filter(None, mods))
        )
        if not hits:
            return 0
        wmods = tuple(filter(None, (ut.strength, tt.vs_resistance)))
        purpose = f"{u.prefix}:t{t}:wound"
        return _logged(self.dice, purpose, "§10.4 wound", hits, wthr, "wound", wmods)

    def _wound(self, u: _Unit, wounds: int) -> int:
        """§10.4 casualties: every `health` wounds remove one warrior. Returns the dead."""
        u.wounds += wounds
        dead = u.wounds // u.p.health
        if not dead:
            return 0
        u.wounds -= dead * u.p.health
        dead = min(dead, u.figs)
        u.figs -= dead
        u.killed += dead
        if u.figs <= 0:
            u.gone = True
            u.wounds = 0
            u.side.destroyed_any = True
        return dead

    @staticmethod
    def _advantage(
        mine: list[_Unit], theirs: list[_Unit], dealt: int, taken: int, hill: int
    ) -> int:
        """§10.4 combat advantage: charged, more wounds, more warriors, less stress; units
        holding a hill (Defend) have the high ground (§7.6) [SR-T]."""
        if len(mine) == 1 and len(theirs) == 1:  # most combats: the same sums, no generators
            u, e = mine[0], theirs[0]
            adv = (1 if u.charging else 0) + (dealt > taken) + (u.figs > e.figs)
            adv += u.stress < e.stress
            if hill and u.stance == DEFEND:
                adv += hill
            return adv
        adv = 1 if any(u.charging for u in mine) else 0
        adv += dealt > taken
        adv += sum(u.figs for u in mine) > sum(u.figs for u in theirs)
        adv += max(u.stress for u in mine) < min(u.stress for u in theirs)
        if hill and any(u.stance == DEFEND for u in mine):
            adv += hill
        return adv

    def _morale(self, u: _Unit, opposition: int, step: str, cause: str) -> None:
        """§10.4 morale: 2D10 + 1D10 per full 5 warriors. 0 successes: the unit disperses (its
        figures fled, R7.1.1); 1: destabilised, 2: hesitant (either way a Stress token, which
        weighs on its shooting and its next combat's advantage)."""
        if u.gone:
            return
        action = u.p.willpower - u.demor
        thr = T.threshold(action, opposition)
        n = T.MORALE_BASE_DICE + u.figs // T.MORALE_DICE_PER
        if self.ledger:
            mods = (
                u.terms.willpower,
                _M_DEMORALISED if u.demor else None,
                _mod("opposition", -opposition, {"cause": cause}),
            )
            purpose = f"{u.prefix}:{step}"
            got = _logged(
                self.dice, purpose, "§10.4 morale", n, thr, "success", tuple(filter(None, mods))
            )
        else:
            got = _count(self.faces, n, thr)
        if got == 0:
            u.fled += u.figs
            u.figs = 0
            u.gone = True
            u.side.routed_any = True
        elif got <= 2:
            u.stress = min(u.stress + 1, T.STRESS_CAP)

    # --- end of the turn -------------------------------------------------------------------

    def _end_of_turn(self, t: int) -> None:
        for side in self.sides:
            for u in side.units:
                if u.gone:
                    continue
                if u.stress:
                    u.stress -= 1  # Drakerys HQ phase: one Stress token off every unit
                if u.combat is None:
                    u.was_engaged = False
                if (u.disorg or u.demor) and not u.leave_at:
                    self._rally(u, t)
                if u.leave_at == t:  # R7.9.8: across the base line, off the table
                    if u.leave_as == "retreat":
                        u.left_retreat += u.figs
                    else:
                        u.left_oppose += u.figs
                    u.figs = 0
                    u.gone = True
            side.withdrawing = [u for u in side.withdrawing if not u.gone]
        if self.s.scenario == "final-massacre":
            defender = self._role_side("defender")
            if defender is not None:
                self._massacre_tests(defender, t)
        for side in self.sides:
            side.history.append(self._side_strength(side))
        for side in self.sides:
            self._commander(side, t)

    def _rally(self, u: _Unit, t: int) -> None:
        """[SR-T] at the end of each turn a disorganised unit reorganises on one D10,
        Willpower vs 3 (vs 4 in a combat); a demoralised one recovers to merely disorganised
        on Willpower vs 4 (vs 5 in a combat)."""
        opp = T.RALLY_OPPOSITION_DEMORALISED if u.demor else T.RALLY_OPPOSITION
        if u.combat is not None:
            opp += T.RALLY_IN_COMBAT
        thr = T.threshold(u.p.willpower, opp)
        if self.ledger:
            rule = "§10.4 morale (rally)"
            got = _logged(self.dice, f"{u.prefix}:t{t}:rally", rule, 1, thr, "success", ())
        else:
            got = _count(self.faces, 1, thr)
        if got:
            if u.demor:
                u.demor = False
            else:
                u.disorg = False

    def _strength(self, u: _Unit) -> float:
        cond = (
            1
            - T.CONDITION_STRESS * u.stress
            - T.CONDITION_DISORGANISED * u.disorg
            - T.CONDITION_DEMORALISED * u.demor
        )
        return u.figs * u.p.value * max(cond, 0.1)

    def _side_strength(self, side: _Side) -> float:
        return sum([self._strength(u) for u in side.units if not u.gone and not u.leave_at])

    def _commander(self, side: _Side, t: int) -> None:
        """The commander AI (§7.9): order a General Retreat when the battle is clearly lost
        and the army would otherwise be destroyed before the end, weighing the R7.9.12
        command-test risk of the hour."""
        s = self.s
        if side.retreating or side.spec.no_retreat or not side.on_field():
            return
        remaining = s.max_turns - t
        if remaining < 1 or (remaining < 2 and s.method == "core"):
            return  # holding on to the end is a stalemate (R7.3.3), retreating a defeat
        own, enemy = side.history[-1], side.enemy.history[-1]
        if enemy <= 0 or own >= T.GR_RATIO * enemy or own >= T.GR_SPENT * side.start_strength:
            return  # not clearly lost: still half as strong as the enemy, or barely hurt
        desperate = own < T.GR_DESPERATE * enemy
        hist = [side.start_strength, *side.history]
        span = min(T.GR_PACE_TURNS, len(hist) - 1)
        pace = (hist[-1 - span] - own) / span  # strength lost per turn, lately
        if not desperate and (pace <= 0 or own / pace > remaining):
            return  # it can hold until the end
        mods = self._command_mods(side, t, retreat=True)
        cv = max((c.cv for c in side.spec.commands), default=0)
        risk = sum(1 for n in range(1, 7) if n + cv + sum(m.value for m in mods) < 5) / 6
        if risk > T.GR_MAX_ROUT_RISK and not desperate:
            return
        self._general_retreat(side, t, own / enemy)

    def _command_mods(self, side: _Side, t: int, retreat: bool) -> list[Modifier]:
        mods = []
        if retreat:
            mods.append(Modifier("general-retreat", self.s.gr_modifiers.get(t, 0), {"hour": t}))
        if side.routed_any:
            mods.append(Modifier("unit-routed", T.COMMAND_ROUTED_MOD))
        if side.destroyed_any:
            mods.append(Modifier("unit-destroyed", T.COMMAND_DESTROYED_MOD))
        if side.spec.ambushed:
            mods.append(Modifier("ambushed", T.COMMAND_AMBUSHED_MOD))
        return mods

    def _general_retreat(self, side: _Side, t: int, ratio: float) -> None:
        """R7.9: units out of combat withdraw and leave at the end of the next turn (left
        under General Retreat); units in combat stay on Oppose to cover them and leave the
        turn after (left under orders, as the covering command of TV-09). Accepting the
        order causes a command test at the end of this turn (R7.9.1) for every command."""
        side.retreating = True
        self.log.append(
            f"turn {t}: side {side.key} orders a General Retreat at {ratio:.0%} of the enemy's "
            "strength (R7.9)"
        )
        self._command_tests(side, t, retreat=True)
        for u in side.units:
            if u.gone:
                continue
            if u.combat is not None:
                u.stance = OPPOSE
                u.leave_at, u.leave_as = t + 2, "oppose"
            else:
                u.leave_at, u.leave_as = t + 1, "retreat"
                side.withdrawing.append(u)
        for line in ("support", "left", "right", "reserve"):
            setattr(side, line, [u for u in getattr(side, line) if u.leave_as != "retreat"])
        side.road = []  # units still marching up turn back
        side.front = [u for u in side.front if u.leave_as != "retreat"]
        side.orderly = True

    def _command_tests(self, side: _Side, t: int, retreat: bool) -> None:
        """§10.3 command test per command: 1D6 + the general's CV + modifiers. 7+ OK; 6 its
        units disorganised; 5 demoralised; 4 or less the command routs."""
        mods = self._command_mods(side, t, retreat)
        for cmd in side.spec.commands:
            units = [u for u in side.units if u.spec.command_id == cmd.command_id and not u.gone]
            if not units:
                continue
            general = {"general": cmd.general_id} if cmd.general_id else None
            cmods = [Modifier("general-cv", cmd.cv, general), *mods]
            step = "command-test" if retreat else "surrender-test"
            rule = "R7.9.1 command test" if retreat else "§7.10.6 command test"
            total = self._d6(f"battle:{self.bid}:t{t}:{step}-{cmd.command_id}", rule, cmods)
            if total >= T.COMMAND_OK:
                continue
            if total == T.COMMAND_DISORGANISED:
                for u in units:
                    u.disorg = True
            elif total == T.COMMAND_DEMORALISED:
                for u in units:
                    u.disorg = u.demor = True
            else:
                what = "routs" if retreat else "surrenders (§7.10.6)"
                self.log.append(f"turn {t}: command {cmd.command_id} of side {side.key} {what}")
                for u in units:
                    u.fled += u.figs
                    u.figs = 0
                    u.gone = True
                side.routed_any = True
                if cmd.general_id is not None:
                    person = next(p for p in side.spec.people if p.pid == cmd.general_id)
                    self._fate(side, person, t)

    def _massacre_tests(self, side: _Side, t: int) -> None:
        """§7.10.6: every defending command tests at the end of every turn; flight is
        surrender (its figures are recorded as fled) [SR-T]."""
        self._command_tests(side, t, retreat=False)

    def _fate(self, side: _Side, person: PersonSpec, t: int) -> None:
        """[SR-T] a general or character caught in a collapse: 1D6 (+1 mounted), 1–2 killed,
        otherwise fled."""
        if person.pid in side.fates:
            return
        mods = [Modifier("mounted", 1)] if person.mounted else []
        total = self._d6(f"battle:{self.bid}:t{t}:fate-{person.pid}", "R7.1.1 individuals", mods)
        side.fates[person.pid] = "killed" if total <= T.FATE_KILLED_MAX else "fled"

    # --- the end ---------------------------------------------------------------------------

    def _wiped_any(self) -> bool:
        return any(not side.on_field() for side in self.sides)

    def _finish(
        self, start: dict[str, int], turns: int, played: int, ended_by_storm: bool
    ) -> TacticalOutcome:
        s = self.s
        wiped_keys = [side.key for side in self.sides if not side.on_field()]
        wiped = None
        if len(wiped_keys) == 2:
            wiped = "both"
        elif wiped_keys:
            wiped = wiped_keys[0]
        for side in self.sides:
            if side.key not in wiped_keys:
                continue
            withdrew = any(u.left_retreat or u.left_oppose for u in side.units)
            if withdrew and side.orderly:
                continue  # the generals and characters left with the army (R7.9)
            for person in side.spec.people:
                self._fate(side, person, turns)
        lost = {}
        for side in self.sides:
            pts = sum((u.killed + u.fled) * u.spec.ppf for u in side.units)
            pts += sum(p.points for p in side.spec.people if p.pid in side.fates)
            lost[side.key] = pts
        if ended_by_storm:
            outcomes = {"a": Outcome.STALEMATE, "b": Outcome.STALEMATE}
            wiped = None
        else:
            verdict = battle_result(
                method=s.method,
                points_a=s.sides[0].points,
                points_b=s.sides[1].points,
                lost_a=lost["a"],
                lost_b=lost["b"],
                wiped=wiped,
            )
            outcomes = {
                "a-wins": {"a": Outcome.WON, "b": Outcome.LOST},
                "b-wins": {"a": Outcome.LOST, "b": Outcome.WON},
            }.get(verdict, {"a": Outcome.STALEMATE, "b": Outcome.STALEMATE})
        units = tuple(
            UnitLoss(u.uid, u.killed, u.fled, u.left_oppose, u.left_retreat)
            for side in self.sides
            for u in side.units
        )
        people = tuple(
            IndividualFate(pid, fate) for side in self.sides for pid, fate in side.fates.items()
        )
        result = BattleResult(
            battle_id=s.battle_id,
            outcomes=outcomes,
            points_lost=lost,
            wiped=wiped,
            units=units,
            individuals=people,
            ended_by_storm=ended_by_storm,
            resolver="auto",
            # R7.8.6: the engine's defender builds every point it may (works=bool(quota))
            works_built={fid: q for side in self.sides for fid, q in side.spec.quotas if q},
        )
        end = {side.key: sum(u.figs for u in side.units if not u.gone) for side in self.sides}
        return TacticalOutcome(result, turns, played, tuple(self.log), start, end)


def fight_setup(setup: Setup, dice: Dice, *, ledger: bool = True) -> TacticalOutcome:
    """Fight one battle of a compiled set-up (the simulation's inner loop)."""
    return _Battle(setup, dice, ledger).run()


def resolve(inp: BattleInput, dice: Dice, *, ledger: bool = True) -> TacticalOutcome:
    """Fight the battle of `inp` with `dice`: the result, the engine's log, and (in
    `dice.ledger`) every roll with its Action/Opposition modifiers and outcome.
    `ledger=False` reads exactly the same dice without recording them (the simulation's
    fast path: same battle, same result, empty ledger)."""
    return fight_setup(compile_input(inp), dice, ledger=ledger)


def fight(inp: BattleInput, dice: Dice) -> BattleResult:
    """The battle result alone, as a tabletop entry would give it."""
    return resolve(inp, dice).result
