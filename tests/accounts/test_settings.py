"""The account settings read from the environment (each case in a fresh interpreter, as in
tests/campaign/test_settings.py): email verification, the cache, the limits, the proxies
trusted to name the client; and two production settings of the same kind: the language
cookie's flags and the database connection's TCP keepalives."""

from __future__ import annotations

import json
import os

import dj_database_url
import pytest
from django.urls import reverse

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
    "DATABASE_KEEPALIVES_IDLE": "",
    "DATABASE_KEEPALIVES_INTERVAL": "",
    "DATABASE_KEEPALIVES_COUNT": "",
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


def test_production_language_cookie_is_secure_lax_and_http_only(client, settings):
    names = ("LANGUAGE_COOKIE_SECURE", "LANGUAGE_COOKIE_SAMESITE", "LANGUAGE_COOKIE_HTTPONLY")
    production = load_settings(*names, **production_env(**UNSET))
    assert production == {
        "LANGUAGE_COOKIE_SECURE": True,
        "LANGUAGE_COOKIE_SAMESITE": "Lax",
        "LANGUAGE_COOKIE_HTTPONLY": True,
    }
    # the demo runs on plain HTTP: not Secure, but Lax and out of scripts' reach all the same
    assert load_settings(*names, **UNSET) == {
        "LANGUAGE_COOKIE_SECURE": False,
        "LANGUAGE_COOKIE_SAMESITE": "Lax",
        "LANGUAGE_COOKIE_HTTPONLY": True,
    }
    for name, value in production.items():
        setattr(settings, name, value)
    response = client.post(reverse("set_language"), {"language": "it", "next": "/"})
    cookie = response.cookies["django_language"]
    assert (cookie.value, cookie["secure"], cookie["httponly"], cookie["samesite"]) == (
        "it",
        True,
        True,
        "Lax",
    )


KEEPALIVES = {"keepalives": 1, "keepalives_idle": 60, "keepalives_interval": 10}
SERVER_KEEPALIVES = "-c tcp_keepalives_idle=60 -c tcp_keepalives_interval=10"


def _options(*cases: dict[str, str]) -> list[dict[str, object]]:
    """The production database OPTIONS for each environment: the settings modules imported
    afresh for each in one interpreter (no django.setup(): only the module is read)."""
    code = (
        "import json, os, sys, importlib\n"
        "out = []\n"
        "for env in json.loads(sys.argv[1]):\n"
        "    os.environ.update(env)\n"
        "    sys.modules.pop('config.settings', None)\n"
        "    sys.modules.pop('config.settings_production', None)\n"
        "    s = importlib.import_module('config.settings_production')\n"
        "    out.append(s.DATABASES['default'].get('OPTIONS', {}))\n"
        "print(json.dumps(out))\n"
    )
    result = run_python("-c", code, json.dumps(cases), **production_env(**UNSET))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_production_postgresql_connections_probe_a_silent_peer_within_two_minutes():
    url = "postgres://fw@db/fw?options=-c%20search_path%3Dfw"  # the URL's own options stay
    unset = {"DATABASE_KEEPALIVES_IDLE": "", "DATABASE_KEEPALIVES_COUNT": ""}
    assert _options(
        {**unset, "DATABASE_URL": "postgres://fw@db.example.org:5432/fw?sslmode=require"},
        {**unset, "DATABASE_URL": url, "DATABASE_KEEPALIVES_COUNT": "3"},
        {**unset, "DATABASE_URL": url, "DATABASE_KEEPALIVES_IDLE": "0"},
        {**unset, "DATABASE_URL": ""},  # SQLite: no such options
    ) == [
        {
            "sslmode": "require",
            **KEEPALIVES,
            "keepalives_count": 6,
            "options": f"{SERVER_KEEPALIVES} -c tcp_keepalives_count=6",
        },
        {
            **KEEPALIVES,
            "keepalives_count": 3,
            "options": f"-c search_path=fw {SERVER_KEEPALIVES} -c tcp_keepalives_count=3",
        },
        {"options": "-c search_path=fw"},
        {},
    ]


def test_production_sessions_on_the_real_server_carry_the_keepalives():
    """The server's side is what frees a vanished client's locks: its session settings, as
    PostgreSQL reports them over a TCP connection made with the production settings."""
    url = os.environ.get("DATABASE_URL", "")
    parsed = dj_database_url.parse(url) if url else {}
    host = str(parsed.get("HOST") or "")
    if "postgresql" not in str(parsed.get("ENGINE", "")) or not host or host.startswith("/"):
        pytest.skip("needs PostgreSQL over TCP: keepalives do not apply to a Unix socket")
    code = (
        "import json, django; django.setup()\n"
        "from django.db import connection\n"
        "with connection.cursor() as c:\n"
        '    c.execute("SELECT name, setting FROM pg_settings"\n'
        "              \" WHERE name LIKE 'tcp_keepalives%'\")\n"
        "    server = dict(c.fetchall())\n"
        "client = {k: v for k, v in connection.connection.info.get_parameters().items()\n"
        "          if k.startswith('keepalives')}\n"
        "print(json.dumps({'server': server, 'client': client}))\n"
    )
    result = run_python("-c", code, **production_env(**{**UNSET, "DATABASE_URL": url}))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "server": {
            "tcp_keepalives_idle": "60",
            "tcp_keepalives_interval": "10",
            "tcp_keepalives_count": "6",
        },
        "client": {
            "keepalives": "1",
            "keepalives_idle": "60",
            "keepalives_interval": "10",
            "keepalives_count": "6",
        },
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
