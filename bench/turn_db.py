"""Benchmark: one turn of a generated campaign through the services and the database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench python bench/turn_db.py \
        --width 64 --height 64 --players 12 --forces 240 --units-per-force 10 --seed 1 --runs 5

Each run creates a fresh generated campaign (under a unique `bench-…` slug) in the configured
database, submits the generated orders of every player, closes the turn, and measures
`services.turn_resolve` (Phases 0–2): wall time and SQL queries. It then records a result for
every pending battle (side "a" wins) and measures `services.turn_resolve_after_battles`
(Phases 4–8). The campaign is deleted afterwards (`services.campaign_delete`, which cascades
from its own row): no other campaign is read or touched. Prints JSON with medians over
`--runs`. Run it against a scratch database: it writes and deletes real rows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("CELERY_BROKER_URL", "memory://")  # tasks queue as for a worker
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from battles.models import Battle  # noqa: E402
from campaign import services  # noqa: E402
from rules.codec import to_data  # noqa: E402
from rules.generate import generate_campaign, generate_orders  # noqa: E402
from rules.types import CampaignState  # noqa: E402


def battle_result_data(state: CampaignState, battle_id: str) -> dict[str, Any]:
    """A plausible result: side "a" wins; every unit of "b" loses half its figures, every
    unit of "a" a quarter (killed)."""
    pending = next(b for b in state.pending_battles if b.battle_id == battle_id)
    losses = []
    for side, share in zip(pending.pack.sides, (4, 2), strict=True):
        for bf in side.forces:
            for unit in state.force(bf.force_id).units:
                if unit.figures // share:
                    losses.append({"unit_id": unit.id, "killed": unit.figures // share})
    return {"outcomes": {"a": "won", "b": "lost"}, "units": losses}


def one_run(a: argparse.Namespace, state: CampaignState) -> dict[str, Any]:
    slug = f"bench-{uuid.uuid4().hex[:12]}"
    campaign = services.campaign_create(slug=slug, name=f"Benchmark {slug}", state=state)
    try:
        turn = services.turn_current(campaign=campaign)
        orders = generate_orders(state, seed=a.seed)
        for player in campaign.players.all():
            data = to_data(orders[player.key])
            data.pop("player_id")
            services.orders_submit(player=player, turn=turn, data=data, confirm=True)
        services.turn_close(turn=turn, seed=a.seed)

        with CaptureQueriesContext(connection) as q:
            t0 = time.perf_counter()
            resolution = services.turn_resolve(turn_id=turn.pk)
            resolve_ms = (time.perf_counter() - t0) * 1000
        resolve_queries = len(q)

        after = services.campaign_state(campaign=campaign)
        for battle in Battle.objects.filter(turn=turn):
            services.battle_result_record(battle=battle, data=battle_result_data(after, battle.key))

        with CaptureQueriesContext(connection) as q:
            t0 = time.perf_counter()
            services.turn_resolve_after_battles(turn_id=turn.pk)
            after_ms = (time.perf_counter() - t0) * 1000
        return {
            "resolve_ms": resolve_ms,
            "queries": resolve_queries,
            "after_ms": after_ms,
            "after_queries": len(q),
            "battles": len(resolution.pending),
        }
    finally:
        services.campaign_delete(campaign=campaign)  # this campaign only, by its row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--height", type=int, default=64)
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--forces", type=int, default=240)
    p.add_argument("--units-per-force", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args(argv)
    state = generate_campaign(
        width=a.width,
        height=a.height,
        players=a.players,
        forces=a.forces,
        units_per_force=a.units_per_force,
        seed=a.seed,
    )
    runs = [one_run(a, state) for _ in range(max(1, a.runs))]

    def figure(key: str) -> int | list[int]:
        values = sorted({r[key] for r in runs})
        return values[0] if len(values) == 1 else values  # a list means runs disagreed

    print(
        json.dumps(
            {
                "database": connection.vendor,
                "forces": len(state.forces),
                "units": sum(len(f.units) for f in state.forces),
                "players": a.players,
                "map": f"{a.width}x{a.height}",
                "seed": a.seed,
                "runs": len(runs),
                "resolve_turn_ms": round(statistics.median(r["resolve_ms"] for r in runs), 1),
                "resolve_turn_min_ms": round(min(r["resolve_ms"] for r in runs), 1),
                "queries": figure("queries"),
                "battles": figure("battles"),
                "after_battles_ms": round(statistics.median(r["after_ms"] for r in runs), 1),
                "after_battles_queries": figure("after_queries"),
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
