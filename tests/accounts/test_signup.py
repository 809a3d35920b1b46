"""Sign-up: the page from the header, a good sign-up (logged in at once, or after the
emailed link with ACCOUNT_EMAIL_VERIFICATION on), each bad input with its message beside the
field; the language chosen, applied at every login and stored by the header's switcher."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from accounts.models import Profile
from campaign.selectors import user_label
from campaign.setup.invitations import user_get_or_create
from tests.accounts.conftest import PASSWORD, link_in, signup_data

pytestmark = pytest.mark.django_db

SIGNUP = reverse("accounts:signup")


def test_the_header_offers_sign_up_beside_log_in(client):
    html = client.get("/").content.decode()
    assert f'href="{reverse("login")}"' in html and f'href="{SIGNUP}">Sign up</a>' in html
    page = client.get(SIGNUP)
    assert page.status_code == 200
    html = page.content.decode()
    for field in ("username", "first_name", "email", "password1", "password2", "language"):
        assert f'name="{field}"' in html
    assert "Display name" in html


def test_sign_up_makes_the_account_and_logs_in(client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = False
    response = client.post(SIGNUP, signup_data())
    assert response.status_code == 302 and response["Location"] == "/"
    user = User.objects.get(username="wanda")
    assert (user.first_name, user.email, user.is_active) == (
        "Wanda the Bold",
        "wanda@example.org",
        True,
    )
    assert user.check_password(PASSWORD)
    assert user.profile.language == "en"
    # the display name is how the site names him, in the header too
    assert user_label(user) == "Wanda the Bold"
    html = client.get("/").content.decode()
    assert "Your campaigns" in html and "Welcome, Wanda the Bold: your account is ready." in html
    assert f'<a class="nav-user" href="{reverse("accounts:profile")}"' in html
    assert ">Wanda the Bold</a>" in html
    assert not mail.outbox


def test_the_language_defaults_to_the_page_language(client):
    html = client.get(SIGNUP, headers={"accept-language": "it"}).content.decode()
    assert '<option value="it" selected>' in html


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"username": "taken"}, "username", "A user with that username already exists."),
        ({"username": "TAKEN"}, "username", "A user with that username already exists."),
        (
            {"email": "Taken@Example.org"},
            "email",
            "An account with this email address already exists.",
        ),
        ({"password2": "another-password-9"}, "password2", "The two password fields didn"),
        ({"password1": "abc", "password2": "abc"}, "password2", "This password is too short."),
        (
            {"password1": "password123", "password2": "password123"},
            "password2",
            "This password is too common.",
        ),
        (
            {"password1": "48151623420815", "password2": "48151623420815"},
            "password2",
            "This password is entirely numeric.",
        ),
        (
            {"password1": "wanda@example.org", "password2": "wanda@example.org"},
            "password2",
            "The password is too similar to the email address.",
        ),
        ({"email": ""}, "email", "This field is required."),
        ({"email": "not-an-address"}, "email", "Enter a valid email address."),
        ({"first_name": ""}, "first_name", "This field is required."),
        ({"language": "de"}, "language", "Select a valid choice."),
    ],
)
def test_a_bad_sign_up_says_what_is_wrong_beside_the_field(client, changes, field, message):
    user_get_or_create(username="taken", email="taken@example.org")
    response = client.post(SIGNUP, signup_data(**changes))
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == [field]
    assert message in " ".join(errors[field])
    assert message.replace("'", "&#x27;") in response.content.decode()
    assert not User.objects.filter(username__iexact=signup_data(**changes)["username"]).exclude(
        username="taken"
    )


def test_a_logged_in_user_does_not_sign_up_again(client):
    client.force_login(user_get_or_create(username="oscar"))
    assert client.get(SIGNUP)["Location"] == "/"


# --- email verification ----------------------------------------------------------------------


def test_with_verification_the_account_waits_for_the_emailed_link(client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = True
    response = client.post(SIGNUP, signup_data(language="it"))
    assert response["Location"] == reverse("accounts:signup-done")
    user = User.objects.get(username="wanda")
    assert not user.is_active and "_auth_user_id" not in client.session
    # the page after sign-up, and the email, are in the language he chose
    done = client.get(response["Location"]).content.decode()
    assert '<html lang="it">' in done and "Ti abbiamo mandato un'email con un link" in done
    # he cannot log in yet, and is told why
    response = client.post(reverse("login"), {"username": "wanda", "password": PASSWORD})
    assert "Questo account non è attivo." in response.content.decode()

    (email,) = mail.outbox
    assert email.to == ["wanda@example.org"]
    assert email.subject == "Conferma il tuo indirizzo email per Fantasy Warriors Campaign"
    assert "Qualcuno, probabilmente tu, ha creato un account" in email.body
    url = link_in(email.body)
    assert url.startswith("https://campaigns.example.org/accounts/verify/")
    path = urlsplit(url).path
    client.cookies["django_language"] = "en"  # he opens it in an English browser
    # opening the link asks to confirm (a mail scanner must not spend it); confirming does
    page = client.get(path)
    assert page.status_code == 200 and "Confirm my address" in page.content.decode()
    assert not User.objects.get(username="wanda").is_active
    response = client.post(path)
    assert response.status_code == 302 and response["Location"] == "/"
    assert User.objects.get(username="wanda").is_active
    assert client.session["_auth_user_id"] == str(user.pk)
    assert response.cookies["django_language"].value == "it"
    # the link is spent
    client.logout()
    again = client.get(path)
    assert again.status_code == 400 and "This link is not valid" in again.content.decode()


def test_a_bad_confirmation_link_activates_nothing(client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = True
    client.post(SIGNUP, signup_data())
    path = urlsplit(link_in(mail.outbox[0].body)).path
    forged = path.rstrip("/").rsplit("/", 1)[0] + "/0-forged/"
    assert client.post(forged).status_code == 400
    assert client.post(reverse("accounts:verify", args=["zz", "x-y"])).status_code == 400
    assert not User.objects.get(username="wanda").is_active


def test_a_confirmation_link_is_not_a_password_reset_link(client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = True
    client.post(SIGNUP, signup_data())
    uidb64, token = urlsplit(link_in(mail.outbox[0].body)).path.strip("/").split("/")[-2:]
    page = client.get(reverse("password_reset_confirm", args=[uidb64, token]), follow=True)
    assert "This password reset link is not valid" in page.content.decode()


# --- the language ----------------------------------------------------------------------------


def test_the_chosen_language_is_applied_at_sign_up_and_at_each_login(client):
    response = client.post(SIGNUP, signup_data(language="it"))
    assert response.cookies["django_language"].value == "it"
    assert '<html lang="it">' in client.get("/").content.decode()
    client.logout()  # the test client's logout drops every cookie: as another browser would
    assert "django_language" not in client.cookies
    # logging in brings the language back
    response = client.post(reverse("login"), {"username": "wanda", "password": PASSWORD})
    assert response.status_code == 302
    assert response.cookies["django_language"].value == "it"
    assert '<html lang="it">' in client.get("/").content.decode()


def test_a_user_without_a_profile_keeps_the_browser_language_at_login(client):
    user_get_or_create(username="ilaria", password=PASSWORD)
    client.post(reverse("set_language"), {"language": "it", "next": "/"})
    response = client.post(reverse("login"), {"username": "ilaria", "password": PASSWORD})
    assert response.status_code == 302 and "django_language" not in response.cookies
    assert '<html lang="it">' in client.get("/").content.decode()


def test_the_language_switcher_stores_a_logged_in_users_choice(client):
    user = user_get_or_create(username="ilaria", password=PASSWORD)
    client.force_login(user)
    response = client.post(reverse("set_language"), {"language": "it", "next": "/"})
    assert response.status_code == 302 and response.cookies["django_language"].value == "it"
    assert Profile.objects.get(user=user).language == "it"
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert Profile.objects.get(user=user).language == "en"
    # a language the site does not offer changes nothing
    client.post(reverse("set_language"), {"language": "de", "next": "/"})
    assert Profile.objects.get(user=user).language == "en"


def test_the_language_switcher_stores_nothing_for_a_visitor(client):
    response = client.post(reverse("set_language"), {"language": "it", "next": "/"})
    assert response.cookies["django_language"].value == "it"
    assert not Profile.objects.exists()
