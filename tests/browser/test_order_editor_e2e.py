"""The order editor in a real Chromium, as issue 11 found it wanting (every test starts at the
home page and only clicks): a step the rules refuse is taken out of the path with its
reason; asking for another order redraws where the force may go; "Close without saving"
undoes the map clicks (each saved on its own); confirmed orders are read-only until the
player unconfirms them."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from campaign.models import Orders
from campaign.selectors import turn_current
from tests.browser.conftest import htmx_idle
from tests.browser.test_layout_e2e import campaign_open, nav_click

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def saved_path(campaign, player: str, force: str) -> list:
    orders = Orders.objects.get(turn=turn_current(campaign=campaign), player__key=player)
    return orders.data["forces"][force]["path"]


def open_editor(page: Page, force: str, name: str) -> None:
    page.locator(f"#orders-force-{force}").get_by_role(
        "link", name=f"Edit the orders of {name}"
    ).click()
    expect(page.locator(f"#orders-form-{force}")).to_be_visible()
    htmx_idle(page)


def test_a_refused_step_leaves_the_path_and_closing_undoes_the_clicks(demo, login):
    raider = login("raider")
    campaign_open(raider, demo.name, demo.slug)
    nav_click(raider, "Orders")
    before = saved_path(demo, "raiders", "r2")
    open_editor(raider, "r2", "Hakon's Warband")
    card = raider.locator("#orders-force-r2")
    card.get_by_role("button", name="Clear the path").click()
    expect(card.locator(".path-empty")).to_be_visible()
    htmx_idle(raider)
    card.locator('rect.click[data-x="3"][data-y="4"]').click()
    path = card.locator('input[name="path"]')
    expect(path).to_have_value("3,4")
    htmx_idle(raider)
    card.locator('rect.click[data-x="6"][data-y="6"]').click()  # not next to (3, 4)
    expect(card.locator(".field-errors")).to_contain_text("It is not added to the path.")
    expect(path).to_have_value("3,4")
    expect(card.locator(".path-list li")).to_have_count(1)
    htmx_idle(raider)
    assert saved_path(demo, "raiders", "r2") == [[3, 4]]  # each click saved
    card.get_by_role("button", name="Close without saving").click()
    expect(
        card.get_by_text("Your changes are undone: the orders are as they were.")
    ).to_be_visible()
    assert saved_path(demo, "raiders", "r2") == before


def test_a_square_of_the_map_is_a_button_for_the_keyboard(demo, login):
    """Enter or Space on a focused square steps the path as a click does (static/js/site.js:
    an htmx trigger filter would need eval, which the Content-Security-Policy refuses)."""
    raider = login("raider")
    campaign_open(raider, demo.name, demo.slug)
    nav_click(raider, "Orders")
    open_editor(raider, "r2", "Hakon's Warband")
    card = raider.locator("#orders-force-r2")
    card.get_by_role("button", name="Clear the path").click()
    expect(card.locator(".path-empty")).to_be_visible()
    htmx_idle(raider)
    card.locator('rect.click[data-x="3"][data-y="4"]').press("Enter")
    path = card.locator('input[name="path"]')
    expect(path).to_have_value("3,4")
    htmx_idle(raider)
    card.locator('rect.click[data-x="6"][data-y="6"]').press(" ")  # not next to (3, 4)
    expect(card.locator(".field-errors")).to_contain_text("It is not added to the path.")
    expect(card.locator(".path-list li")).to_have_count(1)


def test_asking_for_probe_lets_a_defend_force_move(demo, login):
    defender = login("defender")
    campaign_open(defender, demo.name, demo.slug)
    nav_click(defender, "Orders")
    open_editor(defender, "d2", "The Northern March")
    card = defender.locator("#orders-force-d2")
    expect(card).to_contain_text("This force cannot move this turn as it stands")
    card.get_by_label("Requested order (R5.1)").select_option("probe")
    expect(card).not_to_contain_text("cannot move")
    expect(card.locator(".next-steps")).to_be_visible()
    expect(card.locator("#chance-d2")).to_contain_text("Chance the force acts as ordered (Probe)")


def test_confirmed_orders_are_read_only(demo, login):
    raider = login("raider")
    campaign_open(raider, demo.name, demo.slug)
    nav_click(raider, "Orders")
    open_editor(raider, "r2", "Hakon's Warband")  # an editor left open when confirming
    raider.get_by_role("button", name="Confirm my orders for turn 1 as final").click()
    expect(raider.locator("#orders-status")).to_contain_text("are confirmed")
    expect(raider.locator("form.orders-form")).to_have_count(0)
    expect(raider.get_by_role("link", name="Edit the orders of Hakon's Warband")).to_have_count(0)
    raider.get_by_role("button", name="Unconfirm to change my orders").click()
    expect(raider.get_by_role("link", name="Edit the orders of Hakon's Warband")).to_be_visible()
