"""The two runs of the rules engine a turn goes through, each in one transaction: load the
state, run the phases with the turn's seeded dice, store what the run did (its state before,
inputs, seed, ledger and events: `TurnResolution`, so that it can be replayed and checked),
and write the new state back. The caller has claimed the turn (`campaign.turns.services`);
each run holds that claim for its whole transaction and moves the turn on only while it is
still its own (`campaign.turns.claims`): a run whose claim was released writes nothing.

- Phases 0–2 (`rules.resolve_turn`) on the players' orders; the battles they produce are
  created pending, and the turn waits for their results.
- Phases 4–8 (`rules.resolve_after_battles`) on the battles' results; the turn is resolved
  and, unless the campaign has ended, the next turn opens.

Once a run commits, its notices go out (the battles, the missing orders, the digest).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from battles import services as battles
from battles.models import Battle
from campaign import adapters, fog
from campaign.errors import ServiceError
from campaign.models import Turn, TurnResolution
from campaign.orders.services import reinforcement_requests_carry
from campaign.turns import claims
from config.celery import enqueue_on_commit
from notifications import tasks as notices
from rules import (
    Dice,
    SeededDice,
    derive_seed,
    resolve_after_battles,
    resolve_turn,
)


@dataclass(frozen=True)
class Resolution:
    turn: Turn
    events: list[dict[str, Any]]
    ledger: list[dict[str, Any]]
    pending: list[str]  # the battles waiting for a result (Phases 0–2)


def _seed(turn: Turn) -> int:
    """The seed fixed when the turn closed (`turn_close`): a claimed turn has one."""
    if turn.seed is None:
        raise ServiceError(f"Turn {turn.number} has no seed: it was never closed.")
    return turn.seed


@transaction.atomic
def phases_0_2_run(turn: Turn) -> Resolution:
    """Phases 0–2 of the claimed turn on its players' orders."""
    claims.hold(turn)
    campaign = turn.campaign
    state = adapters.state_load(campaign=campaign)
    orders = {
        o.player.key: adapters.orders_from_data(o.player.key, o.data)
        for o in turn.orders.select_related("player")
    }
    seed = _seed(turn)
    out = resolve_turn(state, orders, SeededDice(seed))
    ledger = [r.to_dict() for r in out.ledger]
    events = [e.to_dict() for e in out.events]
    row = TurnResolution.objects.create(
        turn=turn,
        stage=TurnResolution.Stage.TURN,
        seed=seed,
        **adapters.resolution_state_fields(campaign=campaign, state=state),
        inputs={pid: adapters.orders_to_data(po) for pid, po in sorted(orders.items())},
        ledger=ledger,
        events=events,
    )
    adapters.resolution_noted(row)
    adapters.state_save(campaign=campaign, state=out.state, before=state)
    fog.sightings_record(campaign=campaign, state=out.state)
    battles.battles_create(turn=turn, pending=out.pending_battles)
    claims.finish(turn, carry=adapters.carry_of(out.state), status=Turn.Status.BATTLES)
    notices.enqueue_phases_0_2_notices(turn_id=turn.pk, events=events)  # battles, missing orders
    return Resolution(turn, events, ledger, [b.battle_id for b in out.pending_battles])


@transaction.atomic
def phases_4_8_run(turn: Turn, dice: Dice | None = None) -> Resolution:
    """Phases 4–8 of the claimed turn on its battles' results; then the next turn opens,
    with the reinforcement requests Phase 7 did not buy standing in its orders.

    `dice` is for tests only (e.g. a `ScriptedDice`): a run given its dice is not the turn's
    seeded run, so the values it used are stored with its inputs (`SCRIPTED_DICE`) and the
    replay check re-uses them and says so."""
    claims.hold(turn)
    campaign = turn.campaign
    state = adapters.state_load(campaign=campaign, turn=turn)
    results = {
        b.key: adapters.result_from_data(b.key, b.result) for b in Battle.objects.filter(turn=turn)
    }
    seed = derive_seed(_seed(turn), "after-battles")  # stored as is, even for a scripted run
    scripted = dice is not None
    out = resolve_after_battles(state, results, dice if dice is not None else SeededDice(seed))
    ledger = [r.to_dict() for r in out.ledger]
    events = [e.to_dict() for e in out.events]
    inputs: dict[str, Any] = {k: adapters.result_to_data(r) for k, r in sorted(results.items())}
    if scripted:
        inputs[TurnResolution.SCRIPTED_DICE] = [v for r in out.ledger for v in r.natural]
    row = TurnResolution.objects.create(
        turn=turn,
        stage=TurnResolution.Stage.AFTER,
        seed=seed,
        **adapters.resolution_state_fields(campaign=campaign, state=state),
        inputs=inputs,
        ledger=ledger,
        events=events,
    )
    adapters.resolution_noted(row)
    adapters.state_save(campaign=campaign, state=out.state, before=state)
    fog.sightings_record(campaign=campaign, state=out.state)
    now = timezone.now()
    # the carry served Phases 4–8 only; the resolution keeps what they started from
    claims.finish(turn, status=Turn.Status.RESOLVED, resolved_at=now, carry={})
    if not out.state.ended:
        following = Turn.objects.create(
            campaign=campaign, number=out.state.turn, status=Turn.Status.OPEN, opened_at=now
        )
        reinforcement_requests_carry(turn=following, orders=state.orders, events=events)
    enqueue_on_commit(notices.notify_turn_resolved_task, turn.pk)  # each member's digest
    return Resolution(turn, events, ledger, [])
