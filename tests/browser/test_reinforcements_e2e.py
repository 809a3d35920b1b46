"""Reinforcements in a real Chromium (§9.3, issue 13): the defender, with points in his bank,
goes from the home page to his orders and on to the reinforcements page, buys ten Spearmen
at his roster's price to join the garrison of his capital, and the GM closes the turn on a
reinforcement day (day 7 of the Incursion). The defender then reads in the turn report what
arrived and where, and finds the garrison ten figures stronger on his orders page. Screenshots
of the reinforcements page and of the report go to test-artifacts/.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from campaign.adapters import state_current
from campaign.models import Campaign, Orders, Player, Turn, TurnResolution
from tests.browser.a11y import axe_report, axe_violations
from tests.browser.conftest import DESKTOP, PASSWORDS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"


def reinforcement_day(campaign: Campaign) -> None:
    """Turn 1 of the demo becomes turn 7: its Phase 6 makes it day 7, an Incursion key day
    on which the defenders receive full reinforcements (§11.8, R9.2.3)."""
    Turn.objects.filter(campaign=campaign, number=1).update(number=7)
    Campaign.objects.filter(pk=campaign.pk).update(turn_number=7, day=6)
    Player.objects.filter(campaign=campaign, key="defenders").update(bank=100)


def log_in(new_context, base_url: str, username: str) -> Page:
    """From the home page, through its "Log in" link."""
    page = new_context(**DESKTOP).new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base_url}/")
    page.get_by_role("link", name="Log in").first.click()
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORDS[username])
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    return page


def to_orders(page: Page) -> None:
    page.get_by_role("link", name="Incursion", exact=True).click()
    page.locator("nav").get_by_role("link", name="Orders", exact=True).click()
    expect(page.locator("main h1")).to_contain_text("Orders for turn 7")


def test_a_player_buys_reinforcements_and_sees_them_arrive(
    demo, new_context, live_server, artifacts
):
    reinforcement_day(demo)
    base = live_server.url

    # --- the defender: orders page → reinforcements page, ten Spearmen for the garrison -------
    defender = log_in(new_context, base, "defender")
    to_orders(defender)
    box = defender.locator("#orders-reinforcements")
    expect(box).to_contain_text("100 reinforcement points in the bank.")
    box.get_by_role("link", name="Buy reinforcements").click()
    expect(defender.locator("main h1")).to_contain_text("Reinforcements · turn 7")
    expect(defender.locator("#reinforcements-bank")).to_contain_text(
        "Reinforcements are due at the end of this turn"
    )
    expect(defender.locator("#reinforcements-bank")).to_contain_text("Ashbury Garrison")
    found = axe_violations(defender)
    assert not found, axe_report(found)
    defender.get_by_label("Spearmen (Infantry, Average)").fill("10")
    defender.get_by_label("Force to join in the capital").select_option(label="Ashbury Garrison")
    defender.get_by_role("button", name="Add this request").click()
    expect(defender.get_by_text("Request added: 60 points.")).to_be_visible()
    requests = defender.locator("#reinforcement-requests")
    expect(requests).to_contain_text("Request 1: 60 points")
    expect(requests).to_contain_text("10 × Spearmen (Average)")
    defender.screenshot(path=str(artifacts / "reinforcements-defender.png"), full_page=True)
    saved = Orders.objects.get(turn__campaign=demo, turn__number=7, player__key="defenders")
    assert saved.data["reinforcements"][0]["units"][0]["figures"] == 10

    # --- the GM closes the turn; it resolves in that request ----------------------------------
    gm = log_in(new_context, base, "gm")
    gm.get_by_role("link", name="Incursion", exact=True).click()
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_role("button", name="Close the turn and resolve it").click()
    expect(gm.get_by_text("The turn is closed and its resolution has started.")).to_be_visible()
    expect(gm.locator("#turn-panel")).to_contain_text("Turn 8, day 7")

    # --- the defender reads what arrived, and finds the Spearmen in the garrison ----------------
    defender.locator("nav").get_by_role("link", name="Turn report").click()
    expect(defender.locator("main h1")).to_have_text("Turn 7: report and dice ledger")
    arrived = defender.get_by_text("10 Spearmen (60 points) arrived for")
    expect(arrived).to_contain_text("in Ashbury and joined Ashbury Garrison.")
    arrived.scroll_into_view_if_needed()
    defender.screenshot(path=str(artifacts / "reinforcements-report.png"), full_page=True)
    state = state_current(campaign=demo)
    garrison = state.force("d1")
    assert [(u.type, u.figures) for u in garrison.units if u.type == "Spearmen"] == [
        ("Spearmen", 10)
    ]
    events = TurnResolution.objects.get(
        turn__campaign=demo, turn__number=7, stage=TurnResolution.Stage.AFTER
    ).events
    mine = [e for e in events if e.get("player_id") == "defenders"]
    available = next(e for e in mine if e["type"] == "ReinforcementsAvailable")
    assert (available["points"], available["bank"]) == (360, 460)  # 10 % + 4 × 2 % of 2000
    # less the 60 spent; a day-7 event (§11.8, the turn's own seed) may add points after
    extra = sum(e["change"] for e in mine if e["type"] == "BankChanged")
    assert state.bank["defenders"] == 460 - 60 + extra
    bank = state.bank["defenders"]

    defender.locator("nav").get_by_role("link", name="Orders", exact=True).click()
    expect(defender.locator("#orders-force-d1")).to_contain_text("64 figures")  # 54 + 10
    expect(defender.locator("#orders-reinforcements")).to_contain_text(
        f"{bank} reinforcement points in the bank."
    )
    defender.screenshot(path=str(artifacts / "reinforcements-orders-after.png"), full_page=True)
