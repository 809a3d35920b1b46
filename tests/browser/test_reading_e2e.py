"""The sign-up form takes the browser's own time zone and language (issue 29), in a real
Chromium set to Rome and to Italian: the zone select shows Europe/Rome before anything is
touched, the language Italian; the account made reads the site in Italian, on Rome's clock."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Profile
from tests.browser.conftest import DESKTOP

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "brave-ravens-of-the-north"


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    # a browser in Rome that asks for Italian (the other browser tests: English, UTC)
    return {**browser_context_args, "locale": "it-IT", "timezone_id": "Europe/Rome"}


def test_the_sign_up_takes_the_browsers_zone_and_language(
    live_server, new_context, settings, artifacts
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ACCOUNT_EMAIL_VERIFICATION = False
    context = new_context(**DESKTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/signup/")
    zone = page.locator('select[name="time_zone"]')
    expect(zone).to_have_value("Europe/Rome")
    expect(page.locator("#id_language")).to_have_value("it")
    main = page.locator("main")
    main.locator('input[name="username"]').fill("wanda")
    main.locator('input[name="first_name"]').fill("Wanda la Audace")
    main.locator('input[name="email"]').fill("wanda@example.org")
    main.locator('input[name="password1"]').fill(PASSWORD)
    main.locator('input[name="password2"]').fill(PASSWORD)
    page.screenshot(path=str(artifacts / "reading-signup-rome.png"), full_page=True)
    main.locator('button[type="submit"]').click()
    expect(page.locator("html")).to_have_attribute("lang", "it")
    profile = Profile.objects.get(user__username="wanda")
    assert (profile.language, profile.time_zone) == ("it", "Europe/Rome")
