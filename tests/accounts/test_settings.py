"""The account settings read from the environment (each case in a fresh interpreter, as in
tests/campaign/test_settings.py): email verification, the cache, the limits."""

from __future__ import annotations

from django.core.management.utils import get_random_secret_key

from tests.campaign.test_settings import load_settings, run_python

UNSET = {
    "ACCOUNT_EMAIL_VERIFICATION": "",
    "CACHE_URL": "",
    "ACCOUNT_LOGIN_ATTEMPTS": "",
    "ACCOUNT_LOGIN_WINDOW": "",
    "ACCOUNT_SIGNUP_ATTEMPTS": "",
    "ACCOUNT_SIGNUP_WINDOW": "",
    "ACCOUNT_RESET_ATTEMPTS": "",
    "ACCOUNT_RESET_WINDOW": "",
    "ACCOUNT_CLIENT_IP_HEADER": "",
}
NAMES = ("ACCOUNT_EMAIL_VERIFICATION", "CACHES", "ACCOUNT_RATE_LIMITS", "ACCOUNT_CLIENT_IP_HEADER")


def test_the_defaults_log_in_at_once_and_count_in_memory():
    s = load_settings(*NAMES, **UNSET)
    assert s["ACCOUNT_EMAIL_VERIFICATION"] is False
    assert s["CACHES"] == {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert s["ACCOUNT_RATE_LIMITS"] == {
        "login": {"attempts": 10, "window": 900},
        "signup": {"attempts": 5, "window": 3600},
        "reset": {"attempts": 5, "window": 3600},
    }
    assert s["ACCOUNT_CLIENT_IP_HEADER"] == ""


def test_the_environment_sets_verification_redis_and_the_limits():
    env = {
        **UNSET,
        "ACCOUNT_EMAIL_VERIFICATION": "1",
        "CACHE_URL": "redis://127.0.0.1:6379/3",
        "ACCOUNT_LOGIN_ATTEMPTS": "4",
        "ACCOUNT_SIGNUP_WINDOW": "60",
    }
    s = load_settings(*NAMES, **env)
    assert s["ACCOUNT_EMAIL_VERIFICATION"] is True
    assert s["CACHES"] == {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/3",
        }
    }
    assert s["ACCOUNT_RATE_LIMITS"] == {
        "login": {"attempts": 4, "window": 900},
        "signup": {"attempts": 5, "window": 60},
        "reset": {"attempts": 5, "window": 3600},
    }


def test_production_counts_the_client_the_proxy_names():
    env = {
        **UNSET,
        "DJANGO_SETTINGS_MODULE": "config.settings_production",
        "SECRET_KEY": get_random_secret_key(),
        "ALLOWED_HOSTS": "example.org",
    }
    assert load_settings("ACCOUNT_CLIENT_IP_HEADER", **env) == {
        "ACCOUNT_CLIENT_IP_HEADER": "X-Forwarded-For"
    }


def test_bad_values_fail_clearly():
    for name, value, message in [
        ("CACHE_URL", "memcached://x", "is not a Redis URL"),
        ("ACCOUNT_LOGIN_ATTEMPTS", "ten", "is not a whole number"),
        ("ACCOUNT_EMAIL_VERIFICATION", "maybe", "is not a boolean"),
    ]:
        result = run_python(
            "-c",
            "import django; django.setup()",
            **{**UNSET, name: value, "DJANGO_SETTINGS_MODULE": "config.settings"},
        )
        assert result.returncode != 0 and message in result.stderr, (name, result.stderr)
