"""Benchmark: the preview of an amendment five turns back in a large generated campaign.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench python bench/amend.py \
        --width 64 --height 64 --players 12 --forces 240 --units-per-force 10 --seed 1 --runs 5

It creates a generated campaign (under a unique `bench-…` slug) in the configured database and
plays `--turns` turns through the services (6 by default: generated orders, side "a" wins every
battle). Then, `--back` turns back (5: turn 2 of 6), it amends the result of that turn's first
battle (a stalemate with one figure of each unit killed; a player's orders, one force's
dropped, if the turn had no battle) and measures `campaign.turns.amend.amendment_preview`:
loading the line, replaying the amended turn and every later one with the engine, and the
turn-by-turn diff. Each run is a new draft of the same amendment; the figures are the wall
time and this process's CPU time (`time.process_time`), min / median / max over `--runs`, and
the SQL statements. The commit of the last draft is measured once, for information. The
campaign is deleted afterwards. Run it against a scratch database: it writes real rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

os.environ["CELERY_BROKER_URL"] = "memory://"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from battles.models import Battle  # noqa: E402
from battles.services import battle_result_record  # noqa: E402
from bench._common import (  # noqa: E402
    battle_result_data,
    campaign_arguments,
    campaign_figures,
    orders_submit_generated,
    same,
    spread,
    state_generate,
)
from bench.turn_db import timed  # noqa: E402
from campaign.adapters import state_current  # noqa: E402
from campaign.models import Amendment, Campaign, Membership, TurnResolution  # noqa: E402
from campaign.selectors import turn_current  # noqa: E402
from campaign.setup.services import campaign_create, campaign_delete  # noqa: E402
from campaign.turns.amend import amendment_commit, amendment_preview  # noqa: E402
from campaign.turns.services import (  # noqa: E402
    turn_close,
    turn_resolve,
    turn_resolve_after_battles,
)


def play(campaign: Campaign, turns: int, seed: int) -> None:
    for n in range(turns):
        campaign.refresh_from_db()
        state = state_current(campaign=campaign)
        turn = turn_current(campaign=campaign)
        orders_submit_generated(campaign=campaign, state=state, turn=turn, seed=seed + n)
        turn_close(turn=turn, seed=seed + n)
        turn_resolve(turn_id=turn.pk)
        after = state_current(campaign=campaign)
        for battle in Battle.objects.filter(turn=turn):
            battle_result_record(battle=battle, data=battle_result_data(after, battle.key))
        turn_resolve_after_battles(turn_id=turn.pk)


def change_of(campaign: Campaign, number: int) -> dict[str, Any]:
    """The amendment: the first battle's result, else one player's orders less a force."""
    battle = Battle.objects.filter(campaign=campaign, turn__number=number).first()
    if battle is not None:
        units = [u["unit_id"] for u in battle.result["units"]]
        return {
            "kind": "battle-result",
            "target": battle.key,
            "data": {
                "outcomes": {"a": "stalemate", "b": "stalemate"},
                "units": [{"unit_id": u, "killed": 1} for u in units],
            },
        }
    row = TurnResolution.objects.get(turn__campaign=campaign, turn__number=number, stage="turn")
    player, orders = next((k, v) for k, v in sorted(row.inputs.items()) if v.get("forces"))
    dropped = sorted(orders["forces"])[0]
    orders = {**orders, "forces": {k: v for k, v in orders["forces"].items() if k != dropped}}
    orders["initiative_priority"] = [
        f for f in orders.get("initiative_priority", []) if f != dropped
    ]
    return {"kind": "orders", "target": player, "data": orders}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    campaign_arguments(p, runs=5)
    p.add_argument("--turns", type=int, default=6, help="turns played before amending")
    p.add_argument("--back", type=int, default=5, help="how many turns the preview replays")
    a = p.parse_args(argv)
    state = state_generate(a)
    slug = f"bench-{uuid.uuid4().hex[:12]}"
    campaign = campaign_create(slug=slug, name=f"Benchmark {slug}", state=state)
    gm, _ = get_user_model().objects.get_or_create(username="bench-gm")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    try:
        play(campaign, a.turns, a.seed)
        number = a.turns - a.back + 1
        change = change_of(campaign, number)
        runs: list[dict[str, Any]] = []
        drafts: list[Amendment] = []

        def preview() -> None:
            drafts.append(
                amendment_preview(
                    campaign=campaign,
                    user=gm,
                    turn_number=number,
                    reason="bench",
                    **change,
                )
            )

        for _ in range(max(1, a.runs)):
            campaign.refresh_from_db()
            runs.append(timed(preview))
        last = drafts[-1]
        commit = timed(lambda: amendment_commit(amendment=last, user=gm))
        print(
            json.dumps(
                {
                    "database": connection.vendor,
                    **campaign_figures(a, state),
                    "turns_played": a.turns,
                    "amended_turn": number,
                    "turns_replayed": a.turns - number + 1,
                    "amendment": change["kind"],
                    "notes": same(len(d.preview["notes"]) for d in drafts),
                    "runs": len(runs),
                    "preview": {
                        "wall_ms": spread(r["wall_ms"] for r in runs),
                        "cpu_ms": spread(r["cpu_ms"] for r in runs),
                        "queries": same(r["queries"] for r in runs),
                    },
                    "commit_once": commit,
                },
                indent=1,
            )
        )
    finally:
        campaign_delete(campaign=campaign)
        gm.delete()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
