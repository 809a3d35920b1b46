"""Benchmark: the map page of a generated campaign, as the GM and as a player under fog of war.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench python bench/pages.py \
        --width 64 --height 64 --players 12 --forces 240 --units-per-force 10 --seed 1 --runs 15

Creates a generated campaign (under a unique `bench-…` slug) in the configured database with
fog of war on, submits every player's generated orders and resolves Phases 0–2 of turn 1, so
that the map has last turn's arrows and pending battles to draw. A GM and the first player get
throw-away users. Each page is fetched through Django's test `Client` (the whole request: the
middleware, the view, its queries and the template), once to warm up and then `--runs` times;
the JSON prints the median and minimum server time (wall clock, and the median CPU time of
this process, which a busy host disturbs less), the SQL queries and the size of each answer,
with the host's load average. The campaign and the two users are deleted afterwards, by
primary key: nothing else is read or touched.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402

from battles.models import Battle  # noqa: E402
from campaign import services  # noqa: E402
from campaign.models import Campaign, Membership  # noqa: E402
from rules.codec import to_data  # noqa: E402
from rules.generate import generate_campaign, generate_orders  # noqa: E402
from rules.types import CampaignState  # noqa: E402


def turn_resolve(a: argparse.Namespace, state: CampaignState, campaign: Campaign) -> None:
    """Every player's generated orders for turn 1, then Phases 0–2: arrows and battles."""
    turn = services.turn_current(campaign=campaign)
    orders = generate_orders(state, seed=a.seed)
    for player in campaign.players.all():
        data = to_data(orders[player.key])
        data.pop("player_id")
        services.orders_submit(player=player, turn=turn, data=data, confirm=True)
    services.turn_close(turn=turn, seed=a.seed)
    services.turn_resolve(turn_id=turn.pk)


def measure(client: Client, url: str, runs: int) -> dict[str, Any]:
    response = client.get(url)  # warm-up: template compilation, first connection use
    assert response.status_code == 200, (url, response.status_code)
    times = []
    cpu = []
    queries = set()
    for _ in range(runs):
        with CaptureQueriesContext(connection) as q:
            t0, c0 = time.perf_counter(), time.process_time()
            response = client.get(url)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        assert response.status_code == 200
        queries.add(len(q))
    return {
        "median_ms": round(statistics.median(times), 1),
        "min_ms": round(min(times), 1),
        # this process's CPU only (not PostgreSQL's): steadier than wall time on a busy host
        "median_cpu_ms": round(statistics.median(cpu), 1),
        "queries": min(queries) if len(queries) == 1 else sorted(queries),
        "kb": round(len(response.content) / 1024, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--height", type=int, default=64)
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--forces", type=int, default=240)
    p.add_argument("--units-per-force", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=15)
    p.add_argument(
        "--no-resolve",
        dest="resolve",
        action="store_false",
        help="leave turn 1 open (no arrows, no battles on the map)",
    )
    a = p.parse_args(argv)
    state = generate_campaign(
        width=a.width,
        height=a.height,
        players=a.players,
        forces=a.forces,
        units_per_force=a.units_per_force,
        seed=a.seed,
    )
    tag = uuid.uuid4().hex[:12]
    User = get_user_model()
    campaign = None
    users = []
    try:
        campaign = services.campaign_create(
            slug=f"bench-{tag}", name=f"Benchmark {tag}", state=state, fog_of_war=True
        )
        if a.resolve:
            turn_resolve(a, state, campaign)
            campaign.refresh_from_db()
        gm = User.objects.create_user(f"bench-{tag}-gm")
        player_user = User.objects.create_user(f"bench-{tag}-player")
        users = [gm, player_user]
        player = campaign.players.order_by("position").first()
        services.membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
        services.membership_add(
            campaign=campaign, user=player_user, role=Membership.Role.PLAYER, player=player
        )
        page = reverse("campaign:map", args=[campaign.slug])
        data = reverse("campaign:map-json", args=[campaign.slug])
        figures: dict[str, Any] = {}
        with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
            for who, user in (("gm", gm), ("player", player_user)):
                client = Client()
                client.force_login(user)
                figures[f"{who}_page"] = measure(client, page, a.runs)
                figures[f"{who}_json"] = measure(client, data, a.runs)
        print(
            json.dumps(
                {
                    "database": connection.vendor,
                    "map": f"{a.width}x{a.height}",
                    "players": a.players,
                    "forces": len(state.forces),
                    "units": sum(len(f.units) for f in state.forces),
                    "seed": a.seed,
                    "turn_resolved": a.resolve,
                    "battles": Battle.objects.filter(campaign=campaign).count(),
                    "fog_of_war": True,
                    "runs": a.runs,
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                    **figures,
                },
                indent=2,
            )
        )
    finally:
        if campaign is not None:
            services.campaign_delete(campaign=campaign)
        User.objects.filter(pk__in=[u.pk for u in users]).delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
