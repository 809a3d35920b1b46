"""Phase 1 — change of force orders and reconfiguration (§5)."""

from __future__ import annotations

from collections.abc import Mapping

from rules.checks import force_test
from rules.dice import Dice
from rules.events import Event, ForceTested, OrderRefused
from rules.orders import orders_index, probe_composition_ok
from rules.phases.common import players_in_turn_order, remove_force
from rules.types import CampaignState, Coord, Force, Status, Territory, evolve

GROUPS = ("in-action", Territory.ENEMY, Territory.NEUTRAL, Territory.FRIENDLY)


def test_group(
    state: CampaignState, force: Force, hostile_squares: Mapping[str, set[Coord]]
) -> str | Territory:
    """R5.3.1 group: forces in action first, then enemy, neutral, friendly territory."""
    if force.square in hostile_squares.get(state.side_of(force.owner), set()):
        return "in-action"
    return state.territory(force.owner, force.square)


def first_player(state: CampaignState, dice: Dice) -> tuple[str | None, CampaignState]:
    """R5.3.1 [SR]: the last initiative winner starts; on the first turn roll 1D6 each (ties
    re-roll among the tied)."""
    if state.initiative_winner is not None:
        return state.initiative_winner, state
    contenders = sorted(p.id for p in state.active_players())
    while len(contenders) > 1:
        rolls = {
            pid: dice.roll(
                purpose=f"orders:first-player-{pid}",
                rule="R5.3.1",
                judge=lambda t, _n: ("rolled", {"n": t}),
            ).value
            for pid in contenders
        }
        best = max(rolls.values())
        contenders = [pid for pid in contenders if rolls[pid] == best]
    return (contenders[0] if contenders else None), state


def test_order(state: CampaignState, forces: list[Force], first: str | None) -> list[Force]:
    """Group by R5.3.1, then alternate players within each group starting with `first`;
    a player's own forces go in his initiative-priority order, then by id."""
    occupied: dict[str, set[Coord]] = {}
    by_square: dict[Coord, set[str]] = {}
    side = {p.id: p.side for p in state.players}  # `state.side_of`, for every force
    for f in state.forces:
        by_square.setdefault(f.square, set()).add(side[f.owner])
    for sq, sides in by_square.items():
        if len(sides) > 1:
            for s in sides:
                occupied.setdefault(s, set()).add(sq)
    players = players_in_turn_order(state, first)
    result: list[Force] = []
    groups = {f.id: test_group(state, f, occupied) for f in forces}
    for group in GROUPS:
        queues: dict[str, list[Force]] = {}
        for f in forces:
            if groups[f.id] == group:
                queues.setdefault(f.owner, []).append(f)
        for pid, q in queues.items():
            prio = state.orders[pid].initiative_priority if pid in state.orders else ()
            place: dict[str, int] = {}
            for k, fid in enumerate(prio):
                place.setdefault(fid, k)  # the first place, as `tuple.index`
            q.sort(key=lambda f: (place.get(f.id, len(prio)), f.id))
        # Round after round, one force of each player in turn until every queue is empty.
        turns = [queues[pid] for pid in players if pid in queues]
        for k in range(max(map(len, turns), default=0)):
            result.extend(q[k] for q in turns if k < len(q))
    return result


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    idx = orders_index(state.orders)
    surrendered = {p.id for p in state.players if p.surrendered}
    declared = [
        f
        for f in state.forces
        if f.id in idx and idx[f.id].change_to is not None and f.owner not in surrendered
    ]
    if not declared:
        return state, []
    first, state = first_player(state, dice)
    events: list[Event] = []
    new_status: dict[str, Status] = {}
    for force in test_order(state, declared, first):
        requested = idx[force.id].change_to
        assert requested is not None
        if force.carries_loot and requested is Status.FULL_SPEED:
            events.append(OrderRefused(force.id, "loot-full-speed", "§11.6 rule 3"))
            continue
        if (
            requested is Status.PROBE
            and state.options.naran_probe_composition
            and not probe_composition_ok(force)
        ):
            events.append(OrderRefused(force.id, "probe-composition", "R2.7.2"))
            continue
        snow = state.snow_at(force.square) if state.scenario == "incursion" else 0
        res = force_test(
            dice,
            purpose=f"orders:force-{force.id}",
            cv=force.cv,
            status=force.status,
            requested=requested,
            features=state.map.features_at(force.square),
            territory=state.territory(force.owner, force.square),
            snow=snow,
            mode=state.options.force_test_reaction_mode,
        )
        events.append(
            ForceTested(
                force.id,
                requested.value,
                res.outcome,
                force.status.value,
                res.new_status.value if res.new_status else None,
                res.total,
            )
        )
        if res.new_status is None:  # R5.2 ≤ 0: complete disaster
            state, ev = remove_force(state, force, reason="force-test-disaster", rule="R5.2")
            events.extend(ev)
            state = state.add_trigger(force.owner, "force-test-disaster")  # R9.1.4
        else:
            new_status[force.id] = res.new_status
    # one rebuild of the forces tuple, not one per test (bounded work per turn)
    state = state.with_forces(
        [evolve(f, status=new_status[f.id]) if f.id in new_status else f for f in state.forces]
    )
    return state, events
