"""Battle notices come in one batch a turn (issue 12, defect 12): however many battles Phases
0–2 create, they queue one notification task for them, on the mail queue and never the turns'
own, and that batch sends each message once however often it runs, fails or is retried."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.core.mail.backends.locmem import EmailBackend

from battles.models import Battle
from campaign.adapters import state_current
from campaign.models import Membership, Turn
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add
from campaign.setup.services import campaign_create
from campaign.turns.services import turn_close, turn_resolve
from config.celery import app as celery_app
from config.celery import mail_queue
from notifications import delivery, tasks
from notifications import services as notices
from notifications.models import Kind, Notification
from rules.generate import generate_campaign, generate_orders
from tests.campaign.conftest import orders_data

pytestmark = pytest.mark.django_db


class FlakyBackend(EmailBackend):
    """Hands every other message to the outbox and refuses the others."""

    calls = 0

    def send_messages(self, email_messages: Any) -> int:
        FlakyBackend.calls += 1
        if FlakyBackend.calls % 2:
            raise ConnectionResetError("the mail server hung up")
        return super().send_messages(email_messages)


class CountingBackend(EmailBackend):
    """The outbox, counting the connections made to it."""

    made = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        CountingBackend.made += 1
        super().__init__(*args, **kwargs)


@pytest.fixture
def closed_turn(django_user_model) -> Turn:
    """A generated campaign of many battles, a user with an address for each player, turn 1
    closed with every player's orders: Phases 0–2 are still to run."""
    state = generate_campaign(
        width=32, height=32, players=12, forces=300, units_per_force=2, seed=1
    )
    campaign = campaign_create(slug="many-battles", name="Many battles", state=state)
    for player in campaign.players.all():
        user = django_user_model.objects.create_user(player.key, email=f"{player.key}@example.org")
        membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
    turn = turn_current(campaign=campaign)
    orders = generate_orders(state_current(campaign=campaign), seed=1)
    for player in campaign.players.all():
        orders_submit(player=player, turn=turn, data=orders_data(orders[player.key]))
    return turn_close(turn=turn, seed=1)


def _expected(turn: Turn) -> Counter[tuple[str, str]]:
    """(address, battle key) of every message the turn's battles call for: one for each
    player of each battle."""
    return Counter(
        (f"{p}@example.org", b.key)
        for b in Battle.objects.filter(turn=turn)
        for side in b.pack["sides"]
        for p in side["players"]
    )


def _sent(mailoutbox, turn: Turn) -> Counter[tuple[str, str]]:
    keys = dict(
        Notification.objects.filter(turn=turn, kind=Kind.BATTLE).values_list("subject", "key")
    )
    return Counter((m.to[0], keys[m.subject]) for m in mailoutbox)


def test_many_battles_queue_one_notification_task(closed_turn, monkeypatch):
    queued: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(tasks, "enqueue_on_commit", lambda task, *a: queued.append((task.name, a)))

    turn_resolve(turn_id=closed_turn.pk)

    assert Battle.objects.filter(turn=closed_turn).count() >= 10
    # one task for every battle of the turn (and one for the forces without orders, if any)
    assert [q for q in queued if q[0] != "notifications.notify_missing_orders"] == [
        ("notifications.notify_battles", (closed_turn.pk,))
    ]


def test_queuing_the_notices_costs_one_query_whatever_the_battles(
    closed_turn, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks():  # run them by hand below
        turn_resolve(turn_id=closed_turn.pk)
    assert Battle.objects.filter(turn=closed_turn).count() >= 10
    with django_assert_max_num_queries(1), django_capture_on_commit_callbacks() as queued:
        tasks.enqueue_phases_0_2_notices(turn_id=closed_turn.pk, events=[])
    assert len(queued) == 1


def test_the_batch_tells_each_player_of_each_battle_once(
    closed_turn, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks():
        turn_resolve(turn_id=closed_turn.pk)
    expected = _expected(closed_turn)
    assert len(expected) > Battle.objects.filter(turn=closed_turn).count()  # two sides a battle

    tasks.notify_battles_task.delay(closed_turn.pk)
    tasks.notify_battles_task.delay(closed_turn.pk)  # run twice: nothing sent twice

    assert _sent(mailoutbox, closed_turn) == expected
    logged = Notification.objects.filter(turn=closed_turn, kind=Kind.BATTLE)
    assert logged.count() == len(expected)
    assert set(logged.values_list("status", flat=True)) == {Notification.Status.SENT}


def test_the_batch_sends_over_one_connection(
    closed_turn, mailoutbox, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks():
        turn_resolve(turn_id=closed_turn.pk)
    settings.MAILERS = {"default": {"BACKEND": f"{__name__}.CountingBackend"}}
    CountingBackend.made = 0

    tasks.notify_battles_task.delay(closed_turn.pk)

    assert len(mailoutbox) == len(_expected(closed_turn)) > 10
    assert CountingBackend.made == 1


def test_a_batch_run_again_costs_a_fixed_number_of_queries(
    closed_turn, mailoutbox, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks():
        turn_resolve(turn_id=closed_turn.pk)
    messages = len(_expected(closed_turn))
    # the batch: a few queries in all, and a few for each message it sends
    with django_assert_max_num_queries(10 + 4 * messages):
        tasks.notify_battles_task.delay(closed_turn.pk)
    # a retried batch finds every message sent: it reads the log and sends nothing
    with django_assert_max_num_queries(10):
        tasks.notify_battles_task.delay(closed_turn.pk)
    assert len(mailoutbox) == messages


def test_a_retried_batch_sends_only_what_failed(
    closed_turn, mailoutbox, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks():
        turn_resolve(turn_id=closed_turn.pk)
    mailers = settings.MAILERS
    settings.MAILERS = {"default": {"BACKEND": f"{__name__}.FlakyBackend"}}

    with pytest.raises(delivery.DeliveryFailed):  # the task would be retried (RETRY)
        notices.notify_battles(turn_id=closed_turn.pk)
    half = len(mailoutbox)
    statuses = Counter(
        Notification.objects.filter(turn=closed_turn).values_list("status", flat=True)
    )
    assert statuses[Notification.Status.FAILED] and statuses[Notification.Status.SENT] == half

    settings.MAILERS = mailers  # the mailer is back: the retry sends the failed ones only
    tasks.notify_battles_task.delay(closed_turn.pk)
    tasks.notify_battle_task.delay(Battle.objects.filter(turn=closed_turn).first().pk)  # old task
    assert _sent(mailoutbox, closed_turn) == _expected(closed_turn)


def test_notification_tasks_go_to_the_mail_queue():
    router = celery_app.amqp.router
    default = celery_app.conf.task_default_queue
    names = [name for name in celery_app.tasks if name.startswith("notifications.")]
    assert "notifications.notify_battles" in names
    for name in names:
        assert router.route({}, name)["queue"].name == mail_queue() == f"{default}.mail", name
    turns = ("campaign.turn_resolve", "campaign.turn_resolve_after_battles")
    for name in (*turns, "battles.battle_odds"):
        assert router.route({}, name)["queue"].name == default, name
    # a worker started without -Q consumes both (the README's simple deployment)
    assert {default, mail_queue()} <= set(celery_app.amqp.queues)


def test_the_mail_queue_follows_the_default_queue():
    """A test's worker (tests/campaign/turns/test_celery_worker.py) moves the default queue:
    the notifications follow it to its own mail queue."""
    conf = celery_app.conf
    saved = conf.task_default_queue
    conf.task_default_queue = "fw-test-elsewhere"
    try:
        route = celery_app.amqp.router.route({}, "notifications.notify_battles")
        assert route["queue"].name == "fw-test-elsewhere.mail"
    finally:
        conf.task_default_queue = saved
