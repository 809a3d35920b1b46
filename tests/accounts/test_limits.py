"""The limits on logging in and signing up (accounts.limits): failed logins per user name
and per client address, sign-ups per address, reset emails per address and per email
address; over the limit the form says how long to wait, with 429, and nothing else is
processed. Who the client is: REMOTE_ADDR, or what trusted proxies say. The window's end is
the cache entry's expiry, which `cache.clear()` stands for here (no sleeping). The attacks
on the production settings are in test_limits_production.py."""

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
        "login_address": {"attempts": 5, "window": 15 * 60},
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


def test_the_login_limit_is_per_user_name_from_any_address(client, wanda):
    user_get_or_create(username="oscar", password="oscar-pass-1")
    for _ in range(3):
        _login(client, "wrong", username="WANDA")  # the user name's case does not matter
    assert _login(client, "right-password-1").status_code == 429
    assert _login(client, "oscar-pass-1", username="oscar").status_code == 302
    client.logout()
    other = _login(client, "right-password-1", REMOTE_ADDR="192.0.2.9")
    assert other.status_code == 429  # another address does not open another window


def test_the_login_limit_is_per_address_whatever_the_user_name(client, wanda):
    for n in range(5):
        assert _login(client, "wrong", username=f"user{n}").status_code == 200
    response = _login(client, "right-password-1")  # a sixth name: the address is over
    assert response.status_code == 429 and TOO_MANY in response.content.decode()
    other = _login(client, "right-password-1", REMOTE_ADDR="192.0.2.9")
    assert other.status_code == 302


def test_a_refused_login_counts_nothing(client, wanda):
    """Refused at the name's limit, the try is not counted against the address: a user
    locked out by someone else's guesses does not also lock out his address by retrying."""
    for _ in range(3):
        _login(client, "wrong", REMOTE_ADDR="192.0.2.66")
    for _ in range(6):
        assert _login(client, "right-password-1").status_code == 429
    # had the six refusals counted, this address would be over its limit of 5
    assert _login(client, "wrong", username="oscar").status_code == 200  # tried, and failed


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


def _address(rf, remote: str = "127.0.0.1", **headers: str) -> str:
    return limits.client_address(rf.get("/", REMOTE_ADDR=remote, headers=headers))


def test_without_trusted_proxies_the_header_is_ignored(rf, settings):
    settings.ACCOUNT_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.ACCOUNT_TRUSTED_PROXIES = []
    assert _address(rf, x_forwarded_for="6.6.6.6, 203.0.113.5") == "127.0.0.1"


def test_the_header_is_read_only_from_a_trusted_proxy(rf, settings):
    settings.ACCOUNT_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.ACCOUNT_TRUSTED_PROXIES = ["127.0.0.1", "10.0.0.0/8"]
    xff = "6.6.6.6, 203.0.113.5"  # the client wrote 6.6.6.6; the proxy added 203.0.113.5
    assert _address(rf, x_forwarded_for=xff) == "203.0.113.5"
    assert _address(rf, "::ffff:127.0.0.1", x_forwarded_for=xff) == "203.0.113.5"
    # straight to the server, not through the proxy: its header is the client's own words
    assert _address(rf, "203.0.113.5", x_forwarded_for="6.6.6.6") == "203.0.113.5"
    # read from the right past every trusted proxy, to the first address that is not one
    chain = "6.6.6.6, 203.0.113.5, 10.0.0.2, 10.9.9.9"
    assert _address(rf, "10.1.1.1", x_forwarded_for=chain) == "203.0.113.5"
    assert _address(rf, "10.1.1.1", x_forwarded_for="10.0.0.3, 10.0.0.2") == "10.0.0.3"
    assert _address(rf) == "127.0.0.1"  # no header: the proxy asked for itself
    settings.ACCOUNT_CLIENT_IP_HEADER = ""
    assert _address(rf, x_forwarded_for=xff) == "127.0.0.1"


def test_x_real_ip_is_one_address_from_a_trusted_proxy(rf, settings):
    settings.ACCOUNT_CLIENT_IP_HEADER = "X-Real-IP"
    settings.ACCOUNT_TRUSTED_PROXIES = ["127.0.0.1"]
    assert _address(rf, x_real_ip="203.0.113.9", x_forwarded_for="6.6.6.6") == "203.0.113.9"
    assert _address(rf, "198.51.100.4", x_real_ip="203.0.113.9") == "198.51.100.4"


def test_a_unix_socket_is_trusted_only_when_listed(rf, settings):
    settings.ACCOUNT_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.ACCOUNT_TRUSTED_PROXIES = ["127.0.0.1"]
    assert _address(rf, "", x_forwarded_for="203.0.113.5") == ""  # gunicorn on a socket
    settings.ACCOUNT_TRUSTED_PROXIES = ["unix"]
    assert _address(rf, "", x_forwarded_for="203.0.113.5") == "203.0.113.5"


def test_an_ipv6_client_counts_by_its_64_network(rf):
    def key(remote: str) -> limits.Counter:
        return limits.per_client(rf.get("/", REMOTE_ADDR=remote), limits.LOGIN_ADDRESS)

    assert key("2001:db8:1:2::1") == key("2001:db8:1:2:ffff::9")
    assert key("2001:db8:1:2::1") != key("2001:db8:1:3::1")
    assert key("192.0.2.1") != key("192.0.2.2")
    assert key("::ffff:192.0.2.1") == key("192.0.2.1")


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


def test_password_reset_emails_to_one_address_are_limited_whoever_asks(client, wanda, mailoutbox):
    wanda.email = "wanda@example.org"
    wanda.save(update_fields=["email"])
    reset = reverse("password_reset")
    asked = [("wanda@example.org", "192.0.2.1"), ("WANDA@Example.ORG", "192.0.2.2")]
    for email, remote in asked:
        assert client.post(reset, {"email": email}, REMOTE_ADDR=remote).status_code == 302
    response = client.post(reset, {"email": "Wanda@example.org"}, REMOTE_ADDR="192.0.2.3")
    assert response.status_code == 429
    assert len(mailoutbox) == 2
    # the refused request counted nothing: its client may still ask for another address
    other = client.post(reset, {"email": "oscar@example.org"}, REMOTE_ADDR="192.0.2.3")
    assert other.status_code == 302


def test_an_unknown_email_address_is_limited_alike(client, mailoutbox):
    """A 429 must not tell who has an account: an address nobody has counts the same."""
    reset = reverse("password_reset")
    for n in range(2):
        answer = client.post(reset, {"email": "nobody@example.org"}, REMOTE_ADDR=f"192.0.2.{n}")
        assert answer.status_code == 302
    answer = client.post(reset, {"email": "nobody@example.org"}, REMOTE_ADDR="192.0.2.9")
    assert answer.status_code == 429 and mailoutbox == []
