"""The GM auto-resolves the demo's battle from its result page in a real Chromium.

The defenders' Southern March waits at (4, 8) on the Red Riders' path (as in
test_battle_e2e); turn 1 is closed with a fixed seed and Phases 0–2 give battle t1-b1. The GM
opens its result page and presses "Auto-resolve this battle": the tactical engine fights it,
the result needs no confirmation, and Phases 4–8 run (Celery is eager: inside that request).
The battle's report then shows it as auto-resolved and turn 2 is open. Before that, the
result page's odds panel polls until the engine's odds are in.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from battles.models import Battle
from campaign.models import Force, Turn, TurnResolution
from campaign.turns.services import turn_close

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"
SEED = 7


def test_the_gm_auto_resolves_the_battle_and_the_turn_completes(
    demo, login, live_server, artifacts
):
    base = f"{live_server.url}/c/{SLUG}"
    Force.objects.filter(campaign=demo, key="d3").update(x=4, y=8)
    turn = Turn.objects.get(campaign=demo, number=1)
    turn_close(turn=turn, seed=SEED)
    gm = login("gm")
    gm.goto(f"{base}/")
    gm.get_by_role("button", name="Resolve phases 0–2").click()
    expect(gm.locator("#turn-panel")).to_contain_text("1 battle is waiting for its result")
    battle = Battle.objects.get(campaign=demo, key="t1-b1")
    assert battle.status == Battle.Status.PENDING

    gm.goto(f"{base}/battles/{battle.key}/result/")
    # the odds panel polls until the engine's odds are in (eager Celery computes them at once)
    expect(gm.locator("#odds")).to_contain_text("P(win)")
    asked: list[str] = []
    gm.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    gm.get_by_role("button", name="Auto-resolve this battle").click()
    expect(gm.get_by_text(f"The tactical engine fought battle {battle.label}")).to_be_visible()
    expect(gm.locator("#entry-status")).to_contain_text("Confirmed by both sides")
    assert asked[0].startswith("Let the tactical engine fight battle 1 of turn 1 now?")
    gm.screenshot(path=str(artifacts / "auto-resolve-result.png"), full_page=True)

    battle.refresh_from_db()
    assert (battle.status, battle.resolver) == (Battle.Status.RESOLVED, Battle.Resolver.AUTO)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.RESOLVED
    assert TurnResolution.objects.filter(turn=turn, stage="after-battles").exists()
    assert Turn.objects.filter(campaign=demo, number=2, status=Turn.Status.OPEN).exists()

    gm.goto(f"{base}/battles/{battle.key}/")
    expect(gm.locator("body")).to_contain_text("Fought: Auto-resolve.")
    expect(gm.locator("body")).not_to_contain_text("What the engine would have predicted")
