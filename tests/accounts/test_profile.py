"""The account page, reached from the header's display name: display name, email address
and language, and the links to the password and the notification settings."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Profile
from campaign.setup.invitations import user_get_or_create

pytestmark = pytest.mark.django_db

PROFILE = reverse("accounts:profile")


@pytest.fixture
def wanda():
    return user_get_or_create(
        username="wanda", password="right-password-1", email="wanda@example.org"
    )


def test_the_account_page_needs_a_login(client):
    response = client.get(PROFILE)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={PROFILE}"


def test_the_header_names_the_user_and_links_his_account_page(client, wanda):
    client.force_login(wanda)
    html = client.get("/").content.decode()
    assert f'<a class="nav-user" href="{PROFILE}" title="Account">wanda</a>' in html  # no name yet
    page = client.get(PROFILE)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="first_name"' in html and 'value="wanda@example.org"' in html
    assert f'href="{reverse("password_change")}"' in html
    assert f'href="{reverse("notifications:log")}"' in html


def test_the_account_page_saves_name_email_and_language(client, wanda):
    client.force_login(wanda)
    response = client.post(
        PROFILE, {"first_name": "Wanda the Bold", "email": "w@example.org", "language": "it"}
    )
    assert response.status_code == 302 and response["Location"] == PROFILE
    assert response.cookies["django_language"].value == "it"
    wanda.refresh_from_db()
    assert (wanda.first_name, wanda.email) == ("Wanda the Bold", "w@example.org")
    assert Profile.objects.get(user=wanda).language == "it"
    html = client.get("/").content.decode()
    assert ">Wanda the Bold</a>" in html and '<html lang="it">' in html


def test_the_account_page_refuses_an_address_of_another_account(client, wanda):
    user_get_or_create(username="oscar", email="oscar@example.org")
    client.force_login(wanda)
    response = client.post(
        PROFILE, {"first_name": "Wanda", "email": "OSCAR@example.org", "language": "en"}
    )
    assert response.status_code == 400
    assert response.context["form"].errors == {
        "email": ["An account with this email address already exists."]
    }
    # his own address is no clash
    response = client.post(
        PROFILE, {"first_name": "Wanda", "email": "wanda@example.org", "language": "en"}
    )
    assert response.status_code == 302
