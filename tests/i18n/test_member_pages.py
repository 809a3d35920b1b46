"""A member reads only his language (issue 29). Three campaigns: the demo played through four
turns with battles and an amendment (then ended, for its end page), a three-sided campaign
with fog of war and random events, and a campaign the GM has just created on the web, in
set-up. Each is walked as each member (GM, each player, an observer) from the home page and
the campaign's pages, in Italian and in English (tests.i18n.crawl), and every e-mail they
were sent is read. Italian pages must hold no English sentence of the catalogue; no page may
show an internal id or code, a "(s)" or "/i" plural stand-in, or a hyphen for a minus sign.

Each campaign is played and walked once (the first test that asks); each test then asserts
one kind of problem in one area of the site, so that what remains to do is named by area:

- "engine": what the engine's events and dice ledger say (the turn reports, an amendment's
  replaced line), rendered by campaign/text/sentences*.py and campaign/text/ledger.py;
- "notifications": e-mails and the notifications page, written when sent;
- "pages": everything else.

`FW_CRAWL_DUMP=DIR` writes each walk's URLs and the text read, for a person to look at."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.core import mail
from django.test import Client

from campaign.models import Campaign
from tests.i18n.campaigns import demo_played, languages_set, setup_created, three_played
from tests.i18n.checks import visible_text
from tests.i18n.crawl import Checks, Problem, crawl, report

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

LIMIT = 250  # requests per member and language
KINDS = ("English left untranslated", "internal id or code", "plural stand-in", "hyphen for minus")
ENGINE = re.compile(r"/turns/\d+/(\?|$)|/amendments/\d+/replaced/")
NOTIFICATIONS = re.compile(r"^e-mail |/account/notifications/")


def area_of(where: str) -> str:
    if NOTIFICATIONS.search(where.split("] ", 1)[-1]):
        return "notifications"
    return "engine" if ENGINE.search(where) else "pages"


@pytest.fixture(autouse=True)
def _fast(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _walk(
    users: dict, slug: str, language: str, *, starts: tuple[str, ...] = (), name: str = ""
) -> list[Problem]:
    languages_set(language)
    problems: list[Problem] = []
    for role, user in users.items():
        client = Client()
        client.force_login(user)
        client.cookies["django_language"] = language
        begin = starts or ("/", f"/c/{slug}/")
        walk = crawl(client, begin, Checks(italian=language == "it"), limit=LIMIT)
        problems += [
            Problem(f"[{role} {language}] {p.url}", p.kind, p.found) for p in walk.problems
        ]
        problems += [Problem(f"[{role} {language}] {e}", "server error", []) for e in walk.errors]
        if os.environ.get("FW_CRAWL_DUMP"):  # what was read, for a person to look at
            out = Path(os.environ["FW_CRAWL_DUMP"]) / f"{name or slug}-{language}-{role}.txt"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("\n".join(walk.visited) + "\n\n" + walk.dump, encoding="utf-8")
    return problems


def _emails() -> list[Problem]:
    """Every e-mail sent, each to a member who reads Italian."""
    problems = []
    checks = Checks(italian=True)
    for n, message in enumerate(mail.outbox):
        text = f"{message.subject}\n{message.body}"
        for body, kind in getattr(message, "alternatives", []):
            if kind == "text/html":
                text += "\n" + visible_text(str(body))
        problems += checks.of(f"e-mail {n} to {', '.join(message.to)}: {message.subject!r}", text)
    return problems


def _demo(capture) -> list[Problem]:
    users = demo_played(capture)
    problems = _emails()
    problems += _walk(users, "incursion", "it") + _walk(users, "incursion", "en")
    Campaign.objects.filter(slug="incursion").update(ended="will-to-fight", winner="raiders")
    for language in ("it", "en"):
        problems += _walk(
            users, "incursion", language, starts=("/c/incursion/end/",), name="incursion-ended"
        )
    return problems


def _three(capture) -> list[Problem]:
    users = three_played(capture)
    return _emails() + _walk(users, "three", "it") + _walk(users, "three", "en")


def _setup(capture) -> list[Problem]:
    users = setup_created()
    return _walk(users, "wend", "it") + _walk(users, "wend", "en")


WALKS = {"demo": _demo, "three": _three, "setup": _setup}
_found: dict[str, list[Problem]] = {}


def problems_of(walk: str, capture) -> list[Problem]:
    """The walk's problems: walked the first time a test asks, then remembered."""
    if walk not in _found:
        mail.outbox.clear()
        _found[walk] = WALKS[walk](capture)
        if os.environ.get("FW_CRAWL_DUMP"):
            out = Path(os.environ["FW_CRAWL_DUMP"]) / f"{walk}-problems.txt"
            out.write_text(
                "\n\n".join(f"## {area_of(p.url)}\n{p}" for p in _found[walk]), encoding="utf-8"
            )
    return _found[walk]


CASES = [
    pytest.param(
        walk, area, kind, id=f"{walk}-{area}-{kind.split()[0].lower()}"
    )
    for walk in WALKS
    for area in ("pages", "engine", "notifications")
    for kind in KINDS
]  # fmt: skip


@pytest.mark.parametrize(("walk", "area", "kind"), CASES)
def test_members_read_only_their_language(walk, area, kind, django_capture_on_commit_callbacks):
    problems = problems_of(walk, django_capture_on_commit_callbacks)
    errors = [p for p in problems if p.kind == "server error"]
    assert not errors, report(errors)
    mine = [p for p in problems if p.kind == kind and area_of(p.url) == area]
    assert not mine, report(mine)
