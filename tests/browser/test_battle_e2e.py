"""Two battles of the demo campaign in a real Chromium, from the contact to the report.

The defenders' Southern March waits at (4, 8) on the Red Riders' path and the Northern March
at (4, 5) on the Jarl's Host's, both raider forces marching with "engage" in their zones of
control (the demo's turn-1 orders). The raider confirms his orders in his browser; the test
fixes the seed (the GM's own close would draw a secret one) and the GM resolves Phases 0–2
from the overview: two contacts, battles t1-b1 and t1-b2. Both players open the packs (under
fog of war each sees the enemy's strength there, and nowhere before); Chromium prints the
turn's packs to PDF, one A4 page per battle. The defender enters each result, the raider
confirms it; the last confirmation runs Phases 4–8 (Celery is eager: inside that request).
The battle report shows the recovered figures, and they are what the ledger's dice give.
PDFs and screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from battles.models import Battle
from campaign.models import Force, Turn, TurnResolution, Unit
from campaign.turns.services import turn_close

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"
SEED = 7
_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b")


def pdf_pages(pdf: bytes) -> int:
    """The pages of a PDF: its `/Type /Page` objects (not the `/Type /Pages` tree), checked
    against the page tree's `/Count`."""
    assert pdf.startswith(b"%PDF-"), pdf[:20]
    pages = len(_PAGE.findall(pdf))
    counts = [int(a or b) for a, b in _COUNT.findall(pdf)]
    assert not counts or max(counts) == pages, (counts, pages)
    return pages


def figures(campaign) -> dict[str, int]:
    return dict(Unit.objects.filter(campaign=campaign).values_list("key", "figures"))


def enter_result(page: Page, base: str, battle: Battle, units: dict[str, int]) -> None:
    """The defender enters the result: every unit loses a third of its figures killed; one
    raider figure per unit fled, and every other defender fled, so that the raiders, the
    last on the field, win (R7.3.2)."""
    page.goto(f"{base}/battles/{battle.key}/result/")
    expect(page.locator("#result-form")).to_be_visible()
    for letter, side in zip("ab", battle.pack["sides"], strict=True):
        for force in side["forces"]:
            for u in force["units"]:
                uid, n = u["unit_id"], units[u["unit_id"]]
                page.fill(f'input[name="u-{uid}-killed"]', str(n // 3))
                page.fill(f'input[name="u-{uid}-fled"]', "1" if letter == "a" else str(n - n // 3))
    page.locator('#result-form input[type="radio"][value="a"]').check()
    page.get_by_role("button", name="Enter the result", exact=True).click()
    expect(page.get_by_text(f"The result of battle {battle.label} is entered")).to_be_visible()


def confirm_result(page: Page, base: str, key: str) -> None:
    page.goto(f"{base}/battles/{key}/result/")
    page.get_by_role("button", name="Confirm the result").click()
    expect(
        page.get_by_text(f"You confirmed the result of battle {Battle(key=key).label}.")
    ).to_be_visible()


def test_battles_from_contact_to_report(demo, login, live_server, artifacts):
    base = f"{live_server.url}/c/{SLUG}"
    Force.objects.filter(campaign=demo, key="d3").update(x=4, y=8)
    Force.objects.filter(campaign=demo, key="d2").update(x=4, y=5)
    units = figures(demo)

    # --- before any contact the raider sees neither defender force, and no battle ----------------
    raider = login("raider")
    raider.goto(f"{base}/battles/")
    expect(raider.locator("#battle-list")).to_contain_text("No battle to show.")
    raider.goto(f"{base}/map/")
    assert "The Southern March" not in raider.content()

    # --- orders: the raider confirms the demo's; the GM resolves Phases 0–2 ----------------------
    raider.goto(f"{base}/orders/")
    raider.get_by_role("button", name="Confirm my orders for turn 1 as final").click()
    expect(raider.locator("#orders-status")).to_contain_text(
        "Your orders for turn 1 are confirmed."
    )
    turn = Turn.objects.get(campaign=demo, number=1)
    turn_close(turn=turn, seed=SEED)
    gm = login("gm")
    gm.goto(f"{base}/")
    gm.get_by_role("button", name="Resolve phases 0–2").click()
    expect(gm.locator("#turn-panel")).to_contain_text("2 battles are waiting for their results.")
    battles = {b.key: b for b in Battle.objects.filter(campaign=demo)}
    sides = {
        k: [[f["force_id"] for f in s["forces"]] for s in b.pack["sides"]]
        for k, b in battles.items()
    }
    assert sides == {"t1-b1": [["r3"], ["d3"]], "t1-b2": [["r1"], ["d2"]]}, sides

    # --- both players open the packs from the battle list --------------------------------------
    defender = login("defender")
    for page, enemy, strength in (
        (raider, "The Southern March", "40 figures, 507 points"),
        (defender, "The Red Riders", "56 figures, 1134 points"),
    ):
        page.goto(f"{base}/")
        page.locator("nav.campaign-nav").get_by_role("link", name="Battles").click()
        expect(page.locator("#battle-list tr[data-battle]")).to_have_count(2)
        page.locator('tr[data-battle="t1-b1"]').get_by_role("link", name="pack").click()
        sheet = page.locator("#pack-t1-b1")
        expect(sheet).to_contain_text("Battle pack 1 of turn 1: Raiders against Defenders")
        expect(sheet).to_contain_text(enemy)
        expect(sheet).to_contain_text(strength)
        expect(sheet.locator(".sheet-side")).to_have_count(2)
        expect(sheet).to_contain_text("General Retreat (R7.9.12)")
    expect(defender.locator("#pack-t1-b1")).to_contain_text("Field-works quota: 40 points (R7.8.4)")

    # --- on paper: one A4 sheet per battle -----------------------------------------------------
    gm.goto(f"{base}/battles/print/")
    expect(gm.locator("article.battle-sheet")).to_have_count(2)
    pdf = gm.pdf(format="A4", print_background=True)
    (artifacts / "battle-packs.pdf").write_bytes(pdf)
    assert pdf_pages(pdf) == 2
    raider.goto(f"{base}/battles/print/")
    expect(raider.locator("article.battle-sheet")).to_have_count(2)
    assert pdf_pages(raider.pdf(format="A4")) == 2
    raider.goto(f"{base}/battles/t1-b2/pack/")
    assert pdf_pages(raider.pdf(format="A4")) == 1
    gm.screenshot(path=str(artifacts / "battle-packs-print-page.png"), full_page=True)

    # --- the defender enters each result, the raider confirms it ------------------------------
    for key in ("t1-b1", "t1-b2"):
        enter_result(defender, base, battles[key], units)
        confirm_result(raider, base, key)
        assert Battle.objects.get(campaign=demo, key=key).status == Battle.Status.RESOLVED

    # --- the last confirmation ran Phases 4–8 ---------------------------------------------------
    turn.refresh_from_db()
    assert turn.status == Turn.Status.RESOLVED, turn.status
    gm.goto(f"{base}/")
    expect(gm.locator("#turn-panel")).to_contain_text("Turn 2, day 1")

    # --- the report: recovered figures, as the ledger's dice give them -----------------------
    after = TurnResolution.objects.get(turn=turn, stage=TurnResolution.Stage.AFTER)
    ledger = {e["purpose"]: e for e in after.ledger}
    wounded = {e["unit_id"]: e for e in after.events if e["type"] == "WoundedChecked"}
    raider.goto(f"{base}/battles/")
    raider.locator('tr[data-battle="t1-b1"]').get_by_role("link", name="Battle 1 of turn 1").click()
    expect(raider.locator("main h1")).to_have_text("Battle 1 of turn 1: Raiders against Defenders")
    rows = raider.locator('#after-battle tr.check[data-kind="wounded"]')
    expect(rows).to_have_count(4)  # the Red Riders' four units; the loser's dead are dead
    for i in range(rows.count()):
        row = rows.nth(i)
        unit = row.get_attribute("data-unit")
        purpose = row.get_attribute("data-purpose")
        entry = ledger[purpose]
        dice = [int(n) for n in row.get_attribute("data-natural").split(", ")]
        assert purpose == f"after:t1-b1:wounded-{unit}" and dice == entry["natural"]
        assert len(dice) == units[unit] // 3  # one die per killed figure
        net = sum(m["value"] for m in entry["modifiers"])
        by_dice = sum(1 for n in dice if n == 6 or (n != 1 and n + net >= 4))
        assert int(row.get_attribute("data-kept")) == by_dice == wounded[unit]["recovered"]
        expect(row.locator("td.kept")).to_have_text(f"{by_dice} recovered")
        loss = raider.locator(f'#result tr[data-unit="{unit}"] td.recovered')
        expect(loss).to_have_text(str(by_dice))
    expect(raider.locator("#after-battle")).to_contain_text(
        "The Southern March suffered a reaction"
    )
    raider.screenshot(path=str(artifacts / "battle-report-raider.png"), full_page=True)

    # the same dice are in the turn report's ledger
    first = rows.nth(0)
    purpose = first.get_attribute("data-purpose")
    raider.goto(f"{base}/turns/1/?phase=after")
    ledger_row = raider.locator(f'#ledger tr[data-purpose="{purpose}"]')
    expect(ledger_row).to_contain_text(
        f"{len(ledger[purpose]['natural'])}D6: {', '.join(map(str, ledger[purpose]['natural']))}"
    )

    # the defender reads his own side's will to fight on the report; the raider does not
    defender.goto(f"{base}/battles/t1-b1/")
    expect(defender.locator("#after-battle")).to_contain_text(
        "The March of Ashbury tested its will to fight"
    )
    raider.goto(f"{base}/battles/t1-b1/")
    expect(raider.locator("#after-battle")).not_to_contain_text("tested its will to fight")
