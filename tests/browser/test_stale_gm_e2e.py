"""The GM's stale pages in a real Chromium (issue 28): two tabs on the overview, one closes the
turn, the other — still showing turn 1 — clicks "Close" too; then the Back button brings the
page of turn 1 back and he clicks again. Both are refused with both turns named, and turn 2
stays open with its players' orders untouched. In Italian too, and on a phone's screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from campaign.models import Turn
from tests.browser.a11y import axe_report, axe_violations
from tests.browser.conftest import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "incursion"
REFUSED = (
    "This page was for turn 1, which is now resolved; turn 2 is current (orders open). "
    "Nothing was done: check the page as it is now."
)


def _close(page: Page, turn: int, button: str = "Close the turn and resolve it") -> str:
    """Click "Close", answering its confirmation, which must name the turn; what it asked."""
    asked: list[str] = []

    def answer(dialog):
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", answer)
    page.get_by_role("button", name=button).click()
    page.wait_for_load_state()
    assert asked and f" {turn} " in asked[0], asked
    return asked[0]


def _overview(page: Page) -> None:
    """From the home page, a click to the campaign."""
    page.get_by_role("link", name="Incursion").first.click()
    expect(page.locator("#turn-panel")).to_be_visible()


def test_two_tabs_and_the_back_button(demo, login, artifacts):
    gm = login("gm")
    _overview(gm)
    tab2 = gm.context.new_page()
    tab2.goto(gm.url)  # the same overview, opened in a second tab
    expect(tab2.locator("#turn-panel")).to_contain_text("Turn 1, day 0")
    # and on his phone, in Italian: a login of its own (the account's language follows the
    # switcher; a session keeps the language it logged in with)
    phone = login("gm", **PHONE)
    phone.goto(gm.url)
    phone.locator("#language-select").select_option("it")
    phone.locator("form.language button[type=submit]").click()
    expect(phone.locator("html")).to_have_attribute("lang", "it")
    expect(phone.locator("#turn-panel")).to_contain_text("Turno 1")

    # tab 1 closes turn 1: it resolves (eager tasks) and turn 2 opens
    asked = _close(gm, 1)
    assert asked.startswith("Close turn 1 now and resolve it?"), asked
    expect(gm.get_by_text("The turn is closed and its resolution has started.")).to_be_visible()
    expect(gm.locator("#turn-panel h2")).to_contain_text("Turn 2")
    orders_before = Turn.objects.get(campaign=demo, number=2).orders.count()

    # tab 2 still shows turn 1; its Close is refused and the page shows turn 2
    expect(tab2.locator("#turn-panel")).to_contain_text("Turn 1, day 0")
    _close(tab2, 1)
    expect(tab2.locator(".control-error")).to_have_text(REFUSED)
    expect(tab2.locator("#turn-panel h2")).to_contain_text("Turn 2")
    tab2.screenshot(path=str(artifacts / "stale-gm-second-tab.png"), full_page=True)
    found = axe_violations(tab2)
    assert not found, axe_report(found)
    turn2 = Turn.objects.get(campaign=demo, number=2)
    assert turn2.status == Turn.Status.OPEN and turn2.orders.count() == orders_before

    # Back in tab 1: the browser may show the page of turn 1 from its memory
    # (the back-forward cache) or ask again (its HTTP cache holds the page after the close:
    # the same URL). Either way no click can close turn 2 by mistake: a page of turn 1 is
    # refused, a fresh one shows turn 2.
    gm.go_back()
    gm.wait_for_load_state()
    if "Turn 1, day 0" in gm.locator("#turn-panel h2").inner_text():
        _close(gm, 1)
        expect(gm.locator(".control-error")).to_have_text(REFUSED)
    else:
        expect(gm.locator("#turn-panel h2")).to_contain_text("Turn 2")
    assert Turn.objects.get(campaign=demo, number=2).status == Turn.Status.OPEN

    # the phone, in Italian, still on turn 1: refused in Italian, on a page that fits
    asked = _close(phone, 1, "Chiudi il turno e risolvilo")
    assert asked.startswith("Chiudere ora il turno 1 e risolverlo?"), asked
    refusal = phone.locator(".control-error")
    expect(refusal).to_contain_text("Questa pagina era del turno 1")
    expect(refusal).to_contain_text("il turno corrente è il 2")
    expect(phone.locator("#turn-panel h2")).to_contain_text("Turno 2")
    phone.screenshot(path=str(artifacts / "stale-gm-phone-it.png"), full_page=True)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the overview is {width}px wide on a phone"
    assert Turn.objects.get(campaign=demo, number=2).status == Turn.Status.OPEN
