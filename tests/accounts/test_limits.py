"""The limits on logging in and signing up (accounts.limits): failed logins per client
address and user name, sign-ups per address; over the limit the form says how long to wait,
with 429, and nothing else is processed. The window's end is the cache entry's expiry, which
`cache.clear()` stands for here (no sleeping)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.urls import reverse

from accounts import limits
from campaign.setup.invitations import invitation_create, user_get_or_create
from tests.accounts.conftest import signup_data
from tests.campaign.setup.test_setup import make_world

pytestmark = pytest.mark.django_db

LOGIN = reverse("login")
SIGNUP = reverse("accounts:signup")
TOO_MANY = "Too many attempts. Try again in 15 minutes."


@pytest.fixture(autouse=True)
def small_limits(settings):
    settings.ACCOUNT_RATE_LIMITS = {
        "login": {"attempts": 3, "window": 15 * 60},
        "signup": {"attempts": 2, "window": 60 * 60},
        "reset": {"attempts": 2, "window": 60 * 60},
    }


@pytest.fixture
def wanda():
    return user_get_or_create(username="wanda", password="right-password-1")


def _login(client, password: str, username: str = "wanda", **extra):
    return client.post(LOGIN, {"username": username, "password": password}, **extra)


def test_failed_logins_over_the_limit_are_refused_with_429(client, wanda):
    for _ in range(3):
        response = _login(client, "wrong")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.content.decode()
    response = _login(client, "right-password-1")  # even the right password: nothing is tried
    assert response.status_code == 429
    assert TOO_MANY in response.content.decode()
    assert "_auth_user_id" not in client.session
    wanda.refresh_from_db()
    assert wanda.last_login is None
    # the window ends: he may try again
    cache.clear()
    assert _login(client, "right-password-1").status_code == 302


def test_successful_logins_do_not_count(client, wanda):
    for _ in range(5):
        assert _login(client, "right-password-1").status_code == 302
        client.logout()
    _login(client, "wrong")
    assert _login(client, "right-password-1").status_code == 302


def test_the_login_limit_is_per_address_and_user_name(client, wanda):
    user_get_or_create(username="oscar", password="oscar-pass-1")
    for _ in range(3):
        _login(client, "wrong", username="WANDA")  # the user name's case does not matter
    assert _login(client, "right-password-1").status_code == 429
    assert _login(client, "oscar-pass-1", username="oscar").status_code == 302
    client.logout()
    other = _login(client, "right-password-1", REMOTE_ADDR="192.0.2.9")
    assert other.status_code == 302


def test_the_admin_login_counts_and_obeys_the_same_limit(client, wanda):
    wanda.is_staff = True
    wanda.save()
    admin_login = reverse("admin:login")
    for _ in range(3):
        client.post(admin_login, {"username": "wanda", "password": "wrong"})
    response = client.post(admin_login, {"username": "wanda", "password": "right-password-1"})
    assert TOO_MANY in response.content.decode() and "_auth_user_id" not in client.session


def test_sign_ups_over_the_limit_are_refused_with_429(client):
    for n in range(2):
        response = client.post(
            SIGNUP, signup_data(username=f"user{n}", email=f"user{n}@example.org")
        )
        assert response.status_code == 302
        client.logout()
    response = client.post(SIGNUP, signup_data())
    assert response.status_code == 429
    assert "Too many attempts. Try again in 60 minutes." in response.content.decode()
    assert not User.objects.filter(username="wanda").exists()
    cache.clear()
    assert client.post(SIGNUP, signup_data()).status_code == 302


def test_a_refused_sign_up_does_not_count(client):
    for _ in range(3):
        assert client.post(SIGNUP, signup_data(password2="mismatch-1")).status_code == 400
    assert client.post(SIGNUP, signup_data()).status_code == 302


def test_the_join_page_sign_up_obeys_the_same_limit(client):
    world = make_world()
    inv = invitation_create(
        campaign=world.campaign, role="observer", max_uses=5, created_by=world.users["gm"]
    )
    url = reverse("campaign:join", args=[inv.token])
    for n in range(2):
        data = signup_data(username=f"user{n}", email=f"user{n}@example.org")
        assert client.post(url, data).status_code == 302
        client.logout()
    response = client.post(url, signup_data())
    assert response.status_code == 429 and "Too many attempts" in response.content.decode()
    assert not User.objects.filter(username="wanda").exists()


def test_behind_a_proxy_the_client_is_the_address_the_proxy_names(rf, settings):
    settings.ACCOUNT_CLIENT_IP_HEADER = "X-Forwarded-For"
    request = rf.get("/", headers={"x-forwarded-for": "6.6.6.6, 203.0.113.5"})
    assert limits.client_address(request) == "203.0.113.5"  # the proxy's entry, not the client's
    assert limits.client_address(rf.get("/")) == "127.0.0.1"  # no header: REMOTE_ADDR
    settings.ACCOUNT_CLIENT_IP_HEADER = ""
    assert limits.client_address(request) == "127.0.0.1"


def test_the_wait_is_said_in_whole_minutes():
    assert limits.too_many_message(1) == "Too many attempts. Try again in 1 minute."
    assert limits.too_many_message(61) == "Too many attempts. Try again in 2 minutes."


def test_password_reset_emails_over_the_limit_are_refused_with_429(client, wanda, mailoutbox):
    wanda.email = "wanda@example.org"
    wanda.save(update_fields=["email"])
    reset = reverse("password_reset")
    for _ in range(2):
        assert client.post(reset, {"email": "wanda@example.org"}).status_code == 302
    response = client.post(reset, {"email": "wanda@example.org"})
    assert response.status_code == 429
    assert "Too many attempts. Try again in 60 minutes." in response.content.decode()
    assert len(mailoutbox) == 2  # the third asked for nothing
