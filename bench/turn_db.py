"""Benchmark: one turn of a generated campaign through the services and the database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench python bench/turn_db.py \
        --width 64 --height 64 --players 12 --forces 240 --units-per-force 10 --seed 1 --runs 5

Each run creates a fresh generated campaign (under a unique `bench-…` slug) in the configured
database and plays `--turns` turns (2 by default: the first turn stores its state whole,
later ones a delta of the one before); of the last it submits the generated orders of every
player, closes the turn, and measures `campaign.turns.services.turn_resolve` (Phases 0–2).
It then records a result for every pending battle (side "a" wins; not measured) and measures
`turn_resolve_after_battles`
(Phases 4–8). Each measure gives the wall time and this process's CPU time
(`time.process_time`: PostgreSQL's own work is not in it, and a busy host disturbs it less),
as min / median / max over `--runs`, and the SQL statements run. `stored_bytes` is what the
turn wrote to its JSON columns, column by column: the carry of Turn 1, the state, inputs,
ledger and events of each `TurnResolution`, and the packs and results of its battles (the
bytes of the JSON text: `octet_length` on PostgreSQL, `length` of it as a blob on SQLite;
PostgreSQL's `pg_column_size`, after TOAST compression, is given beside it). Celery tasks
are queued in memory, as for a worker, and never run. The campaign is deleted afterwards
(`campaign_delete`, which cascades from its own row): no other campaign is read or touched.
Run it against a scratch database: it writes and deletes real rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
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

from django.db import connection, models  # noqa: E402

from battles.models import Battle  # noqa: E402
from battles.services import battle_result_record  # noqa: E402
from bench._common import (  # noqa: E402
    QueryCount,
    battle_result_data,
    campaign_arguments,
    campaign_figures,
    orders_submit_generated,
    same,
    spread,
    state_generate,
)
from campaign.adapters import state_current  # noqa: E402
from campaign.models import Campaign, StoredMap, Turn, TurnResolution  # noqa: E402
from campaign.selectors import turn_current  # noqa: E402
from campaign.setup.services import campaign_create, campaign_delete  # noqa: E402
from campaign.stored_states import CHAIN_MAX  # noqa: E402
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles  # noqa: E402
from rules.types import CampaignState  # noqa: E402

PROFILE = os.environ.get("TURN_PROFILE", "")  # "1": each measured call profiled on stderr


def timed(call: Callable[[], object]) -> dict[str, float]:
    counted = QueryCount()
    if PROFILE:  # its figures then include the profiler's cost
        import cProfile
        import pstats

        prof = cProfile.Profile()
        inner = call

        def call() -> object:
            return prof.runcall(inner)

    with connection.execute_wrapper(counted):
        t0, c0 = time.perf_counter(), time.process_time()
        call()
        cpu = (time.process_time() - c0) * 1000
        wall = (time.perf_counter() - t0) * 1000
    if PROFILE:
        stats = pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative")
        stats.print_stats(os.environ.get("PROFILE_MATCH", ""), 40)
    return {"wall_ms": wall, "cpu_ms": cpu, "queries": counted.n}


def json_bytes(qs: models.QuerySet[Any], column: str) -> tuple[int, int | None]:
    """The JSON text of `column` summed over the rows of `qs`, in bytes, and on PostgreSQL
    what it takes on disk (`pg_column_size`: compressed when large)."""
    table = connection.ops.quote_name(qs.model._meta.db_table)
    pks = list(qs.values_list("pk", flat=True))
    if not pks:
        return 0, 0 if connection.vendor == "postgresql" else None
    col = connection.ops.quote_name(column)
    where = f"{connection.ops.quote_name('id')} IN ({', '.join(['%s'] * len(pks))})"
    if connection.vendor == "postgresql":
        sql = f"SELECT SUM(octet_length({col}::text)), SUM(pg_column_size({col})) FROM {table}"
    else:  # SQLite keeps JSON as text
        sql = f"SELECT SUM(length(CAST({col} AS BLOB))), NULL FROM {table}"
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} WHERE {where}", pks)
        text, disk = cursor.fetchone()
    return int(text or 0), None if disk is None else int(disk)


def stored_bytes(turn: Turn) -> dict[str, dict[str, int]]:
    """What the turn wrote to JSON columns, per column (the turn's own rows only): the JSON
    text, and on PostgreSQL the bytes on disk."""
    columns: dict[str, tuple[models.QuerySet[Any], str]] = {
        "turn.carry": (Turn.objects.filter(pk=turn.pk), "carry"),
        "battle.pack": (Battle.objects.filter(turn=turn), "pack"),
        "battle.result": (Battle.objects.filter(turn=turn), "result"),
    }
    for stage in TurnResolution.Stage:
        for field in ("state_before", "inputs", "ledger", "events"):
            qs = TurnResolution.objects.filter(turn=turn, stage=stage)
            columns[f"turn_resolution[{stage.value}].{field}"] = (qs, field)
    text: dict[str, int] = {}
    disk: dict[str, int] = {}
    for name, (qs, column) in columns.items():
        text[name], on_disk = json_bytes(qs, column)
        if on_disk is not None:
            disk[name] = on_disk
    out = {"text": text | {"total": sum(text.values())}}
    if disk:
        out["disk"] = disk | {"total": sum(disk.values())}
    return out


def one_turn(campaign: Campaign, state: CampaignState, seed: int) -> dict[str, Any]:
    turn = turn_current(campaign=campaign)
    orders_submit_generated(campaign=campaign, state=state, turn=turn, seed=seed)
    turn_close(turn=turn, seed=seed)

    pending: list[str] = []
    resolve = timed(lambda: pending.extend(turn_resolve(turn_id=turn.pk).pending))

    after = state_current(campaign=campaign)  # with the carry: the pending battles
    for battle in Battle.objects.filter(turn=turn):
        battle_result_record(battle=battle, data=battle_result_data(after, battle.key))

    after_battles = timed(lambda: turn_resolve_after_battles(turn_id=turn.pk))
    return {
        "resolve": resolve,
        "after_battles": after_battles,
        "battles": len(pending),
        "stored_bytes": stored_bytes(turn),
    }


def one_run(a: argparse.Namespace, state: CampaignState) -> dict[str, Any]:
    """`--turns` turns of a new campaign: the last one measured (the first stores its state
    whole, later ones a delta of the one before)."""
    slug = f"bench-{uuid.uuid4().hex[:12]}"
    campaign = campaign_create(slug=slug, name=f"Benchmark {slug}", state=state)
    try:
        for n in range(max(1, a.turns)):
            if n:
                campaign.refresh_from_db()
                state = state_current(campaign=campaign)
            out = one_turn(campaign, state, a.seed + n)
        out["stored_map_bytes"] = json_bytes(StoredMap.objects.filter(campaign=campaign), "data")
        return out
    finally:
        campaign_delete(campaign=campaign)  # this campaign only, by its row


def summary(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return {
        "wall_ms": spread(r[key]["wall_ms"] for r in runs),
        "cpu_ms": spread(r[key]["cpu_ms"] for r in runs),
        "queries": same(r[key]["queries"] for r in runs),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    campaign_arguments(p, runs=5)
    p.add_argument("--turns", type=int, default=2, help="turns played; the last is measured")
    a = p.parse_args(argv)
    state = state_generate(a)
    runs = [one_run(a, state) for _ in range(max(1, a.runs))]
    stored = runs[0]["stored_bytes"]
    # the same seed writes the same turn (the text; compression on disk may differ by a byte)
    if any(r["stored_bytes"]["text"] != stored["text"] for r in runs):
        stored = {"runs_disagree": [r["stored_bytes"] for r in runs]}
    print(
        json.dumps(
            {
                "database": connection.vendor,
                **campaign_figures(a, state),
                "runs": len(runs),
                "battles": same(r["battles"] for r in runs),
                "resolve_phases_0_2": summary(runs, "resolve"),
                "resolve_phases_4_8": summary(runs, "after_battles"),
                "turns": a.turns,
                "stored_bytes": stored,
                # once per campaign and map version, not per turn
                "stored_map_bytes": runs[0]["stored_map_bytes"],
                # a resolution's state is stored whole every CHAIN_MAX stages, else as a delta
                "chain_max": CHAIN_MAX,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
