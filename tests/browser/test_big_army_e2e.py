"""A player with a big army opens his orders from the home page: the first cards are drawn
with the page, the others as he scrolls down to them (issue 14: a page costs what it shows),
and a later force's orders are edited like any other's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaign.models import Force, Membership
from campaign.orders.selectors import CARDS_AT_ONCE
from campaign.setup.invitations import membership_add
from campaign.setup.services import campaign_create
from rules.generate import generate_campaign
from tests.browser.conftest import htmx_idle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_big_army_s_later_cards_come_as_they_are_scrolled_to(demo, login, artifacts):
    state = generate_campaign(
        width=24, height=24, players=2, forces=2 * (CARDS_AT_ONCE + 8), units_per_force=3, seed=4
    )
    campaign = campaign_create(slug="great-host", name="The Great Host", state=state)
    raider = demo.memberships.get(role=Membership.Role.PLAYER, player__key="raiders").user
    player = campaign.players.get(key="p1")
    membership_add(campaign=campaign, user=raider, role=Membership.Role.PLAYER, player=player)
    last = Force.objects.filter(campaign=campaign, owner=player).order_by("position", "key").last()
    assert last is not None
    name = last.name or last.key

    page = login("raider")
    page.get_by_role("link", name="The Great Host").first.click()
    page.get_by_role("link", name="Orders", exact=True).first.click()
    expect(page.get_by_role("link", name="Edit the orders of")).to_have_count(CARDS_AT_ONCE)
    card = page.locator(f"#orders-force-{last.key}")
    expect(card).to_contain_text(f"Show the orders of {name}")  # not drawn yet
    card.scroll_into_view_if_needed()
    expect(card.get_by_role("link", name=f"Edit the orders of {name}")).to_be_visible()
    htmx_idle(page)
    page.screenshot(path=str(artifacts / "orders-big-army.png"))
    card.get_by_role("link", name=f"Edit the orders of {name}").click()
    expect(page.locator(f"#orders-form-{last.key}")).to_be_visible()
