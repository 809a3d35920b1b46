"""Phase 4 — after the battle (§8).

Battles are taken in contact order (R6.7.5). Each follows the order at the top of §8 [SR]:
(1) wounded check, (2) loser's reaction and lost loot, (3) deserter check, (4) [NARAN]
regrouping, (5) [NARAN] artefact capture, (6) post-battle map moves, (7) capture of holdings
left unoccupied, (8) leader replacement, (9) records and Will-to-Fight triggers.

Dice order, for scripted runs: per battle, the wounded checks, then the deserter checks; in
each, side "a" before side "b", a side's forces in pack order, and in a force its units in
roster order, then its generals, then its individuals. A unit is one ledger roll per check
(purposes `after:<battle>:wounded-<id>` and `after:<battle>:deserters-<id>`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from rules import tables as T
from rules.battle import BattleResult, BattleSide, PendingBattle, UnitLoss
from rules.checks import (
    FigureCheck,
    battle_result,
    deserter_check,
    post_battle_reaction,
    wounded_check,
)
from rules.dice import Dice
from rules.errors import InconsistentState, InvalidResult
from rules.events import (
    ArtefactsCaptured,
    BattleResolved,
    CaptureBlocked,
    DesertersChecked,
    Event,
    ForceMoved,
    HoldingCaptured,
    IndividualLost,
    LootLost,
    ReactionSuffered,
    RegroupPooled,
    WorksLost,
    WoundedChecked,
)
from rules.orders import orders_index
from rules.phases.common import remove_force
from rules.phases.promotion import replace_leader
from rules.types import (
    CampaignState,
    Command,
    Coord,
    Force,
    Options,
    Outcome,
    Quality,
    Status,
    Territory,
    Unit,
)
from rules.waterways import is_water

SIDE_KEYS = ("a", "b")  # pack.sides[0] is "a" (the contacting side), pack.sides[1] is "b"
FATES = ("killed", "fled")
VALID_PAIRS = {
    (Outcome.WON, Outcome.LOST),
    (Outcome.LOST, Outcome.WON),
    (Outcome.STALEMATE, Outcome.STALEMATE),
}

TERRITORY_RANK = {Territory.FRIENDLY: 0, Territory.NEUTRAL: 1, Territory.ENEMY: 2}


@dataclass
class _Fate:
    """Working tally for one force during one battle (local, never part of the state)."""

    dead: dict[str, int] = field(default_factory=dict)  # unit id → figures dead
    deserted: dict[str, int] = field(default_factory=dict)
    pooled: dict[str, int] = field(default_factory=dict)  # R8.3: recovered into the pool
    people_lost: set[str] = field(default_factory=set)  # generals and individuals


@dataclass(frozen=True, slots=True)
class _Aftermath:
    """What the steps after one battle read: the battle, its sides by key ("a", "b"), their
    outcomes, the result's losses by unit id and fates by person id, and the campaign's
    options as the battle's aftermath began (local, never part of the state)."""

    battle: PendingBattle
    sides: dict[str, BattleSide]
    outcome: dict[str, Outcome]
    losses: dict[str, UnitLoss]
    fates: dict[str, str]
    options: Options

    def rolls(self, dice: Dice, side: BattleSide) -> _Rolls:
        """The dice of `side`'s checks, with its ambush role (§7.10.5)."""
        return _Rolls(dice, self.battle.battle_id, _ambush_role(self.battle.pack.scenario, side))


@dataclass(frozen=True, slots=True)
class _Rolls:
    """The dice of one side's wounded and deserter checks in one battle: ledger purposes
    `after:<battle>:wounded-<id>` and `after:<battle>:deserters-<id>`, and the side's
    ambush role (§7.10.5), which modifies both."""

    dice: Dice
    bid: str
    ambush: str | None

    def wounded(self, who: str, killed: int, territory: Territory) -> FigureCheck:
        return wounded_check(
            self.dice,
            purpose=f"after:{self.bid}:wounded-{who}",
            killed=killed,
            territory=territory,
            ambush=self.ambush,
        )

    def deserters(self, who: str, figures: int, quality: Quality, routed: bool) -> FigureCheck:
        return deserter_check(
            self.dice,
            purpose=f"after:{self.bid}:deserters-{who}",
            figures=figures,
            quality=quality,
            shattered=routed,
            ambush=self.ambush,
        )


def resolve(
    state: CampaignState, results: Mapping[str, BattleResult], dice: Dice
) -> tuple[CampaignState, list[Event]]:
    """Apply every battle result. Invalid results raise `InvalidResult` before any die."""
    battles = sorted(state.pending_battles, key=lambda b: (b.contact_order, b.battle_id))
    outcomes: dict[str, dict[str, Outcome]] = {}
    for b in battles:
        if b.battle_id not in results:
            raise InvalidResult(f"battle {b.battle_id} has no result")
        outcomes[b.battle_id] = validate_result(state, b, results[b.battle_id])
    events: list[Event] = []
    for b in battles:
        state, ev = _after_one(state, b, results[b.battle_id], outcomes[b.battle_id], dice)
        events.extend(ev)
    return replace(state, pending_battles=()), events


# --- validation -------------------------------------------------------------------------------


def validate_result(
    state: CampaignState, battle: PendingBattle, result: BattleResult
) -> dict[str, Outcome]:
    """Check a result against its battle and return each side's outcome ("a"/"b")."""
    bid = battle.battle_id
    units, people = _fighters(state, battle)
    _check_unit_losses(bid, result, units)
    _check_fates(bid, result, people)
    _check_works(battle, result)
    out = _outcomes(state, battle, result)
    if state.options.battle_result_method == "core":
        _check_winner_stands(bid, result, out, units, people)
    return out


def _fighters(
    state: CampaignState, battle: PendingBattle
) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Who fought the battle: unit id → (side key, figures before), and general or individual
    id → side key. A force of the battle no longer in play is an inconsistent state."""
    units: dict[str, tuple[str, int]] = {}
    people: dict[str, str] = {}
    for key, side in _sides(battle).items():
        for bf in side.forces:
            try:
                f = state.force(bf.force_id)
            except KeyError:
                raise InconsistentState(
                    f"battle {battle.battle_id}: force {bf.force_id} is no longer in play"
                ) from None
            units.update({u.id: (key, u.figures) for u in f.units})
            people.update({g.id: key for g in f.generals})
            people.update({i.id: key for i in f.individuals})
    return units, people


def _check_unit_losses(bid: str, result: BattleResult, units: dict[str, tuple[str, int]]) -> None:
    """Whether the unit losses can hold: each of a unit that fought, listed once, no count
    negative, and no more figures removed than the unit had (R7.1.1)."""
    seen: set[str] = set()
    for loss in result.units:
        if loss.unit_id not in units:
            raise InvalidResult(f"battle {bid}: unit {loss.unit_id} did not fight in it")
        if loss.unit_id in seen:
            raise InvalidResult(f"battle {bid}: unit {loss.unit_id} is listed twice")
        seen.add(loss.unit_id)
        counts = (loss.killed, loss.fled, loss.left_oppose, loss.left_retreat)
        if min(counts) < 0:
            raise InvalidResult(f"battle {bid}: unit {loss.unit_id} has a negative count")
        had = units[loss.unit_id][1]
        if loss.removed > had:
            raise InvalidResult(
                f"battle {bid}: unit {loss.unit_id} had {had} figure(s) but the result "
                f"removes {loss.removed} (R7.1.1)"
            )


def _check_works(battle: PendingBattle, result: BattleResult) -> None:
    """R7.8.4/R7.8.6: only a force on Defend builds works, within what is left of its quota."""
    left = {bf.force_id: bf.works_quota for side in _sides(battle).values() for bf in side.forces}
    for fid, points in result.works_built.items():
        if fid not in left:
            raise InvalidResult(f"battle {battle.battle_id}: force {fid} did not fight in it")
        if points < 0 or points > left[fid]:
            raise InvalidResult(
                f"battle {battle.battle_id}: force {fid} may build 0 to {left[fid]} points of "
                f"field works (R7.8.4, R7.8.6), not {points}"
            )


def _check_fates(bid: str, result: BattleResult, people: dict[str, str]) -> None:
    """Whether the fates can hold: each of a general or character who fought, listed once,
    killed or fled."""
    seen: set[str] = set()
    for fate in result.individuals:
        if fate.individual_id not in people:
            raise InvalidResult(
                f"battle {bid}: {fate.individual_id} is not a general or individual character "
                "of a force in this battle"
            )
        if fate.individual_id in seen:
            raise InvalidResult(f"battle {bid}: {fate.individual_id} is listed twice")
        seen.add(fate.individual_id)
        if fate.fate not in FATES:
            raise InvalidResult(
                f"battle {bid}: fate {fate.fate!r} of {fate.individual_id} is not killed or fled"
            )


def _check_winner_stands(
    bid: str,
    result: BattleResult,
    out: dict[str, Outcome],
    units: dict[str, tuple[str, int]],
    people: dict[str, str],
) -> None:
    """Under the core method the winner drives the enemy off (R7.3.1–2), so it must keep at
    least one figure (a general or character counts as one) on the field."""
    for key in SIDE_KEYS:
        if out[key] is not Outcome.WON:
            continue
        left = sum(had for k, had in units.values() if k == key)
        left -= sum(loss.removed for loss in result.units if units[loss.unit_id][0] == key)
        left += sum(1 for k in people.values() if k == key)
        left -= sum(1 for fate in result.individuals if people[fate.individual_id] == key)
        if left <= 0:
            raise InvalidResult(
                f"battle {bid}: side {key} is the winner but has no figures left on the "
                "field; under the core method the winner drives the enemy off (R7.3.1–2)"
            )


def _sides(battle: PendingBattle) -> dict[str, BattleSide]:
    if len(battle.pack.sides) != 2:
        raise InconsistentState(f"battle {battle.battle_id}: a pack needs exactly two sides")
    return dict(zip(SIDE_KEYS, battle.pack.sides, strict=True))


def _outcomes(
    state: CampaignState, battle: PendingBattle, result: BattleResult
) -> dict[str, Outcome]:
    """R7.3: the given outcomes, or the configured method applied to the result's data. A
    battle ended by a storm (R4.2 table, A-60) is a stalemate [SR]."""
    bid = battle.battle_id
    if result.outcomes:
        if set(result.outcomes) != set(SIDE_KEYS):
            raise InvalidResult(f'battle {bid}: outcomes must name sides "a" and "b"')
        try:
            pair = (Outcome(result.outcomes["a"]), Outcome(result.outcomes["b"]))
        except ValueError as e:
            raise InvalidResult(f"battle {bid}: {e}") from None
        if pair not in VALID_PAIRS:
            raise InvalidResult(
                f"battle {bid}: outcomes {pair[0].value}/{pair[1].value} cannot both hold"
            )
        if result.ended_by_storm and pair[0] is not Outcome.STALEMATE:
            raise InvalidResult(f"battle {bid}: a battle ended by a storm has no winner (A-60)")
        return dict(zip(SIDE_KEYS, pair, strict=True))
    if set(result.points_lost) - set(SIDE_KEYS):
        raise InvalidResult(f'battle {bid}: points_lost must be keyed by "a" and "b"')
    if result.wiped not in (None, "a", "b", "both"):
        raise InvalidResult(f"battle {bid}: wiped must be a, b or both, not {result.wiped!r}")
    if result.ended_by_storm:
        if result.wiped in ("a", "b"):
            raise InvalidResult(f"battle {bid}: a side was wiped out, so no storm ended it")
        return {"a": Outcome.STALEMATE, "b": Outcome.STALEMATE}
    sides = _sides(battle)
    try:
        verdict = battle_result(
            method=state.options.battle_result_method,
            points_a=sides["a"].points,
            points_b=sides["b"].points,
            lost_a=result.points_lost.get("a", 0),
            lost_b=result.points_lost.get("b", 0),
            wiped=result.wiped,
        )
    except ValueError as e:
        raise InvalidResult(f"battle {bid}: {e}") from None
    if verdict == "a-wins":
        return {"a": Outcome.WON, "b": Outcome.LOST}
    if verdict == "b-wins":
        return {"a": Outcome.LOST, "b": Outcome.WON}
    return {"a": Outcome.STALEMATE, "b": Outcome.STALEMATE}


# --- one battle -----------------------------------------------------------------------------


def _after_one(
    state: CampaignState,
    battle: PendingBattle,
    result: BattleResult,
    outcome: dict[str, Outcome],
    dice: Dice,
) -> tuple[CampaignState, list[Event]]:
    bid, square = battle.battle_id, battle.square
    sides = _sides(battle)
    ab = _Aftermath(
        battle,
        sides,
        outcome,
        losses={u.unit_id: u for u in result.units},
        fates={f.individual_id: f.fate for f in result.individuals},
        options=state.options,
    )
    events: list[Event] = [BattleResolved(bid, square, {k: v.value for k, v in outcome.items()})]
    tally: dict[str, _Fate] = {bf.force_id: _Fate() for s in sides.values() for bf in s.forces}
    for fid, points in sorted(result.works_built.items()):  # R7.8.6: counted, never rebuilt
        f = state.force(fid)
        state = state.replace_force(replace(f, works_built=f.works_built + points))
    events += _wounded_checks(state, ab, tally, dice)  # (1)
    state, ev = _reactions(state, ab)  # (2)
    events += ev
    events += _deserter_checks(state, ab, tally, dice)  # (3)
    state, ev = _apply_fates(state, ab, tally)  # (4)
    events += ev

    # (5) R8.7 [NARAN] artefact capture by the victor.
    winner = next((k for k in SIDE_KEYS if outcome[k] is Outcome.WON), None)
    if ab.options.holding_features and winner is not None:
        state, ev = _capture_artefacts(state, square, sides[winner])
        events.extend(ev)

    # (6) R8.4 post-battle map moves.
    state, ev = _post_battle_moves(state, battle, result, outcome)
    events.extend(ev)

    # (7) R8.4.7 [SR, A-34]: the winner left alone with an enemy holding captures it.
    if winner is not None:
        state, ev = _capture_holding(state, square, sides[winner])
        events.extend(ev)

    state, ev = _replace_leaders(state, sides)  # (8)
    events += ev
    return _record(state, sides, outcome), events  # (9)


# --- (1) R8.1 wounded check -------------------------------------------------------------------


def _wounded_checks(
    state: CampaignState, ab: _Aftermath, tally: dict[str, _Fate], dice: Dice
) -> list[Event]:
    """(1) R8.1: the killed figures of every force, side "a" before "b", forces in pack order,
    units before people; only winners and stalemates check them (R8.1.1). Fills the tally."""
    events: list[Event] = []
    for key, side in ab.sides.items():
        rolls = ab.rolls(dice, side)
        checks = ab.outcome[key] is not Outcome.LOST
        for bf in side.forces:
            f, t = state.force(bf.force_id), tally[bf.force_id]
            territory = state.territory(f.owner, ab.battle.square)
            events += _wounded_units(f, ab, checks, rolls, territory, t)
            events += _wounded_people(f, ab, checks, rolls, territory, t)
    return events


def _wounded_units(
    f: Force, ab: _Aftermath, checks: bool, rolls: _Rolls, territory: Territory, t: _Fate
) -> list[Event]:
    """R8.1 for a force's units, in roster order: without a check (a loser, R8.1.1) all the
    killed are dead; with one, its lost are dead and, under R8.3 [NARAN], its kept pooled."""
    events: list[Event] = []
    for u in f.units:
        killed = ab.losses[u.id].killed if u.id in ab.losses else 0
        if not killed:
            continue
        if not checks:
            t.dead[u.id] = killed  # R8.1.1: a loser's killed figures are all dead
            continue
        chk = rolls.wounded(u.id, killed, territory)
        t.dead[u.id] = chk.lost
        if ab.options.naran_regroup:
            t.pooled[u.id] = chk.kept
        events.append(WoundedChecked(f.id, u.id, chk.checked, chk.kept, chk.lost))
    return events


def _wounded_people(
    f: Force, ab: _Aftermath, checks: bool, rolls: _Rolls, territory: Territory, t: _Fate
) -> list[Event]:
    """R8.1.2: every general and individual character of the force who was killed is checked
    too, generals first; a loser's are lost without a check (R8.1.1)."""
    events: list[Event] = []
    for pid in _people(f):
        if ab.fates.get(pid) != "killed":
            continue
        if checks:
            chk = rolls.wounded(pid, 1, territory)
            events.append(WoundedChecked(f.id, pid, 1, chk.kept, chk.lost))
            if not chk.lost:
                continue
        t.people_lost.add(pid)
        events.append(IndividualLost(f.id, pid, "killed", "R8.1.2" if checks else "R8.1.1"))
    return events


# --- (2) R8.5 the loser's reaction ------------------------------------------------------------


def _reactions(state: CampaignState, ab: _Aftermath) -> tuple[CampaignState, list[Event]]:
    """(2) R8.5: each losing force suffers the reaction to its status at the start of the
    battle; one carrying loot loses it (§11.6 rule 4)."""
    events: list[Event] = []
    for key, side in ab.sides.items():
        if ab.outcome[key] is not Outcome.LOST:
            continue
        for bf in side.forces:
            f = state.force(bf.force_id)
            new = post_battle_reaction(bf.status)
            events.append(ReactionSuffered(f.id, bf.status.value, new.value))
            state, ev = _lose_loot(state, replace(f, status=new))
            events.extend(ev)
    return state, events


# --- (3) R8.2 deserter check ------------------------------------------------------------------


def _deserter_checks(
    state: CampaignState, ab: _Aftermath, tally: dict[str, _Fate], dice: Dice
) -> list[Event]:
    """(3) R8.2: the figures that left the field, side "a" before "b", forces in pack order,
    units before people; reads the reaction just applied (R8.2.6, D-27). Fills the tally."""
    events: list[Event] = []
    for key, side in ab.sides.items():
        lost = ab.outcome[key] is Outcome.LOST
        rolls = ab.rolls(dice, side)
        for bf in side.forces:
            f, t = state.force(bf.force_id), tally[bf.force_id]
            events += _deserting_units(f, ab, lost, rolls, t)
            events += _deserting_people(f, ab, rolls, t)
    return events


def _deserting_units(f: Force, ab: _Aftermath, lost: bool, rolls: _Rolls, t: _Fate) -> list[Event]:
    """R8.2 for a force's units, in roster order: a loser's mercenaries desert without a roll
    (R8.2.3); every other unit checks its groups (`_deserter_groups`), the lost desert and,
    under R8.3 [NARAN], the kept are pooled."""
    shattered = f.status is Status.SHATTERED
    events: list[Event] = []
    for u in f.units:
        loss = ab.losses.get(u.id, UnitLoss(u.id))
        if lost and u.mercenary:
            events += _mercenaries_desert(f.id, u, loss, t)
            continue
        for n, routed, suffix in _deserter_groups(loss, lost, shattered, ab.options):
            if not n:
                continue
            chk = rolls.deserters(f"{u.id}{suffix}", n, u.quality, routed)
            t.deserted[u.id] = t.deserted.get(u.id, 0) + chk.lost
            if ab.options.naran_regroup:
                t.pooled[u.id] = t.pooled.get(u.id, 0) + chk.kept
            events.append(DesertersChecked(f.id, u.id, chk.checked, chk.kept, chk.lost))
    return events


def _mercenaries_desert(fid: str, u: Unit, loss: UnitLoss, t: _Fate) -> list[Event]:
    """R8.2.3: every surviving figure of a losing mercenary unit deserts, no roll."""
    n = u.figures - loss.killed
    if not n:
        return []
    t.deserted[u.id] = n
    return [DesertersChecked(fid, u.id, n, 0, n, automatic=True)]


def _deserter_groups(
    loss: UnitLoss, lost: bool, shattered: bool, opts: Options
) -> list[tuple[int, bool, str]]:
    """R8.2.1–2: which of a unit's figures are checked, as (figures, routed, purpose suffix):
    the fled always; Oppose exits only when lost (A-02, A-57); General Retreat exits never
    unless the option says so (R8.2.2a, A-58). Under `figure_routed` (A-09) the fled roll as
    routed and the exits apart; otherwise one roll, routed if the force is Shattered."""
    exits = (loss.left_oppose if lost else 0) + (
        loss.left_retreat if lost and opts.gr_exits_deserter_checked else 0
    )
    if opts.deserter_rout_modifier == "figure_routed":
        return [(loss.fled, True, ""), (exits, False, "-exits")]
    return [(loss.fled + exits, shattered, "")]


def _deserting_people(f: Force, ab: _Aftermath, rolls: _Rolls, t: _Fate) -> list[Event]:
    """R8.2 for every general and individual character of the force who fled, generals
    first. [SR] A fled character has no unit quality: Levy (+0); the rout modifier as for the
    figures of a unit (by force status, or always under figure_routed)."""
    routed = ab.options.deserter_rout_modifier == "figure_routed" or f.status is Status.SHATTERED
    events: list[Event] = []
    for pid in _people(f):
        if ab.fates.get(pid) != "fled":
            continue
        chk = rolls.deserters(pid, 1, Quality.LEVY, routed)
        events.append(DesertersChecked(f.id, pid, 1, chk.kept, chk.lost))
        if chk.lost:
            t.people_lost.add(pid)
            events.append(IndividualLost(f.id, pid, "deserted", "R8.2"))
    return events


# --- (4) R8.3 regrouping and the losses; (8) R8.6; (9) §9.1 ----------------------------------


def _apply_fates(
    state: CampaignState, ab: _Aftermath, tally: dict[str, _Fate]
) -> tuple[CampaignState, list[Event]]:
    """(4) R8.3 [NARAN] regrouping, then the tally's losses applied to every force of the
    battle; a force left without units is removed (R2.5.2)."""
    events: list[Event] = []
    for side in ab.sides.values():
        for bf in side.forces:
            f, t = state.force(bf.force_id), tally[bf.force_id]
            if ab.options.naran_regroup:
                f, ev = _regroup(f, t)
                events.extend(ev)
            f = _apply_losses(f, t)
            if f.units:
                state = state.replace_force(f)
            else:
                state, ev = remove_force(state, f, reason="no-units-left", rule="R2.5.2")
                events.extend(ev)
    return state, events


def _replace_leaders(
    state: CampaignState, sides: dict[str, BattleSide]
) -> tuple[CampaignState, list[Event]]:
    """(8) R8.6: every force of the battle still in play with no general left promotes a new
    CV 1 leader (`rules.phases.promotion`)."""
    events: list[Event] = []
    for side in sides.values():
        for bf in side.forces:
            if any(f.id == bf.force_id for f in state.forces):
                state, ev = replace_leader(state, state.force(bf.force_id))
                events.extend(ev)
    return state, events


def _record(
    state: CampaignState, sides: dict[str, BattleSide], outcome: dict[str, Outcome]
) -> CampaignState:
    """(9) §9.1 records: a battle won or lost for every player with a force in the battle,
    and the R9.1.2 Will-to-Fight trigger for each loser."""
    records = dict(state.records)
    for key, side in sides.items():
        for pid in dict.fromkeys(bf.owner for bf in side.forces):
            rec = state.record(pid)
            if outcome[key] is Outcome.WON:
                records[pid] = replace(rec, battles_won=rec.battles_won + 1)
            elif outcome[key] is Outcome.LOST:
                records[pid] = replace(rec, battles_lost=rec.battles_lost + 1)
                state = state.add_trigger(pid, "lost-battle")
    return replace(state, records=records)


def _people(f: Force) -> list[str]:
    return [g.id for g in f.generals] + [i.id for i in f.individuals]


def _ambush_role(scenario: str | None, side: BattleSide) -> str | None:
    """§7.10.5: ±1 to wounded and deserter checks for the ambusher / the ambushed."""
    if scenario == "ambush" and side.role in T.AMBUSH_MOD:
        return side.role
    return None


def _lose_loot(state: CampaignState, f: Force) -> tuple[CampaignState, list[Event]]:
    """§11.6 rule 4: a force carrying loot that loses a battle loses the loot; the sacked
    holding is destroyed and counts for no one (A-47)."""
    events: list[Event] = []
    for hid in f.loot:
        h = next(h for h in state.holdings if h.id == hid)
        state = state.replace_holding(replace(h, carried_by=None, destroyed=True))
        events.append(LootLost(f.id, hid))
    return state.replace_force(replace(f, loot=())), events


def _regroup(f: Force, t: _Fate) -> tuple[Force, list[Event]]:
    """R8.3.1 [NARAN]: figures recovered by the wounded and deserter checks do not go back to
    their units; their army-points value joins the force's pool of that speciality, which
    buys figures or new units of that speciality later (R8.3.2–3; [SR] spending is done when
    the army for the next battle is drawn up, outside this phase). Figures that came back
    without a check (exits under orders) rejoin their units. Unspent points stay (R8.3.4)."""
    gained: dict[str, int] = {}
    for u in f.units:
        n = t.pooled.get(u.id, 0)
        if n:
            gained[u.speciality.value] = gained.get(u.speciality.value, 0) + n * u.points_per_figure
    if not gained:
        return f, []
    pool = dict(f.regroup_pool)
    events: list[Event] = []
    for spec, pts in gained.items():
        pool[spec] = pool.get(spec, 0) + pts
        events.append(RegroupPooled(f.id, spec, pts, pool[spec]))
    return replace(f, regroup_pool=pool), events


def _apply_losses(f: Force, t: _Fate) -> Force:
    """Dead, deserted and pooled figures leave their units; empty units go; lost generals
    leave their commands, lost characters the force (R7.1.2: fates decided here)."""
    gone = 0
    commands: list[Command] = []
    for c in f.commands:
        units = []
        for u in c.units:
            lost = t.dead.get(u.id, 0) + t.deserted.get(u.id, 0)
            gone += lost
            left = u.figures - lost - t.pooled.get(u.id, 0)
            if left > 0:
                units.append(replace(u, figures=left))
        general = c.general if c.general and c.general.id not in t.people_lost else None
        if units or general:
            commands.append(replace(c, general=general, units=tuple(units)))
    individuals = tuple(i for i in f.individuals if i.id not in t.people_lost)
    return replace(
        f, commands=tuple(commands), individuals=individuals, figures_lost=f.figures_lost + gone
    )


def _capture_artefacts(
    state: CampaignState, square: Coord, side: BattleSide
) -> tuple[CampaignState, list[Event]]:
    """R8.7: a victory in enemy or neutral territory where a holding has one of the five Ars
    Arcana features gives its magic objects to the victor (A-35). [SR] The first player of the
    winning side with a force in the battle takes them."""
    h = state.holding_at(square)
    pid = side.forces[0].owner
    if h is None or h.feature not in T.ARS_ARCANA_FEATURES:
        return state, []
    if state.territory(pid, square) is Territory.FRIENDLY:
        return state, []
    holder = h.artefacts_holder or h.owner
    if not state.hostile(holder, pid):
        return state, []
    state = state.replace_holding(replace(h, artefacts_holder=pid))
    return state, [ArtefactsCaptured(h.id, h.feature, pid, holder)]


# --- R8.4 post-battle map movement ------------------------------------------------------------


def _post_battle_moves(
    state: CampaignState, battle: PendingBattle, result: BattleResult, outcome: dict[str, Outcome]
) -> tuple[CampaignState, list[Event]]:
    """R8.4 + A-33: who moves, then one square each, chosen from the owner's standing
    retreat preferences, the result's retreat choices, or the default (`_default_key`)."""
    sides = _sides(battle)
    present = {f.id for f in state.forces}
    movers = {
        k: [bf.force_id for bf in s.forces if bf.force_id in present] for k, s in sides.items()
    }
    events: list[Event] = []
    if Outcome.WON in outcome.values():  # R8.4.2: only the loser moves
        loser = next(k for k in SIDE_KEYS if outcome[k] is Outcome.LOST)
        for fid in movers[loser]:
            state, ev = _move_one(state, fid, battle, result, avoid=(), reason="retreat")
            events.extend(ev)
        return state, events
    # Stalemate, or a battle a storm ended ("as in a stalemate", R4.2 table).
    if all(bf.status is Status.DEFEND for s in sides.values() for bf in s.forces):
        return state, []  # R8.4.6: both had Defend before the battle: neither moves
    h = state.holding_at(battle.square)
    staying = {
        k
        for k, s in sides.items()
        if h is not None and s.forces and not state.hostile(h.owner, s.forces[0].owner)
    }  # R8.4.5: a side on its own or a friendly (incl. captured, fn 29) holding stays
    moving = [k for k in _pick_order(state, sides) if k not in staying and movers[k]]
    if len(moving) == 1:  # R8.4.3 [SR]: only one side moves: it simply moves one square away
        for fid in movers[moving[0]]:
            state, ev = _move_one(state, fid, battle, result, avoid=(), reason="stalemate")
            events.extend(ev)
        return state, events
    if not moving:
        return state, []
    # Both move: the side that lost the initiative picks first; the sides end at Chebyshev
    # distance ≥ 2 from each other where possible (R8.4.3 [SR], A-33).
    first, second = moving
    picked: list[Coord] = []
    foe = state.force(movers[second][0]).owner
    for fid in movers[first]:
        state, ev = _move_one(
            state,
            fid,
            battle,
            result,
            avoid=(),
            reason="stalemate",
            leave_room_for=(foe, picked),
        )
        events.extend(ev)
        if any(x.id == fid for x in state.forces):
            picked.append(state.force(fid).square)
    for fid in movers[second]:
        state, ev = _move_one(state, fid, battle, result, avoid=tuple(picked), reason="stalemate")
        events.extend(ev)
    return state, events


def _pick_order(state: CampaignState, sides: dict[str, BattleSide]) -> list[str]:
    """R8.4.3 [SR]: the side without the last initiative winner picks first; if neither side
    has him (or he is unknown), side "a" picks first."""
    w = state.initiative_winner
    if w is not None and any(bf.owner == w for bf in sides["a"].forces):
        return ["b", "a"]
    return ["a", "b"]


def _legal(state: CampaignState, fid: str, frm: Coord) -> list[Coord]:
    """R8.4.7 [SR]: one square, on the map, never into a square holding an enemy force, nor
    onto the water (§6.11 [SR]: a post-battle move is made on foot)."""
    owner = state.force(fid).owner
    hostile = {f.square for f in state.forces if state.hostile(f.owner, owner)}
    return [n for n in state.map.neighbours(frm) if n not in hostile and not is_water(state, n)]


def _cheb(a: Coord, b: Coord) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _default_key(state: CampaignState, fid: str) -> Callable[[Coord], tuple[int, ...]]:
    """[SR] The default retreat square, when the owner gave none that is legal: a square of
    a holding of his own side, then friendly before neutral before enemy territory, then
    farthest from any enemy force, then nearest his own capital, then the lowest (y, x)."""
    f = state.force(fid)
    enemies = [g.square for g in state.forces if state.hostile(g.owner, f.owner)]
    capital = next(
        (h.square for h in state.holdings if h.capital and h.original_owner == f.owner), None
    )

    def key(sq: Coord) -> tuple[int, ...]:
        h = state.holding_at(sq)
        own = h is not None and not state.hostile(h.owner, f.owner)
        far = min((_cheb(sq, e) for e in enemies), default=99)
        home = _cheb(sq, capital) if capital else 0
        return (
            0 if own else 1,
            TERRITORY_RANK[state.territory(f.owner, sq)],
            -far,
            home,
            sq[1],
            sq[0],
        )

    return key


def _preferences(
    state: CampaignState, fid: str, result: BattleResult, legal: list[Coord]
) -> list[Coord]:
    """Legal squares in preference order: standing `retreat_squares` (A-33), then the
    result's `retreat_choices`, then the default order."""
    out: list[Coord] = []
    fo = orders_index(state.orders).get(fid)
    wanted = list(fo.retreat_squares) if fo is not None else []
    if fid in result.retreat_choices:
        wanted.append(tuple(result.retreat_choices[fid]))  # type: ignore[arg-type]
    for sq in wanted:
        if sq in legal and sq not in out:
            out.append(sq)
    out.extend(sorted((sq for sq in legal if sq not in out), key=_default_key(state, fid)))
    return out


def _move_one(
    state: CampaignState,
    fid: str,
    battle: PendingBattle,
    result: BattleResult,
    *,
    avoid: tuple[Coord, ...],
    reason: str,
    leave_room_for: tuple[str, list[Coord]] | None = None,
) -> tuple[CampaignState, list[Event]]:
    """Move one force one square out of the battle square (R8.4.1: no modifiers); destroyed
    if no legal square exists (R8.4.7 [SR]). `avoid`: enemy squares to keep ≥ 2 away from,
    where possible; `leave_room_for`: the side that picks second and the squares already
    taken, so the first picker does not leave it without a separated square."""
    legal = _legal(state, fid, battle.square)
    if not legal:
        f = state.force(fid)
        return remove_force(state, f, reason="no-retreat-square", rule="R8.4.7")
    prefs = _preferences(state, fid, result, legal)
    choice = prefs[0]
    if avoid:
        separated = [sq for sq in prefs if all(_cheb(sq, a) >= 2 for a in avoid)]
        choice = separated[0] if separated else prefs[0]
    elif leave_room_for is not None:
        foe, taken = leave_room_for
        for sq in prefs:
            if _room_left(state, foe, battle.square, [*taken, sq]):
                choice = sq
                break
    return _relocate(state, state.force(fid), choice, reason)


def _room_left(state: CampaignState, foe: str, frm: Coord, taken: list[Coord]) -> bool:
    around = [n for n in state.map.neighbours(frm) if n not in taken and not is_water(state, n)]
    hostile = {f.square for f in state.forces if state.hostile(f.owner, foe)}
    return any(n not in hostile and all(_cheb(n, t) >= 2 for t in taken) for n in around)


def _relocate(
    state: CampaignState, f: Force, to: Coord, reason: str
) -> tuple[CampaignState, list[Event]]:
    events: list[Event] = [ForceMoved(f.id, (to,), reason=f"post-battle-{reason}", rule="R8.4")]
    moved = replace(f, square=to)
    if f.works_quota is not None:  # R7.8.5: dislodged, all field works are lost
        moved = replace(moved, works_quota=None, works_square=None, works_built=0)
        events.append(WorksLost(f.id))
    # Only the winner left alone on an enemy holding captures it (R8.4.7, A-34); a post-battle
    # move is not a Phase 2 move, so R6.8.1 does not apply to the retreating force.
    return state.replace_force(moved), events


def _capture_holding(
    state: CampaignState, square: Coord, side: BattleSide
) -> tuple[CampaignState, list[Event]]:
    """R8.4.7 [SR] / A-34: after the moves, a winner alone in a square with an enemy holding
    captures it (R6.8.1); the loser must test his Will to Fight (R9.1.3)."""
    h = state.holding_at(square)
    if h is None:
        return state, []
    here = [f for f in state.forces if f.square == square]
    ours = [bf.force_id for bf in side.forces if any(f.id == bf.force_id for f in here)]
    if not ours:
        return state, []
    captor = state.force(ours[0])
    if not state.hostile(h.owner, captor.owner):
        return state, []
    if any(state.hostile(f.owner, captor.owner) for f in here):
        return state, []
    if h.capital and state.options.siege_required_for_capital:
        # R2.3.6 [NARAN]: a capital falls only to a siege (Assedi rules, fought off-engine)
        return state, [CaptureBlocked(h.id, captor.id, "capital-needs-siege")]
    state = state.replace_holding(replace(h, owner=captor.owner))
    state = state.add_trigger(h.owner, "holding-lost")
    return state, [
        HoldingCaptured(h.id, captor.owner, h.owner, captor.id, h.capital, rule="R8.4.7")
    ]
