"""The acceptance test of amendments (issue 15): six turns of the demo, both armies marching
on each other so that battles are fought from turn 2 on; the GM amends the result of turn 2's
battle. The preview's turn-6 state is the state of the campaign played again from scratch
with the corrected result and the same seeds, orders and results; committing gives that
line, byte for byte; discarding leaves the export as it was, byte for byte; every turn of
the committed line replays."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from battles.models import Battle
from campaign.adapters import state_current
from campaign.exchange.export import campaign_export, export_json, line_export
from campaign.models import Amendment, AuditEntry, Campaign, LineArchive, Orders
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.turns.amend import (
    amendment_branch,
    amendment_commit,
    amendment_discard,
    amendment_preview,
)
from rules import to_data
from rules.types import Status
from tests.campaign.commands.conftest import stalemate
from tests.campaign.commands.test_demo_six_turns import _step_towards

pytestmark = pytest.mark.django_db

TURNS = 6
SEED = "2"  # with these orders: battles on turns 2 to 6, two on turns 3 and 4


def march_orders(campaign: Campaign, first: bool) -> dict[str, dict[str, Any]]:
    """Every force marches up to three squares toward the nearest enemy force and engages
    it (a defender on Defend asks for Full Speed). On turn 1 the raiders keep the demo's
    own orders."""
    state = state_current(campaign=campaign)
    out: dict[str, dict[str, Any]] = {}
    sides = (("raiders", "defenders"), ("defenders", "raiders"))
    for me, them in sides[1:] if first else sides:
        enemies = [f.square for f in state.forces if f.owner == them]
        forces = {}
        for f in state.forces:
            if f.owner != me or not enemies:
                continue
            target = min(
                enemies, key=lambda c: (max(abs(c[0] - f.square[0]), abs(c[1] - f.square[1])), c)
            )
            path, here = [], f.square
            while len(path) < 3 and here != target:
                here = _step_towards(state, here, target)
                path.append(list(here))
            fo: dict[str, Any] = {"force_id": f.id, "path": path, "zoc": "engage"}
            if f.status is Status.DEFEND:
                fo["change_to"] = "full-speed"
            forces[f.id] = fo
        out[me] = {"forces": forces}
    return out


def play(run, results_file, orders_of, result_of) -> None:
    """load_demo and six turns: each turn's orders from `orders_of(campaign, n)` (player →
    data), each battle's result from `result_of(battle)`."""
    run("load_demo")
    campaign = Campaign.objects.get(slug="incursion")
    for n in range(1, TURNS + 1):
        for player, data in orders_of(campaign, n).items():
            orders_submit(
                player=campaign.players.get(key=player),
                turn=turn_current(campaign=campaign),
                data=data,
            )
        run("resolve_turn", "incursion", "--seed", SEED)
        pending = list(Battle.objects.filter(campaign=campaign, status="pending"))
        if pending:
            results = {b.key: result_of(b) for b in pending}
            run(
                "resolve_turn",
                "incursion",
                "--seed",
                SEED,
                "--battle-results",
                results_file(results),
            )
        assert turn_current(campaign=campaign).number == n + 1


def corrected(battle: Battle) -> dict[str, Any]:
    """The result that should have been entered: twice the losses (two fifths of each unit,
    not one)."""
    return {
        "outcomes": {"a": "stalemate", "b": "stalemate"},
        "units": [{**u, "killed": u["killed"] * 2} for u in battle.result["units"]],
    }


def _orders_by_turn(campaign: Campaign) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for o in Orders.objects.filter(turn__campaign=campaign).select_related("turn", "player"):
        out.setdefault(o.turn.number, {})[o.player.key] = o.data
    return out


def test_amend_turn_2_result_preview_commit_discard_and_scratch(run, results_file, wipe):
    play(
        run,
        results_file,
        lambda c, n: march_orders(c, n == 1),
        stalemate,
    )
    campaign = Campaign.objects.get(slug="incursion")
    assert Battle.objects.filter(campaign=campaign, turn__number=2).exists()
    gm = get_user_model().objects.get(username="gm")
    original = export_json(campaign_export(campaign=campaign))
    battle = Battle.objects.get(campaign=campaign, key="t2-b1")
    amend = {
        "campaign": campaign,
        "user": gm,
        "kind": "battle-result",
        "turn_number": 2,
        "target": "t2-b1",
        "data": corrected(battle),
        "reason": "The losses were entered as two fifths, not one.",
    }

    # a preview discarded leaves the campaign as it was, byte for byte
    draft = amendment_preview(**amend)
    amendment_discard(amendment=draft, user=gm)
    campaign.refresh_from_db()
    assert export_json(campaign_export(campaign=campaign)) == original

    # the preview, then the commit
    a = amendment_preview(**amend)
    assert [t["turn"] for t in a.preview["diff"]] == [2, 3, 4, 5, 6]
    branch = amendment_branch(amendment=a)
    assert branch.digest == a.digest
    previewed = to_data(branch.state)
    orders = _orders_by_turn(campaign)
    amendment_commit(amendment=a, user=gm)
    campaign.refresh_from_db()
    assert to_data(state_current(campaign=campaign)) == previewed
    committed = export_json(line_export(campaign=campaign))
    seen = campaign_export(campaign=campaign, times=False)["sightings"]  # recorded again
    results = {b.key: b.result for b in Battle.objects.filter(campaign=campaign)}
    assert results["t2-b1"] == a.amended != battle.result
    assert LineArchive.objects.get(amendment=a).from_turn == 2
    entry = AuditEntry.objects.get(campaign=campaign, action="amended")
    assert entry.user == gm and entry.reason.startswith("The losses")
    for n in range(1, TURNS + 1):
        out = run("replay_turn", "incursion", str(n)).out
        assert out.splitlines() == [f"Turn {n}, Phases 0–2: OK", f"Turn {n}, Phases 4–8: OK"]
    # a draft branch left pending travels too: a rollback to turn 5, previewed
    amendment_preview(
        campaign=campaign, user=gm, kind="rollback", turn_number=5, reason="Replay turn 5."
    )
    exported = export_json(campaign_export(campaign=campaign))

    # the same campaign played from scratch with the corrected result
    wipe()
    demo_own = {1: "raiders"}  # load_demo gave these orders (as the raider's): not again
    play(
        run,
        results_file,
        lambda c, n: {k: v for k, v in orders.get(n, {}).items() if demo_own.get(n) != k},
        lambda b: results[b.key],
    )
    scratch = Campaign.objects.get(slug="incursion")
    assert to_data(state_current(campaign=scratch)) == previewed
    assert export_json(line_export(campaign=scratch)) == committed
    assert campaign_export(campaign=scratch, times=False)["sightings"] == seen

    # the amended campaign travels: export → import carries the amendment, the old line and
    # the audit log, and exports the same again
    wipe()
    path = results_file({})  # any file name
    with open(path, "w", encoding="utf-8") as f:
        f.write(exported)
    run("import_campaign", path)
    again = Campaign.objects.get(slug="incursion")
    assert export_json(campaign_export(campaign=again)) == exported
    assert Amendment.objects.filter(campaign=again, status="committed").count() == 1
    draft = Amendment.objects.get(campaign=again, status="draft")
    assert LineArchive.objects.filter(campaign=again).count() == 1
    assert AuditEntry.objects.filter(campaign=again, action="amended").count() == 1
    for n in range(1, TURNS + 1):
        assert "Phases 4–8: OK" in run("replay_turn", "incursion", str(n)).out
    # the imported draft is the same line's: it commits there
    amendment_commit(amendment=draft, user=get_user_model().objects.get(username="gm"))
    assert turn_current(campaign=again).number == 5
