"""The campaign turn as one readable pipeline (spec §3).

`resolve_turn` runs Phases 0–2 and hands back the pending battles; once every battle has a
result, `resolve_after_battles` runs Phases 4–8 and opens the next turn. Each phase is a
function `(state, input, dice) -> (new state, events)`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from rules.battle import BattleResult, PendingBattle
from rules.dice import Dice, RollRecord
from rules.errors import InconsistentState, InvalidResult
from rules.events import Event
from rules.orders import PlayerOrders, TurnOrders
from rules.phases import (
    after_battle,
    attrition,
    convoys,
    force_tests,
    movement,
    random_events,
    regroup,
    reinforcements,
    ships,
    will_to_fight,
)
from rules.phases import day as day_phase
from rules.phases import weather as weather_phase
from rules.types import CampaignState


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off while a turn runs: a turn makes tens of
    thousands of objects (frozen states, events, ledger entries) and no cycle among them, and
    each older-generation collection it set off walked the whole heap of the process (in a
    worker: Django, the decoded campaign state). It runs again after, as before; the dice and
    everything a turn computes are untouched by it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    state: CampaignState
    events: tuple[Event, ...]
    ledger: tuple[RollRecord, ...]
    pending_battles: tuple[PendingBattle, ...] = ()

    def to_data(self) -> dict[str, Any]:
        from rules.codec import to_data

        return {
            "state": to_data(self.state),
            "events": [e.to_dict() for e in self.events],
            "ledger": [r.to_dict() for r in self.ledger],
            "pending_battles": [to_data(b) for b in self.pending_battles],
        }


def resolve_turn(
    state: CampaignState, orders: TurnOrders | Mapping[str, PlayerOrders], dice: Dice
) -> TurnOutcome:
    """Phases 0–2: weather, force tests, initiative and movement (§3)."""
    if state.ended:
        raise InconsistentState(f"the campaign has ended ({state.ended})")
    if state.phase != "orders":
        raise InconsistentState(f"turn {state.turn} is waiting for battle results, not for orders")
    start = len(dice.ledger)
    state = replace(state, orders=dict(orders), pending_battles=(), wtf_triggers={}, moves={})
    events: list[Event] = []
    with _collector_paused():
        for phase in (
            weather_phase.resolve,
            regroup.resolve,
            force_tests.resolve,
            movement.resolve,
        ):
            state, ev = phase(state, dice)
            events.extend(ev)
    state = replace(state, phase="battles" if state.pending_battles else "after")
    return TurnOutcome(state, tuple(events), tuple(dice.ledger[start:]), state.pending_battles)


def check_results(state: CampaignState, results: Mapping[str, BattleResult]) -> None:
    """Every pending battle needs exactly one result, and no result may name another battle."""
    pending = {b.battle_id for b in state.pending_battles}
    extra = set(results) - pending
    if extra:
        raise InvalidResult(f"result(s) for unknown battle(s): {', '.join(sorted(extra))}")
    missing = pending - set(results)
    if missing:
        raise InvalidResult(f"battle(s) still without a result: {', '.join(sorted(missing))}")


def resolve_after_battles(
    state: CampaignState, results: Mapping[str, BattleResult], dice: Dice
) -> TurnOutcome:
    """Phases 4–8: after the battle, will to fight, time, reinforcements, random events."""
    if state.phase not in ("battles", "after"):
        raise InconsistentState(f"turn {state.turn} has not run Phases 0–2 yet")
    check_results(state, results)
    start = len(dice.ledger)
    events: list[Event] = []
    with _collector_paused():
        state, ev = after_battle.resolve(state, results, dice)
        events.extend(ev)
        for phase in (
            will_to_fight.resolve,
            day_phase.resolve,
            reinforcements.resolve,
            convoys.resolve,  # R9.3.9, on a scenario's schedule
            ships.resolve,  # R6.11.2, with naval movement
            random_events.resolve,
            attrition.resolve,  # §6.10: "at the end of the campaign turn"
        ):
            state, ev = phase(state, dice)
            events.extend(ev)
    state = replace(
        state,
        turn=state.turn + 1,
        phase="orders",
        orders={},
        pending_battles=(),
        wtf_triggers={},
        moves={},
    )
    return TurnOutcome(state, tuple(events), tuple(dice.ledger[start:]))
