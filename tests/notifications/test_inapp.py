"""Notifications on the site: every notice is a row the user reads in his list whatever became
of its email (opted out, no address), the header's badge counts the unread ones in one query,
opening a notice marks it read and goes to its page on this site, "mark all as read", the
list's pages, and nobody reaches another user's notices."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from battles.models import Battle
from battles.services import battle_result_record
from campaign.adapters import state_current
from campaign.models import Force, Orders, Turn
from campaign.selectors import turn_current
from campaign.turns.services import turn_close, turn_open, turn_resolve, turn_resolve_after_battles
from notifications import services as notices
from notifications.context_processors import unread_notifications
from notifications.models import Kind, Notification, NotificationPreference
from tests.campaign.conftest import battle_result_data

pytestmark = pytest.mark.django_db

LIST = "/account/notifications/"
ORDERS = "/c/incursion/orders/"


@pytest.fixture
def turn(cast) -> Turn:
    return turn_current(campaign=cast.campaign)


def _notice(user, turn, n: int = 0, **fields) -> Notification:
    defaults = {
        "campaign_id": turn.campaign_id,
        "kind": Kind.TURN_OPENED,
        "subject": f"Notice {n}",
        "body": f"The body of notice {n}.",
        "url": f"http://127.0.0.1:8000{ORDERS}",
        "status": Notification.Status.SENT,
    }
    return Notification.objects.create(user=user, turn=turn, key=f"k{n}", **{**defaults, **fields})


def _unread(user) -> int:
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


# --- a notice for every kind, emailed or not ---------------------------------------------------


def test_every_kind_of_notice_is_on_the_site_even_when_no_email_went(cast, turn, mailoutbox):
    """The raider turned every email off, the defender has no address: neither gets mail,
    both get each notice meant for them, unread, in their list."""
    raider, defender = cast.users["side_a"], cast.users["side_b"]
    notices.preference_set(user=raider, kind=NotificationPreference.ALL, enabled=False)
    defender.email = ""
    defender.save(update_fields=["email"])
    campaign = cast.campaign

    turn_open(turn=turn, deadline=timezone.now() + timedelta(days=3), timezone="UTC")
    notices.notify_turn_opened(turn_id=turn.pk)
    Turn.objects.filter(pk=turn.pk).update(
        opened_at=timezone.now() - timedelta(days=3),
        deadline=timezone.now() + timedelta(hours=20),
    )
    notices.notify_reminders_due()
    # the Southern March waits on the Red Riders' path (a battle); the defenders give no orders
    Force.objects.filter(campaign=campaign, key="d3").update(x=4, y=8)
    Orders.objects.filter(turn=turn, player__key="defenders").delete()
    turn_close(turn=Turn.objects.get(pk=turn.pk), seed=7)
    turn_resolve(turn_id=turn.pk)
    [battle] = Battle.objects.filter(turn=turn)
    notices.notify_battle(battle_id=battle.pk)
    notices.notify_missing_orders(turn_id=turn.pk)
    data = battle_result_data(state_current(campaign=campaign), battle.key)
    battle_result_record(battle=battle, data=data)
    turn_resolve_after_battles(turn_id=turn.pk)
    notices.notify_turn_resolved(turn_id=turn.pk)

    def kinds(user) -> dict[str, str]:
        return dict(Notification.objects.filter(user=user).values_list("kind", "status"))

    opted_out, no_email = Notification.Status.SKIPPED_OPT_OUT, Notification.Status.SKIPPED_NO_EMAIL
    assert kinds(raider) == {
        Kind.TURN_OPENED: opted_out,
        Kind.REMINDER: opted_out,
        Kind.BATTLE: opted_out,
        Kind.TURN_RESOLVED: opted_out,
    }
    assert kinds(defender) == {
        Kind.TURN_OPENED: no_email,
        Kind.REMINDER: no_email,
        Kind.BATTLE: no_email,
        Kind.MISSING_ORDERS: no_email,
        Kind.TURN_RESOLVED: no_email,
    }
    assert not [m for m in mailoutbox if {"raider@example.org", ""} & set(m.to)]
    assert _unread(raider) == 4 and _unread(defender) == 5

    page = cast.client("side_b").get(LIST).content.decode()
    for n in Notification.objects.filter(user=defender):
        assert n.subject in page
    assert page.count('class="card notification unread"') == 5
    assert "Email: Not sent: no email address" in page
    assert "Notifications, 5 unread" in page


# --- the badge ---------------------------------------------------------------------------------


def test_the_badge_counts_the_unread_in_one_query(cast, turn, django_assert_max_num_queries):
    user = cast.users["side_a"]
    for n in range(3):
        _notice(user, turn, n)
    _notice(user, turn, 9, read_at=timezone.now())
    _notice(cast.users["side_b"], turn, 10)  # someone else's
    request = RequestFactory().get("/")
    request.user = user

    context = unread_notifications(request)
    with django_assert_max_num_queries(1):
        assert context["unread_notifications"].count == 3
        assert context["unread_notifications"].count == 3  # asked twice, counted once


def test_no_query_for_an_anonymous_visitor(django_assert_num_queries):
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    with django_assert_num_queries(0):
        assert unread_notifications(request) == {}


def _badge_queries(client, url: str, **headers) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, headers=headers)
    assert response.status_code in (200, 286)  # 286: a settled panel, htmx stops polling
    return [
        q["sql"]
        for q in queries.captured_queries
        if "notifications_notification" in q["sql"]
        and "COUNT" in q["sql"].upper()
        and '"read_at" IS NULL' in q["sql"]
    ]


def test_a_page_counts_once_and_an_htmx_fragment_never(cast, turn):
    _notice(cast.users["gm"], turn)
    client = cast.client("gm")
    assert len(_badge_queries(client, "/c/incursion/")) == 1
    # the header and the "mark all as read" button share it (the list's own count is another)
    assert len(_badge_queries(client, LIST)) == 1
    assert _badge_queries(client, "/c/incursion/turn/status/", hx_request="true") == []


def test_the_header_shows_the_badge_with_its_label(cast, turn):
    user = cast.users["side_a"]
    client = cast.client("side_a")

    html = client.get("/").content.decode()
    assert f'<a class="nav-notifications" href="{LIST}">Notifications</a>' in html
    assert "nav-badge" not in html

    _notice(user, turn, 1)
    html = client.get("/").content.decode()
    assert 'aria-label="Notifications, 1 unread"' in html
    assert '<span class="nav-badge" aria-hidden="true">1</span>' in html

    _notice(user, turn, 2)
    _notice(user, turn, 3)
    html = client.get("/").content.decode()
    assert 'aria-label="Notifications, 3 unread"' in html
    assert '<span class="nav-badge" aria-hidden="true">3</span>' in html


def test_the_badge_in_italian(cast, turn):
    _notice(cast.users["side_a"], turn, 1)
    client = cast.client("side_a")
    client.cookies["django_language"] = "it"
    html = client.get("/").content.decode()
    assert 'aria-label="Notifiche, 1 non letta"' in html
    _notice(cast.users["side_a"], turn, 2)
    html = client.get("/").content.decode()
    assert 'aria-label="Notifiche, 2 non lette"' in html
    assert ">Notifiche <span" in html


def test_no_badge_for_an_anonymous_visitor(cast):
    html = cast.client("anonymous").get("/").content.decode()
    assert "nav-notifications" not in html and LIST not in html


# --- the list ----------------------------------------------------------------------------------


def test_the_list_is_newest_first_with_the_unread_marked(cast, turn):
    user = cast.users["side_a"]
    old = _notice(user, turn, 1, read_at=timezone.now())
    new = _notice(user, turn, 2, status=Notification.Status.SKIPPED_OPT_OUT)
    Notification.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=1))

    html = cast.client("side_a").get(LIST).content.decode()

    assert html.index("Notice 2") < html.index("Notice 1")
    assert f'class="card notification unread" data-notification="{new.pk}"' in html
    assert f'class="card notification" data-notification="{old.pk}"' in html
    assert html.count(">New</span>") == 1
    assert f'href="/account/notifications/{new.pk}/open/">Notice 2</a>' in html
    assert "Email: Not sent: you opted out" in html and "Email: Sent" in html
    # the email switches stay on the page
    assert 'href="#preferences"' in html and 'id="preferences"' in html
    assert "Mark all as read" in html


def test_the_list_has_pages_of_25(cast, turn):
    user = cast.users["side_a"]
    for n in range(30):
        _notice(user, turn, n)
    client = cast.client("side_a")

    first = client.get(LIST).content.decode()
    assert first.count('data-notification="') == 25
    assert "Page 1 of 2" in first and 'href="?page=2" rel="next">Older</a>' in first
    assert "Notice 29" in first and "Notice 4<" not in first

    second = client.get(LIST, {"page": "2"}).content.decode()
    assert second.count('data-notification="') == 5
    assert 'href="?page=1" rel="prev">Newer</a>' in second and "Notice 0" in second
    assert client.get(LIST, {"page": "99"}).content.decode().count('data-notification="') == 5
    assert client.get(LIST, {"page": "x"}).status_code == 200


def test_an_empty_list_says_so(cast):
    html = cast.client("observer").get(LIST).content.decode()
    assert "Nothing has been sent to you yet." in html
    assert "Mark all as read" not in html


# --- opening a notice --------------------------------------------------------------------------


def test_opening_a_notice_marks_it_read_and_goes_to_its_page(cast, turn, settings):
    settings.SITE_URL = "https://fw.example.org"  # the link was built on another address
    notice = _notice(
        cast.users["side_a"], turn, url=f"https://fw.example.org{ORDERS}?force=r2#orders"
    )
    client = cast.client("side_a")

    response = client.get(reverse("notifications:open", args=[notice.pk]))

    assert response.status_code == 302
    assert response["Location"] == f"{ORDERS}?force=r2#orders"  # this site's page
    notice.refresh_from_db()
    first = notice.read_at
    assert first is not None
    assert "nav-badge" not in client.get("/").content.decode()
    client.get(reverse("notifications:open", args=[notice.pk]))
    notice.refresh_from_db()
    assert notice.read_at == first  # read once


@pytest.mark.parametrize(
    ("url", "location"),
    [
        ("https://elsewhere.example/c/incursion/", "/c/incursion/"),  # its path only
        ("//elsewhere.example/c/incursion/", "/c/incursion/"),
        ("https://x.example/\\elsewhere.example/", LIST),  # /\host is another host
        ("javascript:alert(1)", LIST),
        ("", LIST),
    ],
)
def test_opening_never_leaves_the_site(cast, turn, url, location):
    notice = _notice(cast.users["side_a"], turn, url=url)
    response = cast.client("side_a").get(reverse("notifications:open", args=[notice.pk]))
    assert response.status_code == 302 and response["Location"] == location
    notice.refresh_from_db()
    assert notice.read_at is not None


@pytest.mark.parametrize("who", ["gm", "side_b", "observer", "outsider"])
def test_nobody_opens_another_users_notice(cast, turn, who):
    notice = _notice(cast.users["side_a"], turn)
    response = cast.client(who).get(reverse("notifications:open", args=[notice.pk]))
    assert response.status_code == 404
    assert Notification.objects.get(pk=notice.pk).read_at is None
    assert notice.subject not in cast.client(who).get(LIST).content.decode()


def test_opening_needs_a_login(cast, turn):
    notice = _notice(cast.users["side_a"], turn)
    response = cast.client("anonymous").get(reverse("notifications:open", args=[notice.pk]))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert Notification.objects.get(pk=notice.pk).read_at is None


# --- mark all as read --------------------------------------------------------------------------


def test_mark_all_as_read(cast, turn):
    raider, defender = cast.users["side_a"], cast.users["side_b"]
    for n in range(3):
        _notice(raider, turn, n)
    _notice(defender, turn, 9)
    client = cast.client("side_a")

    assert client.get(reverse("notifications:read-all")).status_code == 405
    response = client.post(reverse("notifications:read-all"))

    assert response.status_code == 302 and response["Location"] == LIST
    assert _unread(raider) == 0
    assert _unread(defender) == 1  # only one's own
    page = client.get(LIST).content.decode()
    assert "Every notification is marked as read." in page
    assert "nav-badge" not in page and 'class="card notification unread"' not in page


def test_mark_all_as_read_needs_a_login(cast, turn):
    _notice(cast.users["side_a"], turn)
    response = cast.client("anonymous").post(reverse("notifications:read-all"))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert _unread(cast.users["side_a"]) == 1
