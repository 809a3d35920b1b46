"""What the database benchmarks share: the generated campaign they run on, the generated
orders every player submits, the orders editor's form as the browser posts it, a query
counter and the min/median/max summary they print.

Import it after `django.setup()` (it imports the app's services).
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable, Iterable
from typing import Any

from campaign.adapters import orders_from_data
from campaign.models import Campaign, Orders, Turn
from campaign.orders.forms import ForceOrdersForm
from campaign.orders.services import orders_submit
from rules.codec import to_data
from rules.generate import generate_campaign, generate_orders
from rules.types import CampaignState


def campaign_arguments(p: argparse.ArgumentParser, *, runs: int | None) -> None:
    """The size of the generated campaign, its seed and the number of measured runs (no
    `--runs` with `runs=None`)."""
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--height", type=int, default=64)
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--forces", type=int, default=240)
    p.add_argument("--units-per-force", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    if runs is not None:
        p.add_argument("--runs", type=int, default=runs)


def state_generate(a: argparse.Namespace) -> CampaignState:
    return generate_campaign(
        width=a.width,
        height=a.height,
        players=a.players,
        forces=a.forces,
        units_per_force=a.units_per_force,
        seed=a.seed,
    )


def campaign_figures(a: argparse.Namespace, state: CampaignState) -> dict[str, Any]:
    """What the JSON says about the campaign measured, and about the host."""
    return {
        "map": f"{a.width}x{a.height}",
        "players": a.players,
        "forces": len(state.forces),
        "units": sum(len(f.units) for f in state.forces),
        "seed": a.seed,
        # two numbers to read the timings by: the machine is shared
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }


def orders_submit_generated(
    *,
    campaign: Campaign,
    state: CampaignState,
    turn: Turn,
    seed: int,
    unconfirmed: str = "",
    confirm: bool = True,
) -> None:
    """Every player's generated orders for `turn`, saved and confirmed (the campaign does not
    close by itself, so the last confirmation queues nothing), but for the player
    `unconfirmed`, whose orders stay open to his editor (everyone's, with `confirm=False`)."""
    orders = generate_orders(state, seed=seed)
    for player in campaign.players.all():
        data = to_data(orders[player.key])
        data.pop("player_id")
        orders_submit(
            player=player, turn=turn, data=data, confirm=confirm and player.key != unconfirmed
        )


def force_post_data(orders: Orders, force_key: str) -> dict[str, str]:
    """The editor's form as the browser posts it for the force's saved orders: its fields'
    values, a ticked checkbox as "on" and an unticked one left out (tests/campaign/orders/
    test_orders_page.py `_force_data` posts the same fields)."""
    saved = orders_from_data(orders.player.key, orders.data).for_force(force_key)
    data: dict[str, str] = {}
    for name, value in ForceOrdersForm.initial_for(saved).items():
        if value is True:
            data[name] = "on"
        elif value is not False:
            data[name] = str(value)
    return data


def battle_result_data(state: CampaignState, battle_id: str) -> dict[str, Any]:
    """A plausible result: side "a" wins; every unit of "b" loses half its figures, every
    unit of "a" a quarter (killed). `state`: with the turn's carry (`state_current`)."""
    pending = next(b for b in state.pending_battles if b.battle_id == battle_id)
    losses = []
    for side, share in zip(pending.pack.sides, (4, 2), strict=True):
        for bf in side.forces:
            for unit in state.force(bf.force_id).units:
                if unit.figures // share:
                    losses.append({"unit_id": unit.id, "killed": unit.figures // share})
    return {"outcomes": {"a": "won", "b": "lost"}, "units": losses}


class QueryCount:
    """Counts the SQL statements run, as a `connection.execute_wrapper`: unlike
    `CaptureQueriesContext` it has no 9000-query cap and keeps no SQL text."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, execute: Callable[..., Any], *args: Any) -> Any:
        self.n += 1
        return execute(*args)


def spread(values: Iterable[float]) -> dict[str, float]:
    """min / median / max, in the unit given, to 0.1."""
    v = list(values)
    return {
        "min": round(min(v), 1),
        "median": round(statistics.median(v), 1),
        "max": round(max(v), 1),
    }


def same(values: Iterable[Any]) -> Any:
    """The value every run gave, or the sorted list of them when runs disagreed."""
    distinct = sorted(set(values))
    return distinct[0] if len(distinct) == 1 else distinct
