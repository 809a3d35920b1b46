"""Phase 7 — reinforcements (§9.3).

When reinforcements are due — days with `day % reinforcement_interval_days == 0` [SR §9.3],
or, in a scenario with a schedule, its key days with each role's "full" / "half" / "none"
(§11.8) — every active player whose own capital is still his (R9.3.1) banks his points
(R9.3.10–11, A-40; half = floor of half, §11.8 [SR]). Then, on that same occasion, his
standing `PlayerOrders.reinforcements` requests are bought in order while the bank covers the
next one (R9.3.8: the rest stays banked). A player who gets "none" buys nothing that day [SR].
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from rules import tables as T
from rules.checks import reinforcement_points
from rules.dice import Dice
from rules.events import (
    Event,
    ReinforcementsArrived,
    ReinforcementsAvailable,
    ReinforcementsRefused,
)
from rules.orders import ReinforcementRequest
from rules.scenarios import scenario_for
from rules.setup.forces import CV_MIN
from rules.types import (
    CampaignState,
    Command,
    Force,
    General,
    Holding,
    Individual,
    Player,
    Unit,
)


def id_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Natural order of ids ("f2" before "f10"), for "the lowest id" choices."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text))


def own_capital(state: CampaignState, pid: str) -> Holding | None:
    """The player's own capital if he still holds it (R9.3.1), else None."""
    for h in state.holdings:
        if h.capital and h.original_owner == pid:
            usable = h.owner == pid and not (h.destroyed or h.sacked or h.carried_by)
            return h if usable else None
    return None


def entitlements(state: CampaignState) -> dict[str, str]:
    """Player id → "full" / "half" for the players due reinforcements today."""
    scenario = scenario_for(state)
    if scenario is not None and scenario.schedule:
        key = scenario.key_day(state.day)
        if key is None:
            return {}
        out = {}
        for p in state.active_players():
            rd = key.roles.get(p.role)
            if rd is not None and rd.reinforcements != "none":
                out[p.id] = rd.reinforcements
        return out
    every = state.options.reinforcement_interval_days
    if state.day <= 0 or every <= 0 or state.day % every:
        return {}
    return {p.id: "full" for p in state.active_players()}


def points_due(state: CampaignState, player: Player) -> int:
    """R9.3.10–11 (A-40): 10 % for the own capital; 2 % for every other holding he controls,
    captured ones and a captured enemy capital included; sacked or destroyed holdings yield
    nothing (A-47)."""
    others = sum(
        1
        for h in state.holdings
        if h.owner == player.id
        and not (h.destroyed or h.sacked or h.carried_by)
        and not (h.capital and h.original_owner == player.id)
    )
    return reinforcement_points(
        initial_points=player.initial_points,
        holdings=others,
        capital=own_capital(state, player.id) is not None,
        capital_also_two_percent=state.options.capital_also_two_percent,
    )


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    del dice  # no dice in this phase
    if state.ended:
        return state, []
    events: list[Event] = []
    for pid, kind in entitlements(state).items():
        player = state.player(pid)
        if own_capital(state, pid) is None:
            events.append(ReinforcementsRefused(pid, None, "capital-lost", "R9.3.1"))
            continue
        points = points_due(state, player)
        if kind == "half":
            points //= 2  # §11.8 [SR]: half, rounded down
        bank = state.bank.get(pid, 0) + points
        state = replace(state, bank={**state.bank, pid: bank})
        events.append(
            ReinforcementsAvailable(pid, points, bank, rule="R9.3" if kind == "full" else "§11.8")
        )
        state, ev = _spend(state, pid)
        events.extend(ev)
    return state, events


def _spend(state: CampaignState, pid: str) -> tuple[CampaignState, list[Event]]:
    po = state.orders.get(pid)
    events: list[Event] = []
    for n, req in enumerate(po.reinforcements if po is not None else ()):
        problem = _problem(req)
        if problem:
            code, rule = problem
            elite = _elite(req) if code == "elite" else ()
            status = req.status.value if code == "status" else ""
            events.append(ReinforcementsRefused(pid, n, code, rule, units=elite, status=status))
            continue
        bank = state.bank.get(pid, 0)
        if req.cost > bank:  # in order: a request the bank cannot cover stops the buying
            events.append(
                ReinforcementsRefused(pid, n, "bank-short", "R9.3.8", cost=req.cost, bank=bank)
            )
            break
        state, ev = _deliver(state, pid, n, req)
        events.extend(ev)
    return state, events


def request_problems(req: ReinforcementRequest) -> list[tuple[str, str, str]]:
    """What makes a standing request unbuyable whatever the map: (code, rule id, reason).
    R9.3.2 no Elite; §1.1 a unit has figures and a general a CV in range; no negative
    points (they would fill the bank); a request buys something. Where they go (R9.3.3–5,
    R2.5.7) depends on the capital on the day and is checked at delivery."""
    out: list[tuple[str, str, str]] = []
    if not req.units and not req.individuals and req.general is None:
        out.append(("empty", "R9.3", "the request buys nothing"))
    elite = _elite(req)
    if elite:
        out.append(
            (
                "elite",
                "R9.3.2",
                f"{', '.join(elite)}: Elite troops cannot be sent as reinforcements, only "
                "Levy, Average or Veteran",
            )
        )
    if any(u.figures < 1 for u in req.units):
        out.append(("no-figures", "§1.1", "every unit needs at least one figure"))
    if req.general is not None and not req.units:  # he would join as an empty command
        out.append(("general-alone", "§1.1", "a general comes with at least one unit"))
    if req.general is not None and not CV_MIN <= req.general.cv <= T.CV_MAX:
        out.append(("cv-out-of-range", "§1.1", f"a general's CV runs from {CV_MIN} to {T.CV_MAX}"))
    points = [u.points_per_figure for u in req.units] + [i.points for i in req.individuals]
    if req.general is not None:
        points.append(req.general.points)
    if any(p < 0 for p in points):
        out.append(("negative-points", "R9.3", "points cannot be negative"))
    if not req.status.is_order:
        out.append(("status", "R9.3.4", f"a new force starts under an order, not {req.status}"))
    return out


def _elite(req: ReinforcementRequest) -> tuple[str, ...]:
    return tuple(u.type or u.id for u in req.units if u.quality not in T.REINF_ALLOWED_QUALITIES)


def _problem(req: ReinforcementRequest) -> tuple[str, str] | None:
    """The first problem of a request: its code (rules.event_codes) and rule."""
    problems = request_problems(req)
    if not problems:
        return None
    code, rule, _reason = problems[0]
    return code, rule


def _deliver(
    state: CampaignState, pid: str, n: int, req: ReinforcementRequest
) -> tuple[CampaignState, list[Event]]:
    capital = own_capital(state, pid)
    assert capital is not None
    side = state.side_of(pid)
    here = [
        f for f in state.forces if f.square == capital.square and state.side_of(f.owner) == side
    ]
    # R9.3.3: they must join a same-side force in the capital; [SR] his own first, then the
    # lowest id, unless he chose one of them (R9.3.3 "the owner chooses one").
    host = min(here, key=lambda f: (f.id != req.join, f.owner != pid, id_key(f.id)), default=None)
    if host is None:
        return _new_force(state, pid, n, req, capital)
    if len(host.individuals) + len(req.individuals) > len(host.units) + len(req.units):
        return state, [
            ReinforcementsRefused(pid, n, "too-many-individuals", "R9.3.5", force_id=host.id)
        ]
    state, units, general, individuals = _fresh(state, req)
    commands = list(host.commands)
    if general is not None:
        cid, state = state.new_id("c")
        commands.append(Command(cid, general, units))
    else:  # [SR] without a general of their own, the units join the leader's command
        lead = host.leader
        i = next(
            (i for i, c in enumerate(commands) if lead and c.general and c.general.id == lead.id),
            0,
        )
        commands[i] = replace(commands[i], units=commands[i].units + units)
    joined = replace(host, commands=tuple(commands), individuals=host.individuals + individuals)
    state = state.replace_force(joined)
    state = _pay(state, pid, req.cost)
    return state, [ReinforcementsArrived(pid, host.id, True, req.cost, **_what(req, n, capital))]


def _new_force(
    state: CampaignState, pid: str, n: int, req: ReinforcementRequest, capital: Holding
) -> tuple[CampaignState, list[Event]]:
    """R9.3.4: a new force in the capital, with at least one general and one unit (R2.5.2);
    R9.3.5 individuals ≤ units; R2.5.7 mercenaries cannot form a force on their own."""
    why = None  # a code of rules.event_codes.REINFORCEMENTS_REFUSED: the points stay banked
    if req.general is None:
        why, rule = "new-force-needs-general", "R9.3.4"
    elif not req.units:
        why, rule = "new-force-needs-unit", "R2.5.2"
    elif len(req.individuals) > len(req.units):
        why, rule = "new-force-too-many-individuals", "R9.3.5"
    elif all(u.mercenary for u in req.units):
        why, rule = "new-force-mercenaries", "R2.5.7"
    elif not req.status.is_order:
        why, rule = "new-force-status", "R9.3.4"
    if why is not None:
        status = req.status.value if why == "new-force-status" else ""
        return state, [ReinforcementsRefused(pid, n, why, rule, status=status)]
    state, units, general, individuals = _fresh(state, req)
    cid, state = state.new_id("c")
    fid, state = state.new_id("f")
    force = Force(
        id=fid,
        owner=pid,
        square=capital.square,
        status=req.status,
        commands=(Command(cid, general, units),),
        individuals=individuals,
        name=req.name,
    )
    state = state.with_forces([*state.forces, force])
    state = _pay(state, pid, req.cost)
    arrived = ReinforcementsArrived(
        pid, fid, False, req.cost, rule="R9.3.4", **_what(req, n, capital)
    )
    return state, [arrived]


def _what(req: ReinforcementRequest, n: int, capital: Holding) -> dict[str, Any]:
    """The arrival's readable contents for the report: "12 Spearmen", then names."""
    people = [req.general.name or "general"] if req.general is not None else []
    people += [i.name or i.kind.value for i in req.individuals]
    return {
        "units": tuple(f"{u.figures} {u.type}" for u in req.units),
        "people": tuple(people),
        "capital_id": capital.id,
        "request": n,
    }


def _fresh(
    state: CampaignState, req: ReinforcementRequest
) -> tuple[CampaignState, tuple[Unit, ...], General | None, tuple[Individual, ...]]:
    """The request's units, general and individuals under new ids (ids are the engine's)."""
    units = []
    for u in req.units:
        uid, state = state.new_id("u")
        units.append(replace(u, id=uid))
    general = None
    if req.general is not None:
        gid, state = state.new_id("g")
        general = replace(req.general, id=gid)
    individuals = []
    for i in req.individuals:
        iid, state = state.new_id("i")
        individuals.append(replace(i, id=iid))
    return state, tuple(units), general, tuple(individuals)


def _pay(state: CampaignState, pid: str, cost: int) -> CampaignState:
    return replace(state, bank={**state.bank, pid: state.bank.get(pid, 0) - cost})
