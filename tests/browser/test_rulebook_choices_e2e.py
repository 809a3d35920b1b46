"""The choices the rulebook leaves to a player, made on his orders page in a real Chromium
(issue 13): from the home page the Defenders' player opens his orders; with initiative by army
he chooses to make the others move first (R6.1.2), and for the Incursion's day-7 table he
keeps his result instead of rolling again ("potete rilanciare"). Both are saved as standing
orders and shown as saved; only clicks after the home page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaign.models import Orders
from tests.browser.test_reinforcements_e2e import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_defender_makes_his_army_and_event_choices(demo, new_context, live_server, artifacts):
    demo.options = {**demo.options, "initiative_method": "by-army"}
    demo.save(update_fields=["options"])
    defender = log_in(new_context, live_server.url, "defender")
    defender.get_by_role("link", name="Incursion", exact=True).click()
    defender.locator("nav").get_by_role("link", name="Orders", exact=True).click()
    expect(defender.locator("main h1")).to_contain_text("Orders for turn 1")

    army = defender.locator("#orders-army")
    expect(army).to_contain_text("If you win the initiative by army (R6.1.2)")
    army.get_by_label("Make the other players move all their forces first").check()
    army.get_by_role("button").click()
    expect(defender.locator("#orders-army")).to_contain_text("Choice saved.")
    expect(
        defender.locator("#orders-army").get_by_label(
            "Make the other players move all their forces first"
        )
    ).to_be_checked()

    events = defender.locator("#orders-events")
    events.get_by_label("Keep the result").check()
    events.get_by_role("button", name="Save these choices").click()
    expect(defender.locator("#orders-events")).to_contain_text("Choices saved.")
    expect(defender.locator("#orders-events").get_by_label("Keep the result")).to_be_checked()
    defender.screenshot(path=str(artifacts / "rulebook-choices-defender.png"), full_page=True)

    saved = Orders.objects.get(turn__campaign=demo, turn__number=1, player__key="defenders").data
    assert saved["army_initiative"] == "last" and saved["event_reroll"] is False
