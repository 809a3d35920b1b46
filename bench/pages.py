"""Benchmark: the pages of a generated campaign, as the GM and as a player under fog of war.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench python bench/pages.py \
        --width 64 --height 64 --players 12 --forces 240 --units-per-force 10 --seed 1 --runs 5

One campaign size a run (`--forces`; issue 14 asks for 240 and 960). Creates a generated
campaign (under a unique `bench-…` slug) in the configured database with fog of war on; a GM
and the first player get throw-away users. Every player's generated
orders are saved and confirmed, but the measured player's, which stay open to his editor.
The pages are measured as the turn goes on:

1. turn 1 open: the orders page; one force's editor (`orders-force`, an htmx GET); saving
   that force's orders (an htmx POST of its form as the browser sends it, its current path
   included; it saves the same orders again). The force is the player's first with a path.
2. Phases 0–2 resolved (arrows and pending battles on the map): the map page and its JSON,
   the turn report of turn 1, and the detail and pack pages of the first battle the
   player's alliance fights (its odds computed beforehand, as a worker would have).
3. every battle's result recorded (side "a" wins) and Phases 4–8 resolved: the report of
   turn 1 and that battle's detail again (its odds computed again if its rosters changed).

The GM gives no orders: his `orders-force` requests answer 403 by design (they are measured
all the same). Each request goes through Django's test `Client` (the middleware, the view,
its queries and the template), once to warm up and then `--runs` times; the JSON gives, per
page and viewer, the wall time and this process's CPU time (`time.process_time`: not
PostgreSQL's, and a busy host disturbs it less), each as min / median / max in ms, the
Python function calls of one more run under cProfile (`python_calls`: the same count for
the same work however busy the host, so two versions compare exactly), the SQL
statements, the size of the answer in bytes and its HTTP status, with the host's load average.
Celery tasks are queued in memory and never run. The campaign and the two users are deleted
afterwards, by primary key: nothing else is read or touched.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# tasks queue in this process as for a worker, never run inline nor reach a real broker
os.environ["CELERY_BROKER_URL"] = "memory://"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import AbstractBaseUser  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402

from battles.models import Battle  # noqa: E402
from battles.selectors import battle_odds_get  # noqa: E402
from battles.services import battle_odds_compute, battle_result_record  # noqa: E402
from bench._common import (  # noqa: E402
    QueryCount,
    battle_result_data,
    campaign_arguments,
    campaign_figures,
    force_post_data,
    orders_submit_generated,
    same,
    spread,
    state_generate,
)
from campaign.adapters import state_current  # noqa: E402
from campaign.fog import battle_sides  # noqa: E402
from campaign.models import Campaign, Membership, Orders, Player, Turn  # noqa: E402
from campaign.selectors import turn_current  # noqa: E402
from campaign.setup.invitations import membership_add  # noqa: E402
from campaign.setup.services import campaign_create, campaign_delete  # noqa: E402
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles  # noqa: E402
from rules.types import CampaignState  # noqa: E402

HTMX = {"HX-Request": "true"}
# the GM's 403s are expected: their warnings (with a traceback each) would flood the output
logging.getLogger("django.request").setLevel(logging.ERROR)


@dataclass
class Request:
    """One page as a viewer asks for it."""

    url: str
    method: str = "get"
    data: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Bench:
    runs: int
    clients: dict[str, Client]  # "gm", "player"
    figures: dict[str, Any] = field(default_factory=dict)
    profile: set[str] = field(default_factory=set)  # "page:viewer" also profiled

    def page(
        self, name: str, request: Request, after: Callable[[], dict[str, Any]] | None = None
    ) -> None:
        """Measure `request` for each viewer; `after` adds what a run left behind."""
        self.figures[name] = {"url": request.url, "method": request.method.upper()}
        for who, client in self.clients.items():
            self.figures[name][who] = measure(client, request, self.runs, after)
            if DUMP:  # the answer itself, to read what a page sends
                body = getattr(client, request.method)(
                    request.url, request.data, headers=request.headers
                )
                (Path(DUMP) / f"{name}-{who}.html").write_bytes(body.content)
            if f"{name}:{who}" in self.profile:
                profile(client, request, f"{name}:{who}")


DUMP = os.environ.get("PAGES_DUMP", "")  # a folder: each page's last answer is written there


def profile(client: Client, r: Request, label: str) -> None:
    """One more request under cProfile, its 35 costliest calls (cumulative) on stderr."""
    import cProfile
    import pstats

    send = getattr(client, r.method)
    prof = cProfile.Profile()
    prof.runcall(send, r.url, r.data, headers=r.headers)
    print(f"--- profile of {label}", file=sys.stderr)
    stats = pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative")
    # PROFILE_MATCH: only the calls whose path matches (e.g. "/work/main/(campaign|rules)")
    stats.print_stats(os.environ.get("PROFILE_MATCH", ""), int(os.environ.get("PROFILE_LINES", 35)))


def measure(
    client: Client, r: Request, runs: int, after: Callable[[], dict[str, Any]] | None
) -> dict[str, Any]:
    send = getattr(client, r.method)
    send(r.url, r.data, headers=r.headers)  # warm-up: template compilation, first queries
    wall, cpu, queries, size, status, left = [], [], [], [], [], []
    for _ in range(runs):
        counted = QueryCount()
        with connection.execute_wrapper(counted):
            t0, c0 = time.perf_counter(), time.process_time()
            response = send(r.url, r.data, headers=r.headers)
            cpu.append((time.process_time() - c0) * 1000)
            wall.append((time.perf_counter() - t0) * 1000)
        queries.append(counted.n)
        size.append(len(response.content))
        status.append(response.status_code)
        if after is not None:
            left.append(json.dumps(after(), sort_keys=True))
    out = {
        "wall_ms": spread(wall),
        "cpu_ms": spread(cpu),
        "python_calls": python_calls(send, r),
        "queries": same(queries),
        "bytes": same(size),
        "status": same(status),
    }
    if after is not None:
        out |= {k: same(json.loads(x)[k] for x in left) for k in json.loads(left[0])}
    return out


def python_calls(send: Callable[..., Any], r: Request) -> int:
    """The Python function calls of one more request (cProfile's count): unlike time, the
    same for the same work however busy the machine, so two versions compare exactly."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.runcall(send, r.url, r.data, headers=r.headers)
    return int(pstats.Stats(prof).total_calls)  # type: ignore[attr-defined]


def force_with_path(orders: Orders) -> str:
    """The player's first force (by key) whose saved orders move it."""
    forces = (orders.data or {}).get("forces") or {}
    moving: list[str] = sorted(k for k, fo in forces.items() if fo.get("path"))
    if not moving:
        raise SystemExit("The player's generated orders move no force: try another --seed.")
    return moving[0]


def battle_of(player: Player, turn: Turn) -> Battle | None:
    """The first battle (in contact order) the player's alliance fights: one he may open."""
    battles = Battle.objects.filter(turn=turn).order_by("contact_order", "key")
    return next((b for b in battles if player.side.key in battle_sides(b)), None)


def odds_ready(battle: Battle) -> None:
    """The battle's odds as a worker would have computed them after the first page view."""
    battle.refresh_from_db()
    if battle_odds_get(battle=battle) is None:
        battle_odds_compute(battle=battle)


def orders_open(bench: Bench, campaign: Campaign, player: Player) -> dict[str, Any]:
    """Stage 1: turn 1 open, every player's orders saved and confirmed."""
    slug = campaign.slug
    turn = turn_current(campaign=campaign)
    orders = Orders.objects.select_related("player").get(turn=turn, player=player)
    key = force_with_path(orders)
    before = orders.data
    post = force_post_data(orders, key)
    editor = reverse("campaign:orders-force", args=[slug, key])
    last = [orders.saved_at]

    def saved() -> dict[str, Any]:
        """Whether the POST saved (`saved_at` moved on) the same orders as before."""
        row = Orders.objects.get(pk=orders.pk)
        moved, last[0] = row.saved_at != last[0], row.saved_at
        return {"saved": moved, "orders_unchanged": row.data == before}

    bench.page("orders", Request(reverse("campaign:orders", args=[slug])))
    bench.page("orders_force_editor", Request(editor, headers=HTMX))
    bench.page("orders_force_save", Request(editor, "post", post, HTMX), saved)
    return {"force": key, "path": post.get("path", "")}


def battles_pending(bench: Bench, campaign: Campaign, battle: Battle | None) -> None:
    """Stage 2: Phases 0–2 resolved, the battles waiting for their results."""
    slug = campaign.slug
    bench.page("map", Request(reverse("campaign:map", args=[slug])))
    bench.page("map_json", Request(reverse("campaign:map-json", args=[slug])))
    bench.page("report", Request(reverse("campaign:report", args=[slug, 1])))
    if battle is not None:
        odds_ready(battle)
        bench.page("battle", Request(reverse("battles:detail", args=[slug, battle.key])))
        bench.page("battle_pack", Request(reverse("battles:pack", args=[slug, battle.key])))


def turn_resolved(bench: Bench, campaign: Campaign, battle: Battle | None) -> None:
    """Stage 3: every result recorded, Phases 4–8 resolved (turn 2 open)."""
    slug = campaign.slug
    bench.page("report_resolved", Request(reverse("campaign:report", args=[slug, 1])))
    if battle is not None:
        odds_ready(battle)
        url = reverse("battles:detail", args=[slug, battle.key])
        bench.page("battle_resolved", Request(url))


def results_record(campaign: Campaign, turn: Turn) -> None:
    state = state_current(campaign=campaign)  # with the carry: the pending battles
    for battle in Battle.objects.filter(turn=turn):
        battle_result_record(battle=battle, data=battle_result_data(state, battle.key))
    turn_resolve_after_battles(turn_id=turn.pk)


def pages_measure(
    a: argparse.Namespace, state: CampaignState, campaign: Campaign, clients: dict[str, Client]
) -> dict[str, Any]:
    """The three stages, one after the other, on the campaign's turn 1."""
    player = (
        Membership.objects.select_related("player__side")
        .get(campaign=campaign, role=Membership.Role.PLAYER)
        .player
    )
    assert player is not None
    bench = Bench(a.runs, clients, profile=set(a.profile))
    turn = turn_current(campaign=campaign)
    # the measured player's orders stay unconfirmed: his editor opens as a player sees it
    orders_submit_generated(
        campaign=campaign, state=state, turn=turn, seed=a.seed, unconfirmed=player.key
    )
    edited = orders_open(bench, campaign, player)
    turn_close(turn=turn, seed=a.seed)
    battles = len(turn_resolve(turn_id=turn.pk).pending)
    battle = battle_of(player, turn)
    battles_pending(bench, campaign, battle)
    results_record(campaign, turn)
    turn_resolved(bench, campaign, battle)
    return {
        "player": player.key,
        "orders_force": edited,
        "battles": battles,
        "battle": None if battle is None else battle.key,
        # at a glance: every answer that was not a 200 (the GM's orders-force ones are 403)
        "not_200": sorted(
            f"{name} {who}: {page[who]['status']}"
            for name, page in bench.figures.items()
            for who in clients
            if page[who]["status"] != 200
        ),
        "pages": bench.figures,
    }


def viewers(campaign: Campaign, users: list[AbstractBaseUser]) -> dict[str, Client]:
    """A GM and the first player, each a throw-away user (added to `users`) logged in."""
    User = get_user_model()
    player = campaign.players.order_by("position").first()
    clients = {}
    for who, role in (("gm", Membership.Role.GM), ("player", Membership.Role.PLAYER)):
        user = User.objects.create_user(f"{campaign.slug}-{who}")
        users.append(user)
        membership_add(
            campaign=campaign, user=user, role=role, player=player if who == "player" else None
        )
        clients[who] = Client(headers={"accept-encoding": "gzip, deflate, br"})  # a browser's
        clients[who].force_login(user)
    return clients


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    campaign_arguments(p, runs=5)
    p.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="PAGE:VIEWER",
        help="also profile this page (e.g. orders_force_save:player); cProfile on stderr",
    )
    a = p.parse_args(argv)
    a.runs = max(1, a.runs)
    state = state_generate(a)
    tag = uuid.uuid4().hex[:12]
    campaign = None
    users: list[AbstractBaseUser] = []
    try:
        campaign = campaign_create(
            slug=f"bench-{tag}", name=f"Benchmark {tag}", state=state, fog_of_war=True
        )
        with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
            figures = pages_measure(a, state, campaign, viewers(campaign, users))
        print(
            json.dumps(
                {
                    "database": connection.vendor,
                    **campaign_figures(a, state),
                    "fog_of_war": True,
                    "runs": a.runs,
                    **figures,
                },
                indent=2,
            )
        )
    finally:
        if campaign is not None:
            campaign_delete(campaign=campaign)
        get_user_model().objects.filter(pk__in=[u.pk for u in users]).delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
