"""An account's language and time zone (issue 29): asked at sign-up (the language from the
browser's Accept-Language, the zone preselected from the browser by static/js/site.js, UTC
without it), editable on the account page, checked against the IANA database, and activated
on every request of its user, whatever his browser sends; the header's switcher and the
account page set one and the same language."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from accounts.models import Profile
from campaign.setup.invitations import user_get_or_create
from tests.accounts.conftest import signup_data

pytestmark = pytest.mark.django_db

SIGNUP = reverse("accounts:signup")
PROFILE = reverse("accounts:profile")


def test_the_sign_up_asks_the_zone_preselected_from_the_browser(client):
    html = client.get(SIGNUP, headers={"accept-language": "it"}).content.decode()
    select = html.split('name="time_zone"', 1)[1].split("</select>", 1)[0]
    # site.js sets the browser's zone on the select that carries the marker; UTC without it
    assert '<select name="time_zone" data-browser-zone=""' in html
    assert '<option value="UTC" selected>UTC</option>' in select
    assert '<option value="Europe/Rome">Rome</option>' in select
    assert '<option value="it" selected>' in html  # the language from Accept-Language


def test_sign_up_stores_the_language_and_the_zone(client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = False
    response = client.post(SIGNUP, signup_data(language="it", time_zone="Asia/Tokyo"))
    assert response.status_code == 302
    profile = Profile.objects.get(user__username="wanda")
    assert (profile.language, profile.time_zone) == ("it", "Asia/Tokyo")
    # from now on in his language, on his clock, whatever the browser asks for
    html = client.get(PROFILE, headers={"accept-language": "en"}).content.decode()
    assert '<html lang="it">' in html and '<option value="Asia/Tokyo" selected>' in html


def test_a_sign_up_without_a_zone_reads_utc(client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = False
    client.post(SIGNUP, signup_data())
    assert Profile.objects.get(user__username="wanda").time_zone == "UTC"


@pytest.mark.parametrize("zone", ["Mars/Olympus", "../etc/passwd", "europe/rome", " UTC"])
def test_a_zone_not_in_the_database_is_refused_beside_the_field(client, zone):
    response = client.post(SIGNUP, signup_data(time_zone=zone))
    assert response.status_code == 400
    assert not User.objects.filter(username="wanda").exists()
    assert "Select a valid choice." in response.content.decode()


@pytest.fixture
def wanda():
    user = user_get_or_create(
        username="wanda", password="right-password-1", email="wanda@example.org"
    )
    Profile.objects.create(user=user, language="en", time_zone="UTC")
    return user


def test_the_account_page_edits_the_language_and_the_zone(client, wanda):
    client.force_login(wanda)
    data = {
        "first_name": "Wanda",
        "email": "wanda@example.org",
        "language": "it",
        "time_zone": "America/New_York",
    }
    response = client.post(PROFILE, data)
    assert response.status_code == 302
    profile = Profile.objects.get(user=wanda)
    assert (profile.language, profile.time_zone) == ("it", "America/New_York")
    # the same session reads them at once (its copy was renewed), in Italian on New York's clock
    html = client.get(PROFILE).content.decode()
    assert '<html lang="it">' in html and '<option value="America/New_York" selected>' in html
    refused = client.post(PROFILE, {**data, "time_zone": "Nowhere/Atlantis"})
    assert refused.status_code == 400
    assert Profile.objects.get(user=wanda).time_zone == "America/New_York"


def test_the_switcher_saves_the_accounts_language_and_the_next_page_reads_it(client, wanda):
    client.force_login(wanda)
    client.post(reverse("set_language"), {"language": "it", "next": "/"})
    assert Profile.objects.get(user=wanda).language == "it"
    client.cookies.pop("django_language", None)  # another browser of his would say nothing
    assert '<html lang="it">' in client.get("/").content.decode()


def test_a_new_login_reads_the_account_not_the_browser(client, wanda):
    Profile.objects.filter(user=wanda).update(language="it", time_zone="Asia/Tokyo")
    client.force_login(wanda)
    html = client.get("/", headers={"accept-language": "en"}).content.decode()
    assert '<html lang="it">' in html
