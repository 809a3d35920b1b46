"""Benchmark: the export of a large generated campaign, asked for on the export page and
written by a task (issue 28: the GM's export.json of 1,500 forces took 10.7 s in the request).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench python bench/export.py \
        --width 64 --height 64 --players 12 --forces 1500 --units-per-force 10 --seed 1 --runs 3

It creates a generated campaign (under a unique `bench-…` slug) in the configured database
with fog of war on, plays `--turns` whole turns through the services (generated orders, side
"a" wins every battle), then closes the next one and resolves its Phases 0–2: the campaign
waits for its battles. A GM and the first player get throw-away users. For each of them it
measures, min / median / max over `--runs`, with the SQL statements:

- `synchronous`: what the request did before, in-process (`export_json` of
  `campaign_export_for_viewer`), for comparison;
- `post`: the export page's POST (through Django's test `Client`): the job recorded and its
  task queued (in memory: it never runs there);
- `task`: the task's work (`export_job_run`), in a worker;
- `line`: the progress line's htmx GET once the export is ready;
- `download`: the GET of the file, with the bytes sent and the bytes the row keeps (gzipped).

The campaign and the two users are deleted afterwards. Run it against a scratch database: it
writes real rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from collections.abc import Callable
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
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402

from battles.models import Battle  # noqa: E402
from bench._common import (  # noqa: E402
    campaign_arguments,
    campaign_figures,
    orders_submit_generated,
    same,
    spread,
    state_generate,
)
from bench.amend import play  # noqa: E402
from bench.turn_db import timed  # noqa: E402
from campaign.access import viewer_for  # noqa: E402
from campaign.adapters import state_current  # noqa: E402
from campaign.exchange.export import campaign_export_for_viewer, export_json  # noqa: E402
from campaign.exchange.jobs import export_job_run  # noqa: E402
from campaign.models import Campaign, ExportJob, Membership  # noqa: E402
from campaign.selectors import turn_current  # noqa: E402
from campaign.setup.services import campaign_create, campaign_delete  # noqa: E402
from campaign.turns.services import turn_close, turn_resolve  # noqa: E402

HTMX = {"HX-Request": "true"}


def in_battles(campaign: Campaign, seed: int) -> int:
    """Close the current turn and resolve its Phases 0–2; returns the battles waiting."""
    campaign.refresh_from_db()
    turn = turn_current(campaign=campaign)
    state = state_current(campaign=campaign)
    orders_submit_generated(campaign=campaign, state=state, turn=turn, seed=seed)
    turn_close(turn=turn, seed=seed)
    turn_resolve(turn_id=turn.pk)
    return Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).count()


def request(send: Callable[[], Any]) -> tuple[dict[str, float], Any]:
    """The figures of one call (`timed`) and what it gave."""
    out: list[Any] = []
    figures = timed(lambda: out.append(send()))
    return figures, out[0]


def summary(runs: list[dict[str, float]], **extra: Any) -> dict[str, Any]:
    return {
        "wall_ms": spread(r["wall_ms"] for r in runs),
        "cpu_ms": spread(r["cpu_ms"] for r in runs),
        "queries": same(r["queries"] for r in runs),
        **{k: same(v) for k, v in extra.items()},
    }


def measure(campaign: Campaign, user: Any, runs: int) -> dict[str, Any]:
    client = Client()
    client.force_login(user)
    viewer = viewer_for(user=user, campaign=campaign)
    assert viewer is not None
    page = reverse("campaign:export", args=[campaign.slug])
    sync, post, task, line, download = [], [], [], [], []
    status, sent, kept, same_bytes = [], [], [], []
    for _ in range(runs):
        campaign.refresh_from_db()
        figures, before = request(
            lambda: export_json(campaign_export_for_viewer(campaign=campaign, viewer=viewer))
        )
        sync.append(figures)
        ExportJob.objects.filter(campaign=campaign, user=user).delete()  # a new one each run
        figures, response = request(lambda: client.post(page))
        post.append(figures)
        status.append(response.status_code)
        job = ExportJob.objects.get(campaign=campaign, user=user)
        task.append(timed(lambda job=job: export_job_run(job_id=job.pk)))
        url = reverse("campaign:export-job", args=[campaign.slug, job.pk])
        figures, response = request(lambda url=url: client.get(url, headers=HTMX))
        line.append(figures)
        status.append(response.status_code)
        url = reverse("campaign:export-download", args=[campaign.slug, job.pk])
        figures, response = request(lambda url=url: client.get(url))
        download.append(figures)
        status.append(response.status_code)
        sent.append(len(response.content))
        kept.append(len(ExportJob.objects.get(pk=job.pk).content))
        same_bytes.append(response.content == before.encode())
    return {
        "synchronous": summary(sync),
        "post": summary(post),
        "task": summary(task),
        "line": summary(line),
        "download": summary(download, bytes=sent, gzipped_bytes_kept=kept),
        "statuses": sorted(set(status)),  # 302 (the POST), 286 (the line), 200 (the file)
        "download_is_the_synchronous_export": same(same_bytes),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    campaign_arguments(p, runs=3)
    # 0: turn 1 waits for its battles, as issue 28 measured (a player may surrender after
    # a turn of a crowded map, and could give no more orders)
    p.add_argument("--turns", type=int, default=0, help="whole turns played first")
    a = p.parse_args(argv)
    state = state_generate(a)
    slug = f"bench-{uuid.uuid4().hex[:12]}"
    campaign = campaign_create(slug=slug, name=f"Benchmark {slug}", state=state, fog_of_war=True)
    User = get_user_model()
    gm = User.objects.create(username=f"{slug}-gm")
    player = User.objects.create(username=f"{slug}-player")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(
        campaign=campaign,
        user=player,
        role=Membership.Role.PLAYER,
        player=campaign.players.order_by("position", "key").first(),
    )
    try:
        play(campaign, a.turns, a.seed)
        waiting = in_battles(campaign, a.seed + a.turns)
        with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
            figures = {
                "database": connection.vendor,
                **campaign_figures(a, state),
                "turns_played": a.turns,
                "battles_waiting": waiting,
                "runs": a.runs,
                "gm": measure(campaign, gm, a.runs),
                "player": measure(campaign, player, a.runs),
            }
        print(json.dumps(figures, indent=1))
    finally:
        campaign_delete(campaign=campaign)
        User.objects.filter(pk__in=[gm.pk, player.pk]).delete()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
