"""Irreversible actions ask first, and slow answers say they are coming (issue 11), in a real
Chromium: closing and resolving the turn, starting the campaign and auto-resolving a battle
each open a confirmation dialog (dismissed here: nothing happens; accepting them is what
test_turn_e2e and test_auto_resolve_e2e do); "Resolve phases 4–8" is disabled while battles
wait; the orders page shows "Computing the odds…" while the engine's odds are on their way.
Every test starts at the home page and only clicks."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from battles.models import Battle
from campaign.models import Campaign, Force, Turn
from tests.browser.test_layout_e2e import battles_waiting, campaign_open, log_in, nav_click

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def dismissed(page: Page, click) -> str:
    """Click, dismiss the dialog the click opens; its message."""
    seen: list[str] = []

    def dismiss(dialog) -> None:
        seen.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    click()
    page.wait_for_timeout(300)  # a submission the dialog failed to stop would be on its way
    assert seen, "no confirmation was asked"
    return seen[0]


def test_closing_the_turn_asks_first(demo, login):
    gm = login("gm")
    campaign_open(gm, demo.name, demo.slug)
    message = dismissed(gm, gm.get_by_role("button", name="Close the turn and resolve it").click)
    assert "cannot be undone" in message
    assert Turn.objects.get(campaign=demo, number=1).status == Turn.Status.OPEN


def test_with_battles_waiting_phases_4_to_8_are_disabled_and_auto_resolve_asks(demo, login):
    battles_waiting(demo)
    gm = login("gm")
    campaign_open(gm, demo.name, demo.slug)
    resolve = gm.get_by_role("button", name="Resolve phases 4–8")
    expect(resolve).to_be_disabled()
    expect(gm.locator("#advance-waiting")).to_contain_text(
        "Phases 4–8 wait for 2 battle results: enter them first."
    )
    gm.locator("#advance-waiting").get_by_role("link", name="The battles").click()
    gm.locator("#battle-list tr[data-battle]").first.get_by_role("link").first.click()
    gm.locator("main").get_by_role("link", name="Enter or confirm the result").click()
    message = dismissed(gm, gm.get_by_role("button", name="Auto-resolve this battle").click)
    assert "Its result is final" in message
    assert not Battle.objects.filter(campaign=demo).exclude(status=Battle.Status.PENDING).exists()


def test_starting_the_campaign_asks_first(transactional_db, settings, new_context, live_server):
    from tests.campaign.setup.test_setup import make_world

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(forces=True)
    gm = log_in(new_context, live_server, "gina", "gina-pass-1")
    campaign_open(gm, world.campaign.name, world.campaign.slug)
    nav_click(gm, "Start")
    message = dismissed(gm, gm.get_by_role("button", name="Start the campaign").click)
    assert "Set-up closes for good" in message
    assert Campaign.objects.get(pk=world.campaign.pk).setup_open


def test_the_odds_say_they_are_being_computed(demo, login):
    Force.objects.filter(campaign=demo, key="d3").update(x=4, y=4)  # in the raiders' sight
    raider = login("raider")

    def slowly(route) -> None:
        time.sleep(1.0)  # the engine at work
        route.continue_()

    raider.route("**/odds/**", slowly)
    campaign_open(raider, demo.name, demo.slug)
    nav_click(raider, "Orders")
    card = raider.locator("#orders-force-r1")
    busy = card.locator("#engage-busy-r1")
    expect(busy).to_be_hidden()
    card.get_by_role("button", name="Ask the odds").click()
    expect(busy).to_be_visible()
    expect(busy).to_have_text("Computing the odds…")
    expect(card.get_by_role("button", name="Ask the odds")).to_be_disabled()
    expect(card.locator("#engage-odds-r1")).to_contain_text("P(win)")
    expect(busy).to_be_hidden()
