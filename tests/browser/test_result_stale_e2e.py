"""A stale confirmation in a real Chromium (issue 28): the defender reads the raiders' result
of the demo's battle t1-b1; meanwhile the raider enters another; the defender's "Confirm the
result" confirms nothing and the page tells him what changed, showing the result as it is
now; confirming that one works.

The battle is made as in test_auto_resolve_e2e: the Southern March waits at (4, 8) on the
Red Riders' path, turn 1 is closed with a fixed seed and Phases 0–2 run.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from battles.models import Battle
from battles.services import battle_result_enter
from campaign.models import Force, Turn
from campaign.turns.services import turn_close, turn_resolve

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"
SEED = 7
RAIDERS = {"r3u1": 16, "r3u2": 10, "r3u3": 10, "r3u4": 20}  # the Red Riders' figures


def _enter(demo, user, fled: int) -> None:
    """The raider's entry: every Red Riders figure gone, `fled` of the first unit's fled."""
    battle = Battle.objects.get(campaign=demo, key="t1-b1")
    units = [{"unit_id": u, "killed": n} for u, n in RAIDERS.items()]
    units[0] = {"unit_id": "r3u1", "killed": 16 - fled, "fled": fled}
    battle_result_enter(
        campaign=demo,
        battle=battle,
        user=user,
        version=battle.result_version,
        data={"units": units, "outcomes": {"a": "lost", "b": "won"}},
    )


def test_a_stale_confirmation_is_refused_with_the_new_result(demo, login, live_server):
    base = f"{live_server.url}/c/{SLUG}"
    Force.objects.filter(campaign=demo, key="d3").update(x=4, y=8)
    turn = turn_close(turn=Turn.objects.get(campaign=demo, number=1), seed=SEED)
    turn_resolve(turn_id=turn.pk)
    raider = demo.memberships.get(user__username="raider").user
    _enter(demo, raider, fled=0)

    defender = login("defender")
    defender.goto(f"{base}/battles/t1-b1/result/")
    expect(defender.locator("#entry-status")).to_contain_text("Entered by Ulfrik of Wolfstead")
    _enter(demo, raider, fled=6)  # while the defender reads the first entry

    defender.get_by_role("button", name="Confirm the result").click()
    alert = defender.locator(".notice-error")
    expect(alert).to_contain_text(
        "While you were reading, Ulfrik of Wolfstead entered a new result of battle 1 of turn 1"
    )
    expect(alert).to_contain_text("Raiders (The Red Riders), of 56 figures: 50 killed, 6 fled")
    battle = Battle.objects.get(campaign=demo, key="t1-b1")
    assert (battle.entry, battle.confirmed_by) == (Battle.Entry.ENTERED, None)
    expect(defender.locator('input[name="u-r3u1-fled"]')).to_have_value("6")  # the new one

    defender.get_by_role("button", name="Confirm the result").click()
    expect(defender.get_by_text("You confirmed the result of battle 1 of turn 1.")).to_be_visible()
    battle.refresh_from_db()
    assert battle.entry == Battle.Entry.CONFIRMED
    first = battle.result["units"][0]
    assert (first["unit_id"], first["killed"], first["fled"]) == ("r3u1", 10, 6)
