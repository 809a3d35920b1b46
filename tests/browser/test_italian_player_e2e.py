"""An Italian player reads Italian only (issue 29), in a real Chromium on a phone (390 px),
by clicking only after the home page: the raiders' player, whose browser asks for Italian,
logs in from the home page's header, opens the demo campaign (four turns played, with
battles and an amendment), clicks to the turn report, to the dice ledger's movement rolls
and to his notifications. Each page's visible text gets the member walk's checks
(tests.i18n.checks): no English sentence of the catalogue, no internal id or code, no "(s)"
or "/i" stand-in, no hyphen for a minus. Screenshots go to a directory the test prints."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORDS, PHONE, htmx_idle
from tests.i18n.campaigns import demo_played
from tests.i18n.checks import visible_text
from tests.i18n.crawl import Checks, Problem, report

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/fw-italian-player")


# the parts of issue 29 not on this branch, and the pages whose problems they own
@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """A browser that asks for Italian (the conftest's asks for English)."""
    return {**browser_context_args, "locale": "it-IT"}


def _read(page: Page, area: str, where: str, problems: dict[str, list[Problem]]) -> None:
    htmx_idle(page)
    found = Checks(italian=True).of(where, visible_text(page.content()))
    problems.setdefault(area, []).extend(found)


def _shot(page: Page, name: str, *, full_page: bool = True) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def test_an_italian_player_reads_italian_only(new_context, live_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    users: dict[str, Any] = demo_played(lambda **_: nullcontext())  # commits as it goes
    raider = users["raiders"]
    raider.set_password(PASSWORDS["raider"])
    raider.save(update_fields=["password"])
    SHOTS.mkdir(parents=True, exist_ok=True)
    print(f"screenshots: {SHOTS}")
    problems: dict[str, list[Problem]] = {}

    context = new_context(**PHONE)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/")
    expect(page.locator("html")).to_have_attribute("lang", "it")
    _read(page, "pages", "home, logged out", problems)
    page.locator("header").get_by_role("link", name="Accedi").click()
    page.fill("#id_username", "raider")
    page.fill("#id_password", PASSWORDS["raider"])
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/")
    _read(page, "pages", "home", problems)
    _shot(page, "1-home")

    page.locator("main").get_by_role("link", name="Incursion").first.click()
    expect(page.locator("h1")).to_have_text("Incursion")
    _read(page, "pages", "overview", problems)
    _shot(page, "2-overview")

    page.locator(".campaign-nav").get_by_role("link", name="Resoconto del turno").click()
    expect(page.locator("h1")).to_contain_text("Turno 4")
    _read(page, "engine", "turn report", problems)
    _shot(page, "3-report-top", full_page=False)  # the whole report is 40 screens long
    page.locator("h2", has_text="Cosa è successo").evaluate("(h) => h.scrollIntoView()")
    _shot(page, "3-report-events", full_page=False)

    page.locator("#ledger .ledger-filter").get_by_role("link", name="Movimento").click()
    expect(page.locator("#ledger .ledger-filter [aria-current]")).to_have_text("Movimento")
    page.locator("#ledger").scroll_into_view_if_needed()
    _read(page, "engine", "dice ledger, movement", problems)
    page.locator("#ledger").screenshot(path=str(SHOTS / "4-ledger.png"))

    page.locator("header .nav-notifications").click()
    expect(page.locator("h1")).to_have_text("Le tue notifiche")
    _read(page, "notifications", "notifications", problems)
    _shot(page, "5-notifications", full_page=False)
    page.locator(".notification details summary").first.click()
    _shot(page, "6-notification-open", full_page=False)

    found = [p for ps in problems.values() for p in ps]
    assert not found, report(found)
