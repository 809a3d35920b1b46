"""A player asks, on the orders page, how his force would fare against a visible enemy force.

The defenders' Southern March stands at (4, 4), next to the raiders' Jarl's Host: in sight.
The raider opens his orders, picks it in the Jarl's Host card, tries the Defend order and
presses "Ask the odds": the tactical engine's odds (Celery is eager) replace the panel, with
the estimate's assumptions spelt out; the defenders' hidden forces are never offered.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaign.models import Force

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"


def test_a_player_asks_the_odds_against_a_visible_enemy(demo, login, live_server, artifacts):
    Force.objects.filter(campaign=demo, key="d3").update(x=4, y=4)
    raider = login("raider")
    raider.goto(f"{live_server.url}/c/{SLUG}/orders/")
    card = raider.locator("#orders-force-r1")
    enemy = card.get_by_label("Enemy force", exact=True)
    expect(enemy.locator("option")).to_have_count(1)  # only the visible one
    expect(enemy).to_contain_text("The Southern March")
    card.get_by_label("Your force's order").select_option("defend")
    card.get_by_role("button", name="Ask the odds").click()
    panel = raider.locator("#engage-odds-r1")
    expect(panel).to_contain_text("P(win)")
    expect(panel).to_contain_text("The Jarl's Host (Defend) against The Southern March")
    expect(panel).to_contain_text("treat the odds as an estimate")
    expect(raider.locator("body")).not_to_contain_text("Ashbury Garrison")
    raider.screenshot(path=str(artifacts / "orders-odds.png"), full_page=True)
    # the page still works: the odds of another force are asked in its own card
    expect(raider.locator("#engage-odds-r2")).not_to_contain_text("P(win)")
