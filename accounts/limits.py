"""How often one may try to log in, sign up or ask for a password reset: a fixed window of
attempts per counter, counted in Django's cache.

Each rule (`settings.ACCOUNT_RATE_LIMITS`: name → attempts per window of seconds) counts
per client address (`per_client`) or per name (`per_name`: a user name, an email address):
failed logins per user name (`LOGIN`) and per address whatever the name (`LOGIN_ADDRESS`),
sign-ups per address, reset emails per address and per email address. Over the limit the
client waits for the window to end; nothing else of the request is processed.

An attempt is counted before it is processed (`attempt`: the cache's atomic add/incr, then
the decision from the value the increment returned), so requests in parallel cannot all
read "under the limit" and all pass; one that turns out not to count (a successful login, a
refused sign-up) gives its count back (`Attempt.undo`).

The client's address is REMOTE_ADDR, or, when REMOTE_ADDR is one of the proxies in
`settings.ACCOUNT_TRUSTED_PROXIES`, what they say in `settings.ACCOUNT_CLIENT_IP_HEADER`:
a client never chooses the address it is counted by.

The counters live in the default cache: with the default LocMemCache each process counts on
its own, so a deployment with several processes sets CACHE_URL (Redis) to share them.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import ngettext

LOGIN = "login"  # failed logins per user name
LOGIN_ADDRESS = "login_address"  # failed logins per client address, whatever the user name
SIGNUP = "signup"
RESET = "reset"  # password reset emails asked for

UNIX_SOCKET = "unix"  # in ACCOUNT_TRUSTED_PROXIES: a request with no REMOTE_ADDR (a Unix socket)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(t, strict=False) for t in trusted if t != UNIX_SOCKET)


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped  # a dual-stack server's "::ffff:127.0.0.1"
    return address


def _trusted(text: str) -> bool:
    trusted = tuple(getattr(settings, "ACCOUNT_TRUSTED_PROXIES", ()))
    if not text:
        return UNIX_SOCKET in trusted
    address = _address(text)
    return address is not None and any(address in net for net in _networks(trusted))


def client_address(request: HttpRequest) -> str:
    """The client's address. REMOTE_ADDR, unless it is a trusted proxy and
    `settings.ACCOUNT_CLIENT_IP_HEADER` is set: then the header's addresses are read from the
    right (each added by the proxy on its right, once that one is trusted) and the first
    that is not a trusted proxy is the client; a client writes only what lies to its left."""
    remote = str(request.META.get("REMOTE_ADDR") or "")
    header = getattr(settings, "ACCOUNT_CLIENT_IP_HEADER", "")
    if not header or not _trusted(remote):
        return remote
    entries = [e.strip() for e in request.headers.get(header, "").split(",") if e.strip()]
    for entry in reversed(entries):
        if not _trusted(entry):
            return entry
    return entries[0] if entries else remote  # proxies all along: the first one asked


def _client_key(address: str) -> str:
    # An IPv6 host usually holds a whole /64: counting its addresses apart would give it
    # billions of windows.
    parsed = _address(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed) if parsed is not None else address


@dataclass(frozen=True)
class Counter:
    """One count of a rule: `scope` "client" (an address) or "name"."""

    rule: str
    scope: str
    value: str

    def keys(self) -> tuple[str, str]:
        # hashed: a user name may hold characters a cache key must not (memcached, spaces)
        digest = hashlib.sha256(self.value.encode()).hexdigest()
        base = f"accounts:limit:{self.rule}:{self.scope}:{digest}"
        return f"{base}:count", f"{base}:start"


def per_client(request: HttpRequest, rule: str) -> Counter:
    """The count of `rule` by this request's client address."""
    return Counter(rule, "client", _client_key(client_address(request)))


def per_name(rule: str, name: str) -> Counter:
    """The count of `rule` by a name, whoever asks. Folded as Django compares a reset's
    email address with the account's (NFKC, casefold), so no spelling of one account's name
    escapes its count."""
    return Counter(rule, "name", unicodedata.normalize("NFKC", name).casefold())


def _limit(rule: str) -> tuple[int, int]:
    spec = settings.ACCOUNT_RATE_LIMITS[rule]
    return int(spec["attempts"]), int(spec["window"])


def _increment(counter: Counter, window: int) -> int:
    """Add one to the counter and return its new value: atomic in Redis and LocMemCache."""
    count_key, start_key = counter.keys()
    while True:
        if cache.add(count_key, 1, timeout=window):
            count = 1
            break
        try:
            count = cache.incr(count_key)
        except ValueError:  # the window ended between the two calls: this attempt opens one
            continue
        if count == 1:
            # Django's RedisCache checks the key exists, then INCRs: when the key expired in
            # between, INCR made a new one with no expiry; give it its window.
            cache.touch(count_key, window)
        break
    if count == 1:
        cache.set(start_key, time.time(), timeout=window)
    return count


def _decrement(counter: Counter) -> None:
    count_key, _start = counter.keys()
    try:
        count = cache.decr(count_key)
    except ValueError:  # the window ended: nothing left to give back
        return
    if count < 0:  # Redis's DECR re-created a key that had just expired (see _increment)
        cache.delete(count_key)


def _wait(counter: Counter, window: int) -> int:
    _count, start_key = counter.keys()
    started = cache.get(start_key)
    if started is None:
        return window
    return max(1, math.ceil(float(started) + window - time.time()))


@dataclass(frozen=True)
class Attempt:
    """An attempt counted on its counters (`wait` 0), or refused (`wait` the seconds until
    the window of the counter over its limit ends, and nothing counted)."""

    counted: tuple[Counter, ...]
    wait: int

    def undo(self) -> None:
        """Give the counts back: the attempt turned out not to count."""
        for counter in self.counted:
            _decrement(counter)


def attempt(*counters: Counter) -> Attempt:
    """Count one attempt on each counter in turn; at the first one over its limit, give back
    what was counted and refuse. Decided from the values the increments returned, never
    from a read before a write, so that of requests in parallel at most the limit pass."""
    counted: list[Counter] = []
    for counter in counters:
        attempts, window = _limit(counter.rule)
        count = _increment(counter, window)
        counted.append(counter)
        if count > attempts:
            Attempt(tuple(counted), 0).undo()
            return Attempt((), _wait(counter, window))
    return Attempt(tuple(counted), 0)


def too_many_message(seconds: int) -> str:
    """What the form says to a client over the limit."""
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many attempts. Try again in %(n)d minute.",
        "Too many attempts. Try again in %(n)d minutes.",
        minutes,
    ) % {"n": minutes}
