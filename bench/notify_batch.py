"""Benchmark: the battle notices of one turn of about 300 battles, one battle at a time (as
one task a battle did before) and as one batch for the turn (the one task queued now).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench python bench/notify_batch.py \
        --width 48 --height 48 --players 12 --forces 3200 --units-per-force 4 --seed 1 --runs 3

Creates a generated campaign (under a unique `bench-…` slug) in the configured database, a
throw-away user with an address for each player, submits every player's generated orders,
closes turn 1 and runs Phases 0–2, counting the notification tasks they queue (captured, not
run). Then, `--runs` times and from an empty delivery log each time:

- `per_battle`: `notify_battle` once a battle, what the one-task-a-battle layout ran;
- `batch`: `notify_battles` once for the turn.

`--mode per-battle` runs only the first, which a checkout from before the batch also has:
run this file there to measure the old code itself. Mail goes to Django's in-memory outbox,
so an SMTP server's own time (a connection a message before, one a batch now) is not in the
figures. Prints JSON: this process's CPU time (min, median, max; PostgreSQL's is not in it,
and a busy host disturbs it less than wall time), the median wall time, the SQL queries, the
tasks queued and the messages sent, with the host's load average. The campaign and the users
are deleted afterwards, by primary key: nothing else is read or touched.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("CELERY_BROKER_URL", "memory://")  # tasks queue as for a worker
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core import mail  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from battles.models import Battle  # noqa: E402
from campaign.adapters import state_current  # noqa: E402
from campaign.models import Campaign, Membership, Turn  # noqa: E402
from campaign.orders.services import orders_submit  # noqa: E402
from campaign.selectors import turn_current  # noqa: E402
from campaign.setup.invitations import membership_add  # noqa: E402
from campaign.setup.services import campaign_create, campaign_delete  # noqa: E402
from campaign.turns.services import turn_close, turn_resolve  # noqa: E402
from notifications import services as notices  # noqa: E402
from notifications import tasks  # noqa: E402
from notifications.models import Notification  # noqa: E402
from rules.codec import to_data  # noqa: E402
from rules.generate import generate_campaign, generate_orders  # noqa: E402

OUTBOX = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}


def turn_with_battles(a: argparse.Namespace, campaign: Campaign) -> tuple[Turn, list[str]]:
    """Turn 1 through Phases 0–2; the names of the notification tasks they queued."""
    turn = turn_current(campaign=campaign)
    orders = generate_orders(state_current(campaign=campaign), seed=a.seed)
    for player in campaign.players.all():
        data = to_data(orders[player.key])
        data.pop("player_id")
        orders_submit(player=player, turn=turn, data=data, confirm=True)
    turn_close(turn=turn, seed=a.seed)
    queued: list[str] = []
    enqueue = tasks.enqueue_on_commit
    tasks.enqueue_on_commit = lambda task, *args: queued.append(task.name)  # type: ignore[assignment]
    try:
        turn_resolve(turn_id=turn.pk)
    finally:
        tasks.enqueue_on_commit = enqueue
    return turn, [name for name in queued if name != "notifications.notify_missing_orders"]


class QueryCount:
    """Counts the queries run (CaptureQueriesContext keeps only the last 9000)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, execute: Callable[..., Any], *args: Any) -> Any:
        self.n += 1
        return execute(*args)


def measure(turn: Turn, notify: Callable[[], object], runs: int) -> dict[str, Any]:
    cpu, wall, queries, sent = [], [], set(), set()
    for _ in range(runs):
        Notification.objects.filter(turn=turn).delete()  # an empty log: every message is new
        mail.outbox = []
        counted = QueryCount()
        with connection.execute_wrapper(counted):
            t0, c0 = time.perf_counter(), time.process_time()
            notify()
            cpu.append((time.process_time() - c0) * 1000)
            wall.append((time.perf_counter() - t0) * 1000)
        queries.add(counted.n)
        sent.add(len(mail.outbox))
    return {
        "cpu_ms": {
            "min": round(min(cpu), 1),
            "median": round(statistics.median(cpu), 1),
            "max": round(max(cpu), 1),
        },
        "median_wall_ms": round(statistics.median(wall), 1),
        "queries": min(queries) if len(queries) == 1 else sorted(queries),
        "messages": min(sent) if len(sent) == 1 else sorted(sent),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--width", type=int, default=48)
    p.add_argument("--height", type=int, default=48)
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--forces", type=int, default=3200)
    p.add_argument("--units-per-force", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--mode", choices=["both", "per-battle"], default="both")
    a = p.parse_args(argv)
    runs = max(1, a.runs)
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
        campaign = campaign_create(slug=f"bench-{tag}", name=f"Benchmark {tag}", state=state)
        for player in campaign.players.all():
            name = f"bench-{tag}-{player.key}"
            user = User.objects.create_user(name, email=f"{name}@example.org")
            users.append(user)
            membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
        turn, queued = turn_with_battles(a, campaign)
        battles = list(Battle.objects.filter(turn=turn).values_list("pk", flat=True))
        figures: dict[str, Any] = {}
        with override_settings(MAILERS=OUTBOX):
            figures["per_battle"] = {
                "tasks": len(battles),  # one a battle, as queued before the batch
                **measure(
                    turn, lambda: [notices.notify_battle(battle_id=b) for b in battles], runs
                ),
            }
            if a.mode == "both":
                figures["batch"] = {
                    "tasks": len(queued),  # what Phases 0–2 queued just now
                    **measure(turn, lambda: notices.notify_battles(turn_id=turn.pk), runs),
                }
        print(
            json.dumps(
                {
                    "database": connection.vendor,
                    "map": f"{a.width}x{a.height}",
                    "players": a.players,
                    "forces": len(state.forces),
                    "units": sum(len(f.units) for f in state.forces),
                    "seed": a.seed,
                    "battles": len(battles),
                    "runs": runs,
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                    **figures,
                },
                indent=2,
            )
        )
    finally:
        if campaign is not None:
            campaign_delete(campaign=campaign)
        User.objects.filter(pk__in=[u.pk for u in users]).delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
