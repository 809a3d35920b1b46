"""Two tabs editing one force (issue 28), in a real Chromium: tab 1 sets Countermarch
"Always" and saves; tab 2, opened before, changes the retreat preference and saves. The save
of tab 2 is refused, showing tab 1's orders in words with a button that reloads the editor on
them, and tab 1's Countermarch stands. Then the same on a phone in Italian. Every tab starts
at the home page and only clicks; the screenshots are in test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from campaign.models import Orders
from campaign.selectors import turn_current
from tests.browser.conftest import PHONE, htmx_idle
from tests.browser.test_layout_e2e import assert_no_sideways_scroll, campaign_open, nav_click
from tests.browser.test_newcomer_campaign import choose_language

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FORCE, NAME = "r2", "Hakon's Warband"


def saved(campaign) -> dict:
    orders = Orders.objects.get(turn=turn_current(campaign=campaign), player__key="raiders")
    return orders.data["forces"][FORCE]


def editor_opened(page: Page, campaign, orders_link: str = "Orders") -> None:
    """From the home page: the campaign, its orders page, and the force's editor."""
    campaign_open(page, campaign.name, campaign.slug)
    nav_click(page, orders_link)
    page.locator(f"#orders-force-{FORCE} a.button[hx-get]").click()  # "Edit the orders of …"
    expect(page.locator(f"#orders-form-{FORCE}")).to_be_visible()
    htmx_idle(page)


def shot(where: Page | Locator, path) -> None:
    """A screenshot that leaves the inputs alone: Playwright hides the caret with a style on
    each, left behind empty, which htmx then copies onto the swapped-in inputs, and the
    Content-Security-Policy refuses that."""
    where.screenshot(path=str(path), caret="initial")


def save(page: Page) -> None:
    page.locator(f"#orders-form-{FORCE} .form-actions button[type=submit]").first.click()


def test_a_second_tab_is_told_what_the_first_saved_and_reloads(demo, login, artifacts):
    tab1 = login("raider")
    editor_opened(tab1, demo)
    tab2 = tab1.context.new_page()  # a second tab of the same browser: the same session
    tab2.goto(tab1.url.split("/c/")[0] + "/")
    editor_opened(tab2, demo)
    retreat_before, countermarch_before = (
        saved(demo)[k] for k in ("retreat_squares", "countermarch")
    )
    assert countermarch_before != "always"

    card1 = tab1.locator(f"#orders-force-{FORCE}")
    card1.locator("select[name=countermarch]").select_option("always")
    save(tab1)
    expect(card1.get_by_text("Saved. Confirm your orders")).to_be_visible()
    assert saved(demo)["countermarch"] == "always"

    card2 = tab2.locator(f"#orders-force-{FORCE}")
    # as it opened
    expect(card2.locator("select[name=countermarch]")).to_have_value(countermarch_before)
    card2.locator("input[name=retreat_squares]").fill("1,4")
    save(tab2)
    changed = card2.locator(f"#orders-changed-{FORCE}")
    expect(changed).to_be_visible()
    expect(changed).to_contain_text(
        f"Nothing was saved: the orders of {NAME} were changed in another tab or window"
    )
    expect(changed).to_contain_text("You saved them on")
    expect(changed.locator("dl")).to_contain_text("always, after moving")
    htmx_idle(tab2)
    shot(card2, artifacts / "orders-two-tabs-refused.png")  # the force's card
    assert saved(demo)["countermarch"] == "always"  # tab 1's save stands
    assert saved(demo)["retreat_squares"] == retreat_before

    changed.get_by_role("link", name="Reload the editor with these orders").click()
    expect(card2.locator(f"#orders-changed-{FORCE}")).to_have_count(0)
    expect(card2.locator("select[name=countermarch]")).to_have_value("always")
    htmx_idle(tab2)
    shot(card2, artifacts / "orders-two-tabs-reloaded.png")
    card2.locator("input[name=retreat_squares]").fill("1,4")
    save(tab2)  # on the orders as they stand now: saved, both changes kept
    expect(card2.get_by_text("Saved. Confirm your orders")).to_be_visible()
    assert saved(demo)["countermarch"] == "always"
    assert saved(demo)["retreat_squares"] == [[1, 4]]


def test_on_a_phone_in_italian_the_refusal_fits_the_screen(demo, login, artifacts):
    desk = login("raider")
    # his phone: a login of its own (the account's language follows the switcher; a session
    # keeps the language it logged in with, so the desk stays in English)
    phone = login("raider", **PHONE)
    choose_language(phone, "it")
    editor_opened(phone, demo, "Ordini")
    editor_opened(desk, demo)
    desk.locator(f"#orders-force-{FORCE} select[name=countermarch]").select_option("always")
    save(desk)
    expect(desk.get_by_text("Saved. Confirm your orders")).to_be_visible()

    card = phone.locator(f"#orders-force-{FORCE}")
    card.locator("input[name=retreat_squares]").fill("1,4")
    save(phone)
    changed = card.locator(f"#orders-changed-{FORCE}")
    expect(changed).to_be_visible()
    expect(changed.locator("dl")).to_be_visible()
    htmx_idle(phone)
    changed.scroll_into_view_if_needed()
    shot(phone, artifacts / "orders-two-tabs-refused-phone-it.png")
    assert_no_sideways_scroll(phone)
    assert saved(demo)["countermarch"] == "always"
    changed.locator("a.button").click()  # reload
    expect(card.locator("select[name=countermarch]")).to_have_value("always")
