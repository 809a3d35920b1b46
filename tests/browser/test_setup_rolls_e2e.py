"""The set-up's dice in a real Chromium (R4.1, issue 13): a GM signs up from the home page,
creates a campaign from scratch, turns the weather phase on among the options and rolls the
climate zone and then the season; each roll shows with its rule and its die, and the options
take what it decided. Only clicks after the home page; a screenshot in test-artifacts/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from campaign.models import Campaign, SetupRoll
from tests.browser.conftest import DESKTOP

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "long-winter-in-the-fells"


def test_the_gm_rolls_the_climate_and_the_season(live_server, new_context, artifacts):
    page = new_context(**DESKTOP).new_page()
    page.set_default_timeout(20_000)
    page.goto(live_server.url + "/")
    page.locator('header a[href="/accounts/signup/"]').click()
    form = page.locator("main form").filter(has=page.locator("input[name$=password1]"))
    form.locator("input[name$=username]").fill("gina")
    form.locator("input[name$=first_name]").fill("Gina the GM")
    form.locator("input[name$=email]").fill("gina@example.org")
    form.locator("input[name$=password1]").fill(PASSWORD)
    form.locator("input[name$=password2]").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    expect(page.locator("header")).to_contain_text("Gina the GM")
    page.locator('main a[href="/new/"]').click()
    page.fill("#id_name", "Misty Vale")
    page.fill("#id_slug", "misty")
    page.fill("#id_width", "12")
    page.fill("#id_height", "9")
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/c/misty/"))

    page.locator("nav").get_by_role("link", name="Options", exact=True).click()
    expect(page.locator("#setup-rolls")).to_contain_text("Turn on the weather phase above")
    page.locator("input[name=weather_phase]").check()
    page.get_by_role("button", name="Save the options").click()
    expect(page.locator("main")).to_contain_text("Options saved.")

    page.get_by_role("button", name="Roll the climate zone (1D6, R4.1.1)").click()
    rolls = page.locator("#setup-rolls")
    expect(rolls).to_contain_text("Climate zone (R4.1.1)")
    climate = SetupRoll.objects.get(campaign__slug="misty", kind="climate")
    expect(rolls).to_contain_text(f"rolled {climate.ledger[0]['natural'][0]}")
    options = Campaign.objects.get(slug="misty").options
    assert options["climate"] == climate.result
    if climate.result == "cold":  # R4.1.2: always winter, no die, no button
        expect(page.get_by_role("button", name="Roll the season (1D6, R4.1.2)")).to_have_count(0)
        assert options["season"] == "winter"
    else:
        page.get_by_role("button", name="Roll the season (1D6, R4.1.2)").click()
        expect(rolls).to_contain_text("Season (R4.1.2)")
        season = SetupRoll.objects.get(campaign__slug="misty", kind="season")
        assert Campaign.objects.get(slug="misty").options["season"] == season.result
    expect(page.get_by_role("button", name="Roll the climate zone (1D6, R4.1.1)")).to_have_count(0)
    page.screenshot(path=str(artifacts / "setup-rolls-climate.png"), full_page=True)
