"""Django settings, read from the environment.

The defaults run the local demo with nothing configured: DEBUG on, an insecure dev key, a
SQLite file in the repository root and Celery tasks run in-process. A real deployment sets
the environment (see README) and uses `config.settings_production`.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any, Literal

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from config.site import site_url

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    """The boolean in environment variable `name`; an unknown spelling is an error, not False."""
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false).")


def env_list(name: str, default: str = "") -> list[str]:
    """The comma-separated list in environment variable `name`, blanks dropped."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_proxies(name: str, default: str = "") -> list[str]:
    """The proxies in environment variable `name` (unset or empty: `default`): addresses or
    networks (`10.0.0.0/8`), or `unix` for a Unix socket; anything else is an error."""
    proxies = env_list(name) or [item.strip() for item in default.split(",") if item.strip()]
    for proxy in proxies:
        try:
            if proxy != "unix":
                ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {proxy!r} is not an address, a network (10.0.0.0/8) or 'unix'."
            ) from None
    return proxies


def env_int(name: str, default: int) -> int:
    """The whole number in environment variable `name`; anything else is an error."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None


DEBUG = env_bool("DEBUG", True)

# Only a DEBUG run may fall back to a known key: anything else must be given one.
DEV_SECRET_KEY = "django-insecure-local-demo-only-never-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set in the environment when DEBUG is off.")
    SECRET_KEY = DEV_SECRET_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "campaign",
    "battles",
    "notifications",
    "accounts",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.AccountLanguage",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "campaign.middleware.LoginRequiredRedirect",
]

ROOT_URLCONF = "config.urls"

# Content-Security-Policy, in every environment (the demo and the browser tests too, so that
# they meet any breach): scripts and styles come from our own static files only, or carry the
# response's nonce (Django's admin writes a few; `{% htmx_script %}` adds it to its tags). No
# inline script, no inline event handler, no style attribute anywhere: the site's behaviour
# is static/js/site.js, and htmx is told not to eval (templates/base.html, htmx-config).
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # csp_nonce: the nonce of the scripts and styles the admin and htmx_script write
                "django.template.context_processors.csp",
                # the header's unread badge: one count, only on pages that show it
                "notifications.context_processors.unread_notifications",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

# An empty DATABASE_URL counts as unset: the demo's SQLite file.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
}
# Test runs on one server must not share a test database: name it after the test process
# (FW_TEST_DB_NAME overrides). Only pytest-django and `manage.py test` use this name.
if "postgresql" in DATABASES["default"]["ENGINE"]:
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("FW_TEST_DB_NAME") or f"test_fwcampaign_{os.getpid()}"
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache holds the login and sign-up counters (accounts.limits). LocMemCache is one per
# process: a deployment with several web processes sets CACHE_URL to share one Redis.
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"CACHE_URL={CACHE_URL!r} is not a Redis URL (redis://host:6379/1).")
CACHES: dict[str, dict[str, Any]] = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# Accounts (the `accounts` app). With verification on, a new account is inactive until the
# link emailed to its address is followed (valid PASSWORD_RESET_TIMEOUT, three days).
ACCOUNT_EMAIL_VERIFICATION = env_bool("ACCOUNT_EMAIL_VERIFICATION", False)
# Attempts per window (seconds), counted in the cache (accounts.limits): failed logins per
# user name ("login", whoever tries) and per client address whatever the user name
# ("login_address"), sign-ups per address, reset emails per address and per email address.
# Over the limit the form answers 429 until the window ends.
ACCOUNT_RATE_LIMITS = {
    "login": {
        "attempts": env_int("ACCOUNT_LOGIN_ATTEMPTS", 10),
        "window": env_int("ACCOUNT_LOGIN_WINDOW", 15 * 60),
    },
    "login_address": {
        "attempts": env_int("ACCOUNT_LOGIN_ADDRESS_ATTEMPTS", 20),
        "window": env_int("ACCOUNT_LOGIN_ADDRESS_WINDOW", 15 * 60),
    },
    "signup": {
        "attempts": env_int("ACCOUNT_SIGNUP_ATTEMPTS", 5),
        "window": env_int("ACCOUNT_SIGNUP_WINDOW", 60 * 60),
    },
    "reset": {
        "attempts": env_int("ACCOUNT_RESET_ATTEMPTS", 5),
        "window": env_int("ACCOUNT_RESET_WINDOW", 60 * 60),
    },
}
# Behind a proxy every request comes from the proxy's address: name the header in which it
# passes the client's (X-Forwarded-For, read from the right past the trusted proxies, or
# X-Real-IP), and list the proxies trusted to write it (addresses, networks, `unix` for a
# Unix socket). From any other REMOTE_ADDR the header is ignored: a client could write it.
ACCOUNT_CLIENT_IP_HEADER = os.environ.get("ACCOUNT_CLIENT_IP_HEADER", "")
ACCOUNT_TRUSTED_PROXIES = env_proxies("ACCOUNT_TRUSTED_PROXIES")

# Internationalization
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("it", _("Italian")),
]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600  # the chosen language outlives the browser session
# sent when following a link here, never by another site's POST
LANGUAGE_COOKIE_SAMESITE: Literal["Lax"] = "Lax"
LANGUAGE_COOKIE_HTTPONLY = True  # no script reads it (static/js/site.js)
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
# English dates as in Britain (config/formats/en); every moment shown: campaign.moments
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = "UTC"
USE_TZ = True

# Static files: `collectstatic` gathers them into STATIC_ROOT for the web server to serve.
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

# Email (Django 6.1 configures it with MAILERS): printed on the console.
MAILERS: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"},
}

# Celery. No broker configured means no worker: tasks run in-process, at once (eager).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = env_bool("CELERY_TASK_EAGER_PROPAGATES", True)
if not CELERY_BROKER_URL:
    # Never fall back to Celery's default amqp://localhost: say "no broker" explicitly.
    CELERY_BROKER_URL = "memory://"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE

# Seconds a claim on a turn's resolution stands with no run at work on it before the periodic
# check (every minute, `celery beat`) gives the turn back for the GM to retry
# (campaign.turns.claims). A run at work holds the turn's row locked in PostgreSQL, so however
# long it takes it is never released; the lease only bounds how long a turn waits after its
# worker died. On SQLite (no row locks) it must also outlast the longest resolution.
TURN_CLAIM_LEASE = env_int("TURN_CLAIM_LEASE", 10 * 60)

# Uploaded battle photos are stored here and never served as files: only the view
# `battles:result-photo` reads them, after checking who is asking (config/urls.py). Keep
# MEDIA_ROOT out of the web server's and the proxy's reach.
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "media")

# Absolute links in emails (notifications) point here: SITE_URL, else the demo's own address
# (http:// + FW_DEMO_ADDR, default 127.0.0.1:8000; config/site.py).
SITE_URL = site_url(os.environ)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # Replaces Django's default handlers for "django" (which would print twice in DEBUG).
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}
