"""Notifications: each kind is sent once however often its task runs, opt-outs are respected and
logged, the digest of a turn keeps to what the reader's side could see, failures are logged
and retried, and the user's page shows his own log and switches."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.mail.backends.base import BaseEmailBackend
from django.urls import reverse
from django.utils import timezone

from battles.models import Battle
from campaign.adapters import state_current
from campaign.models import Membership, Orders, Turn
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add
from campaign.setup.services import campaign_create
from campaign.turns.services import (
    turn_close,
    turn_extend,
    turn_open,
    turn_resolve,
    turn_resolve_after_battles,
)
from notifications import delivery, tasks
from notifications import services as notices
from notifications.models import Kind, Notification, NotificationPreference
from rules.generate import generate_campaign, generate_orders
from tests.campaign.conftest import orders_data

pytestmark = pytest.mark.django_db

SEED = 5  # the demo's turn 1: every raider moves, no battle, the defenders stay out of sight
HIDDEN_DEFENDERS = ("Ashbury Garrison", "The Northern March", "The Southern March")


class FailingBackend(BaseEmailBackend):
    def send_messages(self, email_messages):
        raise ConnectionRefusedError("the mail server is down")


@pytest.fixture
def turn(cast) -> Turn:
    return turn_current(campaign=cast.campaign)


def _to(mailoutbox, address: str) -> list:
    return [m for m in mailoutbox if address in m.to]


def _resolved_demo_turn(turn: Turn) -> Turn:
    turn_close(turn=turn, seed=SEED)
    turn_resolve(turn_id=turn.pk)
    turn_resolve_after_battles(turn_id=turn.pk)
    return Turn.objects.get(pk=turn.pk)


# --- once, however often ---------------------------------------------------------------------


def test_turn_opened_is_sent_once_per_deadline(turn, mailoutbox):
    turn_open(turn=turn, deadline=timezone.now() + timedelta(days=3), timezone="UTC")

    tasks.notify_turn_opened_task.delay(turn.pk)
    tasks.notify_turn_opened_task.delay(turn.pk)

    assert sorted(m.to[0] for m in mailoutbox) == ["defender@example.org", "raider@example.org"]
    [raider] = _to(mailoutbox, "raider@example.org")
    assert raider.subject == "Incursion: turn 1 is open for orders"
    assert "Write and confirm your orders here: http://127.0.0.1:8000/c/incursion/orders/\n" in (
        raider.body
    )
    assert "/account/notifications/" in raider.body
    logged = Notification.objects.filter(turn=turn, kind=Kind.TURN_OPENED)
    assert {n.status for n in logged} == {Notification.Status.SENT}
    assert logged.count() == 2

    # a new deadline is news: one more message each, saying it changed
    turn_extend(turn=turn, days=1)
    tasks.notify_turn_opened_task.delay(turn.pk)
    tasks.notify_turn_opened_task.delay(turn.pk)
    assert len(mailoutbox) == 4
    assert "deadline of turn 1 has changed" in mailoutbox[-1].subject


def test_a_reminder_is_sent_once_to_who_has_not_confirmed(turn, cast, mailoutbox):
    Turn.objects.filter(pk=turn.pk).update(
        opened_at=timezone.now() - timedelta(days=3),
        deadline=timezone.now() + timedelta(hours=20),
    )
    raiders = cast.campaign.players.get(key="raiders")
    saved = Orders.objects.get(turn=turn, player=raiders)
    orders_submit(player=raiders, turn=turn, data=saved.data, confirm=True)

    tasks.notify_reminders_due_task.delay()
    tasks.notify_reminders_due_task.delay()

    [mail] = mailoutbox
    assert mail.to == ["defender@example.org"]
    assert "due within a day" in mail.subject
    assert "saved but not yet confirmed" in mail.body
    assert "your orders here: http://127.0.0.1:8000/c/incursion/orders/\n" in mail.body


def test_no_reminder_before_the_last_day_nor_for_a_paused_turn(turn, mailoutbox):
    Turn.objects.filter(pk=turn.pk).update(
        opened_at=timezone.now() - timedelta(days=3),
        deadline=timezone.now() + timedelta(hours=30),
    )
    assert notices.notify_reminders_due() == []
    Turn.objects.filter(pk=turn.pk).update(
        deadline=timezone.now() + timedelta(hours=2), paused_at=timezone.now()
    )
    assert notices.notify_reminders_due() == []
    assert mailoutbox == []


def test_a_battle_notice_goes_once_to_the_players_who_fight(
    django_user_model, mailoutbox, settings, client
):
    settings.SITE_URL = "https://fw.example.org"
    state = generate_campaign(width=8, height=8, players=4, forces=10, units_per_force=3, seed=1)
    campaign = campaign_create(slug="battle", name="Battle", state=state)
    for player in campaign.players.all():
        user = django_user_model.objects.create_user(player.key, email=f"{player.key}@example.org")
        membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
    turn = turn_current(campaign=campaign)
    orders = generate_orders(state_current(campaign=campaign), seed=1)
    for player in campaign.players.all():
        orders_submit(player=player, turn=turn, data=orders_data(orders[player.key]))
    turn_close(turn=turn, seed=1)
    turn_resolve(turn_id=turn.pk)
    [battle] = Battle.objects.filter(turn=turn)
    fighting = {p for side in battle.pack["sides"] for p in side["players"]}

    tasks.notify_battles_task.delay(turn.pk)
    tasks.notify_battles_task.delay(turn.pk)

    assert sorted(m.to[0] for m in mailoutbox) == sorted(f"{p}@example.org" for p in fighting)
    assert len(fighting) < campaign.players.count()  # the others hear nothing of it
    assert all(battle.key in m.body and "(" in m.subject for m in mailoutbox)
    # people read the battle's number, not its rules id (the key is only in the link)
    assert all(f"battle {battle.label} must be fought" in m.body for m in mailoutbox)
    # the link opens the battle's own page (pack, result), not the campaign overview
    link = f"https://fw.example.org/c/battle/battles/{battle.key}/"
    assert all(f"The battle pack and the result form: {link}\n" in m.body for m in mailoutbox)
    logged = Notification.objects.filter(kind=Kind.BATTLE)
    assert {n.url for n in logged} == {link}
    client.force_login(logged[0].user)
    page = client.get(link.removeprefix("https://fw.example.org"))
    assert page.status_code == 200 and battle.key in page.content.decode()


def test_missing_orders_notice_is_sent_once(turn, mailoutbox):
    Orders.objects.filter(turn=turn, player__key="defenders").delete()
    turn_close(turn=turn, seed=SEED)
    turn_resolve(turn_id=turn.pk)

    tasks.notify_missing_orders_task.delay(turn.pk)
    tasks.notify_missing_orders_task.delay(turn.pk)

    [mail] = mailoutbox
    assert mail.to == ["defender@example.org"]
    assert "had no orders" in mail.subject


def test_the_digest_is_sent_once_to_each_member(turn, mailoutbox):
    turn = _resolved_demo_turn(turn)

    tasks.notify_turn_resolved_task.delay(turn.pk)
    tasks.notify_turn_resolved_task.delay(turn.pk)

    assert sorted(m.to[0] for m in mailoutbox) == [
        "defender@example.org",
        "gm@example.org",
        "raider@example.org",
    ]
    logged = dict(
        Notification.objects.filter(turn=turn, kind=Kind.TURN_RESOLVED).values_list(
            "user__username", "status"
        )
    )
    # the observer has no address: logged, not sent
    assert logged == {
        "gm": "sent",
        "raider": "sent",
        "defender": "sent",
        "olive": Notification.Status.SKIPPED_NO_EMAIL,
    }
    [raider] = _to(mailoutbox, "raider@example.org")
    assert f"The seed of the turn was {SEED}" in raider.body
    assert "/c/incursion/turns/1/" in raider.body
    assert "Turn 2 is open for orders." in raider.body


# --- fog of war ------------------------------------------------------------------------------


def test_the_digest_never_names_a_hidden_enemy_force(turn, mailoutbox):
    turn = _resolved_demo_turn(turn)

    notices.notify_turn_resolved(turn_id=turn.pk)

    [raider] = _to(mailoutbox, "raider@example.org")
    [defender] = _to(mailoutbox, "defender@example.org")
    [gm] = _to(mailoutbox, "gm@example.org")
    assert "The Jarl's Host" in raider.body  # his own forces' moves are there
    for name in HIDDEN_DEFENDERS:
        assert name not in raider.body
        assert name in gm.body  # the GM sees everything: the filter is what hid them
    for name in ("The Jarl's Host", "Hakon's Warband", "The Red Riders"):
        assert name not in defender.body
    assert "fog of war" in raider.body and "fog of war" not in gm.body


# --- opting out ------------------------------------------------------------------------------


def test_an_opt_out_is_respected_and_logged(turn, cast, mailoutbox):
    notices.preference_set(user=cast.users["side_a"], kind=Kind.TURN_OPENED, enabled=False)
    turn_open(turn=turn, deadline=timezone.now() + timedelta(days=3), timezone="UTC")

    notices.notify_turn_opened(turn_id=turn.pk)

    assert [m.to for m in mailoutbox] == [["defender@example.org"]]
    skipped = Notification.objects.get(user=cast.users["side_a"], kind=Kind.TURN_OPENED)
    assert skipped.status == Notification.Status.SKIPPED_OPT_OUT
    assert skipped.sent_at is None
    assert "turn 1 is open" in skipped.subject  # what he missed stays in his log


def test_all_off_wins_over_a_kind_turned_on(cast):
    user = cast.users["side_b"]
    notices.preference_set(user=user, kind=Kind.BATTLE, enabled=True)
    notices.preference_set(user=user, kind=NotificationPreference.ALL, enabled=False)
    assert not delivery.preference_enabled(user=user, kind=Kind.BATTLE)
    assert not delivery.preference_enabled(user=user, kind=Kind.REMINDER)
    notices.preference_set(user=user, kind=NotificationPreference.ALL, enabled=True)
    assert delivery.preference_enabled(user=user, kind=Kind.BATTLE)


# --- failures --------------------------------------------------------------------------------


def test_a_failed_delivery_is_logged_and_retried_once(turn, settings, mailoutbox):
    turn_open(turn=turn, deadline=timezone.now() + timedelta(days=3), timezone="UTC")
    mailers = settings.MAILERS
    settings.MAILERS = {"default": {"BACKEND": f"{__name__}.FailingBackend"}}

    with pytest.raises(delivery.DeliveryFailed, match="2 of 2"):
        notices.notify_turn_opened(turn_id=turn.pk)
    failed = Notification.objects.filter(turn=turn)
    assert {n.status for n in failed} == {Notification.Status.FAILED}
    assert all("mail server is down" in n.error for n in failed)

    settings.MAILERS = mailers
    notices.notify_turn_opened(turn_id=turn.pk)
    notices.notify_turn_opened(turn_id=turn.pk)
    assert len(mailoutbox) == 2
    assert {n.status for n in Notification.objects.filter(turn=turn)} == {"sent"}


# --- the page --------------------------------------------------------------------------------


def test_the_page_shows_the_users_own_log(turn, cast):
    turn_open(turn=turn, deadline=timezone.now() + timedelta(days=3), timezone="UTC")
    notices.notify_turn_opened(turn_id=turn.pk)
    raider = Notification.objects.get(user=cast.users["side_a"])

    page = cast.client("side_a").get(reverse("notifications:log"))

    assert page.status_code == 200
    html = page.content.decode()
    assert raider.subject in html and "Sent" in html
    assert "the orders of The Grey Fell Clans are wanted" in html
    assert "The March of Ashbury are wanted" not in html  # the defender's message
    assert 'hx-post="/account/notifications/"' in html


def test_a_switch_is_flipped_with_htmx_or_a_plain_form(cast):
    client, user = cast.client("side_a"), cast.users["side_a"]
    url = reverse("notifications:log")

    fragment = client.post(url, {"kind": Kind.REMINDER, "enabled": "off"}, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    assert b'id="preferences"' in fragment.content and b"Delivery log" not in fragment.content
    assert not delivery.preference_enabled(user=user, kind=Kind.REMINDER)

    page = client.post(url, {"kind": Kind.REMINDER, "enabled": "on"})
    assert page.status_code == 302 and page["Location"] == url
    assert delivery.preference_enabled(user=user, kind=Kind.REMINDER)

    assert client.post(url, {"kind": "everything", "enabled": "off"}).status_code == 400


def test_the_page_needs_a_login(cast):
    response = cast.client("anonymous").get(reverse("notifications:log"))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_the_page_needs_csrf(cast):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(cast.users["side_a"])
    response = client.post(reverse("notifications:log"), {"kind": "all", "enabled": "off"})
    assert response.status_code == 403


def test_a_line_break_never_reaches_a_subject(cast, mailoutbox):
    from campaign.models import Campaign

    Campaign.objects.filter(pk=cast.campaign.pk).update(name="Wend\nValley")
    turn = turn_current(campaign=cast.campaign)
    tasks.notify_turn_opened_task.delay(turn.pk)
    assert mailoutbox and all("\n" not in m.subject for m in mailoutbox)
    assert "Wend Valley: turn 1 is open for orders" in mailoutbox[0].subject
