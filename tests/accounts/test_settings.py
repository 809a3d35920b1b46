"""The account settings read from the environment (each case in a fresh interpreter, as in
tests/campaign/test_settings.py): email verification, the cache, the limits, the proxies
trusted to name the client."""

from __future__ import annotations

from tests.campaign.test_settings import load_settings, production_env, run_python

UNSET = {
    "ACCOUNT_EMAIL_VERIFICATION": "",
    "CACHE_URL": "",
    "ACCOUNT_LOGIN_ATTEMPTS": "",
    "ACCOUNT_LOGIN_WINDOW": "",
    "ACCOUNT_SIGNUP_ATTEMPTS": "",
    "ACCOUNT_SIGNUP_WINDOW": "",
    "ACCOUNT_RESET_ATTEMPTS": "",
    "ACCOUNT_RESET_WINDOW": "",
    "ACCOUNT_LOGIN_ADDRESS_ATTEMPTS": "",
    "ACCOUNT_LOGIN_ADDRESS_WINDOW": "",
    "ACCOUNT_CLIENT_IP_HEADER": "",
    "ACCOUNT_TRUSTED_PROXIES": "",
}
NAMES = (
    "ACCOUNT_EMAIL_VERIFICATION",
    "CACHES",
    "ACCOUNT_RATE_LIMITS",
    "ACCOUNT_CLIENT_IP_HEADER",
    "ACCOUNT_TRUSTED_PROXIES",
)
DEFAULT_LIMITS = {
    "login": {"attempts": 10, "window": 900},
    "login_address": {"attempts": 20, "window": 900},
    "signup": {"attempts": 5, "window": 3600},
    "reset": {"attempts": 5, "window": 3600},
}


def test_the_defaults_log_in_at_once_and_count_in_memory():
    s = load_settings(*NAMES, **UNSET)
    assert s["ACCOUNT_EMAIL_VERIFICATION"] is False
    assert s["CACHES"] == {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert s["ACCOUNT_RATE_LIMITS"] == DEFAULT_LIMITS
    assert s["ACCOUNT_CLIENT_IP_HEADER"] == ""
    assert s["ACCOUNT_TRUSTED_PROXIES"] == []  # no header believed: REMOTE_ADDR


def test_the_environment_sets_verification_redis_and_the_limits():
    env = {
        **UNSET,
        "ACCOUNT_EMAIL_VERIFICATION": "1",
        "CACHE_URL": "redis://127.0.0.1:6379/3",
        "ACCOUNT_LOGIN_ATTEMPTS": "4",
        "ACCOUNT_LOGIN_ADDRESS_ATTEMPTS": "12",
        "ACCOUNT_SIGNUP_WINDOW": "60",
        "ACCOUNT_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7,unix",
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
        **DEFAULT_LIMITS,
        "login": {"attempts": 4, "window": 900},
        "login_address": {"attempts": 12, "window": 900},
        "signup": {"attempts": 5, "window": 60},
    }
    assert s["ACCOUNT_TRUSTED_PROXIES"] == ["10.0.0.0/8", "192.0.2.7", "unix"]


def test_production_believes_the_header_from_a_proxy_on_this_machine_only():
    names = ("ACCOUNT_CLIENT_IP_HEADER", "ACCOUNT_TRUSTED_PROXIES", "ACCOUNT_RATE_LIMITS")
    assert load_settings(*names, **production_env(**UNSET)) == {
        "ACCOUNT_CLIENT_IP_HEADER": "X-Forwarded-For",
        "ACCOUNT_TRUSTED_PROXIES": ["127.0.0.1", "::1", "unix"],
        "ACCOUNT_RATE_LIMITS": DEFAULT_LIMITS,
    }
    env = production_env(**{**UNSET, "ACCOUNT_TRUSTED_PROXIES": "10.1.2.3"})
    assert load_settings("ACCOUNT_TRUSTED_PROXIES", **env) == {
        "ACCOUNT_TRUSTED_PROXIES": ["10.1.2.3"]  # a proxy elsewhere: only it, not loopback
    }


def test_bad_values_fail_clearly():
    for name, value, message in [
        ("CACHE_URL", "memcached://x", "is not a Redis URL"),
        ("ACCOUNT_LOGIN_ATTEMPTS", "ten", "is not a whole number"),
        ("ACCOUNT_EMAIL_VERIFICATION", "maybe", "is not a boolean"),
        ("ACCOUNT_TRUSTED_PROXIES", "10.0.0.0/8,proxy.lan", "'proxy.lan' is not an address"),
    ]:
        result = run_python(
            "-c",
            "import django; django.setup()",
            **{**UNSET, name: value, "DJANGO_SETTINGS_MODULE": "config.settings"},
        )
        assert result.returncode != 0 and message in result.stderr, (name, result.stderr)
