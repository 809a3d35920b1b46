"""Benchmark: players at once saving orders and opening the map, through gunicorn.

    ./run lint                           # or any ./run: .venv with gunicorn (the prod group)
    createdb -h 127.0.0.1 -U postgres fwbench_load
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/fwbench_load
    .venv/bin/python manage.py migrate
    .venv/bin/python bench/load.py --forces 240 --players 6 --workers 2 --seconds 30

Creates a generated campaign (a unique `bench-…` slug) in the configured database, fog of
war on, every player's generated orders saved (unconfirmed), a throw-away user a player, and
serves it with gunicorn on a free port of 127.0.0.1 (`--workers`; `config.settings_production`
with a throw-away SECRET_KEY, requests carrying `X-Forwarded-Proto: https` as from the TLS
proxy; no static files; tasks queue in memory). `--clients-per-player` clients a player log
in by the login form, open the orders page and the map, then loop in threads: save one of
their forces' orders (the editor's htmx POST, the form bench/pages.py posts; each client
cycles through `--forces-per-client` of its player's forces, each saved again and again) and
loads the map, until `--requests` in all or `--seconds`.

Each save writes the client's next counter as the force's retreat preference (two squares,
§8.4), and is acknowledged by a 200 with the editor's "Saved" note. Afterwards each force
must hold its last acknowledged counter (or a later one whose answer never came:
`unacknowledged_stored`), every other force its generated orders, and each player have one
Orders row for the turn: `lost` counts the forces that do not, `duplicated` the rows beyond
one a player (the unique constraint should keep it 0). With `--clients-per-player 2`, one
player's clients save different forces of one row at once: a lost update would show.

The JSON gives per kind (save, map) the count, requests/s, latency p50/p90/p99/max in ms (of
the requests that did their work), errors (no answer, non-2xx, a save without its note) with
samples; the CPU time over the run of gunicorn's master and workers (/proc, reaped workers
included), in all and per request, of a local PostgreSQL server (all of it: anyone else's
queries too) and of this process (the clients, on the same cores); the load average. gunicorn
is stopped, the campaign, its users and sessions deleted, on an error too. Loopback only;
use a scratch database (it writes real rows).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import importlib.util
import json
import math
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlencode

# tasks queue in this process as for a worker, never run inline nor reach a real broker
os.environ["CELERY_BROKER_URL"] = "memory://"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.contrib.sessions.models import Session  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Count  # noqa: E402
from django.urls import reverse  # noqa: E402

from bench._common import (  # noqa: E402
    campaign_arguments,
    campaign_figures,
    force_post_data,
    orders_submit_generated,
    state_generate,
)
from campaign.adapters import orders_from_data  # noqa: E402
from campaign.models import Campaign, Membership, Orders, Turn  # noqa: E402
from campaign.orders.forms import squares_format  # noqa: E402
from campaign.selectors import turn_current  # noqa: E402
from campaign.setup.invitations import membership_add  # noqa: E402
from campaign.setup.services import campaign_create, campaign_delete  # noqa: E402
from rules.types import CampaignState  # noqa: E402

HOST = "127.0.0.1"
SAVED = 'class="notice notice-ok"'  # the editor's "Saved" note: only a save writes it
CSRF_FORM = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
CSRF_HTMX = re.compile(r'"x-csrftoken": "([^"]+)"')  # the body's hx-headers (base.html)
SAMPLES = 5  # error messages kept per kind
Form = dict[str, str]  # a form's fields, or headers


class LoadError(Exception):
    """The bench could not set up what it measures."""


# --- HTTP, as a browser behind the TLS proxy ----------------------------------------------


class Answer(NamedTuple):
    status: int
    body: str


class Browser:
    """One browser: its cookies, one connection a request (gunicorn's sync workers close
    each), and the headers the proxy adds (the production settings redirect plain HTTP)."""

    def __init__(self, port: int, timeout: float) -> None:
        self.port = port
        self.timeout = timeout
        self.origin = f"https://{HOST}:{port}"
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, form: Form | None = None, headers: Form | None = None
    ) -> Answer:
        h = {"X-Forwarded-Proto": "https", "X-Forwarded-For": HOST, "Accept-Language": "en"}
        if self.cookies:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form).encode()
            h["Content-Type"] = "application/x-www-form-urlencoded"
            h["Origin"] = self.origin  # Django's CSRF check of a secure request
        h.update(headers or {})
        conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=body, headers=h)
            r = conn.getresponse()
            data = r.read()
            self._cookies_keep(r.headers.get_all("Set-Cookie") or [])
            return Answer(r.status, data.decode("utf-8", "replace"))
        finally:
            conn.close()

    def _cookies_keep(self, raw: list[str]) -> None:
        # the Secure flag is the proxy's business: this side of it is plain HTTP
        for line in raw:
            jar: SimpleCookie = SimpleCookie()
            jar.load(line)
            for name, morsel in jar.items():
                if morsel.value and morsel["max-age"] != "0":
                    self.cookies[name] = morsel.value
                else:
                    self.cookies.pop(name, None)

    def token(self, url: str, pattern: re.Pattern[str]) -> str:
        """Open a page and return its CSRF token, as `pattern` finds it."""
        page = self.request("GET", url)
        found = pattern.search(page.body)
        if page.status != 200 or found is None:
            raise LoadError(f"{url}: {page.status}, CSRF token found: {found is not None}")
        return found[1]

    def login(self, username: str, password: str) -> None:
        """The login form: its page (the CSRF cookie and token), then its POST."""
        url = str(settings.LOGIN_URL)
        token = self.token(url, CSRF_FORM)
        answer = self.request(
            "POST", url, {"username": username, "password": password, "csrfmiddlewaretoken": token}
        )
        if answer.status != 302 or "sessionid" not in self.cookies:
            raise LoadError(f"login of {username}: {answer.status} {answer.body[:200]!r}")


def marker_squares(n: int, width: int, height: int) -> str:
    """Counter `n` as two squares of the map: its two digits in base width * height."""
    base = width * height
    if not 0 <= n < base * base:
        raise LoadError(f"save counter {n} does not fit in two squares of a {width}x{height} map")
    return squares_format((d % width, d // width) for d in divmod(n, base))


def marker_value(squares: tuple[tuple[int, int], ...], width: int, height: int) -> int | None:
    """The counter `marker_squares` wrote, or None for retreat squares it did not write."""
    if len(squares) != 2:
        return None
    high, low = (y * width + x for x, y in squares)
    return high * width * height + low


# --- the clients ---------------------------------------------------------------------------


@dataclass
class Kind:
    """One kind of request, as one client saw it."""

    latencies: list[float] = field(default_factory=list)  # ms, of the requests that did it
    errors: int = 0
    samples: list[str] = field(default_factory=list)

    def error(self, message: str) -> None:
        self.errors += 1
        if len(self.samples) < SAMPLES:
            self.samples.append(message)


@dataclass
class Budget:
    """The requests left and the moment to stop, shared by the clients."""

    left: int
    until: float = math.inf
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> bool:
        with self.lock:
            go = self.left > 0 and time.perf_counter() < self.until
            self.left -= go
            return go


@dataclass
class Seat:
    """A player's login and the forces one of his clients saves (with their editor's form)."""

    username: str
    password: str
    player_pk: int
    player_key: str
    forces: list[tuple[str, Form]]


@dataclass
class LoadClient:
    """One browser of a player, and what the server told it was saved."""

    seat: Seat
    browser: Browser
    slug: str
    size: tuple[int, int]  # the map's width and height: the counter's squares
    csrf: str = ""
    counter: int = 0  # the saves sent
    acked: dict[str, int] = field(default_factory=dict)  # force → its last acknowledged save
    unacked: dict[str, set[int]] = field(default_factory=dict)  # sent since, no answer
    kinds: dict[str, Kind] = field(default_factory=lambda: {"save": Kind(), "map": Kind()})

    def prepare(self) -> None:
        """Log in, open the orders page (the CSRF token of its htmx posts), open the map."""
        self.browser.login(self.seat.username, self.seat.password)
        self.csrf = self.browser.token(reverse("campaign:orders", args=[self.slug]), CSRF_HTMX)
        answer = self.browser.request("GET", reverse("campaign:map", args=[self.slug]))
        if answer.status != 200:
            raise LoadError(f"map of {self.seat.username}: {answer.status}")

    def run(self, budget: Budget) -> None:
        while budget.take():
            self.save()
            if budget.take():
                self.load_map()

    def _send(
        self, kind: str, url: str, form: Form | None = None, headers: Form | None = None
    ) -> bool:
        """Whether the request did its work (a 2xx; a save's with the Saved note): its
        latency kept, or its failure counted."""
        method = "GET" if form is None else "POST"
        t0 = time.perf_counter()
        try:
            answer = self.browser.request(method, url, form, headers)
        except Exception as e:  # any failure of the request is one of its errors
            self.kinds[kind].error(f"{type(e).__name__}: {e}")
            return False
        ms = (time.perf_counter() - t0) * 1000
        if not 200 <= answer.status < 300:
            self.kinds[kind].error(f"{answer.status} {method} {url}: {answer.body[:160]!r}")
            return False
        if kind == "save" and SAVED not in answer.body:
            self.kinds[kind].error(f"{answer.status} without the Saved note: {url}")
            return False
        self.kinds[kind].latencies.append(ms)
        return True

    def save(self) -> None:
        """The editor's htmx POST for the next force, its retreat squares the next counter."""
        key, form = self.seat.forces[self.counter % len(self.seat.forces)]
        self.counter += 1
        n = self.counter
        headers = {
            "HX-Request": "true",
            "HX-Target": f"orders-force-{key}",
            "HX-Current-URL": self.browser.origin + reverse("campaign:orders", args=[self.slug]),
            "X-CSRFToken": self.csrf,
        }
        self.unacked.setdefault(key, set()).add(n)
        data = {**form, "retreat_squares": marker_squares(n, *self.size)}
        url = reverse("campaign:orders-force", args=[self.slug, key])
        if self._send("save", url, data, headers):
            self.acked[key] = n
            self.unacked[key].clear()  # older ones, overwritten by this one if they landed

    def load_map(self) -> None:
        self._send("map", reverse("campaign:map", args=[self.slug]))


def clients_prepare(clients: list[LoadClient]) -> None:
    """Every client logs in and opens its pages, all at once: each worker warms up."""
    with ThreadPoolExecutor(len(clients)) as pool:
        futures = [pool.submit(c.prepare) for c in clients]
    failures = [str(e) for f in futures if (e := f.exception()) is not None]
    if failures:
        raise LoadError("; ".join(failures))


# --- gunicorn --------------------------------------------------------------------------------


def log_tail(log: Path, lines: int = 20) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def server_start(workers: int, port: int, log: Path) -> subprocess.Popen[bytes]:
    """gunicorn with the production settings and a throw-away key, in a session of its own."""
    if importlib.util.find_spec("gunicorn") is None:
        raise LoadError("gunicorn is missing: uv sync --frozen --group prod")
    env = os.environ | {"DJANGO_SETTINGS_MODULE": "config.settings_production", "DEBUG": "0"}
    env |= {"SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": HOST}
    env |= {"CELERY_BROKER_URL": "memory://", "LOG_LEVEL": "WARNING"}
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application"]
    command += ["--bind", f"{HOST}:{port}", "--workers", str(workers)]
    with log.open("wb") as out:
        return subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def server_wait(proc: subprocess.Popen[bytes], port: int, log: Path, seconds: float) -> None:
    """Until the login page answers 200."""
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        if proc.poll() is not None:
            raise LoadError(f"gunicorn exited with {proc.returncode}:\n{log_tail(log)}")
        with contextlib.suppress(OSError):
            if Browser(port, 5).request("GET", str(settings.LOGIN_URL)).status == 200:
                return
        time.sleep(0.2)
    raise LoadError(f"gunicorn did not answer in {seconds} s:\n{log_tail(log)}")


def server_stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the workers finish their requests); SIGKILL to its process group if it stays."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:  # not reaped yet: its group is still its own
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def tree_cpu_ms(master: int) -> tuple[float, list[int]]:
    """CPU time (user + system) of a server in ms: its main process's, its live children's
    and the reaped ones' (a worker replaced, a connection's backend ended); and the children."""
    ticks = 0
    workers = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            raw = Path(entry.path, "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        f = raw[raw.rindex(")") + 2 :].split()  # after "pid (comm) ": f[0] is field 3
        pid, ppid = int(entry.name), int(f[1])
        if pid == master:
            ticks += sum(int(x) for x in f[11:15])  # utime, stime, cutime, cstime
        elif ppid == master:
            ticks += int(f[11]) + int(f[12])
            workers.append(pid)
    return ticks * 1000 / os.sysconf("SC_CLK_TCK"), sorted(workers)


def postmaster() -> int | None:
    """The PostgreSQL server's main process, when it runs on this host (and /proc shows it)."""
    if connection.vendor != "postgresql" or connection.settings_dict["HOST"] != HOST:
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return None


def percentile(ordered: list[float], q: float) -> float | None:
    # nearest rank: the smallest value with at least q % of them at or below it
    if not ordered:
        return None
    return round(ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)], 1)


def kind_figures(kinds: list[Kind], wall_s: float) -> dict[str, Any]:
    ordered = sorted(x for k in kinds for x in k.latencies)
    errors = sum(k.errors for k in kinds)
    return {
        "count": len(ordered) + errors,
        "per_s": round((len(ordered) + errors) / wall_s, 2),
        "latency_ms": {f"p{q}": percentile(ordered, q) for q in (50, 90, 99)}
        | {"max": percentile(ordered, 100)},
        "errors": errors,
        "error_samples": [s for k in kinds for s in k.samples][:SAMPLES],
    }


def load_run(a: argparse.Namespace, master: int, clients: list[LoadClient]) -> dict[str, Any]:
    """The clients at once, until the budget is spent; with the server's CPU time over it."""
    budget = Budget(a.requests)
    threads = [threading.Thread(target=c.run, args=(budget,), daemon=True) for c in clients]
    pg = postmaster()
    cpu0, workers0 = tree_cpu_ms(master)
    pg0 = tree_cpu_ms(pg)[0] if pg else 0.0
    own0, t0 = time.process_time(), time.perf_counter()
    budget.until = t0 + a.seconds
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        budget.left = 0  # an interrupt stops the clients too
    wall = time.perf_counter() - t0
    own = (time.process_time() - own0) * 1000
    cpu1, workers1 = tree_cpu_ms(master)
    pg1 = tree_cpu_ms(pg)[0] if pg else 0.0
    kinds = {k: kind_figures([c.kinds[k] for c in clients], wall) for k in ("save", "map")}
    done = sum(k["count"] for k in kinds.values())
    return {
        "wall_s": round(wall, 2),
        "requests": kinds,
        "server_cpu": {
            "ms": round(cpu1 - cpu0),
            "per_request_ms": round((cpu1 - cpu0) / max(1, done), 1),
            "cores_busy": round((cpu1 - cpu0) / 1000 / wall, 2),
            "workers_replaced": sorted(set(workers0) - set(workers1)),
        },
        # the whole server's, anyone else's queries too (None: not on this host)
        "postgres_cpu_ms": round(pg1 - pg0) if pg else None,
        "bench_process_cpu_ms": round(own),  # the clients, on the same cores
    }


def saves_check(
    turn: Turn, clients: list[LoadClient], before: dict[int, dict[str, Any]]
) -> dict[str, int]:
    """Whether the database holds every force's last acknowledged save, the other forces'
    orders as they were (every force of every player), and one Orders row a player."""
    rows = Orders.objects.filter(turn=turn).select_related("player")
    counts = list(rows.values("player").annotate(n=Count("id")).values_list("n", flat=True))
    stored = {row.player_id: row for row in rows}
    acked: dict[tuple[int, str], int] = {}  # (player, force) → its last acknowledged counter
    unacked: dict[tuple[int, str], set[int]] = {}
    for c in clients:
        acked |= {(c.seat.player_pk, k): n for k, n in c.acked.items()}
        unacked |= {(c.seat.player_pk, k): sent for k, sent in c.unacked.items()}
    lost = unacknowledged_stored = 0
    for pk, was in before.items():
        row = stored.get(pk)
        data = row.data if row is not None else {}
        orders = orders_from_data(row.player.key if row else "", data)
        for key, saved in (was.get("forces") or {}).items():
            fo = orders.for_force(key)
            got = None if fo is None else marker_value(fo.retreat_squares, *clients[0].size)
            if got is not None and got == acked.get((pk, key)):
                continue
            if got is not None and got in unacked.get((pk, key), set()):
                unacknowledged_stored += 1  # done, though its answer never came back
            elif (pk, key) in acked or (data.get("forces") or {}).get(key) != saved:
                lost += 1  # its last acknowledged save is not there, or it changed unasked
    return {
        "acknowledged": sum(len(c.kinds["save"].latencies) for c in clients),
        "forces_saved": len(acked),
        "lost": lost,
        "duplicated": sum(n - 1 for n in counts),
        "unacknowledged_stored": unacknowledged_stored,
        "orders_rows": sum(counts),
    }


def seats_make(a: argparse.Namespace, campaign: Campaign, turn: Turn) -> list[Seat]:
    """A user for each player (`<slug>-<player>`), one password hashed once, and his forces
    shared among his `--clients-per-player` clients."""
    User = get_user_model()
    password = secrets.token_urlsafe(16)
    hashed = make_password(password)
    seats = []
    for player in campaign.players.order_by("position"):
        user = User.objects.create(username=f"{campaign.slug}-{player.key}", password=hashed)
        membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
        orders = Orders.objects.select_related("player").get(turn=turn, player=player)
        keys = sorted((orders.data or {}).get("forces") or {})
        for i in range(a.clients_per_player):
            mine = keys[i :: a.clients_per_player][: a.forces_per_client or None]
            forces = [(k, force_post_data(orders, k)) for k in mine]
            if forces:
                seats.append(Seat(user.username, password, player.pk, player.key, forces))
    return seats


def measure(
    a: argparse.Namespace, state: CampaignState, campaign: Campaign, clients: list[LoadClient]
) -> dict[str, Any]:
    """Orders saved, the users and the clients (into `clients`) made, gunicorn up (and
    stopped), the clients' run, the check."""
    turn = turn_current(campaign=campaign)
    orders_submit_generated(campaign=campaign, state=state, turn=turn, seed=a.seed, confirm=False)
    seats = seats_make(a, campaign, turn)
    before = {o.player_id: o.data for o in Orders.objects.filter(turn=turn)}
    size = (state.map.width, state.map.height)
    with socket.socket() as sock:  # a free port
        sock.bind((HOST, 0))
        port = int(sock.getsockname()[1])
    clients += [LoadClient(s, Browser(port, a.timeout), campaign.slug, size) for s in seats]
    with tempfile.TemporaryDirectory(prefix="fw-load-") as tmp:
        log = Path(tmp, "gunicorn.log")
        proc = server_start(a.workers, port, log)
        try:
            server_wait(proc, port, log, 120)
            clients_prepare(clients)
            figures = load_run(a, proc.pid, clients)
        finally:
            server_stop(proc)
        if any(figures["requests"][k]["errors"] for k in ("save", "map")):
            figures["server_log_tail"] = log_tail(log).splitlines()
    return figures | {"saves": saves_check(turn, clients, before)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    campaign_arguments(p, runs=None)
    p.set_defaults(players=6)
    p.add_argument("--workers", type=int, default=2, help="gunicorn's workers")
    p.add_argument("--clients-per-player", type=int, default=1)
    p.add_argument("--forces-per-client", type=int, default=4, help="cycled through (0: all)")
    p.add_argument("--seconds", type=float, default=30, help="at most this long")
    p.add_argument("--requests", type=int, default=100_000, help="at most this many, in all")
    p.add_argument("--timeout", type=float, default=60, help="seconds one request may take")
    a = p.parse_args(argv)
    # a SIGTERM unwinds as an exit does: the finally blocks stop gunicorn and delete the rows
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    state = state_generate(a)
    tag = uuid.uuid4().hex[:12]
    campaign = None
    clients: list[LoadClient] = []
    try:
        campaign = campaign_create(
            slug=f"bench-{tag}", name=f"Benchmark {tag}", state=state, fog_of_war=True
        )
        host = campaign_figures(a, state)  # the load average before the run
        figures = measure(a, state, campaign, clients)
        out = {
            "database": connection.vendor,
            **host,
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "fog_of_war": True,
            "gunicorn": {"version": metadata.version("gunicorn"), "workers": a.workers},
            "conn_max_age": int(os.environ.get("CONN_MAX_AGE", "60")),  # production settings
            "clients": len(clients),
            "clients_per_player": a.clients_per_player,
            "forces_per_client": a.forces_per_client,
            "limits": {"seconds": a.seconds, "requests": a.requests},
            **figures,
            "lost": figures["saves"]["lost"],
            "duplicated": figures["saves"]["duplicated"],
        }
        print(json.dumps(out, indent=2))
    except LoadError as e:
        print(f"bench/load.py: {e}", file=sys.stderr)
        return 1
    finally:
        sessions = [c.browser.cookies.get("sessionid", "") for c in clients]
        Session.objects.filter(session_key__in=sessions).delete()
        if campaign is not None:
            campaign_delete(campaign=campaign)
            get_user_model().objects.filter(username__startswith=f"{campaign.slug}-").delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
