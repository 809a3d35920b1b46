"""Password reset from the login page: the link there, the email whose link is built on
SITE_URL (not on the host the request came to), and the whole way through to a login with
the new password."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import Profile
from campaign.setup.invitations import user_get_or_create
from tests.accounts.conftest import link_in

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "silver-gates-of-morn"


@pytest.fixture
def wanda():
    return user_get_or_create(
        username="wanda", password="old-password-77", email="wanda@example.org"
    )


def test_the_login_page_links_to_password_reset_and_sign_up(client):
    html = client.get(reverse("login")).content.decode()
    assert f'<a href="{reverse("password_reset")}">Forgot your password?</a>' in html
    assert f'<a href="{reverse("accounts:signup")}">Create an account</a>' in html


def test_the_reset_email_links_to_site_url_and_the_link_works(client, wanda, settings):
    settings.ALLOWED_HOSTS = ["testserver", "10.0.0.7"]
    page = client.get(reverse("password_reset"))
    assert page.status_code == 200 and 'name="email"' in page.content.decode()
    response = client.post(
        reverse("password_reset"), {"email": "WANDA@example.org"}, HTTP_HOST="10.0.0.7:8000"
    )
    assert response["Location"] == reverse("password_reset_done")
    assert "Check your email" in client.get(response["Location"]).content.decode()

    (email,) = mail.outbox
    assert email.to == ["wanda@example.org"]
    assert email.subject == "Reset your password for Fantasy Warriors Campaign"
    assert "Your user name, in case you have forgotten it too: wanda" in email.body
    url = link_in(email.body)
    assert url.startswith("https://campaigns.example.org/accounts/reset/")
    assert "10.0.0.7" not in email.body

    # Django's confirm view swaps the token for a session and redirects to set-password
    page = client.get(urlsplit(url).path, follow=True)
    assert "Choose a new password" in page.content.decode()
    form_path = page.redirect_chain[-1][0]
    response = client.post(
        form_path, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert response["Location"] == reverse("password_reset_complete")
    done = client.get(response["Location"]).content.decode()
    assert "Your new password is set." in done

    response = client.post(reverse("login"), {"username": "wanda", "password": NEW_PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    # and the link is spent
    page = client.get(urlsplit(url).path, follow=True)
    assert "This password reset link is not valid" in page.content.decode()


def test_the_reset_email_speaks_the_users_language(client, wanda):
    Profile.objects.create(user=wanda, language="it")
    client.post(reverse("password_reset"), {"email": "wanda@example.org"})
    (email,) = mail.outbox
    assert email.subject == "Reimposta la password per Fantasy Warriors Campaign"
    assert "Qualcuno, probabilmente tu, ha chiesto di reimpostare la password" in email.body


def test_an_unknown_address_gets_the_same_answer_and_no_email(client, wanda):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response["Location"] == reverse("password_reset_done")
    assert not mail.outbox
