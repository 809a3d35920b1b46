"""Fixtures shared by every test package. pytest-django reads its settings module from
pyproject.toml; the pure rules tests under tests/rules never touch the database.

`cast` is the permission cast every view test uses (architecture.md): on the demo campaign
with fog of war on, the GM, the raiders' player (side A), the defenders' player (side B), an
observer, an outsider (logged in, not a member) and an anonymous visitor."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from campaign.models import Campaign, Membership
from campaign.setup.invitations import membership_add, user_get_or_create


@pytest.fixture(autouse=True)
def celery_eager(request):
    """Tasks run in-process in tests, their errors raised, except those marked `celery`, which
    test a real worker and broker. (With a broker configured, the settings would send every
    task to it.)"""
    from config.celery import app

    if request.node.get_closest_marker("celery"):
        yield
        return
    conf = app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


@pytest.fixture(autouse=True)
def cache_clear():
    """Each test starts with an empty cache: the login and sign-up limits count in it
    (accounts.limits), and the default LocMemCache outlives a test."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def language_reset():
    """Each test ends in the default language: a request in Italian leaves Italian active in
    its thread (the test client runs it in the test's own), and the next test would read it."""
    from django.conf import settings
    from django.utils import timezone, translation

    yield
    translation.activate(settings.LANGUAGE_CODE)
    timezone.deactivate()  # and on the server's clock: a request leaves its reader's zone


CAST = ("gm", "side_a", "side_b", "observer", "outsider", "staff", "anonymous")


@dataclass
class Cast:
    campaign: Campaign
    users: dict  # role → user (None for anonymous)

    def client(self, who: str) -> Client:
        c = Client()
        user = self.users[who]
        if user is not None:
            c.force_login(user)
        return c


@pytest.fixture
def cast(db, settings) -> Cast:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("load_demo", stdout=StringIO())
    campaign = Campaign.objects.get(slug="incursion")
    campaign.fog_of_war = True
    campaign.save(update_fields=["fog_of_war"])
    observer = user_get_or_create(username="olive", password="olive-pass-1")
    membership_add(campaign=campaign, user=observer, role=Membership.Role.OBSERVER)
    outsider = user_get_or_create(username="oscar", password="oscar-pass-1")
    # staff and superuser, a member of nothing: GM powers come from membership only
    staff = user_get_or_create(username="stella", password="stella-pass-1")
    staff.is_staff = staff.is_superuser = True
    staff.save(update_fields=["is_staff", "is_superuser"])
    by_name = {m.user.username: m.user for m in campaign.memberships.select_related("user")}
    return Cast(
        campaign,
        {
            "gm": by_name["gm"],
            "side_a": by_name["raider"],
            "side_b": by_name["defender"],
            "observer": observer,
            "outsider": outsider,
            "staff": staff,
            "anonymous": None,
        },
    )
