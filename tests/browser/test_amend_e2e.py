"""The GM amends a confirmed battle result after its turn was resolved, in a real Chromium:
from the battle's result page he types the losses as they should have been with his reason,
reads the preview of what follows, and commits. The raider, whose force fought it, finds the
notice of the amendment (its reason and what changed for him) among his notifications, and
the map with his force's new strength.

As in test_battle_e2e, the defenders' Southern March waits at (4, 8) on the Red Riders' path
(the demo's turn-1 orders), so that turn 1 ends in battle t1-b1; the turn is resolved with
the command-line tools (seed 7, a stalemate with a fifth of each unit killed), and the test
clicks from the home page on. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from battles.models import Battle
from campaign.models import Amendment, AuditEntry, Force, Unit
from notifications.models import Kind, Notification
from tests.browser.a11y import axe_report, axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"
REASON = "The raiders lost twice as many: the losses were read off the wrong sheet."


def _turn_1_with_a_battle(demo, tmp_path) -> Battle:
    Force.objects.filter(campaign=demo, key="d3").update(x=4, y=8)
    call_command("resolve_turn", SLUG, "--seed", "7", stdout=StringIO())
    battles = list(Battle.objects.filter(campaign=demo, status="pending"))
    assert [b.key for b in battles] == ["t1-b1"], [b.key for b in battles]
    battle = battles[0]
    ids = [u["unit_id"] for s in battle.pack["sides"] for f in s["forces"] for u in f["units"]]
    figures = dict(Unit.objects.filter(campaign=demo, key__in=ids).values_list("key", "figures"))
    result = {
        "outcomes": {"a": "stalemate", "b": "stalemate"},
        "units": [{"unit_id": u, "killed": figures[u] // 5} for u in ids],
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"t1-b1": result}), encoding="utf-8")
    call_command(
        "resolve_turn", SLUG, "--seed", "7", "--battle-results", str(path), stdout=StringIO()
    )
    battle.refresh_from_db()
    assert battle.turn.resolved and battle.result is not None
    return battle


def _from_home_to_result(page: Page, live_server) -> None:
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Incursion").first.click()
    page.locator("nav.campaign-nav").get_by_role("link", name="Battles").click()
    page.locator('tr[data-battle="t1-b1"]').get_by_role("link", name="Battle 1 of turn 1").click()
    page.get_by_role("link", name="Amend the result").click()
    expect(page.locator("#result-entry-title")).to_have_text("Amend the result")


def test_gm_amends_a_confirmed_result_and_the_raider_sees_it(
    demo, login, live_server, artifacts, tmp_path
):
    battle = _turn_1_with_a_battle(demo, tmp_path)
    raiders = [
        u["unit_id"]
        for s in battle.pack["sides"]
        for f in s["forces"]
        if f["owner"] == "raiders"
        for u in f["units"]
    ]
    killed = {u["unit_id"]: u["killed"] for u in battle.result["units"]}
    before = dict(Unit.objects.filter(campaign=demo, key__in=raiders).values_list("key", "figures"))

    # --- the GM: battle list → the battle → its result page → the corrected losses ----------
    gm = login("gm")
    _from_home_to_result(gm, live_server)
    for uid in raiders:
        gm.fill(f'input[name="u-{uid}-killed"]', str(killed[uid] * 2))
    gm.fill("#id_reason", REASON)
    gm.get_by_role("button", name="Preview the amendment").click()

    # --- the preview: what would change, turn by turn; nothing has changed yet --------------
    expect(gm.locator("h1")).to_contain_text("Amendment 1: The result of battle 1 of turn 1")
    diff = gm.locator(".amendment-diff")
    expect(diff).to_contain_text("What would change")
    expect(diff).to_contain_text("Turn 1")
    expect(diff).to_contain_text("figures")
    gm.screenshot(path=str(artifacts / "amendment-preview.png"), full_page=True)
    found = axe_violations(gm)  # no serious or critical WCAG 2.1 A/AA violation
    assert not found, axe_report(found)
    assert dict(Unit.objects.filter(key__in=raiders).values_list("key", "figures")) == before

    gm.get_by_role("button", name="Commit the amendment").click()
    expect(gm.get_by_text("Amendment 1 is committed")).to_be_visible()
    expect(gm.locator(".badge")).to_contain_text("Committed")
    after = dict(Unit.objects.filter(campaign=demo, key__in=raiders).values_list("key", "figures"))
    assert after != before and all(after[u] <= before[u] for u in raiders)
    a = Amendment.objects.get(campaign=demo, number=1)
    assert a.status == "committed" and a.reason == REASON
    assert AuditEntry.objects.filter(campaign=demo, action="amended", amendment=a).exists()

    # the audit log, from the navigation, names it; the old line is readable
    gm.locator("nav.campaign-nav").get_by_role("link", name="Audit log").click()
    expect(gm.locator("table.audit-log")).to_contain_text(REASON)
    found = axe_violations(gm)
    assert not found, axe_report(found)
    gm.get_by_role("link", name=re.compile(r"^Amendment 1:")).first.click()
    gm.get_by_role("link", name="The turns it replaced, from turn 1").click()
    expect(gm.locator("h1")).to_contain_text("The turns amendment 1 replaced")
    expect(gm.locator("main")).to_contain_text("Phases 4–8")

    # --- the raider: the notice, then the map with his force's strength ----------------------
    [notice] = Notification.objects.filter(user__username="raider", kind=Kind.AMENDED)
    raider = login("raider")
    raider.get_by_role("link", name=re.compile(r"^Notifications, \d+ unread")).click()
    expect(raider.locator("h1")).to_have_text("Your notifications")
    item = raider.locator(".notification", has_text=notice.subject)
    expect(item).to_have_count(1)
    item.locator("summary").click()
    expect(item.locator("pre")).to_contain_text(REASON)
    expect(item.locator("pre")).to_contain_text("What changed for you:")
    raider.screenshot(path=str(artifacts / "amendment-notice.png"), full_page=True)
    item.get_by_role("link", name=notice.subject).click()
    raider.wait_for_url(re.compile(r"/c/incursion/map/$"))
    force = next(
        f["force_id"] for s in battle.pack["sides"] for f in s["forces"] if f["owner"] == "raiders"
    )
    total = sum(
        Unit.objects.filter(campaign=demo, command__force__key=force).values_list(
            "figures", flat=True
        )
    )
    name = Force.objects.get(campaign=demo, key=force).name
    raider.locator("#map-lists summary").click()
    row = raider.locator(".map-table tr", has_text=name)
    expect(row).to_contain_text(str(total))
    raider.screenshot(path=str(artifacts / "amendment-map.png"), full_page=True)
