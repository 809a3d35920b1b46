"""Accessibility: axe-core finds no serious or critical WCAG 2.1 A/AA violation on the pages
a group uses most (home, overview, map, orders, a battle's pack and its result page), each
reached from the home page by clicking, on a desktop and on a phone screen."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from campaign.models import Force
from tests.browser.a11y import axe_report, axe_violations
from tests.browser.conftest import PASSWORDS, PHONE, htmx_idle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page: Page, base: str, username: str) -> None:
    page.goto(base + "/")
    page.get_by_role("link", name="Log in").first.click()
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORDS[username])
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()


def check(page: Page, what: str, failures: dict[str, str]) -> None:
    htmx_idle(page)
    found = axe_violations(page)
    if found:
        failures[what] = axe_report(found)


def nav(page: Page, name: str) -> None:
    page.locator("nav.campaign-nav").get_by_role("link", name=name, exact=True).click()


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_no_serious_accessibility_violations(demo, live_server, new_context, screen):
    context = new_context(**(PHONE if screen == "phone" else {}))
    context.set_default_timeout(15_000)
    page = context.new_page()
    failures: dict[str, str] = {}

    log_in(page, live_server.url, "raider")
    check(page, "home", failures)
    page.get_by_role("link", name=demo.name, exact=True).click()
    check(page, "overview", failures)
    nav(page, "Map")
    check(page, "map", failures)
    nav(page, "Orders")
    check(page, "orders", failures)

    # a battle: the Southern March stands in the Red Riders' path (tests/battles/conftest.py)
    Force.objects.filter(campaign=demo, key="d3").update(x=4, y=8)
    call_command("resolve_turn", demo.slug, "--seed", "7", stdout=StringIO())
    nav(page, "Battles")
    page.locator("#battle-list tr[data-battle]").first.get_by_role("link", name="pack").click()
    check(page, "battle pack", failures)
    nav(page, "Overview")
    page.locator(".todo-list a").first.click()
    expect(page.locator("#result-form")).to_be_visible()
    check(page, "battle result", failures)

    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
