"""Phase 8 — random events (§9.4) and scenario key events (§11.8).

Scenario key days (e.g. Incursion days 7–35): first the one snow roll (by the role whose
entry holds the snow table, R11.8 [SR]: map-wide, levels accumulate), then each role's
events table in the file's role order, one 1D6 per active player of that role.

§9.4 [NARAN], when `random_events` is on, on the reinforcement schedule [SR A-41]: for each
active player in player order, the 3D6 general table (on an 8 the player may roll again, and
then both apply, A-41; whether he does is his standing choice, `PlayerOrders.event_reroll`,
rules.phases.event_choices), then the 1D6 tribal table if the player is tribal (§9.4.2),
then the 1D6 catastrophe table (§9.4.3). All are independent rolls.

Order of Phases 6–8 on an Incursion key day [SR]: day and end checks (Phase 6), then every
role's reinforcements and purchases (Phase 7), then snow and events (Phase 8). Extra points
from events go to the bank and are spent on the player's next reinforcement occasion.

Choices the rules leave to the owner use these defaults [SR A-41]: a gift (hero, wizard,
scouts, tokens, CV +1) goes to his forces by highest leader CV, then most points, then lowest
id, skipping forces with no room for another character (R2.5.5: individuals ≤ units).
Tokens are dealt one at a time round the chosen forces (or archer units). Where a blow falls
(CV stress, the storm's Shattered, an epidemic's holding, a catastrophe's square) is its
owner's choice (A-41): the first still valid of his ranked `PlayerOrders.event_targets`
(rules.phases.event_choices). Without one, [SR] it falls where it hurts him least among the
targets where it bites at all: the lowest-CV leader above the stress's CV 2, the weakest
force not yet Shattered, the holding or square with the fewest of his points (counting the
bank at his capital) that holds a force of his or his banked reserves. Only where no target
would feel it does the least-harm target among all take it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from rules import tables as T
from rules.checks import clamp_cv_event, event_roll
from rules.dice import Dice, Judge, RollOutcome
from rules.events import (
    BankChanged,
    CatastropheStruck,
    EpidemicStruck,
    Event,
    ForcePointsLost,
    IndividualJoined,
    LeaderCvChanged,
    MagicPointsGained,
    RandomEvent,
    ReactionSuffered,
    SnowFell,
    TokensGained,
)
from rules.phases.common import remove_force
from rules.phases.event_choices import chosen, rolls_again
from rules.phases.reinforcements import id_key, own_capital
from rules.scenarios import EventSpec, Scenario, Table, scenario_for
from rules.types import CampaignState, Coord, Force, Holding, Individual, IndividualKind, Status

Result = tuple[CampaignState, list[Event]]


@dataclass(frozen=True, slots=True)
class Told:
    """What an event's own record says beyond its follow-up events: an outcome code of
    rules.event_codes.EVENT_OUTCOMES, with `count` of `kind` lost."""

    outcome: str = "done"
    kind: str = ""
    count: int = 0


DONE = Told()
Applied = tuple[CampaignState, list[Event], Told]  # new state, its events, its outcome

# §9.4.1 (reconstructed alignment, A-05) in the scenario vocabulary.
GENERAL: dict[str, EventSpec] = {
    "none": EventSpec("none"),
    "reinforcements-50": EventSpec("points", {"points": 50}),
    "reinforcements-100": EventSpec("points", {"points": 100}),
    "reinforcements-150": EventSpec("points", {"points": 150}),
    "reinforcements-100-reroll": EventSpec("points", {"points": 100, "reroll": True}),
    "hero-arrives": EventSpec("hero"),
    "hero-rouses-people": EventSpec("hero", {"points": T.EVENT_POINTS["hero-rouses-people"]}),
    "leader-stress": EventSpec("leader-stress"),
    "scouts": EventSpec("scouts", {"count": 2}),
    "leader-emerges": EventSpec("leader-emerges"),
    "individual-emerges": EventSpec("individual", {"kind": "hero"}),
    "magic-item": EventSpec("magic-item"),
    "ars-arcana-200": EventSpec("ars-arcana", {"points": 200}),
    "wizard-magic-points": EventSpec("wizard-points", {"magic_points": 25}),
    "wizard-joins": EventSpec("wizard", {"magic_points": 25}),
}
# §9.4.2 and §9.4.3.
TRIBAL: dict[str, EventSpec] = {
    "none": EventSpec("none"),
    "spirit-rations": EventSpec("tokens", {"kind": "spirit", "dice": 1, "target": "forces"}),
    "poisoned-arrows": EventSpec(
        "tokens", {"kind": "poisoned-arrows", "dice": 1, "target": "archers"}
    ),
}
CATASTROPHE: dict[str, EventSpec] = {
    "none": EventSpec("none"),
    "storm": EventSpec("blizzard"),
    "epidemic-holding": EventSpec("epidemic-holding", {"points": 100}),
    "epidemic-capital": EventSpec("epidemic-capital", {"points": 100}),
    "catastrophe-square": EventSpec("catastrophe"),
}


def resolve(state: CampaignState, dice: Dice) -> Result:
    if state.ended:
        return state, []
    events: list[Event] = []
    scenario = scenario_for(state)
    if scenario is not None and scenario.schedule:
        state, ev = _key_day(state, scenario, dice)
        events.extend(ev)
    if state.options.random_events and _event_day(state):
        for p in state.active_players():
            state, ev = _random_events(state, p.id, dice)
            events.extend(ev)
    return state, events


def _event_day(state: CampaignState) -> bool:
    """[SR A-41] the reinforcement schedule: every `reinforcement_interval_days` days."""
    every = state.options.reinforcement_interval_days
    return state.day > 0 and every > 0 and state.day % every == 0


# --- scenario key days --------------------------------------------------------------------------


def _key_day(state: CampaignState, scenario: Scenario, dice: Dice) -> Result:
    key = scenario.key_day(state.day)
    if key is None:
        return state, []
    events: list[Event] = []
    for role_id, rd in key.roles.items():
        if rd.snow is None:
            continue
        table = rd.snow
        rec = dice.roll(
            purpose=f"events:snow-day-{key.day}-{role_id}",
            rule="R11.8",
            judge=_snow_judge(table),
        )
        levels = table.lookup(rec.value)
        if levels:
            state = replace(state, snow=replace(state.snow, levels=state.snow.levels + levels))
        events.append(SnowFell(levels, state.snow.levels, rule="R11.8"))
    for role_id, rd in key.roles.items():
        if rd.events is None:
            continue
        for p in state.active_players():
            if p.role != role_id:
                continue
            table = rd.events
            purpose = f"events:{p.id}:day-{key.day}"
            while True:
                rec = dice.roll(
                    purpose=purpose,
                    rule="§11.8",
                    judge=_event_judge(table),
                )
                spec = table.lookup(rec.value)
                state, ev, told = _apply(state, dice, p.id, spec, "§11.8", purpose)
                again = rolls_again(state, p.id, spec)
                kept = spec.get("reroll", False) and not again
                table_id = f"day-{key.day}-{role_id}"
                events.append(
                    RandomEvent(
                        p.id,
                        table_id,
                        spec.key,
                        rec.value,
                        "§11.8",
                        *_told(told, kept),
                        day=key.day,
                        role=role_id,
                    )
                )
                events.extend(ev)
                if not again:  # "+100 and you may roll another die": same table
                    break
                purpose = f"{purpose}-again"
    return state, events


def _snow_judge(table: Table) -> Judge:
    """A snow roll's outcome (R11.8): the levels its row of the scenario's table adds."""
    return lambda t, _n: ("snow", {"n": table.lookup(t)})


def _event_judge(table: Table) -> Judge:
    """A key-day event roll's outcome (§11.8): the event its row of the table names."""
    return lambda t, _n: ("event", {"event": table.lookup(t).key})


# --- §9.4 ------------------------------------------------------------------------------------


def _random_events(state: CampaignState, pid: str, dice: Dice) -> Result:
    events: list[Event] = []
    purpose = f"events:{pid}:general"
    while True:  # §9.4.1; 8 = +100 and he may roll again, both applied
        rec, key = event_roll(dice, purpose=purpose)
        spec = GENERAL[key]
        state, ev, told = _apply(state, dice, pid, spec, "§9.4.1", purpose)
        again = rolls_again(state, pid, spec)
        kept = spec.get("reroll", False) and not again
        events.append(
            RandomEvent(pid, "general", key, rec.total or 0, "§9.4.1", *_told(told, kept))
        )
        events.extend(ev)
        if not again:
            break
        purpose = f"events:{pid}:general-again"
    if state.player(pid).tribal:
        state, ev = _table_1d6(state, dice, pid, "tribal", T.TRIBAL_EVENTS, TRIBAL, "§9.4.2")
        events.extend(ev)
    state, ev = _table_1d6(
        state, dice, pid, "catastrophe", T.CATASTROPHE_EVENTS, CATASTROPHE, "§9.4.3"
    )
    events.extend(ev)
    return state, events


def _table_1d6(
    state: CampaignState,
    dice: Dice,
    pid: str,
    name: str,
    table: dict[int, str],
    specs: dict[str, EventSpec],
    rule: str,
) -> Result:
    purpose = f"events:{pid}:{name}"
    rec = dice.roll(purpose=purpose, rule=rule, judge=lambda t, _n: ("event", {"event": table[t]}))
    key = table[rec.value]
    state, ev, told = _apply(state, dice, pid, specs[key], rule, purpose)
    return state, [RandomEvent(pid, name, key, rec.value, rule, *_told(told, False)), *ev]


def _told(told: Told, kept: bool) -> tuple[str, bool, str, int]:
    """RandomEvent's outcome, kept, kind and count fields."""
    return told.outcome, kept, told.kind, told.count


# --- effects -----------------------------------------------------------------------------------


def _apply(
    state: CampaignState, dice: Dice, pid: str, spec: EventSpec, rule: str, purpose: str
) -> Applied:
    """Carry out one event for player `pid`. Returns the new state, the events it caused and
    what its own record says of it (`Told`)."""
    effect = EFFECTS.get(spec.key)
    if effect is None:
        raise AssertionError(f"unknown event {spec.key!r}")  # the scenario loader checks the keys
    return effect(state, _Draw(dice, pid, spec, rule, purpose))


@dataclass(frozen=True, slots=True)
class _Draw:
    """One event drawn for player `pid`: its spec, the rule that drew it, and the dice and
    ledger purpose for any further roll it calls for."""

    dice: Dice
    pid: str
    spec: EventSpec
    rule: str
    purpose: str


def _extra_points(state: CampaignState, e: _Draw) -> Applied:
    """Reinforcement points into the bank."""
    points = e.spec.get("points", 0)
    state, ev = _bank(state, e.pid, points, "event-points", e.rule)
    return state, ev, DONE


def _hero(state: CampaignState, e: _Draw) -> Applied:
    """A hero joins; the one who rouses the people brings reinforcement points as well."""
    state, ev, told = _join(state, e.pid, IndividualKind.HERO, e.rule)
    if e.spec.get("points"):
        state, more = _bank(state, e.pid, e.spec.get("points"), "hero-rouses-people", e.rule)
        ev += more
    return state, ev, told


def _scouts(state: CampaignState, e: _Draw) -> Applied:
    """`count` scouts join, one at a time (each to the best force with room for it)."""
    ev: list[Event] = []
    lost = 0
    for _ in range(e.spec.get("count", 2)):
        state, more, told = _join(state, e.pid, IndividualKind.SCOUT, e.rule)
        ev += more
        lost += told.count
    return state, ev, Told("no-room", IndividualKind.SCOUT.value, lost) if lost else DONE


def _lose_bank(state: CampaignState, e: _Draw) -> Applied:
    """Points lost from the bank (an epidemic in the capital)."""
    points = e.spec.get("points", 0)
    state, ev = _bank(state, e.pid, -points, "epidemic-capital", e.rule)
    return state, ev, DONE


# Every effect an event may name (rules.scenarios.EVENT_PARAMS), and what carries it out.
EFFECTS: dict[str, Callable[[CampaignState, _Draw], Applied]] = {
    "none": lambda s, _e: (s, [], Told("none")),
    "points": _extra_points,
    "hero": _hero,
    "individual": lambda s, e: _join(s, e.pid, IndividualKind(e.spec.get("kind", "hero")), e.rule),
    "scouts": _scouts,
    "wizard": lambda s, e: _join(
        s, e.pid, IndividualKind.WIZARD, e.rule, e.spec.get("magic_points", 25)
    ),
    "leader-stress": lambda s, e: _leader_cv(s, e.pid, "leader-stress", e.rule),
    "leader-emerges": lambda s, e: _leader_cv(s, e.pid, "leader-emerges", e.rule),
    "tokens": lambda s, e: _tokens(s, e.dice, e.pid, e.spec, e.rule, e.purpose),
    "blizzard": lambda s, e: _blizzard(s, e.pid, e.rule),
    "lose-bank": _lose_bank,
    "magic-item": lambda s, e: _token_to(s, e.pid, "magic-item", 1, e.rule, need_individual=True),
    "ars-arcana": lambda s, e: _token_to(
        s, e.pid, "ars-arcana-points", e.spec.get("points", 200), e.rule
    ),
    "wizard-points": lambda s, e: _wizard_points(s, e.pid, e.spec.get("magic_points", 25), e.rule),
    "epidemic-holding": lambda s, e: _epidemic_holding(s, e.pid, e.spec.get("points", 100), e.rule),
    "epidemic-capital": lambda s, e: _epidemic_capital(s, e.pid, e.spec.get("points", 100), e.rule),
    "catastrophe": lambda s, e: _catastrophe(s, e.dice, e.pid, e.rule, e.purpose),
}


def _mine(state: CampaignState, pid: str) -> list[Force]:
    return [f for f in state.forces if f.owner == pid]


def _best(state: CampaignState, pid: str) -> list[Force]:
    """Gift order [SR]: highest leader CV, most points, lowest id."""
    return sorted(_mine(state, pid), key=lambda f: (-f.cv, -f.points, id_key(f.id)))


def _weakest(forces: list[Force]) -> list[Force]:
    """Blow order [SR]: fewest points, lowest id."""
    return sorted(forces, key=lambda f: (f.points, id_key(f.id)))


def _bank(state: CampaignState, pid: str, change: int, reason: str, rule: str) -> Result:
    old = state.bank.get(pid, 0)
    new = max(0, old + change)  # [SR] a bank never goes below 0
    state = replace(state, bank={**state.bank, pid: new})
    return state, [BankChanged(pid, new - old, new, reason, rule)]


def _join(
    state: CampaignState, pid: str, kind: IndividualKind, rule: str, magic_points: int = 0
) -> Applied:
    """A free character joins one of his forces with room for it (R2.5.5). He has no name:
    readers name him by his kind (and his force)."""
    target = next((f for f in _best(state, pid) if len(f.individuals) < len(f.units)), None)
    if target is None:
        return state, [], Told("no-room", kind.value, 1)
    iid, state = state.new_id("i")
    ind = Individual(
        iid,
        kind,
        name="",
        mounted=False,  # "a Hero on foot" (p. 40, p. 45)
        magic_points=magic_points,
    )
    state = state.replace_force(replace(target, individuals=(*target.individuals, ind)))
    joined = IndividualJoined(target.id, iid, kind.value, rule, magic_points)
    return state, [joined], DONE


def _leader_cv(state: CampaignState, pid: str, key: str, rule: str) -> Applied:
    """D-18 / A-42 through `clamp_cv_event`: stress falls on the leader of the force the
    player chose (A-41), else on the lowest-CV leader it lowers (above CV 2); a leader emerges
    from the highest-CV leader still below the maximum."""
    forces = [f for f in _mine(state, pid) if f.leader is not None]
    if key == "leader-stress":
        pick = chosen(state, pid, "leader-stress", forces, lambda f: f.id)
        biting = [f for f in forces if f.cv > T.CV_STRESS]
        forces = [pick] if pick else sorted(biting or forces, key=lambda f: (f.cv, id_key(f.id)))
    else:
        forces = [f for f in _best(state, pid) if f.leader is not None and f.cv < T.CV_MAX]
    if not forces:
        return state, [], Told("no-leader")
    f = forces[0]
    lead = f.leader
    assert lead is not None
    new = clamp_cv_event(lead.cv, key)
    commands = tuple(
        replace(c, general=replace(lead, cv=new)) if c.general and c.general.id == lead.id else c
        for c in f.commands
    )
    state = state.replace_force(replace(f, commands=commands))
    return state, [LeaderCvChanged(f.id, lead.id, lead.cv, new, rule)], DONE


def _tokens(
    state: CampaignState, dice: Dice, pid: str, spec: EventSpec, rule: str, purpose: str
) -> Applied:
    kind = spec.get("kind")
    rec = dice.roll(
        purpose=f"{purpose}:{kind}",
        rule=rule,
        count=spec.get("dice", 1),
        judge=lambda t, _n: ("tokens", {"n": t, "kind": kind} if kind else {"n": t}),
    )
    n = rec.total or 0
    slots: list[str] = []  # one entry per recipient, dealt round-robin
    for f in _best(state, pid):
        if spec.get("target", "forces") == "archers":
            slots += [f.id for u in f.units if u.has_missiles]
        else:
            slots.append(f.id)
    if not slots:
        return state, [], Told("nobody", kind, n)
    share: dict[str, int] = {}
    for i in range(n):
        share[slots[i % len(slots)]] = share.get(slots[i % len(slots)], 0) + 1
    events: list[Event] = []
    for fid, c in share.items():
        f = state.force(fid)
        tokens = {**f.tokens, kind: f.tokens.get(kind, 0) + c}
        state = state.replace_force(replace(f, tokens=tokens))
        events.append(TokensGained(fid, kind, c, rule))
    return state, events, DONE


def _token_to(
    state: CampaignState, pid: str, kind: str, n: int, rule: str, *, need_individual: bool = False
) -> Applied:
    """[SR] Items with no state of their own are kept as tokens on the receiving force."""
    f = next((f for f in _best(state, pid) if f.individuals or not need_individual), None)
    if f is None:
        return state, [], Told("nobody", kind, n)
    state = state.replace_force(replace(f, tokens={**f.tokens, kind: f.tokens.get(kind, 0) + n}))
    return state, [TokensGained(f.id, kind, n, rule)], DONE


def _wizard_points(state: CampaignState, pid: str, pm: int, rule: str) -> Applied:
    for f in _best(state, pid):
        for w in f.individuals:
            if w.kind is IndividualKind.WIZARD:
                inds = tuple(
                    replace(i, magic_points=i.magic_points + pm) if i.id == w.id else i
                    for i in f.individuals
                )
                state = state.replace_force(replace(f, individuals=inds))
                gained = MagicPointsGained(f.id, w.id, pm, rule)
                return state, [gained], DONE
    return state, [], Told("no-wizard")


def _blizzard(state: CampaignState, pid: str, rule: str) -> Applied:
    """One force gets Shattered; if all already were, one is annihilated (p. 41, p. 47). The
    player's ranked choice picks it (A-41), else the weakest."""
    mine = _mine(state, pid)
    if not mine:
        return state, [], Told("no-force")
    steady = _weakest([f for f in mine if f.status is not Status.SHATTERED])
    pool = steady or _weakest(mine)
    f = chosen(state, pid, "blizzard", pool, lambda f: f.id) or pool[0]
    if steady:
        state = state.replace_force(replace(f, status=Status.SHATTERED))
        ev: list[Event] = [ReactionSuffered(f.id, f.status.value, Status.SHATTERED.value, rule)]
        return state, ev, DONE
    state, ev = remove_force(state, f, reason="annihilated", rule=rule)
    return state, ev, DONE


def _lose_points(state: CampaignState, f: Force, amount: int, reason: str, rule: str) -> Result:
    """[SR] "Lose N points" from a force: figures leave one at a time from the unit with the
    most points left (first listed on ties) until at least N points are gone; a force left
    without units is removed (R2.5.2)."""
    figures = {u.id: u.figures for u in f.units}
    ppf = {u.id: u.points_per_figure for u in f.units}
    lost = removed = 0
    while lost < amount:
        cands = [u.id for u in f.units if figures[u.id] and ppf[u.id]]
        if not cands:
            break
        uid = max(cands, key=lambda i: figures[i] * ppf[i])
        figures[uid] -= 1
        lost += ppf[uid]
        removed += 1
    if not removed:
        return state, []
    commands = tuple(
        replace(c, units=tuple(replace(u, figures=figures[u.id]) for u in c.units if figures[u.id]))
        for c in f.commands
    )
    f = replace(f, commands=commands, figures_lost=f.figures_lost + removed)
    events: list[Event] = [ForcePointsLost(f.id, lost, removed, reason, rule)]
    if not f.units:
        state, ev = remove_force(state, f, reason=reason, rule=rule)
        return state, events + ev
    return state.replace_force(f), events


def _points_at(state: CampaignState, pid: str, square: Coord) -> int:
    return sum(f.points for f in _mine(state, pid) if f.square == square)


def _strike(
    state: CampaignState,
    pid: str,
    square: Coord,
    amount: Callable[[Force], int],
    reason: str,
    rule: str,
    *,
    shatter: bool = False,
) -> Result:
    events: list[Event] = []
    hit = [f for f in _mine(state, pid) if f.square == square]
    for f in hit:
        state, ev = _lose_points(state, f, amount(f), reason, rule)
        events += ev
    if shatter:
        hit = [state.force(f.id) for f in hit if any(g.id == f.id for g in state.forces)]
        already = _weakest([f for f in hit if f.status is Status.SHATTERED])
        for f in hit:
            if f.status is not Status.SHATTERED:
                state = state.replace_force(replace(f, status=Status.SHATTERED))
                events.append(ReactionSuffered(f.id, f.status.value, "shattered", rule))
        if already:
            state, ev = remove_force(state, already[0], reason=reason, rule=rule)
            events += ev
    return state, events


def _epidemic_holding(state: CampaignState, pid: str, points: int, rule: str) -> Applied:
    """Catastrophe 4: the owner picks the holding (A-41, his ranked choice); [SR] without
    one, the one costing him least among those where it bites (`_bites`)."""
    capital = own_capital(state, pid)
    mine = _own_holdings(state, pid)
    if not mine:
        return state, [], Told("no-holding")
    cap = capital.id if capital is not None else None
    pool = [h for h in mine if _bites(state, pid, h.square)] or mine
    h = chosen(state, pid, "epidemic-holding", mine, lambda h: h.id) or min(
        pool,
        key=lambda h: (
            _points_at(state, pid, h.square) + (points if h.id == cap else 0),
            id_key(h.id),
        ),
    )
    events: list[Event] = [EpidemicStruck(pid, h.id, rule)]
    if h.id == cap:  # "reinforcements there" = the bank, kept in the capital [SR]
        state, ev = _bank(state, pid, -points, "epidemic", rule)
        events += ev
    state, ev = _strike(state, pid, h.square, lambda _f: points, "epidemic", rule)
    return state, events + ev, DONE


def _epidemic_capital(state: CampaignState, pid: str, points: int, rule: str) -> Applied:
    """Catastrophe 5: 100 from the bank and 100 from each of his forces in the capital [SR]."""
    state, events = _bank(state, pid, -points, "epidemic-capital", rule)
    home = next((h for h in state.holdings if h.capital and h.original_owner == pid), None)
    if home is not None:
        state, ev = _strike(state, pid, home.square, lambda _f: points, "epidemic", rule)
        events += ev
    return state, events, DONE


def _struck(total: int, _n: tuple[int, ...]) -> RollOutcome:
    return _STRUCK.get(total) or ("struck", {"target": "none"})


_STRUCK: dict[int, RollOutcome] = {
    5: ("struck", {"target": "forces"}),
    6: ("struck", {"target": "holding"}),
}


def _catastrophe(state: CampaignState, dice: Dice, pid: str, rule: str, purpose: str) -> Applied:
    """Catastrophe 6: every active player rolls 1D6; 5 strikes a square with one of his
    forces, 6 a square with one of his holdings (`_struck_square`); there he loses half the
    points of every force (and half his reserves, if it is his capital [SR]), his forces are
    Shattered and one already Shattered is annihilated."""
    struck: list[Event] = []  # told first, then what each blow did (in player order)
    events: list[Event] = []
    for p in state.active_players():
        rec = dice.roll(purpose=f"{purpose}:{p.id}", rule=rule, judge=_struck)
        sq = _struck_square(state, p.id, rec.value)
        if sq is None:
            continue
        struck.append(CatastropheStruck(p.id, sq, rule))
        capital = own_capital(state, p.id)
        bank = state.bank.get(p.id, 0)
        if capital is not None and capital.square == sq and bank:
            state, ev = _bank(state, p.id, -(bank // 2), "catastrophe", rule)
            events += ev
        state, ev = _strike(
            state, p.id, sq, lambda f: f.points // 2, "catastrophe", rule, shatter=True
        )
        events += ev
    return state, struck + events, DONE if struck else Told("no-one-struck")


def _struck_square(state: CampaignState, pid: str, value: int) -> Coord | None:
    """The square a catastrophe strikes: on a 5 the square of the force he chose, on a 6 of
    the holding he chose (A-41, `catastrophe-force` / `catastrophe-holding`); [SR] without a
    choice, the one costing him least among those where it bites (`_bites`)."""
    if value == 5:
        forces = _mine(state, pid)
        f = chosen(state, pid, "catastrophe-force", forces, lambda f: f.id)
        if f is not None:
            return f.square
        squares = [f.square for f in forces]
    elif value == 6:
        holdings = _own_holdings(state, pid)
        h = chosen(state, pid, "catastrophe-holding", holdings, lambda h: h.id)
        if h is not None:
            return h.square
        squares = [h.square for h in holdings]
        squares = [sq for sq in squares if _bites(state, pid, sq)] or squares
    else:
        return None
    if not squares:
        return None
    capital = own_capital(state, pid)
    bank = state.bank.get(pid, 0)

    def cost(sq: Coord) -> tuple[int, int, int]:
        reserves = bank // 2 if capital is not None and capital.square == sq else 0
        return (_points_at(state, pid, sq) // 2 + reserves, sq[1], sq[0])

    return min(squares, key=cost)


def _own_holdings(state: CampaignState, pid: str) -> list[Holding]:
    return [h for h in state.holdings if h.owner == pid and not (h.destroyed or h.carried_by)]


def _bites(state: CampaignState, pid: str, square: Coord) -> bool:
    """A blow on this square hurts him: a force of his stands there, or it is his capital
    and he has reserves banked."""
    if any(f.square == square for f in _mine(state, pid)):
        return True
    capital = own_capital(state, pid)
    return capital is not None and capital.square == square and state.bank.get(pid, 0) > 0


def apply_event(
    state: CampaignState, dice: Dice, pid: str, spec: EventSpec, rule: str, purpose: str
) -> Applied:
    """One event of the tables' vocabulary for player `pid`, for the other phases that bring
    one (a scenario's supply convoy, R9.3.9)."""
    return _apply(state, dice, pid, spec, rule, purpose)
