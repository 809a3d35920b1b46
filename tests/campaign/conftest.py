"""Fixtures shared by the campaign tests: generated campaigns built through the services, the
generated orders of every player, and plausible battle results.

Campaigns come from `rules.generate` (the same seed gives the same campaign), so a test can
ask for a campaign of any size without writing one by hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from battles.models import Battle
from battles.services import battle_result_record
from campaign.adapters import state_current
from campaign.models import Campaign, Orders, Turn
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.services import campaign_create
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from rules.codec import to_data
from rules.generate import generate_campaign, generate_orders
from rules.orders import PlayerOrders
from rules.types import CampaignState, Options

_slugs = itertools.count(1)


def orders_data(po: PlayerOrders) -> dict[str, Any]:
    """A player's orders as `orders_submit` takes them (without the player id)."""
    data = to_data(po)
    data.pop("player_id")
    return data


def battle_result_data(
    state: CampaignState, battle_id: str, *, wipe_loser: bool = False
) -> dict[str, Any]:
    """A result the rules accept for a pending battle of `state`: side "a" wins; every unit of
    side "a" loses a quarter of its figures and every unit of "b" half (all of them with
    `wipe_loser`, which leaves the losing forces without a figure)."""
    pending = next(b for b in state.pending_battles if b.battle_id == battle_id)
    losses = []
    for side, share in zip(pending.pack.sides, (4, 1 if wipe_loser else 2), strict=True):
        for bf in side.forces:
            for unit in state.force(bf.force_id).units:
                if unit.figures // share:
                    losses.append({"unit_id": unit.id, "killed": unit.figures // share})
    return {"outcomes": {"a": "won", "b": "lost"}, "units": losses}


@pytest.fixture
def make_campaign() -> Callable[..., Campaign]:
    """Factory: a generated campaign created with `campaign_create`, its first turn
    open. Needs a test marked `django_db`."""

    def make(
        *,
        forces: int = 10,
        players: int = 4,
        width: int = 8,
        height: int = 8,
        units_per_force: int = 3,
        seed: int = 1,
        slug: str | None = None,
        options: Options | None = None,
    ) -> Campaign:
        state = generate_campaign(
            width=width,
            height=height,
            players=players,
            forces=forces,
            units_per_force=units_per_force,
            seed=seed,
            options=options,
        )
        slug = slug or f"generated-{forces}f-{seed}-{next(_slugs)}"
        return campaign_create(slug=slug, name=f"Generated {slug}", state=state)

    return make


@pytest.fixture
def submit_orders() -> Callable[..., dict[str, Orders]]:
    """Submit the generated orders (`rules.generate.generate_orders`) of every player for the
    campaign's current turn, through `orders_submit`. Returns player key → Orders."""

    def submit(
        campaign: Campaign, *, seed: int = 1, confirm: bool = True, user=None
    ) -> dict[str, Orders]:
        campaign.refresh_from_db()  # state_load takes the campaign row's fields as given
        turn = turn_current(campaign=campaign)
        orders = generate_orders(state_current(campaign=campaign), seed=seed)
        return {
            player.key: orders_submit(
                player=player,
                turn=turn,
                data=orders_data(orders[player.key]),
                confirm=confirm,
                user=user,
            )
            for player in campaign.players.order_by("position")
        }

    return submit


@pytest.fixture
def record_results() -> Callable[..., list[Battle]]:
    """Record `battle_result_data` for every pending battle of a turn waiting for results."""

    def record(turn: Turn, *, wipe_loser: bool = False) -> list[Battle]:
        state = state_current(campaign=turn.campaign)
        return [
            battle_result_record(
                battle=battle,
                data=battle_result_data(state, battle.key, wipe_loser=wipe_loser),
            )
            for battle in Battle.objects.filter(turn=turn, status=Battle.Status.PENDING)
        ]

    return record


@pytest.fixture
def play_turn(submit_orders, record_results) -> Callable[..., Turn]:
    """Play the campaign's current turn to the end through the services: orders, close,
    Phases 0–2, a result for every battle, Phases 4–8. Returns the resolved turn."""

    def play(campaign: Campaign, *, seed: int = 1) -> Turn:
        submit_orders(campaign, seed=seed)  # refreshes `campaign`
        turn = turn_close(turn=turn_current(campaign=campaign), seed=seed)
        turn_resolve(turn_id=turn.pk)
        record_results(Turn.objects.get(pk=turn.pk))
        turn_resolve_after_battles(turn_id=turn.pk)
        return Turn.objects.get(pk=turn.pk)

    return play
