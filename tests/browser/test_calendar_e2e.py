"""A player's private calendar (issue 30), in a real Chromium on a phone, his account in
Italian: from the home page he logs in, clicks his name, makes his calendar's address, and a
calendar application (a request with no cookie) reads the open turn's deadline there."""

from __future__ import annotations

from datetime import timedelta
from urllib.request import urlopen

import icalendar
import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import Profile
from tests.browser.conftest import PASSWORDS, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_makes_his_calendar_and_reads_the_deadline(
    demo, live_server, new_context, artifacts
):
    turn = demo.turns.get(number=1)
    turn.deadline = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    turn.save(update_fields=["deadline"])
    raider = User.objects.get(username="raider")
    Profile.objects.update_or_create(user=raider, defaults={"language": "it"})

    page = new_context(**PHONE).new_page()
    page.goto(f"{live_server.url}/")
    page.locator("header").get_by_role("link", name="Log in").click()
    page.fill("#id_username", "raider")
    page.fill("#id_password", PASSWORDS["raider"])
    page.locator("main form button[type=submit]").click()
    page.locator("header .nav-user").click()
    page.get_by_role("button", name="Crea l'indirizzo del mio calendario").click()
    expect(page.get_by_text("Il tuo calendario è pronto")).to_be_visible()
    address = page.locator("#calendar-url").input_value()
    page.screenshot(path=str(artifacts / "calendar-account-phone-it.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the account page is {width}px wide on a phone"

    with urlopen(address) as answer:  # noqa: S310 (the test server's own address)
        (event,) = icalendar.Calendar.from_ical(answer.read()).walk("VEVENT")
    assert str(event["SUMMARY"]) == "Incursion: gli ordini del turno 1 scadono"
    assert event.decoded("DTSTART") == turn.deadline
