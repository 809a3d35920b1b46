"""A newcomer makes an account and gets back into it, in a real Chromium, by clicking only
(after the home page; the reset link is taken from the email in `mail.outbox`, as a person
takes it from his inbox).

From the home page: "Sign up", the form, and he lands logged in under his display name. He
logs out, then "Log in", "Forgot your password?", asks for the link, follows it from the
email, sets a new password and logs in with it.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "brave-ravens-of-the-north"
NEW_PASSWORD = "silver-gates-of-morn"


def test_a_newcomer_signs_up_logs_out_and_resets_his_password(
    live_server, new_context, settings, artifacts
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ACCOUNT_EMAIL_VERIFICATION = False
    settings.SITE_URL = live_server.url  # the emailed link must lead back to this server
    context = new_context(**DESKTOP)
    context.set_default_timeout(15_000)
    page = context.new_page()
    header = page.locator("header.site-header")
    main = page.locator("main")

    page.goto(f"{live_server.url}/")
    header.get_by_role("link", name="Sign up").click()
    expect(page.get_by_role("heading", name="Create an account")).to_be_visible()
    main.get_by_label("Username").fill("wanda")
    main.get_by_label("Display name").fill("Wanda the Bold")
    main.get_by_label("Email address").fill("wanda@example.org")
    main.get_by_label("Password:", exact=True).fill(PASSWORD)
    main.get_by_label("Password confirmation").fill(PASSWORD)
    main.get_by_label("Language").select_option("en")
    page.screenshot(path=str(artifacts / "accounts-signup.png"), full_page=True)
    page.get_by_role("button", name="Create my account").click()

    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    expect(page.get_by_text("Welcome, Wanda the Bold: your account is ready.")).to_be_visible()
    expect(header.get_by_role("link", name="Wanda the Bold")).to_be_visible()
    page.screenshot(path=str(artifacts / "accounts-signed-up.png"), full_page=True)
    assert User.objects.get(username="wanda").first_name == "Wanda the Bold"

    header.get_by_role("button", name="Log out").click()
    expect(page.get_by_text("You have been logged out.")).to_be_visible()
    header.get_by_role("link", name="Log in").click()
    page.get_by_role("link", name="Forgot your password?").click()
    main.get_by_label("Email").fill("wanda@example.org")
    page.get_by_role("button", name="Send me the link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()

    (email,) = mail.outbox
    (link,) = re.findall(r"https?://\S+", email.body)
    assert link.startswith(f"{live_server.url}/accounts/reset/")
    page.goto(link)
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    main.get_by_label("New password:", exact=True).fill(NEW_PASSWORD)
    main.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set my new password").click()
    expect(page.get_by_text("Your new password is set.")).to_be_visible()

    page.locator("main").get_by_role("link", name="Log in").click()
    main.get_by_label("Username").fill("wanda")
    main.get_by_label("Password").fill(NEW_PASSWORD)
    page.locator("main form").get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    expect(header.get_by_role("link", name="Wanda the Bold")).to_be_visible()
    page.screenshot(path=str(artifacts / "accounts-logged-in-again.png"), full_page=True)
