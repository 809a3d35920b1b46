"""A voyage by river in a real Chromium (§6.11 [NARAN], issue 13): in the demo, with naval
movement on and a navigable river running east from the Hakon's Warband to its mouth, the raider
goes from the home page to his orders, reads the boats and rafts the force has and needs,
draws a path down the river on the map, ticks "Follow the path by boat" and saves; the GM
closes the turn, and the raider reads in the report that the force rowed by the naval table,
the river's "downstream" among the modifiers. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

import rules as R
from campaign.adapters import state_current
from campaign.models import Campaign, Force, Orders, Square
from campaign.selectors import turn_current
from tests.browser.conftest import htmx_idle
from tests.browser.test_layout_e2e import campaign_open, nav_click
from tests.browser.test_order_editor_e2e import open_editor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def navigable_river(campaign: Campaign) -> None:
    """The map editor's brushes, applied as the GM would at set-up: a river navigable by boats
    from (2, 4), where the Hakon's Warband (r2) stand, to its mouth at (6, 4); r2 gets its craft."""
    Campaign.objects.filter(pk=campaign.pk).update(
        options={**campaign.options, "naval_movement": True}
    )
    for x in range(2, 7):
        feats = ["river", "navigable"] + (["river-mouth"] if x == 6 else [])
        Square.objects.update_or_create(campaign=campaign, x=x, y=4, defaults={"features": feats})
    boats, rafts = R.craft_needed(state_current(campaign=campaign).force("r2"))
    Force.objects.filter(campaign=campaign, key="r2").update(boats=boats, rafts=rafts)


def test_a_force_rows_down_the_river(demo, login, artifacts):
    navigable_river(demo)
    raider = login("raider")
    campaign_open(raider, "Incursion", "incursion")
    nav_click(raider, "Orders")
    card = raider.locator("#orders-force-r2")
    expect(card).to_contain_text("Boats and rafts (R6.11.4)")
    open_editor(raider, "r2", "Hakon's Warband")
    card.get_by_role("button", name="Clear the path").click()
    expect(card.locator(".path-empty")).to_be_visible()
    htmx_idle(raider)
    card.locator('rect.click[data-x="3"][data-y="4"]').click()
    htmx_idle(raider)
    card.locator('rect.click[data-x="4"][data-y="4"]').click()
    htmx_idle(raider)
    card.get_by_label("Follow the path by boat along the navigable river (§6.11)").check()
    card.get_by_role("button", name="Save the orders of Hakon's Warband").click()
    htmx_idle(raider)
    expect(raider.locator("#orders-force-r2")).to_contain_text("by boat along the river")
    raider.screenshot(path=str(artifacts / "river-orders.png"), full_page=True)
    saved = Orders.objects.get(turn=turn_current(campaign=demo), player__key="raiders")
    assert saved.data["forces"]["r2"]["by_river"] is True
    assert saved.data["forces"]["r2"]["path"] == [[3, 4], [4, 4]]

    gm = login("gm")
    campaign_open(gm, "Incursion", "incursion")
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.get_by_role("button", name="Close the turn and resolve it").click()
    expect(gm.get_by_text("The turn is closed and its resolution has started.")).to_be_visible()

    nav_click(raider, "Turn report")
    expect(raider.locator("main h1")).to_have_text("Turn 1: report and dice ledger")
    ledger = raider.locator("main")
    expect(ledger).to_contain_text("§6.11")
    expect(ledger).to_contain_text("downstream")
    raider.screenshot(path=str(artifacts / "river-report.png"), full_page=True)
    r2 = state_current(campaign=demo).force("r2")
    assert r2.square in {(3, 4), (4, 4)} and r2.afloat == (r2.square == (3, 4))
    nav_click(raider, "Map")
    expect(raider.locator("svg.map path.navigable")).to_have_count(1)
    raider.screenshot(path=str(artifacts / "river-map.png"), full_page=True)
