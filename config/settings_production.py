"""Production settings: `config.settings` with DEBUG off and HTTPS enforced.

Run behind a TLS-terminating proxy that sets `X-Forwarded-Proto`. SECRET_KEY and
ALLOWED_HOSTS must come from the environment; `manage.py check --deploy` passes clean.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from .settings import *  # noqa: F403
from .settings import env_bool, env_int, env_list, env_proxies

DEBUG = False

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set in the environment in production.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured(
        "ALLOWED_HOSTS must be set in the environment in production (e.g. example.org)."
    )

# The proxy terminates TLS; trust its header only because it overwrites the client's.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True
# The proxy appends the client's address to X-Forwarded-For: the login, sign-up and reset
# limits count per client (accounts.limits), not per proxy. The header is believed only from
# ACCOUNT_TRUSTED_PROXIES, by default a proxy on this machine (loopback or a Unix socket):
# a proxy elsewhere must be listed (ACCOUNT_TRUSTED_PROXIES=10.0.0.5), else every client
# counts as the proxy. With several web processes, set CACHE_URL too, or each counts apart.
ACCOUNT_CLIENT_IP_HEADER = os.environ.get("ACCOUNT_CLIENT_IP_HEADER") or "X-Forwarded-For"
ACCOUNT_TRUSTED_PROXIES = env_proxies("ACCOUNT_TRUSTED_PROXIES", "127.0.0.1,::1,unix")
# HSTS is sticky in browsers: lower SECURE_HSTS_SECONDS while first trying a deployment.
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True

# Email through SMTP (the console mailer of the base settings sends nothing).
MAILERS = {
    "default": {
        "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "OPTIONS": {
            "host": os.environ.get("EMAIL_HOST", "localhost"),
            "port": int(os.environ["EMAIL_PORT"]) if os.environ.get("EMAIL_PORT") else None,
            "username": os.environ.get("EMAIL_HOST_USER") or None,
            "password": os.environ.get("EMAIL_HOST_PASSWORD") or None,
            "use_tls": env_bool("EMAIL_USE_TLS", False),
        },
    },
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "webmaster@localhost")
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", DEFAULT_FROM_EMAIL)

# A sync worker serves one request at a time: keeping its database connection saves a
# connection (and a PostgreSQL backend started) per request; health checks drop a dead one.
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "60"))  # noqa: F405

# A web or worker machine that vanishes mid-transaction (power, network) keeps its row locks
# until PostgreSQL notices the dead connection: with the kernel's TCP keepalive, after about
# two hours. Probing after DATABASE_KEEPALIVES_IDLE seconds of silence, then every _INTERVAL,
# giving up after _COUNT unanswered ones, notices it in 60 + 10 × 6 = 120 s. Both ends: the
# server's probes (tcp_keepalives_*, set for the session through libpq's `options`) end the
# vanished client's session and free its locks; libpq's own (keepalives_*) let a worker
# notice a vanished server instead of waiting as long. DATABASE_KEEPALIVES_IDLE=0: neither
# (e.g. a pooler that refuses the `options` startup parameter).
_KEEPALIVE = (
    env_int("DATABASE_KEEPALIVES_IDLE", 60),
    env_int("DATABASE_KEEPALIVES_INTERVAL", 10),
    env_int("DATABASE_KEEPALIVES_COUNT", 6),
)
if "postgresql" in DATABASES["default"]["ENGINE"] and _KEEPALIVE[0] > 0:  # noqa: F405
    _options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
    _idle, _interval, _count = _KEEPALIVE
    _options.update(
        keepalives=1, keepalives_idle=_idle, keepalives_interval=_interval, keepalives_count=_count
    )
    _server = (
        f"-c tcp_keepalives_idle={_idle} -c tcp_keepalives_interval={_interval} "
        f"-c tcp_keepalives_count={_count}"
    )
    _options["options"] = " ".join(filter(None, [_options.get("options", ""), _server]))
