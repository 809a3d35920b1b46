"""The attacks of issue 28 on the login and reset limits, against the production settings:
the limits, the header and the trusted proxies are loaded from `config.settings_production`
in a fresh interpreter (tests/campaign/test_settings.py) with no ACCOUNT_* variable set, and
put in place for the test. The test client speaks as REMOTE_ADDR 127.0.0.1 unless told: the
proxy on this machine that production trusts by default."""

from __future__ import annotations

import os
import threading
import uuid
from collections import Counter

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connections
from django.test import Client
from django.urls import reverse

from campaign.setup.invitations import user_get_or_create
from tests.accounts.test_settings import UNSET
from tests.campaign.test_settings import load_settings, production_env

LOGIN = reverse("login")
RESET = reverse("password_reset")
NAMES = ("ACCOUNT_RATE_LIMITS", "ACCOUNT_CLIENT_IP_HEADER", "ACCOUNT_TRUSTED_PROXIES")
ATTACKER = "203.0.113.66"
WRONG = "Please enter a correct username and password"


@pytest.fixture(scope="module")
def production_values() -> dict[str, object]:
    return load_settings(*NAMES, **production_env(**UNSET))


@pytest.fixture
def production(settings, production_values):
    for name, value in production_values.items():
        setattr(settings, name, value)
    return production_values


def _limit(production, rule: str) -> int:
    return int(production["ACCOUNT_RATE_LIMITS"][rule]["attempts"])


def _outcome(response) -> str:
    if response.status_code == 429:
        return "refused"
    if response.status_code == 200 and WRONG in response.content.decode():
        return "failed"
    return f"other {response.status_code}"


ROTATIONS = {
    # straight to the web server: the header is the attacker's own words, ignored
    "direct": lambda n: {"REMOTE_ADDR": ATTACKER, "headers": {"x-forwarded-for": f"10.6.{n}.1"}},
    # through the proxy, which appends the address it sees
    "through the proxy": lambda n: {"headers": {"x-forwarded-for": f"10.6.{n}.1, {ATTACKER}"}},
    # from a new real address each time (many machines): the user name's count stops them
    "many machines": lambda n: {"headers": {"x-forwarded-for": f"198.51.100.{n}"}},
}


@pytest.mark.django_db
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_a_new_forwarded_for_on_every_try_is_refused_after_the_limit(client, production, rotation):
    wanda = user_get_or_create(username="wanda", password="right-password-1")
    limit = _limit(production, "login")
    tries = [
        ({"username": "wanda", "password": f"guess-{n}"}, ROTATIONS[rotation](n)) for n in range(16)
    ]
    outcomes = [_outcome(client.post(LOGIN, data, **extra)) for data, extra in tries]
    assert outcomes == ["failed"] * limit + ["refused"] * (16 - limit)
    right = client.post(LOGIN, {"username": "wanda", "password": "right-password-1"})
    assert right.status_code == 429  # nothing is tried until the window ends
    wanda.refresh_from_db()
    assert wanda.last_login is None


@pytest.mark.django_db
def test_one_address_trying_many_user_names_is_refused_after_its_limit(client, production):
    user_get_or_create(username="user24", password="right-password-1")
    limit = _limit(production, "login_address")
    assert limit < 25
    outcomes = [
        _outcome(
            client.post(
                LOGIN,
                {"username": f"user{n}", "password": "guess"},
                headers={"x-forwarded-for": f"10.6.{n}.1, {ATTACKER}"},
            )
        )
        for n in range(25)
    ]
    assert outcomes == ["failed"] * limit + ["refused"] * (25 - limit)
    others = {"username": "user24", "password": "right-password-1"}
    assert (
        client.post(LOGIN, others, headers={"x-forwarded-for": "198.51.100.7"}).status_code == 302
    )


@pytest.mark.django_db
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_reset_emails_to_one_account_are_limited_whoever_asks(
    client, production, rotation, mailoutbox
):
    user_get_or_create(username="wanda", password="right-password-1")
    User.objects.filter(username="wanda").update(email="wanda@example.org")
    limit = _limit(production, "reset")
    statuses = [
        client.post(RESET, {"email": "wanda@example.org"}, **ROTATIONS[rotation](n)).status_code
        for n in range(limit + 1)
    ]
    assert statuses == [302] * limit + [429]
    assert len(mailoutbox) == limit


@pytest.fixture(params=["locmem", "redis"])
def shared_cache(request, settings):
    """The cache the web processes share: one process's memory, or Redis, under a key prefix
    of this test's own (the broker's database may be the same: no FLUSHDB)."""
    if request.param == "locmem":
        yield
        return
    url = os.environ.get("CACHE_URL") or os.environ.get("CELERY_BROKER_URL") or ""
    if not url.startswith("redis://"):
        pytest.skip("no Redis (CACHE_URL or CELERY_BROKER_URL)")
    prefix = f"test-limits-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": prefix,
        }
    }
    yield
    client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


@pytest.mark.django_db(transaction=True)  # the threads' own connections see the user
def test_forty_parallel_wrong_logins_let_at_most_the_limit_through(production, shared_cache):
    user_get_or_create(username="wanda", password="right-password-1")
    limit = _limit(production, "login")
    parallel = 40
    start = threading.Barrier(parallel)
    outcomes: list[str] = []

    def one_try(n: int) -> None:
        try:
            client = Client(headers={"x-forwarded-for": f"10.6.{n}.1, {ATTACKER}"})
            start.wait()
            response = client.post(LOGIN, {"username": "wanda", "password": f"guess-{n}"})
            outcomes.append(_outcome(response))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=one_try, args=(n,)) for n in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # every try answered; exactly the limit tried (a refused one counts nothing, and the
    # name's count refuses before the address's is touched)
    assert Counter(outcomes) == {"failed": limit, "refused": parallel - limit}
