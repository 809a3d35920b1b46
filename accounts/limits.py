"""How often one client may try to log in or sign up: a fixed window per client, counted in
Django's cache.

Each limit (`settings.ACCOUNT_RATE_LIMITS`: name → attempts per window of seconds) counts
what its caller records: failed logins per client address and user name, sign-ups per client
address. Once the count reaches the limit, the client waits for the window to end; nothing
else of the request is processed.

The counters live in the default cache: with the default LocMemCache each process counts on
its own, so a deployment with several processes sets CACHE_URL (Redis) to share them.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import ngettext

LOGIN = "login"
SIGNUP = "signup"
RESET = "reset"  # password reset emails asked for


def client_address(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or behind a proxy the header it sets
    (`settings.ACCOUNT_CLIENT_IP_HEADER`; of a list such as X-Forwarded-For the last
    address, the one the nearest proxy added, since the client can write the others)."""
    header = getattr(settings, "ACCOUNT_CLIENT_IP_HEADER", "")
    if header:
        value = request.headers.get(header, "")
        last = value.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return str(request.META.get("REMOTE_ADDR", ""))


def _keys(name: str, parts: tuple[str, ...]) -> tuple[str, str]:
    # hashed: a user name may hold characters a cache key must not (memcached, spaces)
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()
    base = f"accounts:limit:{name}:{digest}"
    return f"{base}:count", f"{base}:start"


def _limit(name: str) -> tuple[int, int]:
    rule = settings.ACCOUNT_RATE_LIMITS[name]
    return int(rule["attempts"]), int(rule["window"])


def _parts(request: HttpRequest, extra: tuple[str, ...]) -> tuple[str, ...]:
    return (client_address(request), *(part.casefold() for part in extra))


def wait_seconds(request: HttpRequest, name: str, *extra: str) -> int:
    """How long this client must wait before trying `name` again; 0 when it may now.
    `extra` narrows the count (the user name, for logins)."""
    attempts, window = _limit(name)
    count_key, start_key = _keys(name, _parts(request, extra))
    found = cache.get_many([count_key, start_key])
    if int(found.get(count_key, 0)) < attempts:
        return 0
    started = float(found.get(start_key, time.time()))
    return max(1, math.ceil(started + window - time.time()))


def record(request: HttpRequest, name: str, *extra: str) -> None:
    """Count one attempt of `name` by this client; the first one opens the window."""
    _attempts, window = _limit(name)
    count_key, start_key = _keys(name, _parts(request, extra))
    cache.add(start_key, time.time(), timeout=window)
    if cache.add(count_key, 1, timeout=window):
        return
    try:
        cache.incr(count_key)
    except ValueError:  # the window ended between the two calls: this attempt opens one
        cache.set(count_key, 1, timeout=window)


def too_many_message(seconds: int) -> str:
    """What the form says to a client over the limit."""
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many attempts. Try again in %(n)d minute.",
        "Too many attempts. Try again in %(n)d minutes.",
        minutes,
    ) % {"n": minutes}
