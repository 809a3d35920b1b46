"""The GM's "remind" control on the overview (`campaign:turn-remind`): while orders are open
he sees who has not confirmed (the army and who plays it) and reminds one player or all of
them, by email and in their notifications; at most once an hour a player, with a clear
refusal sooner; a second reminder later is a new notice. Only the GM may."""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from campaign.models import Orders, Turn
from campaign.moments import moment
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.turns.services import turn_close, turn_open, turn_remind
from notifications import services as notices
from notifications import tasks
from notifications.models import Kind, Notification
from tests.reading import reads_in

pytestmark = pytest.mark.django_db

DETAIL = "/c/incursion/"
REMIND = "/c/incursion/turn/remind/"
ORDERS_URL = "http://127.0.0.1:8000/c/incursion/orders/"


@pytest.fixture(autouse=True)
def site_url(settings) -> None:
    settings.SITE_URL = "http://127.0.0.1:8000"


@pytest.fixture
def turn(cast) -> Turn:
    turn = turn_current(campaign=cast.campaign)
    # a deadline far ahead, shown in Rome's time
    turn_open(turn=turn, deadline=datetime(2099, 7, 1, 12, 0, tzinfo=UTC), timezone="Europe/Rome")
    return Turn.objects.get(pk=turn.pk)


def _confirm(cast, turn: Turn, key: str) -> None:
    player = cast.campaign.players.get(key=key)
    saved = Orders.objects.get(turn=turn, player=player)
    orders_submit(player=player, turn=turn, data=saved.data, confirm=True)


def _reminders(user=None):
    rows = Notification.objects.filter(kind=Kind.GM_REMINDER)
    return rows.filter(user=user) if user is not None else rows


def _post(client, captured, **data):
    with captured(execute=True):
        return client.post(REMIND, {"turn": 1, **data})  # the form names the demo's turn 1


# --- the overview ------------------------------------------------------------------------------


def test_the_gm_sees_who_has_not_confirmed_and_a_remind_button(cast, turn):
    _confirm(cast, turn, "raiders")

    html = cast.client("gm").get(DETAIL).content.decode()

    assert "The March of Ashbury (Sir Edmund of Ashbury): saved, not confirmed" in html
    assert "The Grey Fell Clans (Ulfrik of Wolfstead): confirmed" in html
    # a button for the one still to confirm, none for the one who has
    assert '<input type="hidden" name="player" value="defenders">' in html
    assert 'name="player" value="raiders"' not in html
    assert 'Remind<span class="visually-hidden"> The March of Ashbury</span>' in html
    assert "Remind all who have not confirmed" in html

    _confirm(cast, turn, "defenders")
    html = cast.client("gm").get(DETAIL).content.decode()
    assert REMIND not in html  # everyone has confirmed: nothing to remind


@pytest.mark.parametrize("who", ["side_a", "side_b", "observer"])
def test_only_the_gm_sees_the_remind_buttons(cast, turn, who):
    html = cast.client(who).get(DETAIL).content.decode()
    assert REMIND not in html and ">Remind" not in html


def test_no_remind_button_once_orders_are_closed(cast, turn):
    turn_close(turn=turn, seed=5)
    assert REMIND not in cast.client("gm").get(DETAIL).content.decode()


# --- reminding ---------------------------------------------------------------------------------


def test_reminding_one_player_emails_him_and_notifies_him(
    cast, turn, mailoutbox, django_capture_on_commit_callbacks
):
    defender, gm = cast.users["side_b"], cast.client("gm")
    reads_in(defender, zone="Europe/Rome")

    response = _post(gm, django_capture_on_commit_callbacks, player="defenders")

    assert response.status_code == 302 and response["Location"] == DETAIL
    [notice] = _reminders()
    assert notice.user == defender and notice.key == "defenders:1"
    assert notice.url == ORDERS_URL and notice.read_at is None
    assert notice.status == Notification.Status.SENT
    [mail] = mailoutbox
    assert mail.to == ["defender@example.org"]
    assert mail.subject == "Incursion: the game master reminds you of your orders for turn 1"
    assert mail.body == notice.body
    assert "The Game Master, the game master of Incursion, reminds you" in mail.body
    assert "the orders of The March of Ashbury for turn 1 are not confirmed yet" in mail.body
    assert "Your orders are saved: confirm them once they are final." in mail.body
    # the deadline on the recipient's clock, the zone named
    assert "Orders are due by Wednesday 1 July 2099, 14:00 CEST." in mail.body
    assert f"Write and confirm your orders here: {ORDERS_URL}\n" in mail.body
    page = gm.get(DETAIL).content.decode()
    assert "Reminder sent to The March of Ashbury." in page
    assert re.search(r"reminded on \d+ \w+ \d{4}, \d\d:\d\d UTC", page)  # the GM's clock
    # the player: the badge and the notice
    html = cast.client("side_b").get("/").content.decode()
    assert 'aria-label="Notifications, 1 unread"' in html
    assert not _reminders(cast.users["side_a"]).exists()


def test_a_second_click_within_the_hour_is_refused_clearly(
    cast, turn, mailoutbox, django_capture_on_commit_callbacks
):
    reads_in(cast.users["gm"], zone="Europe/Rome")
    gm = cast.client("gm")
    _post(gm, django_capture_on_commit_callbacks, player="defenders")
    first = _reminders().get()

    again = _post(gm, django_capture_on_commit_callbacks, player="defenders")

    assert again.status_code == 400
    html = again.content.decode()
    assert 'role="alert"' in html
    with timezone.override(zoneinfo.ZoneInfo("Europe/Rome")):  # the GM's clock
        next_at = moment(first.created_at + timedelta(hours=1))
    assert next_at.endswith(("CET", "CEST"))
    assert (
        "The March of Ashbury was reminded less than an hour ago: the next reminder can go at "
        f"{next_at}."
    ) in html
    assert _reminders().count() == 1 and len(mailoutbox) == 1


def test_a_reminder_an_hour_later_is_a_new_notice(
    cast, turn, mailoutbox, django_capture_on_commit_callbacks
):
    gm = cast.client("gm")
    _post(gm, django_capture_on_commit_callbacks, player="defenders")
    Notification.objects.filter(kind=Kind.GM_REMINDER).update(
        created_at=timezone.now() - timedelta(minutes=61)
    )

    response = _post(gm, django_capture_on_commit_callbacks, player="defenders")

    assert response.status_code == 302
    assert sorted(_reminders().values_list("key", flat=True)) == ["defenders:1", "defenders:2"]
    assert len(mailoutbox) == 2


def test_remind_all_reminds_only_who_has_not_confirmed(
    cast, turn, mailoutbox, django_capture_on_commit_callbacks
):
    _confirm(cast, turn, "raiders")
    _post(cast.client("gm"), django_capture_on_commit_callbacks)
    assert [n.user for n in _reminders()] == [cast.users["side_b"]]
    assert [m.to for m in mailoutbox] == [["defender@example.org"]]


def test_remind_all_skips_who_was_reminded_within_the_hour(
    cast, turn, mailoutbox, django_capture_on_commit_callbacks
):
    gm = cast.client("gm")
    _post(gm, django_capture_on_commit_callbacks, player="defenders")

    response = _post(gm, django_capture_on_commit_callbacks)

    assert response.status_code == 302
    page = gm.get(DETAIL).content.decode()
    assert "Reminder sent to The Grey Fell Clans." in page
    assert "The March of Ashbury was reminded less than an hour ago" in page
    assert sorted(_reminders().values_list("key", flat=True)) == ["defenders:1", "raiders:1"]
    assert len(mailoutbox) == 2

    third = _post(gm, django_capture_on_commit_callbacks)
    assert third.status_code == 400 and len(mailoutbox) == 2


@pytest.mark.parametrize(
    ("player", "refusal"),
    [
        ("raiders", "The Grey Fell Clans has confirmed his orders already."),
        ("nobody", "There is no such player to remind."),
    ],
)
def test_a_player_who_needs_no_reminder_is_refused(cast, turn, player, refusal):
    _confirm(cast, turn, "raiders")
    response = cast.client("gm").post(REMIND, {"turn": turn.number, "player": player})
    assert response.status_code == 400
    assert refusal in response.content.decode()
    assert not _reminders().exists()


def test_nobody_to_remind_once_all_have_confirmed(cast, turn):
    _confirm(cast, turn, "raiders")
    _confirm(cast, turn, "defenders")  # (the early close it queues never runs here)
    assert Turn.objects.get(pk=turn.pk).is_open
    response = cast.client("gm").post(REMIND, {"turn": turn.number})
    assert response.status_code == 400
    assert "Every player has confirmed his orders: nobody to remind." in response.content.decode()


def test_no_reminder_once_orders_are_closed(cast, turn):
    turn_close(turn=turn, seed=5)
    response = cast.client("gm").post(REMIND, {"turn": turn.number, "player": "defenders"})
    assert response.status_code == 400
    assert "Turn 1 is not open for orders (closed)." in response.content.decode()
    assert not _reminders().exists()


def test_an_army_nobody_plays_is_named(cast, turn):
    cast.campaign.memberships.filter(player__key="defenders").update(player=None)
    response = cast.client("gm").post(REMIND, {"turn": turn.number, "player": "defenders"})
    assert response.status_code == 400
    assert "Nobody plays The March of Ashbury yet: there is no one to remind." in (
        response.content.decode()
    )


# --- once per click, in-app whatever the email -------------------------------------------------


def test_one_click_sends_one_email_however_often_its_task_runs(cast, turn, mailoutbox):
    done = turn_remind(turn=turn, by=cast.users["gm"], player_key="defenders")
    [notice] = done.notices
    tasks.notification_deliver_task.delay(notice.pk)
    tasks.notification_deliver_task.delay(notice.pk)
    assert len(mailoutbox) == 1
    # the same reminder logged again (a retried request) finds its row
    again = notices.notification_log(
        user=notice.user,
        turn=turn,
        kind=Kind.GM_REMINDER,
        key=notice.key,
        subject="x",
        body="y",
    )
    assert again.pk == notice.pk and _reminders().count() == 1


def test_an_opted_out_player_still_gets_the_notice(
    cast, turn, mailoutbox, django_capture_on_commit_callbacks
):
    defender = cast.users["side_b"]
    notices.preference_set(user=defender, kind=Kind.GM_REMINDER, enabled=False)

    _post(cast.client("gm"), django_capture_on_commit_callbacks, player="defenders")

    notice = _reminders(defender).get()
    assert notice.status == Notification.Status.SKIPPED_OPT_OUT
    assert mailoutbox == []
    html = cast.client("side_b").get("/account/notifications/").content.decode()
    assert notice.subject in html and "Email: Not sent: you opted out" in html


def test_the_reminder_is_written_in_the_recipients_language_not_the_gms(
    cast, turn, mailoutbox, django_capture_on_commit_callbacks
):
    reads_in(cast.users["side_b"], language="it", zone="Europe/Rome")
    reads_in(cast.users["side_a"], language="en", zone="America/New_York")
    gm = cast.client("gm")
    gm.cookies["django_language"] = "it"
    _post(gm, django_capture_on_commit_callbacks, player="defenders")
    [mail] = mailoutbox
    assert mail.subject == "Incursion: il master ti ricorda i tuoi ordini per il turno 1"
    assert "Mercoledì 01 Luglio 2099 14:00 CEST" in mail.body  # Italian dates, Rome's clock
    assert "Wednesday" not in mail.body and "Hello" not in mail.body

    Notification.objects.filter(kind=Kind.GM_REMINDER).update(
        created_at=timezone.now() - timedelta(hours=2)
    )
    _post(gm, django_capture_on_commit_callbacks, player="raiders")
    mail = mailoutbox[-1]
    assert mail.subject == "Incursion: the game master reminds you of your orders for turn 1"
    assert "Wednesday 1 July 2099, 08:00 EDT" in mail.body


# --- who may -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status"),
    [("side_a", 403), ("side_b", 403), ("observer", 403), ("outsider", 404), ("anonymous", 302)],
)
def test_only_the_gm_may_remind(cast, turn, who, status, mailoutbox):
    response = cast.client(who).post(REMIND, {"turn": turn.number, "player": "defenders"})
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith("/accounts/login/")
    assert not _reminders().exists() and mailoutbox == []


def test_reminding_needs_a_post(cast, turn):
    assert cast.client("gm").get(REMIND).status_code == 405
