"""The acceptance points of the demo: six turns of "Incursion" played with the management
commands are reproducible byte for byte, every turn replays, an altered roll is caught, an
export survives import into an empty database, and the default SQLite path works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management.base import CommandError

from battles.models import Battle
from campaign.adapters import state_current
from campaign.models import Campaign, Turn, TurnResolution
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from rules.types import Status

pytestmark = pytest.mark.django_db

TURNS = 6
SEED = "7"


def _step_towards(state, here, target):
    """The neighbour of `here` nearest to `target` (ties: the first in map order)."""
    return min(
        state.map.neighbours(here),
        key=lambda c: (max(abs(c[0] - target[0]), abs(c[1] - target[1])), c[1], c[0]),
    )


def _march(campaign: Campaign) -> None:
    """Orders for turns after the first (the demo gives turn-1 orders only, and forces without
    orders stand still): every raider force not on Defend marches up to three squares toward
    the nearest defender force and engages it, so that battles are fought."""
    state = state_current(campaign=campaign)
    enemies = [f.square for f in state.forces if f.owner == "defenders"]
    forces = {}
    for f in state.forces:
        if f.owner != "raiders" or f.status is Status.DEFEND or not enemies:
            continue
        target = min(
            enemies, key=lambda c: (max(abs(c[0] - f.square[0]), abs(c[1] - f.square[1])), c)
        )
        path, here = [], f.square
        while len(path) < 3 and here != target:
            here = _step_towards(state, here, target)
            path.append(list(here))
        forces[f.id] = {"force_id": f.id, "path": path, "zoc": "engage"}
    orders_submit(
        player=campaign.players.get(key="raiders"),
        turn=turn_current(campaign=campaign),
        data={"forces": forces},
    )


def _play(run, results_file) -> dict:
    """load_demo, then six turns with `resolve_turn incursion --seed 7`, entering stalemate
    results from a file whenever battles are pending. Returns the export and what happened."""
    run("load_demo")
    campaign = Campaign.objects.get(slug="incursion")
    battles = 0
    for n in range(1, TURNS + 1):
        if n > 1:
            _march(campaign)
        out = run("resolve_turn", "incursion", "--seed", SEED).out
        pending = list(Battle.objects.filter(turn__campaign=campaign, status="pending"))
        if pending:
            assert f"Turn {n} waits for {len(pending)} battle result(s)" in out
            battles += len(pending)
            out = run(
                "resolve_turn",
                "incursion",
                "--seed",
                SEED,
                "--battle-results",
                results_file(pending),
            ).out
        assert f"Turn {n + 1} is open for orders" in out, out
    return {
        "export": run("export_campaign", "incursion").out,
        # two runs happen at different moments: compared without them
        "timeless": run("export_campaign", "incursion", "--without-times").out,
        "battles": battles,
    }


def test_two_fresh_databases_play_the_same_six_turns(run, results_file, wipe):
    first = _play(run, results_file)
    assert first["battles"] >= 2  # the battle hand-off is part of what is compared
    campaign = Campaign.objects.get(slug="incursion")
    assert campaign.turn_number == TURNS + 1 and campaign.day == TURNS
    assert campaign.turns.filter(status=Turn.Status.RESOLVED).count() == TURNS
    wipe()
    second = _play(run, results_file)
    assert second["timeless"] == first["timeless"]
    assert second["export"] != first["export"]  # the moments are in the full export


def test_every_turn_replays_and_an_altered_roll_fails_loudly(run, results_file):
    _play(run, results_file)
    for n in range(1, TURNS + 1):
        out = run("replay_turn", "incursion", str(n)).out
        assert out.splitlines() == [f"Turn {n}, Phases 0–2: OK", f"Turn {n}, Phases 4–8: OK"]
    r = (
        TurnResolution.objects.filter(turn__campaign__slug="incursion", stage="turn")
        .order_by("-turn__number")
        .first()
    )
    r.ledger[0]["natural"][0] = r.ledger[0]["natural"][0] % r.ledger[0]["sides"] + 1
    r.save()
    with pytest.raises(CommandError, match=f"Turn {r.turn.number} of incursion does not replay"):
        run("replay_turn", "incursion", str(r.turn.number))


def test_export_import_into_an_empty_database_exports_the_same(run, results_file, wipe, tmp_path):
    exported = _play(run, results_file)["export"]
    wipe()
    path = tmp_path / "incursion.json"
    path.write_text(exported, encoding="utf-8")
    assert run("import_campaign", str(path)).out == "incursion\n"
    assert run("export_campaign", "incursion").out == exported
    assert "Phases 4–8: OK" in run("replay_turn", "incursion", str(TURNS)).out


def test_the_default_sqlite_demo_path_works(tmp_path):
    """`./run demo` does this against a SQLite file: migrate, load_demo, and a turn."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)  # manage.py's own default
    manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]

    def manage_py(*args: str) -> str:
        done = subprocess.run(
            [*manage, *args],
            env=env,
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
        return done.stdout

    manage_py("migrate", "--noinput", "-v", "0")
    out = manage_py("load_demo")
    assert "http://127.0.0.1:8000/" in out and "raider" in out
    out = manage_py("resolve_turn", "incursion", "--seed", SEED)
    assert "Turn 2 is open for orders" in out
